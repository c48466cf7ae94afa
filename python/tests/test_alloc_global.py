"""T.alloc_global: a global buffer of the prim_func shared by its kernels
(TileLang's split-KV decoding writes partial results in one kernel and
combines them in the next), allocated on every call and not returned; on
the CPU against numpy. The GPU side is in test_gpu.py."""

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T


def split_row_sums(M, N, splits):
    """Y[i] = sum of X[i, :], in `splits` column ranges summed by one
    kernel into a [M, splits] global buffer, combined by a second."""
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M,), "float32")):
        partial = T.alloc_global((M, splits), "float32")
        with T.Kernel(splits, threads=32) as bx:
            for i in T.serial(M):
                acc = T.alloc_var("float32")
                acc = 0.0
                for j in T.serial(N // splits):
                    acc += X[i, bx * (N // splits) + j]
                partial[i, bx] = acc
        with T.Kernel(1, threads=32) as _:
            for i in T.serial(M):
                total = T.alloc_var("float32")
                total = 0.0
                for s in T.serial(splits):
                    total += partial[i, s]
                Y[i] = total
    return main


@pytest.mark.parametrize("rows", [8, "dynamic"])
def test_split_sums_through_a_global_buffer(rows):
    M = T.dynamic("M") if rows == "dynamic" else rows
    kernel = tilelang_mlir.compile(split_row_sums(M, 64, 4), out_idx=[1],
                                   target="cpu")
    rng = np.random.default_rng()
    for m in ((8,) if rows == 8 else (5, 13)):
        x = rng.standard_normal((m, 64)).astype(np.float32)
        np.testing.assert_allclose(kernel(x), x.astype(np.float64).sum(1),
                                   rtol=1e-5, atol=1e-4)
    # The buffer is a parameter after the user's, which callers never see.
    assert [name for name, _ in kernel.func.params] == ["X", "Y"]
    assert "%global_0: memref<" in kernel.func.script()


@tilelang_mlir.jit
def staged_copy(A, block):
    """The eager style: the output and a global staging buffer sized by a
    T.const, the buffer filled by one kernel and read by the next."""
    N = T.const("N")
    A: T.Tensor[[N], T.float32]
    B = T.empty([N], T.float32)
    C = T.alloc_global([N], T.float32)
    with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
        for i in T.serial(block):
            if bx * block + i < N:
                C[bx * block + i] = A[bx * block + i] * 2.0
    with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
        for i in T.serial(block):
            if bx * block + i < N:
                B[bx * block + i] = C[bx * block + i] + 1.0
    return B


def test_eager_functions_allocate_it_too():
    a = np.random.default_rng().standard_normal(300).astype(np.float32)
    np.testing.assert_array_equal(staged_copy(a, 64), a * 2 + 1)


def test_without_outputs_the_call_still_allocates_it():
    kernel = tilelang_mlir.compile(split_row_sums(4, 16, 2), target="cpu")
    x = np.ones((4, 16), np.float32)
    y = np.full(4, np.nan, np.float32)
    assert kernel(x, y) is None
    np.testing.assert_array_equal(y, np.full(4, 16.0))


def test_inside_a_kernel_it_is_refused_at_the_line():
    with pytest.raises(T.TileLangError,
                       match=r"test_alloc_global.py:\d+: T.alloc_global makes a "
                             r"buffer of the prim_func"):
        @T.prim_func
        def main(X: T.Tensor((4,), "float32")):
            with T.Kernel(1, threads=32) as _:
                T.alloc_global((4,), "float32")


def test_a_size_no_parameter_has_is_refused():
    with pytest.raises(T.TileLangError, match="the size K is no dimension"):
        @T.prim_func
        def main(X: T.Tensor((4,), "float32")):
            T.alloc_global((T.dynamic("K"),), "float32")
