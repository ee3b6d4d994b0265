#!/usr/bin/env bash
# Measure TensorFlow Lite Micro's "framework" code size on a Cortex-M4F the way
# TFLM's memory-footprint FAQ does it
# (tensorflow/lite/micro/examples/memory_footprint/README.md):
#   size(interpreter_memory_footprint) - size(baseline_memory_footprint)
#
# Usage:
#   build.sh TFLM_DIR FLATBUFFERS_DIR GEMMLOWP_DIR
#   (or set TFLM_DIR / FLATBUFFERS_DIR / GEMMLOWP_DIR; only headers of the last
#   two are used: micro_mutable_op_resolver.h pulls in gemmlowp's fixedpoint.h)
# Optional environment:
#   CMSIS_DIR, CORTEX_DFP_DIR  checkouts of ARM-software/CMSIS_6 and
#                        ARM-software/Cortex_DFP; only needed for the
#                        release_with_logs build type (micro_time.cc then reads
#                        the DWT cycle counter through the CMSIS device header).
#   BUILD_TYPES          default "release release_with_logs" (the latter is
#                        skipped when CMSIS_DIR/CORTEX_DFP_DIR are not set)
#   LTO_MODES            default "nolto lto"
#   OUT                  build directory, default ./build-tflm
#   CROSS                toolchain prefix, default arm-none-eabi-
#   JOBS                 parallel compiles, default $(nproc)
#   TOP                  also list the TOP largest symbols of
#                        interpreter_memory_footprint.elf (default 0)
#
# The compile flags reproduce TFLM's own Makefile for
#   make -f tensorflow/lite/micro/tools/make/Makefile TARGET=cortex_m_generic \
#        TARGET_ARCH=cortex-m4+fp TOOLCHAIN=gcc BUILD_TYPE=<release|release_with_logs>
# (core sources at -Os, kernel sources at -O2), without running that Makefile
# (it downloads its third-party code from the network).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
use="usage: build.sh TFLM_DIR FLATBUFFERS_DIR GEMMLOWP_DIR"
TFLM_DIR=$(cd "${1:-${TFLM_DIR:?$use}}" && pwd)
FLATBUFFERS_DIR=$(cd "${2:-${FLATBUFFERS_DIR:?$use}}" && pwd)
GEMMLOWP_DIR=$(cd "${3:-${GEMMLOWP_DIR:?$use}}" && pwd)
CMSIS_DIR=${CMSIS_DIR:-}
CORTEX_DFP_DIR=${CORTEX_DFP_DIR:-}
BUILD_TYPES=${BUILD_TYPES:-release release_with_logs}
LTO_MODES=${LTO_MODES:-nolto lto}
OUT=${OUT:-build-tflm}
CROSS=${CROSS:-arm-none-eabi-}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

CXX=${CROSS}g++
SIZE=${CROSS}size
NM=${CROSS}nm

echo "compiler: $($CXX --version | head -1)"
echo "tflite-micro: $(git -C "$TFLM_DIR" rev-parse HEAD 2>/dev/null || echo '?')"
echo "flatbuffers:  $(git -C "$FLATBUFFERS_DIR" rev-parse HEAD 2>/dev/null || echo '?')"
echo "gemmlowp:     $(git -C "$GEMMLOWP_DIR" rev-parse HEAD 2>/dev/null || echo '?')"

# --- flatbuffers headers, with TFLM's patch applied to a private copy --------
fb="$OUT/flatbuffers"
if [ ! -f "$fb/.patched" ]; then
  rm -rf "$fb" && mkdir -p "$fb"
  cp -r "$FLATBUFFERS_DIR/include" "$fb/"
  fbpatch="$TFLM_DIR/tensorflow/lite/micro/tools/make/flatbuffers.patch"
  if patch -d "$fb" -p1 -s -R --dry-run -f < "$fbpatch" >/dev/null 2>&1; then
    echo "flatbuffers: TFLM patch already applied"
  elif patch -d "$fb" -p1 -s -N -f -r - < "$fbpatch"; then
    echo "flatbuffers: TFLM patch applied to a copy of include/"
  else
    echo "flatbuffers: TFLM patch did NOT apply cleanly"; exit 1
  fi
  touch "$fb/.patched"
fi

# --- model data (same output as TFLM's tools/generate_cc_arrays.py) ----------
gen="$OUT/genfiles"
mdir="$gen/tensorflow/lite/micro/examples/memory_footprint/models"
mkdir -p "$mdir"
tfl="$TFLM_DIR/tensorflow/lite/micro/examples/memory_footprint/models/simple_add_model.tflite"
{
  printf '#include <cstdint>\n\nconstexpr unsigned int g_simple_add_model_model_data_size = %d;\n' "$(wc -c < "$tfl")"
  printf 'extern const unsigned char g_simple_add_model_model_data[];\n'
} > "$mdir/simple_add_model_model_data.h"
{
  printf '#include <cstdint>\n\n#include "tensorflow/lite/micro/examples/memory_footprint/models/simple_add_model_model_data.h"\n\n'
  printf 'alignas(16) const unsigned char g_simple_add_model_model_data[] = {'
  od -An -v -tx1 "$tfl" | tr -s ' \n' '  ' | sed -e 's/^ *//' -e 's/ *$//' -e 's/\([0-9a-f][0-9a-f]\)/0x\1/g' -e 's/ /,/g'
  printf '};\n'
} > "$mdir/simple_add_model_model_data.cc"

# --- source lists (as tools/make/sources.inc + cortex_m_generic) ------------
cd "$TFLM_DIR"
M=tensorflow/lite/micro
core_srcs=()
for f in $M/*.cc $M/arena_allocator/*.cc $M/memory_planner/*.cc $M/tflite_bridge/*.cc; do
  case "$f" in *_test.cc) continue ;; esac
  # specialize_files.py: target-specific replacements from micro/cortex_m_generic/
  [ -f "$M/cortex_m_generic/$(basename "$f")" ] && f="$M/cortex_m_generic/$(basename "$f")"
  core_srcs+=("$f")
done
# TFL_CC_SRCS: shared TfLite sources, without lite/array.cc (TF_LITE_STATIC_MEMORY)
while IFS= read -r f; do
  [ "$f" = tensorflow/lite/array.cc ] || core_srcs+=("$f")
done < <(find tensorflow -type d \( -path tensorflow/lite/experimental -o -path $M \) -prune -false \
           -o -name '*.cc' -print -o -name '*.c' -print | sort)
# None of MICROLITE_CC_KERNEL_SRCS is linked into these programs (no op is
# registered; checked with the link maps), so the kernels are not compiled.
# kernels/kernel_util.cc is archived anyway (with the Makefile's kernel flag
# -O2), in case a TFLM version calls it from framework code.
kernel_srcs=($M/kernels/kernel_util.cc)

# --- flags (tools/make/Makefile + targets/cortex_m_generic_makefile.inc) ----
ARCH="-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mthumb -mfloat-abi=hard -mlittle-endian"
COMMON="-fno-unwind-tables -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections
  -fmessage-length=0 -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON
  -fno-rtti -fno-exceptions -fno-threadsafe-statics -std=c++17
  -DTF_LITE_MCU_DEBUG_LOG -fomit-frame-pointer -DCPU_M4=1 -funsigned-char
  -Wno-type-limits"
INCS="-I. -I$fb/include -I$GEMMLOWP_DIR -I$gen"
LDFLAGS="--specs=nano.specs --specs=nosys.specs -Wl,--gc-sections"

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

results=()
for bt in $BUILD_TYPES; do
  case $bt in
    release) BT="-DNDEBUG -DTF_LITE_STRIP_ERROR_STRINGS" ; CM="" ;;
    release_with_logs)
      if [ -z "$CMSIS_DIR" ] || [ -z "$CORTEX_DFP_DIR" ]; then
        echo "skipping release_with_logs: set CMSIS_DIR and CORTEX_DFP_DIR"; continue
      fi
      BT="-DNDEBUG"
      CM="-I$CORTEX_DFP_DIR/Device/ARMCM4/Include -I$CMSIS_DIR/CMSIS/Core/Include
          -DCMSIS_DEVICE_ARM_CORTEX_M_XX_HEADER_FILE=\"ARMCM4.h\" -DARMCM4" ;;
    *) echo "unknown build type $bt"; exit 1 ;;
  esac
  for lto in $LTO_MODES; do
    L=""; AR=${CROSS}ar
    if [ "$lto" = lto ]; then L="-flto"; AR=${CROSS}gcc-ar; fi
    d="$OUT/${bt}_${lto}"
    rm -rf "$d"; mkdir -p "$d/obj" "$d/bin"
    flags="$COMMON $BT $CM $L"
    echo "== building $bt / $lto"
    { for s in "${core_srcs[@]}"; do echo "$s $d/obj/${s%.*}.o -Os"; done
      for s in "${kernel_srcs[@]}"; do echo "$s $d/obj/${s%.*}.o -O2"; done
    } | FLAGS="$flags" xargs -P "$JOBS" -L 1 bash -c 'compile "$0" "$1" "$2" $FLAGS'
    $AR -rcs "$d/libtensorflow-microlite.a" $(find "$d/obj" -name '*.o' | sort)
    compile $M/examples/memory_footprint/baseline_memory_footprint.cc "$d/main/baseline.o" -Os $flags
    compile $M/examples/memory_footprint/interpreter_memory_footprint.cc "$d/main/interpreter.o" -Os $flags
    compile "$here/plain_interpreter_footprint.cc" "$d/main/plain.o" -Os $flags
    compile "$mdir/simple_add_model_model_data.cc" "$d/main/model.o" -Os $flags
    for p in baseline interpreter plain; do
      extra=""; [ $p != baseline ] && extra="$d/main/model.o"
      $CXX $ARCH -Os $L "$d/main/$p.o" $extra -L"$d" -ltensorflow-microlite -lm $LDFLAGS \
        -Wl,-Map="$d/bin/$p.map" -o "$d/bin/${p}_memory_footprint.elf"
    done
    results+=("$bt $lto $d")
  done
done

# --- report ----------------------------------------------------------------
sec() { $SIZE -A "$1" | awk -v s="$2" '$1==s {print $2; f=1} END {if (!f) print 0}'; }
for r in "${results[@]}"; do
  set -- $r; d=$3
  echo
  echo "### BUILD_TYPE=$1, $2"
  printf '%-34s %8s %8s %8s %8s\n' program .text .rodata .data .bss
  for p in baseline interpreter plain; do
    e="$d/bin/${p}_memory_footprint.elf"
    printf '%-34s %8d %8d %8d %8d\n' "${p}_memory_footprint" \
      "$(sec "$e" .text)" "$(sec "$e" .rodata)" "$(sec "$e" .data)" "$(sec "$e" .bss)"
  done
  b="$d/bin/baseline_memory_footprint.elf"
  for p in interpreter plain; do
    e="$d/bin/${p}_memory_footprint.elf"
    dt=$(( $(sec "$e" .text) - $(sec "$b" .text) ))
    dr=$(( $(sec "$e" .rodata) - $(sec "$b" .rodata) ))
    printf '%-34s %8d %8d   (text+rodata %d)\n' "framework ($p - baseline)" "$dt" "$dr" $((dt + dr))
  done
  echo "(.rodata of both interpreter programs includes the $(wc -c < "$tfl")-byte model flatbuffer)"
  echo "Berkeley:"
  $SIZE "$d"/bin/*.elf | sed "s|$d/bin/||"
  if [ "${TOP:-0}" -gt 0 ]; then
    echo "largest symbols of interpreter_memory_footprint.elf (address size type name):"
    $NM -C -S --size-sort "$d/bin/interpreter_memory_footprint.elf" | tail -n "$TOP" | tac
  fi
done
