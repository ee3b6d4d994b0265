/* Checks tessera's Norm data path through its C ABI: the bundled dataset decoded batch by
 * batch and in small chunks into caller arrays (the two must agree), and the failures a
 * caller must handle: a configuration the header contradicts, a flipped byte, a truncated
 * file, arrays too small, misaligned or overlapping arrays, nulls. Built by run.sh with ASan
 * + UBSan. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                      \
  do {                                                                   \
    checks++;                                                            \
    if (!(cond)) {                                                       \
      failures++;                                                        \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                    \
  } while (0)

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) exit(2);
  fclose(f);
  *len = (size_t)n;
  return buf;
}

/* demo.norm: 1 024 samples, 1 label, 13 dense, 26 slots of 1 to 3 u32 keys, checksums. */
static const TesseraNormConfig kConfig = {1, 13, 26, 3, 1, 0};
enum { SAMPLES = 1024, BATCH = 100 };

typedef struct {
  TesseraBatchU32 b;
} Arrays;

static Arrays arrays(size_t samples) {
  size_t ld, off, keys;
  CHECK(tessera_norm_batch_lens(&kConfig, samples, &ld, &off, &keys) == TESSERA_OK);
  CHECK(ld == samples * 14 && off == samples * 26 + 1 && keys == samples * 26 * 3);
  Arrays a = {{malloc(ld * sizeof(float)), ld, malloc(off * sizeof(uint32_t)), off,
               malloc(keys * sizeof(uint32_t)), keys}};
  return a;
}

static void free_arrays(Arrays *a) {
  free(a->b.label_dense);
  free(a->b.row_offsets);
  free(a->b.keys);
}

/* Decodes the whole file, feeding it `chunk` bytes at a time (0: all of it), and returns a
 * checksum of every key, label and row length, and the sample count. */
static uint64_t decode_all(const uint8_t *file, size_t len, size_t chunk, size_t *samples) {
  TesseraNormDecoder d;
  TesseraError err;
  CHECK(tessera_norm_decoder_init(&d, &kConfig, TESSERA_KEY_U32, &err) == TESSERA_OK);
  Arrays a = arrays(BATCH);
  uint64_t sum = 0;
  size_t pos = 0, end = chunk ? (chunk < len ? chunk : len) : len;
  *samples = 0;
  for (int guard = 0; guard < 100000; guard++) {
    TesseraNormProgress p;
    if (tessera_norm_decode_u32(&d, file + pos, end - pos, &a.b, &p, &err) != TESSERA_OK) {
      fprintf(stderr, "decode: %s\n", err.message);
      CHECK(0);
      break;
    }
    CHECK(p.consumed <= end - pos && p.samples <= BATCH);
    CHECK(a.b.row_offsets[p.samples * 26] == p.nnz);
    /* Sample by sample (label, then each row's length and keys), so that the sum does not
     * depend on where batches end: chunks split them differently. */
    for (size_t smp = 0; smp < p.samples; smp++) {
      sum = sum * 31 + (a.b.label_dense[smp * 14] > 0.5f);
      for (size_t r = smp * 26; r < (smp + 1) * 26; r++) {
        sum = sum * 31 + (a.b.row_offsets[r + 1] - a.b.row_offsets[r]);
        for (uint32_t k = a.b.row_offsets[r]; k < a.b.row_offsets[r + 1]; k++)
          sum = sum * 31 + a.b.keys[k];
      }
    }
    *samples += p.samples;
    pos += p.consumed;
    if (p.status == TESSERA_DECODE_DONE) break;
    if (p.status == TESSERA_DECODE_NEED_MORE) {
      if (end == len) break;
      /* Keep the unconsumed bytes and bring in at least what the next record needs. */
      size_t want = pos + (p.needed > chunk ? p.needed : chunk);
      end = want < len ? want : len;
    }
  }
  uint64_t decoded = 0;
  CHECK(tessera_norm_decoder_finish(&d, file + pos, len - pos, &decoded, NULL, &err) ==
        TESSERA_OK);
  CHECK(decoded == *samples);
  free_arrays(&a);
  return sum;
}

static void whole_and_chunked_agree(const uint8_t *file, size_t len) {
  size_t n1, n2, n3;
  uint64_t whole = decode_all(file, len, 0, &n1);
  uint64_t small = decode_all(file, len, 7, &n2);
  uint64_t big = decode_all(file, len, 4096, &n3);
  CHECK(n1 == SAMPLES && n2 == SAMPLES && n3 == SAMPLES);
  CHECK(whole == small && whole == big);
}

static void failures_a_caller_handles(const uint8_t *file, size_t len) {
  TesseraNormDecoder d;
  TesseraError err;
  TesseraNormProgress p;
  Arrays a = arrays(4);

  /* The header says 13 dense features; a configuration of 12 is refused at byte 0. */
  TesseraNormConfig wrong = kConfig;
  wrong.dense_dim = 12;
  CHECK(tessera_norm_decoder_init(&d, &wrong, TESSERA_KEY_U32, &err) == TESSERA_OK);
  CHECK(tessera_norm_decode_u32(&d, file, len, &a.b, &p, &err) == TESSERA_MALFORMED);
  CHECK(strstr(err.message, "dense_dim") != NULL);

  /* A flipped byte inside sample 13: the sample and byte offset come back; the samples
   * before it stay whole in the arrays. */
  uint8_t *copy = malloc(len);
  memcpy(copy, file, len);
  copy[5000] ^= 0xff;
  Arrays big = arrays(SAMPLES);
  CHECK(tessera_norm_decoder_init(&d, &kConfig, TESSERA_KEY_U32, &err) == TESSERA_OK);
  CHECK(tessera_norm_decode_u32(&d, copy, len, &big.b, &p, &err) == TESSERA_MALFORMED);
  CHECK(err.sample == 13 && err.byte_offset > 0 && err.byte_offset <= 5000);
  /* Every later call returns the same error. */
  CHECK(tessera_norm_decode_u32(&d, copy, len, &big.b, &p, &err) == TESSERA_MALFORMED);
  CHECK(err.sample == 13);
  free_arrays(&big);

  /* With skip_bad, the sample is left out and counted. */
  TesseraNormConfig skip = kConfig;
  skip.skip_bad = 1;
  big = arrays(SAMPLES);
  CHECK(tessera_norm_decoder_init(&d, &skip, TESSERA_KEY_U32, &err) == TESSERA_OK);
  CHECK(tessera_norm_decode_u32(&d, copy, len, &big.b, &p, &err) == TESSERA_OK);
  CHECK(p.samples == SAMPLES - 1 && p.skipped == 1);
  free_arrays(&big);
  free(copy);

  /* Truncated: finish names what is missing. */
  CHECK(tessera_norm_decoder_init(&d, &kConfig, TESSERA_KEY_U32, &err) == TESSERA_OK);
  size_t cut = len - 10, pos = 0;
  for (;;) {
    CHECK(tessera_norm_decode_u32(&d, file + pos, cut - pos, &a.b, &p, &err) == TESSERA_OK);
    pos += p.consumed;
    if (p.status != TESSERA_DECODE_BATCH_FULL) break;
  }
  CHECK(p.status == TESSERA_DECODE_NEED_MORE);
  CHECK(tessera_norm_decoder_finish(&d, file + pos, cut - pos, NULL, NULL, &err) ==
        TESSERA_MALFORMED);
  CHECK(err.sample == SAMPLES - 1 && strstr(err.message, "truncated") != NULL);

  /* Arrays too small for one sample: the bytes needed. */
  CHECK(tessera_norm_decoder_init(&d, &kConfig, TESSERA_KEY_U32, &err) == TESSERA_OK);
  TesseraBatchU32 tiny = a.b;
  tiny.row_offsets_len = 10;
  CHECK(tessera_norm_decode_u32(&d, file, len, &tiny, &p, &err) == TESSERA_BUFFER_TOO_SMALL);
  CHECK(err.needed == 14 * 4 + 27 * 4);

  /* Misaligned, overlapping, the wrong key type, nulls, a decoder never set up. */
  TesseraBatchU32 odd = a.b;
  odd.keys = (uint32_t *)((uint8_t *)a.b.keys + 1);
  odd.keys_len -= 1;
  CHECK(tessera_norm_decode_u32(&d, file, len, &odd, &p, &err) == TESSERA_BAD_ARGUMENT);
  TesseraBatchU32 overlap = a.b;
  overlap.keys = a.b.row_offsets;
  CHECK(tessera_norm_decode_u32(&d, file, len, &overlap, &p, &err) == TESSERA_BAD_ARGUMENT);
  CHECK(strstr(err.message, "overlap") != NULL);
  TesseraBatchI64 wide = {NULL, 0, NULL, 0, NULL, 0};
  CHECK(tessera_norm_decode_i64(&d, file, len, &wide, &p, &err) == TESSERA_BAD_ARGUMENT);
  CHECK(tessera_norm_decode_u32(NULL, file, len, &a.b, &p, &err) == TESSERA_NULL_ARGUMENT);
  CHECK(tessera_norm_decode_u32(&d, NULL, len, &a.b, &p, &err) == TESSERA_NULL_ARGUMENT);
  CHECK(tessera_norm_decode_u32(&d, file, len, NULL, &p, &err) == TESSERA_NULL_ARGUMENT);
  CHECK(tessera_norm_decode_u32(&d, file, len, &a.b, NULL, &err) == TESSERA_NULL_ARGUMENT);
  TesseraNormDecoder never;
  memset(&never, 0, sizeof never);
  CHECK(tessera_norm_decode_u32(&never, file, len, &a.b, &p, &err) == TESSERA_BAD_ARGUMENT);
  TesseraNormConfig bad = kConfig;
  bad.check = 3;
  CHECK(tessera_norm_decoder_init(&d, &bad, TESSERA_KEY_U32, &err) == TESSERA_BAD_ARGUMENT);
  CHECK(tessera_norm_decoder_init(&d, &kConfig, 9, &err) == TESSERA_BAD_ARGUMENT);
  free_arrays(&a);
}

int main(void) {
  const char *path = getenv("TESSERA_NORM");
  size_t len;
  uint8_t *file = read_file(path ? path : "lite-runtime/cli/demo/demo.norm", &len);
  whole_and_chunked_agree(file, len);
  failures_a_caller_handles(file, len);
  free(file);
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
