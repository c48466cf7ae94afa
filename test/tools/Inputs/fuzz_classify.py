"""The fuzzer's verdicts (scripts/fuzz_tile.py classify): what it accepts,
what it counts as a located diagnostic, and what it reports as a finding."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
import fuzz_tile  # noqa: E402


def proc(code, err=""):
    return subprocess.CompletedProcess([], code, "", err)


cases = [
    (proc(0), False, "accepted"),
    (proc(1, "k.mlir:3:8: error: 'tile.copy' op bad\n"), False, "diagnosed"),
    (proc(1, "error: something without a place\n"), False, "unlocated"),
    (proc(1, "k.mlir:3:8: error: x\nLLVM ERROR: boom\n"), False, "crash"),
    (proc(-11, ""), False, "crash"),
    (proc(134, "PLEASE submit a bug report\n"), False, "crash"),
    (proc(-9, "LLVM ERROR: out of memory\n"), False, "memory"),
    (proc(2, "tile-run: error: argument #0 ...\n"), True, "diagnosed"),
    (proc(2, "tile-run: error: x\nPLEASE submit a bug report\n"), True, "crash"),
    (None, False, "hang"),
    ("long run", True, "long run"),
]
for p, jit, expected in cases:
    got = fuzz_tile.classify(p, 1.0, 30.0, jit=jit)
    assert got == expected, (p, jit, got, expected)
print("classify: %d verdicts as expected" % len(cases))

# Every mutator changes some seed kernel, and the nesting mutation of a
# kernel keeps it valid often enough to reach the passes.
import random  # noqa: E402
rng = random.Random(5)
seeds = list(fuzz_tile.chunks())
for mutator in fuzz_tile.MUTATORS:
    assert any(mutator(text, rng) not in (None, text) for _, text in seeds[:40]), mutator
print("mutators: %d change kernels" % len(set(fuzz_tile.MUTATORS)))
