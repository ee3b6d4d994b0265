#!/usr/bin/env python3
"""LiteRT's and TensorFlow Lite Micro's latency per invoke on tessera's fixture models: the peer
numbers for issues 15 and 16's criterion benches (`BENCHMARKS.md` gives the ratios).

    venv/bin/pip install -r tests/fixtures/models/requirements-dev.txt
    venv/bin/python tests/benches/litert_latency.py [--seconds S] [NAME ...]

LiteRT: `ai_edge_litert.interpreter.Interpreter(model_path, experimental_op_resolver_type=
BUILTIN_WITHOUT_DEFAULT_DELEGATES, num_threads=1)`, the reference inputs
(`tests/fixtures/models/NAME.in{K}.npy`) set once, then `invoke()` timed in a loop: a run is N
invokes timed with `time.perf_counter_ns` (N chosen so a run lasts about 20 ms), and the table
gives the median and the minimum over runs of ns per invoke, loop included (the ratio column
uses the minima: on a shared machine the median moves with other work, the minimum much less). The loop's own
cost is measured the same way and printed separately (an empty `for` loop, and a loop calling a
no-op Python method, the cost of one Python call), so it can be subtracted; the column `Invoke min`
times the C++ wrapper's `Invoke` directly, without the Python `invoke()` method's checks.

TFLM: `tflite_micro.runtime.Interpreter.from_bytes(model, arena_size=4 MiB)` for the models it
runs (it refuses string tensors, DENSIFY, SELECT...); `invoke()` timed the same way. TFLM's
planner lets later tensors reuse an input's memory once it is consumed, so a second `invoke()`
without setting the inputs again reads garbage (and can fail: a GATHER index out of range).
Where that happens the script times `set_input` + `invoke()` and `set_input` alone and reports
the difference. A model it refuses shows the first line of its error.
"""

import argparse
import glob
import os
import statistics
import sys
import time

import numpy as np
from ai_edge_litert import interpreter as litert

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "models")
RUN_NS = 20_000_000  # one timed run lasts about 20 ms


def load_inputs(name):
    ins, k = [], 0
    while os.path.exists(os.path.join(FIXTURES, f"{name}.in{k}.npy")):
        ins.append(np.load(os.path.join(FIXTURES, f"{name}.in{k}.npy")))
        k += 1
    return ins


def timed(fn, seconds):
    """(median, min) ns per call of `fn` over runs of n calls, for about `seconds` in all."""
    n = 1
    while True:  # calibrate n so one run lasts about RUN_NS
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        dt = time.perf_counter_ns() - t0
        if dt >= RUN_NS // 4 or n >= 1 << 24:
            break
        n *= 2
    n = max(1, int(n * RUN_NS / max(dt, 1)))
    per = []
    deadline = time.perf_counter() + seconds
    while len(per) < 5 or time.perf_counter() < deadline:
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        per.append((time.perf_counter_ns() - t0) / n)
    return statistics.median(per), min(per)


def empty_loop(seconds):
    """ns per iteration of `for _ in range(n): pass` (median over runs)."""
    n = 1 << 20
    per = []
    deadline = time.perf_counter() + seconds
    while len(per) < 5 or time.perf_counter() < deadline:
        t0 = time.perf_counter_ns()
        for _ in range(n):
            pass
        per.append((time.perf_counter_ns() - t0) / n)
    return statistics.median(per)


class _Noop:
    def call(self):
        pass


def litert_interpreter(path, inputs):
    it = litert.Interpreter(
        model_path=path,
        experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
        num_threads=1,
    )
    it.allocate_tensors()
    for d, x in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], x)
    return it


def litert_setup_ns(path, inputs):
    """Median ns to construct + allocate_tensors (+ set inputs), over 5 runs."""
    per = []
    for _ in range(5):
        t0 = time.perf_counter_ns()
        litert_interpreter(path, inputs)
        per.append(time.perf_counter_ns() - t0)
    return statistics.median(per)


def tflm_timing(model, inputs, n_outputs, seconds):
    from tflite_micro import runtime

    if any(x.dtype.kind in "SO" for x in inputs):
        return None, "string tensors"
    import tempfile

    saved = os.dup(2)  # TFLM's error reporter prints to stderr: keep it for the note
    log = tempfile.TemporaryFile()
    os.dup2(log.fileno(), 2)
    try:
        it = runtime.Interpreter.from_bytes(model, arena_size=4 << 20)
        for k, x in enumerate(inputs):
            it.set_input(x, k)
        it.invoke()
        first = [it.get_output(j).copy() for j in range(n_outputs)]
        # TFLM's planner may reuse an input's memory once the input is consumed, so a second
        # invoke without setting the inputs again can fail or differ: then time both together.
        try:
            it.invoke()
            again = [it.get_output(j) for j in range(n_outputs)]
            reuse = all(np.array_equal(a, b) for a, b in zip(first, again))
        except Exception:
            reuse = False
    except Exception as e:
        os.dup2(saved, 2)
        log.seek(0)
        printed = [ln.strip() for ln in log.read().decode(errors="replace").splitlines() if ln.strip()]
        return None, ((str(e).strip().splitlines() or [type(e).__name__])[0] + " [" + " | ".join(printed[:2]) + "]")
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        log.close()
    if reuse:
        return timed(it.invoke, seconds), None

    def set_inputs():
        for k, x in enumerate(inputs):
            it.set_input(x, k)

    def set_and_invoke():
        set_inputs()
        it.invoke()

    # invoke alone = (set_input + invoke) - set_input, each a median over runs.
    both, both_min = timed(set_and_invoke, seconds)
    sets, sets_min = timed(set_inputs, seconds)
    return (both - sets, both_min - sets_min), "TFLM reuses input memory: (set_input + invoke) - set_input"


def fmt(ns):
    return f"{ns:>11,.0f}" if ns is not None else f"{'-':>11}"


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args(argv)
    names = args.names or sorted(os.path.basename(p)[:-7] for p in glob.glob(os.path.join(FIXTURES, "*.tflite")))

    loop = empty_loop(args.seconds)
    noop = timed(_Noop().call, args.seconds)[0]
    from importlib.metadata import version

    print(
        f"ai-edge-litert {version('ai-edge-litert')}, tflite-micro {version('tflite-micro')},"
        f" Python {sys.version.split()[0]}, one thread"
    )
    print(f"loop cost: empty for-loop {loop:.1f} ns/iteration; loop calling a no-op method {noop:.1f} ns/iteration")
    print("ns per invoke over runs of ~20 ms, median and min (min is the steadier figure on a busy")
    print("machine); loop cost included (subtract the above); setup = construct + allocate_tensors")
    print(
        f"{'model':<20} {'LiteRT med':>11} {'LiteRT min':>11} {'Invoke min':>11} {'setup':>11}"
        f" {'TFLM med':>11} {'TFLM min':>11} {'TFLM/LiteRT':>11}  note"
    )
    for name in names:
        path = os.path.join(FIXTURES, name + ".tflite")
        inputs = load_inputs(name)
        it = litert_interpreter(path, inputs)
        med, mn = timed(it.invoke, args.seconds)
        raw = timed(it._interpreter.Invoke, args.seconds)[1]
        setup = litert_setup_ns(path, inputs)
        with open(path, "rb") as f:
            model = f.read()
        tflm, why = tflm_timing(model, inputs, len(it.get_output_details()), args.seconds)
        ratio = f"{tflm[1] / mn:>11.2f}" if tflm else f"{'-':>11}"
        note = (f"TFLM refuses: {why}" if tflm is None else why) if why else ""
        print(
            f"{name:<20} {med:>11,.0f} {mn:>11,.0f} {fmt(raw)} {fmt(setup)}"
            f" {fmt(tflm[0] if tflm else None)} {fmt(tflm[1] if tflm else None)} {ratio}  {note}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
