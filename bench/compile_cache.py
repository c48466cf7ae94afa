#!/usr/bin/env python3
"""Cold compile vs cache-hit load of the example GEMM through the JIT.

Runs `tile-run --explain` on examples/gemm_relu.mlir: first each time with an
empty cache directory (a cold compile: specialization, the tile-to-cpu
pipeline, LLVM optimization and code generation), then repeatedly against a
warm cache (a hit: parse, specialize, hash, load the stored object). Prints
the medians and their ratio. Not a test: timings depend on the machine.

On a GPU machine, --target=sm_90a (or any chip) measures the GPU pipeline
instead (tile-to-nvvm, PTX, the driver's load of the module);
--tile-run points at another tile-run binary (the GPU bundle's).

Usage: bench/compile_cache.py [--build build] [--tile-run PATH]
                              [--target cpu|CHIP] [--size N] [--runs 15]
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(tile_run, cache_dir, args):
    env = dict(os.environ, TILE_CACHE_DIR=cache_dir)
    env.pop("TILE_DISABLE_CACHE", None)
    out = subprocess.run([tile_run] + args, env=env, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    kind, seconds = re.search(r"^\s+(compile|load): ([0-9.]+) s$", out, re.M).groups()
    parts = re.search(r"of which compilation ([0-9.]+) s, load ([0-9.]+) s"
                      r"(?:; device initialization ([0-9.]+) s)?", out)
    return kind, float(seconds), [float(x or 0) for x in parts.groups()]


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--tile-run", help="tile-run binary (default: BUILD/bin/tile-run)")
    p.add_argument("--target", default="cpu", help="cpu or a GPU chip (sm_90a, gfx942)")
    p.add_argument("--size", type=int, default=1024, help="M = N = K of the specialization")
    p.add_argument("--runs", type=int, default=15)
    a = p.parse_args()
    tile_run = a.tile_run or os.path.join(a.build, "bin", "tile-run")
    shape = "--arg=%dx%d" % (a.size, a.size)
    args = [os.path.join(ROOT, "examples", "gemm_relu.mlir"), "--entry=gemm_relu",
            shape, shape, shape, "--target=" + a.target, "--no-check",
            "--explain", "--repeat=0", "--warmup=0"]
    cold, hit, cold_parts, hit_parts = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.runs):
            cache = os.path.join(tmp, "cold%d" % r)
            kind, s, parts = measure(tile_run, cache, args)
            assert kind == "compile", "expected a miss on an empty cache"
            cold.append(s)
            cold_parts.append(parts)
        warm = os.path.join(tmp, "cold0")
        for _ in range(a.runs):
            kind, s, parts = measure(tile_run, warm, args)
            assert kind == "load", "expected a hit on a warm cache"
            hit.append(s)
            hit_parts.append(parts)
    c, h = statistics.median(cold), statistics.median(hit)
    print("GEMM example (gemm_relu, %d^3 specialization, %s target), %d runs each"
          % (a.size, a.target, a.runs))
    print("cold compile: median %.1f ms (min %.1f, max %.1f)" % (c * 1e3, min(cold) * 1e3, max(cold) * 1e3))
    print("cache hit:    median %.2f ms (min %.2f, max %.2f)" % (h * 1e3, min(hit) * 1e3, max(hit) * 1e3))
    print("ratio cold / hit: %.1fx" % (c / h))
    for name, parts in (("cold", cold_parts), ("hit", hit_parts)):
        compiling, loading, init = (statistics.median(p[i] for p in parts)
                                    for i in range(3))
        print("  %s medians: compilation %.1f ms, load %.1f ms, device "
              "initialization %.1f ms (concurrent with the compilation)"
              % (name, compiling * 1e3, loading * 1e3, init * 1e3))


if __name__ == "__main__":
    main()
