"""PyTorch's peer of benches/embedding_bag.rs: torch.nn.functional.embedding_bag with
offsets, sum and mean, 26 slots, widths 16/64/128, batches of 1 024 to 65 536 samples, on
the same data (the formulas of benches/support/mod.rs, repeated below) and the same GPU.

    python3 gpu-adapter/benches/torch_embedding_bag.py [--check]

Prints one line per case, timed as benches/embedding_bag.rs times tessera: the median of 50
calls after 10 warm-ups of the device time (CUDA events around the call) and of the wall
time (the call and torch.cuda.synchronize()), the GB/s of the same byte count (table rows
read + output written + offsets + keys) over the device time, and for batch 1 024 the sum of
the output (the Rust bench prints the same checksum for the same data).
--check also compares a small case with tessera's formulas for the expected sums.
Without CUDA it prints why and exits 0.
"""

import sys
import time

VOCAB = 100_000
SLOTS = 26


def batch(samples, device, torch):
    rows = samples * SLOTS
    r = torch.arange(rows, dtype=torch.int64, device=device)
    lens = 1 + r % 4
    offsets = torch.zeros(rows + 1, dtype=torch.int64, device=device)
    offsets[1:] = torch.cumsum(lens, 0)
    nnz = int(offsets[-1])
    row_of_key = torch.repeat_interleave(r, lens)
    position = torch.arange(nnz, device=device) - offsets[:-1][row_of_key]
    keys = (row_of_key * 2_654_435_761 + position * 40_503) % VOCAB
    # tessera's kernel reads u32 keys; PyTorch wants int32 or int64 indices.
    return keys.to(torch.int32), offsets[:-1].to(torch.int32), nnz


def table(dim, device, torch):
    k = torch.arange(VOCAB, device=device).unsqueeze(1)
    j = torch.arange(dim, device=device).unsqueeze(0)
    # As Rust computes it: an f32 quotient (correctly rounded: PyTorch's float32 division by
    # a scalar multiplies by its reciprocal, one ulp off for many entries), then an f32
    # subtraction.
    q = (((k * 31 + j) % 1000).to(torch.float64) / 1000.0).to(torch.float32)
    return q - 0.5


def main():
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        print(f"skipped: PyTorch is not installed ({e})")
        return 0
    if not torch.cuda.is_available():
        print("skipped: no CUDA driver/device (torch.cuda.is_available() is False)")
        return 0
    device = torch.device("cuda")
    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    for dim in (16, 64, 128):
        weight = table(dim, device, torch)
        for samples in (1024, 4096, 16384, 65536):
            keys, offsets, nnz = batch(samples, device, torch)
            rows = samples * SLOTS
            moved = nnz * dim * 4 + rows * dim * 4 + (rows + 1) * 4 + nnz * 4
            for mode in ("sum", "mean"):
                def call():
                    return F.embedding_bag(keys, weight, offsets, mode=mode)
                for _ in range(10):
                    call()
                torch.cuda.synchronize()
                device_ms, wall_ms = [], []
                for _ in range(50):
                    start = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)
                    t = time.perf_counter()
                    start.record()
                    out = call()
                    end.record()
                    torch.cuda.synchronize()
                    wall_ms.append((time.perf_counter() - t) * 1e3)
                    device_ms.append(start.elapsed_time(end))
                device_ms.sort()
                wall_ms.sort()
                ms = device_ms[len(device_ms) // 2]
                wall = wall_ms[len(wall_ms) // 2]
                check = ""
                if samples == 1024:
                    check = f", checksum {out.double().sum().item():.6e}"
                print(
                    f"torch {mode}/dim{dim}/batch{samples}: device {ms:.4f} ms, "
                    f"wall {wall:.4f} ms, {moved / ms / 1e6:.1f} GB/s{check}"
                )
    if "--check" in sys.argv:
        keys, offsets, _ = batch(2, device, torch)
        out = F.embedding_bag(keys, table(4, device, torch), offsets, mode="sum")
        # Row 0 has one key, 0: table row 0 is (j % 1000) / 1000 - 0.5.
        expected = torch.tensor([-0.5, -0.499, -0.498, -0.497], device=device)
        assert torch.allclose(out[0], expected), out[0]
        print("check: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
