"""Kernels of the example suite written with T.* (softmax, row reductions,
cumsum, FlashAttention forward, int4 dequantize-GEMM), each run on the CPU
backend through @jit and checked against numpy on fresh random inputs and
edge shapes."""
# RUN: %tile_python %s | FileCheck %s
# CHECK: softmax 13x1024: ok
# CHECK: softmax 8x1024: ok
# CHECK: row sums/max/abssum 70x300: ok
# CHECK: row sums/max/abssum 64x256: ok
# CHECK: cumsum 45x256: ok
# CHECK: cumsum 45x256 reverse: ok
# CHECK: flash attention 1x2x70x64: ok
# CHECK: flash attention 1x2x100x64 causal: ok
# CHECK: flash attention 1x2x70x128 in 64-column parts: ok
# CHECK: flash attention 1x1x100x128 causal in 32-column parts: ok
# CHECK: dequant gemm 100x90x64: ok
# CHECK: dequant gemm 128x64x96: ok

import os
import sys

import numpy as np

import tilelang_mlir
import tilelang_mlir.language as T

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python", "examples"))
from flash_attention import flash_attention as flash_attention_func  # noqa: E402

rng = np.random.default_rng()


@tilelang_mlir.jit(out_idx=[1])
def softmax(M, N=1024, block_M=8):
    log2e = 1.44269504

    @T.prim_func
    def main(X: T.Tensor((M, N), T.float32), Y: T.Tensor((M, N), T.float32)):
        with T.Kernel(T.ceildiv(M, block_M), threads=256) as bx:
            x = T.alloc_fragment((block_M, N), T.float32)
            row_max = T.alloc_fragment((block_M,), T.float32)
            row_sum = T.alloc_fragment((block_M,), T.float32)
            T.copy(X[bx * block_M, 0], x)
            T.reduce_max(x, row_max, dim=1)
            for i, j in T.Parallel(block_M, N):
                x[i, j] = T.exp2(x[i, j] * log2e - row_max[i] * log2e)
            T.reduce_sum(x, row_sum, dim=1)
            for i in T.Parallel(block_M):
                row_sum[i] = 1.0 / row_sum[i]
            for i, j in T.Parallel(block_M, N):
                x[i, j] *= row_sum[i]
            T.copy(x, Y[bx * block_M, 0])

    return main


def check_softmax(rows):
    x = rng.standard_normal((rows, 1024)).astype(np.float32)
    y = softmax(T.symbolic("M"))(x)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-6)
    print("softmax %dx1024: ok" % rows)


@tilelang_mlir.jit(out_idx=[1, 2, 3])
def row_stats(M, N, block_M=32, block_N=128):
    @T.prim_func
    def main(X: T.Tensor((M, N), T.float32), S: T.Tensor((M,), T.float32),
             Mx: T.Tensor((M,), T.float32), A: T.Tensor((M,), T.float32)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            tile = T.alloc_shared((block_M, block_N), T.float32)
            s = T.alloc_fragment((block_M,), T.float32)
            mx = T.alloc_fragment((block_M,), T.float32)
            a = T.alloc_fragment((block_M,), T.float32)
            T.clear(s)
            T.fill(mx, -T.infinity(T.float32))
            T.clear(a)
            for k in T.serial(T.ceildiv(N, block_N)):
                T.copy(X[bx * block_M, k * block_N], tile)
                # Columns past N read as zeros: harmless for sums, and a
                # max over them must not win, so mask them.
                for i, j in T.Parallel(block_M, block_N):
                    tile[i, j] = T.if_then_else(k * block_N + j < N, tile[i, j],
                                                -T.infinity(T.float32))
                T.reduce_max(tile, mx, dim=1, clear=False)
                for i, j in T.Parallel(block_M, block_N):
                    tile[i, j] = T.if_then_else(k * block_N + j < N, tile[i, j], 0.0)
                T.reduce_sum(tile, s, dim=1, clear=False)
                T.reduce_abssum(tile, a, dim=1, clear=False)
            T.copy(s, S[bx * block_M])
            T.copy(mx, Mx[bx * block_M])
            T.copy(a, A[bx * block_M])

    return main


def check_row_stats(rows, cols):
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    s, mx, a = row_stats(T.symbolic("M"), T.symbolic("N"))(x)
    np.testing.assert_allclose(s, x.sum(axis=1), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(mx, x.max(axis=1), rtol=0, atol=0)
    np.testing.assert_allclose(a, np.abs(x).sum(axis=1), rtol=1e-4, atol=1e-4)
    print("row sums/max/abssum %dx%d: ok" % (rows, cols))


@tilelang_mlir.jit(out_idx=[1])
def cumsum(M, N, block_M=32, reverse=False):
    @T.prim_func
    def main(X: T.Tensor((M, N), T.float32), Y: T.Tensor((M, N), T.float32)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            tile = T.alloc_shared((block_M, N), T.float32)
            T.copy(X[bx * block_M, 0], tile)
            T.cumsum(tile, dim=1, reverse=reverse)
            T.copy(tile, Y[bx * block_M, 0])

    return main


def check_cumsum(rows, reverse):
    x = rng.standard_normal((rows, 256)).astype(np.float32)
    y = cumsum(T.symbolic("M"), 256, reverse=reverse)(x)
    ref = np.flip(np.cumsum(np.flip(x, 1), 1), 1) if reverse else np.cumsum(x, 1)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
    print("cumsum %dx256%s: ok" % (rows, " reverse" if reverse else ""))


# FlashAttention is the shared T.* program of python/examples (also what
# bench/gen_attention.py turns into the suite's head-dim-128 kernel).
flash_attention = tilelang_mlir.jit(out_idx=[3])(flash_attention_func)


def check_attention(b, h, s, d, causal, split=None, overlap=False):
    q, k, v = (rng.standard_normal((b, h, s, d)).astype(np.float16)
               for _ in range(3))
    out = flash_attention(b, h, T.symbolic("S"), d, causal,
                          split=split, overlap=overlap)(q, k, v)
    scores = (q.astype(np.float32) @ np.swapaxes(k, -1, -2).astype(np.float32)
              ) / np.sqrt(d)
    if causal:
        scores = np.where(np.tril(np.ones((s, s), bool)), scores, -np.inf)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    ref = (p / p.sum(-1, keepdims=True)) @ v.astype(np.float32)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=1e-2, atol=2e-3)
    print("flash attention %dx%dx%dx%d%s%s%s: ok" % (
        b, h, s, d, " causal" if causal else "",
        " in %d-column parts" % split if split else "",
        " overlapped" if overlap else ""))


@tilelang_mlir.jit(out_idx=[3])
def dequant_gemm(M, N, K, block_M=64, block_N=64, block_K=32):
    """C = A @ W^T with W[n, k] = (q[n, k] - 8) * Scale[n], q unsigned 4-bit
    packed two per byte (low nibble even k)."""

    @T.prim_func
    def main(A: T.Tensor((M, K), T.float16), B: T.Tensor((N, K // 2), T.int8),
             Scale: T.Tensor((N,), T.float16), C: T.Tensor((M, N), T.float16)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M),
                      threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), T.float16)
            B_packed = T.alloc_shared((block_N, block_K // 2), T.int8)
            B_shared = T.alloc_shared((block_N, block_K), T.float16)
            scale_shared = T.alloc_shared((block_N,), T.float16)
            C_local = T.alloc_fragment((block_M, block_N), T.float32)
            T.copy(Scale[bx * block_N], scale_shared)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * (block_K // 2)], B_packed)
                for i, j in T.Parallel(block_N, block_K):
                    q = (B_packed[i, j // 2] >> ((j % 2) * 4)) & 0xF
                    B_shared[i, j] = (T.cast(q, T.float16) - 8.0) * scale_shared[i]
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def check_dequant(m, n, k):
    a = rng.standard_normal((m, k)).astype(np.float16)
    q = rng.integers(0, 16, (n, k))
    packed = ((q[:, 1::2] << 4) | q[:, 0::2]).astype(np.uint8).view(np.int8)
    scale = (rng.random(n) * 0.1 + 0.01).astype(np.float16)
    c = dequant_gemm(T.symbolic("M"), T.symbolic("N"), T.symbolic("K"))(a, packed, scale)
    w = ((q.astype(np.float16) - np.float16(8)) * scale[:, None]).astype(np.float16)
    ref = a.astype(np.float32) @ w.astype(np.float32).T
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=5e-2)
    print("dequant gemm %dx%dx%d: ok" % (m, n, k))


if __name__ == "__main__":  # (python/tests/test_gpu.py imports the kernels)
    check_softmax(13)
    check_softmax(8)
    check_row_stats(70, 300)
    check_row_stats(64, 256)
    check_cumsum(45, False)
    check_cumsum(45, True)
    check_attention(1, 2, 70, 64, False)
    check_attention(1, 2, 100, 64, True)
    check_attention(1, 2, 70, 128, False, split=64)
    check_attention(1, 1, 100, 128, True, split=32)
    check_attention(1, 2, 70, 128, False, overlap=True)
    check_attention(2, 1, 130, 64, True, overlap=True)
    check_attention(1, 1, 64, 64, False, overlap=True)
    check_attention(1, 2, 70, 128, False, split=64, overlap=True)
    check_attention(2, 1, 100, 128, True, split=64, overlap=True)
    check_dequant(100, 90, 64)
    check_dequant(128, 64, 96)
