#!/usr/bin/env python3
"""Writes demo.norm, the dataset `tessera` (no arguments) runs on: 1 024 Criteo-shaped samples
(1 label, 13 dense features, 26 slots of 1 to 3 u32 keys) in HugeCTR's Norm format with
checksums (error_check = 1: every record framed as [int32 length][payload][uint8 sum]).

Pure Python (struct + random with a fixed seed), so the file is reproducible anywhere:
    python3 lite-runtime/cli/demo/make_demo.py
"""
import os
import random
import struct

SAMPLES, LABEL, DENSE, SLOTS = 1024, 1, 13, 26
VOCAB_PER_SLOT = 400  # slot s holds keys in [s * 400, (s + 1) * 400): disjoint, as HugeCTR asks


def frame(payload: bytes) -> bytes:
    return struct.pack("<i", len(payload)) + payload + bytes([sum(payload) & 0xFF])


def main() -> None:
    rng = random.Random(20261122)
    out = [frame(struct.pack("<8q", 1, SAMPLES, LABEL, DENSE, SLOTS, 0, 0, 0))]
    for _ in range(SAMPLES):
        label = [float(rng.random() < 0.25)]
        dense = [round(rng.lognormvariate(0.0, 1.0), 3) for _ in range(DENSE)]
        body = struct.pack(f"<{LABEL + DENSE}f", *label, *dense)
        for s in range(SLOTS):
            keys = [s * VOCAB_PER_SLOT + rng.randrange(VOCAB_PER_SLOT) for _ in range(rng.randint(1, 3))]
            body += struct.pack("<i", len(keys)) + struct.pack(f"<{len(keys)}I", *keys)
        out.append(frame(body))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo.norm")
    with open(path, "wb") as f:
        f.write(b"".join(out))


if __name__ == "__main__":
    main()
