#!/usr/bin/env bash
# Builds every firmware variant (release: opt-level "s", LTO, panic = "abort") and prints
# the bytes of its .text .rodata .data .bss as a Markdown table; then the framework's cost
# and the keyword-spotting network's, measured as TensorFlow Lite Micro measures its own
# (the framework or keyword variant minus the baseline variant), and the framework
# variant's flash split by symbol (`nm -S`).
#   examples/firmware/sizes.sh
set -euo pipefail
cd "$(dirname "$0")"
elf=target/thumbv7em-none-eabihf/release/tessera-firmware
model_bytes=$(stat -c %s ../../tests/fixtures/models/kws_int8.tflite)

sections() { # VARIANT -> "text rodata data bss"
  size -A "$elf" | awk '
    $1 == ".text" { t = $2 } $1 == ".rodata" { r = $2 } $1 == ".data" { d = $2 }
    $1 == ".bss" { b = $2 } END { print t + 0, r + 0, d + 0, b + 0 }'
}

echo "| variant | .text | .rodata | .data | .bss |"
echo "| --- | ---: | ---: | ---: | ---: |"
# `+nano-mem`: memcpy / memset as byte loops (newlib-nano's choice, which TFLM's figures link).
for variant in noheap heap defmt streaming baseline keyword-sealed+nano-mem framework-sealed+nano-mem \
  framework+nano-mem keyword-sealed framework-sealed keyword framework; do
  base=${variant%+nano-mem}
  case "$base" in
    noheap) features=() ;;
    heap | defmt) features=(--features "$base") ;;
    *-sealed) features=(--no-default-features --features "${base%-sealed},sealed") ;;
    *) features=(--no-default-features --features "$base") ;;
  esac
  [ "$base" = "$variant" ] || features+=(--features nano-mem)
  cargo build --release --quiet "${features[@]}"
  read -r t r d b < <(sections)
  echo "| \`$variant\` | $t | $r | $d | $b |"
  name=${variant//-/_}
  name=${name//+/_}
  eval "${name}_text=$t ${name}_rodata=$r"
done

# shellcheck disable=SC2154 # set by eval above
{
  echo
  echo "minus baseline (the model's $model_bytes bytes left out of .rodata; keyword's" \
    "490-byte input in):"
  for v in framework framework_sealed keyword keyword_sealed framework_nano_mem \
    framework_sealed_nano_mem keyword_sealed_nano_mem; do
    eval "text=\$((${v}_text - baseline_text)) rodata=\$((${v}_rodata - baseline_rodata - model_bytes))"
    echo "  ${v//_/-}: .text $text, .rodata $rodata, flash $((text + rodata))"
  done
}

# The framework variant was built last. Its flash by symbol (`nm -t d`: decimal sizes).
echo
echo "framework variant, flash bytes by symbol:"
nm -S -t d -C "$elf" | awk '
  $3 ~ /^[tTrR]$/ {
    size = $2 + 0; name = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", name)
    if (name ~ /MODEL_BYTES/) k = "the model (kws_int8.tflite)"
    else if (name ~ /^tessera_lite::model/) k = "tessera: loader and verifier (tessera_lite::model)"
    else if (name ~ /^tessera_lite::interpreter/) k = "tessera: interpreter set-up, planner driver, invoke"
    else if (name ~ /framework::framework/) k = "tessera: inlined into the call site (load, set up, invoke)"
    else if (name ~ /^tessera_core/) k = "tessera: core (lifetime planner, string encoder)"
    else if (name ~ /tessera_lite/) k = "tessera: switch tables (tensor types)"
    else if (name ~ /^\.Lanon/) k = "unnamed constants (strings: op and field names; panic locations)"
    else k = "runtime: core::fmt, compiler builtins, cortex-m-rt, semihosting, printing"
    sum[k] += size
  }
  END { for (k in sum) printf "  %6d  %s\n", sum[k], k }' | sort -rn
