#!/usr/bin/env bash
# TensorFlow Lite Micro's side of tessera's `streaming` firmware variant
# (streaming_footprint.cc): the audio front end (TFLM's signal ops) and the int8 SVDF keyword
# network over the tone sweep, 10 ms at a time, built with the flags of build.sh (TFLM's
# Makefile for TARGET=cortex_m_generic TARGET_ARCH=cortex-m4+fp, BUILD_TYPE=release: core at
# -Os, kernels at -O2, newlib-nano; no LTO), sized, and run under qemu-system-arm -icount
# shift=0 (mps2-an386), where it must print MATCH (features and scores equal to TFLM's Python
# interpreter's) and prints its arenas and instructions per frame.
#
# Usage:
#   streaming.sh TFLM_DIR FLATBUFFERS_DIR GEMMLOWP_DIR RUY_DIR KISSFFT_DIR
#   checkouts at TFLM's pins (see README.md; kissfft: tag v130 with TFLM's
#   third_party/kissfft/kissfft.patch applied, as TFLM's Makefile downloads it)
# Optional environment: OUT (default ./build-tflm-streaming), CROSS (arm-none-eabi-),
#   JOBS (default $(nproc)), QEMU_SYSTEM_ARM, TOP (list the TOP largest symbols)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
use="usage: streaming.sh TFLM_DIR FLATBUFFERS_DIR GEMMLOWP_DIR RUY_DIR KISSFFT_DIR"
TFLM_DIR=$(cd "${1:?$use}" && pwd)
FLATBUFFERS_DIR=$(cd "${2:?$use}" && pwd)
GEMMLOWP_DIR=$(cd "${3:?$use}" && pwd)
RUY_DIR=$(cd "${4:?$use}" && pwd)
KISSFFT_DIR=$(cd "${5:?$use}" && pwd)
fixtures=$(cd "$here/../../../tests/fixtures/signal" && pwd)
OUT=${OUT:-build-tflm-streaming}
CROSS=${CROSS:-arm-none-eabi-}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CXX=${CROSS}g++

echo "compiler: $($CXX --version | head -1)"

# --- flatbuffers headers with TFLM's patch (a private copy) ----------------
fb="$OUT/flatbuffers"
if [ ! -f "$fb/.patched" ]; then
  rm -rf "$fb" && mkdir -p "$fb"
  cp -r "$FLATBUFFERS_DIR/include" "$fb/"
  patch -d "$fb" -p1 -s -N -f -r - < "$TFLM_DIR/tensorflow/lite/micro/tools/make/flatbuffers.patch"
  touch "$fb/.patched"
fi

# --- the models, the clip and TFLM's references as C arrays ------------------
gen="$OUT/genfiles"
mdir="$gen/tensorflow/lite/micro/examples/memory_footprint/models"
mkdir -p "$mdir"
bytes() { od -An -v -tx1 "$1" | tr -s ' \n' '  ' | sed -e 's/^ *//' -e 's/ *$//' \
  -e 's/\([0-9a-f][0-9a-f]\)/0x\1/g' -e 's/ /,/g'; }
int16s() { od -An -v -td2 -j "$2" "$1" | tr -s ' \n' '  ' | sed -e 's/^ *//' -e 's/ *$//' -e 's/ /,/g'; }
npy_data() { echo $(( 10 + $(od -An -tu2 -j8 -N2 "$1") )); }
wav="$fixtures/tone_sweep.wav"
# A canonical 44-byte header: the samples follow the "data" tag at byte 36.
[ "$(od -An -c -j36 -N4 "$wav" | tr -d ' ')" = data ] || { echo "$wav: no data chunk at 36"; exit 1; }
feat="$fixtures/front_end.features.npy"
scores="$fixtures/kws_svdf.tflm_out0.npy"
{
  printf '#include <cstdint>\n'
  for m in front_end kws_svdf; do
    printf 'extern const unsigned char g_%s_model_data[];\n' "$m"
  done
  printf 'constexpr unsigned int g_clip_samples_size = %d;\n' $(( ($(wc -c < "$wav") - 44) / 2 ))
  printf 'extern const int16_t g_clip_samples[];\n'
  printf 'constexpr unsigned int g_features_size = %d;\n' $(( ($(wc -c < "$feat") - $(npy_data "$feat")) / 2 ))
  printf 'extern const int16_t g_features[];\n'
  printf 'constexpr unsigned int g_scores_size = %d;\n' $(( ($(wc -c < "$scores") - $(npy_data "$scores")) / 2 ))
  printf 'extern const int16_t g_scores[];\n'
} > "$mdir/streaming_data.h"
{
  printf '#include "tensorflow/lite/micro/examples/memory_footprint/models/streaming_data.h"\n\n'
  for m in front_end kws_svdf; do
    printf 'alignas(16) const unsigned char g_%s_model_data[] = {' "$m"
    bytes "$fixtures/$m.tflite"
    printf '};\n'
  done
  printf 'const int16_t g_clip_samples[] = {'; int16s "$wav" 44; printf '};\n'
  printf 'const int16_t g_features[] = {'; int16s "$feat" "$(npy_data "$feat")"; printf '};\n'
  printf 'const int16_t g_scores[] = {'; int16s "$scores" "$(npy_data "$scores")"; printf '};\n'
} > "$mdir/streaming_data.cc"

# --- sources ------------------------------------------------------------------
cd "$TFLM_DIR"
M=tensorflow/lite/micro
core_srcs=()
for f in $M/*.cc $M/arena_allocator/*.cc $M/memory_planner/*.cc $M/tflite_bridge/*.cc; do
  case "$f" in *_test.cc) continue ;; esac
  [ -f "$M/cortex_m_generic/$(basename "$f")" ] && f="$M/cortex_m_generic/$(basename "$f")"
  core_srcs+=("$f")
done
while IFS= read -r f; do
  [ "$f" = tensorflow/lite/array.cc ] || core_srcs+=("$f")
done < <(find tensorflow -type d \( -path tensorflow/lite/experimental -o -path $M \) -prune -false \
           -o -name '*.cc' -print -o -name '*.c' -print | sort)
# The kernels: the network's (reference kernels, OPTIMIZED_KERNEL_DIR empty), RESHAPE, and the
# signal library's (MICROLITE_CC_SIGNAL_KERNEL_SRCS of tools/make/sources.inc, with the KISS FFT
# wrappers); the link takes only what the two resolvers register.
kernel_srcs=()
for k in svdf svdf_common fully_connected fully_connected_common quantize quantize_common \
         softmax softmax_common reshape reshape_common kernel_util; do
  kernel_srcs+=("$M/kernels/$k.cc")
done
for f in signal/micro/kernels/*.cc signal/src/*.cc signal/src/kiss_fft_wrappers/*.cc; do
  case "$f" in *_test.cc | *flexbuffers_generated_data.cc) continue ;; esac
  kernel_srcs+=("$f")
done

ARCH="-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mthumb -mfloat-abi=hard -mlittle-endian"
FLAGS="-fno-unwind-tables -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections
  -fmessage-length=0 -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON
  -fno-rtti -fno-exceptions -fno-threadsafe-statics -std=c++17
  -DKERNELS_OPTIMIZED_FOR_SPEED -DTF_LITE_MCU_DEBUG_LOG -fomit-frame-pointer -DCPU_M4=1 -funsigned-char
  -Wno-type-limits -DNDEBUG -DTF_LITE_STRIP_ERROR_STRINGS"
INCS="-I. -I$fb/include -I$GEMMLOWP_DIR -I$gen -I$RUY_DIR -I$KISSFFT_DIR"
compile() {  # compile SRC OBJ OPT FLAGS...
  local src=$1 obj=$2 opt=$3; shift 3
  mkdir -p "$(dirname "$obj")"
  if [[ $src == *.c ]]; then
    ${CROSS}gcc $ARCH $opt "$@" -std=c17 $INCS -c "$src" -o "$obj"
  else
    $CXX $ARCH $opt "$@" $INCS -c "$src" -o "$obj"
  fi
}
export -f compile
export CROSS CXX ARCH INCS

d="$OUT/release_nolto"
mkdir -p "$d/bin"
if [ ! -f "$d/libtensorflow-microlite.a" ]; then
  rm -rf "$d/obj"
  echo "== compiling TFLM (release, no LTO)"
  { for s in "${core_srcs[@]}"; do echo "$s $d/obj/${s%.*}.o -Os"; done
  } | FLAGS="$FLAGS" xargs -P "$JOBS" -L 1 bash -c 'compile "$0" "$1" "$2" $FLAGS'
  ${CROSS}ar -rcs "$d/libtensorflow-microlite.a" $(find "$d/obj" -name '*.o' | sort)
fi
rm -rf "$d/kobj"
for s in "${kernel_srcs[@]}"; do echo "$s $d/kobj/${s%.*}.o -O2"; done \
  | FLAGS="$FLAGS" xargs -P "$JOBS" -L 1 bash -c 'compile "$0" "$1" "$2" $FLAGS'
rm -f "$d/libstreaming-kernels.a"
${CROSS}ar -rcs "$d/libstreaming-kernels.a" $(find "$d/kobj" -name '*.o' | sort)
compile "$mdir/streaming_data.cc" "$d/main/data.o" -Os $FLAGS
compile "$here/streaming_footprint.cc" "$d/main/streaming.o" -Os $FLAGS
compile "$here/streaming_footprint.cc" "$d/main/streaming_print.o" -Os $FLAGS -DSTREAM_PRINT
compile "$here/qemu_start.c" "$d/main/qemu_start.o" -Os $FLAGS
compile $M/examples/memory_footprint/baseline_memory_footprint.cc "$d/main/baseline.o" -Os $FLAGS
libs=(-L"$d" -lstreaming-kernels -ltensorflow-microlite -lm)
# Sized: no printing, newlib-nano with no system calls, as build.sh's programs.
$CXX $ARCH -Os "$d/main/streaming.o" "$d/main/data.o" "${libs[@]}" --specs=nano.specs \
  --specs=nosys.specs -Wl,--gc-sections -Wl,-Map="$d/bin/streaming.map" \
  -o "$d/bin/streaming_footprint.elf"
$CXX $ARCH -Os "$d/main/baseline.o" -L"$d" -ltensorflow-microlite --specs=nano.specs \
  --specs=nosys.specs -Wl,--gc-sections -o "$d/bin/baseline_memory_footprint.elf"
# Run: semihosting printf (rdimon) and the QEMU start-up of qemu_start.c.
q="$d/bin/streaming_qemu.elf"
$CXX $ARCH -Os "$d/main/qemu_start.o" "$d/main/streaming_print.o" "$d/main/data.o" "${libs[@]}" \
  --specs=nano.specs --specs=rdimon.specs -Wl,--gc-sections \
  -Wl,--undefined=qemu_vectors -Wl,--section-start=.qemu_vectors=0 -o "$q"

echo "== sizes (arm-none-eabi-size -A; .rodata holds the models, the clip and the references)"
for e in baseline_memory_footprint streaming_footprint streaming_qemu; do
  ${CROSS}size -A "$d/bin/$e.elf" | awk -v e="$e" '
    $1 == ".text" { t = $2 } $1 == ".rodata" { r = $2 } $1 == ".data" { a = $2 } $1 == ".bss" { b = $2 }
    END { printf "%-28s .text %7d  .rodata %7d  .data %5d  .bss %6d\n", e, t, r, a, b }'
done
if [ "${TOP:-0}" -gt 0 ]; then
  ${CROSS}nm -C -S --size-sort "$d/bin/streaming_footprint.elf" | tail -n "$TOP" | tac
fi
echo "== running $(basename "$q") under QEMU (mps2-an386, Cortex-M4, -icount shift=0)"
timeout 300 "${QEMU_SYSTEM_ARM:-qemu-system-arm}" -machine mps2-an386 -cpu cortex-m4 \
  -semihosting-config enable=on,target=native -nographic -monitor none -icount shift=0 \
  -kernel "$q" | tee "$d/bin/qemu.log"
grep -qx MATCH "$d/bin/qemu.log" || { echo "QEMU run: output differs or run failed"; exit 1; }
