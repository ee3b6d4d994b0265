"""``tessera.Interpreter`` has LiteRT's API: the same details, signatures and runners, and
code written for LiteRT runs with the import swapped."""

import zlib
from pathlib import Path

import numpy as np
import pytest

import tessera
from conftest import FIXTURES, litert, load_json

MODELS = FIXTURES / "models"
NAMES = sorted(p.stem for p in MODELS.glob("*.tflite"))


def same_details(a: dict, b: dict) -> None:
    assert set(a) >= {"name", "index", "shape", "shape_signature", "dtype", "quantization",
                      "quantization_parameters"}
    for key in ("name", "index", "dtype", "quantization"):
        assert a[key] == b[key], key
    for key in ("shape", "shape_signature"):
        assert a[key].dtype == b[key].dtype == np.int32 and np.array_equal(a[key], b[key]), key
    qa, qb = a["quantization_parameters"], b["quantization_parameters"]
    assert qa["quantized_dimension"] == qb["quantized_dimension"]
    for key in ("scales", "zero_points"):
        assert qa[key].dtype == qb[key].dtype and np.array_equal(qa[key], qb[key]), key


@pytest.mark.parametrize("name", NAMES)
def test_details_and_signatures_equal_litert(name: str) -> None:
    Interpreter, _ = litert()
    path = str(MODELS / (name + ".tflite"))
    ours, theirs = tessera.Interpreter(model_path=path), Interpreter(model_path=path)
    ours.allocate_tensors()
    theirs.allocate_tensors()
    for a, b in [(ours.get_input_details(), theirs.get_input_details()),
                 (ours.get_output_details(), theirs.get_output_details())]:
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same_details(x, y)
    assert ours.get_signature_list() == theirs.get_signature_list()


def test_code_written_for_litert_runs_with_the_import_swapped() -> None:
    """The README's notebook example, as code: LiteRT's idioms (details, set_tensor,
    tensor() views, signature runners) run unchanged on tessera."""
    Interpreter, Resolver = litert()
    path = str(MODELS / "kws_int8.tflite")
    x = np.load(MODELS / "kws_int8.in0.npy")
    results = []
    for make in (Interpreter, tessera.Interpreter):
        # LiteRT's reference kernels, which tessera's int8 kernels equal bit for bit (its
        # default optimized ones differ by 1 in places); tessera accepts the argument.
        it = make(model_path=path, num_threads=1,
                  experimental_op_resolver_type=Resolver.BUILTIN_REF)
        it.allocate_tensors()
        inp, out = it.get_input_details()[0], it.get_output_details()[0]
        it.tensor(inp["index"])()[...] = x          # write through the view
        it.invoke()
        a = it.get_tensor(out["index"])
        runner = it.get_signature_runner()
        b = runner(**{next(iter(runner.get_input_details())): x})
        results.append((a, b))
    (la, lb), (ta, tb) = results
    assert np.array_equal(la, ta)
    assert lb.keys() == tb.keys() and all(np.array_equal(lb[k], tb[k]) for k in lb)


def test_tensor_is_a_view_of_the_arena() -> None:
    it = tessera.Interpreter(model_path=str(MODELS / "int8_dense.tflite"))
    it.allocate_tensors()
    inp, out = it.get_input_details()[0], it.get_output_details()[0]
    view = it.tensor(inp["index"])()
    assert not view.flags.owndata and view.flags.writeable
    view[...] = 7
    assert np.all(it.get_tensor(inp["index"]) == 7)          # set through the view
    it.invoke()
    before = it.get_tensor(out["index"]).copy()
    out_view = it.tensor(out["index"])()
    view[...] = -7
    it.invoke()                                                # the view sees the new values
    assert np.array_equal(out_view, it.get_tensor(out["index"]))
    assert not np.array_equal(out_view, before)
    # A constant's view is read-only: it is the model's bytes.
    views = [it.tensor(t["index"])() for t in it.get_tensor_details()]
    constants = [v for v in views if not v.flags.writeable]
    assert constants, "the model's weights are constants"
    cview = max(constants, key=lambda v: v.size)
    with pytest.raises(ValueError):
        cview[...] = 0


def test_reset_all_variables_restarts_a_stream() -> None:
    facts = load_json(FIXTURES / "control" / "stream.json")
    it = tessera.Interpreter(model_path=str(FIXTURES / "control" / facts["model"]))
    it.allocate_tensors()
    from conftest import from_hex

    def step(call):
        for d, x in zip(it.get_input_details(), call["inputs"]):
            it.set_tensor(d["index"], from_hex(x))
        it.invoke()
        return [it.get_tensor(d["index"]) for d in it.get_output_details()]

    first = step(facts["calls"][0])
    second = step(facts["calls"][1])
    it.reset_all_variables()
    again = step(facts["calls"][0])
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    # The stream carries state: the second call differs from the first one on the same
    # model, and after the reset the first call's outputs come back.
    assert len(second) == len(first)


def test_arena_bytes_and_seal() -> None:
    data = (MODELS / "kws_int8.tflite").read_bytes()
    it = tessera.Interpreter(model_content=data)
    needed = it.arena_bytes
    it.allocate_tensors()
    assert 0 < it.arena_bytes <= needed
    # The seal: the model's size and CRC-32 (zlib's), what Model::load_sealed recognises.
    assert it.seal == (len(data), zlib.crc32(data))


def test_custom_op_packs_are_selectable() -> None:
    path = str(FIXTURES / "custom" / "detection_postprocess" / "00.tflite")
    tessera.Interpreter(model_path=path).allocate_tensors()
    tessera.Interpreter(model_path=path, custom_ops=["detection"]).allocate_tensors()
    with pytest.raises(tessera.InterpreterError) as e:
        tessera.Interpreter(model_path=path, custom_ops=["signal", "mediapipe"]).allocate_tensors()
    assert e.value.operator == 0 and e.value.op == "CUSTOM"
    with pytest.raises(ValueError):
        tessera.Interpreter(model_path=path, custom_ops=["no-such-pack"])


def test_num_threads_give_the_same_outputs() -> None:
    outputs = []
    for n in (1, 2, 4, -1):
        it = tessera.Interpreter(model_path=str(MODELS / "image_float.tflite"), num_threads=n)
        assert it.num_threads == n
        it.allocate_tensors()
        d = it.get_input_details()[0]
        x = np.linspace(-1.0, 1.0, int(np.prod(d["shape"])), dtype=np.float32).reshape(d["shape"])
        it.set_tensor(d["index"], x)
        it.invoke()
        outputs.append(it.get_tensor(it.get_output_details()[0]["index"]).tobytes())
    assert all(o == outputs[0] for o in outputs)
    for bad in (0, -2, 65):
        with pytest.raises(ValueError, match="num_threads"):
            tessera.Interpreter(model_path=str(MODELS / "kws_int8.tflite"), num_threads=bad)


def test_strings_in_and_out() -> None:
    facts = load_json(MODELS / "strings.json")
    it = tessera.Interpreter(model_path=str(MODELS / "strings.tflite"))
    it.allocate_tensors()
    for x in facts["references"]["inputs"]:
        v = np.load(MODELS / x["file"])
        it.set_tensor(x["tensor"], v if v.dtype.kind != "S" else [s for s in v.reshape(-1)])
    it.invoke()
    for y in facts["references"]["outputs"]:
        want = np.load(MODELS / y["file"])
        got = it.get_tensor(y["tensor"])
        if want.dtype.kind == "S":
            assert got.dtype == object and list(got.reshape(-1)) == list(want.reshape(-1))


def test_profile_has_a_row_per_operator() -> None:
    it = tessera.Interpreter(model_path=str(MODELS / "kws_int8.tflite"))
    it.allocate_tensors()
    x = np.load(MODELS / "kws_int8.in0.npy")
    it.set_tensor(it.get_input_details()[0]["index"], x)
    rows = it.profile(runs=3)
    facts = load_json(MODELS / "kws_int8.json")
    ops = facts["subgraphs"][0]["operators"]
    assert [r["op"] for r in rows] == [o["op"] for o in ops]
    assert all(r["ns"] >= 0 for r in rows) and sum(r["ns"] for r in rows) > 0
    assert rows[0]["inputs"][0] == list(x.shape)
    # The outputs are the invoke's.
    out = it.get_output_details()[0]["index"]
    profiled = it.get_tensor(out)
    it.invoke()
    assert np.array_equal(profiled, it.get_tensor(out))
    with pytest.raises(ValueError):
        it.profile(runs=0)


def test_resize_to_the_declared_shape_only() -> None:
    it = tessera.Interpreter(model_path=str(MODELS / "kws_int8.tflite"))
    d = it.get_input_details()[0]
    it.resize_tensor_input(d["index"], d["shape"])
    with pytest.raises(tessera.TensorError):
        it.resize_tensor_input(d["index"], [2, *d["shape"][1:]])
    with pytest.raises(tessera.TensorError):
        it.resize_tensor_input(999, d["shape"])
