#!/usr/bin/env bash
# Builds every firmware variant (release: opt-level "s", LTO, panic = "abort") and prints
# the bytes of its .text .rodata .data .bss as a Markdown table, then splits the framework
# variant's flash (.text + .rodata) by whose symbols they are (`nm -S`), for BENCHMARKS.md.
#   examples/firmware/sizes.sh
set -euo pipefail
cd "$(dirname "$0")"
elf=target/thumbv7em-none-eabihf/release/tessera-firmware

echo "| variant | .text | .rodata | .data | .bss |"
echo "| --- | ---: | ---: | ---: | ---: |"
for variant in noheap heap defmt framework; do
  if [ "$variant" = noheap ]; then features=(); else features=(--features "$variant"); fi
  cargo build --release --quiet "${features[@]}"
  size -A "$elf" | awk -v v="$variant" '
    $1 == ".text" { t = $2 } $1 == ".rodata" { r = $2 } $1 == ".data" { d = $2 }
    $1 == ".bss" { b = $2 }
    END { printf "| `%s` | %d | %d | %d | %d |\n", v, t, r, d, b }'
done

# The framework variant was built last. Its flash by symbol (`nm -t d`: decimal sizes).
echo
echo "framework variant, flash bytes by symbol:"
nm -S -t d -C "$elf" | awk '
  $3 ~ /^[tTrR]$/ {
    size = $2 + 0; name = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", name)
    if (name ~ /MODEL_BYTES/) k = "the model (kws_int8.tflite, 10 560 bytes)"
    else if (name ~ /^tessera_lite::model/) k = "tessera: loader and verifier (tessera_lite::model)"
    else if (name ~ /^tessera_lite::interpreter/) k = "tessera: interpreter set-up, planner driver, invoke"
    else if (name ~ /framework::framework/) k = "tessera: inlined into the call site (load, set up, invoke)"
    else if (name ~ /^tessera_core/) k = "tessera: core (lifetime planner, string encoder)"
    else if (name ~ /tessera_lite/) k = "tessera: tables (op names)"
    else if (name ~ /^\.Lanon/) k = "unnamed constants (panic locations, strings)"
    else k = "runtime: core::fmt, compiler builtins, cortex-m-rt, semihosting, printing"
    sum[k] += size
  }
  END { for (k in sum) printf "  %6d  %s\n", sum[k], k }' | sort -rn
