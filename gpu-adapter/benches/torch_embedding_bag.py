"""PyTorch's peer of benches/embedding_bag.rs: torch.nn.functional.embedding_bag with
offsets, sum and mean, 26 slots, widths 16/64/128, batches of 1 024 to 65 536 samples, on
the same data (the formulas of benches/support/mod.rs, repeated below) and the same GPU.

    python3 gpu-adapter/benches/torch_embedding_bag.py [--check]

Prints one line per case: milliseconds per call (median of CUDA-event timings) and the GB/s
of the same byte count criterion uses (table rows read + output written + offsets + keys).
--check also compares a small case with tessera's formulas for the expected sums.
Without CUDA it prints why and exits 0.
"""

import sys

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
    return (((k * 31 + j) % 1000).to(torch.float32) / 1000.0) - 0.5


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
                times = []
                for _ in range(50):
                    start = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)
                    start.record()
                    call()
                    end.record()
                    end.synchronize()
                    times.append(start.elapsed_time(end))
                times.sort()
                ms = times[len(times) // 2]
                print(f"torch {mode}/dim{dim}/batch{samples}: {ms:.4f} ms, {moved / ms / 1e6:.1f} GB/s")
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
