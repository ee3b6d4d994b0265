#!/usr/bin/env bash
# Runs tessera-gpu's GPU checks where there is an NVIDIA GPU, CUDA and Python (PyTorch for the
# comparison) but no Rust, from the binaries `build.sh` made. Each step has its own time
# limit; a failing step is reported and the others still run. The log goes to stdout and to
# $OUT/gpu-check.log (OUT defaults to /tmp/gpu-check).
#
#   bash gpu-adapter/device/check.sh [DIR]
set -u
bin=${1:-.gpu-bin}
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
exec > >(tee "$out/gpu-check.log") 2>&1
export PYTHONUNBUFFERED=1

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory \
  --format=csv
. "$(dirname "$0")/nvrtc.sh"

failed=()
step() {
  local limit=$1 name=$2
  shift 2
  echo
  echo "=== $name"
  local t0=$SECONDS
  timeout "$limit" "$@"
  local status=$?
  echo "=== $name: status $status, $((SECONDS - t0)) s"
  [ "$status" -eq 0 ] || failed+=("$name ($status)")
}

for t in "$bin"/test-*; do
  step 120 "$(basename "$t")" "$t" --test-threads=1 --nocapture
done
step 120 "example (Norm file -> cursor set -> ring -> device -> pooled, against the CPU)" \
  "$bin/example-embedding_bag"
step 300 "example (Norm file -> workers -> pinned slots -> 26 tables, one launch a batch)" \
  "$bin/example-table_batched"
export TESSERA_GPU_TABLE_ONLY=1
step 150 "bench embedding_bag (tessera)" "$bin/bench-embedding_bag"
step 150 "bench embedding_bag (PyTorch)" python3 "$bin/torch_embedding_bag.py" --check
step 150 "bench upload" "$bin/bench-upload"
step 400 "bench table_batched (26 tables beyond L2, uniform and Zipf keys)" "$bin/bench-table_batched"
if command -v compute-sanitizer >/dev/null; then
  step 180 "compute-sanitizer memcheck: GPU tests" \
    compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/test-gpu" --test-threads=1
  step 180 "compute-sanitizer memcheck: table-batched and zero-copy GPU tests" \
    bash -c 'for t in "$0"/test-gpu_table_batched "$0"/test-gpu_zero_copy; do
      compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1 || exit $?; done' "$bin"
fi

echo
if [ ${#failed[@]} -eq 0 ]; then
  echo "all GPU checks passed"
else
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
