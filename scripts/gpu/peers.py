#!/usr/bin/env python3
"""The GPU suite's peer measurements (run_suite.sh), each the median of 20
CUDA-event timings after 5 warm-ups:

  peers.py softmax|rmsnorm OURS_MS
      torch's kernel on 65536x1024 f32 and the copy ceiling (y.copy_(x): one
      read and one write), printed next to our kernel time as fractions;
  peers.py matmul M N K f16|bf16 nn|nt [relu]
      cuBLAS (torch.matmul) on A [M, K] and B [K, N] (nn) or B [N, K] used
      transposed (nt), optionally followed by ReLU: prints the milliseconds.
  peers.py triton M N K f16|bf16 nn|nt
      an autotuned Triton GEMM (tl.dot, grouped block order, four
      configurations) on the same operands as `matmul`: prints the
      milliseconds of the best configuration;
  peers.py triton-compile
      Triton's cold compile of that GEMM kernel (one configuration, 4096^3
      f16, a fresh cache directory per run, the driver's launcher already
      built): prints the median seconds of 3 runs;
  peers.py attention B H S D causal|full
      torch SDPA with the flash and the cuDNN backends on f16 q, k, v of
      [B, H, S, D] (median of 10 after 3): prints "FLASH_MS CUDNN_MS", nan
      for a backend torch cannot run.
"""
import sys

import torch


def median_ms(fn, warmup=5, runs=20):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def matmul(m, n, k, dtype, layout, relu=False):
    dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    if layout == "nt":
        b = torch.randn(n, k, device="cuda", dtype=dtype)
        product = lambda: a @ b.t()  # noqa: E731
    else:
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        product = lambda: a @ b  # noqa: E731
    fn = (lambda: torch.relu(product())) if relu else product
    print("%.4f" % median_ms(fn))


def triton_gemm(m, n, k, dtype, layout):
    dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    # nt: B stored N x K and read transposed (strides swapped).
    b = (torch.randn(n, k, device="cuda", dtype=dtype).t() if layout == "nt"
         else torch.randn(k, n, device="cuda", dtype=dtype))
    c = torch.empty(m, n, device="cuda", dtype=dtype)
    from triton_gemm import launch, tuned
    launch(tuned, a, b, c)
    ref = a.float() @ b.float()
    err = ((c.float() - ref).norm() / ref.norm()).item()
    if err > 1e-2:
        sys.exit("triton GEMM relative error %.1e" % err)
    print("%.4f" % median_ms(lambda: launch(tuned, a, b, c)))


def triton_compile():
    # Each run in a fresh process with an empty cache: what a user's first
    # call pays. A one-element kernel is compiled first so that the
    # launcher's own build is not counted against the GEMM.
    import os
    import subprocess
    import tempfile
    import time
    if len(sys.argv) > 2:
        from triton_gemm import gemm, increment, launch
        x = torch.zeros(1, device="cuda")
        increment[(1,)](x)
        torch.cuda.synchronize()
        a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
        b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
        c = torch.empty_like(a)
        start = time.perf_counter()
        launch(gemm, a, b, c, BM=128, BN=256, BK=64, GROUP=8, num_stages=3,
               num_warps=8)
        torch.cuda.synchronize()
        print("%.4f" % (time.perf_counter() - start))
        return
    times = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, TRITON_CACHE_DIR=cache)
            out = subprocess.run([sys.executable, __file__, "triton-compile",
                                  "child"], env=env, check=True,
                                 stdout=subprocess.PIPE, text=True).stdout
            times.append(float(out.split()[-1]))
    times.sort()
    print("%.3f" % times[1])


def attention(b, h, s, d, causal):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16)
               for _ in range(3))
    times = []
    for backend in (SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION):
        try:
            with sdpa_kernel(backend):
                times.append(median_ms(
                    lambda: F.scaled_dot_product_attention(
                        q, k, v, is_causal=causal), warmup=3, runs=10))
        except RuntimeError as err:
            print("%s unavailable: %s" % (backend, str(err).splitlines()[0]),
                  file=sys.stderr)
            times.append(float("nan"))
    print("%.4f %.4f" % tuple(times))


def main():
    if sys.argv[1] == "attention":
        b, h, s, d = (int(x) for x in sys.argv[2:6])
        return attention(b, h, s, d, causal=sys.argv[6] == "causal")
    if sys.argv[1] == "triton":
        m, n, k = (int(x) for x in sys.argv[2:5])
        return triton_gemm(m, n, k, sys.argv[5], sys.argv[6])
    if sys.argv[1] == "triton-compile":
        return triton_compile()
    if sys.argv[1] == "matmul":
        m, n, k = (int(x) for x in sys.argv[2:5])
        return matmul(m, n, k, sys.argv[5], sys.argv[6],
                      relu=sys.argv[7:] == ["relu"])
    kind, ours = sys.argv[1], float(sys.argv[2])
    x = torch.randn(65536, 1024, device="cuda")
    y = torch.empty_like(x)
    if kind == "softmax":
        peer = lambda: torch.softmax(x, dim=1)  # noqa: E731
    elif kind == "rmsnorm":
        w = torch.randn(1024, device="cuda")
        if hasattr(torch.nn.functional, "rms_norm"):
            peer = lambda: torch.nn.functional.rms_norm(  # noqa: E731
                x, (1024,), weight=w, eps=1e-6)
        else:
            peer = lambda: x * torch.rsqrt(  # noqa: E731
                x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    else:
        sys.exit("unknown kernel kind " + kind)
    t_torch, t_copy = median_ms(peer), median_ms(lambda: y.copy_(x))
    nbytes = 2 * x.numel() * 4
    print(f"{kind}: ours {ours:.3f} ms ({nbytes / ours / 1e6:.0f} GB/s), "
          f"torch {t_torch:.4f} ms, copy {t_copy:.4f} ms "
          f"({nbytes / t_copy / 1e6:.0f} GB/s); ours/copy-ceiling = "
          f"{t_copy / ours:.4f}, ours/torch = {t_torch / ours:.4f}")


if __name__ == "__main__":
    main()
