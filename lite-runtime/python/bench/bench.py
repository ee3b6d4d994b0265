"""The Python package's figures in BENCHMARKS.md, measured side by side in one run.

    python lite-runtime/python/bench/bench.py [--quick]

from the repository's root, with tessera and ai-edge-litert installed and the release CLI
built (`cargo build --release -p tessera-cli`). It prints a Markdown table:

1. `invoke()` per call from Python on tiny models: tessera against LiteRT (its default
   XNNPACK path, and its builtin kernels without delegates), the inputs set once.
2. Batches per second from a Norm file into numpy: tessera.data (the cursor set's workers)
   against a plain numpy reader of the same file (a Python loop over the records,
   `np.frombuffer` per field, checksums checked as tessera checks them), and the rows per
   second of the Rust cursor set itself on the same plan, workers and batches, its batches
   read in place in Rust (`tessera._tessera._cursor_set_pass`), with `tessera dataset
   read`'s figure beside it (which also hashes every row on its consumer thread).

Each figure is the best of several repeats (the machine is shared); the two data passes
alternate.
"""

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import tessera

REPO = Path(__file__).resolve().parents[3]
QUICK = "--quick" in sys.argv
DEMO = REPO / "lite-runtime" / "cli" / "demo" / "demo.norm"
BATCH = 1024


def best(f, repeats):
    """The best of `repeats` timings of `f()` (seconds)."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def per_invoke(it, calls):
    def run():
        invoke = it.invoke
        for _ in range(calls):
            invoke()

    run()  # warm up
    return best(run, 5) / calls


def invoke_rows():
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    rows = []
    models = [
        ("ADD, float32 [2, 3, 4] (ops/add/00)", REPO / "tests/fixtures/ops/add/00.tflite"),
        ("int8_dense (FC x2, softmax; 3 KB)", REPO / "tests/fixtures/models/int8_dense.tflite"),
        ("kws_int8 (9 ops, 10 KB)", REPO / "tests/fixtures/models/kws_int8.tflite"),
    ]
    calls = 2_000 if QUICK else 20_000
    for name, path in models:
        its = {
            "tessera": tessera.Interpreter(model_path=str(path)),
            "LiteRT (default, XNNPACK)": Interpreter(model_path=str(path), num_threads=1),
            "LiteRT (builtin kernels)": Interpreter(
                model_path=str(path),
                num_threads=1,
                experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
            ),
        }
        for it in its.values():
            it.allocate_tensors()
            for d in it.get_input_details():
                it.set_tensor(d["index"], np.ones(d["shape"], d["dtype"]))
        n = calls if "kws" not in name else calls // 10
        us = {k: per_invoke(it, n) * 1e6 for k, it in its.items()}
        rows.append((name, us))
    return rows


# ------------------------------------------------------------------------------ the data path


def records(data: bytes):
    """The framed records of a checksummed Norm file: (header, [record bytes])."""
    at, out = 0, []
    while at < len(data):
        n = int.from_bytes(data[at : at + 4], "little", signed=True)
        out.append(data[at : at + 4 + n + 1])
        at += 4 + n + 1
    return out[0], out[1:]


def big_norm(path: Path, copies: int) -> int:
    """demo.norm's records `copies` times over (checksummed, 1 label, 13 dense, 26 slots)."""
    header, recs = records(DEMO.read_bytes())
    payload = bytearray(header[4:-1])
    rows = len(recs) * copies
    payload[8:16] = rows.to_bytes(8, "little")
    head = header[:4] + bytes(payload) + bytes([sum(payload) & 0xFF])
    body = b"".join(recs)
    with open(path, "wb") as f:
        f.write(head)
        for _ in range(copies):
            f.write(body)
    return rows


def numpy_pass(path: Path) -> int:
    """A plain numpy reader, as a Python user writes one: the file mapped, a Python loop over
    the framed records, each field by `np.frombuffer`, each record's checksum checked (as
    tessera checks it), the same arrays as tessera's batches (labels, dense, row offsets,
    keys) a batch of 1 024 at a time; the rows read. (`tests/benches/norm_numpy.py`, the data
    path's numpy reference, reads HugeCTR's header layout; this one reads the framed header
    tessera's Norm writer makes, as in demo.norm.)"""
    data = np.memmap(path, dtype=np.uint8, mode="r")
    buf = memoryview(data)
    head = int(np.frombuffer(buf, np.int32, 1, 0)[0])
    hdr = np.frombuffer(buf, np.int64, 8, 4)
    rows, label, dense, slots = int(hdr[1]), int(hdr[2]), int(hdr[3]), int(hdr[4])
    at = 4 + head + 1
    ld = label + dense
    done = 0
    for start in range(0, rows, BATCH):
        n = min(BATCH, rows - start)
        lds = np.empty((n, ld), np.float32)
        offsets = np.zeros(n * slots + 1, np.uint32)
        keys = []
        k = 0
        for s in range(n):
            size = int(np.frombuffer(buf, np.int32, 1, at)[0])
            payload = np.frombuffer(buf, np.uint8, size, at + 4)
            if int(payload.sum(dtype=np.uint64)) & 0xFF != data[at + 4 + size]:
                raise ValueError("checksum")
            lds[s] = np.frombuffer(buf, np.float32, ld, at + 4)
            p = at + 4 + 4 * ld
            for slot in range(slots):
                nnz = int(np.frombuffer(buf, np.int32, 1, p)[0])
                keys.append(np.frombuffer(buf, np.uint32, nnz, p + 4))
                p += 4 + 4 * nnz
                k += nnz
                offsets[s * slots + slot + 1] = k
            at += 4 + size + 1
        batch = (lds[:, :label], lds[:, label:], offsets, np.concatenate(keys))
        done += len(batch[0])
    return done


def rust_rows_per_second(path: Path, workers: int) -> float:
    exe = REPO / "target" / "release" / "tessera"
    out = subprocess.run(
        [str(exe), "dataset", "read", str(path), "--workers", str(workers)],
        check=True, capture_output=True, text=True,
    ).stdout
    return float(re.search(r"([0-9.]+) rows/s", out).group(1))


def data_rows(path: Path, rows: int, batch_size: int, workers: int):
    def tessera_pass():
        n = 0
        for b in tessera.data.Dataset(path, batch_size=batch_size, workers=workers):
            n += len(b.labels)
        assert n == rows

    # The tessera.data and Rust passes alternate, so that both see the same moments of a
    # shared machine; each figure is its best pass.
    repeats = 3 if QUICK else 9
    t_tessera, rust = float("inf"), 0.0
    for _ in range(repeats):
        t_tessera = min(t_tessera, best(tessera_pass, 1))
        n, seconds = tessera._tessera._cursor_set_pass([str(path)], "norm", batch_size=batch_size,
                                                       workers=workers)
        assert n == rows
        rust = max(rust, n / seconds)
    t_numpy = best(lambda: numpy_pass(path), 1 if QUICK else 2)
    cli = max(rust_rows_per_second(path, workers) for _ in range(repeats))
    return {
        "tessera.data rows/s": rows / t_tessera,
        "tessera.data batches/s": rows / t_tessera / batch_size,
        "numpy batches/s": rows / t_numpy / batch_size,
        "Rust cursor set rows/s": rust,
        "tessera dataset read rows/s": cli,
    }


def main():
    print("tessera %s, numpy %s, Python %s, %d CPUs" % (
        tessera.__version__, np.__version__, sys.version.split()[0], os.cpu_count()))
    print()
    print("| model | tessera µs/invoke | LiteRT (XNNPACK) µs | LiteRT (builtin) µs | tessera / LiteRT |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, us in invoke_rows():
        t, x, b = us["tessera"], us["LiteRT (default, XNNPACK)"], us["LiteRT (builtin kernels)"]
        print("| %s | %.2f | %.2f | %.2f | %.2fx |" % (name, t, x, b, t / x))
    print()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "big.norm"
        copies = 5 if QUICK else 40
        rows = big_norm(path, copies)
        size = path.stat().st_size
        print("Norm file: demo.norm's records x%d: %d rows, %.1f MB, checksummed; batch 1024"
              % (copies, rows, size / 1e6))
        print()
        print("| workers | tessera.data batches/s | numpy reader batches/s | tessera / numpy | "
              "tessera.data rows/s | Rust cursor set rows/s | tessera.data / Rust | "
              "`tessera dataset read` rows/s |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for workers in (1, 2):
            r = data_rows(path, rows, BATCH, workers)
            print("| %d | %.0f | %.1f | %.0fx | %.3g | %.3g | %.2f | %.3g |" % (
                workers, r["tessera.data batches/s"], r["numpy batches/s"],
                r["tessera.data batches/s"] / r["numpy batches/s"],
                r["tessera.data rows/s"], r["Rust cursor set rows/s"],
                r["tessera.data rows/s"] / r["Rust cursor set rows/s"],
                r["tessera dataset read rows/s"]))


if __name__ == "__main__":
    main()
