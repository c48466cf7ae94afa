"""Views of a global tensor's bytes as another dtype: ``T.view(A, shape,
dtype=...)`` and ``T.Tensor(shape, dtype, A.data)`` (tile.view). Reads and
writes through the view against numpy's ``.view``; a parameter written only
through a view counts as written. Shared tiles seen as another dtype: the
same bytes, also when the tile is swizzled (the view's swizzle is the
tile's in its dtype), written through one and read through the other.
Fragments have no bytes to view: refused by name."""

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
    (lambda A: T.view(T.alloc_fragment((8, 8), T.float32), (8, 16), dtype=T.float16),
     "T.view of the fragment tile .* as another dtype .*: only global tensors "
     "and shared tiles have bytes to view"),
    (lambda A: T.view(T.reshape(T.alloc_shared((8, 8), T.float32), (64,)), (128,),
                      dtype=T.float16),
     "a shared tile is viewed as another dtype whole, from its T.alloc_shared"),
    (lambda A: T.view(T.alloc_shared((8, 8), T.float32), (8, 8), dtype=T.float16),
     "a view keeps the bytes"),
    (lambda A: T.annotate_layout({T.alloc_shared((8, 8), T.float32):
                                  T.Layout((8, 8), lambda i, j: [j, i])}),
     "T.Layout\\(shape, fn\\) of a shared tile is supported when fn maps each "
     "coordinate to itself"),
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


# Shared tiles seen as another dtype. Random bytes (any bit pattern: copies
# move bits), compared bit for bit with numpy's view of the same bytes.
SHARED_VIEWS = [
    # tile shape, dtype, view shape, view dtype
    ((64, 64), "float32", (64, 128), "float16"),   # narrowing
    ((64, 128), "float16", (64, 64), "float32"),   # widening
    ((32, 64), "float32", (32, 256), "uint8"),     # 4x narrowing
    ((16, 256), "int8", (16, 64), "int32"),        # 4x widening
    ((2, 64, 64), "float16", (2, 64, 128), "int8"),  # TileLang's staged bytes
]


def _random_bits(shape, dtype):
    itemsize = np.dtype(dtype).itemsize
    raw = RNG.integers(0, 256, int(np.prod(shape)) * itemsize).astype(np.uint8)
    return raw.view(dtype).reshape(shape)


def _shared_view_program(shape, dtype, new_shape, new_dtype, swizzled,
                         through_view):
    """Copies A into a shared tile and out through its view (or, with
    `through_view`, into the view and out through the tile)."""
    src_shape, src_dtype = (new_shape, new_dtype) if through_view else (shape, dtype)
    dst_shape, dst_dtype = (shape, dtype) if through_view else (new_shape, new_dtype)

    @T.prim_func
    def main(A: T.Tensor(src_shape, src_dtype), B: T.Tensor(dst_shape, dst_dtype)):
        with T.Kernel(1, threads=128):
            tile = T.alloc_shared(shape, dtype)
            view = T.view(tile, new_shape, dtype=new_dtype)
            if swizzled:
                T.annotate_layout({tile: T.make_swizzled_layout(tile)})
            if through_view:
                T.copy(A, view)
                T.copy(tile, B)
            else:
                T.copy(A, tile)
                T.copy(view, B)
    return main


@pytest.mark.parametrize("through_view", [False, True], ids=["read_view", "write_view"])
@pytest.mark.parametrize("swizzled", [False, True], ids=["linear", "swizzled"])
@pytest.mark.parametrize("shape, dtype, new_shape, new_dtype", SHARED_VIEWS[:2])
def test_shared_tile_seen_as_another_dtype(shape, dtype, new_shape, new_dtype,
                                           swizzled, through_view):
    main = _shared_view_program(shape, dtype, new_shape, new_dtype, swizzled,
                                through_view)
    kernel = tilelang.compile(main, out_idx=-1, target="cpu")
    a = _random_bits(new_shape if through_view else shape,
                     new_dtype if through_view else dtype)
    b = kernel(a)
    want = a.view(dtype if through_view else new_dtype).reshape(b.shape)
    np.testing.assert_array_equal(b.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("swizzled", [False, True], ids=["linear", "swizzled"])
@pytest.mark.parametrize("shape, dtype, new_shape, new_dtype", SHARED_VIEWS[2:])
def test_shared_tile_views_of_other_widths(shape, dtype, new_shape, new_dtype,
                                           swizzled):
    main = _shared_view_program(shape, dtype, new_shape, new_dtype, swizzled, False)
    a = _random_bits(shape, dtype)
    b = tilelang.compile(main, out_idx=-1, target="cpu")(a)
    np.testing.assert_array_equal(b, a.view(new_dtype).reshape(new_shape))


def test_a_swizzled_tile_keeps_its_swizzle_through_its_view():
    """The swizzle is applied, not dropped: the f32 tile's <3, 2, 4>
    (make_swizzled_layout's for rows of 64 f32) stays on it for sm_90a, and
    that lowering applies it (the CPU numerics above would pass with no
    swizzle anywhere). The GPU numerics below check the bytes."""
    main = _shared_view_program((64, 64), "float32", (64, 128), "float16",
                                True, False)
    kernel = tilelang.compile(main, out_idx=-1, target="cpu")
    layouts = kernel.get_kernel_source("layouts", target="cuda -arch=sm_90a")
    assert "{layout = #tile.swizzle<3, 2, 4>} : memref<64x64xf32" in layouts
    loops = kernel.get_kernel_source("loops", target="cuda -arch=sm_90a")
    assert "arith.xori" in loops


def test_writes_through_elements_of_a_view_and_an_annotated_row_major_view():
    """TileLang's staged-bytes program: a (2, 64, 64) f16 tile written by
    element, read by element through its int8 view, whose layout the user
    fixes row-major with T.Layout."""
    @T.prim_func
    def main(A: T.Tensor((64, 64), T.float16), B: T.Tensor((64, 128), T.int8)):
        with T.Kernel(1, threads=128):
            stage = T.alloc_shared((2, 64, 64), T.float16, scope="shared.dyn")
            as_bytes = T.view(stage, (2, 64, 128), dtype=T.int8)
            T.annotate_layout({as_bytes: T.Layout((2, 64, 128), lambda s, i, j: [s, i, j])})
            for i, j in T.Parallel(64, 64):
                stage[0, i, j] = A[i, j]
            for i, j in T.Parallel(64, 128):
                B[i, j] = as_bytes[0, i, j]

    kernel = tilelang.compile(main, out_idx=-1, target="cpu")
    a = _random_bits((64, 64), "float16")
    np.testing.assert_array_equal(kernel(a), a.view(np.int8))
    layouts = kernel.get_kernel_source("layouts", target="cuda -arch=sm_90a")
    assert "{layout = #tile.swizzle<0, 0, 0>} : memref<2x64x64xf16" in layouts


def test_a_view_of_a_view_views_the_tile():
    @T.prim_func
    def main(A: T.Tensor((16, 16), T.float32), B: T.Tensor((16, 64), T.uint8)):
        with T.Kernel(1, threads=32):
            tile = T.alloc_shared((16, 16), T.float32)
            halves = T.view(tile, (16, 32), dtype=T.float16)
            as_bytes = T.view(halves, (16, 64), dtype=T.uint8)
            T.copy(A, tile)
            T.copy(as_bytes, B)

    a = _random_bits((16, 16), "float32")
    b = tilelang.compile(main, out_idx=-1, target="cpu")(a)
    np.testing.assert_array_equal(b, a.view(np.uint8))


@pytest.mark.parametrize("swizzled", [False, True], ids=["linear", "swizzled"])
def test_shared_views_compile_for_sm90a_and_gfx942(swizzled):
    main = _shared_view_program((64, 64), "float32", (64, 128), "float16",
                                swizzled, False)
    ptx = tilelang.compile(main, target="cuda -arch=sm_90a").get_kernel_source("ptx")
    assert ".entry" in ptx
    amd = tilelang.compile(main, target="hip -mcpu=gfx942").get_kernel_source("llvm")
    assert "gpu.binary" in amd


@pytest.mark.parametrize("swizzled", [False, True], ids=["linear", "swizzled"])
@pytest.mark.parametrize("shape, dtype, new_shape, new_dtype", SHARED_VIEWS)
def test_shared_views_on_the_gpu(cuda_torch, shape, dtype, new_shape, new_dtype,
                                 swizzled):
    torch = cuda_torch
    for through_view in (False, True):
        main = _shared_view_program(shape, dtype, new_shape, new_dtype, swizzled,
                                    through_view)
        kernel = tilelang.compile(main, out_idx=-1, target="cuda -arch=sm_90a")
        src_shape, src_dtype = (new_shape, new_dtype) if through_view else (shape, dtype)
        a = torch.from_numpy(_random_bits(src_shape, src_dtype)).cuda()
        b = kernel(a)
        want = a.view(getattr(torch, dtype if through_view else new_dtype)).view(b.shape)
        assert torch.equal(b.view(torch.uint8), want.view(torch.uint8)), through_view
