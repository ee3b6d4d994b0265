#!/usr/bin/env bash
# Guest instructions per invoke of the keyword-spotting int8 network on a Cortex-M4F under
# QEMU (mps2-an386): the `keyword` variant with the `count` feature reads the board's CMSDK
# timer around `invoke`, and QEMU runs with `-icount shift=0` (virtual time advances 1 ns
# per guest instruction; the timer ticks at 25 MHz, so one tick is 40 instructions). Exits
# with the firmware's status (0: the output still equals TensorFlow Lite's reference kernels).
#   examples/firmware/count.sh [nano-mem]
#     nano-mem   memcpy / memset as byte loops (newlib-nano's, as TFLM's programs link)
# What it counts: instructions QEMU executed, not cycles. No pipeline, no flash wait states,
# no memory latency, and every instruction weighs one (an SMLAD doing two multiply-adds the
# same as a MOV; a division or a taken branch the same as an add). Resolution 40 instructions.
set -euo pipefail
cd "$(dirname "$0")"
features=(--no-default-features --features count,sealed)
[ "${1:-}" != nano-mem ] || features+=(--features nano-mem)
rustup target add thumbv7em-none-eabihf >/dev/null 2>&1 || true
if ! command -v qemu-system-arm >/dev/null; then
  apt-get update -qq && apt-get install -y -qq qemu-system-arm >/dev/null
fi
cargo build --release --quiet "${features[@]}"
timeout 120 qemu-system-arm -cpu cortex-m4 -machine mps2-an386 -nographic -icount shift=0 \
  -semihosting-config enable=on,target=native \
  -kernel target/thumbv7em-none-eabihf/release/tessera-firmware
