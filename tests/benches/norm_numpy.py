"""Reads a HugeCTR Norm file with numpy, the way a Python user would, and times it.

The reference point for `tests/benches/datapath.rs`: the same file, decoded into the same
arrays (labels and dense features as one float32 row per sample, keys as CSR row offsets and
values, row = sample * slot_num + slot). Keys are uint32 (`input_key_type` unsigned int);
both `error_check` modes are read, and checksums are verified as HugeCTR does.

    TESSERA_NORM_OUT=/tmp/norm.bin cargo bench -p tessera-tests --bench datapath -- norm_decode
    python tests/benches/norm_numpy.py /tmp/norm.bin

Prints samples/s and MB/s (1 MB = 10^6 bytes) of the best of 3 runs (time.perf_counter).
"""

import struct
import sys
import time

import numpy as np


def read_norm(buf):
    """Decodes the whole file: (label_dense [n, label+dense], row_offsets, values)."""
    header = np.frombuffer(buf, dtype="<i8", count=8, offset=0)
    check = int(header[0])
    if check == 1:
        # Framed header: [int32 length = 64][64 bytes][uint8 sum].
        header = np.frombuffer(buf, dtype="<i8", count=8, offset=4)
        if np.frombuffer(buf, dtype=np.uint8, count=64, offset=4).sum() % 256 != buf[68]:
            raise ValueError("header checksum mismatch")
        pos = 69
    else:
        pos = 64
    records, label_dim, dense_dim, slot_num = (int(x) for x in header[1:5])
    width = label_dim + dense_dim

    label_dense = np.empty((records, width), dtype=np.float32)
    row_offsets = np.zeros(records * slot_num + 1, dtype=np.int64)
    chunks = []
    nnz_total = 0
    row = 0
    for sample in range(records):
        if check == 1:
            (length,) = struct.unpack_from("<i", buf, pos)
            payload = np.frombuffer(buf, dtype=np.uint8, count=length, offset=pos + 4)
            if payload.sum() % 256 != buf[pos + 4 + length]:
                raise ValueError(f"sample {sample}: checksum mismatch")
            pos += 4
        label_dense[sample] = np.frombuffer(buf, dtype="<f4", count=width, offset=pos)
        pos += 4 * width
        for _ in range(slot_num):
            (nnz,) = struct.unpack_from("<i", buf, pos)
            if nnz < 0:
                raise ValueError(f"sample {sample}: negative nnz {nnz}")
            keys = np.frombuffer(buf, dtype="<u4", count=nnz, offset=pos + 4)
            chunks.append(keys)
            nnz_total += nnz
            row += 1
            row_offsets[row] = nnz_total
            pos += 4 + 4 * nnz
        if check == 1:
            pos += 1
    if pos != len(buf):
        raise ValueError(f"{len(buf) - pos} bytes after the last record")
    values = np.concatenate(chunks) if chunks else np.empty(0, dtype=np.uint32)
    return label_dense, row_offsets, values


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        buf = f.read()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        label_dense, row_offsets, values = read_norm(buf)
        best = min(best, time.perf_counter() - start)
    samples = label_dense.shape[0]
    print(
        f"numpy {np.__version__}: {samples} samples, {values.size} keys, {len(buf)} bytes; "
        f"best of 3: {best * 1e3:.1f} ms, {samples / best:,.0f} samples/s, "
        f"{len(buf) / best / 1e6:.1f} MB/s"
    )


if __name__ == "__main__":
    main()
