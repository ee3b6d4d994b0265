"""``tessera.data``: the rows of every batch equal the Rust reader's (``tessera dataset
read``'s checksum, a sum of per-row hashes that any worker count gives alike), for 1 and 2
workers, every format and a rank's shard; bad data raises ``DataError``."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tessera
from conftest import FIXTURES, REPO

DEMO = REPO / "lite-runtime" / "cli" / "demo" / "demo.norm"
DATA = FIXTURES / "data"
MASK = (1 << 64) - 1


def fnv(h: int, word: int) -> int:
    for b in (word & MASK).to_bytes(8, "little"):
        h = ((h ^ b) * 0x100000001B3) & MASK
    return h


def row_hash(row_id: int, labels, dense, slots) -> int:
    """The CLI's row hash (lite-runtime/cli/src/dataset/read.rs): FNV-1a over the row id,
    the label and dense values' bits and, per slot, the key count and the keys (as i64),
    finished by SplitMix64's mixer."""
    h = fnv(0xCBF29CE484222325, row_id)
    for bits in np.concatenate([labels, dense]).astype(np.float32).view(np.uint32):
        h = fnv(h, int(bits))
    for keys in slots:
        h = fnv(h, len(keys))
        for k in keys:
            h = fnv(h, int(k))
    z = h
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def checksum(dataset: tessera.data.Dataset) -> "tuple[int, int]":
    """``(rows, checksum)`` of one pass, as the CLI prints them."""
    rows, total = 0, 0
    slots = dataset.dims[2]
    for b in dataset:
        n = len(b.labels)
        assert b.row_offsets.shape == (n * slots + 1,) and b.row_offsets[0] == 0
        assert b.row_offsets[-1] == len(b.keys)
        for s in range(n):
            keys = [b.slot_keys(s, k) for k in range(slots)]
            total = (total + row_hash(b.first_row + s, b.labels[s], b.dense[s], keys)) & MASK
        rows += n
    return rows, total


def cli(*args: str) -> "tuple[int, int]":
    """``(rows, checksum)`` from ``tessera dataset read``: the binary in $TESSERA_BIN, or
    the one cargo built in the repository, or ``cargo run``."""
    command = None
    for candidate in [os.environ.get("TESSERA_BIN"), REPO / "target" / "release" / "tessera",
                      REPO / "target" / "debug" / "tessera"]:
        if candidate and Path(candidate).is_file():
            command = [str(candidate)]
            break
    if command is None:
        if not shutil.which("cargo"):
            pytest.skip("no tessera binary and no cargo to build one")
        command = ["cargo", "run", "--quiet", "-p", "tessera-cli", "--"]
    out = subprocess.run(command + ["dataset", "read", *args], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout
    last = out.strip().splitlines()[-1]
    rows, _, value = last.removeprefix("rows: ").partition(" checksum: ")
    return int(rows), int(value, 16)


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("batch_size", [256, 1000])
def test_norm_rows_equal_the_rust_reader(workers: int, batch_size: int) -> None:
    ds = tessera.data.Dataset(DEMO, batch_size=batch_size, workers=workers)
    assert ds.dims == (1, 13, 26) and ds.rows == 1024
    assert checksum(ds) == cli(str(DEMO), "--workers", "2")


@pytest.mark.parametrize("workers", [1, 2])
def test_every_format_equals_the_rust_reader(workers: int) -> None:
    cases = [
        (dict(paths=DATA / "norm_sum.data"), [str(DATA / "norm_sum.data")]),
        (dict(paths=DATA / "norm_plain_list.txt"), [str(DATA / "norm_plain_list.txt")]),
        (dict(paths=DATA / "norm_i64.data", key_type="i64"),
         [str(DATA / "norm_i64.data"), "--key", "i64"]),
        (dict(paths=DATA / "raw_f32.data", format="raw", dims=(1, 3, 4)),
         [str(DATA / "raw_f32.data"), "--format", "raw", "--dims", "1,3,4"]),
        (dict(paths=DATA / "parquet"), [str(DATA / "parquet")]),
    ]
    for options, args in cases:
        ds = tessera.data.Dataset(batch_size=16, workers=workers, **options)
        assert checksum(ds) == cli(*args, "--workers", str(workers)), options


def test_shards_add_up_to_the_whole() -> None:
    whole = cli(str(DATA / "norm_plain_list.txt"))
    parts = []
    for rank in range(2):
        ds = tessera.data.Dataset(DATA / "norm_plain_list.txt", rank=rank, world=2, batch_size=8)
        got = checksum(ds)
        assert got == cli(str(DATA / "norm_plain_list.txt"), "--rank", str(rank), "--world", "2")
        parts.append(got)
    assert sum(r for r, _ in parts) == whole[0]
    assert sum(c for _, c in parts) & MASK == whole[1]


def test_each_iteration_is_a_pass_and_no_torch_is_imported() -> None:
    ds = tessera.data.Dataset(DEMO, batch_size=300)
    first = [b.keys.copy() for b in ds]
    second = [b.keys.copy() for b in ds]
    assert len(first) == 4 and all(np.array_equal(a, b) for a, b in zip(first, second))
    assert hasattr(ds, "__iter__") and "torch" not in sys.modules
    batch = next(iter(ds))
    assert batch.labels.dtype == batch.dense.dtype == np.float32
    assert batch.keys.dtype == batch.row_offsets.dtype == np.uint32
    # A pass left early stops its workers.
    it = iter(ds)
    next(it)
    it.close()
    with pytest.raises(StopIteration):
        next(it)


def test_bad_data_raises_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(tessera.DataError):
        tessera.data.Dataset(tmp_path / "missing.norm")
    with pytest.raises(tessera.DataError):
        tessera.data.Dataset(DATA / "raw_f32.data", format="raw")  # Raw needs dims
    with pytest.raises(ValueError):
        tessera.data.Dataset(DEMO, workers=0)
    with pytest.raises(ValueError):
        tessera.data.Dataset(DEMO, rank=2, world=2)
    # A record whose checksum no longer matches: the error names the sample.
    data = bytearray(DEMO.read_bytes())
    data[len(data) // 2] ^= 0x55
    bad = tmp_path / "bad.norm"
    bad.write_bytes(bytes(data))
    with pytest.raises(tessera.DataError) as e:
        for _ in tessera.data.Dataset(bad, batch_size=64, workers=2):
            pass
    assert e.value.sample is not None
    # Truncated: every length of the file raises or reads fewer rows; never anything else.
    for n in range(0, len(data), 997):
        cut = tmp_path / ("cut%d.norm" % n)
        cut.write_bytes(DEMO.read_bytes()[:n])
        try:
            for _ in tessera.data.Dataset(cut, batch_size=64):
                pass
        except tessera.DataError:
            pass


def test_torch_wrapper_without_torch_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Dataset.torch()`` subclasses torch's IterableDataset, importing torch only when
    called (a stand-in module here when torch is not installed)."""
    import types

    try:
        from torch.utils.data import IterableDataset  # noqa: F401
    except ImportError:
        torch = types.ModuleType("torch")
        utils = types.ModuleType("torch.utils")
        data = types.ModuleType("torch.utils.data")

        class IterableDataset:  # what DataLoader checks with isinstance
            pass

        data.IterableDataset = IterableDataset
        torch.utils, utils.data = utils, data
        for name, module in [("torch", torch), ("torch.utils", utils), ("torch.utils.data", data)]:
            monkeypatch.setitem(sys.modules, name, module)
    from torch.utils.data import IterableDataset

    ds = tessera.data.Dataset(DEMO, batch_size=512)
    wrapped = ds.torch()
    assert isinstance(wrapped, IterableDataset)
    assert sum(len(b.labels) for b in wrapped) == 1024
    assert sum(len(b.labels) for b in wrapped) == 1024  # a pass per iteration
