"""``tessera.Interpreter``: LiteRT's Python ``Interpreter`` API over tessera's interpreter.

The compiled class does the work; this module adds what LiteRT does in Python:
``tensor()`` returning a callable, and signature runners.
"""

from typing import Any, Callable, Dict, List

import numpy as np

from . import _tessera
from ._errors import TensorError


class Interpreter(_tessera.Interpreter):
    """A ``.tflite`` model in tessera's interpreter, with LiteRT's ``Interpreter`` API.

    ``Interpreter(model_path=None, model_content=None, num_threads=None, *,
    custom_ops=None, string_bytes=1024, memory_budget=1 << 32)``. The model is checked in
    full when it is loaded (a malformed one raises :class:`tessera.ModelError` saying where). ``num_threads`` is
    accepted as LiteRT takes it; tessera runs on the calling thread whatever its value.
    ``custom_ops`` names the custom-operator packs the model may use: ``"signal"``,
    ``"circular-buffer"``, ``"detection"``, ``"mediapipe"`` (default: all). ``string_bytes``:
    the arena's bytes per string tensor that is not a constant. ``memory_budget``: the most
    bytes the model's copy and its arena may each take (a size from a hostile model is an
    error, never an allocation that aborts). LiteRT's ``experimental_op_resolver_type`` is
    accepted and ignored (tessera's kernels are one set, equal to LiteRT's reference
    kernels); ``experimental_delegates`` must be empty.

    Unlike LiteRT's, ``invoke()`` keeps the GIL (other Python threads wait while a model
    runs), and in exchange ``tensor()`` views may stay alive across ``invoke()``: they are
    never written while the interpreter runs, and they see its results.

    Beyond LiteRT: ``arena_bytes`` (the one region every tensor lives in), ``seal``
    (``(size, crc32)``, what firmware recognises the model by), ``profile(runs)`` (a row
    per operator: op, tensor shapes, mean nanoseconds), ``close()``.
    """

    def tensor(self, tensor_index: int) -> Callable[[], np.ndarray]:
        """A function returning a numpy array over the tensor's bytes in the arena (no copy),
        as LiteRT's ``tensor()``: write inputs through it, read outputs after ``invoke()``.
        Do not keep the array across ``allocate_tensors()``."""
        self.tensor_view(tensor_index)  # raise now for a bad index, as LiteRT does
        return lambda: self.tensor_view(tensor_index)

    def resize_tensor_input(self, input_index: int, tensor_size: Any, strict: bool = False) -> None:
        """LiteRT's ``resize_tensor_input``: tessera plans every tensor once, for the shapes
        the model declares, so only the declared shape is accepted (a no-op); any other
        raises :class:`tessera.TensorError` (LiteRT would re-plan)."""
        del strict
        details = {d["index"]: d for d in self.get_input_details()}
        if input_index not in details:
            raise TensorError("tensor %d is not an input" % input_index, tensor=input_index)
        shape = [int(x) for x in np.asarray(tensor_size).reshape(-1)]
        if shape != [int(x) for x in details[input_index]["shape"]]:
            raise TensorError(
                "tensor %d: tessera plans the declared shape %s once; it cannot resize to %s"
                % (input_index, list(details[input_index]["shape"]), shape),
                tensor=input_index,
            )

    def get_signature_runner(self, signature_key: "str | None" = None) -> "SignatureRunner":
        """A callable running signature ``signature_key`` (the only one if ``None``), taking
        and returning tensors by their signature names, as LiteRT's."""
        signatures = self.get_signature_list()
        if signature_key is None:
            if len(signatures) != 1:
                raise ValueError(
                    "give signature_key: the model has %d signatures" % len(signatures)
                )
            signature_key = next(iter(signatures))
        return SignatureRunner(self, signature_key)


class SignatureRunner:
    """Runs one signature of a model: ``runner(x=array, ...)`` returns ``{name: array}``.

    A signature runs in the interpreter when it names the subgraph the interpreter runs
    (subgraph 0 unless ``subgraph=`` was given); for another, make an interpreter with that
    ``subgraph=`` (asking this one raises ``ValueError``).
    """

    def __init__(self, interpreter: Interpreter, signature_key: str) -> None:
        subgraph, inputs, outputs = interpreter._signature(signature_key)
        if subgraph != interpreter._subgraph:
            raise ValueError(
                "signature %r runs subgraph %d; this interpreter runs subgraph %d"
                % (signature_key, subgraph, interpreter._subgraph)
            )
        self._interpreter = interpreter
        self._inputs: Dict[str, int] = dict(inputs)
        self._outputs: Dict[str, int] = dict(outputs)
        self._key = signature_key
        if not interpreter._allocated:
            interpreter.allocate_tensors()

    def get_input_details(self) -> Dict[str, Dict[str, Any]]:
        """``{name: details}`` of the signature's inputs."""
        return self._details(self._inputs)

    def get_output_details(self) -> Dict[str, Dict[str, Any]]:
        """``{name: details}`` of the signature's outputs."""
        return self._details(self._outputs)

    def _details(self, names: Dict[str, int]) -> Dict[str, Dict[str, Any]]:
        every: List[Dict[str, Any]] = self._interpreter.get_tensor_details()
        return {name: every[t] for name, t in names.items()}

    def allocate_tensors(self) -> None:
        """Sets the model up again (LiteRT's runner has it too)."""
        self._interpreter.allocate_tensors()

    def invoke(self, **kwargs: Any) -> None:
        """Sets the inputs given by name and runs the model."""
        self._set(kwargs)
        self._interpreter.invoke()

    def __call__(self, **kwargs: Any) -> Dict[str, np.ndarray]:
        """Sets the inputs given by name, runs the model and returns every output by name."""
        self.invoke(**kwargs)
        return {
            name: self._interpreter.get_tensor(t) for name, t in self._outputs.items()
        }

    def _set(self, values: Dict[str, Any]) -> None:
        for name, value in values.items():
            if name not in self._inputs:
                raise ValueError(
                    "signature %r has no input %r (it has %s)"
                    % (self._key, name, sorted(self._inputs))
                )
            self._interpreter.set_tensor(self._inputs[name], value)
