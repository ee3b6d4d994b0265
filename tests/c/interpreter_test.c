/* Checks tessera's interpreter through its C ABI as a mobile or desktop app would use it: the
 * caller reads a .tflite file, asks for the arena's size, allocates the arena and the
 * interpreter struct itself, fills numeric and string inputs, invokes, compares the outputs
 * with LiteRT's (the fixtures' .npy files), and frees everything. Also the failures a caller
 * must be able to handle: a malformed model, an arena too small, strings over their budget,
 * a bad index in the data. Built by run.sh with ASan + UBSan. */
#include <math.h>
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

static const char *dir = "tests/fixtures/models";

static uint8_t *read_path(const char *path, size_t *len) {
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

static uint8_t *read_file(const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return read_path(path, len);
}

/* The data of a version-1 .npy file (little-endian, C order): after the 10-byte preamble and
 * the header. */
static const uint8_t *npy_data(const uint8_t *file, size_t len, size_t *data_len) {
  size_t header = (size_t)file[8] | ((size_t)file[9] << 8);
  *data_len = len - 10 - header;
  return file + 10 + header;
}

/* An interpreter in caller memory, over a caller arena: the whole set-up a C app writes. */
typedef struct {
  uint8_t *model;
  size_t model_len;
  uint8_t *arena;
  TesseraInterpreter *it;
} Session;

static int open_session(Session *s, const char *model_name) {
  TesseraError err;
  size_t arena_len = 0;
  s->model = read_file(model_name, &s->model_len);
  CHECK(tessera_model_arena_size(s->model, s->model_len, 0, &arena_len, &err) == TESSERA_OK);
  CHECK(arena_len > 0);
  s->arena = malloc(arena_len);
  size_t align = tessera_interpreter_align();
  size_t size = (tessera_interpreter_size() + align - 1) / align * align;
  s->it = aligned_alloc(align, size);
  TesseraStatus st =
      tessera_interpreter_init(s->it, s->model, s->model_len, s->arena, arena_len, 0, &err);
  CHECK(st == TESSERA_OK);
  if (st != TESSERA_OK) {
    fprintf(stderr, "%s: %s\n", model_name, err.message);
    free(s->it);
    free(s->arena);
    free(s->model);
    return 0;
  }
  CHECK(tessera_interpreter_arena_used(s->it) <= arena_len);
  return st == TESSERA_OK;
}

static void close_session(Session *s) {
  tessera_interpreter_deinit(s->it);
  free(s->it);
  free(s->arena);
  free(s->model);
}

static void check_floats(const TesseraInterpreter *it, size_t j, const char *npy_name) {
  size_t file_len, want_len, got_len;
  uint8_t *file = read_file(npy_name, &file_len);
  const uint8_t *want = npy_data(file, file_len, &want_len);
  const uint8_t *got;
  CHECK(tessera_interpreter_output_data(it, j, &got, &got_len) == TESSERA_OK);
  CHECK(got_len == want_len);
  for (size_t k = 0; k + 4 <= got_len && k + 4 <= want_len; k += 4) {
    float g, w;
    memcpy(&g, got + k, 4);
    memcpy(&w, want + k, 4);
    CHECK(fabsf(g - w) <= 1e-5f + 1e-5f * fabsf(w));
  }
  free(file);
}

/* Hooks a firmware would read its cycle counter in; these count the calls. */
static void count_begin(void *user, size_t op) {
  (void)op;
  ((size_t *)user)[0]++;
}
static void count_end(void *user, size_t op) {
  (void)op;
  ((size_t *)user)[1]++;
}

static void sparse_model(void) {
  Session s;
  if (!open_session(&s, "sparse.tflite")) return;
  CHECK(tessera_interpreter_input_count(s.it) == 1);
  CHECK(tessera_interpreter_output_count(s.it) == 1);
  TesseraTensorInfo info;
  CHECK(tessera_interpreter_input_info(s.it, 0, &info) == TESSERA_OK);
  CHECK(info.tensor_type == 0 && info.rank == 2 && info.dims[0] == 2 && info.dims[1] == 64);
  CHECK(tessera_interpreter_input_index(s.it, "serving_default_x:0") == 0);
  CHECK(tessera_interpreter_input_index(s.it, "nope") == -1);

  size_t file_len, want_len, len;
  uint8_t *file = read_file("sparse.in0.npy", &file_len);
  const uint8_t *x = npy_data(file, file_len, &want_len);
  uint8_t *in;
  CHECK(tessera_interpreter_input_data(s.it, 0, &in, &len) == TESSERA_OK);
  CHECK(len == want_len);
  memcpy(in, x, len < want_len ? len : want_len);
  free(file);
  TesseraError err;
  CHECK(tessera_interpreter_invoke(s.it, &err) == TESSERA_OK);
  check_floats(s.it, 0, "sparse.out0.npy");
  /* Invoking again from the same inputs gives the same outputs (inputs are kept). */
  CHECK(tessera_interpreter_invoke(s.it, &err) == TESSERA_OK);
  check_floats(s.it, 0, "sparse.out0.npy");
  /* Timed per operator, as a profile prints it: the same outputs, every operator counted. */
  size_t ops = tessera_interpreter_operator_count(s.it);
  CHECK(ops > 0);
  uint64_t *nanos = calloc(ops, sizeof *nanos);
  CHECK(tessera_interpreter_invoke_profiled(s.it, nanos, ops, &err) == TESSERA_OK);
  check_floats(s.it, 0, "sparse.out0.npy");
  uint64_t total = 0;
  for (size_t k = 0; k < ops; k++) total += nanos[k];
  CHECK(total > 0);
  free(nanos);
  size_t hooks[2] = {0, 0};
  CHECK(tessera_interpreter_invoke_hooked(s.it, count_begin, count_end, hooks, &err) ==
        TESSERA_OK);
  CHECK(hooks[0] == ops && hooks[1] == ops);
  close_session(&s);
}

/* A streaming model (tests/fixtures/control/stream.tflite): its state is a resource variable
 * that CALL_ONCE initialises. Each invoke moves the state on; reset_state starts it again, and
 * an error in a loop's body names the body's subgraph. */
static void streaming_state(void) {
  Session s;
  if (!open_session(&s, "../control/stream.tflite")) return;
  uint8_t *in;
  const uint8_t *out;
  size_t len, out_len;
  TesseraError err;
  CHECK(tessera_interpreter_input_data(s.it, 0, &in, &len) == TESSERA_OK);
  CHECK(len == 16);
  float x[4] = {0.5f, -0.25f, 1.0f, 0.0f};
  memcpy(in, x, sizeof x);
  CHECK(tessera_interpreter_invoke(s.it, &err) == TESSERA_OK);
  float first[4], again[4];
  CHECK(tessera_interpreter_output_data(s.it, 0, &out, &out_len) == TESSERA_OK);
  CHECK(out_len == sizeof first);
  memcpy(first, out, sizeof first);
  CHECK(tessera_interpreter_invoke(s.it, &err) == TESSERA_OK);
  CHECK(tessera_interpreter_output_data(s.it, 0, &out, &out_len) == TESSERA_OK);
  memcpy(again, out, sizeof again);
  CHECK(memcmp(first, again, sizeof first) != 0);
  CHECK(tessera_interpreter_reset_state(s.it, &err) == TESSERA_OK);
  CHECK(tessera_interpreter_invoke(s.it, &err) == TESSERA_OK);
  CHECK(tessera_interpreter_output_data(s.it, 0, &out, &out_len) == TESSERA_OK);
  memcpy(again, out, sizeof again);
  CHECK(memcmp(first, again, sizeof first) == 0);
  CHECK(tessera_interpreter_reset_state(NULL, &err) == TESSERA_NULL_ARGUMENT);
  close_session(&s);
}

/* A custom operator written in C (tests/fixtures/custom/c_axpy.tflite: `y = a + scale * b`,
 * float32 [4], scale 2 in its options, which this kernel takes from `user` instead of parsing
 * the FlexBuffer): registered by name, found at set-up, run at each invoke. */
static TesseraStatus axpy_prepare(TesseraOpPrepare *ctx, void *user) {
  (void)user;
  TesseraTensorInfo info;
  if (tessera_op_prepare_input_count(ctx) != 2) return TESSERA_BAD_ARGUMENT;
  if (tessera_op_prepare_output_info(ctx, 0, &info) != TESSERA_OK) return TESSERA_FAILED;
  if (info.tensor_type != 0 || info.bytes != 16) return TESSERA_UNSUPPORTED;
  const uint8_t *options;
  size_t len;
  if (tessera_op_prepare_custom_options(ctx, &options, &len) != TESSERA_OK || len == 0)
    return TESSERA_MALFORMED;
  return TESSERA_OK;
}

static TesseraStatus axpy_eval(TesseraOpEval *ctx, void *user) {
  float scale = *(const float *)user;
  const uint8_t *a, *b;
  uint8_t *y;
  size_t na, nb, ny;
  if (tessera_op_eval_input(ctx, 0, &a, &na) != TESSERA_OK ||
      tessera_op_eval_input(ctx, 1, &b, &nb) != TESSERA_OK ||
      tessera_op_eval_output(ctx, 0, &y, &ny) != TESSERA_OK || na != 16 || nb != 16 || ny != 16)
    return TESSERA_FAILED;
  for (int i = 0; i < 4; i++) {
    float x, z, r;
    memcpy(&x, a + 4 * i, 4);
    memcpy(&z, b + 4 * i, 4);
    r = x + scale * z;
    memcpy(y + 4 * i, &r, 4);
  }
  return TESSERA_OK;
}

static void custom_op_in_c(void) {
  static float scale = 2.0f;
  CHECK(tessera_register_custom_op("CAxpy", axpy_prepare, axpy_eval, &scale) == TESSERA_OK);
  CHECK(tessera_register_custom_op("CAxpy", NULL, axpy_eval, &scale) == TESSERA_BAD_ARGUMENT);
  CHECK(tessera_register_custom_op("NoEval", NULL, NULL, NULL) == TESSERA_NULL_ARGUMENT);
  Session s;
  if (!open_session(&s, "../custom/c_axpy.tflite")) return;
  uint8_t *in;
  size_t len;
  float a[4] = {1, 2, 3, 4}, b[4] = {0.5f, -1, 10, 0}, y[4];
  CHECK(tessera_interpreter_input_data(s.it, 0, &in, &len) == TESSERA_OK && len == 16);
  memcpy(in, a, 16);
  CHECK(tessera_interpreter_input_data(s.it, 1, &in, &len) == TESSERA_OK && len == 16);
  memcpy(in, b, 16);
  TesseraError err;
  CHECK(tessera_interpreter_invoke(s.it, &err) == TESSERA_OK);
  const uint8_t *out;
  CHECK(tessera_interpreter_output_data(s.it, 0, &out, &len) == TESSERA_OK && len == 16);
  memcpy(y, out, 16);
  CHECK(y[0] == 2 && y[1] == 0 && y[2] == 23 && y[3] == 4);
  close_session(&s);
}

static void strings_model(void) {
  Session s;
  if (!open_session(&s, "strings.tflite")) return;
  /* Input 0: 4 words; input 1: 5 ids in [0, 8); input 2: [2, 3] picks in [0, 4). */
  const char *words[4] = {"alpha", "", "a word longer than twenty-two bytes", "z"};
  const uint8_t *ptrs[4];
  size_t lens[4];
  for (int k = 0; k < 4; k++) {
    ptrs[k] = (const uint8_t *)words[k];
    lens[k] = strlen(words[k]);
  }
  TesseraError err;
  CHECK(tessera_interpreter_set_input_strings(s.it, 0, ptrs, lens, 4, &err) == TESSERA_OK);
  int32_t ids[5] = {0, 7, 3, 3, 1};
  int32_t picks[6] = {3, 2, 1, 0, 0, 2};
  uint8_t *in;
  size_t len;
  CHECK(tessera_interpreter_input_data(s.it, 1, &in, &len) == TESSERA_OK && len == sizeof ids);
  memcpy(in, ids, sizeof ids);
  CHECK(tessera_interpreter_input_data(s.it, 2, &in, &len) == TESSERA_OK && len == sizeof picks);
  memcpy(in, picks, sizeof picks);
  CHECK(tessera_interpreter_invoke(s.it, &err) == TESSERA_OK);

  /* Output 1 gathers the words by picks: [2, 3] strings. */
  size_t count = 0;
  CHECK(tessera_interpreter_output_string_count(s.it, 1, &count) == TESSERA_OK);
  CHECK(count == 6);
  for (size_t k = 0; k < count && k < 6; k++) {
    const uint8_t *str;
    size_t n;
    CHECK(tessera_interpreter_output_string(s.it, 1, k, &str, &n) == TESSERA_OK);
    const char *want = words[picks[k]];
    CHECK(n == strlen(want) && memcmp(str, want, n) == 0);
  }
  /* Output 0 gathers a constant table by ids: five strings. */
  CHECK(tessera_interpreter_output_string_count(s.it, 0, &count) == TESSERA_OK);
  CHECK(count == 5);

  /* A bad index in the data: an error naming the operator, never a read out of bounds. */
  ids[2] = 1000;
  CHECK(tessera_interpreter_input_data(s.it, 1, &in, &len) == TESSERA_OK);
  memcpy(in, ids, sizeof ids);
  CHECK(tessera_interpreter_invoke(s.it, &err) == TESSERA_FAILED);
  CHECK(err.operator_index >= 0);
  CHECK(strstr(err.message, "1000") != NULL);

  /* Strings over the input's budget: the bytes needed come back (TFLite's layout: the
   * count, 4 + 1 offsets, then the bytes). */
  static uint8_t big[4096];
  const uint8_t *bp[4] = {big, big, big, big};
  size_t bl[4] = {sizeof big, 0, 0, 0};
  CHECK(tessera_interpreter_set_input_strings(s.it, 0, bp, bl, 4, &err) ==
        TESSERA_BUFFER_TOO_SMALL);
  CHECK(err.needed == 4 * (4 + 2) + sizeof big);
  /* As many strings as the input's shape holds, no fewer. */
  CHECK(tessera_interpreter_set_input_strings(s.it, 0, bp, bl, 1, &err) != TESSERA_OK);
  close_session(&s);
}

static void failures_a_caller_handles(void) {
  size_t len, arena_len = 0;
  uint8_t *model = read_file("sparse.tflite", &len);
  TesseraError err;
  /* Truncated: malformed, with a byte offset. */
  CHECK(tessera_model_arena_size(model, len / 2, 0, &arena_len, &err) == TESSERA_MALFORMED);
  CHECK(err.byte_offset >= 0 && strlen(err.message) > 0);
  CHECK(tessera_model_arena_size(model, 8, 0, &arena_len, &err) == TESSERA_MALFORMED);
  CHECK(tessera_model_arena_size(NULL, 10, 0, &arena_len, &err) == TESSERA_NULL_ARGUMENT);
  /* An arena too small: the bytes needed come back. */
  CHECK(tessera_model_arena_size(model, len, 0, &arena_len, &err) == TESSERA_OK);
  uint8_t *arena = malloc(arena_len);
  size_t align = tessera_interpreter_align();
  size_t size = (tessera_interpreter_size() + align - 1) / align * align;
  TesseraInterpreter *it = aligned_alloc(align, size);
  CHECK(tessera_interpreter_init(it, model, len, arena, 64, 0, &err) == TESSERA_BUFFER_TOO_SMALL);
  CHECK(err.needed > 64 && err.needed <= arena_len);
  /* Null arguments. */
  CHECK(tessera_interpreter_init(NULL, model, len, arena, arena_len, 0, &err) ==
        TESSERA_NULL_ARGUMENT);
  CHECK(tessera_interpreter_invoke(NULL, &err) == TESSERA_NULL_ARGUMENT);
  CHECK(tessera_interpreter_input_count(NULL) == 0);
  free(it);
  free(arena);
  free(model);
}

/* Every arena length from 0 to what the model needs, at an aligned and a misaligned start,
 * and the empty arena as a null pointer: set-up either succeeds within the arena, or says
 * BUFFER_TOO_SMALL with more bytes than it got and no more than the model's arena size, and
 * those bytes then suffice (after at most a further ask, see below). */
static void every_arena_length(const uint8_t *model, size_t len) {
  size_t arena_len = 0;
  TesseraError err;
  CHECK(tessera_model_arena_size(model, len, 0, &arena_len, &err) == TESSERA_OK);
  size_t align = tessera_interpreter_align();
  size_t size = (tessera_interpreter_size() + align - 1) / align * align;
  TesseraInterpreter *it = aligned_alloc(align, size);
  uint8_t *buf = malloc(arena_len + 32);
  uint8_t *aligned = buf + (16 - (uintptr_t)buf % 16) % 16;
  int bad = 0;
  for (size_t shift = 0; shift <= 5; shift += 5) {
    for (size_t n = 0; n <= arena_len; n++) {
      TesseraStatus s = tessera_interpreter_init(it, model, len, aligned + shift, n, 0, &err);
      if (s == TESSERA_OK) {
        bad += tessera_interpreter_arena_used(it) > n;
        bad += tessera_interpreter_invoke(it, &err) != TESSERA_OK;
        tessera_interpreter_deinit(it);
      } else {
        /* The C library's interpreter is built without std: for an arena too small to plan
         * in, `needed` is what planning needs to start, a lower bound; asking again with it
         * climbs to the exact figure. */
        size_t got = n;
        while (s == TESSERA_BUFFER_TOO_SMALL && err.needed > got && err.needed <= arena_len) {
          got = err.needed;
          s = tessera_interpreter_init(it, model, len, aligned + shift, got, 0, &err);
        }
        bad += s != TESSERA_OK;
        if (s == TESSERA_OK) tessera_interpreter_deinit(it);
      }
    }
  }
  CHECK(bad == 0);
  TesseraStatus s = tessera_interpreter_init(it, model, len, NULL, 0, 0, &err);
  CHECK(s == TESSERA_OK || (s == TESSERA_BUFFER_TOO_SMALL && err.needed > 0));
  if (s == TESSERA_OK) {
    CHECK(tessera_interpreter_arena_used(it) == 0);
    tessera_interpreter_deinit(it);
  }
  CHECK(tessera_interpreter_init(it, model, len, NULL, 1, 0, &err) == TESSERA_NULL_ARGUMENT);
  free(buf);
  free(it);
}

int main(void) {
  const char *d = getenv("TESSERA_MODELS");
  if (d) dir = d;
  sparse_model();
  strings_model();
  streaming_state();
  custom_op_in_c();
  failures_a_caller_handles();
  size_t len;
  uint8_t *model = read_file("sparse.tflite", &len);
  every_arena_length(model, len);
  free(model);
  /* A graph with no tensors and no operators (a fuzz finding, after the fuzz target's 8 head
   * bytes): it needs no bytes. */
  model = read_path("tests/fuzz/corpus/interpret/seed-finding-empty-arena", &len);
  every_arena_length(model + 8, len - 8);
  free(model);
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
