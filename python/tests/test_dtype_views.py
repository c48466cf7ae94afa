"""Views of a global tensor's bytes as another dtype: ``T.view(A, shape,
dtype=...)`` and ``T.Tensor(shape, dtype, A.data)`` (tile.view). Reads and
writes through the view against numpy's ``.view``; a parameter written only
through a view counts as written. Views of on-chip tiles as another dtype
are refused by name."""

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def test_a_float32_tensor_read_as_float16_halves():
    N, M = 1024, 32

    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N // M, 2 * M), T.float16)):
        with T.Kernel(1, threads=128):
            halves = T.view(A, (N // M, 2 * M), dtype=T.float16)
            T.copy(halves, B)

    a = RNG.standard_normal(N).astype(np.float32)
    b = tilelang.compile(main, out_idx=-1, target="cpu")(a)
    np.testing.assert_array_equal(b.view(np.uint16),
                                  a.view(np.float16).reshape(N // M, 2 * M).view(np.uint16))


def test_writes_through_a_byte_view_are_the_tensors():
    """Bytes written through a uint8 view outside any kernel's T.Kernel
    scope too (a view made at the prim_func level)."""
    @T.prim_func
    def main(X: T.Tensor((64,), T.uint8), Y: T.Tensor((16,), T.float32)):
        as_bytes = T.view(Y, (64,), dtype=T.uint8)
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                as_bytes[i] = X[i]

    kernel = tilelang.compile(main, target="cpu")
    assert [p["written"] for p in kernel.params] == [False, True]
    x = RNG.integers(0, 256, 64).astype(np.uint8)
    y = np.zeros(16, np.float32)
    kernel(x, y)
    np.testing.assert_array_equal(y.view(np.uint8), x)
    with pytest.raises(tilelang.TileError,
                       match="the kernel writes this buffer, but the array is read-only"):
        read_only = np.zeros(16, np.float32)
        read_only.setflags(write=False)
        kernel(x, read_only)


def test_tensor_of_data_with_another_dtype():
    @T.prim_func
    def main(A: T.Tensor((8, 8), T.int32), B: T.Tensor((8, 16), T.int16)):
        with T.Kernel(1, threads=64):
            pairs = T.Tensor((8, 16), T.int16, A.data)
            for i, j in T.Parallel(8, 16):
                B[i, j] = pairs[i, j]

    a = RNG.integers(-2**31, 2**31 - 1, (8, 8)).astype(np.int32)
    b = tilelang.compile(main, out_idx=-1, target="cpu")(a)
    np.testing.assert_array_equal(b, a.view(np.int16).reshape(8, 16))


def test_views_compile_for_sm90a():
    @T.prim_func
    def main(A: T.Tensor((128, 64), T.float32), B: T.Tensor((128, 128), T.float16)):
        with T.Kernel(2, threads=128) as bx:
            halves = T.view(A, (128, 128), dtype=T.float16)
            tile = T.alloc_shared((64, 128), T.float16)
            T.copy(halves[bx * 64, 0], tile)
            T.copy(tile, B[bx * 64, 0])

    kernel = tilelang.compile(main, target="cuda -arch=sm_90a")
    assert ".entry" in kernel.get_kernel_source("ptx")


@pytest.mark.parametrize("make, message", [
    (lambda A: T.view(A, (100,), dtype=T.float16), "a view keeps the bytes"),
    (lambda A: T.view(T.alloc_shared((8, 8), T.float32), (8, 16), dtype=T.float16),
     "T.view of the shared tile .* as another dtype .* is not supported yet"),
])
def test_bad_views_are_refused_at_the_users_line(make, message):
    with pytest.raises(T.TileLangError, match=r"test_dtype_views.py:\d+: .*" + message):
        @T.prim_func
        def main(A: T.Tensor((64,), T.float32)):
            with T.Kernel(1, threads=32):
                make(A)


def test_a_view_read_on_the_gpu(cuda_torch):
    torch = cuda_torch

    @T.prim_func
    def main(A: T.Tensor((4096,), T.float32), B: T.Tensor((64, 128), T.bfloat16)):
        with T.Kernel(4, threads=128) as bx:
            halves = T.view(A, (64, 128), dtype=T.bfloat16)
            T.copy(halves[bx * 16:(bx + 1) * 16, :], B[bx * 16:(bx + 1) * 16, :])

    kernel = tilelang.compile(main, target="cuda -arch=sm_90a")
    a = torch.randn(4096, device="cuda")
    b = torch.full((64, 128), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel(a, b)
    assert torch.equal(b.view(torch.int16), a.view(torch.bfloat16).view(64, 128).view(torch.int16))
