#!/usr/bin/env bash
# Measure TensorFlow Lite Micro's "framework" code size on a Cortex-M4F the way
# TFLM's memory-footprint FAQ does it
# (tensorflow/lite/micro/examples/memory_footprint/README.md):
#   size(interpreter_memory_footprint) - size(baseline_memory_footprint)
# and the size of a program running tessera's keyword-spotting int8 network
# (keyword_footprint.cc, five int8 kernels) against the same baseline.
# verified_interpreter_footprint.cc is plain_interpreter_footprint.cc plus the
# flatbuffers verifier of TFLite's schema (tflite::VerifyModelBuffer) run on
# the model before the interpreter is built; verified - plain is its cost.
#
# Usage:
#   build.sh TFLM_DIR FLATBUFFERS_DIR GEMMLOWP_DIR [KWS_MODEL]
#   (or set TFLM_DIR / FLATBUFFERS_DIR / GEMMLOWP_DIR / KWS_MODEL; only headers
#   of flatbuffers and gemmlowp are used: micro_mutable_op_resolver.h pulls in
#   gemmlowp's fixedpoint.h)
#   KWS_MODEL            default ../../../tests/fixtures/models/kws_int8.tflite
#                        (relative to this script); its input and reference
#                        output are read from KWS_INPUT and KWS_REF, by default
#                        the .in0.npy and .ref_out0.npy files beside it
#   RUY_DIR              checkout of google/ruy (TFLM's pin): the reference
#                        fully_connected kernel includes its (no-op)
#                        ruy/profiler/instrumentation.h. Needed for the keyword
#                        program, which is skipped when RUY_DIR is not set.
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
#                        interpreter_memory_footprint.elf and of the keyword
#                        programs, and the TOP largest symbols of
#                        verified_memory_footprint.elf whose name is not in
#                        plain_memory_footprint.elf (default 0)
#   KERNEL_OPTS          optimization levels of the keyword program's kernel
#                        sources, one keyword program each; default "-O2 -Os"
#                        (-O2 is TFLM's KERNEL_OPTIMIZATION_LEVEL); "" skips
#                        the keyword program
#   QEMU                 set to 1 to also build the keyword program (kernels at
#                        the first of KERNEL_OPTS, release, no LTO) with
#                        semihosting printf (rdimon) and run it with
#                        qemu-system-arm -machine mps2-an386; it must print
#                        MATCH (scores equal to the reference output); needs
#                        release and nolto in BUILD_TYPES / LTO_MODES
#   QEMU_SYSTEM_ARM      default qemu-system-arm
#                        The QEMU run is also the instruction count of Invoke():
#                        keyword_footprint.cc built with -DKWS_COUNT reads the
#                        board's CMSDK timer 0 around Invoke() and QEMU runs with
#                        -icount shift=0 (as ../count.sh does for tessera), so
#                        it prints "count: N instructions per invoke"
#   KWS_KERNELS          kernel sets of the keyword program, default "reference";
#                        "reference cmsis_nn" adds keyword-cmsis_nn programs
#                        built as OPTIMIZED_KERNEL_DIR=cmsis_nn builds them
#                        (tools/make/ext_libs/cmsis_nn.inc): TFLM's
#                        kernels/cmsis_nn/{conv,depthwise_conv,pooling,
#                        fully_connected,softmax}.cc with the shared *_common.cc,
#                        CMSIS-NN's Source/**.c (no f16/f32) at -O2, -DCMSIS_NN;
#                        needs CMSIS_NN_DIR (ARM-software/CMSIS-NN, TFLM's pin in
#                        tools/make/ext_libs/cmsis_nn_download.sh) and CMSIS_DIR
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
KWS_MODEL=${4:-${KWS_MODEL:-$here/../../../tests/fixtures/models/kws_int8.tflite}}
KWS_INPUT=${KWS_INPUT:-${KWS_MODEL%.tflite}.in0.npy}
KWS_REF=${KWS_REF:-${KWS_MODEL%.tflite}.ref_out0.npy}
KERNEL_OPTS=${KERNEL_OPTS--O2 -Os}
RUY_DIR=${RUY_DIR:-}
if [ -n "$KERNEL_OPTS" ] && [ -z "$RUY_DIR" ]; then
  echo "skipping the keyword program: set RUY_DIR"; KERNEL_OPTS=""
fi
[ -z "$RUY_DIR" ] || RUY_DIR=$(cd "$RUY_DIR" && pwd)
QEMU=${QEMU:-0}
KWS_KERNELS=${KWS_KERNELS:-reference}
CMSIS_NN_DIR=${CMSIS_NN_DIR:-}
CMSIS_DIR=${CMSIS_DIR:-}
CORTEX_DFP_DIR=${CORTEX_DFP_DIR:-}
# absolute, as the compiles run in TFLM_DIR
[ -z "$CMSIS_DIR" ] || CMSIS_DIR=$(cd "$CMSIS_DIR" && pwd)
[ -z "$CORTEX_DFP_DIR" ] || CORTEX_DFP_DIR=$(cd "$CORTEX_DFP_DIR" && pwd)
[ -z "$CMSIS_NN_DIR" ] || CMSIS_NN_DIR=$(cd "$CMSIS_NN_DIR" && pwd)
if [[ " $KWS_KERNELS " == *" cmsis_nn "* ]] && { [ -z "$CMSIS_NN_DIR" ] || [ -z "$CMSIS_DIR" ]; }; then
  echo "KWS_KERNELS=cmsis_nn: set CMSIS_NN_DIR and CMSIS_DIR"; exit 1
fi
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
[ -z "$RUY_DIR" ] || echo "ruy:          $(git -C "$RUY_DIR" rev-parse HEAD 2>/dev/null || echo '?')"
[ -z "$CMSIS_NN_DIR" ] || echo "CMSIS-NN:     $(git -C "$CMSIS_NN_DIR" rev-parse HEAD 2>/dev/null || echo '?')"

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

# bytes FILE [SKIP]: the bytes of FILE from offset SKIP as 0x.. C initializers
bytes() {
  od -An -v -tx1 -j "${2:-0}" "$1" | tr -s ' \n' '  ' | sed -e 's/^ *//' -e 's/ *$//' \
    -e 's/\([0-9a-f][0-9a-f]\)/0x\1/g' -e 's/ /,/g'
}
# int8s FILE SKIP: the bytes of FILE from offset SKIP as signed decimals
int8s() {
  od -An -v -td1 -j "$2" "$1" | tr -s ' \n' '  ' | sed -e 's/^ *//' -e 's/ *$//' -e 's/ /,/g'
}
# npy_data FILE: offset of the data of a .npy file (format 1.0: 10-byte prefix
# with a little-endian 16-bit header length at offset 8)
npy_data() { echo $(( 10 + $(od -An -tu2 -j8 -N2 "$1") )); }
if [ -n "$KERNEL_OPTS" ]; then
  for f in "$KWS_MODEL" "$KWS_INPUT" "$KWS_REF"; do
    [ -f "$f" ] || { echo "missing $f (KWS_MODEL / KWS_INPUT / KWS_REF)"; exit 1; }
  done
  kws_model_size=$(wc -c < "$KWS_MODEL")
  {
    printf '#include <cstdint>\n\nconstexpr unsigned int g_kws_int8_model_data_size = %d;\n' "$kws_model_size"
    printf 'extern const unsigned char g_kws_int8_model_data[];\n'
  } > "$mdir/kws_int8_model_data.h"
  {
    printf '#include <cstdint>\n\n#include "tensorflow/lite/micro/examples/memory_footprint/models/kws_int8_model_data.h"\n\n'
    printf 'alignas(16) const unsigned char g_kws_int8_model_data[] = {'
    bytes "$KWS_MODEL"
    printf '};\n'
  } > "$mdir/kws_int8_model_data.cc"
  # the input ([1, 49, 10, 1] int8) and the expected scores (12 int8), raw
  in_off=$(npy_data "$KWS_INPUT"); ref_off=$(npy_data "$KWS_REF")
  {
    printf '#include <cstdint>\n\n'
    printf 'constexpr unsigned int g_kws_int8_input_size = %d;\n' $(( $(wc -c < "$KWS_INPUT") - in_off ))
    printf 'extern const int8_t g_kws_int8_input[];\n'
    printf 'constexpr unsigned int g_kws_int8_expected_size = %d;\n' $(( $(wc -c < "$KWS_REF") - ref_off ))
    printf 'extern const int8_t g_kws_int8_expected[];\n'
  } > "$mdir/kws_int8_io_data.h"
  {
    printf '#include <cstdint>\n\n#include "tensorflow/lite/micro/examples/memory_footprint/models/kws_int8_io_data.h"\n\n'
    printf 'alignas(16) const int8_t g_kws_int8_input[] = {'
    int8s "$KWS_INPUT" "$in_off"
    printf '};\nconst int8_t g_kws_int8_expected[] = {'
    int8s "$KWS_REF" "$ref_off"
    printf '};\n'
  } > "$mdir/kws_int8_io_data.cc"
fi

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
# The keyword program's kernels: TFLM's reference kernels (OPTIMIZED_KERNEL_DIR
# empty, the Makefile's default) for the five ops, i.e. the members of
# MICROLITE_CC_KERNEL_SRCS that its link takes from a full kernel archive.
# Without CMSIS_NN/XTENSA, Register_<OP>_INT8() is an inline alias of the
# generic Register_<OP>() (kernels/conv.h etc.).
kws_kernel_srcs=()
for k in conv conv_common depthwise_conv depthwise_conv_common pooling pooling_common \
         fully_connected fully_connected_common softmax softmax_common kernel_util; do
  kws_kernel_srcs+=("$M/kernels/$k.cc")
done
# OPTIMIZED_KERNEL_DIR=cmsis_nn: the five ops from kernels/cmsis_nn/ (the
# Makefile's replacement of same-named reference files), the shared files, and
# the CMSIS-NN library (its Makefile include's CMSIS_NN_CC_SRCS, defines and
# include paths).
cmsis_kernel_srcs=()
CMSIS_NN_FLAGS=""
if [ -n "$CMSIS_NN_DIR" ]; then
  for k in conv depthwise_conv pooling fully_connected softmax; do
    cmsis_kernel_srcs+=("$M/kernels/cmsis_nn/$k.cc")
  done
  for k in conv_common depthwise_conv_common pooling_common fully_connected_common \
           softmax_common kernel_util; do
    cmsis_kernel_srcs+=("$M/kernels/$k.cc")
  done
  while IFS= read -r f; do cmsis_kernel_srcs+=("$f"); done < <(
    find "$CMSIS_NN_DIR/Source" -name '*.c' ! -name '*_f16.c' ! -name '*_f32.c' \
      ! -name arm_nntables_flt.c | sort)
  CMSIS_NN_FLAGS="-DCMSIS_NN -DARM_NN_ENABLE_F16=0 -DARM_NN_ENABLE_F32=0 -I$CMSIS_DIR
    -I$CMSIS_NN_DIR -I$CMSIS_DIR/CMSIS/Core/Include -I$CMSIS_NN_DIR/Include"
fi

# --- flags (tools/make/Makefile + targets/cortex_m_generic_makefile.inc) ----
ARCH="-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mthumb -mfloat-abi=hard -mlittle-endian"
COMMON="-fno-unwind-tables -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections
  -fmessage-length=0 -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON
  -fno-rtti -fno-exceptions -fno-threadsafe-statics -std=c++17
  -DKERNELS_OPTIMIZED_FOR_SPEED -DTF_LITE_MCU_DEBUG_LOG -fomit-frame-pointer -DCPU_M4=1 -funsigned-char
  -Wno-type-limits"
INCS="-I. -I$fb/include -I$GEMMLOWP_DIR -I$gen${RUY_DIR:+ -I$RUY_DIR}"
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
    compile "$here/verified_interpreter_footprint.cc" "$d/main/verified.o" -Os $flags
    compile "$mdir/simple_add_model_model_data.cc" "$d/main/model.o" -Os $flags
    for p in baseline interpreter plain verified; do
      extra=""; [ $p != baseline ] && extra="$d/main/model.o"
      $CXX $ARCH -Os $L "$d/main/$p.o" $extra -L"$d" -ltensorflow-microlite -lm $LDFLAGS \
        -Wl,-Map="$d/bin/$p.map" -o "$d/bin/${p}_memory_footprint.elf"
    done
    # the keyword program: one per kernel optimization level, the kernels in
    # their own archive, searched before the framework library
    kws_programs=()
    if [ -n "$KERNEL_OPTS" ]; then
      compile "$mdir/kws_int8_model_data.cc" "$d/main/kws_model.o" -Os $flags
      compile "$mdir/kws_int8_io_data.cc" "$d/main/kws_io.o" -Os $flags
    fi
    # one program per kernel set (KWS_KERNELS) and kernel optimization level;
    # "reference" keeps the names it always had (keyword-O2, keyword-Os)
    for ks in $KWS_KERNELS; do
      [ -n "$KERNEL_OPTS" ] || break
      case $ks in
        reference) tag=""; kf=""; ksrcs=("${kws_kernel_srcs[@]}") ;;
        cmsis_nn) tag="-cmsis_nn"; kf=$CMSIS_NN_FLAGS; ksrcs=("${cmsis_kernel_srcs[@]}") ;;
        *) echo "unknown kernel set $ks (known: reference cmsis_nn)"; exit 1 ;;
      esac
      compile "$here/keyword_footprint.cc" "$d/main/keyword$tag.o" -Os $flags $kf
      for ko in $KERNEL_OPTS; do
        kd="$d/kobj$tag${ko}"
        for s in "${ksrcs[@]}"; do o=${s#"$CMSIS_NN_DIR"/}; echo "$s $kd/${o%.*}.o $ko"; done \
          | FLAGS="$flags $kf" xargs -P "$JOBS" -L 1 bash -c 'compile "$0" "$1" "$2" $FLAGS'
        $AR -rcs "$d/libkws-kernels$tag${ko}.a" $(find "$kd" -name '*.o' | sort)
        p="keyword$tag${ko}"
        $CXX $ARCH -Os $L "$d/main/keyword$tag.o" "$d/main/kws_model.o" "$d/main/kws_io.o" \
          -L"$d" -lkws-kernels$tag${ko} -ltensorflow-microlite -lm $LDFLAGS \
          -Wl,-Map="$d/bin/$p.map" -o "$d/bin/${p}_memory_footprint.elf"
        kws_programs+=("$p")
      done
      # optional: the same program printing its scores and counting the
      # instructions of Invoke(), run under QEMU
      if [ "$QEMU" = 1 ] && [ "$bt $lto" = "release nolto" ]; then
        ko=${KERNEL_OPTS%% *}
        compile "$here/keyword_footprint.cc" "$d/main/keyword_print$tag.o" -Os $flags $kf \
          -DKWS_PRINT -DKWS_COUNT
        compile "$here/qemu_start.c" "$d/main/qemu_start.o" -Os $flags
        q="$d/bin/keyword$tag${ko}_qemu.elf"
        $CXX $ARCH -Os "$d/main/qemu_start.o" "$d/main/keyword_print$tag.o" "$d/main/kws_model.o" \
          "$d/main/kws_io.o" -L"$d" -lkws-kernels$tag${ko} -ltensorflow-microlite -lm \
          --specs=nano.specs --specs=rdimon.specs -Wl,--gc-sections \
          -Wl,--undefined=qemu_vectors -Wl,--section-start=.qemu_vectors=0 -o "$q"
        echo "== running $(basename "$q") under QEMU (mps2-an386, Cortex-M4, -icount shift=0)"
        timeout 300 "${QEMU_SYSTEM_ARM:-qemu-system-arm}" -machine mps2-an386 -cpu cortex-m4 \
          -icount shift=0 -semihosting-config enable=on,target=native -nographic -monitor none \
          -kernel "$q" | tee "$d/bin/qemu$tag.log"
        grep -qx MATCH "$d/bin/qemu$tag.log" || { echo "QEMU run: output differs or run failed"; exit 1; }
      fi
    done
    results+=("$bt $lto $d ${kws_programs[*]}")
  done
done

# --- report ----------------------------------------------------------------
sec() { $SIZE -A "$1" | awk -v s="$2" '$1==s {print $2; f=1} END {if (!f) print 0}'; }
# nm -S lines as "decimal-size<TAB>type<TAB>demangled name<TAB>address"
syms() {
  $NM -C -S --size-sort "$1" | awk '
    function h(x,  i, n) { n = 0; x = tolower(x)
      for (i = 1; i <= length(x); i++) n = n * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
      return n }
    { a = $1; sz = $2; t = $3; $1 = $2 = $3 = ""; sub(/^ +/, ""); print h(sz) "\t" t "\t" $0 "\t" a }'
}
# new_syms OLD NEW: the symbols of NEW whose name is not in OLD, largest first
new_syms() {
  awk -F '\t' 'NR == FNR { old[$3] = 1; next } !($3 in old) { printf "%7d %s %s\n", $1, $2, $3 }' \
    <(syms "$1") <(syms "$2") | sort -rn
}
# new_syms_total OLD NEW: how many such symbols, and the sum of their sizes
# counting each address once (GCC's identical code folding gives identical
# [clone .part.0] functions one body under several names)
new_syms_total() {
  awk -F '\t' 'NR == FNR { old[$3] = 1; next }
    !($3 in old) { n++; if (!($4 in seen)) { seen[$4] = 1; a++; s += $1 } }
    END { printf "%d names at %d addresses, %d bytes\n", n, a, s }' <(syms "$1") <(syms "$2")
}
main_size() { syms "$1" | awk -F '\t' '$3 == "main" { print $1 }'; }
for r in "${results[@]}"; do
  set -- $r; d=$3; kws=("${@:4}")
  echo
  echo "### BUILD_TYPE=$1, $2"
  printf '%-34s %8s %8s %8s %8s\n' program .text .rodata .data .bss
  for p in baseline interpreter plain verified "${kws[@]}"; do
    e="$d/bin/${p}_memory_footprint.elf"
    printf '%-34s %8d %8d %8d %8d\n' "${p}_memory_footprint" \
      "$(sec "$e" .text)" "$(sec "$e" .rodata)" "$(sec "$e" .data)" "$(sec "$e" .bss)"
  done
  b="$d/bin/baseline_memory_footprint.elf"
  for p in interpreter plain verified; do
    e="$d/bin/${p}_memory_footprint.elf"
    dt=$(( $(sec "$e" .text) - $(sec "$b" .text) ))
    dr=$(( $(sec "$e" .rodata) - $(sec "$b" .rodata) ))
    printf '%-34s %8d %8d   (text+rodata %d)\n' "framework ($p - baseline)" "$dt" "$dr" $((dt + dr))
  done
  e="$d/bin/verified_memory_footprint.elf"; pl="$d/bin/plain_memory_footprint.elf"
  dt=$(( $(sec "$e" .text) - $(sec "$pl" .text) ))
  dr=$(( $(sec "$e" .rodata) - $(sec "$pl" .rodata) ))
  printf '%-34s %8d %8d   (text+rodata %d)\n' "verifier (verified - plain)" "$dt" "$dr" $((dt + dr))
  echo "(.rodata of the interpreter, plain and verified programs includes the $(wc -c < "$tfl")-byte model flatbuffer)"
  for p in "${kws[@]}"; do
    e="$d/bin/${p}_memory_footprint.elf"
    dt=$(( $(sec "$e" .text) - $(sec "$b" .text) ))
    dr=$(( $(sec "$e" .rodata) - $(sec "$b" .rodata) ))
    printf '%-34s %8d %8d   (text+rodata %d; .rodata without the model %d; text+rodata without it %d)\n' \
      "$p - baseline" "$dt" "$dr" $((dt + dr)) $((dr - kws_model_size)) $((dt + dr - kws_model_size))
  done
  if [ ${#kws[@]} -gt 0 ]; then
    echo "(.rodata of the keyword programs includes the $kws_model_size-byte model, the $(( $(wc -c < "$KWS_INPUT") - in_off ))-byte input and the $(( $(wc -c < "$KWS_REF") - ref_off ))-byte expected output)"
  fi
  echo "Berkeley:"
  $SIZE "$d"/bin/*.elf | sed "s|$d/bin/||"
  if [ "${TOP:-0}" -gt 0 ]; then
    echo "largest symbols of interpreter_memory_footprint.elf (address size type name):"
    $NM -C -S --size-sort "$d/bin/interpreter_memory_footprint.elf" | tail -n "$TOP" | tac
    echo "largest symbols of verified_memory_footprint.elf not in plain_memory_footprint.elf (decimal size, type, name; compared by name):"
    # (awk, not head: head would close the pipe early, and pipefail would stop the script on sort's SIGPIPE)
    new_syms "$d/bin/plain_memory_footprint.elf" "$d/bin/verified_memory_footprint.elf" | awk -v n="$TOP" 'NR <= n'
    echo "all of them: $(new_syms_total "$d/bin/plain_memory_footprint.elf" "$d/bin/verified_memory_footprint.elf")"
    echo "main: $(main_size "$d/bin/plain_memory_footprint.elf") bytes in plain, $(main_size "$d/bin/verified_memory_footprint.elf") in verified"
    for p in "${kws[@]}"; do
      echo "largest symbols of ${p}_memory_footprint.elf (address size type name):"
      $NM -C -S --size-sort "$d/bin/${p}_memory_footprint.elf" | tail -n "$TOP" | tac
    done
  fi
done
