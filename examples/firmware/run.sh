#!/usr/bin/env bash
# Builds the firmware (release: opt-level "s", LTO, panic = "abort") and runs it under QEMU's
# mps2-an386 (Cortex-M4F), exiting with the firmware's own status (0: its results match the
# host's). Installs qemu-system-arm from the distribution's packages when it is missing.
#   examples/firmware/run.sh [VARIANT]     VARIANT: noheap (default)
set -euo pipefail
cd "$(dirname "$0")"
variant=${1:-noheap}
variant=${variant// /}
case "$variant" in
  noheap) features=() ;;
  *) echo "unknown variant '$variant' (known: noheap)" >&2; exit 2 ;;
esac

rustup target add thumbv7em-none-eabihf >/dev/null 2>&1 || true
if ! command -v qemu-system-arm >/dev/null; then
  apt-get update -qq && apt-get install -y -qq qemu-system-arm >/dev/null
fi

cargo build --release --quiet "${features[@]}"
elf=target/thumbv7em-none-eabihf/release/tessera-firmware
if command -v size >/dev/null; then size -A "$elf" | grep -E '^\.(text|rodata|data|bss) '; fi
timeout 120 qemu-system-arm -cpu cortex-m4 -machine mps2-an386 -nographic \
  -semihosting-config enable=on,target=native -kernel "$elf"
