/* Checks tessera's C ABI the way a C caller of TensorFlow's ctstring.h would use it: struct
 * layout, every string type, TensorFlow's capacity rules, LARGE strings freed with free(),
 * and TFLite string tensors over caller buffers. Built by run.sh with ASan + UBSan. */
#include <stdalign.h>
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

static const char kLong[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIKLMNO"; /* 50 bytes */

static void store_le32(uint32_t *field, uint32_t v) {
  uint8_t *b = (uint8_t *)field;
  b[0] = (uint8_t)v; b[1] = (uint8_t)(v >> 8); b[2] = (uint8_t)(v >> 16); b[3] = (uint8_t)(v >> 24);
}

static void layout(void) {
  CHECK(sizeof(TesseraTString) == 24);
  CHECK(alignof(TesseraTString) == alignof(size_t));
  CHECK(offsetof(TesseraTString, u.large.size) == 0);
  CHECK(offsetof(TesseraTString, u.large.cap) == sizeof(size_t));
  CHECK(offsetof(TesseraTString, u.large.ptr) == 2 * sizeof(size_t));
  CHECK(offsetof(TesseraTString, u.offset.size) == 0);
  CHECK(offsetof(TesseraTString, u.offset.offset) == 4);
  CHECK(offsetof(TesseraTString, u.offset.count) == 8);
  CHECK(offsetof(TesseraTString, u.view.ptr) == sizeof(size_t));
  CHECK(offsetof(TesseraTString, u.view.owner) == 2 * sizeof(size_t));
  CHECK(offsetof(TesseraTString, u.smll.str) == 1);
}

static void small(void) {
  TesseraTString s;
  memset(&s, 0xAB, sizeof s);
  tessera_tstring_init(&s);
  for (size_t i = 0; i < 24; i++) CHECK(s.u.raw.raw[i] == 0);
  CHECK(tessera_tstring_get_type(&s) == TESSERA_TSTR_SMALL);
  tessera_tstring_copy(&s, "hello", 5);
  CHECK(s.u.raw.raw[0] == 0x14);
  CHECK(tessera_tstring_get_size(&s) == 5);
  CHECK(tessera_tstring_get_capacity(&s) == 22);
  CHECK(strcmp(tessera_tstring_get_data_pointer(&s), "hello") == 0);
  tessera_tstring_append_n(&s, kLong, 17); /* 22 bytes: still SMALL */
  CHECK(tessera_tstring_get_type(&s) == TESSERA_TSTR_SMALL);
  CHECK(tessera_tstring_get_size(&s) == 22);
  tessera_tstring_dealloc(&s);
}

static void large_freed_by_c(void) {
  TesseraTString s;
  tessera_tstring_init(&s);
  tessera_tstring_copy(&s, kLong, 50);
  CHECK(tessera_tstring_get_type(&s) == TESSERA_TSTR_LARGE);
  CHECK(tessera_tstring_get_capacity(&s) == 63);
  CHECK(strcmp(tessera_tstring_get_data_pointer(&s), kLong) == 0); /* NUL-terminated */
  tessera_tstring_copy(&s, kLong, 23); /* below half the capacity: shrinks */
  CHECK(tessera_tstring_get_capacity(&s) == 31);
  char *p = tessera_tstring_resize(&s, 40, 'z');
  CHECK(p != NULL && p[39] == 'z' && p[22] == kLong[22]);
  /* A C caller frees a LARGE string exactly as it would one of TensorFlow's. */
  free(s.u.large.ptr);

  TesseraTString t;
  tessera_tstring_init(&t);
  tessera_tstring_reserve(&t, 100);
  CHECK(tessera_tstring_get_capacity(&t) == 111);
  tessera_tstring_reserve_amortized(&t, 200);
  CHECK(tessera_tstring_get_capacity(&t) == 223);
  CHECK(tessera_tstring_get_size(&t) == 0);
  char *u = tessera_tstring_resize_uninitialized(&t, 30);
  memset(u, 'u', 30);
  CHECK(tessera_tstring_get_size(&t) == 30 && u[30] == '\0');
  tessera_tstring_append(&t, &t); /* self-append is well defined here */
  CHECK(tessera_tstring_get_size(&t) == 60);
  tessera_tstring_dealloc(&t);
  CHECK(tessera_tstring_get_type(&t) == TESSERA_TSTR_SMALL && tessera_tstring_get_size(&t) == 0);
}

static void view_and_move(void) {
  TesseraTString v, w;
  tessera_tstring_init(&v);
  tessera_tstring_init(&w);
  tessera_tstring_assign_view(&v, kLong, 6);
  CHECK(tessera_tstring_get_type(&v) == TESSERA_TSTR_VIEW);
  CHECK(tessera_tstring_get_data_pointer(&v) == kLong);
  CHECK(tessera_tstring_get_capacity(&v) == 0);
  tessera_tstring_assign(&w, &v); /* a VIEW assigns as a VIEW */
  CHECK(tessera_tstring_get_type(&w) == TESSERA_TSTR_VIEW);
  char *m = tessera_tstring_get_mutable_data_pointer(&v);
  CHECK(m != kLong && memcmp(m, "abcdef", 6) == 0);
  CHECK(tessera_tstring_get_type(&v) == TESSERA_TSTR_SMALL);

  TesseraTString big, dst;
  tessera_tstring_init(&big);
  tessera_tstring_init(&dst);
  tessera_tstring_copy(&big, kLong, 50);
  tessera_tstring_assign(&dst, &big); /* deep copy */
  CHECK(tessera_tstring_get_data_pointer(&dst) != tessera_tstring_get_data_pointer(&big));
  tessera_tstring_move(&dst, &big); /* frees dst's copy, takes big's block */
  CHECK(tessera_tstring_get_size(&big) == 0 && tessera_tstring_get_type(&big) == TESSERA_TSTR_SMALL);
  CHECK(tessera_tstring_get_size(&dst) == 50);
  tessera_tstring_dealloc(&dst);
  tessera_tstring_dealloc(&big);
  tessera_tstring_dealloc(&v);
  tessera_tstring_dealloc(&w);
}

static void offset(void) {
  /* One OFFSET header followed by its bytes, fields little-endian whatever the host. */
  struct { TesseraTString hdr; char data[8]; } buf;
  memset(&buf, 0, sizeof buf);
  memcpy(buf.data, "offset!", 7);
  store_le32(&buf.hdr.u.offset.size, (7u << 2) | 2u);
  store_le32(&buf.hdr.u.offset.offset, (uint32_t)offsetof(__typeof__(buf), data));
  store_le32(&buf.hdr.u.offset.count, 1);
  CHECK(tessera_tstring_get_type(&buf.hdr) == TESSERA_TSTR_OFFSET);
  CHECK(tessera_tstring_get_size(&buf.hdr) == 7);
  CHECK(tessera_tstring_get_data_pointer(&buf.hdr) == buf.data);
  TesseraTString v;
  tessera_tstring_init(&v);
  tessera_tstring_assign(&v, &buf.hdr); /* OFFSET assigns as a VIEW */
  CHECK(tessera_tstring_get_type(&v) == TESSERA_TSTR_VIEW);
  CHECK(tessera_tstring_get_data_pointer(&v) == buf.data);
  tessera_tstring_dealloc(&v);
}

static void tflite_tensors(void) {
  TesseraTString in[3];
  for (int i = 0; i < 3; i++) tessera_tstring_init(&in[i]);
  tessera_tstring_copy(&in[0], "AB", 2);
  tessera_tstring_assign_view(&in[1], "", 0);
  tessera_tstring_copy(&in[2], kLong, 30);
  size_t need = 0, written = 0;
  CHECK(tessera_tflite_strings_encoded_len(in, 3, &need) == TESSERA_OK);
  CHECK(need == 4 * 5 + 32);
  uint8_t small_buf[8];
  CHECK(tessera_tflite_strings_encode(in, 3, small_buf, sizeof small_buf, &written) ==
        TESSERA_BUFFER_TOO_SMALL);
  CHECK(written == need);
  uint8_t *buf = malloc(need);
  CHECK(tessera_tflite_strings_encode(in, 3, buf, need, &written) == TESSERA_OK);
  CHECK(written == need);
  static const uint8_t head[] = {3, 0, 0, 0, 20, 0, 0, 0, 22, 0, 0, 0, 22, 0, 0, 0, 52, 0, 0, 0, 'A', 'B'};
  CHECK(memcmp(buf, head, sizeof head) == 0);

  size_t count = 0;
  CHECK(tessera_tflite_strings_count(buf, need, &count) == TESSERA_OK && count == 3);
  TesseraTString out[3];
  for (int i = 0; i < 3; i++) tessera_tstring_init(&out[i]);
  CHECK(tessera_tflite_strings_to_tstrings(buf, need, out, 2, &count) == TESSERA_BUFFER_TOO_SMALL);
  CHECK(tessera_tflite_strings_to_tstrings(buf, need, out, 3, &count) == TESSERA_OK);
  for (int i = 0; i < 3; i++) {
    CHECK(tessera_tstring_get_type(&out[i]) == TESSERA_TSTR_VIEW);
    CHECK(tessera_tstring_get_size(&out[i]) == tessera_tstring_get_size(&in[i]));
  }
  CHECK(tessera_tstring_get_data_pointer(&out[2]) == (const char *)buf + 22); /* no copy */
  CHECK(memcmp(tessera_tstring_get_data_pointer(&out[2]), kLong, 30) == 0);

  buf[8] = 99; /* offsets no longer non-decreasing / in range */
  CHECK(tessera_tflite_strings_count(buf, need, &count) == TESSERA_MALFORMED);
  CHECK(tessera_tflite_strings_count(NULL, 4, &count) == TESSERA_NULL_ARGUMENT);
  CHECK(tessera_tflite_strings_count(buf, 3, &count) == TESSERA_MALFORMED);
  free(buf);
  for (int i = 0; i < 3; i++) {
    tessera_tstring_dealloc(&in[i]);
    tessera_tstring_dealloc(&out[i]);
  }
}

int main(void) {
  layout();
  small();
  large_freed_by_c();
  view_and_move();
  offset();
  tflite_tensors();
  tessera_tstring_init(NULL); /* null pointers are ignored, not dereferenced */
  CHECK(tessera_tstring_get_size(NULL) == 0);
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
}
