"""Strided tensors (TileLang's T.StridedTensor): views such as a[:, :N] of
wider arrays used in place, static strides checked at the call, symbolic
ones bound from the argument; on the CPU against numpy, and compiled for
sm_90a. The GPU side (torch views) is in test_gpu.py."""

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T


def _copy_with_stride(M, N, NN, bm, bn, dtype="float16"):
    @T.prim_func
    def main(A: T.StridedTensor((M, N), (NN, 1), dtype),
             B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            for i, j in T.Parallel(bm, bn):
                with T.If(by * bm + i < M):
                    with T.If(bx * bn + j < N):
                        B[by * bm + i, bx * bn + j] = A[by * bm + i, bx * bn + j]
    return main


@pytest.mark.parametrize("stride", [96, "dynamic"])
def test_elementwise_copy_of_a_view(stride):
    NN = T.dynamic("NN") if stride == "dynamic" else stride
    kernel = tilelang_mlir.compile(_copy_with_stride(70, 45, NN, 32, 16),
                                   out_idx=[1], target="cpu")
    rng = np.random.default_rng()
    wide = rng.standard_normal((70, 96)).astype(np.float16)
    out = kernel(wide[:, 3:48])  # offset and strides of a view
    np.testing.assert_array_equal(out, wide[:, 3:48])


def _gemm(M, N, K, KK, bm, bn, bk, dtype="float32"):
    """C = A @ B with A a [M, K] view of rows KK elements apart."""
    @T.prim_func
    def main(A: T.StridedTensor((M, K), (KK, 1), dtype),
             B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            a = T.alloc_shared((bm, bk), dtype)
            b = T.alloc_shared((bk, bn), dtype)
            c = T.alloc_fragment((bm, bn), "float32")
            T.clear(c)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=2):
                T.copy(A[by * bm, k * bk], a)
                T.copy(B[k * bk, bx * bn], b)
                T.gemm(a, b, c)
            T.copy(c, C[by * bm, bx * bn])
    return main


def test_gemm_of_a_strided_operand():
    kernel = tilelang_mlir.compile(_gemm(40, 24, 50, T.dynamic("KK"), 16, 16, 16),
                                   out_idx=[2], target="cpu")
    rng = np.random.default_rng()
    wide = rng.standard_normal((40, 80)).astype(np.float32)
    b = rng.standard_normal((50, 24)).astype(np.float32)
    a = wide[:, 7:57]
    np.testing.assert_allclose(kernel(a, b), a.astype(np.float64) @ b,
                               rtol=1e-4, atol=1e-4)
    # A contiguous array is a strided one too.
    a = np.ascontiguousarray(a)
    np.testing.assert_allclose(kernel(a, b), a.astype(np.float64) @ b,
                               rtol=1e-4, atol=1e-4)


def test_stride_symbol_is_a_value_in_the_body():
    # A stride symbol is a size like any other: here O's extent.
    S = T.dynamic("S")

    @T.prim_func
    def widths(A: T.StridedTensor((4, 8), (S, 1), "int32"),
               O: T.Tensor((S,), "int32")):
        with T.Kernel(1, threads=32):
            for i in T.serial(S):
                O[i] = i
    kernel = tilelang_mlir.compile(widths, target="cpu")
    wide = np.zeros((4, 11), np.int32)
    out = np.full(11, -1, np.int32)
    kernel(wide[:, :8], out)
    np.testing.assert_array_equal(out, np.arange(11))


def test_a_static_stride_is_checked_at_the_call():
    kernel = tilelang_mlir.compile(_copy_with_stride(8, 8, 16, 8, 8), out_idx=[1],
                                   target="cpu")
    with pytest.raises(tilelang_mlir.TileError,
                       match=r"'A'.*strided<\[16, 1\]>.*dimension 0 has stride 8, "
                             r"the kernel's layout fixes 16"):
        kernel(np.zeros((8, 8), np.float16))


def test_bad_declarations_name_the_line():
    with pytest.raises(T.TileLangError, match=r"test_strided.py:\d+: "
                                              r"T.StridedTensor: 1 strides"):
        T.StridedTensor((4, 4), (4,), "float32")
    with pytest.raises(T.TileLangError, match="strides are ints or T.dynamic"):
        T.StridedTensor((4, 4), (4.0, 1), "float32")


def test_strided_operand_compiles_for_sm90():
    # The view's rows are TMA boxes of a tensor map encoded from the
    # argument's strides at run time; the gemm stays on wgmma.
    kernel = tilelang_mlir.compile(
        _gemm(256, 256, 256, T.dynamic("KK"), 128, 128, 32, "float16"),
        out_idx=[2], target="sm_90a")
    ptx = kernel.get_kernel_source("ptx")
    assert "cp.async.bulk.tensor.2d" in ptx and "wgmma.mma_async" in ptx
