"""PyTorch's peer of benches/table_batched.rs on the same batches: the bench, run with
TESSERA_TBE_DUMP=DIR, writes each f32 and f16 case's CSR batch (26 slots) with its tables'
row counts and each slot's table there; this script builds the same tables' shapes as one
concatenated weight (PyTorch's embedding_bag reads one table, so each slot's keys are
offset by its table's first row: one launch a batch, as tessera's) and times
torch.nn.functional.embedding_bag(mode="sum") on the same keys.

    python3 gpu-adapter/benches/torch_table_batched.py DIR

Timed as benches/support/timing.rs times tessera: the median of 50 calls after 10 warm-ups
of the device time (CUDA events around the call). GB/s counts the table rows read (one row
per key), as the bench does. int8 rowwise rows are not compared: PyTorch's fused 8-bit
rowwise bag runs on the CPU only; on the GPU it comes with FBGEMM-GPU (fbgemm_gpu), which
this script uses where it is installed and says so where it is not.
Without CUDA it prints why and exits 0.
"""

import glob
import itertools
import json
import os
import sys


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        print(f"skipped: PyTorch is not installed ({e})")
        return 0
    if not torch.cuda.is_available():
        print("skipped: no CUDA driver/device (torch.cuda.is_available() is False)")
        return 0
    try:
        import fbgemm_gpu  # noqa: F401

        print("fbgemm_gpu is installed: its TBE is not timed by this script yet")
    except ImportError:
        print("fbgemm_gpu is not installed: no FBGEMM TBE comparison")
    device = torch.device("cuda")
    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    weights = {}
    for meta_path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
        name = os.path.basename(meta_path)[:-5]
        with open(meta_path) as f:
            meta = json.load(f)
        rows, width, ty = meta["rows"], meta["width"], meta["type"]
        slot_tables = meta["slot_tables"]
        dtype = {"f32": torch.float32, "f16": torch.float16}.get(ty)
        if dtype is None:
            print(f"{name}: row type {ty} skipped")  # the bench dumps only f32 and f16
            continue
        key = (tuple(rows), width, ty)
        if key not in weights:
            weights.clear()
            torch.cuda.empty_cache()
            weights[key] = torch.rand(sum(rows), width, device=device).to(dtype)
        weight = weights[key]
        first = list(itertools.accumulate([0] + rows[:-1]))
        base = torch.tensor([first[t] for t in slot_tables], dtype=torch.int64, device=device)

        def u32s(ext):
            # Little-endian u32 below 2^31 (offsets and keys of these tables): as int32.
            with open(os.path.join(sys.argv[1], f"{name}.{ext}"), "rb") as f:
                data = bytearray(f.read())
            return torch.frombuffer(data, dtype=torch.int32).to(torch.int64).to(device)

        offsets, keys = u32s("offsets"), u32s("keys")
        csr_rows = offsets.numel() - 1
        lens = offsets[1:] - offsets[:-1]
        slots = len(slot_tables)
        slot = torch.repeat_interleave(torch.arange(csr_rows, device=device) % slots, lens)
        keys = keys + base[slot]
        starts = offsets[:-1].contiguous()
        row_bytes = width * (4 if ty == "f32" else 2)
        read = keys.numel() * row_bytes

        def call():
            return F.embedding_bag(keys, weight, starts, mode="sum")

        for _ in range(10):
            call()
        torch.cuda.synchronize()
        times = []
        for _ in range(50):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        times.sort()
        ms = times[len(times) // 2]
        samples = csr_rows // slots
        print(
            f"torch {name}: device {ms:.4f} ms, {samples / ms / 1e3:.0f} M samples/s, "
            f"rows read {read / ms / 1e6:.0f} GB/s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
