#!/usr/bin/env python3
"""Operator coverage: the builtin operators tessera runs, against TensorFlow Lite Micro, LiteRT
and tract, as a Markdown table (BENCHMARKS.md, "Operator coverage").

tessera's list is read from its registry (`lite-runtime/src/interpreter/kernels/mod.rs`, the
`builtin { ... }` rows) plus the control-flow and resource operators the interpreter runs
itself (`control-flow` feature). The peers' lists are files of one operator name per line,
made from their sources (the commands are in BENCHMARKS.md):

    tests/corpus/coverage.py --tflm tflm.txt --litert litert.txt --tract tract.txt

- TFLM: the `AddBuiltin(BuiltinOperator_X` calls of `micro_mutable_op_resolver.h`;
- LiteRT: those of `tflite/core/kernels/register.cc` (the builtin resolver, which the
  XNNPACK delegate sits on);
- tract: the `BuiltinOperator::X` names its `tflite/src/ops/*.rs` register (`reg.` lines).
"""

import argparse
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REGISTRY = os.path.join(ROOT, "lite-runtime/src/interpreter/kernels/mod.rs")
# Run by the interpreter itself (interpreter/control), not by a kernel in the registry.
CONTROL = ["WHILE", "IF", "CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE"]


def tessera_ops():
    text = open(REGISTRY).read()
    start = text.index("kernels! {\n    builtin {")
    block = text[start:text.index("custom {", start)]
    ops = set()
    for m in re.finditer(r"^\s*\w+:\s*\[([^\]]*)\]", block, re.M):
        ops.update(n.strip() for n in m.group(1).split(",") if n.strip())
    return ops | set(CONTROL)


def read(path):
    return {line.strip() for line in open(path) if line.strip()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tflm", required=True)
    ap.add_argument("--litert", required=True)
    ap.add_argument("--tract", required=True)
    a = ap.parse_args()
    t, m, l, r = tessera_ops(), read(a.tflm), read(a.litert), read(a.tract)
    every = sorted(t | m | l | r)
    yes = lambda s, op: "yes" if op in s else ""
    print("| operator | tessera | TFLM | LiteRT | tract |")
    print("| --- | :-: | :-: | :-: | :-: |")
    for op in every:
        print(f"| {op} | {yes(t, op)} | {yes(m, op)} | {yes(l, op)} | {yes(r, op)} |")
    print(f"| **builtins** | **{len(t)}** | **{len(m)}** | **{len(l)}** | **{len(r)}** |")
    print()
    print(f"TFLM's builtins tessera does not run: {', '.join(sorted(m - t)) or 'none'}.")
    print(f"LiteRT's builtins tessera does not run: {', '.join(sorted(l - t)) or 'none'}.")
    print(f"tract's builtins tessera does not run: {', '.join(sorted(r - t)) or 'none'}.")


if __name__ == "__main__":
    main()
