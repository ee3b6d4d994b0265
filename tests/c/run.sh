#!/usr/bin/env bash
# Builds the C library (tessera-capi: libtessera.a), checks that include/tessera.h is what cbindgen makes
# from the sources, then compiles and runs the C test against both (ASan + UBSan: any leak of
# a LARGE string, double free or out-of-bounds access fails the run).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=tests/c/build
mkdir -p "$out"

if command -v cbindgen >/dev/null; then
  cbindgen --quiet --config lite-runtime/capi/cbindgen.toml --crate tessera-capi \
    --output "$out/tessera.h" lite-runtime/capi
  if ! diff -u lite-runtime/capi/include/tessera.h "$out/tessera.h"; then
    echo "lite-runtime/capi/include/tessera.h is stale: regenerate it (see lite-runtime/capi/cbindgen.toml)" >&2
    exit 1
  fi
else
  echo "cbindgen not installed: skipping the header freshness check" >&2
  [ -n "${CI:-}" ] && exit 1
fi

cargo build --quiet -p tessera-capi --lib
for t in tstring_test interpreter_test data_test; do
  cc -std=c11 -Wall -Wextra -Werror -g -fsanitize=address,undefined -fno-omit-frame-pointer \
    -I lite-runtime/capi/include "tests/c/$t.c" target/debug/libtessera.a \
    -lpthread -ldl -lm -o "$out/$t"
  "$out/$t"
done
