"""The same inputs through LiteRT's Python package and tessera's (when ``ai-edge-litert`` is
installed; CI installs it): quantized and integer outputs bit for bit against LiteRT's
reference kernels (``BUILTIN_REF``), float outputs within max(4 x the spread between LiteRT's
reference kernels and its default XNNPACK ones, 1e-5 x the output's largest magnitude), the
conformance rule of the Rust sweeps.

Where LiteRT's own kernels disagree on an integer output (its reference and its optimized
builtin kernels: ``ops_int8`` and ``ops_int16`` by 1 in places, as the fixtures' README says;
int8 / int16 SUM, whose ``BUILTIN_REF`` kernel in ai-edge-litert 2.3 gives what its builtin
kernel and the stored sweep references do not), tessera must equal one of the two; where
``BUILTIN_REF`` has no kernel (CEIL, ROUND, ELU), the builtin kernel is the reference, as
``make_sweeps.py`` takes it."""

from pathlib import Path

import numpy as np
import pytest

import tessera
from conftest import FIXTURES, from_hex, litert, load_json


def run_litert(model: bytes, inputs, resolver):
    Interpreter, _ = litert()
    it = Interpreter(model_content=model, experimental_op_resolver_type=resolver, num_threads=1)
    it.allocate_tensors()
    for d, x in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], x)
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()]


def run_tessera(model: bytes, inputs):
    it = tessera.Interpreter(model_content=model)
    it.allocate_tensors()
    for d, x in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], x)
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()]


def differences(model: bytes, inputs) -> "list[str]":
    """How tessera's outputs differ from LiteRT's beyond the rule; empty if they do not."""
    _, Resolver = litert()
    try:
        builtin = run_litert(model, inputs, Resolver.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        xnn = run_litert(model, inputs, Resolver.AUTO)
    except (RuntimeError, ValueError) as e:
        pytest.skip("LiteRT cannot run it: %s" % e)
    try:
        ref = run_litert(model, inputs, Resolver.BUILTIN_REF)
    except (RuntimeError, ValueError) as e:
        if "Didn't find op" not in str(e):
            raise
        ref = builtin
    got = run_tessera(model, inputs)
    problems = []
    for j, (g, r, x, b) in enumerate(zip(got, ref, xnn, builtin)):
        if g.shape != r.shape or g.dtype != r.dtype:
            problems.append("output %d: %s %s, LiteRT %s %s" % (j, g.dtype, g.shape, r.dtype, r.shape))
        elif r.dtype == np.float32:
            finite = np.isfinite(r) & np.isfinite(x)
            spread = float(np.max(np.abs(r - x)[finite], initial=0.0))
            scale = float(np.max(np.abs(r[np.isfinite(r)]), initial=0.0))
            tolerance = max(4 * spread, 1e-5 * scale)
            same = (g == r) | (np.isnan(g) & np.isnan(r))
            off = np.where(same, 0.0, np.abs(g.astype(np.float64) - r))
            off = np.where(np.isnan(off), np.inf, off)
            if off.size and off.max() > tolerance:
                problems.append("output %d off by %g, over %g" % (j, off.max(), tolerance))
        elif r.dtype == object:
            if list(g.reshape(-1)) != list(r.reshape(-1)):
                problems.append("output %d: strings differ" % j)
        elif g.tobytes() != r.tobytes() and (r.tobytes() == b.tobytes() or g.tobytes() != b.tobytes()):
            problems.append("output %d differs (exact)" % j)
    return problems


MODELS = sorted(p for p in (FIXTURES / "models").glob("*.json") if "references" in load_json(p))


@pytest.mark.parametrize("manifest", MODELS, ids=lambda p: p.stem)
def test_models_equal_litert(manifest: Path) -> None:
    refs = load_json(manifest)["references"]
    model = (manifest.parent / (manifest.stem + ".tflite")).read_bytes()
    it = tessera.Interpreter(model_content=model)
    order = {d["index"]: k for k, d in enumerate(it.get_input_details())}
    inputs = [None] * len(order)
    for x in refs["inputs"]:
        inputs[order[x["tensor"]]] = np.load(manifest.parent / x["file"])
    assert not differences(model, inputs)


SWEEPS = sorted((FIXTURES / "ops").glob("*.json"))


@pytest.mark.parametrize("manifest", SWEEPS, ids=lambda p: p.stem)
def test_operator_sweeps_equal_litert(manifest: Path) -> None:
    report = []
    for k, case in enumerate(load_json(manifest)["cases"]):
        model = (manifest.parent / case["model"]).read_bytes()
        inputs = [from_hex(x) for x in case["inputs"]]
        try:
            problems = differences(model, inputs)
        except pytest.skip.Exception:
            continue
        report += ["case %d (%s): %s" % (k, case["name"], p) for p in problems]
    assert not report, "\n".join(report)
