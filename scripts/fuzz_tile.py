#!/usr/bin/env python3
"""Structure-aware fuzzing of the tile dialect and every pipeline.

Starts from the valid kernels of the tree (the dialect's roundtrip tests,
the examples, the integration inputs, the benchmark kernels: each split
chunk that tile-opt accepts), mutates what the dialect is made of rather
than raw tokens (a memref extent, an element type, a memory space, an
integer attribute such as num_stages, threads, cluster or a reduction dim,
an index constant, a whole op line dropped or duplicated), and runs each
mutant through tile-opt's passes and the CPU, NVIDIA and AMD pipelines
under a time and memory limit.

Every run is one of:
  accepted    exit 0;
  diagnosed   exit 1 with an error located in the input (FILE:LINE:COL:
              error: ...);
and anything else is a finding, saved under --out with the input, the
command and its output:
  unlocated   exit 1 whose error names no line of the input (or an LLVM
              ERROR / internal error text);
  crash       a signal or an abort;
  hang        over --timeout seconds;
  memory      over --memory-mb (killed by the address-space limit).

Usage: fuzz_tile.py [--build DIR] [--seed N] [--minutes M | --count N]
                    [--timeout S] [--memory-mb MB] [--out DIR]
Prints the counts per outcome and exits 1 if there were findings.
"""
import argparse
import glob
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PIPELINES = {
    "verify": [],
    "canonicalize": ["--canonicalize", "--cse"],
    "infer-layout": ["--tile-attach-target=kind=cuda chip=sm_90a", "--tile-infer-layout"],
    "plan-pipelines": ["--tile-attach-target=kind=cuda chip=sm_90a", "--tile-plan-pipelines"],
    "to-gpu": ["--tile-attach-target=kind=cuda chip=sm_90a", "--tile-plan-pipelines",
               "--tile-infer-layout", "--convert-tile-to-gpu=reuse-shared-memory=true"],
    "cpu": ["--tile-to-cpu"],
    "sm_80": ["--tile-to-nvvm=chip=sm_80 format=isa"],
    "sm_90a": ["--tile-to-nvvm=chip=sm_90a format=isa"],
    "gfx942": ["--tile-to-rocdl=chip=gfx942 format=isa"],
}

ELEMENT_TYPES = ["f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64",
                 "index", "f8E4M3FN", "f8E5M2", "si8", "ui8", "tf32", "complex<f32>"]
SPACES = ["#tile.mem<shared>", "#tile.mem<fragment>", "#tile.mem<local>", ""]
HOSTILE_INTS = [0, 1, 2, 3, -1, -2, 7, 31, 33, 127, 128, 255, 1023, 1024, 1025, 65536,
                2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 62, 2 ** 63 - 1]

MEMREF = re.compile(r"memref<([^<>]*(?:<[^<>]*>[^<>]*)*)>")
INT_ATTR = re.compile(r"\b(num_stages = |threads\(|cluster\(|dim |grid\()(-?\d+)")
CONSTANT = re.compile(r"arith\.constant (-?\d+) : index")
LOCATED = re.compile(r"^[^:\n]+:\d+:\d+: error: ", re.M)


def chunks():
    """The valid inputs: every split chunk of the tree's kernels."""
    files = (glob.glob(os.path.join(ROOT, "test", "Dialect", "Tile", "ops.mlir"))
             + glob.glob(os.path.join(ROOT, "test", "Dialect", "Tile", "canonicalize.mlir"))
             + glob.glob(os.path.join(ROOT, "examples", "*.mlir"))
             + glob.glob(os.path.join(ROOT, "test", "Integration", "*.mlir"))
             + glob.glob(os.path.join(ROOT, "test", "Transforms", "*.mlir"))
             + glob.glob(os.path.join(ROOT, "bench", "kernels", "*.mlir")))
    for path in sorted(files):
        with open(path) as f:
            text = f.read()
        for i, chunk in enumerate(text.split("// -----")):
            body = "\n".join(l for l in chunk.splitlines() if not l.lstrip().startswith("//"))
            if "tile." in body:
                yield "%s#%d" % (os.path.relpath(path, ROOT), i), body


def mutate_memref(text, rng):
    matches = list(MEMREF.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    parts = m.group(1).split(",", 1)
    dims = parts[0].split("x")
    kind = rng.randrange(3)
    if kind == 0 and len(dims) > 1:                       # an extent
        i = rng.randrange(len(dims) - 1)
        dims[i] = str(rng.choice([0, 1, 2, 3, 5, 17, 64, 65, 129, 1000, 4096, 65536,
                                  2 ** 31, 2 ** 62]))
    elif kind == 1:                                       # the element type
        dims[-1] = rng.choice(ELEMENT_TYPES)
    else:                                                 # the memory space
        space = rng.choice(SPACES)
        rest = ("," + parts[1]) if len(parts) > 1 else ""
        rest = re.sub(r",\s*#tile\.mem<\w+>", "", rest)
        new = "x".join(dims) + rest + (", " + space if space else "")
        return text[:m.start(1)] + new + text[m.end(1):]
    new = "x".join(dims) + ("," + parts[1] if len(parts) > 1 else "")
    # The same type everywhere it is written, or only here.
    if rng.random() < 0.5:
        return text.replace("memref<%s>" % m.group(1), "memref<%s>" % new)
    return text[:m.start(1)] + new + text[m.end(1):]


def mutate_int(text, rng):
    matches = list(INT_ATTR.finditer(text)) + list(CONSTANT.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    group = 2 if m.re is INT_ATTR else 1
    value = rng.choice(HOSTILE_INTS)
    return text[:m.start(group)] + str(value) + text[m.end(group):]


def mutate_lines(text, rng):
    lines = text.splitlines()
    ops = [i for i, l in enumerate(lines) if re.match(r"\s+(%\S+ = )?(tile|memref|arith|scf)\.", l)]
    if not ops:
        return None
    i = rng.choice(ops)
    if rng.random() < 0.5:
        del lines[i]
    else:
        lines.insert(rng.choice(ops), lines[i])
    return "\n".join(lines)


MUTATORS = [mutate_memref, mutate_memref, mutate_int, mutate_int, mutate_lines]


def limits(memory_mb):
    def apply():
        size = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def classify(proc, elapsed, timeout):
    if proc is None or elapsed >= timeout:
        return "hang"
    err = proc.stderr
    if proc.returncode == 0:
        return "accepted"
    if proc.returncode < 0 or proc.returncode > 1:
        if "out of memory" in err or "std::bad_alloc" in err or \
                "Cannot allocate memory" in err:
            return "memory"
        return "crash"
    if "LLVM ERROR" in err or "PLEASE submit a bug report" in err:
        return "crash"
    if not LOCATED.search(err):
        return "unlocated"
    return "diagnosed"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=0, help="runs (default: --minutes)")
    parser.add_argument("--minutes", type=float, default=5)
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--memory-mb", type=int, default=4096)
    parser.add_argument("--out", default="/tmp/tile-fuzz")
    parser.add_argument("--pipelines", default=",".join(PIPELINES))
    args = parser.parse_args()
    tool = os.path.join(args.build, "bin", "tile-opt")
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(args.out, "work")
    os.makedirs(work, exist_ok=True)

    def run(text, pipeline, name):
        path = os.path.join(work, name + ".mlir")
        with open(path, "w") as f:
            f.write(text)
        cmd = [tool, path, "-o", os.devnull] + PIPELINES[pipeline]
        begin = time.time()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                                  preexec_fn=limits(args.memory_mb))
        except subprocess.TimeoutExpired:
            proc = None
        return cmd, proc, time.time() - begin

    seeds = []
    for name, text in chunks():
        cmd, proc, _ = run(text, "verify", "seed")
        if proc is not None and proc.returncode == 0:
            seeds.append((name, text))
    print("fuzz_tile: %d valid seed kernels, pipelines %s" % (len(seeds), args.pipelines),
          flush=True)
    pipelines = args.pipelines.split(",")
    counts = {}
    findings = 0
    deadline = time.time() + args.minutes * 60
    n = 0
    while (n < args.count) if args.count else (time.time() < deadline):
        n += 1
        origin, text = rng.choice(seeds)
        steps = []
        for _ in range(rng.choice([1, 1, 2, 3])):
            mutator = rng.choice(MUTATORS)
            mutated = mutator(text, rng)
            if mutated is not None:
                text = mutated
                steps.append(mutator.__name__)
        pipeline = rng.choice(pipelines)
        cmd, proc, elapsed = run(text, pipeline, "current")
        outcome = classify(proc, elapsed, args.timeout)
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome not in ("accepted", "diagnosed"):
            findings += 1
            case = os.path.join(args.out, "%s-%d-%d" % (outcome, args.seed, n))
            os.makedirs(case, exist_ok=True)
            shutil.copy(os.path.join(work, "current.mlir"), os.path.join(case, "input.mlir"))
            with open(os.path.join(case, "README.txt"), "w") as f:
                f.write("from %s, mutations %s, pipeline %s, %.1f s\n%s\n\n%s\n" % (
                    origin, steps, pipeline, elapsed, " ".join(cmd),
                    proc.stderr[-6000:] if proc else "(timed out)"))
            print("%s: %s (%s via %s)" % (outcome, case, origin, pipeline), flush=True)
    print("fuzz_tile: %d runs: %s" % (n, ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
