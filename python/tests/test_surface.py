"""TileLang's surface names beyond the core T.* operations: dtype objects
(callable, aliases, torch/numpy dtypes), integer tensors as indices, a
one-dimensional grid unpacked as a tuple, tilelang.math/layout/transform,
and autotuning of eager-style kernels. Kernels run on the CPU against
numpy on fresh random inputs."""

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def test_dtype_objects():
    assert T.float16 == "float16" and isinstance(T.float16, T.dtype)
    assert (T.half, T.double, T.long, T.short) == ("half", "double", "long", "short")
    assert T.float == "float32" and T.int == "int32" and T.int.bits == 32
    assert T.dtype(np.float16) == "float16" and T.dtype(np.dtype("int8")) == "int8"
    assert T.float8_e4m3fn.bits == 8 and T.tfloat32.bits == 32
    assert T.float32(2) == 2.0 and isinstance(T.int32(3.0), int) and T.bool(1) is True
    # Named (a module may list them), refused where a kernel uses them.
    assert T.dtype("uint8") == T.uint8 and T.uint8.bits == 8 and T.int4.bits == 4
    assert T.float8_e8m0fnu.bits == 8 and T.float4_e2m1fn.bits == 4
    assert T.uint32(0xFFFFFFFF) == 0xFFFFFFFF and T.uint64.bits == 64
    assert T.float4_e2m1fnx2.bits == 4
    with pytest.raises(T.TileLangError, match="'float8_e5m2fnuz': AMD's fnuz "
                       "8-bit floats are not supported yet"):
        @T.prim_func
        def tile(A: T.Tensor((4,), T.float32)):
            with T.Kernel(1, threads=32):
                T.alloc_fragment((4,), T.float8_e5m2fnuz)
    # 4-bit types are elements of global tensors (test_packed4.py), not of
    # on-chip tiles.
    with pytest.raises(T.TileLangError, match="fragment tiles of float4_e2m1fn: "
                       "4-bit elements live in global tensors"):
        @T.prim_func
        def fp4_tile(A: T.Tensor((4,), T.float32)):
            with T.Kernel(1, threads=32):
                T.alloc_fragment((4,), T.float4_e2m1fn)
    with pytest.raises(T.TileLangError, match="unknown dtype 'float12'"):
        T.dtype("float12")


def test_tensor_subscript_takes_any_dtype_object():
    # T.Tensor[shape, dtype] with the dtype as a name, T.dtype, or a numpy /
    # torch dtype object (TileLang's tests parametrize by torch dtypes);
    # T.Tensor[M, N] is a 2-D f32 tensor.
    for dtype in ("uint8", T.uint8, np.uint8, np.dtype("uint8")):
        tensor = T.Tensor[(64,), dtype]
        assert tensor.shape == (64,) and T.dtype(tensor.dtype) == "uint8", dtype
    assert T.Tensor[64, 32].shape == (64, 32)
    assert T.Tensor[[8, 4], T.float16].shape == (8, 4)


def test_dtype_objects_and_torch():
    torch = pytest.importorskip("torch")
    assert T.float16.as_torch() is torch.float16 and T.tfloat32.as_torch() is torch.float32
    assert T.dtype(torch.bfloat16) == "bfloat16"


def test_dtype_calls_make_constants_and_casts_in_kernels():
    @T.prim_func
    def main(A: T.Tensor((64,), T.float32), B: T.Tensor((64,), T.int32)):
        with T.Kernel(1, threads=64) as (bx,):        # a 1-D grid as a tuple
            for i in T.Parallel(64):
                B[bx * 64 + i] = T.int32(A[i] * T.float32(4)) + T.int32(1)

    a = RNG.uniform(-8, 8, 64).astype(np.float32)
    kernel = tilelang.compile(main, target="cpu")
    b = np.full(64, -99, np.int32)
    kernel(a, b)
    np.testing.assert_array_equal(b, np.trunc(a * 4).astype(np.int32) + 1)


def test_integer_tensor_values_index_buffers():
    # A gather through positions read from a tensor (int32 and int64), as
    # TileLang's varlen and MoE kernels index.
    @T.prim_func
    def gather(X: T.Tensor((100, 8), T.float32), I: T.Tensor((32,), T.int32),
               J: T.Tensor((32,), T.int64), Y: T.Tensor((32, 8), T.float32)):
        with T.Kernel(1, threads=32):
            for r, c in T.Parallel(32, 8):
                Y[r, c] = X[I[r], c] + X[J[r], 7 - c]

    x = RNG.standard_normal((100, 8)).astype(np.float32)
    i = RNG.integers(0, 100, 32).astype(np.int32)
    j = RNG.integers(0, 100, 32).astype(np.int64)
    y = np.full((32, 8), np.nan, np.float32)
    tilelang.compile(gather, target="cpu")(x, i, j, y)
    np.testing.assert_array_equal(y, x[i] + x[j][:, ::-1])


def test_math_layout_transform_modules():
    assert [tilelang.math.next_power_of_2(v) for v in (0, 1, 5, 64, 65)] == [1, 1, 8, 64, 128]
    assert tilelang.math.prev_power_of_2(100) == 64
    assert tilelang.layout.make_swizzled_layout is T.make_swizzled_layout
    assert tilelang.transform.PassConfigKey is tilelang.PassConfigKey
    with pytest.raises(ImportError, match="transform.Simplify: tilelang_mlir has no TVM"):
        tilelang.transform.Simplify


def test_autotune_of_an_eager_kernel():
    @tilelang.autotune(configs=[{"block": 16, "threads": 32}, {"block": 32, "threads": 64}],
                       warmup=1, rep=2, progress=False, cache=False)
    @tilelang.jit(target="cpu")
    def scale_rows(X, factor: float, block=64, threads=128):
        M, N = T.const("M N")
        X: T.Tensor([M, N], T.float32)
        Y = T.empty([M, N], T.float32)
        with T.Kernel(T.ceildiv(M, block), threads=threads) as bx:
            for i, j in T.Parallel(block, N):
                if bx * block + i < M:
                    Y[bx * block + i, j] = X[bx * block + i, j] * factor
        return Y

    x = RNG.standard_normal((70, 12)).astype(np.float32)
    np.testing.assert_allclose(scale_rows(x, 1.5), x * np.float32(1.5), rtol=1e-6)
    kernel = scale_rows.compile(x, 1.5)
    assert kernel.config in ({"block": 16, "threads": 32}, {"block": 32, "threads": 64})
    np.testing.assert_allclose(scale_rows(x, 1.5, block=16), x * np.float32(1.5), rtol=1e-6)


def test_mod_is_floor_mod_as_in_tilelang():
    """`%` on device values is TVM's (and Python's) floor modulo, the sign
    of the divisor, for integers and floats; T.truncmod is C's remainder."""
    @T.prim_func
    def k(A: T.Tensor((64,), "int32"), F: T.Tensor((64,), "float32"),
          B: T.Tensor((64, 4), "int32"), G: T.Tensor((64, 2), "float32")):
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                B[i, 0] = A[i] % 7
                B[i, 1] = A[i] % -7
                B[i, 2] = T.truncmod(A[i], 7)
                B[i, 3] = A[i] // -7
                G[i, 0] = F[i] % 1.5
                G[i, 1] = F[i] % -1.5
    kernel = tilelang.compile(k, target="cpu", out_idx=[2, 3])
    rng = np.random.default_rng()
    a = rng.integers(-1000, 1000, 64).astype(np.int32)
    f = rng.uniform(-5, 5, 64).astype(np.float32)
    b, g = kernel(a, f)
    np.testing.assert_array_equal(b[:, 0], np.mod(a, 7))
    np.testing.assert_array_equal(b[:, 1], np.mod(a, -7))
    np.testing.assert_array_equal(b[:, 2], np.fmod(a, 7))
    np.testing.assert_array_equal(b[:, 3], np.floor_divide(a, -7))
    np.testing.assert_allclose(g[:, 0], np.mod(f, np.float32(1.5)), atol=1e-5)
    np.testing.assert_allclose(g[:, 1], np.mod(f, np.float32(-1.5)), atol=1e-5)


def test_alloc_var_promotes_like_its_value():
    """An f16 element minus an f32 T.alloc_var is an f32 subtraction (the
    var is its value), stored back into the f16 tile."""
    @T.prim_func
    def k(X: T.Tensor((128,), "float16"), Y: T.Tensor((128,), "float16")):
        with T.Kernel(1, threads=128):
            x = T.alloc_fragment((128,), "float16")
            m = T.alloc_var("float32")
            m = 1.0 / 3.0
            T.copy(X, x)
            for j in T.Parallel(128):
                x[j] = (x[j] - m) * 3.0
            T.copy(x, Y)
    x = np.random.default_rng().uniform(-4, 4, 128).astype(np.float16)
    y = tilelang.compile(k, target="cpu", out_idx=[1])(x)
    want = ((x.astype(np.float32) - np.float32(1.0 / 3.0)) * 3).astype(np.float16)
    np.testing.assert_allclose(y.astype(np.float32), want.astype(np.float32), rtol=1e-3)


def test_language_submodules_and_thread_normalization():
    from tilelang_mlir.language.kernel import _normalize_threads
    from tilelang_mlir.language.reduce_op import reduce_max
    assert reduce_max is T.reduce_max
    assert _normalize_threads(None) == [128, 1, 1]
    assert _normalize_threads((32, 2)) == [32, 2, 1]
    for bad in (-1, 0, [128, 0], (128, 1, -2)):
        with pytest.raises(ValueError, match="threads must be positive"):
            _normalize_threads(bad)
    with pytest.raises(ValueError, match="threads must be positive"):
        @T.prim_func
        def main(A: T.Tensor((4,), T.float32)):
            with T.Kernel(1, threads=0):
                pass


def test_gemm_fragment_8x8_layouts():
    from tilelang_mlir.layout import (make_gemm_fragment_8x8,
                                      make_gemm_fragment_8x8_transposed)
    plain, transposed = make_gemm_fragment_8x8(), make_gemm_fragment_8x8_transposed()
    assert "threads = 32" in plain.attribute
    assert plain.attribute != transposed.attribute

    @T.prim_func
    def main(A: T.Tensor((8, 8), T.float32), B: T.Tensor((8, 8), T.float32)):
        with T.Kernel(1, threads=32):
            frag = T.alloc_fragment((8, 8), T.float32)
            T.annotate_layout({frag: make_gemm_fragment_8x8_transposed()})
            T.copy(A, frag)
            for i, j in T.Parallel(8, 8):
                frag[i, j] = frag[i, j] * 2.0
            T.copy(frag, B)

    A = RNG.standard_normal((8, 8)).astype(np.float32)
    B = np.zeros_like(A)
    tilelang.compile(main, target="cpu")(A, B)
    np.testing.assert_array_equal(B, A * 2)
    assert "ld.global" in tilelang.compile(main, target="sm_90a").get_kernel_source("ptx")
    with pytest.raises(T.TileLangError, match="Fragment.repeat is not supported yet"):
        plain.repeat([2, 1])


@pytest.mark.parametrize("kind", ["global", "shared", "fragment"])
def test_reshape_views_and_global_copies(kind):
    N, M = 512, 32

    @T.prim_func
    def main(A: T.Tensor((N // M, M), T.float32), B: T.Tensor((M, N // M), T.float32),
             C: T.Tensor((N,), T.float32)):
        with T.Kernel(1, threads=128):
            if kind == "global":
                T.copy(T.reshape(A, [M, N // M]), B)    # global to global
                T.copy(T.view(A, [N]), C)
            else:
                t = (T.alloc_shared if kind == "shared" else T.alloc_fragment)(
                    (N // M, M), T.float32)
                T.copy(A, t)
                flat = T.reshape(t, [N])
                for i in T.Parallel(N):
                    flat[i] = flat[i] + 1.0    # writes through the view
                T.copy(T.reshape(t, [M, N // M]), B)
                T.copy(flat, C)

    A = RNG.standard_normal((N // M, M)).astype(np.float32)
    B, C = np.zeros((M, N // M), np.float32), np.zeros(N, np.float32)
    tilelang.compile(main, target="cpu")(A, B, C)
    shift = 0.0 if kind == "global" else 1.0
    np.testing.assert_array_equal(B, A.reshape(M, N // M) + shift)
    np.testing.assert_array_equal(C, A.reshape(N) + shift)
    assert "ld.global" in tilelang.compile(main, target="sm_90a").get_kernel_source("ptx")


def test_reshape_misuse():
    # (A global tensor's bytes as another dtype are a view: test_dtype_views.)
    with pytest.raises(T.TileLangError, match="as another dtype .*: only global "
                       "tensors and shared tiles have bytes to view"):
        @T.prim_func
        def as_half(A: T.Tensor((64,), T.float32)):
            with T.Kernel(1, threads=32):
                T.view(T.alloc_fragment((64,), T.float32), [128], dtype=T.float16)
    with pytest.raises(T.TileLangError, match=r"the shape \[33, 32\] holds 1056 elements"):
        @T.prim_func
        def main(A: T.Tensor((1024,), T.float32)):
            with T.Kernel(1, threads=128):
                T.reshape(A, [33, 32])
    # A shape that holds other elements (or bytes) is also an
    # AssertionError, as TileLang's is (its check is an assert).
    for change in (lambda A: T.reshape(A, [32, 33]),
                   lambda A: T.view(A, [32, 33]),
                   lambda A: T.view(A, [1000], dtype=T.float16)):
        with pytest.raises(AssertionError, match="test_surface.py:"):
            @T.prim_func
            def reshaped(A: T.Tensor((1024,), T.float32)):
                with T.Kernel(1, threads=128):
                    change(A)
    with pytest.raises(T.TileLangError, match="between global buffers of shapes"):
        @T.prim_func
        def copy(A: T.Tensor((64,), T.float32), B: T.Tensor((32,), T.float32)):
            with T.Kernel(1, threads=128):
                T.copy(A, B)


def test_copies_between_two_slices():
    # TileLang's T.copy of a slice into a slice: global to global with a
    # partial last block (reads past the edge are zero, writes dropped), and
    # global into parts of a shared tile with a dtype conversion.
    N, bN = 1000, 128

    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32),
             Q: T.Tensor((4, 6, 32), T.float16), O: T.Tensor((6, 48), T.float32)):
        with T.Kernel(T.ceildiv(N, bN), threads=128) as bx:
            T.copy(A[bx * bN:(bx + 1) * bN], B[bx * bN:(bx + 1) * bN])
            s = T.alloc_shared((6, 48), T.float32)
            T.fill(s, -1.0)
            T.copy(Q[1, :, :16], s[:, :16])
            T.copy(Q[2, :, 16:], s[:, 16:32])
            T.copy(s, O)

    A = RNG.standard_normal(N).astype(np.float32)
    Q = RNG.standard_normal((4, 6, 32)).astype(np.float16)
    B, O = np.full(N, np.nan, np.float32), np.zeros((6, 48), np.float32)
    tilelang.compile(main, target="cpu")(A, B, Q, O)
    want = np.full((6, 48), -1.0, np.float32)
    want[:, :16], want[:, 16:32] = Q[1, :, :16], Q[2, :, 16:]
    np.testing.assert_array_equal(B, A)
    np.testing.assert_array_equal(O, want)
    with pytest.raises(T.TileLangError, match="have different shapes"):
        @T.prim_func
        def bad(A: T.Tensor((64,), T.float32), B: T.Tensor((64,), T.float32)):
            with T.Kernel(1, threads=32):
                T.copy(A[0:32], B[0:16])


def test_contrib_nvcc_queries():
    from tilelang_mlir.contrib import nvcc
    from tilelang_mlir import _tilelang
    capability, _ = _tilelang.cuda_compute_capability()
    if capability is None:
        with pytest.raises(RuntimeError, match="no CUDA device"):
            nvcc.get_target_compute_version()
    else:
        assert nvcc.get_target_compute_version() == "%d.%d" % divmod(capability, 10)
    if nvcc._nvcc() is None:
        with pytest.raises(RuntimeError, match="no nvcc"):
            nvcc.get_cuda_version()
    else:
        major, minor = nvcc.get_cuda_version()
        assert major >= 11 and minor >= 0
    with pytest.raises(RuntimeError, match="no nvcc"):
        nvcc.get_cuda_version("/nonexistent")


def test_element_copies_select_var_and_hints():
    @T.prim_func
    def main(X: T.Tensor((64,), T.float32), I: T.Tensor((8,), T.int32),
             Y: T.Tensor((8,), T.float32)):
        with T.Kernel(8, threads=32) as pid:
            idx = T.alloc_local([1], T.int32)
            T.copy(I[pid], idx[0])            # one element to one element
            v = T.alloc_local([1], T.float32)
            T.copy(X[idx[0]], v[0])
            Y[pid] = T.Select(v[0] > 0, v[0], -v[0])

    X = RNG.standard_normal(64).astype(np.float32)
    I = RNG.integers(0, 64, 8).astype(np.int32)
    Y = tilelang.compile(main, out_idx=[2], target="cpu")(X, I)
    np.testing.assert_array_equal(Y, np.abs(X[I]))
    assert isinstance(T.dynamic("m"), T.Var) and isinstance(T.symbolic("n"), T.Var)
    with pytest.warns(RuntimeWarning, match="accepted and ignored"):
        @T.prim_func
        def hinted(A: T.Tensor((4,), T.float32)):
            with T.Kernel(1, threads=32):
                T.disable_warp_group_reg_alloc()


def test_l2_hit_ratio_hints_are_checked_and_accepted():
    @T.prim_func
    def main(A: T.Tensor((256,), T.float32), B: T.Tensor((256,), T.float32)):
        with T.Kernel(2, threads=128) as bx:
            T.annotate_l2_hit_ratio({A: 0.8})
            for i in T.Parallel(128):
                B[bx * 128 + i] = A[bx * 128 + i] + 1.0

    a = RNG.standard_normal(256).astype(np.float32)
    np.testing.assert_array_equal(
        tilelang.compile(main, out_idx=[1], target="cpu")(a), a + 1)
    for ratio, message in ((1.5, r"a hit ratio is in \(0, 1\]"),
                           ("high", "a hit ratio")):
        with pytest.raises(T.TileLangError, match=message):
            @T.prim_func
            def bad(A: T.Tensor((4,), T.float32)):
                with T.Kernel(1, threads=32):
                    T.annotate_l2_hit_ratio({A: ratio})


def test_python_literals_take_tvm_types():
    # TVM types an int literal as int32 and a float literal as float32: a
    # bool times 1000 is 1000 (not a 1-bit product), an index times 0.5 a
    # float32 product.
    @T.prim_func
    def main(A: T.Tensor((8,), T.int32), B: T.Tensor((8,), T.float32)):
        with T.Kernel(1, threads=32):
            for i in T.Parallel(8):
                A[i] = (i % 2 == 0) * 1000 + i
                B[i] = i * 0.5 + 0.25

    A, B = np.zeros(8, np.int32), np.zeros(8, np.float32)
    tilelang.compile(main, target="cpu")(A, B)
    np.testing.assert_array_equal(A, np.arange(8) + (np.arange(8) % 2 == 0) * 1000)
    np.testing.assert_array_equal(B, np.arange(8) * 0.5 + 0.25)


def test_align_up_and_conditions_of_if_then_else():
    # T.align_up is ceildiv(x, y) * y (negative x too); T.if_then_else and
    # T.Select take a Python condition (chosen while tracing) or an integer
    # one (true where not 0), as TileLang's select tests write them.
    @T.prim_func
    def main(A: T.Tensor((8,), T.float32), B: T.Tensor((8,), T.float32),
             C: T.Tensor((4,), T.int32), n: T.int32):
        with T.Kernel(1, threads=8):
            for i in T.Parallel(8):
                B[i] = T.if_then_else(T.Select(True, False, True), 1.0, 2.0) + \
                    T.if_then_else(i % 2, A[i], 0.0)
            C[0] = T.align_up(T.int32(n), T.int32(32))
            C[1] = T.align_up(T.int32(-n), T.int32(32))
            C[2] = T.align_up(100, 32)
            C[3] = T.Select(0, 5, 7)

    kernel = tilelang.compile(main, target="cpu")
    a = np.random.default_rng().standard_normal(8).astype(np.float32)
    b = np.full(8, np.nan, np.float32)
    c = np.zeros(4, np.int32)
    kernel(a, b, c, 33)
    np.testing.assert_array_equal(b, 2 + np.where(np.arange(8) % 2 == 1, a, 0))
    np.testing.assert_array_equal(c, [64, -32, 128, 7])
    with pytest.raises(T.TileLangError, match="a comparison or an integer, got f32"):
        @T.prim_func
        def bad(A: T.Tensor((8,), T.float32)):
            with T.Kernel(1, threads=8):
                for i in T.Parallel(8):
                    A[i] = T.if_then_else(A[i], 1.0, 2.0)


def test_atomic_memory_orders():
    # The atomics are acq_rel: relaxed to acq_rel are satisfied, seq_cst
    # and return_prev are refused by name, unknown orders are errors.
    def build(**options):
        @T.prim_func
        def main(A: T.Tensor((4,), T.float32), B: T.Tensor((64,), T.float32)):
            with T.Kernel(1, threads=64):
                for i in T.Parallel(64):
                    T.atomic_add(A[i % 4], B[i], **options)
        return main

    b = np.random.default_rng().standard_normal(64).astype(np.float32)
    for order in ("relaxed", "release", "acq_rel"):
        kernel = tilelang.compile(build(memory_order=order), target="cpu")
        a = np.zeros(4, np.float32)
        kernel(a, b)
        np.testing.assert_allclose(a, b.reshape(16, 4).sum(0), rtol=1e-5, atol=1e-5)
    with pytest.raises(T.TileLangError, match="seq_cst.*acq_rel"):
        build(memory_order="seq_cst")
    with pytest.raises(ValueError, match="memory_order is one of"):
        build(memory_order="sequential")
    with pytest.raises(T.TileLangError, match=r"return_prev=True\) returns the "
                       "previous value of one element"):
        @T.prim_func
        def tile_form(A: T.Tensor((64,), T.float32)):
            with T.Kernel(1, threads=64):
                part = T.alloc_fragment((64,), T.float32)
                T.fill(part, 1)
                T.atomic_add(A[0:64], part, return_prev=True)


def test_atomic_add_return_prev_compacts_a_stream():
    # return_prev gives each positive element its own slot (a histogram's
    # or a compaction's counter, TileLang's top-k selector): every slot
    # below the final count filled once, with exactly the positive values;
    # a float counter's previous values are the partial sums.
    n = 512

    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), Out: T.Tensor((n,), T.float32),
             Count: T.Tensor((1,), T.int32), Seen: T.Tensor((n,), T.float32),
             Total: T.Tensor((1,), T.float32)):
        with T.Kernel(n // 64, threads=64) as bx:
            for i in T.Parallel(64):
                if A[bx * 64 + i] > 0:
                    slot = T.atomic_add(Count[0], 1, return_prev=True)
                    Out[slot] = A[bx * 64 + i]
                Seen[bx * 64 + i] = T.atomic_add(Total[0], 1.0, return_prev=True)

    a = np.random.default_rng().standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    count = np.zeros(1, np.int32)
    seen = np.full(n, -1, np.float32)
    total = np.zeros(1, np.float32)
    tilelang.compile(main, target="cpu")(a, out, count, seen, total)
    positive = np.sort(a[a > 0])
    assert count[0] == len(positive)
    np.testing.assert_array_equal(np.sort(out[:count[0]]), positive)
    assert np.isnan(out[count[0]:]).all()
    assert total[0] == n
    np.testing.assert_array_equal(np.sort(seen), np.arange(n, dtype=np.float32))


def test_fill_of_one_element():
    @T.prim_func
    def main(A: T.Tensor((4,), T.int32)):
        with T.Kernel(1, threads=32):
            counts = T.alloc_shared((2,), T.int32)
            T.fill(counts[1], 7)
            T.fill(counts[0], 3)
            A[0] = counts[0]
            A[1] = counts[1]
            T.fill(A[2], 9)

    a = np.zeros(4, np.int32)
    tilelang.compile(main, target="cpu")(a)
    np.testing.assert_array_equal(a, [3, 7, 9, 0])


def test_transpose_of_on_chip_tiles():
    # T.transpose(src, dst): dst[j, i] = src[i, j] between shared tiles, in
    # TileLang's transpose test's program; edge blocks in both dimensions.
    def build(M, N, bm, bn):
        @T.prim_func
        def main(A: T.Tensor((M, N), T.float32), B: T.Tensor((N, M), T.float32)):
            with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
                tile = T.alloc_shared((bm, bn), T.float32)
                tile_T = T.alloc_shared((bn, bm), T.float32)
                T.copy(A[by * bm:(by + 1) * bm, bx * bn:(bx + 1) * bn], tile)
                T.transpose(tile, tile_T)
                T.copy(tile_T, B[bx * bn:(bx + 1) * bn, by * bm:(by + 1) * bm])
        return main

    kernel = tilelang.compile(build(100, 70, 32, 16), out_idx=[1], target="cpu")
    a = np.random.default_rng().standard_normal((100, 70)).astype(np.float32)
    np.testing.assert_array_equal(kernel(a), a.T)

    with pytest.raises(T.TileLangError, match="last two dimensions swapped: "
                                              "src 32x16, dst 32x16"):
        @T.prim_func
        def same(A: T.Tensor((32, 16), T.float32)):
            with T.Kernel(1, threads=128):
                s = T.alloc_shared((32, 16), T.float32)
                d = T.alloc_shared((32, 16), T.float32)
                T.transpose(s, d)
    with pytest.raises(T.TileLangError, match="whole on-chip tiles"):
        @T.prim_func
        def global_src(A: T.Tensor((32, 16), T.float32)):
            with T.Kernel(1, threads=128):
                d = T.alloc_shared((16, 32), T.float32)
                T.transpose(A, d)


def test_scans_of_tile_regions():
    # T.cumsum / T.cummax over regions of shared tiles (TileLang's strided
    # and offset scan tests): in place in a wider tile, out of place between
    # tiles of different pitch, an offset sub-region; either direction and
    # dimension; elements outside the region untouched.
    def build(M, N, pitch, dim, reverse, op, offset=0):
        @T.prim_func
        def main(A: T.Tensor((M, N), T.float32), B: T.Tensor((M, N), T.float32),
                 C: T.Tensor((M, N), T.float32)):
            with T.Kernel(1, threads=128):
                big = T.alloc_shared((M, pitch), T.float32)
                out = T.alloc_shared((M, pitch + 3), T.float32)
                for i, j in T.Parallel(M, pitch):
                    big[i, j] = T.cast(-7, T.float32)
                for i, j in T.Parallel(M, N):
                    big[i, j] = A[i, j]
                scan = T.cumsum if op == "sum" else T.cummax
                scan(src=big[offset:M, 0:N], dim=dim, reverse=reverse)
                scan(src=big[0:M, 0:N], dst=out[0:M, 3:N + 3], dim=dim,
                     reverse=reverse)
                for i, j in T.Parallel(M, N):
                    B[i, j] = big[i, j]
                    C[i, j] = out[i, j + 3]
        return main

    def reference(x, dim, reverse, op):
        x = np.flip(x, dim) if reverse else x
        r = np.cumsum(x, dim) if op == "sum" else np.maximum.accumulate(x, dim)
        return np.flip(r, dim) if reverse else r

    rng = np.random.default_rng()
    for dim, reverse, op, offset in [(0, False, "sum", 0), (1, True, "max", 0),
                                     (0, True, "sum", 5), (1, False, "max", 3)]:
        M, N = 16, 12
        kernel = tilelang.compile(build(M, N, 20, dim, reverse, op, offset),
                                  out_idx=[1, 2], target="cpu")
        a = rng.standard_normal((M, N)).astype(np.float32)
        b, c = kernel(a)
        once = a.copy()
        once[offset:] = reference(a[offset:], dim, reverse, op)
        np.testing.assert_allclose(b, once, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(c, reference(once, dim, reverse, op),
                                   rtol=1e-5, atol=1e-5)
    with pytest.raises(T.TileLangError, match="different shapes"):
        @T.prim_func
        def bad(A: T.Tensor((16, 12), T.float32)):
            with T.Kernel(1, threads=128):
                s = T.alloc_shared((16, 20), T.float32)
                T.cumsum(src=s[0:16, 0:12], dst=s[0:8, 0:12])


def test_fill_and_clear_of_slices():
    """T.clear / T.fill of part of a fragment, and of a slice of a global
    buffer that crosses its edge (nothing written past it)."""
    M, N = 70, 48

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, 32), threads=64) as bx:
            acc = T.alloc_fragment((32, N), "float32")
            T.fill(acc, 1.0)
            T.clear(acc[:, 0:16])
            T.fill(acc[4:8, 16:24], -2.5)
            T.copy(acc, A[bx * 32, 0])
            T.fill(B[bx * 32:bx * 32 + 32, 8:N], 7.0)

    kernel = tilelang.compile(main, target="cpu")
    a = np.full((M, N), np.nan, np.float32)
    b = np.full((M, N), np.nan, np.float32)
    kernel(a, b)
    tile = np.ones((32, N), np.float32)
    tile[:, :16] = 0
    tile[4:8, 16:24] = -2.5
    expected = np.concatenate([tile] * 3)[:M]
    np.testing.assert_array_equal(a, expected)
    np.testing.assert_array_equal(b[:, 8:], np.full((M, N - 8), 7.0, np.float32))
    assert np.isnan(b[:, :8]).all()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_fill_of_a_whole_global_tensor(dtype):
    """TileLang's T.fill(A, T.infinity(dtype)) and T.clear of a global
    tensor (every block writes all of it), static and dynamic shapes."""
    N = T.dynamic("N")

    @T.prim_func
    def main(A: T.Tensor((32,), dtype), B: T.Tensor((N, 3), dtype),
             C: T.Tensor((N,), "int32")):
        with T.Kernel(2, threads=32):
            T.fill(A, T.infinity(dtype))
            T.fill(B, -1.5)
            T.clear(C)

    kernel = tilelang.compile(main, target="cpu")
    a = np.full(32, np.nan, dtype)
    b = np.full((5, 3), np.nan, dtype)
    c = np.full(5, 7, np.int32)
    kernel(a, b, c)
    assert np.isposinf(a).all()
    np.testing.assert_array_equal(b, np.full((5, 3), -1.5, dtype))
    np.testing.assert_array_equal(c, np.zeros(5, np.int32))
    assert ".entry" in tilelang.compile(main, target="sm_90a").get_kernel_source("ptx")


def test_variables_bound_by_let_and_copy_hints():
    """`v = T.int32()` then `T.let(v, expr)` (TileLang's aliasing test's
    style); T.copy takes TileLang's lowering hints; run_once runs the kernel
    on fresh inputs."""
    M, K, BLOCK = 64, 96, 32

    @T.prim_func
    def main(A: T.Tensor((M, K), "float32"), B: T.Tensor((M, K), "float32")):
        with T.Kernel(M // BLOCK, threads=64) as by:
            tile = T.alloc_shared((BLOCK, BLOCK), "float32")
            for ko in T.serial(K // BLOCK):
                offset = T.int32()
                T.let(offset, ko * BLOCK)
                T.copy(A[by * BLOCK, offset], tile, disable_tma=True,
                       coalesced_width=4, eviction_policy="evict_first",
                       annotations={"disable_tma": True})
                T.copy(tile, B[by * BLOCK, offset], loop_layout=None)

    kernel = tilelang.compile(main, target="cpu", out_idx=[1])
    a = RNG.standard_normal((M, K)).astype(np.float32)
    np.testing.assert_array_equal(kernel(a), a)
    assert kernel.run_once().shape == (M, K)

    with pytest.raises(T.TileLangError, match="eviction_policy is one of"):
        @T.prim_func
        def bad(A: T.Tensor((M, K), "float32"), B: T.Tensor((M, K), "float32")):
            with T.Kernel(1, threads=64):
                T.copy(A, B, eviction_policy="evict_sometimes")
    with pytest.raises(T.TileLangError, match="T.let binds a variable"):
        @T.prim_func
        def not_a_var(A: T.Tensor((M, K), "float32")):
            with T.Kernel(1, threads=64):
                T.let(A[0, 0], 1.0)


def test_utils_tensor_and_fp8_type_helpers():
    from tilelang_mlir.utils.tensor import (TensorSupplyType, get_tensor_supply,
                                            torch_assert_close)
    from tilelang_mlir.language.fp8 import determine_fp8_type
    # A CUDA torch tensor where torch has a device (as TileLang's), else
    # a numpy array.
    def host(x):
        return x.cpu().numpy() if hasattr(x, "cpu") else x
    supply = get_tensor_supply(TensorSupplyType.Integer)
    ints = host(supply(T.Tensor((64, 3), "int32")))
    assert ints.shape == (64, 3) and ints.dtype == np.int32
    assert ints.min() >= -2 and ints.max() <= 2 and len(np.unique(ints)) > 1
    ones = get_tensor_supply(TensorSupplyType.One)(T.Tensor((2, 2), "float16"))
    np.testing.assert_array_equal(host(ones), np.ones((2, 2), np.float16))
    with pytest.raises(ValueError, match="static shape"):
        supply(T.Tensor((T.symbolic("n"),), "float32"))
    torch_assert_close(np.ones(4), np.ones(4))
    assert determine_fp8_type() == T.float8_e4m3fn
    assert determine_fp8_type("e5m2") == T.float8_e5m2
    with pytest.raises(ValueError, match="'e4m3' or 'e5m2'"):
        determine_fp8_type("e3m4")


def test_evaluate_is_an_expression_statement():
    # T.evaluate(0) as an empty body, T.evaluate(expr) of a traced value:
    # nothing more than the expression itself.
    import tilelang_mlir

    @T.prim_func
    def main(A: T.Tensor((8,), T.float32)):
        with T.Kernel(1, threads=8):
            T.evaluate(0)
            for i in T.Parallel(8):
                T.evaluate(A[i] + 1.0)
                A[i] = 2.0

    out = np.zeros(8, np.float32)
    tilelang_mlir.compile(main, target="cpu")(out)
    np.testing.assert_array_equal(out, np.full(8, 2.0, np.float32))
    with pytest.raises(T.TileLangError, match="T.evaluate takes an expression"):
        @T.prim_func
        def bad(A: T.Tensor((8,), T.float32)):
            with T.Kernel(1, threads=8):
                T.evaluate("x")


def test_kernel_without_grid_extents_is_one_block():
    # TileLang's T.Kernel(threads=n): a grid of one block.
    import tilelang_mlir

    @T.prim_func
    def main(A: T.Tensor((64,), T.float32)):
        with T.Kernel(threads=64):
            for i in T.Parallel(64):
                A[i] = T.cast(i, T.float32)

    out = np.full(64, np.nan, np.float32)
    tilelang_mlir.compile(main, target="cpu")(out)
    np.testing.assert_array_equal(out, np.arange(64, dtype=np.float32))
    with pytest.raises(T.TileLangError, match="1 to 3 grid extents"):
        @T.prim_func
        def bad(A: T.Tensor((64,), T.float32)):
            with T.Kernel(1, 1, 1, 1, threads=64):
                A[0] = 1.0


def test_language_dtypes_resolves_torch_storage_dtypes():
    # tilelang.language.dtypes.resolve_torch_storage_dtype: a type's own
    # storage, int8 bytes for int4 (two elements per byte).
    from tilelang_mlir.language.dtypes import resolve_torch_storage_dtype
    assert resolve_torch_storage_dtype(T.float16) == T.float16
    assert resolve_torch_storage_dtype("bfloat16") == T.bfloat16
    assert resolve_torch_storage_dtype(T.int4) == T.int8


def test_dynamic_names_several_sizes_and_takes_a_dtype():
    # TileLang's `batch, seq_len = T.dynamic("batch, seq_len")` (DeepSeek's
    # sparse MLA), space-separated names, and the dtype argument.
    batch, seq = T.dynamic("batch, seq_len")
    a, b = T.dynamic("a b")
    assert (batch.symbol, seq.symbol, a.symbol, b.symbol) == (
        "batch", "seq_len", "a", "b")
    assert T.dynamic("n", "int64").symbol == "n"
    assert T.symbolic("k", T.int32).symbol == "k"
    with pytest.raises(T.TileLangError, match="int32 or int64"):
        T.dynamic("n", "float32")
    with pytest.raises(T.TileLangError, match="separated by commas"):
        T.dynamic("1n")

    @T.prim_func
    def add(A: T.Tensor((batch, seq), T.float32), B: T.Tensor((batch, seq), T.float32)):
        with T.Kernel(T.ceildiv(seq, 32), batch, threads=32) as (bx, by):
            for i in T.Parallel(32):
                if bx * 32 + i < seq:
                    B[by, bx * 32 + i] = A[by, bx * 32 + i] + 1.0

    kernel = tilelang.compile(add, target="cpu")
    x = np.random.default_rng().standard_normal((3, 70)).astype(np.float32)
    y = np.full_like(x, np.nan)
    kernel(x, y)
    np.testing.assert_array_equal(y, x + 1.0)


def test_float_literals_beyond_the_type_are_refused_at_the_line():
    # TileLang's FloatImm: a finite literal its type cannot hold is a
    # ValueError (not a silent infinity); infinities stay allowed.
    with pytest.raises(ValueError, match="exceeds maximum of float32") as info:
        @T.prim_func
        def too_big(A: T.Tensor((1,), "float32")):
            with T.Kernel(1):
                value = T.alloc_var("float32", init=1e300)
                A[0] = value
    assert "test_surface.py" in str(info.value)
    with pytest.raises(ValueError, match="exceeds maximum of float16"):
        @T.prim_func
        def half(A: T.Tensor((4,), "float16")):
            with T.Kernel(1):
                for i in T.Parallel(4):
                    A[i] = A[i] * 70000.0

    @T.prim_func
    def fine(A: T.Tensor((2,), "float16")):
        with T.Kernel(1):
            A[0] = -T.infinity("float16")
            A[1] = 65504.0
    out = np.zeros(2, np.float16)
    tilelang.compile(fine, target="cpu")(out)
    assert out[0] == -np.inf and out[1] == 65504


def test_get_kernel_source_takes_kernel_only():
    # TileLang's get_kernel_source(kernel_only=...): the same text either
    # way here (no separate host wrapper); a non-bool is refused.
    @T.prim_func
    def main(A: T.Tensor((4,), "float32")):
        with T.Kernel(1):
            A[0] = 1.0
    kernel = tilelang.compile(main, target="cpu")
    text = kernel.get_kernel_source()
    assert "tile.kernel" in text
    assert kernel.get_kernel_source(kernel_only=False) == text
    assert kernel.get_kernel_source(kernel_only=True) == text
    with pytest.raises(TypeError, match="kernel_only"):
        kernel.get_kernel_source(kernel_only="yes")


@pytest.mark.parametrize("order, stage", [([0, 1, 2], [0, 0, 1]), ([0, 1, 2], [0, 0, 2]),
                                          ([1, 2, 0], [0, 0, 2]), ([1, 2, 0], [0, 0, 1])])
def test_pipelined_manual_schedule_infers_its_depth(order, stage):
    """T.Pipelined(n, order=..., stage=...) without num_stages: the depth is
    max(stage) + 1 (TileLang's rule); the GEMM computes the same."""
    M, N, K, bm, bn, bk = 128, 64, 256, 64, 64, 32

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), order=order, stage=stage):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * bm, bx * bn])

    assert "num_stages = %d" % (max(stage) + 1) in main.script()
    rng = np.random.default_rng()
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float32)
    tilelang.compile(main, target="cpu")(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)
    assert ".entry" in tilelang.compile(main, target="sm_90a").get_kernel_source("ptx")


def test_read_only_cache_loads_are_loads():
    """TileLang's T.__ldg(x[i]) (and T.__ldg(x, i) of a 1-D tensor) reads
    the element; on a tile it is a TypeError, as TileLang's."""
    N = 64

    @T.prim_func
    def main(x: T.Tensor((N,), T.float32), y: T.Tensor((N,), T.float32)):
        with T.Kernel(N, threads=32) as pid:
            y[pid] = T.__ldg(x[pid]) * 2.0 + T.__ldg(x, [N - 1 - pid])

    x = np.random.default_rng().standard_normal(N).astype(np.float32)
    y = np.full(N, np.nan, np.float32)
    tilelang.compile(main, target="cpu")(x, y)
    np.testing.assert_allclose(y, x * 2 + x[::-1], rtol=1e-6)
    with pytest.raises(TypeError, match="an element of a global tensor"):
        @T.prim_func
        def shared(x: T.Tensor((N,), T.float32)):
            with T.Kernel(1, threads=32):
                s = T.alloc_shared((N,), T.float32)
                x[0] = T.__ldg(s[0])
