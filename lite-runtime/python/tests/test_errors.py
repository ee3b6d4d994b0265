"""Bad input raises a typed exception and never crashes: no Rust panic (PyO3 would raise
``PanicException``, a ``BaseException``: still a bug), no abort, no read out of bounds."""

import gc
import random

import numpy as np
import pytest

import tessera
from conftest import FIXTURES, from_hex, load_json

MODELS = FIXTURES / "models"
KWS = (MODELS / "kws_int8.tflite").read_bytes()


def outcome(f) -> "BaseException | None":
    """What ``f()`` raised, if anything; fails the test on anything but a tessera error."""
    try:
        f()
    except tessera.TesseraError as e:
        return e
    except BaseException as e:  # PanicException derives from BaseException
        pytest.fail("%s: %s" % (type(e).__name__, e))
    return None


def test_every_truncation_of_a_model_raises_a_model_error() -> None:
    data = (MODELS / "int8_dense.tflite").read_bytes()
    for n in range(len(data)):
        e = outcome(lambda: tessera.Interpreter(model_content=data[:n]))
        assert isinstance(e, tessera.ModelError) and isinstance(e, ValueError), n
        assert e.offset is not None and e.offset <= len(data)


def run(data: bytes) -> None:
    it = tessera.Interpreter(model_content=data)
    it.allocate_tensors()
    for d in it.get_input_details():
        if d["dtype"] is not np.bytes_:
            it.set_tensor(d["index"], np.ones(d["shape"], d["dtype"]))
    it.invoke()
    for d in it.get_output_details():
        it.get_tensor(d["index"])


@pytest.mark.parametrize("name", ["kws_int8", "strings", "sparse", "ops_shape", "ctr"])
def test_corrupted_models_raise_or_run(name: str) -> None:
    """Bytes flipped anywhere: a model error at load, an interpreter error at set-up or
    invoke, or a run; never anything else."""
    data = (MODELS / (name + ".tflite")).read_bytes()
    rng = random.Random(34)
    for _ in range(300):
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        outcome(lambda: run(bytes(b)))


@pytest.fixture
def kws() -> tessera.Interpreter:
    it = tessera.Interpreter(model_content=KWS)
    it.allocate_tensors()
    return it


def test_set_tensor_refuses_what_does_not_fit(kws: tessera.Interpreter) -> None:
    d = kws.get_input_details()[0]
    good = np.zeros(d["shape"], np.int8)
    for bad in [good.astype(np.float32), good.astype(np.uint8), good[..., :0], good.reshape(-1),
                np.zeros([*d["shape"], 1], np.int8), [0] * int(good.size), None, 3, "x"]:
        e = outcome(lambda: kws.set_tensor(d["index"], bad))
        assert isinstance(e, tessera.TensorError) and isinstance(e, ValueError), bad
        assert e.tensor == d["index"]
    for index in [-1, 10**6, len(kws.get_tensor_details())]:
        assert isinstance(outcome(lambda: kws.set_tensor(index, good)), tessera.TensorError)
        assert isinstance(outcome(lambda: kws.get_tensor(index)), tessera.TensorError)
        assert isinstance(outcome(lambda: kws.tensor(index)), tessera.TensorError)
    with pytest.raises(OverflowError):
        kws.get_tensor(2**70)
    # A strided (non-contiguous) array of the right dtype and shape is taken in logical order.
    wide = np.zeros([*d["shape"][:-1], d["shape"][-1] * 2], np.int8)
    wide[..., ::2] = 5
    kws.set_tensor(d["index"], wide[..., ::2])
    assert np.all(kws.get_tensor(d["index"]) == 5)


def test_constants_cannot_be_set(kws: tessera.Interpreter) -> None:
    for t in kws.get_tensor_details():
        view = kws.tensor(t["index"])()
        if not view.flags.writeable:
            e = outcome(lambda: kws.set_tensor(t["index"], np.zeros(t["shape"], t["dtype"])))
            assert isinstance(e, tessera.TesseraError)
            return
    pytest.fail("no constant found")


def test_before_allocate_tensors() -> None:
    it = tessera.Interpreter(model_content=KWS)
    d = it.get_input_details()[0]
    for f in [it.invoke, lambda: it.get_tensor(d["index"]), lambda: it.tensor(d["index"]),
              lambda: it.set_tensor(d["index"], np.zeros(d["shape"], np.int8)),
              it.reset_all_variables]:
        e = outcome(f)
        assert isinstance(e, tessera.StateError) and isinstance(e, RuntimeError)


def test_a_closed_interpreter_raises_and_its_views_stay_readable(kws: tessera.Interpreter) -> None:
    d = kws.get_input_details()[0]
    view = kws.tensor(d["index"])()
    view[...] = 3
    kws.close()
    for f in [kws.invoke, kws.allocate_tensors, kws.get_input_details,
              lambda: kws.get_tensor(d["index"]), lambda: kws.tensor(d["index"]),
              lambda: kws.set_tensor(d["index"], view.copy()), lambda: kws.arena_bytes]:
        assert isinstance(outcome(f), tessera.StateError)
    assert kws.closed
    del kws
    gc.collect()
    # The view keeps the memory it points into alive.
    assert int(view.sum()) == 3 * view.size


def test_context_manager_closes() -> None:
    with tessera.Interpreter(model_content=KWS) as it:
        it.allocate_tensors()
    assert it.closed


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        tessera.Interpreter()
    with pytest.raises(ValueError):
        tessera.Interpreter(model_path="x", model_content=KWS)
    with pytest.raises(tessera.ModelError) as e:
        tessera.Interpreter(model_path=str(MODELS / "no_such_model.tflite"))
    assert e.value.path
    with pytest.raises(TypeError):
        tessera.Interpreter(model_content=3)
    with pytest.raises(ValueError):
        tessera.Interpreter(model_content=KWS, experimental_delegates=[object()])
    with pytest.raises(tessera.ModelError):
        tessera.Interpreter(model_content=KWS, subgraph=5)
    # bytearray and memoryview work as bytes do.
    tessera.Interpreter(model_content=bytearray(KWS))
    tessera.Interpreter(model_content=memoryview(KWS))


def test_a_bad_index_in_the_data_names_the_operator() -> None:
    case = load_json(FIXTURES / "ops" / "gather.json")["cases"][0]
    it = tessera.Interpreter(model_path=str(FIXTURES / "ops" / case["model"]))
    it.allocate_tensors()
    params, indices = it.get_input_details()
    it.set_tensor(params["index"], from_hex(case["inputs"][0]))
    it.set_tensor(indices["index"], np.full(indices["shape"], 10**6, np.int32))
    e = outcome(it.invoke)
    assert isinstance(e, tessera.InterpreterError)
    assert e.operator == 0 and e.op == "GATHER", (e.operator, e.op)
    # The interpreter is still usable after the error.
    it.set_tensor(indices["index"], from_hex(case["inputs"][1]))
    it.invoke()


def test_strings_that_do_not_fit() -> None:
    facts = load_json(MODELS / "strings.json")
    it = tessera.Interpreter(model_path=str(MODELS / "strings.tflite"), string_bytes=64)
    it.allocate_tensors()
    x = next(x for x in facts["references"]["inputs"] if np.load(MODELS / x["file"]).dtype.kind == "S")
    n = np.load(MODELS / x["file"]).size
    e = outcome(lambda: it.set_tensor(x["tensor"], [b"y" * 100] * n))
    assert isinstance(e, tessera.TensorError) and e.needed and e.needed > 64
    e = outcome(lambda: it.set_tensor(x["tensor"], [b"y"] * (n + 1)))
    assert isinstance(e, tessera.TensorError)
    e = outcome(lambda: it.set_tensor(x["tensor"], [1] * n))
    assert isinstance(e, tessera.TensorError)


def test_memory_budget() -> None:
    """A model or arena over the budget is an error naming the bytes, never an allocation
    that aborts."""
    image = (MODELS / "image_float.tflite").read_bytes()  # 15 KB, a 119 KB arena
    it = tessera.Interpreter(model_content=image, memory_budget=len(image) + 64)
    e = outcome(it.allocate_tensors)
    assert isinstance(e, tessera.InterpreterError) and e.kind == "Memory" and e.needed
    e = outcome(lambda: tessera.Interpreter(model_content=KWS, memory_budget=100))
    assert isinstance(e, tessera.InterpreterError) and e.needed >= len(KWS)


def test_set_tensor_from_a_view_of_itself(kws: tessera.Interpreter) -> None:
    """The value may be the tensor's own view (the same bytes): it is copied out first."""
    d = kws.get_input_details()[0]
    view = kws.tensor(d["index"])()
    view[...] = np.arange(view.size, dtype=np.int64).reshape(view.shape) % 100
    before = view.copy()
    kws.set_tensor(d["index"], view)
    assert np.array_equal(kws.get_tensor(d["index"]), before)
    flipped = view[..., ::-1]  # strided, overlapping
    kws.set_tensor(d["index"], flipped)
    assert np.array_equal(kws.get_tensor(d["index"]), before[..., ::-1])
