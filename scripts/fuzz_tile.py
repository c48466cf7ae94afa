#!/usr/bin/env python3
"""Structure-aware fuzzing of the tile dialect and every pipeline.

Starts from the valid kernels of the tree (the dialect's roundtrip tests,
the examples, the integration inputs, the benchmark kernels: each split
chunk that tile-opt accepts), mutates what the dialect is made of rather
than raw tokens (a memref extent, an element type, a memory space, an
integer attribute such as num_stages, threads, cluster or a reduction dim,
an index constant, a tile op's attributes (gemm transposes, policies,
clear_accum, wg_wait; reduction kinds and clear; cumsum's reverse), the
nesting (an op moved into new scf.for / scf.if / tile.parallel regions,
one to three deep), a whole op line dropped or duplicated), and runs each
mutant through tile-opt's passes, the CPU, NVIDIA and AMD pipelines and
the JIT (tile-run on the CPU with arguments drawn from the signature)
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
A tile-run kernel that compiled but runs past --run-timeout is a "long
run" (the program's own work, e.g. a grid of 2^31 blocks), not a finding.

A tile-run rejection is "diagnosed" when it is located in the input or is
tile-run's own error about the arguments.

With --differential it runs the differential fuzzers instead: random small
tile programs (python/tests/program_fuzz.py: maps, reductions, K loops,
gemms, prefix sums) and random copies of regions (copy_fuzz.py), on the
CPU against their numpy models, alternating for --minutes; with --target
sm_90a (on a GPU machine) each program also runs on the GPU with torch
tensors and is checked against the model and the CPU.

Usage: fuzz_tile.py [--build DIR] [--seed N] [--minutes M | --count N]
                    [--timeout S] [--memory-mb MB] [--out DIR]
                    [--differential [--target T]]
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
               "--tile-infer-layout", "--convert-tile-to-gpu", "--tile-place-shared-memory=reuse-shared-memory=true"],
    "cpu": ["--tile-to-cpu"],
    "sm_80": ["--tile-to-nvvm=chip=sm_80 format=isa"],
    "sm_90a": ["--tile-to-nvvm=chip=sm_90a format=isa"],
    "gfx942": ["--tile-to-rocdl=chip=gfx942 format=isa"],
    "tile-run": None,  # The JIT: see jit_command.
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


GEMM_ATTRS = ["transpose_a", "transpose_b", "clear_accum", "policy = #tile.policy<square>",
              "policy = #tile.policy<full_row>", "policy = #tile.policy<full_col>",
              "wg_wait = 1", "wg_wait = -1", "wg_wait = 7"]
REDUCE_KINDS = ["sum", "max", "min", "abssum", "absmax", "mean", "prod"]


def mutate_tile_attr(text, rng):
    """A tile op's attributes: gemm flags toggled, a reduction's kind or
    clear flag, cumsum's direction."""
    lines = text.splitlines()
    targets = [i for i, l in enumerate(lines)
               if re.search(r"\btile\.(gemm|reduce|cumsum) ", l)]
    if not targets:
        return None
    i = rng.choice(targets)
    line = lines[i]
    if "tile.gemm" in line:
        m = re.search(r" \{([^{}]*)\} :", line)
        attrs = [a.strip() for a in m.group(1).split(",")] if m else []
        attr = rng.choice(GEMM_ATTRS)
        key = attr.split(" =")[0]
        present = [a for a in attrs if a.split(" =")[0] == key]
        attrs = [a for a in attrs if a.split(" =")[0] != key] + ([] if present and
                                                                  rng.random() < 0.5 else [attr])
        body = " {%s}" % ", ".join(attrs) if attrs else ""
        if m:
            line = line[:m.start()] + body + " :" + line[m.end():]
        else:
            line = re.sub(r" :", body + " :", line, count=1)
    elif "tile.reduce" in line:
        if rng.random() < 0.5:
            line = re.sub(r"<\w+>", "<%s>" % rng.choice(REDUCE_KINDS), line, count=1)
        elif "clear = false" in line:
            line = line.replace(" {clear = false}", "")
        else:
            line = re.sub(r"(dim -?\d+)", r"\1 {clear = false}", line, count=1)
    else:
        line = line.replace(" {reverse}", "") if "{reverse}" in line else \
            re.sub(r"(dim -?\d+)", r"\1 {reverse}", line, count=1)
    lines[i] = line
    return "\n".join(lines)


def mutate_nesting(text, rng):
    """An op without results moved into one to three new regions (scf.for
    with constant or zero trip counts, scf.if, a tile.parallel), with the
    constants they need defined right before."""
    lines = text.splitlines()
    ops = [i for i, l in enumerate(lines)
           if re.match(r"\s+(tile|memref)\.\w+ ", l) and "{" not in l.split(":")[0]]
    if not ops:
        return None
    i = rng.choice(ops)
    indent = re.match(r"\s*", lines[i]).group(0)
    opening, closing = [], []
    for depth in range(rng.choice([1, 1, 2, 3])):
        tag = "%%fz%d_%d" % (i, depth)
        kind = rng.randrange(4)
        if kind == 0:
            trips = rng.choice([0, 1, 2, 3])
            opening += ["%s = arith.constant 0 : index" % (tag + "lo"),
                        "%s = arith.constant %d : index" % (tag + "hi", trips),
                        "%s = arith.constant 1 : index" % (tag + "st"),
                        "scf.for %s = %slo to %shi step %sst {" % (tag, tag, tag, tag)]
        elif kind == 1:
            opening += ["%sc = arith.constant %s" % (tag, rng.choice(["true", "false"])),
                        "scf.if %sc {" % tag]
        elif kind == 2:
            opening += ["tile.parallel (%s) in (%d) {" % (tag, rng.choice([1, 4, 32]))]
        else:
            opening += ["scf.execute_region {"]
        # The inner region closes first.
        closing = (["scf.yield", "}"] if kind == 3 else ["}"]) + closing
    lines[i:i + 1] = ([indent + l for l in opening] + [lines[i]]
                      + [indent + l for l in closing])
    return "\n".join(lines)


MUTATORS = [mutate_memref, mutate_memref, mutate_int, mutate_int, mutate_lines,
            mutate_tile_attr, mutate_nesting]

SIGNATURE = re.compile(r"func\.func @([\w$.]+)\(([^)]*)\)")


def jit_command(tool_dir, path, text, rng):
    """tile-run on the CPU with an argument per parameter of the first
    function: static shapes as written, dynamic ones drawn (0 now and
    then, the same for every '?'), scalars small or hostile; None when
    there is no function."""
    m = SIGNATURE.search(text)
    if not m:
        return None
    args = []
    dynamic = str(rng.choice([0, 1, 3, 17, 64, 100]))  # every '?' alike
    for param in re.findall(r"%[\w$.]+\s*:\s*((?:memref<[^>]*(?:<[^>]*>[^>]*)*>)|[\w<>.]+)",
                            m.group(2)):
        if param.startswith("memref<"):
            dims = param[len("memref<"):].split(",")[0].split("x")[:-1]
            shape = [d if d != "?" else dynamic for d in dims]
            args.append("--arg=" + ("x".join(shape) if shape else "1"))
        elif param.startswith(("f", "bf")):
            args.append("--arg=%s" % rng.choice(["0.5", "-2", "1e30", "0"]))
        else:
            args.append("--arg=%d" % rng.choice([0, 1, 7, 64, -1, 2 ** 31]))
    return [os.path.join(tool_dir, "tile-run"), path, "--entry=" + m.group(1),
            "--target=cpu", "--repeat=1", "--warmup=0"] + args


def limits(memory_mb):
    def apply():
        size = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def classify(proc, elapsed, timeout, jit=False):
    if proc == "long run":
        return proc
    if proc is None or elapsed >= timeout:
        return "hang"
    err = proc.stderr
    if proc.returncode == 0:
        return "accepted"
    if jit and proc.returncode == 2 and "tile-run: " in err and \
            "LLVM ERROR" not in err and "PLEASE submit" not in err:
        return "diagnosed"  # tile-run's own errors (arguments, sizes)
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
    parser.add_argument("--run-timeout", type=float, default=5,
                        help="tile-run: seconds a kernel may run after compiling")
    parser.add_argument("--memory-mb", type=int, default=4096)
    parser.add_argument("--out", default="/tmp/tile-fuzz")
    parser.add_argument("--pipelines", default=",".join(PIPELINES))
    parser.add_argument("--differential", action="store_true",
                        help="run the differential fuzzers (program_fuzz, copy_fuzz)")
    parser.add_argument("--target", default="cpu",
                        help="--differential: cpu, or a GPU target (torch tensors)")
    args = parser.parse_args()
    tool = os.path.join(args.build, "bin", "tile-opt")
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(args.out, "work")
    os.makedirs(work, exist_ok=True)

    if args.differential:
        return differential(args)
    # The JIT compiles into a cache of its own: the run after the
    # compile-only step loads what that step compiled.
    env = dict(os.environ, TILE_CACHE_DIR=os.path.join(args.out, "cache"),
               TILE_CACHE_MAX_BYTES="256M")

    def run(text, pipeline, name):
        path = os.path.join(work, name + ".mlir")
        with open(path, "w") as f:
            f.write(text)
        cmd = None
        if pipeline == "tile-run":
            cmd = jit_command(os.path.dirname(tool), path, text, rng)
        if cmd is None:
            cmd = [tool, path, "-o", os.devnull] + (PIPELINES[pipeline] or [])
        def attempt(cmd, timeout):
            begin = time.time()
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                      preexec_fn=limits(args.memory_mb), env=env)
            except subprocess.TimeoutExpired:
                proc = None
            return proc, time.time() - begin

        if pipeline != "tile-run" or cmd[0].endswith("tile-opt"):
            return (cmd,) + attempt(cmd, args.timeout)
        # The JIT: the compile must finish within the limit; the run may
        # legitimately take long (a grid of 2^31 blocks is the program's
        # work), so its time-out is an outcome of its own, not a finding.
        proc, elapsed = attempt(cmd + ["--compile-only"], args.timeout)
        if proc is None or proc.returncode != 0:
            return cmd + ["--compile-only"], proc, elapsed
        proc, elapsed = attempt(cmd, args.run_timeout)
        if proc is None:
            return cmd, "long run", elapsed
        return cmd, proc, elapsed

    seeds = []
    for name, text in chunks():
        cmd, proc, _ = run(text, "verify", "seed")
        if proc is not None and proc.returncode == 0:
            seeds.append((name, text))
    print("fuzz_tile: %d valid seed kernels, pipelines %s" % (len(seeds), args.pipelines),
          flush=True)
    if not seeds:
        # (Under AddressSanitizer, whose shadow memory the address-space
        # limit forbids, nothing starts.)
        sys.exit("fuzz_tile: no seed kernel passes `%s` under the limits; is the "
                 "build usable (and not an ASan build)?" % tool)
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
        outcome = classify(proc, elapsed, args.timeout, jit=pipeline == "tile-run")
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome not in ("accepted", "diagnosed", "long run"):
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


def differential(args):
    """program_fuzz and copy_fuzz in turns of about a minute, each turn from
    the next seed, until --minutes (or --count cases) are done."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(args.build, "python"), os.path.join(ROOT, "python", "tests")]
        + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    deadline = time.time() + args.minutes * 60
    totals = {}
    failed = 0
    turn = 0
    while time.time() < deadline:
        fuzzer = ["program_fuzz.py", "copy_fuzz.py"][turn % 2]
        seed = args.seed * 1000 + turn
        turn += 1
        budget = max(5.0, min(60.0, deadline - time.time()))
        cmd = [sys.executable, os.path.join(ROOT, "python", "tests", fuzzer),
               "--seed", str(seed), "--count", str(args.count or 100000),
               "--budget", str(budget), "--target", args.target]
        if args.target != "cpu":
            cmd.append("--torch")
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
        m = re.search(r": (\d+) cases, (\d+) failed", summary)
        if not m or proc.returncode not in (0, 1):
            # It did not run (an import error) or died: no point going on.
            print("%s seed %d: exit %d\n%s%s" % (fuzzer, seed, proc.returncode,
                                                 proc.stdout[-3000:], proc.stderr[-3000:]))
            failed += 1
            break
        cases, fails = int(m.group(1)), int(m.group(2))
        name = fuzzer[:-3]
        totals[name] = totals.get(name, 0) + cases
        failed += fails
        for line in proc.stdout.splitlines():
            if line.startswith(("FAIL", "refused")):
                print(line, flush=True)
        print(summary, flush=True)
    print("fuzz_tile --differential: %s; %d failed" % (
        ", ".join("%s %d cases" % kv for kv in sorted(totals.items())), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
