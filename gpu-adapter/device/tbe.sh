#!/usr/bin/env bash
# Issue 33's GPU run, inside one time budget (the device tool lends minutes, not hours): the
# table-batched and zero-copy GPU tests, the DRAM-bound table-batched bench (both kernels)
# with PyTorch on the same batches, the end-to-end example per row type, compute-sanitizer
# over the new tests, then the older GPU tests. Steps run in that order, each cut to the
# time left; the log goes to stdout and to $OUT/tbe.log (OUT defaults to /tmp/gpu-check).
#
#   bash gpu-adapter/device/tbe.sh [DIR [SECONDS]]     # DIR from build.sh; SECONDS default 450
set -u
bin=${1:-.gpu-bin}
budget=${2:-450}
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
exec > >(tee "$out/tbe.log") 2>&1
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory \
  --format=csv
python3 -c 'import fbgemm_gpu' 2>/dev/null && echo "fbgemm_gpu: installed" ||
  echo "fbgemm_gpu: not installed"
. "$(dirname "$0")/nvrtc.sh"

failed=()
step() {
  local limit=$1 name=$2
  shift 2
  local left=$((budget - SECONDS))
  [ "$left" -lt "$limit" ] && limit=$left
  echo
  if [ "$limit" -le 5 ]; then
    echo "=== $name: not run (budget spent)"
    failed+=("$name (not run)")
    return
  fi
  echo "=== $name (limit $limit s)"
  local t0=$SECONDS
  timeout "$limit" "$@"
  local status=$?
  echo "=== $name: status $status, $((SECONDS - t0)) s"
  [ "$status" -eq 0 ] || failed+=("$name ($status)")
}

step 90 "test gpu_table_batched" "$bin/test-gpu_table_batched" --test-threads=1 --nocapture
step 60 "test gpu_zero_copy" "$bin/test-gpu_zero_copy" --test-threads=1 --nocapture
rm -rf /tmp/tbe-dump
step 200 "bench table_batched (DRAM-bound, both kernels)" \
  env TESSERA_TBE_DUMP=/tmp/tbe-dump "$bin/bench-table_batched"
step 120 "PyTorch embedding_bag on the same batches" \
  python3 "$bin/torch_table_batched.py" /tmp/tbe-dump
for ty in f32 f16 int8; do
  step 60 "example table_batched $ty, 8 workers" "$bin/example-table_batched" - 8 "$ty"
done
if command -v compute-sanitizer >/dev/null; then
  for t in gpu_table_batched gpu_zero_copy; do
    step 150 "compute-sanitizer memcheck: $t" \
      compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/test-$t" --test-threads=1
  done
else
  echo "compute-sanitizer: not found"
fi
for t in "$bin"/test-*; do
  case $t in *gpu_table_batched | *gpu_zero_copy) continue ;; esac
  step 60 "$(basename "$t")" "$t" --test-threads=1
done
step 60 "example table_batched f32, 16 workers" "$bin/example-table_batched" - 16 f32

echo
if [ ${#failed[@]} -eq 0 ]; then
  echo "all steps passed ($SECONDS s)"
else
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
