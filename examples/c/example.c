/* What a mobile or desktop C app writes to run a TensorFlow Lite model with tessera:
 *
 *   example [MODEL.tflite [DATA.norm [EXPECTED.npy]]]
 *
 * It reads the model from a file, asks tessera how much memory the model needs, allocates
 * the arena and the interpreter itself (tessera never allocates them), fills the inputs,
 * invokes, prints the outputs and frees everything. String inputs are built with the
 * TF_TString API (tessera_tstring_*); string outputs are read as TF_TString views of the
 * output's bytes, as TensorFlow's kernels would take them. For the CTR model (inputs
 * `keys` int32 [B, 26, 3] and `dense` float [B, 13]), the inputs come from a HugeCTR Norm
 * file decoded with the data-path API (tessera_norm_*) into arrays this program owns, and
 * with EXPECTED.npy the predictions are checked against the host's.
 *
 * Any failure prints tessera's message (with the operator, tensor, sample or byte offset it
 * names) and exits with status 1. Build and run: examples/c/run.sh. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"

/* TensorFlow Lite's TensorType codes this program handles. */
enum { TYPE_FLOAT32 = 0, TYPE_INT32 = 2, TYPE_UINT8 = 3, TYPE_INT64 = 4, TYPE_STRING = 5,
       TYPE_BOOL = 6, TYPE_INT8 = 9 };

/* The CTR model's encoding of a sample (lite-runtime/data/src/ctr.rs): 26 slots of up to 3 keys,
 * slot s's keys in [400 s, 400 (s + 1)) fed as key - 400 s + 1, 0 meaning "no key". */
enum { SLOTS = 26, KEYS_PER_SLOT = 3, DENSE = 13, VOCAB_PER_SLOT = 400 };

static void die_status(const char *what, TesseraStatus st, const TesseraError *err) {
  fprintf(stderr, "example: %s failed (status %d)", what, (int)st);
  if (err) {
    if (err->message[0]) fprintf(stderr, ": %s", err->message);
    if (err->operator_index >= 0) fprintf(stderr, " [operator %" PRId64 "]", err->operator_index);
    if (err->tensor_index >= 0) fprintf(stderr, " [tensor %" PRId64 "]", err->tensor_index);
    if (err->sample >= 0) fprintf(stderr, " [sample %" PRId64 "]", err->sample);
    if (err->byte_offset >= 0) fprintf(stderr, " [byte %" PRId64 "]", err->byte_offset);
    if (err->needed > 0) fprintf(stderr, " [%" PRIu64 " bytes needed]", err->needed);
  }
  fputc('\n', stderr);
  exit(1);
}

static void die(const char *what) {
  fprintf(stderr, "example: %s\n", what);
  exit(1);
}

/* A TesseraError cleared before each call, so a message is never a stale one. */
static TesseraError fresh_error(void) {
  TesseraError e;
  memset(&e, 0, sizeof e);
  e.operator_index = e.tensor_index = e.byte_offset = e.sample = -1;
  return e;
}

static void *checked_malloc(size_t n) {
  void *p = malloc(n ? n : 1); /* malloc(0) may return NULL: ask for a byte instead */
  if (!p) die("out of memory");
  return p;
}

/* The whole file in memory: the model must stay at one address while the interpreter runs
 * (tessera reads its constants in place, never copying them). */
static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "example: cannot open %s\n", path);
    exit(1);
  }
  if (fseek(f, 0, SEEK_END) != 0) die("cannot seek");
  long n = ftell(f);
  if (n < 0 || fseek(f, 0, SEEK_SET) != 0) die("cannot size the file");
  uint8_t *buf = checked_malloc((size_t)n);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) die("short read");
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static size_t elements(const TesseraTensorInfo *info) {
  size_t n = 1;
  for (uint32_t d = 0; d < info->rank; d++) n *= (size_t)info->dims[d];
  return n;
}

/* --- Strings: inputs built as TF_TStrings, outputs read back as TF_TString views. ------ */

static void fill_string_input(TesseraInterpreter *it, size_t i, const TesseraTensorInfo *info) {
  static const char *words[] = {"tessera", "", "a word longer than twenty-two bytes", "z"};
  size_t n = elements(info);
  TesseraTString *s = checked_malloc(n * sizeof *s);
  const uint8_t **ptrs = checked_malloc(n * sizeof *ptrs);
  size_t *lens = checked_malloc(n * sizeof *lens);
  for (size_t k = 0; k < n; k++) {
    tessera_tstring_init(&s[k]);
    const char *w = words[k % 4];
    /* Copied into the TString: SMALL inline up to 22 bytes, LARGE (malloc) beyond. */
    tessera_tstring_copy(&s[k], w, strlen(w));
    ptrs[k] = (const uint8_t *)tessera_tstring_get_data_pointer(&s[k]);
    lens[k] = tessera_tstring_get_size(&s[k]);
  }
  TesseraError err = fresh_error();
  /* The interpreter copies the bytes into its arena (its string budget), so the TStrings
   * may be freed right after. */
  TesseraStatus st = tessera_interpreter_set_input_strings(it, i, ptrs, lens, n, &err);
  if (st != TESSERA_OK) die_status("set_input_strings", st, &err);
  for (size_t k = 0; k < n; k++) tessera_tstring_dealloc(&s[k]);
  free(lens);
  free(ptrs);
  free(s);
}

static void print_string_output(const TesseraInterpreter *it, size_t j) {
  const uint8_t *bytes;
  size_t len, count;
  TesseraStatus st = tessera_interpreter_output_data(it, j, &bytes, &len);
  if (st != TESSERA_OK) die_status("output_data", st, NULL);
  /* The output's bytes are a TFLite string tensor: decode it into TF_TString VIEWs (nothing
   * copied; the views are valid until the next invoke). */
  st = tessera_tflite_strings_count(bytes, len, &count);
  if (st != TESSERA_OK) die_status("tflite_strings_count", st, NULL);
  TesseraTString *views = checked_malloc(count * sizeof *views);
  for (size_t k = 0; k < count; k++) tessera_tstring_init(&views[k]);
  st = tessera_tflite_strings_to_tstrings(bytes, len, views, count, &count);
  if (st != TESSERA_OK) die_status("tflite_strings_to_tstrings", st, NULL);
  printf("output %zu: %zu strings:", j, count);
  for (size_t k = 0; k < count; k++) {
    /* Not NUL-terminated: print exactly `size` bytes. */
    printf(" \"%.*s\"", (int)tessera_tstring_get_size(&views[k]),
           tessera_tstring_get_data_pointer(&views[k]));
  }
  printf("\n");
  for (size_t k = 0; k < count; k++) tessera_tstring_dealloc(&views[k]); /* a no-op for views */
  free(views);
}

/* --- Numbers. ---------------------------------------------------------------------------- */

static void print_numeric_output(const TesseraInterpreter *it, size_t j,
                                 const TesseraTensorInfo *info) {
  const uint8_t *p;
  size_t len;
  TesseraStatus st = tessera_interpreter_output_data(it, j, &p, &len);
  if (st != TESSERA_OK) die_status("output_data", st, NULL);
  size_t n = elements(info), shown = n < 8 ? n : 8;
  printf("output %zu: type %d, %zu values:", j, info->tensor_type, n);
  for (size_t k = 0; k < shown; k++) {
    /* memcpy, not a cast: the bytes are aligned for their type, but this way the example
     * stays correct whatever the type. */
    switch (info->tensor_type) {
      case TYPE_FLOAT32: { float v; memcpy(&v, p + 4 * k, 4); printf(" %g", v); break; }
      case TYPE_INT32: { int32_t v; memcpy(&v, p + 4 * k, 4); printf(" %" PRId32, v); break; }
      case TYPE_INT64: { int64_t v; memcpy(&v, p + 8 * k, 8); printf(" %" PRId64, v); break; }
      case TYPE_INT8: printf(" %d", (int)(int8_t)p[k]); break;
      case TYPE_UINT8: case TYPE_BOOL: printf(" %u", (unsigned)p[k]); break;
      default: printf(" ?"); break;
    }
  }
  printf(n > shown ? " ...\n" : "\n");
}

/* Made-up values in the input's own bytes (host byte order): k % 4 for integers, so that
 * they are valid indices for the gathers of the fixture models, and k / 4 for floats. */
static void fill_numeric_input(uint8_t *p, size_t len, const TesseraTensorInfo *info) {
  size_t n = elements(info);
  memset(p, 0, len);
  for (size_t k = 0; k < n; k++) {
    switch (info->tensor_type) {
      case TYPE_FLOAT32: { float v = (float)k / 4; if (4 * k + 4 <= len) memcpy(p + 4 * k, &v, 4); break; }
      case TYPE_INT32: { int32_t v = (int32_t)(k % 4); if (4 * k + 4 <= len) memcpy(p + 4 * k, &v, 4); break; }
      case TYPE_INT64: { int64_t v = (int64_t)(k % 4); if (8 * k + 8 <= len) memcpy(p + 8 * k, &v, 8); break; }
      default: break; /* other types stay zero */
    }
  }
}

/* --- The data path: Norm samples into the CTR model. -------------------------------------- */

typedef struct {
  size_t keys, dense; /* the inputs' positions */
  size_t batch;       /* samples per invoke (the model's first dimension) */
} Ctr;

static int find_ctr_inputs(const TesseraInterpreter *it, Ctr *ctr) {
  int have_keys = 0, have_dense = 0;
  size_t batch_keys = 0, batch_dense = 0;
  for (size_t i = 0; i < tessera_interpreter_input_count(it); i++) {
    TesseraTensorInfo info;
    if (tessera_interpreter_input_info(it, i, &info) != TESSERA_OK) continue;
    if (info.tensor_type == TYPE_INT32 && info.rank == 3 && info.dims[1] == SLOTS &&
        info.dims[2] == KEYS_PER_SLOT) {
      ctr->keys = i, batch_keys = (size_t)info.dims[0], have_keys = 1;
    } else if (info.tensor_type == TYPE_FLOAT32 && info.rank == 2 && info.dims[1] == DENSE) {
      ctr->dense = i, batch_dense = (size_t)info.dims[0], have_dense = 1;
    }
  }
  ctr->batch = batch_keys;
  return have_keys && have_dense && batch_keys == batch_dense && batch_keys > 0;
}

/* Fills the model's inputs with samples [first, first + n) of a decoded batch; the rest of
 * the model's batch is padding (no keys, zero dense). */
static void feed(TesseraInterpreter *it, const Ctr *ctr, const TesseraBatchU32 *b,
                 size_t first, size_t n) {
  uint8_t *kp, *dp;
  size_t klen, dlen;
  if (tessera_interpreter_input_data(it, ctr->keys, &kp, &klen) != TESSERA_OK ||
      tessera_interpreter_input_data(it, ctr->dense, &dp, &dlen) != TESSERA_OK ||
      klen != ctr->batch * SLOTS * KEYS_PER_SLOT * sizeof(int32_t) ||
      dlen != ctr->batch * DENSE * sizeof(float))
    die("the CTR inputs are not where their shapes say");
  int32_t *keys = (int32_t *)kp; /* tessera aligns every tensor for its type */
  float *dense = (float *)dp;
  memset(kp, 0, klen);
  memset(dp, 0, dlen);
  for (size_t k = 0; k < n; k++) {
    size_t s = first + k;
    /* label_dense holds 1 label then 13 dense features per sample. */
    memcpy(dense + k * DENSE, b->label_dense + s * (1 + DENSE) + 1, DENSE * sizeof(float));
    for (size_t slot = 0; slot < SLOTS; slot++) {
      size_t row = s * SLOTS + slot;
      uint32_t lo = b->row_offsets[row], hi = b->row_offsets[row + 1];
      if (hi - lo > KEYS_PER_SLOT) die("a slot has more keys than the model takes");
      for (uint32_t q = lo; q < hi; q++) {
        uint32_t local = b->keys[q] - (uint32_t)slot * VOCAB_PER_SLOT;
        if (local >= VOCAB_PER_SLOT) die("a key is outside its slot's vocabulary");
        keys[(k * SLOTS + slot) * KEYS_PER_SLOT + (q - lo)] = (int32_t)local + 1;
      }
    }
  }
}

/* The float32 data of a version-1 .npy file (10-byte preamble, header length at byte 8). */
static const float *npy_floats(const uint8_t *file, size_t len, size_t *n) {
  if (len < 10 || memcmp(file, "\x93NUMPY\x01", 7) != 0) die("EXPECTED is not a .npy file");
  size_t header = (size_t)file[8] | ((size_t)file[9] << 8);
  if (10 + header > len) die("EXPECTED is truncated");
  *n = (len - 10 - header) / sizeof(float);
  return (const float *)(file + 10 + header); /* numpy pads the header to 64 bytes */
}

static void run_ctr(TesseraInterpreter *it, const Ctr *ctr, const char *norm_path,
                    const char *expected_path) {
  size_t file_len;
  uint8_t *file = read_file(norm_path, &file_len);
  /* The bundled dataset's shape: 1 label, 13 dense, 26 slots of at most 3 u32 keys, with
   * HugeCTR's checksums. The header is checked against it. */
  TesseraNormConfig config = {.label_dim = 1, .dense_dim = DENSE, .slot_num = SLOTS,
                              .max_nnz = KEYS_PER_SLOT, .check = 1, .skip_bad = 0};
  /* The decoder's state is a plain struct: on the stack here, no allocation. */
  TesseraNormDecoder decoder;
  TesseraError err = fresh_error();
  TesseraStatus st = tessera_norm_decoder_init(&decoder, &config, TESSERA_KEY_U32, &err);
  if (st != TESSERA_OK) die_status("norm_decoder_init", st, &err);

  /* A decoded batch of 64 samples in arrays this program owns, sized by tessera. */
  enum { BATCH = 64 };
  size_t ld_len, off_len, keys_len;
  st = tessera_norm_batch_lens(&config, BATCH, &ld_len, &off_len, &keys_len);
  if (st != TESSERA_OK) die_status("norm_batch_lens", st, NULL);
  TesseraBatchU32 batch = {
      .label_dense = checked_malloc(ld_len * sizeof(float)), .label_dense_len = ld_len,
      .row_offsets = checked_malloc(off_len * sizeof(uint32_t)), .row_offsets_len = off_len,
      .keys = checked_malloc(keys_len * sizeof(uint32_t)), .keys_len = keys_len};

  size_t expected_len = 0, expected_n = 0;
  uint8_t *expected_file = NULL;
  const float *expected = NULL;
  if (expected_path) {
    expected_file = read_file(expected_path, &expected_len);
    expected = npy_floats(expected_file, expected_len, &expected_n);
  }

  size_t pos = 0, samples = 0, clicks = 0, mismatches = 0;
  double sum = 0;
  for (;;) {
    TesseraNormProgress p;
    err = fresh_error();
    st = tessera_norm_decode_u32(&decoder, file + pos, file_len - pos, &batch, &p, &err);
    if (st != TESSERA_OK) die_status("norm_decode_u32", st, &err);
    pos += p.consumed;
    for (size_t first = 0; first < p.samples; first += ctr->batch) {
      size_t n = p.samples - first < ctr->batch ? p.samples - first : ctr->batch;
      feed(it, ctr, &batch, first, n);
      err = fresh_error();
      st = tessera_interpreter_invoke(it, &err);
      if (st != TESSERA_OK) die_status("invoke", st, &err);
      const uint8_t *out;
      size_t out_len;
      st = tessera_interpreter_output_data(it, 0, &out, &out_len);
      if (st != TESSERA_OK || out_len < n * sizeof(float)) die("the CTR output is too short");
      for (size_t k = 0; k < n; k++) {
        float prob;
        memcpy(&prob, out + k * sizeof(float), sizeof prob);
        if (samples < 4) printf("sample %zu: p(click) = %.6f\n", samples, prob);
        if (expected && (samples >= expected_n ||
                         fabsf(prob - expected[samples]) > 1e-5f + 1e-5f * fabsf(expected[samples])))
          mismatches++;
        sum += prob;
        clicks += prob >= 0.5f;
        samples++;
      }
    }
    /* BATCH_FULL: decode on from `pos` into the same arrays. DONE: every record is read.
     * NEED_MORE with the whole file in memory: the file ends inside a record, which finish
     * reports with the sample and byte offset. */
    if (p.status != TESSERA_DECODE_BATCH_FULL) break;
  }
  uint64_t decoded = 0, skipped = 0;
  err = fresh_error();
  st = tessera_norm_decoder_finish(&decoder, file + pos, file_len - pos, &decoded, &skipped, &err);
  if (st != TESSERA_OK) die_status("norm_decoder_finish", st, &err);
  printf("%s: %" PRIu64 " samples decoded, %" PRIu64 " skipped; mean p(click) %.4f, %zu clicks\n",
         norm_path, decoded, skipped, samples ? sum / (double)samples : 0.0, clicks);
  if (expected) {
    printf("%s: %zu of %zu predictions differ\n", expected_path, mismatches, samples);
    if (mismatches || samples != expected_n) die("predictions differ from the host's");
  }
  free(expected_file);
  free(batch.keys);
  free(batch.row_offsets);
  free(batch.label_dense);
  free(file);
}

int main(int argc, char **argv) {
  /* With no arguments: the bundled CTR model on the bundled dataset, checked against the
   * predictions the host computed (run from the repository root). */
  const char *model_path = "lite-runtime/cli/demo/ctr_b4.tflite";
  const char *norm_path = "lite-runtime/cli/demo/demo.norm";
  const char *expected_path = "lite-runtime/cli/demo/ctr_b4.demo_predictions.npy";
  if (argc > 1) {
    model_path = argv[1];
    norm_path = argc > 2 ? argv[2] : NULL;
    expected_path = argc > 3 ? argv[3] : NULL;
  }

  size_t model_len;
  uint8_t *model = read_file(model_path, &model_len);

  /* 1. How much memory the model needs: tessera checks the whole file first, so a bad
   *    model fails here with the byte offset at fault. 0: the default string budget. */
  size_t arena_len = 0;
  TesseraError err = fresh_error();
  TesseraStatus st = tessera_model_arena_size(model, model_len, 0, &arena_len, &err);
  if (st != TESSERA_OK) die_status("model_arena_size", st, &err);

  /* 2. The arena and the interpreter, allocated here: tessera owns no memory. aligned_alloc
   *    wants a size that is a multiple of the alignment. */
  uint8_t *arena = checked_malloc(arena_len);
  size_t align = tessera_interpreter_align();
  size_t size = (tessera_interpreter_size() + align - 1) / align * align;
  TesseraInterpreter *it = aligned_alloc(align, size);
  if (!it) die("out of memory");
  st = tessera_interpreter_init(it, model, model_len, arena, arena_len, 0, &err);
  if (st != TESSERA_OK) die_status("interpreter_init", st, &err);
  printf("%s: %zu bytes; arena %zu bytes (%zu used), interpreter %zu bytes\n", model_path,
         model_len, arena_len, tessera_interpreter_arena_used(it), tessera_interpreter_size());

  /* 3. Inputs: from the Norm file for the CTR model, else made-up strings and numbers. */
  Ctr ctr = {0, 0, 0};
  if (norm_path && find_ctr_inputs(it, &ctr)) {
    run_ctr(it, &ctr, norm_path, expected_path);
  } else {
    if (norm_path) die("DATA.norm given, but the model is not the CTR model");
    for (size_t i = 0; i < tessera_interpreter_input_count(it); i++) {
      TesseraTensorInfo info;
      st = tessera_interpreter_input_info(it, i, &info);
      if (st != TESSERA_OK) die_status("input_info", st, NULL);
      if (info.tensor_type == TYPE_STRING) {
        fill_string_input(it, i, &info);
      } else {
        uint8_t *p;
        size_t len;
        st = tessera_interpreter_input_data(it, i, &p, &len);
        if (st != TESSERA_OK) die_status("input_data", st, NULL);
        fill_numeric_input(p, len, &info);
      }
    }
    /* 4. Invoke (allocates nothing) and print every output. */
    st = tessera_interpreter_invoke(it, &err);
    if (st != TESSERA_OK) die_status("invoke", st, &err);
    for (size_t j = 0; j < tessera_interpreter_output_count(it); j++) {
      TesseraTensorInfo info;
      st = tessera_interpreter_output_info(it, j, &info);
      if (st != TESSERA_OK) die_status("output_info", st, NULL);
      if (info.tensor_type == TYPE_STRING)
        print_string_output(it, j);
      else
        print_numeric_output(it, j, &info);
    }
  }

  /* 5. Free in reverse: deinit ends the interpreter's use of the model and the arena. */
  tessera_interpreter_deinit(it);
  free(it);
  free(arena);
  free(model);
  return 0;
}
