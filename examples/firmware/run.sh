#!/usr/bin/env bash
# Builds a firmware variant (release: opt-level "s", LTO, panic = "abort"), prints the sizes
# of its sections and runs it under QEMU's mps2-an386 (Cortex-M4F), exiting with the
# firmware's own status (0: its results match the host's and TensorFlow Lite's reference
# kernels'). Installs qemu-system-arm from the distribution's packages when it is missing,
# and defmt-print (crates.io) for the defmt variant.
#   examples/firmware/run.sh [VARIANT]
#     noheap     (default) no global allocator: the CTR job and the KWS int8 network
#     heap       + embedded-alloc: LARGE TStrings and tessera-alloc's owned types
#     defmt      + defmt over semihosting, decoded on the host by defmt-print
#     framework  only the loader, planner and interpreter, no kernel (for its size)
#     keyword    the framework and the KWS network's five kernels alone (for their size)
#     framework-sealed, keyword-sealed
#                the same with the model loaded by its seal (made by build.rs on the host):
#                no verifier linked
#     baseline   no tessera: the runtime alone, what framework and keyword are measured from
#     streaming  TFLM's audio front end (signal ops) and an int8 SVDF keyword network over a
#                clip, 10 ms at a time, against the host, TFLM and LiteRT's reference kernels;
#                run with -icount shift=0, so that its SysTick counts instructions
#   Any variant + "+nano-mem" (say framework-sealed+nano-mem): memcpy / memset as byte loops,
#   for size, as newlib-nano's that TensorFlow Lite Micro's figures link.
set -euo pipefail
cd "$(dirname "$0")"
variant=${1:-noheap}
variant=${variant// /}
extra=()
if [ "${variant%+nano-mem}" != "$variant" ]; then
  variant=${variant%+nano-mem}
  extra=(--features nano-mem)
fi
case "$variant" in
  noheap) features=() ;;
  heap | defmt) features=(--features "$variant") ;;
  # Only what they measure: no CTR job, no model parts the KWS network does not use.
  framework | keyword | baseline | streaming)
    features=(--no-default-features --features "$variant") ;;
  framework-sealed | keyword-sealed)
    features=(--no-default-features --features "${variant%-sealed},sealed") ;;
  *)
    echo "unknown variant '$variant' (known: noheap heap defmt framework keyword" \
      "framework-sealed keyword-sealed baseline streaming)" >&2
    exit 2
    ;;
esac

rustup target add thumbv7em-none-eabihf >/dev/null 2>&1 || true
if ! command -v qemu-system-arm >/dev/null; then
  apt-get update -qq && apt-get install -y -qq qemu-system-arm >/dev/null
fi
if [ "$variant" = defmt ] && ! command -v defmt-print >/dev/null; then
  cargo install defmt-print --locked --quiet
fi

features+=("${extra[@]}")
cargo build --release --quiet "${features[@]}"
elf=target/thumbv7em-none-eabihf/release/tessera-firmware
if command -v size >/dev/null; then
  echo "$variant: section bytes"
  size -A "$elf" | awk '$1 ~ /^\.(text|rodata|data|bss)$/ { print "  " $1, $2 }'
fi
qemu=(timeout 120 qemu-system-arm -cpu cortex-m4 -machine mps2-an386 -nographic
  -semihosting-config enable=on,target=native -kernel "$elf")
# One instruction, one nanosecond of virtual time: the streaming variant's SysTick (25 MHz)
# then ticks once every 40 instructions, which it prints as instructions per frame.
[ "$variant" != streaming ] || qemu+=(-icount shift=0)
if [ "$variant" = defmt ]; then
  # defmt's binary frames arrive on semihosting's stdout, the firmware's text on its stderr:
  # the text is shown as it comes, the frames decoded once the firmware has exited.
  frames=$(mktemp)
  trap 'rm -f "$frames"' EXIT
  status=0
  "${qemu[@]}" >"$frames" || status=$?
  decoded=$(defmt-print -e "$elf" <"$frames")
  printf 'decoded defmt frames:\n%s\n' "$decoded"
  # The end-to-end check: the tessera-core error the firmware logged, decoded on the host.
  if ! grep -q 'DataError { kind: Truncated' <<<"$decoded"; then
    echo "the defmt frames did not decode to the logged DataError" >&2
    status=1
  fi
  exit "$status"
else
  "${qemu[@]}"
fi
