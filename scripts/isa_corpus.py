#!/usr/bin/env python3
"""Compiles a fixed corpus of kernels to device assembly, to show that a
refactoring of the compiler leaves what it emits unchanged.

  scripts/isa_corpus.py --save DIR       # write DIR/<kernel>.<target>.s
  scripts/isa_corpus.py --compare DIR    # recompile, diff against DIR

The corpus: the examples, the benchmark kernels (bench/kernels), GEMMs from
test/Integration/Inputs/gen_gemm.py over element types, transposes, block
shapes, thread counts, stages, policies and epilogues (the benchmarked
128x256x64 ones among them), FlashAttention from bench/gen_attention.py in
its variants, and the Integration tests' own modules; each through
tile-to-nvvm for sm_90a and sm_80 (PTX) and, for a subset, tile-to-rocdl
for gfx942 and gfx1100 (AMDGPU assembly). A compile that fails is recorded
as its diagnostic, so a change in what fails shows too. Exits 1 when any
output differs (the first lines of each diff are printed).
"""

import argparse
import difflib
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN_GEMM = os.path.join(ROOT, "test", "Integration", "Inputs", "gen_gemm.py")
GEN_ATTENTION = os.path.join(ROOT, "bench", "gen_attention.py")

NVIDIA = {"sm_90a": "--tile-to-nvvm=chip=sm_90a format=isa",
          "sm_80": "--tile-to-nvvm=chip=sm_80 format=isa"}
# The ROCm device libraries as the build assembles them for lit.
ROCM = os.path.join(ROOT, "build", "rocm-toolkit")
AMD = {chip: "--tile-to-rocdl=chip=%s format=isa rocm-path=%s" % (chip, ROCM)
       for chip in ("gfx942", "gfx1100")}


def gemm_configs():
    """(name, gen_gemm.py arguments, AMD too)."""
    yield ("gemm_bench_tn_f16", "--dtype f16 --acc f32 --out f16 --block 128x256x64 "
           "--threads 256 --stages 4 --policy full_row --raster 8 --stage-epilogue --tb", True)
    yield ("gemm_bench_tn_bf16", "--dtype bf16 --acc f32 --out bf16 --block 128x256x64 "
           "--threads 256 --stages 4 --policy full_row --raster 8 --stage-epilogue --tb", False)
    yield ("gemm_bench_nn_f16", "--dtype f16 --acc f32 --out f16 --block 128x256x64 "
           "--threads 256 --stages 4 --policy full_row --raster 8 --stage-epilogue", False)
    for dtype, acc in (("f16", "f32"), ("f16", "f16"), ("bf16", "f32"),
                       ("f32", "f32"), ("i8", "i32")):
        for ta, tb in ((False, False), (False, True), (True, False)):
            flags = (" --ta" if ta else "") + (" --tb" if tb else "")
            name = "gemm_%s_%s%s%s" % (dtype, acc, "_ta" if ta else "", "_tb" if tb else "")
            yield (name, "--dtype %s --acc %s%s" % (dtype, acc, flags), dtype == "f16")
    for block, threads in (("128x128x32", 128), ("128x128x64", 256), ("64x128x32", 128),
                           ("128x64x64", 128), ("256x128x64", 256), ("64x256x64", 128)):
        for stages in (2, 3):
            for policy in ("square", "full_row", "full_col"):
                name = "gemm_%s_t%d_s%d_%s" % (block, threads, stages, policy)
                yield (name, "--dtype f16 --acc f32 --block %s --threads %d --stages %d "
                       "--policy %s --tb" % (block, threads, stages, policy), False)
    yield ("gemm_128x128x32_epilogue", "--dtype f16 --acc f32 --out f16 --block 128x128x32 "
           "--threads 128 --stages 3 --stage-epilogue --raster 4", True)
    yield ("gemm_128x256x64_nt", "--dtype f16 --acc f32 --block 128x256x64 --threads 256 "
           "--stages 3 --ta --tb", False)


def attention_configs():
    yield ("attention_default", "")
    yield ("attention_overlap", "--overlap")
    yield ("attention_d64", "--dim 64")
    yield ("attention_128x128_t256", "--block-m 128 --block-n 128 --threads 256 --stages 2")
    yield ("attention_staged", "--stage-output")
    yield ("attention_split", "--split 2")


def corpus():
    """(name, source text, targets)."""
    both = dict(NVIDIA, **AMD)
    for folder in ("examples", os.path.join("bench", "kernels")):
        for f in sorted(os.listdir(os.path.join(ROOT, folder))):
            if f.endswith(".mlir"):
                with open(os.path.join(ROOT, folder, f)) as fh:
                    yield (os.path.splitext(f)[0], fh.read(), both)
    integration = os.path.join(ROOT, "test", "Integration")
    for f in sorted(os.listdir(integration)):
        if f.endswith(".mlir"):
            with open(os.path.join(integration, f)) as fh:
                yield ("integration_" + os.path.splitext(f)[0], fh.read(), NVIDIA)
    for name, args, amd in gemm_configs():
        src = subprocess.run([sys.executable, GEN_GEMM] + args.split(), check=True,
                             capture_output=True, text=True).stdout
        yield (name, src, both if amd else NVIDIA)
    for name, args in attention_configs():
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "build", "python"))
        run = subprocess.run([sys.executable, GEN_ATTENTION] + args.split(),
                             capture_output=True, text=True, env=env)
        if run.returncode != 0:
            sys.exit("%s %s failed:\n%s" % (GEN_ATTENTION, args, run.stderr))
        yield (name, run.stdout, NVIDIA)


def normalize(text):
    """The host module, then each gpu.binary's assembly decoded one
    instruction per line, without the compile times the binaries record."""
    text = re.sub(r"\w+TimeInMs = \d+ : i64, ", "", text)
    parts = []

    def keep(match):
        parts.append(re.sub(r"\\([0-9A-Fa-f]{2})",
                            lambda m: chr(int(m.group(1), 16)), match.group(1)))
        return 'assembly = "<binary %d>"' % (len(parts) - 1)
    host = re.sub(r'assembly = "(.*?)"(?=>|,)', keep, text, flags=re.S)
    return "\n".join([host] + ["// ---- binary %d\n%s" % (i, asm)
                               for i, asm in enumerate(parts)])


def compile_one(tile_opt, name, source, target, flag):
    run = subprocess.run([tile_opt, flag], input=source, capture_output=True, text=True)
    text = normalize(run.stdout) if run.returncode == 0 else "FAILED\n" + run.stderr
    return "%s.%s.s" % (name, target), text


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--save", metavar="DIR")
    mode.add_argument("--compare", metavar="DIR")
    p.add_argument("--tile-opt", default=os.path.join(ROOT, "build", "bin", "tile-opt"))
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = p.parse_args()

    jobs = [(name, src, target, flag) for name, src, targets in corpus()
            for target, flag in targets.items()]
    with ThreadPoolExecutor(args.jobs) as pool:
        outputs = list(pool.map(lambda j: compile_one(args.tile_opt, *j), jobs))
    failed = sum(text.startswith("FAILED") for _, text in outputs)
    if args.save:
        os.makedirs(args.save, exist_ok=True)
        for file, text in outputs:
            with open(os.path.join(args.save, file), "w") as f:
                f.write(text)
        print("%d outputs saved in %s (%d compiles failed)" % (len(outputs), args.save, failed))
        return 0
    differ = 0
    for file, text in outputs:
        path = os.path.join(args.compare, file)
        old = open(path).read() if os.path.exists(path) else "MISSING\n"
        if old != text:
            differ += 1
            diff = list(difflib.unified_diff(old.splitlines(), text.splitlines(),
                                             "before/" + file, "after/" + file, lineterm=""))
            print("\n".join(diff[:40]))
    print("%d outputs, %d identical, %d differ (%d compiles failed)"
          % (len(outputs), len(outputs) - differ, differ, failed))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
