"""Kernel time of the same FlashAttention program over BSHD and BHSD
tensors (python/tests/attention_layouts.py: in BSHD every tile is a region
over non-trailing dimensions, a rank-4 TMA box), against torch's SDPA
(cuDNN and flash), CUPTI kernel time, interleaved, in one process:

    PYTHONPATH=<package>:python/tests:../shared/peers python3 bench/time_attention_layouts.py
"""

import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import tilelang_mlir
from attention_layouts import flash_attention
from timing import kernel_ms

TARGET = "sm_90a"


def main():
    b, h, s, d = 4, 32, 4096, 128
    print("attention b%d h%d s%d d%d f16, ms (median of 3 interleaved rounds)"
          % (b, h, s, d))
    for causal in (False, True):
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16)
                   for _ in range(3))
        qs, ks, vs = (x.transpose(1, 2).contiguous() for x in (q, k, v))
        kernels = {}
        for layout in ("bhsd", "bshd"):
            func = flash_attention(b, h, s, d, causal, layout=layout,
                                   block_M=128, block_N=128, threads=256,
                                   num_stages=2)
            kernels[layout] = tilelang_mlir.compile(func, out_idx=[3],
                                                    target=TARGET)
        calls = {
            "ours bhsd": lambda: kernels["bhsd"](q, k, v),
            "ours bshd": lambda: kernels["bshd"](qs, ks, vs),
        }
        for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                              ("flash", SDPBackend.FLASH_ATTENTION)):
            def call(backend=backend):
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q, k, v,
                                                          is_causal=causal)
            calls["sdpa " + name] = call
        ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                             is_causal=causal)
        err = (kernels["bshd"](qs, ks, vs).transpose(1, 2).float() - ref)
        times = {name: [] for name in calls}
        for _ in range(3):
            for name, fn in calls.items():
                times[name].append(kernel_ms(fn, iters=10))
        med = {name: statistics.median(t) for name, t in times.items()}
        print("causal=%s max |bshd - ref| %.2e" % (causal, err.abs().max()))
        for name, t in med.items():
            print("  %-10s %8.3f ms  (this / ours bshd: %.3f)"
                  % (name, t, t / med["ours bshd"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
