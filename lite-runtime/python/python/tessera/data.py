"""HugeCTR datasets into numpy: Norm or Raw files, file lists, Parquet datasets, whole or one
rank's shard, decoded by tessera's cursor-set worker threads with the GIL released.

>>> ds = tessera.data.Dataset("demo.norm", batch_size=256, workers=2)
>>> for batch in ds:            # a new pass each time: an epoch
...     batch.labels, batch.dense, batch.row_offsets, batch.keys

A :class:`Dataset` has ``__iter__``: a training loop iterates it directly. PyTorch's
``DataLoader`` asks for an ``IterableDataset`` instance (it tells the two kinds of dataset
apart with ``isinstance``): ``DataLoader(ds.torch(), batch_size=None)`` wraps the dataset in
one, importing torch only then (this package never imports it on its own). Leave
``num_workers`` at 0: tessera decodes on its own threads, with the GIL released.
"""

import os
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _tessera

PathLike = Union[str, "os.PathLike[str]"]


class Batch(NamedTuple):
    """One batch of samples, in the dataset's order.

    ``labels``: float32 ``[n, label_dim]``; ``dense``: float32 ``[n, dense_dim]``;
    ``row_offsets``: ``[n * slot_num + 1]`` CSR offsets into ``keys`` (row ``s * slot_num +
    k`` holds sample ``s``'s slot ``k``); ``keys``: every key, row after row (uint32 or int64,
    as ``key_type``); ``batch``: the batch's number in the pass; ``first_row``: the dataset
    row of its first sample.
    """

    labels: np.ndarray
    dense: np.ndarray
    row_offsets: np.ndarray
    keys: np.ndarray
    batch: int
    first_row: int

    def slot_keys(self, sample: int, slot: int) -> np.ndarray:
        """The keys of ``sample``'s slot ``slot`` (a view of ``keys``)."""
        slots = (len(self.row_offsets) - 1) // max(len(self.labels), 1)
        row = sample * slots + slot
        return self.keys[int(self.row_offsets[row]) : int(self.row_offsets[row + 1])]


def _detect(path: str) -> str:
    """``"parquet"`` for a directory, ``.json`` or ``.parquet`` path (or a file list of
    ``.parquet`` files); ``"norm"`` otherwise (Raw files must be named with ``format``)."""
    if os.path.isdir(path) or path.endswith((".json", ".parquet")):
        return "parquet"
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
        first = head.decode("utf-8").splitlines()
        if len(first) > 1 and first[1].strip().endswith(".parquet"):
            return "parquet"
    except (OSError, UnicodeDecodeError):
        pass
    return "norm"


class Dataset:
    """A HugeCTR dataset to read in batches; each ``iter()`` is one pass (an epoch).

    ``paths``: a data file or file list, or several (Norm, Raw); or one Parquet directory,
    ``_metadata.json`` or file list of ``.parquet`` files. ``format``: ``"norm"``,
    ``"raw"``, ``"parquet"`` or ``None`` to guess from the path. ``batch_size`` samples a
    batch (the last may hold fewer); ``workers`` decoding threads (1 to 256); ``rank`` and
    ``world``: read only this rank's share of the files (file ``i`` goes to rank ``i %
    world``). ``key_type``: ``"u32"`` or ``"i64"``. ``dims``: ``(label_dim, dense_dim,
    slot_num)``, required for Raw, else the header's. ``max_nnz``: the most keys a slot holds
    (sizes batches for any record; default: from the files' size). ``skip_bad``: skip and
    count bad samples rather than stop. ``raw_int_values``: Raw label and dense are int32
    (HugeCTR's ``ln(x + 1)``). ``slot_sizes``: Parquet's ``slot_size_array``.
    """

    def __init__(
        self,
        paths: Union[PathLike, Sequence[PathLike]],
        format: Optional[str] = None,
        *,
        batch_size: int = 1024,
        workers: int = 2,
        rank: int = 0,
        world: int = 1,
        key_type: str = "u32",
        dims: Optional[Tuple[int, int, int]] = None,
        max_nnz: Optional[int] = None,
        skip_bad: bool = False,
        raw_int_values: bool = False,
        slot_sizes: Optional[Sequence[int]] = None,
    ) -> None:
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        self.paths: List[str] = [os.fspath(p) for p in paths]
        self.format = format or (_detect(self.paths[0]) if self.paths else "norm")
        self._options: Dict[str, Any] = dict(
            batch_size=batch_size,
            workers=workers,
            rank=rank,
            world=world,
            key_type=key_type,
            dims=dims,
            max_nnz=max_nnz,
            skip_bad=skip_bad,
            raw_int_values=raw_int_values,
            slot_sizes=list(slot_sizes) if slot_sizes is not None else None,
        )
        # Open once now: a bad path or header raises here, not at the first batch; this
        # reader serves the first pass.
        self._first: Optional[_tessera.Reader] = self._reader()
        self.dims: Tuple[int, int, int] = self._first.dims
        self.rows: int = self._first.rows

    def _reader(self) -> "_tessera.Reader":
        return _tessera.Reader(self.paths, self.format, **self._options)

    def __iter__(self) -> Iterator[Batch]:
        reader, self._first = self._first, None
        if reader is None:
            reader = self._reader()
        return _Pass(reader)

    def torch(self) -> Any:
        """This dataset as a ``torch.utils.data.IterableDataset`` (imports torch now)."""
        from torch.utils.data import IterableDataset

        source = self

        class TesseraIterableDataset(IterableDataset):  # type: ignore[misc,valid-type]
            """A tessera.data.Dataset for PyTorch's DataLoader: each iteration is a pass."""

            def __iter__(self) -> Iterator[Batch]:
                return iter(source)

        return TesseraIterableDataset()

    def __repr__(self) -> str:
        return "tessera.data.Dataset(%r, format=%r, dims=%r, rows=%d)" % (
            self.paths,
            self.format,
            self.dims,
            self.rows,
        )


class _Pass:
    """One pass: yields :class:`Batch` es; ``close()`` stops the workers early."""

    def __init__(self, reader: "_tessera.Reader") -> None:
        self._reader = reader

    def __iter__(self) -> "_Pass":
        return self

    def __next__(self) -> Batch:
        return Batch._make(next(self._reader))

    def close(self) -> None:
        self._reader.close()


def open_dataset(
    paths: Union[PathLike, Sequence[PathLike]], format: Optional[str] = None, **options: object
) -> Dataset:
    """``Dataset(paths, format, **options)``."""
    return Dataset(paths, format, **options)  # type: ignore[arg-type]


__all__ = ["Batch", "Dataset", "open_dataset"]
