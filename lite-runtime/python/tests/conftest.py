"""Shared by the tests: where the repository's fixtures are, and how they are compared."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures"

sys.path.insert(0, str(Path(__file__).resolve().parent))


def load_json(path: Path):
    with open(path) as f:
        return json.load(f)


def from_hex(tensor: dict) -> np.ndarray:
    """A fixture tensor (``dtype``, ``shape``, little-endian ``hex``) as an array."""
    dtype = np.dtype(tensor["dtype"]).newbyteorder("<")
    data = np.frombuffer(bytes.fromhex(tensor["hex"]), dtype=dtype)
    return data.astype(dtype.newbyteorder("="), copy=False).reshape(tensor["shape"])


def compare(got: np.ndarray, want: dict) -> "str | None":
    """The fixtures' rule (as ``tests/tests/common/litert.rs``): bit for bit unless the
    output is float32 without ``exact``, then within its ``tolerance`` (max(4 x LiteRT's
    reference-vs-XNNPACK spread, 1e-5 x the largest magnitude)), NaN equal to NaN.
    TFLM's streams (``signal/``) mark outputs TFLM leaves undefined (``undefined``: not
    compared) or defines in part (``range``: elements ``[start, end)`` compared).
    ``None`` if equal, else how they differ."""
    if want.get("undefined"):
        return None
    expected = from_hex(want)
    if "range" in want:
        start, end = want["range"]
        got = got.reshape(-1)[start:end]
        expected = expected.reshape(-1)[start:end]
    if got.dtype != expected.dtype:
        return "dtype %s, LiteRT %s" % (got.dtype, expected.dtype)
    if got.tobytes() == expected.tobytes():
        return None
    if got.size != expected.size:
        return "%d elements, LiteRT %d" % (got.size, expected.size)
    if "exact" in want or want["dtype"] != "float32":
        a = np.ascontiguousarray(got).reshape(-1).view(np.uint8)
        b = np.ascontiguousarray(expected).reshape(-1).view(np.uint8)
        k = int(np.flatnonzero(a != b)[0]) // max(got.itemsize, 1)
        return "element %d differs (exact): %r, LiteRT %r" % (
            k, got.reshape(-1)[k], expected.reshape(-1)[k])
    g = got.reshape(-1).astype(np.float64)
    w = expected.reshape(-1).astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(w)
    with np.errstate(invalid="ignore"):
        d = np.where(g == w, 0.0, np.abs(g - w))
    d = np.where(both_nan, 0.0, np.where(np.isnan(d), np.inf, d))
    tolerance = want.get("tolerance", 0.0)
    if d.max() > tolerance:
        k = int(d.argmax())
        return "element %d off by %g, over the tolerance %g" % (k, d[k], tolerance)
    return None


def litert():
    """LiteRT's Interpreter and resolver types, or skip the test."""
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    except ImportError:
        pytest.skip("ai-edge-litert is not installed")
    return Interpreter, OpResolverType
