#!/usr/bin/env python3
"""Measures the project's kernels and their peers on one GPU with one timer
and writes a results file (JSON) from which bench/report.py draws the
README's numbers and the plot.

Every case times ours and each peer with the same function (timing.py's
kernel_ms: the kernels' own time from the profiler, CUPTI), in the same
process, interleaved (ours, peer, ours, peer, ...) for --rounds rounds; the
file keeps every round's sample, so the spread is on record. Separately,
each round also takes what a Python caller sees (timing.py's bench_ms,
triton's do_bench), host overhead included. Outputs are
checked against torch before timing (a wrong kernel is not timed).

    PYTHONPATH=<package>:python/tests \\
        python3 bench/measure.py --out bench/results/<date>-h200.json

(timing.py on the import path, in $TIMING_DIR or in .peers/; on the GPU
machine scripts/gpu/run_suite.sh's `time` section runs this.)

Cases: users' programs written with the T.* language (TileLang's quickstart
GEMM configuration and its Hopper configuration; FlashAttention in BHSD and
BSHD layouts, as python/tests/attention_layouts.py writes it) and the
project's hand-structured MLIR kernels (GEMMs from
test/Integration/Inputs/gen_gemm.py, bench/kernels), against cuBLAS
(torch.matmul), torch SDPA (cuDNN, flash), torch.softmax and the copy of the
same bytes (the bandwidth ceiling)."""

import argparse
import os
import subprocess
import sys

import torch
import torch.nn.functional as F

import tilelang_mlir
import tilelang_mlir.language as T
from tilelang_mlir import _tilelang
from attention_layouts import flash_attention
from common import ROOT, TARGET, check, import_timing, interleave, sdpa_peers, write_record
from kernels import matmul_func


def gemm_cases():
    configs = [
        # (name, block_M, block_N, block_K, threads, stages)
        ("TileLang quickstart GEMM config (128x128x32, 128 threads, 3 stages)",
         128, 128, 32, 128, 3),
        ("TileLang Hopper GEMM config (128x256x64, 256 threads, 3 stages)",
         128, 256, 64, 256, 3),
    ]
    for n in (4096, 8192):
        a = torch.randn(n, n, device="cuda", dtype=torch.float16)
        b = torch.randn(n, n, device="cuda", dtype=torch.float16)
        want = a @ b
        for name, bm, bn, bk, threads, stages in configs:
            kernel = tilelang_mlir.compile(
                matmul_func(n, n, n, bm, bn, bk, threads, T.float16, stages,
                            out_dtype=T.float16), out_idx=[2], target=TARGET)
            label = "%s, f16 %d^3" % (name, n)
            check(label, kernel(a, b), want, atol=0.5, rtol=2e-2)
            yield {"case": label, "group": "GEMM", "kind": "program",
                   "ours": lambda kernel=kernel: kernel(a, b),
                   "peers": {"cuBLAS": lambda: a @ b}}


def mlir_gemm_cases():
    """The project's own GEMM kernels (test/Integration/Inputs/gen_gemm.py:
    128x256x64 tiles, 256 threads, 4 stages, rasterized by 8, epilogue staged
    through shared memory), TN (B given as N x K) and NN."""
    gen = os.path.join(ROOT, "test", "Integration", "Inputs", "gen_gemm.py")
    variants = [("TN", "f16", torch.float16, ["--tb"]), ("TN", "bf16", torch.bfloat16, ["--tb"]),
                ("NN", "f16", torch.float16, [])]
    for layout, dtype, torch_dtype, flags in variants:
        source = subprocess.run(
            [sys.executable, gen, "--dtype", dtype, "--acc", "f32", "--out", dtype,
             "--block", "128x256x64", "--threads", "256", "--stages", "4",
             "--policy", "full_row", "--raster", "8", "--stage-epilogue"] + flags,
            check=True, capture_output=True, text=True).stdout
        kernel = _tilelang.Kernel(source, TARGET, "gemm")
        for n in (4096, 8192):
            a = torch.randn(n, n, device="cuda", dtype=torch_dtype)
            b = torch.randn(n, n, device="cuda", dtype=torch_dtype)
            c = torch.empty(n, n, device="cuda", dtype=torch_dtype)
            peer = (lambda a=a, b=b: a @ b.t()) if flags else (lambda a=a, b=b: a @ b)
            kernel.run(a, b, c)
            label = "GEMM MLIR kernel %s %s %d^3 (128x256x64, 4 stages, staged epilogue)" % (
                layout, dtype, n)
            check(label, c, peer(), atol=1.0, rtol=3e-2)
            yield {"case": label, "group": "GEMM", "kind": "mlir",
                   "ours": lambda kernel=kernel, a=a, b=b, c=c: kernel.run(a, b, c),
                   "peers": {"cuBLAS": peer}}


def attention_cases():
    b, h, s, d = 4, 32, 4096, 128
    for causal in (False, True):
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16)
                   for _ in range(3))
        want = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        peers = sdpa_peers(q, k, v, causal)
        mask = ", causal" if causal else ""
        for layout in ("bhsd", "bshd"):
            func = flash_attention(b, h, s, d, causal, layout=layout, block_M=128,
                                   block_N=128, threads=256, num_stages=2)
            kernel = tilelang_mlir.compile(func, out_idx=[3], target=TARGET)
            args = (q, k, v) if layout == "bhsd" else tuple(
                x.transpose(1, 2).contiguous() for x in (q, k, v))
            out = kernel(*args)
            check("attention " + layout, out if layout == "bhsd" else out.transpose(1, 2),
                  want, atol=2e-2, rtol=2e-2)
            yield {"case": "FlashAttention program, %s, b%d h%d s%d d%d f16%s"
                           % (layout.upper(), b, h, s, d, mask),
                   "group": "attention", "kind": "program",
                   "ours": lambda kernel=kernel, args=args: kernel(*args), "peers": peers}
        with open(os.path.join(ROOT, "bench", "kernels", "flash_attention_d128_overlap.mlir")) as f:
            source = f.read()
        kernel = _tilelang.Kernel(source, TARGET,
                                  "flash_attention_causal" if causal else "flash_attention")
        out = torch.empty_like(q)
        kernel.run(q, k, v, out)
        check("overlap attention", out, want, atol=2e-2, rtol=2e-2)
        yield {"case": "FlashAttention hand-structured MLIR kernel (producer warpgroup, "
                       "ping-pong), BHSD, b%d h%d s%d d%d f16%s" % (b, h, s, d, mask),
               "group": "attention", "kind": "mlir",
               "ours": lambda kernel=kernel, out=out: kernel.run(q, k, v, out), "peers": peers}


def softmax_cases():
    rows = 65536
    x = torch.randn(rows, 1024, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    with open(os.path.join(ROOT, "bench", "kernels", "softmax_warp_rows.mlir")) as f:
        kernel = _tilelang.Kernel(f.read(), TARGET, "softmax")
    kernel.run(x, y)
    check("softmax", y, torch.softmax(x, dim=-1), atol=1e-5, rtol=1e-4)
    copy = torch.empty_like(x)
    # The bandwidth ceiling as a kernel (a device-to-device memcpy is not a
    # kernel and the profiler's kernel time leaves it out): x * 1 reads and
    # writes the bytes softmax does.
    yield {"case": "softmax MLIR kernel, %dx1024 f32" % rows, "group": "memory-bound",
           "kind": "mlir", "ours": lambda: kernel.run(x, y),
           "peers": {"torch.softmax": lambda: torch.softmax(x, dim=-1),
                     "copy of the same bytes": lambda: torch.mul(x, 1.0, out=copy)}}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--only", help="run only cases whose name contains this")
    args = parser.parse_args()
    timing = import_timing()
    results = []
    for generator in (gemm_cases, mlir_gemm_cases, attention_cases, softmax_cases):
        for case in generator():
            if args.only and args.only not in case["case"]:
                continue
            calls = {"ours": case["ours"]}
            calls.update(case["peers"])
            samples, caller = interleave(timing, calls, args.rounds, args.iters)
            entry = {k: case[k] for k in ("case", "group", "kind")}
            entry["ms"] = samples
            entry["caller_ms"] = caller
            results.append(entry)
            med = sorted(samples["ours"])[len(samples["ours"]) // 2]
            print("%-100s ours %.4f ms  %s" % (case["case"], med, "  ".join(
                "%s %.4f" % (p, sorted(v)[len(v) // 2]) for p, v in samples.items()
                if p != "ours")), flush=True)
            torch.cuda.empty_cache()
    write_record(args.out, args.iters, args.rounds, results)


if __name__ == "__main__":
    main()
