"""T.* beyond the kernels of the suite: scalar math, layout annotations and
what reductions see of an edge tile's zero padding."""

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T

from kernels import matmul_func


@tilelang_mlir.jit(out_idx=[1])
def elementwise(N, op):
    @T.prim_func
    def main(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
        with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
            for i in T.Parallel(64):
                Y[bx * 64 + i] = op(X[bx * 64 + i])
    return main


@pytest.mark.parametrize("name, op, ref", [
    ("tanh", T.tanh, np.tanh), ("sin", T.sin, np.sin), ("cos", T.cos, np.cos),
    ("floor", T.floor, np.floor), ("ceil", T.ceil, np.ceil),
    ("round", T.round, np.round),
    ("sigmoid", T.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    ("clamp", lambda x: T.clamp(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5)),
    ("pow", lambda x: T.pow(T.abs(x), 1.5), lambda x: np.abs(x) ** 1.5),
    ("exp2", T.exp2, np.exp2), ("rsqrt", lambda x: T.rsqrt(T.abs(x) + 1.0),
                                lambda x: 1 / np.sqrt(np.abs(x) + 1)),
])
def test_scalar_math(name, op, ref):
    x = (np.random.default_rng().standard_normal(128) * 3).astype(np.float32)
    x[:4] = [0.5, 1.5, -2.5, 2.5]  # round half to even
    np.testing.assert_allclose(elementwise(128, op)(x), ref(x).astype(np.float32),
                               rtol=1e-5, atol=1e-6, err_msg=name)


def test_traced_values_have_no_truth_value():
    with pytest.raises(T.TileLangError, match="no Python truth value"):
        elementwise(64, lambda x: x if x > 0 else -x)


def test_swizzled_layout_annotation():
    assert T.make_swizzled_layout(
        T.TileBuffer("%s", [64, 64], T.float16, "shared")).attribute == \
        "#tile.swizzle<3, 3, 3>"
    assert T.make_swizzled_layout(
        T.TileBuffer("%s", [128, 32], T.float16, "shared")).attribute == \
        "#tile.swizzle<2, 3, 3>"
    with pytest.raises(T.TileLangError, match="no swizzle"):
        T.make_swizzled_layout(T.TileBuffer("%s", [16, 8], T.float16, "shared"))

    @tilelang_mlir.jit(out_idx=[-1])
    def swizzled(M, N, K, block=32):
        @T.prim_func
        def main(A: T.Tensor((M, K), T.float16), B: T.Tensor((K, N), T.float16),
                 C: T.Tensor((M, N), T.float32)):
            with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block),
                          threads=64) as (bx, by):
                A_s = T.alloc_shared((block, 64), T.float16)
                B_s = T.alloc_shared((64, block), T.float16)
                C_f = T.alloc_fragment((block, block), T.float32)
                T.annotate_layout({A_s: T.make_swizzled_layout(A_s)})
                T.clear(C_f)
                for k in T.Pipelined(T.ceildiv(K, 64), num_stages=2):
                    T.copy(A[by * block, k * 64], A_s)
                    T.copy(B[k * 64, bx * block], B_s)
                    T.gemm(A_s, B_s, C_f)
                T.copy(C_f, C[by * block, bx * block])
        return main

    kernel = swizzled(40, 48, 100)
    assert "tile.annotate_layout" in kernel.get_kernel_source()
    # The swizzle reaches the allocation (the GPU compile's planned
    # pipeline shows it) and the CPU lowering applies it.
    assert "#tile.swizzle<3, 3, 3>" in kernel.get_kernel_source(
        "pipelined", target="sm_90a")
    kernel.get_profiler().assert_allclose(
        lambda a, b: a.astype(np.float32) @ b.astype(np.float32),
        rtol=1e-3, atol=1e-3)


def test_mma_swizzle_layout_of_tilelang_cuda_intrinsics():
    # tilelang.cuda.intrinsics.make_mma_swizzle_layout (TileLang's name for
    # the ldmatrix swizzle): the compiler's swizzle for rows of a multiple
    # of 64 bytes, no permutation for others or with is_smooth; the tile's
    # values are the same either way.
    import tilelang_mlir.cuda
    from tilelang_mlir.cuda.intrinsics import make_mma_swizzle_layout
    from tilelang_mlir.cuda.intrinsics.layout.mma_layout import (
        make_mma_swizzle_layout as same)
    assert same is make_mma_swizzle_layout
    shared = lambda shape, dtype: T.TileBuffer("%s", shape, dtype, "shared")
    assert make_mma_swizzle_layout(shared([128, 32], T.float32)).attribute == \
        T.make_swizzled_layout(shared([128, 32], T.float32)).attribute
    assert make_mma_swizzle_layout(shared([64, 24], T.float16)).attribute == \
        "#tile.swizzle<0, 3, 3>"
    assert make_mma_swizzle_layout(shared([64, 64], T.float16),
                                   is_smooth=True).attribute == "#tile.swizzle<0, 3, 3>"
    with pytest.raises(T.TileLangError, match="takes a shared tile"):
        make_mma_swizzle_layout(T.TileBuffer("%s", [8, 8], T.float16))
    with pytest.raises(ModuleNotFoundError):
        import tilelang_mlir.cuda.intrinsics.macro  # noqa: F401 (TVM emitters)

    for cols in (32, 24):
        @T.prim_func
        def main(A: T.Tensor((128, cols), T.float32), B: T.Tensor((128, cols), T.float32)):
            with T.Kernel(1, threads=128):
                A_s = T.alloc_shared((128, cols), T.float32)
                T.annotate_layout({A_s: make_mma_swizzle_layout(A_s)})
                for i, j in T.Parallel(128, cols):
                    A_s[i, j] = A[i, j] * 2.0
                T.copy(A_s, B)

        kernel = tilelang_mlir.compile(main, target="cpu")
        a = np.random.default_rng().standard_normal((128, cols)).astype(np.float32)
        b = np.full_like(a, np.nan)
        kernel(a, b)
        np.testing.assert_array_equal(b, a * 2)
        tilelang_mlir.compile(main, target="sm_90a").get_kernel_source("ptx")


def test_gemm_wg_wait_and_wait_wgmma():
    # TileLang's Hopper idiom: leave the gemm's work in flight, wait before
    # the epilogue. On the CPU gemms are synchronous and the result is the
    # same.
    @tilelang_mlir.jit(out_idx=[-1])
    def overlapped(M, N, K, block=32):
        @T.prim_func
        def main(A: T.Tensor((M, K), T.float16), B: T.Tensor((N, K), T.float16),
                 C: T.Tensor((M, N), T.float32)):
            with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block),
                          threads=128) as (bx, by):
                A_s = T.alloc_shared((block, 32), T.float16)
                B_s = T.alloc_shared((block, 32), T.float16)
                C_f = T.alloc_fragment((block, block), T.float32)
                T.clear(C_f)
                for k in T.Pipelined(T.ceildiv(K, 32), num_stages=2):
                    T.copy(A[by * block, k * 32], A_s)
                    T.copy(B[bx * block, k * 32], B_s)
                    T.gemm(A_s, B_s, C_f, transpose_B=True, wg_wait=-1)
                T.wait_wgmma(0)
                T.copy(C_f, C[by * block, bx * block])
        return main

    kernel = overlapped(40, 48, 70)
    source = kernel.get_kernel_source()
    assert "wg_wait = -1" in source and "tile.gemm_wait pending(0)" in source
    kernel.get_profiler().assert_allclose(
        lambda a, b: a.astype(np.float32) @ b.astype(np.float32).T,
        rtol=1e-3, atol=1e-3)

    # The error names the user's line.
    with pytest.raises(T.TileLangError, match=r"test_language.py:\d+: "
                       r"T.wait_wgmma takes a group count"):
        @T.prim_func
        def bad(A: T.Tensor((32, 32), T.float16)):
            with T.Kernel(1, threads=32) as bx:
                T.wait_wgmma(-1)


def test_fragment_layouts():
    layout = T.Fragment((64, 32), forward_thread_fn=lambda i, j: (i * 32 + j) % 128,
                        threads=128)
    assert layout.attribute == (
        "#tile.fragment<[64, 32], thread = (d0, d1) -> ((d0 * 32 + d1) mod 128), "
        "index = (d0, d1) -> ((d0 * 32 + d1) floordiv 128), threads = 128>")
    replicated = T.Fragment(16, lambda i, r: (i % 8) * 4 + r,
                            forward_index_fn=lambda i: i // 8, replicate=4,
                            threads=128)
    assert "thread = (d0, d1) -> ((d0 mod 8) * 4 + d1)" in replicated.attribute
    assert "replicate = 4" in replicated.attribute

    def kernel(thread_fn):
        @T.prim_func
        def main(X: T.Tensor((64, 32), T.float32)):
            with T.Kernel(1, threads=128) as bx:
                frag = T.alloc_fragment((64, 32), T.float32)
                T.annotate_layout({frag: T.Fragment((64, 32), thread_fn)})
                T.copy(X[0, 0], frag)
                T.copy(frag, X[0, 0])
        return main

    good = tilelang_mlir.compile(kernel(lambda i, j: (i * 32 + j) % 128))
    assert "threads = 128" in good.get_kernel_source("pipelined", target="sm_90a")
    # Two elements on one thread in one slot: the layout attribute's own
    # check says so while tracing, at the line that annotated the layout.
    with pytest.raises(T.TileLangError, match=r"test_language.py:\d+: .*fragment layout maps element"):
        tilelang_mlir.compile(kernel(lambda i, j: j % 128))


@tilelang_mlir.jit(out_idx=[1])
def rows_rescaled_where_positive(M, N):
    """Y = X with each row scaled by 2 where its first element is positive
    (T.If on a row condition inside a 2-D T.Parallel: the GPU lowering
    branches once per row of a thread's elements)."""
    @T.prim_func
    def main(X: T.Tensor((M, N), T.float32), Y: T.Tensor((M, N), T.float32)):
        with T.Kernel(T.ceildiv(M, 16), threads=64) as bx:
            tile = T.alloc_fragment((16, N), T.float32)
            T.copy(X[bx * 16, 0], tile)
            for i, j in T.Parallel(16, N):
                with T.If(tile[i, 0] > 0.0):
                    tile[i, j] = tile[i, j] * 2.0
            T.copy(tile, Y[bx * 16, 0])
    return main


def test_if():
    x = np.random.default_rng().standard_normal((40, 32)).astype(np.float32)
    y = rows_rescaled_where_positive(40, 32)(x)
    np.testing.assert_allclose(y, np.where(x[:, :1] > 0, 2 * x, x), rtol=0)


def test_if_needs_a_comparison():
    with pytest.raises(T.TileLangError, match="T.If needs a comparison"):
        @T.prim_func
        def main(X: T.Tensor((64,), T.float32)):
            with T.Kernel(1, threads=64) as bx:
                for i in T.Parallel(64):
                    with T.If(X[i]):
                        X[i] = 0.0


def _row_max_func(M, N, masked):
    """Row maxima of 64-column tiles, with or without masking the columns
    past the buffer's edge (which the copy reads as zero)."""
    @T.prim_func
    def main(X: T.Tensor((M, N), T.float32), R: T.Tensor((M,), T.float32)):
        with T.Kernel(T.ceildiv(M, 16), threads=64) as by:
            x = T.alloc_fragment((16, 64), T.float32)
            r = T.alloc_fragment((16,), T.float32)
            T.copy(X[by * 16, 0], x)
            if masked:
                for i, j in T.Parallel(16, 64):
                    x[i, j] = T.if_then_else(j < N, x[i, j], -T.infinity(T.float32))
            T.reduce_max(x, r, dim=1)
            T.copy(r, R[by * 16])
    return main


def test_edge_tile_reductions():
    """The zero padding of an edge tile is a value reductions see (as in
    TileLang): the max of a row of negative values over a tile wider than
    the buffer is 0; masked to -inf past the edge, it is the row's max."""
    rng = np.random.default_rng()
    M, N = 37, 40
    x = -rng.uniform(1, 5, size=(M, N)).astype(np.float32)
    unmasked = tilelang_mlir.compile(_row_max_func(M, N, False), out_idx=[1])(x)
    np.testing.assert_array_equal(unmasked, np.zeros(M, np.float32))
    masked = tilelang_mlir.compile(_row_max_func(M, N, True), out_idx=[1])(x)
    np.testing.assert_array_equal(masked, x.max(axis=1))


def test_mixed_types_promote_as_in_tilelang():
    """f32 - f16 is an f32 subtraction (TileLang's online softmax writes it),
    an i8 meets an i32 in the i32, an integer meets a float in the float;
    f16 and bf16 meet in neither."""
    rng = np.random.default_rng()

    @T.prim_func
    def main(A: T.Tensor((64,), T.float32), H: T.Tensor((64,), T.float16),
             I: T.Tensor((64,), T.int8), J: T.Tensor((64,), T.int32),
             B: T.Tensor((64,), T.float32), C: T.Tensor((64,), T.int32)):
        with T.Kernel(1, threads=64) as bx:
            for i in T.Parallel(64):
                B[i] = A[i] - H[i] + I[i]
                C[i] = I[i] * J[i] + i
    text = main.script()
    assert "arith.subf" in text and ": f32" in text
    kernel = tilelang_mlir.compile(main, target="cpu")
    a = rng.standard_normal(64).astype(np.float32)
    h = rng.standard_normal(64).astype(np.float16)
    i8 = rng.integers(-128, 128, 64).astype(np.int8)
    j = rng.integers(-1000, 1000, 64).astype(np.int32)
    b = np.full(64, np.nan, np.float32)
    c = np.zeros(64, np.int32) - 7
    kernel(a, h, i8, j, b, c)
    np.testing.assert_allclose(b, a - h.astype(np.float32) + i8.astype(np.float32),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(c, i8.astype(np.int32) * j + np.arange(64, dtype=np.int32))

    with pytest.raises(T.TileLangError, match="f16 and bf16 .*use T.cast"):
        @T.prim_func
        def mixed(X: T.Tensor((8,), T.float16), Y: T.Tensor((8,), T.bfloat16)):
            with T.Kernel(1, threads=8) as bx:
                for i in T.Parallel(8):
                    X[i] = X[i] + Y[i]


@pytest.mark.parametrize("kind", ["max", "sum", "absmax"])
def test_reduce_into_a_tile_of_another_type(kind):
    # TileLang reduces an f16 tile into an f32 result (split-KV decoding's
    # log-sum-exp merge): the values are converted first, the reduction
    # (a sum's accumulation too) happens in f32.
    S, M = 8, 64

    @T.prim_func
    def main(A: T.Tensor((S, M), T.float16), B: T.Tensor((M,), T.float32)):
        with T.Kernel(1, threads=64):
            a = T.alloc_fragment((S, M), T.float16)
            b = T.alloc_fragment((M,), T.float32)
            T.copy(A, a)
            getattr(T, "reduce_" + kind)(a, b, dim=0)
            T.copy(b, B)

    x = np.random.default_rng().standard_normal((S, M)).astype(np.float16) * 100
    out = np.full(M, np.nan, np.float32)
    tilelang_mlir.compile(main, target="cpu")(x, out)
    wide = x.astype(np.float32)
    want = {"max": wide.max(0), "sum": wide.sum(0), "absmax": np.abs(wide).max(0)}[kind]
    np.testing.assert_allclose(out, want, rtol=1e-6)
    tilelang_mlir.compile(main, target="sm_90a").get_kernel_source("ptx")


def test_atomic_add_of_a_tile_accepts_use_tma():
    # TileLang's use_tma=True (issue a tile's add as a TMA reduction) chooses
    # how the adds are issued, not what they add.
    @T.prim_func
    def main(A: T.Tensor((64, 32), T.float32), B: T.Tensor((64, 32), T.float32)):
        with T.Kernel(2, threads=64) as bx:
            f = T.alloc_fragment((64, 32), T.float32)
            T.copy(A, f)
            T.atomic_add(B[0, 0], f, use_tma=True)

    a = np.random.default_rng().standard_normal((64, 32)).astype(np.float32)
    b = np.ones((64, 32), np.float32)
    tilelang_mlir.compile(main, target="cpu")(a, b)
    np.testing.assert_allclose(b, 1 + 2 * a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("lanes", [2, 4])
def test_atomic_add_of_consecutive_elements(lanes):
    # TileLang's T.atomic_addx2/x4(B[i, j], A[i, j]): the `lanes` elements
    # from j each added atomically, once per parallel iteration.
    M, N = 8, 32

    @T.prim_func
    def main(A: T.Tensor((M, N), T.float32), B: T.Tensor((M, N), T.float32)):
        with T.Kernel(2, threads=64) as bx:
            for i, j in T.Parallel(M, N // lanes):
                getattr(T, "atomic_addx%d" % lanes)(B[i, j * lanes], A[i, j * lanes])

    a = np.random.default_rng().standard_normal((M, N)).astype(np.float32)
    b = np.ones((M, N), np.float32)
    tilelang_mlir.compile(main, target="cpu")(a, b)
    np.testing.assert_allclose(b, 1 + 2 * a, rtol=1e-5, atol=1e-6)
    tilelang_mlir.compile(main, target="sm_90a").get_kernel_source("ptx")
    with pytest.raises(T.TileLangError, match="takes elements"):
        @T.prim_func
        def bad(A: T.Tensor((M, N), T.float32), B: T.Tensor((M, N), T.float32)):
            with T.Kernel(1, threads=64):
                T.atomic_addx2(B[0, 0], 1.0)
