"""Writes input that stresses the parser: gen_deep.py PATH KIND N, KIND one of
loops (N nested scf.for), brackets (an attribute N brackets deep), literal
(an integer constant of N digits, zeros then 7), hex (the same in hex),
quoted (N digits in a string attribute and a comment: not literals)."""
import sys

path, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if kind == "loops":
    text = ("func.func @deep(%A: memref<4xf32>, %n: index) {\n"
            "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
            + "".join("scf.for %%i%d = %%c0 to %%n step %%c1 {\n" % i for i in range(n))
            + "}\n" * n + "  return\n}\n")
elif kind == "brackets":
    text = ("func.func @deep() attributes {x = " + "[" * n + "]" * n + "} {\n"
            "  return\n}\n")
elif kind in ("literal", "hex"):
    digits = "0" * (n - 1) + "7"
    text = ("func.func @deep(%A: memref<4xi64>) {\n"
            "  %c0 = arith.constant 0 : index\n"
            "  %x = arith.constant " + ("0x" if kind == "hex" else "") + digits
            + " : i64\n  memref.store %x, %A[%c0] : memref<4xi64>\n  return\n}\n")
else:
    text = ("// " + "9" * n + "\n"
            "func.func @deep() attributes {x = \"" + "9" * n + "\"} {\n"
            "  return\n}\n")
with open(path, "w") as f:
    f.write(text)
