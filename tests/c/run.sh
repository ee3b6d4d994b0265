#!/usr/bin/env bash
# Builds tessera-lite's static library, checks that include/tessera.h is what cbindgen makes
# from the sources, then compiles and runs the C test against both (ASan + UBSan: any leak of
# a LARGE string, double free or out-of-bounds access fails the run).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=tests/c/build
mkdir -p "$out"

if command -v cbindgen >/dev/null; then
  cbindgen --quiet --config lite-runtime/cbindgen.toml --crate tessera-lite \
    --output "$out/tessera.h" lite-runtime
  if ! diff -u lite-runtime/include/tessera.h "$out/tessera.h"; then
    echo "lite-runtime/include/tessera.h is stale: regenerate it (see lite-runtime/cbindgen.toml)" >&2
    exit 1
  fi
else
  echo "cbindgen not installed: skipping the header freshness check" >&2
  [ -n "${CI:-}" ] && exit 1
fi

cargo build --quiet -p tessera-lite --lib
cc -std=c11 -Wall -Wextra -Werror -g -fsanitize=address,undefined -fno-omit-frame-pointer \
  -I lite-runtime/include tests/c/tstring_test.c target/debug/libtessera_lite.a \
  -lpthread -ldl -lm -o "$out/tstring_test"
"$out/tstring_test"
