#!/usr/bin/env python3
"""Compares the lowering variants of the project's kernels (pass_configs:
tile-run's flags with '_' for '-', include/TileLang/Pipelines/
CompileOptions.def), kernels against each other and against their peers on
one GPU, with the one timer of bench/measure.py.

An experiment is a row of EXPERIMENTS below: problems (a GEMM, an attention,
a row operation: shapes, dtypes, the torch reference and the peers), the
variants (a kernel source, the kernel files or a generator's output, and
its pass_configs) and the peers to time. One runner does every experiment:
fresh random inputs for each problem, outputs poisoned with NaN, each
variant run once and checked against torch on the experiment's small
(ragged) check shapes and on the timed shapes (a wrong or failing variant
is reported and not timed, and peers are checked the same way), then every
variant and peer timed interleaved (variant, variant, peer, ..., repeated)
for --rounds rounds with timing.py's kernel_ms (CUPTI kernel time) and
bench_ms (what a caller sees). Printed: medians, TFLOP/s or GB/s, the
ratio to the first variant and to each peer (other's time / this time,
the median of the rounds' ratios: above 1, this one is faster); --out
keeps every sample. Two experiments have their own timer: `launch` (host
wall clock per call and synchronize) and `compile` (a cold compile in a
fresh process with an empty cache, against Triton's).

On the GPU machine (scripts/gpu/run_suite.sh's `experiments` section):

    PYTHONPATH=<package> python3 bench/experiments.py --only pgemm --out pgemm.json

(timing.py on the import path, in $TIMING_DIR or in .peers/). Without a GPU,
--compile-only compiles every variant for sm_90a, specialized to each
problem's shapes as the JIT would (no torch needed), and --list shows the
table. Nsight Compute or compute-sanitizer, whose own instrumentation the
profiler's timers would disturb, run one experiment untimed:

    ncu --target-processes all -k regex:gemm -c 4 \\
        python3 bench/experiments.py --only pgemm --ncu
    compute-sanitizer --tool racecheck python3 bench/experiments.py \\
        --only ws-attention --checks-only
"""

import argparse
import collections
import functools
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from tilelang_mlir import _tilelang

from common import ROOT, TARGET, import_timing, interleave, mismatch, sdpa_peers, write_record

# ---------------------------------------------------------------------------
# Kernel sources
# ---------------------------------------------------------------------------


class File:
    """A kernel file of the repository; `entry` names its function (default:
    the problem's)."""

    def __init__(self, path, entry=None):
        self.path, self.entry = path, entry

    def command(self, problem):
        return None

    def __str__(self):
        return self.path


class GenGemm:
    """test/Integration/Inputs/gen_gemm.py's GEMM in the problem's dtype (f32
    accumulation, C in the input type) and layout (TN: --tb), with these
    tiles, threads, stages, rasterization panel, warp policy (None: the
    dialect's) and, with `staged`, C written through a shared tile."""
    entry = "gemm"

    def __init__(self, block, threads, stages, raster=0, policy="full_row", staged=False):
        self.flags = ["--block", block, "--threads", str(threads), "--stages", str(stages)]
        if policy:
            self.flags += ["--policy", policy]
        if raster:
            self.flags += ["--raster", str(raster)]
        if staged:
            self.flags.append("--stage-epilogue")

    def command(self, problem):
        dtype = ["--dtype", problem.dtype, "--acc", "f32", "--out", problem.dtype]
        return ([os.path.join(ROOT, "test", "Integration", "Inputs", "gen_gemm.py")] + dtype
                + (["--tb"] if problem.layout == "tn" else []) + self.flags)

    def __str__(self):
        return "gen_gemm.py " + " ".join(self.flags)


class GenAttention:
    """bench/gen_attention.py's FlashAttention (both entries) at the
    problem's head dimension, with these arguments."""
    entry = None

    def __init__(self, *flags):
        self.flags = list(flags)

    def command(self, problem):
        return ([os.path.join(ROOT, "bench", "gen_attention.py"), "--dim", str(problem.d)]
                + self.flags)

    def __str__(self):
        return "gen_attention.py " + " ".join(self.flags)


_texts = {}


def reason(err):
    """Why something failed, in one line: the last line a generator or a
    child process wrote to stderr (its exception), else the error's own
    lines (the compiler's diagnostics) joined."""
    stderr = (getattr(err, "stderr", None) or "").strip()
    if stderr:
        return stderr.splitlines()[-1]
    return " ".join(str(err).split())[:500] or repr(err)


def source_text(source, problem):
    """The tile IR of `source` for `problem` (generators run once per
    command line)."""
    command = source.command(problem)
    key = tuple(command) if command else source.path
    if key not in _texts:
        if command:
            _texts[key] = subprocess.run([sys.executable] + command, check=True,
                                         capture_output=True, text=True).stdout
        else:
            with open(os.path.join(ROOT, source.path)) as f:
                _texts[key] = f.read()
    return _texts[key]


Variant = collections.namedtuple("Variant", "label source configs")


def entry_of(variant, problem):
    return variant.source.entry or problem.entry


# ---------------------------------------------------------------------------
# Problems: shapes, inputs, the torch reference, the peers
# ---------------------------------------------------------------------------

# args: the kernel's arguments; out: the tensor it writes, compared with
# want; reset: poisons out (or restores what the kernel updates in place).
Inputs = collections.namedtuple("Inputs", "args out want reset")


def torch_dtype(name):
    import torch
    return {"f16": torch.float16, "bf16": torch.bfloat16}[name]


class Gemm:
    """C = A B (NN: B stored K x N) or A B^T (TN: B stored N x K), optionally
    followed by ReLU; reference in f32. Peers: cuBLAS (torch.matmul, and
    torch.relu), Triton (bench/triton_peers.py, autotuned)."""
    entry = "gemm"
    atol, rtol = 1.0, 3e-2

    def __init__(self, m, n, k, dtype="f16", layout="tn", relu=False):
        self.m, self.n, self.k, self.dtype, self.layout, self.relu = m, n, k, dtype, layout, relu
        self.flops, self.bytes = 2 * m * n * k, None
        self.label = "%s %s %dx%dx%d%s" % (layout.upper(), dtype, m, n, k,
                                           " + ReLU" if relu else "")
        b = (n, k) if layout == "tn" else (k, n)
        self.shapes = [(m, k), b, (m, n)]

    def product(self, a, b):
        return a @ (b.t() if self.layout == "tn" else b)

    def inputs(self):
        import torch
        a, b, c = (torch.randn(*s, device="cuda", dtype=torch_dtype(self.dtype))
                   for s in self.shapes)
        want = self.product(a.float(), b.float())
        if self.relu:
            want = torch.relu(want)
        return Inputs([a, b, c], c, want, lambda: c.fill_(math.nan))

    def peers(self, args):
        import torch
        a, b, _ = args
        c = torch.empty(self.m, self.n, device="cuda", dtype=a.dtype)

        def cublas():
            out = self.product(a, b)
            return torch.relu(out) if self.relu else out

        def triton():
            from triton_peers import launch, tuned
            launch(tuned, a, b.t() if self.layout == "tn" else b, c)
            return c
        return {"cuBLAS": cublas, "Triton": triton}


class Attention:
    """FlashAttention forward, f16 [B, H, S, D] (BHSD), causal or not; the
    reference and the peers are torch SDPA (its cuDNN and flash backends).
    `growing`: test/Python/Inputs/growing_scores.py's inputs (1x2x300x128,
    row maxima growing along the keys) instead of random ones."""
    atol, rtol = 2e-2, 2e-2

    def __init__(self, b, h, s, d, causal, growing=False):
        self.b, self.h, self.s, self.d, self.causal, self.growing = b, h, s, d, causal, growing
        self.entry = "flash_attention_causal" if causal else "flash_attention"
        self.flops = 4 * b * h * s * s * d // (2 if causal else 1)
        self.bytes = None
        self.label = "attention b%d h%d s%d d%d f16%s%s" % (
            b, h, s, d, ", causal" if causal else "", ", growing maxima" if growing else "")
        self.shapes = [(b, h, s, d)] * 4

    def inputs(self):
        import torch
        import torch.nn.functional as F
        if self.growing:
            import numpy as np
            with tempfile.TemporaryDirectory() as tmp:
                subprocess.run([sys.executable, os.path.join(
                    ROOT, "test", "Python", "Inputs", "growing_scores.py"), tmp], check=True)
                q, k, v = (torch.from_numpy(np.load(os.path.join(tmp, n + ".npy"))).cuda()
                           for n in "qkv")
        else:
            q, k, v = (torch.randn(*self.shapes[0], device="cuda", dtype=torch.float16)
                       for _ in range(3))
        o = torch.empty_like(q)
        want = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        return Inputs([q, k, v, o], o, want, lambda: o.fill_(math.nan))

    def peers(self, args):
        q, k, v, _ = args
        return sdpa_peers(q, k, v, self.causal)


class Rows:
    """A row operation on a [rows, 1024] f32 tensor: softmax, or RMSNorm
    (weights [1024], eps 1e-6). Peers: torch's op and the copy of the same
    bytes (x * 1: the bandwidth ceiling as a kernel)."""
    rtol = 1e-4
    PEERS = {"softmax": "torch.softmax", "rmsnorm": "torch rms_norm"}

    def __init__(self, op, rows, cols=1024):
        self.op, self.rows, self.cols, self.entry = op, rows, cols, op
        self.atol = 1e-5 if op == "softmax" else 1e-4
        self.flops, self.bytes = None, 2 * rows * cols * 4
        self.label = "%s %dx%d f32" % (op, rows, cols)
        self.shapes = ([(rows, cols), (cols,), (rows, cols)] if op == "rmsnorm"
                       else [(rows, cols), (rows, cols)])

    def torch_op(self, x, w):
        import torch
        import torch.nn.functional as F
        if self.op == "softmax":
            return torch.softmax(x, dim=-1)
        return F.rms_norm(x, (self.cols,), weight=w, eps=1e-6)

    def inputs(self):
        import torch
        args = [torch.randn(*s, device="cuda") for s in self.shapes]
        y, w = args[-1], (args[1] if self.op == "rmsnorm" else None)
        return Inputs(args, y, self.torch_op(args[0], w), lambda: y.fill_(math.nan))

    def peers(self, args):
        import torch
        x, w = args[0], (args[1] if self.op == "rmsnorm" else None)
        copy = torch.empty_like(x)

        def ceiling():
            torch.mul(x, 1.0, out=copy)
        return {self.PEERS[self.op]: lambda: self.torch_op(x, w),
                "copy of the same bytes": ceiling}


class AddOne:
    """x += 1 on 128 floats in place, one block (bench/kernels/add_one.mlir):
    the smallest kernel, for the host's cost of a call. Peers: torch's
    x.add_(1) and the same Triton kernel."""
    entry = "add_one"
    atol, rtol = 0.0, 0.0
    flops = bytes = None
    label = "add_one, 128 f32 in place"
    shapes = [(128,)]

    def inputs(self):
        import torch
        x = torch.randn(128, device="cuda")
        start = x.clone()
        return Inputs([x], x, start + 1, lambda: x.copy_(start))

    def peers(self, args):
        from triton_peers import add_one
        x = args[0]

        def torch_add():
            x.add_(1)

        def triton():
            add_one[(1,)](x, 128, BLOCK=128)
        return {"torch add_": torch_add, "Triton": triton}


# ---------------------------------------------------------------------------
# The experiments
# ---------------------------------------------------------------------------


class Experiment:
    """`timer`: "kernel" (kernel_ms and bench_ms), "host" (wall clock of
    each call and synchronize) or "cold" (a cold compile in a fresh
    process). `checks`: problems every variant is checked on before
    anything is timed."""

    def __init__(self, name, description, problems, variants, peers, checks=(),
                 timer="kernel"):
        self.name, self.description = name, description
        self.problems, self.variants, self.peers = problems, variants, peers
        self.checks, self.timer = list(checks), timer


def gemms(layout, dtypes, sizes, relu=False):
    """Gemm problems: every dtype at every size (N for N^3, or (M, N, K))."""
    return [Gemm(*(s if isinstance(s, tuple) else (s, s, s)), dtype=dt, layout=layout, relu=relu)
            for dt in dtypes for s in sizes]


def attentions(shapes=((8, 32, 4096, 128),), causal=(False, True)):
    """Attention problems: non-causal and causal at every [B, H, S, D]
    (default: the issue's shape)."""
    return [Attention(*shape, c) for c in causal for shape in shapes]


def V(label, source, **configs):
    """A variant: its label, its kernel source and its pass_configs."""
    return Variant(label, source, configs)


EXAMPLE_GEMM = File("examples/gemm_relu.mlir", "gemm_relu")
D64 = File("examples/flash_attention.mlir")
D128 = File("bench/kernels/flash_attention_d128.mlir")
SPLIT = File("bench/kernels/flash_attention_d128_split.mlir")
OVERLAP = File("bench/kernels/flash_attention_d128_overlap.mlir")
LONGEST_FIRST = File("bench/kernels/flash_attention_d128_overlap_lpt.mlir")
# The benchmark's GEMM (bench/measure.py's): 128x256x64 tiles, 256 threads,
# 4 stages, panels of 8, C staged through shared memory (TMA stores).
GEMM = GenGemm("128x256x64", 256, 4, raster=8, staged=True)
# The same with C stored from the accumulators.
GEMM_DIRECT = GenGemm("128x256x64", 256, 4, raster=8)
GEMM_3STAGES = GenGemm("128x256x64", 256, 3, raster=8, staged=True)
# The committed overlapped attention's generator arguments (128x128 tiles,
# 2 stages, 256 threads, the softmax under the previous tile's P V).
OVERLAPPED = ("--block-m", "128", "--block-n", "128", "--stages", "2", "--threads", "256",
              "--overlap", "--stage-output")
RELEASE_ALL = dict(tma_release=True, tma_release_min_warpgroups=1, tma_release_max_stages=0)
# A producer warpgroup for one-warpgroup kernels and deep pipelines.
PRODUCER = dict(tma_release_min_warpgroups=1, tma_release_max_stages=0)
PERSISTENT_DYNAMIC = dict(persistent=True, dynamic_tiles=True)
SDPA = ["cuDNN", "SDPA flash"]
# Small and ragged shapes (masked edge tiles, a short K) checked first.
GEMM_EDGES = [(300, 170, 200), (129, 131, 37)]
ATTENTION_EDGES = [(2, 3, 70, 128), (1, 2, 300, 128)]
# ... and for persistent kernels, more tiles than blocks many times over.
MANY_TILES = [(2, 3, 700, 128), (1, 2, 130, 128), (4, 32, 1000, 128)]

EXPERIMENTS = [
    Experiment(
        "gemm-relu-example",
        "The example GEMM+ReLU (examples/gemm_relu.mlir: 128x128x32 tiles, 128 threads, "
        "3 stages), copies pipelined and not, against cuBLAS + torch.relu",
        gemms("nn", ["f16"], [4096, 8192], relu=True),
        [V("pipelined (default)", EXAMPLE_GEMM), V("pipeline_copies off", EXAMPLE_GEMM,
                                                   pipeline_copies=False)],
        ["cuBLAS"], checks=gemms("nn", ["f16"], GEMM_EDGES, relu=True)),
    Experiment(
        "gemm-vs-triton",
        "The benchmark's GEMM (128x256x64, 4 stages, staged epilogue) against cuBLAS and "
        "an autotuned Triton GEMM",
        gemms("tn", ["f16", "bf16"], [4096, 8192]) + gemms("nn", ["f16"], [4096, 8192]),
        [V("128x256x64 s4 staged", GEMM)], ["cuBLAS", "Triton"],
        checks=gemms("tn", ["f16"], GEMM_EDGES[:1]) + gemms("nn", ["f16"], GEMM_EDGES[:1])),
    Experiment(
        "gemm-epilogue",
        "The TN GEMM's epilogue: C staged through shared memory and stored by TMA "
        "(the default), by the threads' vector stores, staged with stmatrix, or stored "
        "straight from the accumulators",
        gemms("tn", ["f16"], [4096, 8192]),
        [V("staged, TMA store", GEMM), V("staged, tma_store off", GEMM, tma_store=False),
         V("staged, stmatrix", GEMM, stmatrix=True), V("direct", GEMM_DIRECT)],
        ["cuBLAS"], checks=gemms("tn", ["f16"], GEMM_EDGES)),
    Experiment(
        "llama-projections",
        "Llama-3-8B's projections at 4096 tokens (Y = X W^T, W stored N x K, f16) on the "
        "benchmark's GEMM, epilogue staged and direct",
        gemms("tn", ["f16"], [(4096, 6144, 4096), (4096, 4096, 4096), (4096, 28672, 4096),
                              (4096, 4096, 14336)]),
        [V("staged epilogue", GEMM), V("direct epilogue", GEMM_DIRECT)], ["cuBLAS"]),
    Experiment(
        "attention-d64",
        "The example attention (examples/flash_attention.mlir: d64, 128 threads) with both "
        "gemms on wgmma and on mma.sync",
        [Attention(1, 8, 1024, 64, False)],
        [V("wgmma (default)", D64), V("wgmma off", D64, wgmma=False)], SDPA,
        checks=[Attention(2, 3, 70, 64, False)]),
    Experiment(
        "attention-d128",
        "The d128 attention kernels: the overlapped one (producer warpgroup, ping-pong; "
        "without them; without the mask's versions for whole tiles) and the 64x64 "
        "3-stage one",
        attentions(),
        [V("overlap", OVERLAP), V("overlap, warp_specialize off", OVERLAP, warp_specialize=False),
         V("overlap, version_parallel off", OVERLAP, version_parallel=False),
         V("64x64 3 stages", D128)],
        SDPA, checks=attentions(ATTENTION_EDGES)),
    Experiment(
        "softmax",
        "Softmax over 1024 columns: the example (256 threads) and one warp per row "
        "(bench/kernels/softmax_warp_rows.mlir), against torch and the copy ceiling",
        [Rows("softmax", 65536)],
        [V("example", File("examples/softmax.mlir")),
         V("warp per row", File("bench/kernels/softmax_warp_rows.mlir"))],
        ["torch.softmax", "copy of the same bytes"], checks=[Rows("softmax", 9)]),
    Experiment(
        "rmsnorm",
        "RMSNorm over 1024 columns (examples/rmsnorm.mlir) against torch and the copy ceiling",
        [Rows("rmsnorm", 65536)], [V("example", File("examples/rmsnorm.mlir"))],
        ["torch rms_norm", "copy of the same bytes"], checks=[Rows("rmsnorm", 9)]),
    Experiment(
        "wgsweep",
        "TN GEMM block configurations on wgmma (tiles, threads, stages, panel)",
        gemms("tn", ["f16", "bf16"], [4096, 8192]),
        [V("%s t%d s%d%s" % (b, t, s, " r%d" % r if r else ""), GenGemm(b, t, s, raster=r))
         for b, t, s, r in [("128x128x64", 256, 3, 0), ("128x128x64", 256, 4, 0),
                            ("128x128x64", 256, 5, 0), ("128x128x64", 256, 4, 8),
                            ("128x256x64", 256, 3, 0), ("128x256x64", 256, 4, 0),
                            ("128x256x64", 256, 4, 8), ("64x256x64", 128, 4, 8)]],
        ["cuBLAS"], checks=gemms("tn", ["f16"], GEMM_EDGES[:1])),
    Experiment(
        "attsweep",
        "d128 attention in 64-column parts (every gemm on wgmma; gen_attention.py --split 64), "
        "block configurations M_N_STAGES_THREADS",
        attentions(),
        [V("64_64_2_128 (flash_attention_d128_split)", SPLIT)]
        + [V("%s_%s_%s_%s" % cfg, GenAttention("--split", "64", "--block-m", cfg[0],
                                                "--block-n", cfg[1], "--stages", cfg[2],
                                                "--threads", cfg[3]))
           for cfg in [("64", "64", "3", "128"), ("128", "64", "3", "256"),
                       ("128", "128", "2", "256")]],
        SDPA, checks=attentions([(1, 2, 130, 128)])),
    Experiment(
        "blocked-gemm",
        "The NN GEMM (B's 512-byte rows in the blocked layout) on wgmma and on mma.sync",
        gemms("nn", ["f16"], [4096, 8192]),
        [V("wgmma (default)", GEMM_DIRECT), V("wgmma_blocked off", GEMM_DIRECT,
                                              wgmma_blocked=False)],
        ["cuBLAS"], checks=gemms("nn", ["f16"], GEMM_EDGES[:1])),
    Experiment(
        "blocked-attention",
        "The 64x64 d128 attention (blocked K and V) on wgmma and on mma.sync",
        attentions(), [V("wgmma (default)", D128), V("wgmma_blocked off", D128,
                                                     wgmma_blocked=False)],
        SDPA, checks=attentions(ATTENTION_EDGES[:1])),
    Experiment(
        "tma-gemm",
        "The TN GEMM's pipelined copies by TMA (counted on mbarriers) and by cp.async",
        gemms("tn", ["f16", "bf16"], [4096, 8192]),
        [V("TMA (default)", GEMM_DIRECT), V("tma off", GEMM_DIRECT, tma=False)],
        ["cuBLAS"], checks=gemms("tn", ["f16"], GEMM_EDGES)),
    Experiment(
        "tma-attention",
        "The d128 attention in 64-column parts with its copies by TMA and by cp.async",
        attentions(), [V("TMA (default)", SPLIT), V("tma off", SPLIT, tma=False)],
        SDPA, checks=attentions([(1, 2, 130, 128)])),
    Experiment(
        "tall-example",
        "The example GEMM+ReLU (128 threads, 128-row tiles) with a warpgroup owning 128 rows "
        "of C on wgmma, and on mma.sync",
        gemms("nn", ["f16"], [4096, 8192], relu=True),
        [V("tall rows (default)", EXAMPLE_GEMM), V("wgmma_tall_rows off", EXAMPLE_GEMM,
                                                   wgmma_tall_rows=False)],
        ["cuBLAS"], checks=gemms("nn", ["f16"], GEMM_EDGES, relu=True)),
    Experiment(
        "tall-tn",
        "The TN GEMM with 128x128x64 tiles on 128 threads (4 stages), tall rows on and off",
        gemms("tn", ["f16"], [4096, 8192]),
        [V("tall rows (default)", GenGemm("128x128x64", 128, 4)),
         V("wgmma_tall_rows off", GenGemm("128x128x64", 128, 4), wgmma_tall_rows=False)],
        ["cuBLAS"], checks=gemms("tn", ["f16"], GEMM_EDGES[:1])),
    Experiment(
        "persistent-gemm",
        "The TN GEMM (direct epilogue) as a grid of blocks and persistent",
        gemms("tn", ["f16"], [4096, 8192]),
        [V("grid (default)", GEMM_DIRECT), V("persistent", GEMM_DIRECT, persistent=True)],
        ["cuBLAS"], checks=gemms("tn", ["f16"], [(1000, 3100, 1000)])),
    Experiment(
        "persistent-attention",
        "The overlapped d128 attention as a grid and persistent, its causal blocks in order "
        "and longest first",
        attentions(),
        [V("grid (default)", OVERLAP), V("persistent", OVERLAP, persistent=True),
         V("longest first", LONGEST_FIRST), V("longest first, persistent", LONGEST_FIRST,
                                              persistent=True)],
        SDPA, checks=attentions([(2, 3, 700, 128)])),
    Experiment(
        "overlap-attention",
        "d128 attention with the softmax under the previous tile's P V (gen_attention.py "
        "--overlap; ovsplit: in 64-column parts) in block configurations M_N_STAGES_THREADS, "
        "next to the committed kernels",
        attentions(),
        [V("overlap (committed, output staged)", OVERLAP), V("64x64 3 stages (committed)", D128)]
        + [V("%s_%s_%s_%s_%s" % ((name,) + cfg),
             GenAttention("--block-m", cfg[0], "--block-n", cfg[1], "--stages", cfg[2],
                          "--threads", cfg[3], "--overlap", *split))
           for name, split, configs in [("ov", (), [("128", "128", "2", "256"),
                                                    ("64", "64", "2", "128")]),
                                        ("ovsplit", ("--split", "64"),
                                         [("128", "128", "2", "256"), ("128", "64", "3", "256"),
                                          ("64", "64", "3", "128")])]
           for cfg in configs],
        SDPA, checks=attentions([(1, 2, 130, 128), (2, 3, 70, 128)])),
    Experiment(
        "release-gemm",
        "The GEMM's pipeline stages released on mbarriers (tma_release: the default's limits, "
        "off, and on every pipeline)",
        gemms("tn", ["f16"], [4096, 8192]) + gemms("nn", ["f16"], [4096, 8192]),
        [V("default", GEMM_DIRECT), V("tma_release off", GEMM_DIRECT, tma_release=False),
         V("released everywhere", GEMM_DIRECT, **RELEASE_ALL)],
        ["cuBLAS"], checks=gemms("tn", ["f16"], GEMM_EDGES[:1]) + gemms("nn", ["f16"],
                                                                       GEMM_EDGES[:1])),
    Experiment(
        "release-attention",
        "The d128 attention kernels' stages released on mbarriers (the default's limits, off, "
        "and on every pipeline)",
        attentions(),
        [V("%s%s" % (name, label), source, **configs)
         for name, source in [("overlap", OVERLAP), ("64x64", D128)]
         for label, configs in [("", {}), (", tma_release off", {"tma_release": False}),
                                (", released everywhere", RELEASE_ALL)]],
        SDPA, checks=attentions(ATTENTION_EDGES[:1])),
    Experiment(
        "panels-gemm",
        "The NN GEMM's blocked B tile in column panels (TMA, one box per panel) and not "
        "(cp.async)",
        gemms("nn", ["f16"], [4096, 8192]),
        [V("panels (default)", GEMM_DIRECT), V("wgmma_panels off", GEMM_DIRECT,
                                               wgmma_panels=False)],
        ["cuBLAS"], checks=gemms("nn", ["f16"], GEMM_EDGES[:1])),
    Experiment(
        "panels-attention",
        "The d128 attention kernels' K and V tiles in column panels and not",
        attentions(),
        [V("overlap", OVERLAP), V("overlap, wgmma_panels off", OVERLAP, wgmma_panels=False),
         V("64x64", D128), V("64x64, wgmma_panels off", D128, wgmma_panels=False)],
        SDPA, checks=attentions(ATTENTION_EDGES[:1])),
    Experiment(
        "tmablocked-gemm",
        "The NN GEMM's blocked B tile in panels (the default), and without panels on "
        "cp.async or on TMA in 8-row boxes (tma_blocked)",
        gemms("nn", ["f16"], [4096, 8192]),
        [V("panels (default)", GEMM_DIRECT),
         V("wgmma_panels off", GEMM_DIRECT, wgmma_panels=False),
         V("wgmma_panels off, tma_blocked", GEMM_DIRECT, wgmma_panels=False, tma_blocked=True)],
        ["cuBLAS"], checks=gemms("nn", ["f16"], GEMM_EDGES[:1])),
    Experiment(
        "tmablocked-attention",
        "The 64x64 d128 attention's blocked K and V in panels (the default), and without "
        "panels on cp.async or on TMA in 8-row boxes (tma_blocked)",
        attentions(),
        [V("panels (default)", D128), V("wgmma_panels off", D128, wgmma_panels=False),
         V("wgmma_panels off, tma_blocked", D128, wgmma_panels=False, tma_blocked=True)],
        SDPA, checks=attentions(ATTENTION_EDGES[:1])),
    Experiment(
        "gemm-configs",
        "NN GEMM block configurations on the dialect's warp policy (tiles, threads, stages)",
        gemms("nn", ["f16"], [4096]),
        [V("%s t%d s%d" % (b, t, s), GenGemm(b, t, s, policy=None))
         for b, t, s in [("128x128x32", 128, 3), ("128x128x32", 128, 4), ("128x128x64", 128, 3),
                         ("128x128x32", 256, 3), ("128x256x32", 256, 3),
                         ("256x128x32", 256, 3)]],
        ["cuBLAS"], checks=gemms("nn", ["f16"], GEMM_EDGES[:1])),
    Experiment(
        "ws-attention",
        "The overlapped d128 attention with its producer warpgroup (warp_specialize) and "
        "ping-pong consumers, without ping-pong, and without the producer",
        attentions(),
        [V("producer, ping-pong (default)", OVERLAP), V("pingpong off", OVERLAP, pingpong=False),
         V("warp_specialize off", OVERLAP, warp_specialize=False)],
        SDPA, checks=attentions(ATTENTION_EDGES)),
    Experiment(
        "producer-attention",
        "The overlapped d128 attention's one-off copies (Q, the last V) issued by the producer "
        "warpgroup (producer_copies), as a grid and persistent",
        attentions(),
        [V("grid (default)", OVERLAP), V("producer_copies", OVERLAP, producer_copies=True),
         V("persistent", OVERLAP, persistent=True),
         V("persistent, producer_copies", OVERLAP, persistent=True, producer_copies=True),
         V("longest first, persistent, producer_copies", LONGEST_FIRST, persistent=True,
           producer_copies=True)],
        SDPA, checks=attentions(MANY_TILES)),
    Experiment(
        "deferred-gemm",
        "A persistent staged-epilogue TN GEMM (128x128x64: the 128x256 one does not fit "
        "persistent), whose TMA store's wait moves into the next tile's epilogue",
        gemms("tn", ["f16"], [4096, 8192]),
        [V("grid (default)", GenGemm("128x128x64", 256, 4, raster=8, staged=True)),
         V("persistent", GenGemm("128x128x64", 256, 4, raster=8, staged=True), persistent=True)],
        ["cuBLAS"], checks=gemms("tn", ["f16"], [(1000, 3100, 1000), (300, 1100, 256)])),
    Experiment(
        "dynamic-attention",
        "The overlapped d128 attention persistent with tiles from a global counter after the "
        "first wave (dynamic_tiles), with and without producer copies, against the static "
        "schedule and the grid",
        attentions(),
        [V("grid (default)", OVERLAP),
         V("persistent, producer_copies", OVERLAP, persistent=True, producer_copies=True),
         V("dynamic, producer_copies", OVERLAP, producer_copies=True, **PERSISTENT_DYNAMIC),
         V("dynamic", OVERLAP, **PERSISTENT_DYNAMIC),
         V("longest first, dynamic, producer_copies", LONGEST_FIRST, producer_copies=True,
           **PERSISTENT_DYNAMIC)],
        SDPA, checks=attentions(MANY_TILES)),
    Experiment(
        "dynamic-attention-d64",
        "The example causal d64 attention as a grid and persistent on the dynamic schedule",
        [Attention(8, 32, 1024, 64, True)],
        [V("grid (default)", D64), V("dynamic", D64, **PERSISTENT_DYNAMIC)],
        SDPA, checks=[Attention(2, 3, 700, 64, True)]),
    Experiment(
        "dynamic-gemm-relu",
        "The example GEMM+ReLU as a grid and persistent on the dynamic schedule",
        gemms("nn", ["f16"], [4096, 8192], relu=True),
        [V("grid (default)", EXAMPLE_GEMM), V("dynamic", EXAMPLE_GEMM, **PERSISTENT_DYNAMIC)],
        ["cuBLAS"], checks=gemms("nn", ["f16"], [(1000, 1700, 200)] + GEMM_EDGES, relu=True)),
    Experiment(
        "dynamic-gemm-tn",
        "A TN GEMM (128x128x64, 4 stages, panels of 8) as a grid and persistent on the "
        "dynamic schedule",
        gemms("tn", ["f16"], [4096, 8192]),
        [V("grid (default)", GenGemm("128x128x64", 256, 4, raster=8)),
         V("dynamic", GenGemm("128x128x64", 256, 4, raster=8), **PERSISTENT_DYNAMIC)],
        ["cuBLAS"], checks=gemms("tn", ["f16"], [(2000, 3100, 1000), (300, 1100, 256)])),
    Experiment(
        "blockn-attention",
        "The overlapped d128 attention with wider key tiles (gen_attention.py --block-n N, "
        "both loop ends peeled or none)",
        attentions(),
        [V("committed (128, both ends peeled)", OVERLAP)]
        + [V("N %s, peel %s" % (n, peel), GenAttention(
            "--block-m", "128", "--block-n", n, "--stages", "2", "--threads", "256",
            "--overlap", "--stage-output", "--peel", peel))
           for n, peel in [("128", "none"), ("144", "first,last"), ("144", "none"),
                           ("160", "none"), ("176", "none"), ("192", "none")]],
        SDPA, checks=attentions(MANY_TILES[:2])),
    Experiment(
        "pdyn-attention",
        "The overlapped d128 attention (both loop ends peeled) and the one with only its last "
        "end peeled, each as a grid and persistent, dynamic, with producer copies, at three "
        "sequence lengths",
        attentions([(16, 32, 2048, 128), (8, 32, 4096, 128), (4, 32, 8192, 128)]),
        [V("committed", OVERLAP),
         V("committed, dynamic, producer_copies", OVERLAP, producer_copies=True,
           **PERSISTENT_DYNAMIC),
         V("last end peeled", GenAttention(*OVERLAPPED, "--peel", "last")),
         V("last end peeled, dynamic, producer_copies", GenAttention(*OVERLAPPED, "--peel",
                                                                     "last"),
           producer_copies=True, **PERSISTENT_DYNAMIC)],
        SDPA, checks=attentions(MANY_TILES)),
    Experiment(
        "lazy-attention",
        "The overlapped d128 attention with FlashAttention-4's conditional rescale (O "
        "rescaled only when a row's maximum grows by more than 2^8; gen_attention.py "
        "--lazy-rescale), checked on maxima growing along the keys too",
        attentions(),
        [V("committed", OVERLAP), V("lazy rescale", GenAttention(*OVERLAPPED, "--lazy-rescale"))],
        SDPA, checks=attentions(MANY_TILES[:2]) + [Attention(1, 2, 300, 128, c, growing=True)
                                                   for c in (False, True)]),
    Experiment(
        "pgemm",
        "The TN GEMM as cuBLAS runs it (3 stages, persistent on the dynamic schedule, a "
        "producer warpgroup, ping-pong or not) next to the benchmark's 4-stage kernel",
        gemms("tn", ["f16"], [8192, 4096, (4096, 28672, 4096), (4096, 6144, 4096)])
        + gemms("tn", ["bf16"], [8192]),
        [V("4 stages (benchmark)", GEMM), V("3 stages", GEMM_3STAGES),
         V("3 stages, persistent dynamic producer", GEMM_3STAGES, tma_release_max_stages=0,
           **PERSISTENT_DYNAMIC),
         V("3 stages, persistent dynamic producer, pingpong off", GEMM_3STAGES,
           tma_release_max_stages=0, pingpong=False, **PERSISTENT_DYNAMIC)],
        ["cuBLAS"], checks=gemms("tn", ["f16", "bf16"], [(1000, 3100, 1000)])
        + gemms("tn", ["f16"], [(2000, 700, 520)])),
    Experiment(
        "wsraster-example",
        "The rasterized example GEMM+ReLU (one warpgroup) with a producer warpgroup "
        "(release barriers on every pipeline), also persistent",
        gemms("nn", ["f16"], [4096, 8192], relu=True),
        [V("default", EXAMPLE_GEMM), V("producer", EXAMPLE_GEMM, **PRODUCER),
         V("producer, persistent", EXAMPLE_GEMM, persistent=True, **PRODUCER)],
        ["cuBLAS"], checks=gemms("nn", ["f16"], GEMM_EDGES + [(256, 256, 128),
                                                              (1000, 1700, 520)], relu=True)),
    Experiment(
        "wsraster-tn",
        "The TN GEMM (4 stages, panels of 8, C stored from the accumulators: the staged "
        "one's 64 KiB tile does not fit next to a producer's stages) with a producer "
        "warpgroup (tma_release_max_stages=0), ping-pong and not",
        gemms("tn", ["f16"], [4096, 8192, (4096, 28672, 4096)]),
        [V("default", GEMM_DIRECT), V("producer", GEMM_DIRECT, tma_release_max_stages=0),
         V("producer, pingpong off", GEMM_DIRECT, tma_release_max_stages=0, pingpong=False)],
        ["cuBLAS"], checks=gemms("tn", ["f16"], [(1000, 904, 1000), (2000, 700, 520)])),
    Experiment(
        "minblocks-gemm-relu",
        "The example GEMM+ReLU with registers for 2, 3 or 4 blocks per multiprocessor "
        "(min_blocks_per_sm: ptxas's .minnctapersm)",
        gemms("nn", ["f16"], [4096, 8192], relu=True),
        [V("ptxas chooses (default)", EXAMPLE_GEMM)]
        + [V("min_blocks_per_sm %d" % n, EXAMPLE_GEMM, min_blocks_per_sm=n) for n in (2, 3, 4)],
        ["cuBLAS"], checks=gemms("nn", ["f16"], GEMM_EDGES, relu=True)),
    Experiment(
        "minblocks-attention-d64",
        "The example d64 attention with registers for 2, 3 or 4 blocks per multiprocessor",
        [Attention(8, 32, 1024, 64, False)],
        [V("ptxas chooses (default)", D64)]
        + [V("min_blocks_per_sm %d" % n, D64, min_blocks_per_sm=n) for n in (2, 3, 4)],
        SDPA, checks=[Attention(2, 3, 70, 64, False)]),
    Experiment(
        "launch",
        "The host's cost of one call of the smallest kernel (one block) through the Python "
        "binding, against torch's and Triton's (wall clock of the call and a synchronize, "
        "median of %d calls after %d)" % (200, 20),
        [AddOne()], [V("Kernel.run", File("bench/kernels/add_one.mlir"))],
        ["torch add_", "Triton"], timer="host"),
    Experiment(
        "compile",
        "Cold compile of the example GEMM+ReLU (a fresh process, an empty TILE_CACHE_DIR: "
        "parse, specialize, tile-to-nvvm, PTX, load, one run) against Triton's cold compile "
        "of its GEMM (128x256x64, 3 stages, 8 warps, fresh TRITON_CACHE_DIR, launcher built "
        "first)",
        gemms("nn", ["f16"], [4096], relu=True), [V("gemm_relu", EXAMPLE_GEMM)], ["Triton"],
        timer="cold"),
]

# ---------------------------------------------------------------------------
# Compiling without a GPU
# ---------------------------------------------------------------------------


def kernel_key(variant, problem):
    """What makes a compiled kernel: its text, entry and pass_configs."""
    return (source_text(variant.source, problem), entry_of(variant, problem),
            json.dumps(variant.configs, sort_keys=True))


def specialize(text, entry, shapes):
    """`text` as the JIT compiles a call of `entry` on buffers of these
    shapes (lib/JIT/JIT.cpp, Kernel::Impl::specialize): the entry's memref
    arguments take the static shapes and 16-byte alignment (torch's
    allocations have it), each dynamic one cast back to its type at the
    top of the body, and every other function private (symbol-dce then
    drops what the entry does not call)."""
    head = re.search(r"^\s*func\.func\s+@%s\(" % re.escape(entry), text, re.M)
    if not head:
        raise ValueError("no function @%s" % entry)
    # The argument list: up to the parenthesis that closes it ('>' of '->'
    # closes nothing); arguments split at commas outside brackets.
    depth, at, params, start = 0, head.end(), [], head.end()
    while depth or text[at] != ")":
        c = text[at]
        if c in "(<[{":
            depth += 1
        elif c in ")]}" or (c == ">" and text[at - 1] != "-"):
            depth -= 1
        elif c == "," and not depth:
            params.append(text[start:at])
            start = at + 1
        at += 1
    params.append(text[start:at])
    if len(params) != len(shapes):
        raise ValueError("@%s takes %d arguments, the problem gives %d"
                         % (entry, len(params), len(shapes)))
    body = re.compile(r"\s*(attributes\s*\{[^{}]*\}\s*)?\{").match(text, at + 1)
    new_params, casts = [], []
    for param, shape in zip(params, shapes):
        m = re.match(r"\s*(%[\w$.-]+)\s*:\s*memref<((?:[?\d]+x)*)(\w+)>(.*)$", param, re.S)
        if not m:
            new_params.append(param)
            continue
        name, dims, element, rest = m.groups()
        dims = dims.split("x")[:-1]
        if len(dims) != len(shape) or any(d != "?" and int(d) != s for d, s in zip(dims, shape)):
            raise ValueError("%s of @%s is memref<%sx%s>, the problem gives %s"
                             % (name, entry, "x".join(dims), element, shape))
        static = "memref<%s>" % "x".join([str(s) for s in shape] + [element])
        align = "llvm.align = 16 : i64"
        rest = (rest.replace("{", "{%s, " % align, 1) if rest.strip().startswith("{")
                else " {%s}%s" % (align, rest))
        if "?" in dims:
            casts.append("\n    %s = memref.cast %s_static : %s to memref<%sx%s>"
                         % (name, name, static, "x".join(dims), element))
            name += "_static"
        new_params.append(" %s: %s%s" % (name, static, rest))
    text = (text[:head.end()] + ",".join(new_params).lstrip() + text[at:body.end()]
            + "".join(casts) + text[body.end():])
    return re.sub(r"^(\s*)func\.func\s+@(?!%s\()" % re.escape(entry),
                  r"\1func.func private @", text, flags=re.M)


def compile_only(experiments):
    """Compiles every variant of these experiments for sm_90a, down to PTX,
    specialized to each problem's shapes (timed and checked), each kernel
    (text, entry, pass_configs, shapes) once. Returns the number of
    failures."""
    compiled, failures = set(), 0
    for exp in experiments:
        kernels, count, start = set(), 0, time.time()
        for variant in exp.variants:
            for problem in exp.problems + exp.checks:
                try:
                    key = kernel_key(variant, problem) + (tuple(problem.shapes),)
                    kernels.add(key)
                    if key in compiled:
                        continue
                    compiled.add(key)
                    pipeline = _tilelang.pipeline(TARGET, variant.configs, "", "isa")
                    _tilelang.lower(specialize(key[0], key[1], problem.shapes),
                                    "symbol-dce,canonicalize,cse," + pipeline)
                    count += 1
                except (RuntimeError, ValueError, subprocess.CalledProcessError) as err:
                    failures += 1
                    print("FAIL %s / %s on %s: %s" % (exp.name, variant.label, problem.label,
                                                       reason(err)))
        print("%-24s %3d kernels for %s, %3d compiled here (%.0f s)"
              % (exp.name, len(kernels), TARGET, count, time.time() - start), flush=True)
    return failures


# ---------------------------------------------------------------------------
# Running on the GPU
# ---------------------------------------------------------------------------

_kernels = {}


def kernel_of(variant, problem):
    key = kernel_key(variant, problem)
    if key not in _kernels:
        _kernels[key] = _tilelang.Kernel(key[0], TARGET, key[1], pass_configs=variant.configs)
    return _kernels[key]


HOST_CALLS, HOST_WARMUP = 200, 20


def host_ms(call):
    """Median host wall clock of one call and a synchronize."""
    import torch
    for _ in range(HOST_WARMUP):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(HOST_CALLS):
        start = time.perf_counter()
        call()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def checked_peers(exp, problem, inputs):
    """The experiment's peers that run here and agree with the reference
    (those that compute something else, the copy ceiling, return None)."""
    available, peers = problem.peers(inputs.args), {}
    for name in exp.peers:
        try:
            got = available[name]()
        except Exception as err:  # torch's or Triton's: whatever stops a peer here
            print("  peer %s: cannot run (%s)" % (name, reason(err)))
            continue
        err = None if got is None else mismatch(got, inputs.want, problem.atol, problem.rtol)
        if err is not None:
            print("  peer %s: wrong result (max abs error %g); not timed" % (name, err))
            continue
        peers[name] = available[name]
    return peers


def ratio(samples, other, this):
    """The median of the rounds' other / this ratios (above 1: `this` is
    faster); None where a sample is zero (the profiler saw no kernel)."""
    pairs = list(zip(samples[other], samples[this]))
    if any(o <= 0 or t <= 0 for o, t in pairs):
        return None
    return statistics.median(o / t for o, t in pairs)


def print_table(entry, variants, peers):
    """The medians, the throughput and the ratios of one timed problem."""
    samples, caller = entry["ms"], entry.get("caller_ms")
    rate = (("TFLOP/s", entry["flops"] / 1e9) if entry["flops"]
            else ("GB/s", entry["bytes"] / 1e6) if entry["bytes"] else None)
    against = variants[:1] + peers
    header = "    %-52s %10s" % ("", "ms")
    header += " %10s" % "caller ms" if caller else ""
    header += " %9s" % rate[0] if rate else ""
    print("  -- %s (%s)" % (entry["case"], entry["timer"]))
    print(header + "".join(" %14s" % ("vs " + ("first" if i == 0 else name))[:14]
                           for i, name in enumerate(against)))
    for side in variants + peers:
        ms = statistics.median(samples[side])
        line = "    %-52s %10.4f" % (side[:52], ms)
        line += " %10.4f" % statistics.median(caller[side]) if caller else ""
        line += " %9.1f" % (rate[1] / ms if ms > 0 else math.nan) if rate else ""
        if side in variants:
            for other in against:
                r = ratio(samples, other, side)
                line += " %14s" % ("%.2fx" % r if r else "-")
        print(line, flush=True)


def run_experiment(exp, opts, timing):
    """Checks every variant and peer, then times them; returns the results
    entries (one per timed problem)."""
    import torch
    print("== %s: %s" % (exp.name, exp.description), flush=True)
    excluded, results = {}, []
    problems = ([] if opts.ncu else [(p, False) for p in exp.checks]) + (
        [] if opts.checks_only else [(p, True) for p in exp.problems])
    for problem, timed in problems:
        inputs, calls = problem.inputs(), {}
        for variant in exp.variants:
            if variant.label in excluded:
                continue
            try:
                kernel = kernel_of(variant, problem)
                inputs.reset()
                kernel.run(*inputs.args)
                torch.cuda.synchronize()
                err = mismatch(inputs.out, inputs.want, problem.atol, problem.rtol)
                why = None if err is None else "wrong on %s (max abs error %g)" % (problem.label,
                                                                                  err)
            except (RuntimeError, subprocess.CalledProcessError) as err:
                why = "failed on %s: %s" % (problem.label, reason(err))
            if why:
                excluded[variant.label] = why
                print("  %s: %s; not timed" % (variant.label, why), flush=True)
                continue
            calls[variant.label] = functools.partial(kernel.run, *inputs.args)
        if not timed or not calls:
            print("  %s: %d variants right" % (problem.label, len(calls)), flush=True)
            continue
        peers = checked_peers(exp, problem, inputs)
        sides = dict(calls, **peers)
        if opts.ncu:
            for call in sides.values():
                call()
            torch.cuda.synchronize()
            print("  %s: ran %s" % (problem.label, ", ".join(sides)), flush=True)
            continue
        entry = {"experiment": exp.name, "case": problem.label,
                 "variants": {v.label: {"source": str(v.source), "entry": entry_of(v, problem),
                                        "pass_configs": v.configs}
                              for v in exp.variants if v.label in calls},
                 "not_timed": dict(excluded), "peers": list(peers),
                 "flops": problem.flops, "bytes": problem.bytes}
        if exp.timer == "host":
            entry["timer"] = ("host wall clock of a call and torch.cuda.synchronize(), median "
                              "of %d after %d, %d rounds" % (HOST_CALLS, HOST_WARMUP, opts.rounds))
            entry["ms"] = {side: [] for side in sides}
            for _ in range(opts.rounds):
                for side, call in sides.items():
                    entry["ms"][side].append(host_ms(call))
        else:
            entry["timer"] = "kernel ms: median of %d rounds of %d calls" % (opts.rounds,
                                                                          opts.iters)
            entry["ms"], entry["caller_ms"] = interleave(timing, sides, opts.rounds, opts.iters)
        results.append(entry)
        print_table(entry, list(calls), list(peers))
        del inputs, calls, peers, sides
        torch.cuda.empty_cache()
    return results


def run_cold(exp, opts):
    """Times cold compiles, each in a fresh process with empty caches,
    interleaved (ours, Triton, ...) for --rounds rounds."""
    print("== %s: %s" % (exp.name, exp.description), flush=True)
    problem, sides = exp.problems[0], [v.label for v in exp.variants] + exp.peers
    entry = {"experiment": exp.name, "case": problem.label, "variants": {
        v.label: {"source": str(v.source), "entry": entry_of(v, problem),
                  "pass_configs": v.configs} for v in exp.variants},
        "not_timed": {}, "peers": exp.peers, "flops": None, "bytes": None,
        "timer": "wall clock of a cold compile and its first run in a fresh process, "
                 "%d rounds" % opts.rounds,
        "ms": {side: [] for side in sides}}
    for _ in range(opts.rounds):
        for side in sides:
            if side in entry["not_timed"]:
                continue
            with tempfile.TemporaryDirectory() as cache:
                env = dict(os.environ, TILE_CACHE_DIR=cache, TRITON_CACHE_DIR=cache)
                env.pop("TILE_DISABLE_CACHE", None)
                child = subprocess.run([sys.executable, os.path.abspath(__file__),
                                        "--cold-compile", exp.name, side],
                                       env=env, capture_output=True, text=True)
            if child.returncode:
                entry["not_timed"][side] = (reason(child) if child.stderr.strip()
                                            else "exit %d" % child.returncode)
                print("  %s: %s" % (side, entry["not_timed"][side]), flush=True)
                continue
            entry["ms"][side].append(float(child.stdout.split()[-1]))
    timed = [side for side in sides if side not in entry["not_timed"]]
    entry["ms"] = {side: entry["ms"][side] for side in timed}
    if timed:
        print_table(entry, [s for s in timed if s not in exp.peers],
                    [s for s in timed if s in exp.peers])
    return [entry]


def cold_compile_child(name, side):
    """In a fresh process: one cold compile and first run of `side` (a
    variant of experiment `name`, or Triton's GEMM) on the experiment's
    problem; prints its milliseconds."""
    import torch
    exp = select([name])[0]
    problem = exp.problems[0]
    inputs = problem.inputs()
    if side == "Triton":
        from triton_peers import gemm, increment, launch
        x = torch.zeros(1, device="cuda")
        increment[(1,)](x)
        torch.cuda.synchronize()
        a, b, c = inputs.args
        start = time.perf_counter()
        launch(gemm, a, b, c, BM=128, BN=256, BK=64, GROUP=8, num_stages=3, num_warps=8)
    else:
        variant = next(v for v in exp.variants if v.label == side)
        text, entry, _ = kernel_key(variant, problem)
        start = time.perf_counter()
        _tilelang.Kernel(text, TARGET, entry, pass_configs=variant.configs).run(*inputs.args)
    torch.cuda.synchronize()
    print("%.3f" % ((time.perf_counter() - start) * 1e3))


def select(patterns):
    """The experiments a pattern names exactly, else those whose names
    contain it; every experiment without patterns."""
    if not patterns:
        return EXPERIMENTS
    chosen = []
    for pattern in patterns:
        matches = ([e for e in EXPERIMENTS if e.name == pattern]
                   or [e for e in EXPERIMENTS if pattern in e.name])
        if not matches:
            raise SystemExit("no experiment matches %r (--list shows them)" % pattern)
        chosen += [e for e in matches if e not in chosen]
    return chosen


def print_list(experiments):
    for exp in experiments:
        print("%s: %s" % (exp.name, exp.description))
        print("    problems: %s" % "; ".join(p.label for p in exp.problems))
        if exp.checks:
            print("    checked first on: %s" % "; ".join(p.label for p in exp.checks))
        for v in exp.variants:
            print("    variant %s: %s%s" % (v.label, v.source, " %s" % json.dumps(v.configs)
                                            if v.configs else ""))
        print("    peers: %s; timer: %s" % (", ".join(exp.peers), exp.timer))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print the experiments and stop")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="these experiments (a name, or part of names)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iters", type=int, default=20, help="calls per kernel_ms sample")
    parser.add_argument("--compile-only", action="store_true",
                        help="compile every variant for %s (no GPU or torch needed)" % TARGET)
    parser.add_argument("--ncu", action="store_true",
                        help="untimed: check the timed problems, then run every variant and "
                             "peer once more (under ncu or nsys)")
    parser.add_argument("--checks-only", action="store_true",
                        help="untimed: only the small check shapes (under compute-sanitizer)")
    parser.add_argument("--out", help="results file (JSON, every sample); needed to time")
    parser.add_argument("--cold-compile", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cold_compile:
        return cold_compile_child(*args.cold_compile)
    experiments = select(args.only)
    if args.list:
        return print_list(experiments)
    if args.compile_only:
        return 1 if compile_only(experiments) else 0
    timed = not (args.ncu or args.checks_only)
    if timed and not args.out:
        parser.error("--out is needed to time (untimed: --list, --compile-only, --ncu, "
                     "--checks-only)")
    timing = import_timing() if timed else None
    results = []
    for exp in experiments:
        if exp.timer == "cold":
            results += run_cold(exp, args) if timed else []
        else:
            results += run_experiment(exp, args, timing)
    if timed:
        write_record(args.out, args.iters, args.rounds, results,
                     experiments={e.name: e.description for e in experiments})


if __name__ == "__main__":
    sys.exit(main())
