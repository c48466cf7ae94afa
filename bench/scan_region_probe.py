#!/usr/bin/env python3
"""TileLang's offset-subregion scan (T.cumsum/T.cummax of A_shared[64:128,
:] in place, 128x8 f32, 128 threads) on the GPU, each variant separately
against numpy: which of op x dim x reverse give wrong results (the H100
conformance run of 2026-12-06 found one; the CPU lowering gives all eight
exactly).

    PYTHONPATH=<package> python3 bench/scan_region_probe.py
"""

import numpy as np
import torch

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

H, W, R0, R1 = 128, 8, 64, 128


def program(op, dim, reverse, threads):
    @T.prim_func
    def main(A: T.Tensor((H, W), "float32"), B: T.Tensor((H, W), "float32")):
        with T.Kernel(1, threads=threads):
            A_shared = T.alloc_shared((H, W), "float32")
            T.copy(A, A_shared)
            scan = T.cumsum if op == "cumsum" else T.cummax
            scan(src=A_shared[R0:R1, :], dim=dim, reverse=reverse)
            T.copy(A_shared, B)
    return main


def reference(a, op, dim, reverse):
    out = a.copy()
    chunk = a[R0:R1]
    f = np.cumsum if op == "cumsum" else np.maximum.accumulate
    out[R0:R1] = (np.flip(f(np.flip(chunk, dim), axis=dim), dim) if reverse
                  else f(chunk, axis=dim))
    return out


def main():
    a = np.random.default_rng(0).standard_normal((H, W)).astype(np.float32)
    for threads in (128, 32):
        for op in ("cumsum", "cummax"):
            for dim in (0, 1):
                for reverse in (False, True):
                    kernel = tilelang.compile(program(op, dim, reverse, threads),
                                              target="cuda")
                    b = torch.zeros(H, W, device="cuda")
                    kernel(torch.from_numpy(a).cuda(), b)
                    err = np.abs(b.cpu().numpy() - reference(a, op, dim, reverse))
                    where = np.unravel_index(err.argmax(), err.shape)
                    print("threads %d %s dim %d reverse %s: max error %.3g at %s"
                          % (threads, op, dim, reverse, err.max(), where), flush=True)


if __name__ == "__main__":
    main()
