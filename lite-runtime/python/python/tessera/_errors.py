"""tessera's exceptions: each carries where the fault is, as tessera's Rust errors say it.

They also derive from the built-in exception LiteRT raises in the same place (``ValueError``
for a bad model or tensor, ``RuntimeError`` for set-up and invoke), so code written against
LiteRT's ``Interpreter`` catches them unchanged.
"""

from typing import Optional


class TesseraError(Exception):
    """Base of every tessera exception.

    Attributes (``None`` where they do not apply): ``kind`` (the Rust error's variant),
    ``subgraph``, ``operator`` (index in its subgraph), ``op`` (its name, e.g. ``"CONV_2D"``),
    ``tensor`` (index in the subgraph), ``offset`` (byte offset in the model file or data
    file), ``field`` (the schema field), ``needed`` (bytes needed), ``sample`` (the data
    sample concerned), ``path`` (the data file).
    """

    kind: Optional[str] = None
    subgraph: Optional[int] = None
    operator: Optional[int] = None
    op: Optional[str] = None
    tensor: Optional[int] = None
    offset: Optional[int] = None
    field: Optional[str] = None
    needed: Optional[int] = None
    sample: Optional[int] = None
    path: Optional[str] = None

    def __init__(self, message: str, **detail: object) -> None:
        super().__init__(message)
        for key, value in detail.items():
            setattr(self, key, value)


class ModelError(TesseraError, ValueError):
    """The model file is malformed (``offset`` and ``field`` say where), or cannot be read."""


class TensorError(TesseraError, ValueError):
    """A tensor index, dtype or shape that does not fit the model (``set_tensor``,
    ``get_tensor``, ``tensor``)."""


class InterpreterError(TesseraError, RuntimeError):
    """Set-up or invoke failed: an operator that no kernel runs, a kernel's check, a bad
    index in the data (``operator``, ``op`` and ``tensor`` say where)."""


class StateError(TesseraError, RuntimeError):
    """The interpreter is closed, or its tensors are not allocated yet."""


class DataError(TesseraError, ValueError):
    """A dataset could not be opened or read (``path``, ``sample`` and ``offset`` say
    where)."""
