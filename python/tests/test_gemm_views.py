"""T.gemm on regions of shared tiles (TileLang's `A_shared[:, k:]`,
`B_shared[0:bk, 0:bn]`, a stage `A_shared[s, :, :]` of a multi-buffered
tile): views of the tiles' memory, on the CPU against numpy, compiled for
sm_90a; the errors of regions it does not take. The GPU side is in
test_gpu.py."""

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T


def offset_operands(M, N, K, bm, bn, bk, dtype="float16"):
    """TileLang's gemm_with_stride test, in this package's words: A's tile
    in the right half of a tile twice as wide, B's in the left half."""
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            a = T.alloc_shared((bm, bk * 2), dtype)
            b = T.alloc_shared((bk, bn * 2), dtype)
            c = T.alloc_fragment((bm, bn), "float32")
            T.clear(c)
            T.clear(a)
            T.clear(b)
            for ko in T.Pipelined(T.ceildiv(K, bk), num_stages=0):
                for i, k in T.Parallel(bm, bk):
                    a[i, k + bk] = A[by * bm + i, ko * bk + k]
                for i, k in T.Parallel(bk, bn):
                    b[i, k] = B[ko * bk + i, bx * bn + k]
                T.gemm(a[:, bk:], b[0:bk, 0:bn], c)
            T.copy(c, C[by * bm, bx * bn])
    return main


def staged_operands(M, N, K, bm, bn, bk, stages=2):
    """Hand-buffered stages: iteration k fills stage k % stages of 3-D
    tiles and multiplies that stage (a dynamic index)."""
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((N, K), "float16"),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            a = T.alloc_shared((stages, bm, bk), "float16")
            b = T.alloc_shared((stages, bn, bk), "float16")
            c = T.alloc_fragment((bm, bn), "float32")
            T.clear(c)
            for ko in T.serial(T.ceildiv(K, bk)):
                # A head address into a stage (the region gives the shape),
                # and slices on both sides.
                T.copy(A[by * bm, ko * bk], a[ko % stages, :, :])
                T.copy(B[bx * bn:(bx + 1) * bn, ko * bk:(ko + 1) * bk],
                       b[ko % stages, :, :])
                T.gemm(a[ko % stages, :, :], b[ko % stages, :, :], c,
                       transpose_B=True)
            T.copy(c, C[by * bm, bx * bn])
    return main


def _check(got, a, b):
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=1e-2, atol=5e-2)


def test_offset_operands():
    kernel = tilelang_mlir.compile(offset_operands(96, 64, 80, 32, 32, 16),
                                   out_idx=[2], target="cpu")
    rng = np.random.default_rng()
    a = rng.standard_normal((96, 80)).astype(np.float16)
    b = rng.standard_normal((80, 64)).astype(np.float16)
    _check(kernel(a, b), a, b)


def test_stages_of_a_buffered_tile():
    kernel = tilelang_mlir.compile(staged_operands(64, 96, 112, 32, 32, 16),
                                   out_idx=[2], target="cpu")
    rng = np.random.default_rng()
    a = rng.standard_normal((64, 112)).astype(np.float16)
    b = rng.standard_normal((96, 112)).astype(np.float16)
    _check(kernel(a, b), a, b.T)


def test_compiles_for_sm90_on_tensor_cores():
    for func in (offset_operands(256, 256, 256, 128, 128, 32),
                 staged_operands(256, 256, 256, 128, 128, 32)):
        ptx = tilelang_mlir.compile(func, out_idx=[2],
                                    target="sm_90a").get_kernel_source("ptx")
        assert "mma.sync" in ptx or "wgmma.mma_async" in ptx


def test_regions_it_does_not_take():
    with pytest.raises(T.TileLangError, match=r"test_gemm_views.py:\d+: T.gemm's A "
                                              r"takes regions of shared tiles only"):
        @T.prim_func
        def global_region(A: T.Tensor((64, 64), "float16"),
                          C: T.Tensor((64, 64), "float32")):
            with T.Kernel(1, threads=128) as _:
                b = T.alloc_shared((64, 64), "float16")
                c = T.alloc_fragment((64, 64), "float32")
                T.gemm(A[0:64, 0:64], b, c)
