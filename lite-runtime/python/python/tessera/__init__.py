"""tessera from Python.

- :class:`Interpreter`: a ``.tflite`` model in tessera's interpreter (the kernels that run on
  the device), with the API of LiteRT's ``ai_edge_litert.interpreter.Interpreter``: swap the
  import and common code runs unchanged.
- :mod:`tessera.data`: HugeCTR datasets (Norm, Raw, Parquet) decoded by tessera's worker
  threads into numpy batches.
"""

from ._errors import (
    DataError,
    InterpreterError,
    ModelError,
    StateError,
    TensorError,
    TesseraError,
)
from ._tessera import __version__
from . import data
from .interpreter import Interpreter, SignatureRunner

__all__ = [
    "DataError",
    "Interpreter",
    "InterpreterError",
    "ModelError",
    "SignatureRunner",
    "StateError",
    "TensorError",
    "TesseraError",
    "__version__",
    "data",
]
