#!/usr/bin/env python3
"""The GPU tests' kernels against torch on the same GPU (torch-cuda.test):
the kernels through tile-run, on fresh random inputs written as .npy, their outputs
read back (--save-outputs) and compared with torch on the same GPU:
GEMM+ReLU against relu(A @ B) (cuBLAS), FlashAttention d128 (causal and
not) against SDPA, softmax against torch.softmax, RMSNorm against
rms_norm. Edge shapes (not multiples of the tiles). Prints one PASS/FAIL
line per case and exits 1 on any failure.

Usage: check_torch.py TILE_RUN [CHIP]
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "..", "..")
TR = sys.argv[1]
CHIP = sys.argv[2] if len(sys.argv) > 2 else "sm_90a"
rng = np.random.default_rng()
failed = 0


def run(kernel, entry, inputs, outputs, shapes):
    """Runs `entry` of `kernel` on `inputs` (arrays; None for an output
    given by shape in `shapes`), returns the output arrays."""
    with tempfile.TemporaryDirectory() as tmp:
        args = []
        for i, value in enumerate(inputs):
            if value is None:
                args.append("--arg=" + "x".join(map(str, shapes[i])))
            else:
                path = os.path.join(tmp, "in%d.npy" % i)
                np.save(path, value)
                args.append("--arg=@" + path)
        out = os.path.join(tmp, "out")
        proc = subprocess.run(
            [TR, os.path.join(ROOT, kernel), "--entry=" + entry, "--target=" + CHIP,
             "--outputs=" + ",".join(map(str, outputs)), "--no-check",
             "--repeat=0", "--warmup=0", "--save-outputs=" + out] + args,
            capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(proc.stdout + proc.stderr)
        return [np.load(os.path.join(out, "%d.npy" % i)) for i in outputs]


def check(name, got, want, rtol, atol):
    global failed
    got = torch.from_numpy(np.asarray(got, dtype=np.float32))
    want = want.float().cpu()
    err = (got - want).abs()
    bad = int((err > atol + rtol * want.abs()).sum()) + int(got.isnan().sum())
    print("%s %s: max abs err %.2e, %d of %d elements outside rtol=%.0e "
          "atol=%.0e" % ("FAIL" if bad else "PASS", name, float(err.max()),
                          bad, got.numel(), rtol, atol))
    failed += bool(bad)


def case(name, fn):
    global failed
    try:
        fn()
    except Exception as error:  # noqa: BLE001 (reported)
        failed += 1
        print("FAIL %s: %s" % (name, str(error).strip().splitlines()[-1]))


def gemm():
    m, n, k = 1000, 900, 700
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    (c,) = run("examples/gemm_relu.mlir", "gemm_relu", [a, b, None], [2],
               {2: (m, n)})
    want = torch.relu(torch.from_numpy(a).cuda() @ torch.from_numpy(b).cuda())
    check("gemm_relu %dx%dx%d vs torch (cuBLAS)" % (m, n, k), c, want,
          1e-2, 1e-2)


def attention(causal, kernel="flash_attention_d128", label=""):
    shape = (2, 4, 300, 128)
    q, k, v = (rng.standard_normal(shape).astype(np.float16) for _ in range(3))
    entry = "flash_attention_causal" if causal else "flash_attention"
    (o,) = run("bench/kernels/%s.mlir" % kernel, entry,
               [q, k, v, None], [3], {3: shape})
    tq, tk, tv = (torch.from_numpy(x).cuda() for x in (q, k, v))
    want = F.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)
    check("flash attention d128%s %s%s vs torch SDPA" % (
        label, "x".join(map(str, shape)), " causal" if causal else ""), o,
        want, 1e-2, 2e-3)


def softmax(kernel, label):
    x = rng.standard_normal((300, 1024)).astype(np.float32)
    (y,) = run(kernel, "softmax", [x, None], [1], {1: x.shape})
    check("%s 300x1024 vs torch.softmax" % label, y,
          torch.softmax(torch.from_numpy(x).cuda(), dim=1), 1e-5, 1e-6)


def rmsnorm():
    x = rng.standard_normal((300, 1024)).astype(np.float32)
    w = rng.standard_normal(1024).astype(np.float32)
    (y,) = run("examples/rmsnorm.mlir", "rmsnorm", [x, w, None], [2],
               {2: x.shape})
    tx, tw = torch.from_numpy(x).cuda(), torch.from_numpy(w).cuda()
    want = tx * torch.rsqrt(tx.pow(2).mean(-1, keepdim=True) + 1e-6) * tw
    check("rmsnorm 300x1024 vs torch", y, want, 1e-5, 1e-5)


case("gemm", gemm)
case("attention", lambda: attention(False))
case("attention causal", lambda: attention(True))
for causal in (False, True):
    case("attention in parts on wgmma%s" % (" causal" if causal else ""),
         lambda causal=causal: attention(causal, "flash_attention_d128_split",
                                         " (64-column parts, wgmma)"))
case("softmax", lambda: softmax("examples/softmax.mlir", "softmax"))
case("softmax warp rows", lambda: softmax(
    "bench/kernels/softmax_warp_rows.mlir", "softmax (one warp per row)"))
case("rmsnorm", rmsnorm)
sys.exit(1 if failed else 0)
