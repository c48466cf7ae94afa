"""Writes deeply nested input: gen_deep.py PATH loops N | brackets N."""
import sys

path, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if kind == "loops":
    text = ("func.func @deep(%A: memref<4xf32>, %n: index) {\n"
            "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
            + "".join("scf.for %%i%d = %%c0 to %%n step %%c1 {\n" % i for i in range(n))
            + "}\n" * n + "  return\n}\n")
else:
    text = ("func.func @deep() attributes {x = " + "[" * n + "]" * n + "} {\n"
            "  return\n}\n")
with open(path, "w") as f:
    f.write(text)
