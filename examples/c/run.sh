#!/usr/bin/env bash
# Builds libtessera.a and examples/c/example.c the way a C app would (the header, the static
# library, the system libraries README.md lists) and runs the example under AddressSanitizer
# and UndefinedBehaviorSanitizer: the CTR model on the bundled Norm dataset, checked against
# the host's predictions, then string models (TF_TString inputs and outputs). Any leak, bad
# access or undefined behaviour, and any error tessera reports, fails the run.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=target/examples-c
mkdir -p "$out"

cargo build --quiet -p tessera-capi --lib
cc -std=c11 -Wall -Wextra -Werror -g -fsanitize=address,undefined -fno-sanitize-recover=all \
  -fno-omit-frame-pointer -I lite-runtime/capi/include examples/c/example.c \
  target/debug/libtessera.a -lpthread -ldl -lm -o "$out/example"

# ASan finds leaks at exit; UBSan stops at the first report (-fno-sanitize-recover).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
"$out/example"
"$out/example" tests/fixtures/models/strings.tflite
"$out/example" tests/fixtures/models/strings_ops.tflite
"$out/example" tests/fixtures/models/sparse.tflite

# The link line README.md gives a C user: no sanitizer runtime (which would bring libm,
# libpthread and libdl itself), only -lpthread -ldl; -lm must not be needed.
cc -std=c11 -O2 -Wall -Werror -I lite-runtime/capi/include examples/c/example.c \
  target/debug/libtessera.a -lpthread -ldl -Wl,--gc-sections -o "$out/example-plain"
"$out/example-plain" >/dev/null

# A corrupt dataset must be an error naming the sample and byte, not a crash.
bad="$out/flipped.norm"
cp lite-runtime/cli/demo/demo.norm "$bad"
printf '\xff' | dd of="$bad" bs=1 seek=5000 conv=notrunc status=none
if "$out/example" lite-runtime/cli/demo/ctr_b4.tflite "$bad" 2>"$out/flipped.err"; then
  echo "examples/c: a flipped byte in the dataset was not reported" >&2
  exit 1
fi
grep -q "sample .*byte" "$out/flipped.err" || { cat "$out/flipped.err" >&2; exit 1; }
echo "examples/c: ok ($(cat "$out/flipped.err"))"
