"""A notebook's cells: one model through LiteRT and through tessera (the kernels that run on
the device), and the largest difference. Run from the repository's root:

    python lite-runtime/python/examples/compare_litert.py
"""

import numpy as np
from ai_edge_litert.interpreter import Interpreter as LiteRT

import tessera

# %% The same inputs through both interpreters: only the import differs.
path = "tests/fixtures/models/image_float.tflite"
x = np.random.default_rng(0).standard_normal((1, 32, 32, 3)).astype(np.float32)
outputs = {}
for name, Interpreter in [("LiteRT", LiteRT), ("tessera", tessera.Interpreter)]:
    it = Interpreter(model_path=path)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    outputs[name] = it.get_tensor(it.get_output_details()[0]["index"])

# %% The largest difference, and where tessera spends its time.
print("largest difference:", float(np.max(np.abs(outputs["LiteRT"] - outputs["tessera"]))))
print("tessera's arena:", it.arena_bytes, "bytes")
for row in it.profile(runs=10)[:3]:
    print("%-20s %8.1f us" % (row["op"], row["ns"] / 1e3))
