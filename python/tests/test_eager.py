"""TileLang's eager @tilelang.jit style (tilelang_mlir/eager.py): the
decorated function is the kernel; T.const sizes come from the tensors'
shapes or keyword arguments, T.empty outputs are allocated by the call and
returned; one compile per specialization. Every kernel runs on the CPU
against numpy on fresh random inputs; misuse is an error naming it."""

import re
import warnings

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


@tilelang.jit(target="cpu")
def gemm(A, B, block_M: int = 32, block_N: int = 32, block_K: int = 16,
         dtype: T.dtype = T.float32):
    M, N, K = T.const("M, N, K")
    A: T.Tensor[[M, K], dtype]
    B: T.Tensor[[K, N], dtype]
    C = T.empty((M, N), dtype)
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_s = T.alloc_shared((block_M, block_K), dtype)
        B_s = T.alloc_shared((block_K, block_N), dtype)
        C_l = T.alloc_fragment((block_M, block_N), T.float32)
        T.clear(C_l)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
            T.copy(A[by * block_M, k * block_K], A_s)
            T.copy(B[k * block_K, bx * block_N], B_s)
            T.gemm(A_s, B_s, C_l)
        T.copy(C_l, C[by * block_M, bx * block_N])
    return C


def reference_gemm(a, b):
    out = np.zeros((a.shape[0], b.shape[1]))
    for k in range(a.shape[1]):  # written as loops over k, not numpy's matmul
        out += np.outer(a[:, k].astype(np.float64), b[k].astype(np.float64))
    return out


def test_gemm_sizes_from_the_tensors_and_edge_tiles():
    # 70 x 50 x 40: every dimension has a partial tile.
    a = RNG.standard_normal((70, 40)).astype(np.float32)
    b = RNG.standard_normal((40, 50)).astype(np.float32)
    c = gemm(a, b)
    assert c.shape == (70, 50) and c.dtype == np.float32
    np.testing.assert_allclose(c, reference_gemm(a, b), rtol=1e-4, atol=1e-4)


def test_specializations_are_shared_and_distinct():
    kernels = len(gemm._kernels)
    a = RNG.standard_normal((64, 32)).astype(np.float32)
    b = RNG.standard_normal((32, 64)).astype(np.float32)
    first = gemm(a, b)
    kernel = gemm.compile(M=64, N=64, K=32)           # the same specialization
    assert len(gemm._kernels) == kernels + 1
    np.testing.assert_array_equal(kernel(a, b), first)
    gemm(a, b, 64)                                    # another block_M
    gemm(a, b, block_M=64)                            # ... the same one again
    assert len(gemm._kernels) == kernels + 2
    np.testing.assert_allclose(gemm(a, b, block_N=64), reference_gemm(a, b),
                               rtol=1e-4, atol=1e-4)
    assert len(gemm._kernels) == kernels + 3
    assert "func.func @gemm" in gemm.get_tir(M=64, N=64, K=32).script()
    assert gemm.mode == "eager"


@tilelang.jit(target="cpu")
def scale_and_shift(X, alpha: T.float32, shift: int = 0):
    # Two outputs, returned in the reverse of their declaration order; a
    # runtime scalar (alpha) and a compile-time one (shift).
    N = T.const("N")
    X: T.Tensor[[N], T.float32]
    Y = T.empty((N,), T.float32)
    Z = T.empty(N, dtype=T.int32)
    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
        for i in T.Parallel(64):
            if bx * 64 + i < N:
                Y[bx * 64 + i] = X[bx * 64 + i] * alpha + shift
                Z[bx * 64 + i] = bx * 64 + i + shift
    return Z, Y


def test_outputs_in_return_order_and_scalars():
    x = RNG.standard_normal(100).astype(np.float32)
    z, y = scale_and_shift(x, 2.5)
    np.testing.assert_array_equal(z, np.arange(100, dtype=np.int32))
    np.testing.assert_allclose(y, x * np.float32(2.5), rtol=1e-6)
    z, y = scale_and_shift(x, alpha=-1.0, shift=3)
    np.testing.assert_array_equal(z, np.arange(100, dtype=np.int32) + 3)
    np.testing.assert_allclose(y, -x + 3, rtol=1e-6)


@tilelang.jit(target="cpu")
def row_sum(A, block: int = 16):
    # T.dynamic: one kernel for every number of rows.
    R = T.dynamic("R")
    C = T.const("C")
    A: T.Tensor[[R, C], T.float32]
    S = T.empty((R,), T.float32)
    with T.Kernel(T.ceildiv(R, block), threads=32) as bx:
        tile = T.alloc_fragment((block, C), T.float32)
        total = T.alloc_fragment((block,), T.float32)
        T.copy(A[bx * block, 0], tile)
        T.reduce_sum(tile, total, dim=1)
        T.copy(total, S[bx * block])
    return S


def test_dynamic_sizes_compile_once():
    kernels = len(row_sum._kernels)
    for rows in (5, 16, 37):
        a = RNG.standard_normal((rows, 24)).astype(np.float32)
        np.testing.assert_allclose(row_sum(a), a.astype(np.float64).sum(axis=1),
                                   rtol=1e-5, atol=1e-5)
    assert len(row_sum._kernels) == kernels + 1


@tilelang.jit(target="cpu")
def add_fixed(A: T.Tensor[[128], T.float32], B: T.Tensor((128,), T.float32)):
    C = T.empty([128], T.float32)
    with T.Kernel(1, threads=128):
        for i in T.Parallel(128):
            C[i] = A[i] + B[i]
    return C


@tilelang.jit(target="cpu")
def copy_ptr(A: T.ptr, B: T.ptr, n: int):
    A = T.make_tensor(A, (n,), T.float32)
    B = T.make_tensor(B, (n,), T.float32)
    with T.Kernel(T.ceildiv(n, 32), threads=32) as bx:
        for i in T.Parallel(32):
            if bx * 32 + i < n:
                B[bx * 32 + i] = A[bx * 32 + i] * 2.0


def test_signature_annotations_and_pointers():
    a, b = (RNG.standard_normal(128).astype(np.float32) for _ in range(2))
    np.testing.assert_array_equal(add_fixed(a, b), a + b)
    x = RNG.standard_normal(50).astype(np.float32)
    y = np.full_like(x, np.nan)
    assert copy_ptr(x, y, 50) is None
    np.testing.assert_array_equal(y, x * 2)
    kernels = copy_ptr.par_compile([{"A": T.ptr(), "B": T.ptr(), "n": 64},
                                    (T.ptr(), T.ptr(), 96)])
    assert [k.func.params[0][1].shape for k in kernels] == [(64,), (96,)]
    x = RNG.standard_normal(96).astype(np.float32)
    y = np.full_like(x, np.nan)
    kernels[1](x, y)
    np.testing.assert_array_equal(y, x * 2)


def test_lazy_factories_keep_working_with_compile_and_par_compile():
    @tilelang.jit(out_idx=[-1], target="cpu")
    def negate(n):
        @T.prim_func
        def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32)):
            with T.Kernel(1, threads=32):
                for i in T.Parallel(n):
                    B[i] = -A[i]
        return main

    assert negate.mode == "lazy"
    a = RNG.standard_normal(32).astype(np.float32)
    np.testing.assert_array_equal(negate(32)(a), -a)
    k32, k64 = negate.par_compile([{"n": 32}, (64,)])
    assert k32 is negate.compile(32) and k64.func.params[0][1].shape == (64,)


def test_misuse_is_named():
    with pytest.raises(ValueError, match="declares its outputs with T.empty"):
        @tilelang.jit(out_idx=[-1], target="cpu")
        def with_out_idx(A):
            N = T.const("N")
            A: T.Tensor[[N], T.float32]
            B = T.empty((N,), T.float32)
            with T.Kernel(1):
                T.copy(A, B)
            return B

    with pytest.raises(T.TileLangError, match="T.const.. can only be used"):
        T.const("M")
    with pytest.raises(T.TileLangError, match=r"T.empty\(\) declares an output"):
        T.empty((4,), T.float32)

    @tilelang.jit(target="cpu")
    def unbound(A):
        M, N = T.const("M N")
        A: T.Tensor[[M * 2], T.float32]   # N, and M only through arithmetic
        B = T.empty((M, N), T.float32)
        with T.Kernel(1):
            for i, j in T.Parallel(M, N):
                B[i, j] = 1.0
        return B

    a = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match="T.const 'M' of unbound is not a dimension"):
        unbound(a)
    np.testing.assert_array_equal(unbound(a, M=4, N=3), np.ones((4, 3), np.float32))
    with pytest.raises(TypeError, match="keyword argument.s. K, which are neither"):
        unbound(a, M=4, N=3, K=1)
    with pytest.raises(TypeError, match="T.const 'M' of unbound is an int"):
        unbound(a, M=4.0, N=3)

    @tilelang.jit(target="cpu")
    def returns_input(A):
        N = T.const("N")
        A: T.Tensor[[N], T.float32]
        B = T.empty((N,), T.float32)
        with T.Kernel(1):
            T.copy(A, B)
        return A

    with pytest.raises(T.TileLangError, match="only tensors of T.empty can be returned"):
        returns_input(a)

    with pytest.raises(tilelang.TileError, match="A.*expected element type f32, got f64"):
        gemm(np.zeros((32, 16), np.float64), np.zeros((16, 32), np.float64))
    with pytest.raises(ValueError, match="argument 'A' of gemm has rank 1"):
        gemm(np.zeros(32, np.float32), np.zeros((16, 32), np.float32))
    with pytest.raises(TypeError, match="missing the compile-time argument 'n'"):
        copy_ptr.compile(T.ptr(), T.ptr())
    with pytest.raises(T.TileLangError, match="T.StridedTensor: 1 strides"):
        T.StridedTensor[[4, 4], [4], T.float32]


def test_repeated_calls_reuse_their_specialization():
    # After the first call of a signature, calls go straight to its kernel:
    # a runtime scalar's value is not part of the signature, a compile-time
    # argument's and a tensor's shape are.
    x = RNG.standard_normal(100).astype(np.float32)
    scale_and_shift(x, 1.0)
    before = len(scale_and_shift._calls)
    for alpha in (0.5, -2.0, 3.25, 7.0):
        z, y = scale_and_shift(x, alpha)
        np.testing.assert_allclose(y, x * np.float32(alpha), rtol=1e-6)
    assert len(scale_and_shift._calls) <= before + 1
    z, y = scale_and_shift(x, 2.0, shift=5)
    np.testing.assert_array_equal(z, np.arange(100, dtype=np.int32) + 5)
    shorter = x[:40].copy()
    z, y = scale_and_shift(shorter, 2.0)
    assert z.shape == (40,)
    np.testing.assert_allclose(y, shorter * 2, rtol=1e-6)
    # A call with an unhashable argument has no signature: it takes the
    # full path (which says what is wrong with a list here).
    assert scale_and_shift._call_key((x, 2.0), {"shift": [1]}) is None
    with pytest.raises(T.TileLangError, match=r"cannot use \[1\] \(list\)"):
        scale_and_shift(x, 2.0, shift=[1])


def test_eager_style_prim_func_returns_its_outputs():
    # TileLang's eager style in a plain @T.prim_func: parameters annotated
    # in the body, T.empty outputs returned; the PrimFunc's last parameters
    # are the outputs, attrs["tilelang_out_idx"] names them and compile
    # takes it as its out_idx.
    @T.prim_func
    def kernel(A, s: T.float32):
        A: T.Tensor[[64, 32], T.float32]
        B = T.empty([64, 32], T.float32)
        C = T.empty([32], T.float32)
        with T.Kernel(1, threads=32):
            for i, j in T.Parallel(64, 32):
                B[i, j] = A[i, j] * s
            for j in T.Parallel(32):
                C[j] = A[0, j] + 1.0
        return C, B

    assert [name for name, _ in kernel.params][:2] == ["A", "s"] and len(kernel.params) == 4
    assert kernel.attrs["tilelang_out_idx"] == [-2, -1]
    compiled = tilelang.compile(kernel, target="cpu")
    a = np.random.default_rng().standard_normal((64, 32)).astype(np.float32)
    c, b = compiled(a, 3.0)
    np.testing.assert_allclose(b, a * 3.0, rtol=1e-6)
    np.testing.assert_allclose(c, a[0] + 1.0, rtol=1e-6)


def test_prim_func_attrs_pass_configs_compile_flags_and_out_idx_conflict():
    # T.annotate_pass_configs / T.annotate_compile_flags record the kernel's
    # own options (compile applies them under the caller's); a PrimFunc that
    # returns its outputs refuses a second out_idx.
    @T.prim_func
    def kernel(A, B):
        A: T.Tensor[[32], T.float32]
        B: T.Tensor[[32], T.float32]
        T.annotate_pass_configs({tilelang.PassConfigKey.TL_DISABLE_TMA_LOWER: True})
        T.annotate_compile_flags(["--use_fast_math"])
        with T.Kernel(1, threads=32):
            for i in T.Parallel(32):
                B[i] = T.exp(A[i])

    assert "tilelang_out_idx" not in kernel.attrs
    assert kernel.attrs["tilelang_compile_flags"] == ["--use_fast_math"]
    configs = kernel.attrs["tilelang_pass_configs"]
    assert configs[tilelang.PassConfigKey.TL_DISABLE_TMA_LOWER] is True
    assert configs["tl.enable_fast_math"] is True
    compiled = tilelang.compile(kernel, out_idx=[-1], target="cpu")
    # The kernel's own options reached compile (TMA off; fast math: ftz),
    # under the caller's.
    assert compiled.pass_configs == {"tma": False, "tma_store": False, "ftz": True}
    assert tilelang.compile(kernel, out_idx=[-1], target="cpu", pass_configs={
        "tma": True}).pass_configs["tma"] is True
    a = RNG.standard_normal(32).astype(np.float32)
    np.testing.assert_allclose(compiled(a), np.exp(a), rtol=1e-5)
    with pytest.warns(RuntimeWarning, match="nvcc"):
        @T.prim_func
        def flagged(A: T.Tensor((4,), T.float32)):
            T.annotate_compile_flags(["-lineinfo"])
            with T.Kernel(1, threads=4):
                for i in T.Parallel(4):
                    A[i] = 0.0

    @T.prim_func
    def returns():
        out = T.empty((8,), T.float32)
        with T.Kernel(1, threads=8):
            for i in T.Parallel(8):
                out[i] = T.cast(i, T.float32)
        return out

    assert returns.attrs["tilelang_out_idx"] == [-1]
    np.testing.assert_array_equal(tilelang.compile(returns, target="cpu")(),
                                  np.arange(8, dtype=np.float32))
    with pytest.raises(ValueError, match="Out index conflict"):
        tilelang.compile(returns, out_idx=[-1], target="cpu")


def test_output_sized_by_a_scalar_parameter():
    # T.empty([m + 1]) with m: T.int32 a runtime scalar: each call sizes
    # the output from the argument's value (one compiled kernel).
    @tilelang.jit(target="cpu")
    def ramp(A, m: T.int32):
        n = T.dynamic("n")
        A: T.Tensor[[n], T.float32]
        B = T.empty([m * 2 + 1], T.float32)
        with T.Kernel(1, threads=1):
            for i in T.serial(m * 2 + 1):
                B[i] = T.cast(i, T.float32) + A[i % n]
        return B

    a = RNG.standard_normal(5).astype(np.float32)
    for m in (0, 3, 11):
        b = ramp(a, m)
        assert b.shape == (2 * m + 1,)
        idx = np.arange(2 * m + 1)
        np.testing.assert_allclose(b, idx + a[idx % 5], rtol=1e-6)


def test_var_keyword_arguments_are_compile_time_values():
    # TileLang's `def kernel(A, B, block=64, **metadata)`: keywords beyond
    # the parameters reach **metadata, key the specialization by value, and
    # T.const names may come that way too.
    @tilelang.jit
    def scale(A, B, block: int = 32, **metadata):
        M = T.const("M")
        A: T.Tensor[[M], T.float32]
        B: T.Tensor[[M], T.float32]
        factor = metadata.get("factor", 1.0)
        with T.Kernel(T.ceildiv(M, block), threads=32) as bx:
            for i in T.Parallel(block):
                if bx * block + i < M:
                    B[bx * block + i] = A[bx * block + i] * factor

    a = np.random.default_rng().standard_normal(100).astype(np.float32)
    for factor in (2.0, 3.0):
        b = np.full_like(a, np.nan)
        scale(a, b, factor=factor, tags={"kind": ["x"]})
        np.testing.assert_allclose(b, a * factor, rtol=1e-6)
    b = np.full_like(a, np.nan)
    scale(a, b)
    np.testing.assert_allclose(b, a, rtol=1e-6)
    kernel = scale.compile(M=100, factor=4.0)
    b = np.full_like(a, np.nan)
    kernel(a, b)
    np.testing.assert_allclose(b, a * 4.0, rtol=1e-6)

    with pytest.raises(TypeError, match=r"\*args"):
        @tilelang.jit
        def bad(A, *rest):
            A: T.Tensor[[8], T.float32]
            with T.Kernel(1, threads=32):
                pass


@T.macro
def _copied_into_a_new_tensor(A):
    """A macro that sizes its output from the annotated parameter before
    the kernel (TileLang's eager return test)."""
    M, N = A.shape
    B = T.empty(M, N, dtype=A.dtype)
    with T.Kernel(T.ceildiv(M, 32), T.ceildiv(N, 32), threads=64) as (bx, by):
        T.copy(A[bx * 32:bx * 32 + 32, by * 32:by * 32 + 32],
               B[bx * 32:bx * 32 + 32, by * 32:by * 32 + 32])
    return B


@tilelang.jit(target="cpu")
def _copy_const(A):
    M, N = T.const("M, N")
    A: T.Tensor[[M, N], T.float32]
    return _copied_into_a_new_tensor(A)


@tilelang.jit(target="cpu")
def _copy_dynamic(A):
    N = T.dynamic("N")
    M = T.const("M")
    A: T.Tensor[[N, M], T.float32]
    return _copied_into_a_new_tensor(A)


@pytest.mark.parametrize("fn", [_copy_const, _copy_dynamic])
def test_shape_and_dtype_of_an_annotated_parameter_before_the_kernel(fn):
    a = np.random.default_rng().standard_normal((96, 64)).astype(np.float32)
    b = fn(a)
    assert b.dtype == np.float32 and b.shape == a.shape
    np.testing.assert_array_equal(b, a)


def test_module_level_par_compile():
    """tilelang.par_compile(funcs): a kernel per PrimFunc, in order; with
    ignore_error, None for one that fails; nvcc's flags refused."""
    funcs = [_copy_const.get_tir(T.Tensor((64, 32))),
             _copy_dynamic.get_tir(T.Tensor((64, 32)))]
    kernels = tilelang.par_compile(funcs, target="cpu", num_workers=2)
    assert [k.func for k in kernels] == funcs
    a = np.random.default_rng().standard_normal((64, 32)).astype(np.float32)
    for kernel in kernels:
        # A PrimFunc of the eager style names its output as a parameter.
        b = np.full_like(a, np.nan)
        kernel(a, b)
        np.testing.assert_array_equal(b, a)
    assert tilelang.par_compile(["not a PrimFunc"], target="cpu",
                                ignore_error=True) == [None]
    with pytest.raises(TypeError, match="expected a @T.prim_func"):
        tilelang.par_compile(["not a PrimFunc"], target="cpu")
    with pytest.warns(RuntimeWarning, match="'-Wno-par-compile' is a flag of nvcc"):
        kernels = tilelang.par_compile(funcs, target="cpu",
                                       compile_flags=["-Wno-par-compile"])
    assert len(kernels) == 2


def test_compile_flags_of_nvcc():
    """TileLang's `compile_flags=` on jit, compile and par_compile: there
    is no nvcc here; "--use_fast_math" is TL_ENABLE_FAST_MATH (unless the
    pass configs say otherwise), the other flags are ignored with one
    warning each."""
    main = _copy_const.get_tir(T.Tensor((64, 32)))
    kernel = tilelang.compile(main, target="cpu",
                              compile_flags=["-O3", "--use_fast_math"])
    # (TL_ENABLE_FAST_MATH is the compile option `ftz` here.)
    assert kernel.pass_configs["ftz"] is True
    kernel = tilelang.compile(
        main, target="cpu", compile_flags="--use_fast_math",
        pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: False})
    assert kernel.pass_configs["ftz"] is False
    with pytest.warns(RuntimeWarning, match="'-DTEST_ONCE' is a flag of nvcc"):
        tilelang.compile(main, target="cpu", compile_flags=["-DTEST_ONCE"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tilelang.compile(main, target="cpu", compile_flags=["-DTEST_ONCE"])
    with pytest.raises(TypeError, match="compile_flags is a list of strings"):
        tilelang.compile(main, target="cpu", compile_flags=[3])

    @tilelang.jit(target="cpu", compile_flags=["--use_fast_math"])
    def scaled(n):
        @T.prim_func
        def f(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
            with T.Kernel(1, threads=32):
                for i in T.Parallel(n):
                    B[i] = A[i] * 2.0
        return f

    a = np.arange(16, dtype=np.float32)
    b = np.full_like(a, np.nan)
    scaled(16)(a, b)
    np.testing.assert_array_equal(b, a * 2.0)


def test_consts_read_from_an_arguments_strides():
    """TileLang's `N, M, N_, M_ = T.const(...)` with
    `A: T.StridedTensor[[N, M], [N_, M_], dtype]`: the strides' consts come
    from the argument's strides (in elements), each stride pattern its own
    specialization."""

    @T.macro
    def copy_impl(A):
        M, N = A.shape
        B = T.empty(M, N, dtype=A.dtype)
        with T.Kernel(T.ceildiv(M, 16), T.ceildiv(N, 16), threads=32) as (bx, by):
            T.copy(A[bx * 16:bx * 16 + 16, by * 16:by * 16 + 16],
                   B[bx * 16:bx * 16 + 16, by * 16:by * 16 + 16])
        return B

    @tilelang.jit(target="cpu")
    def copy(A):
        N, M, N_, M_ = T.const("N, M, N_, M_")
        A: T.StridedTensor[[N, M], [N_, M_], T.float32]
        return copy_impl(A)

    whole = np.random.default_rng().standard_normal((32, 2, 48, 3)).astype(np.float32)
    for view in (whole[:, 0, :, 0], whole[:, 1, :, 2], whole[:, 0, :, 1].copy()):
        out = copy(view)
        np.testing.assert_array_equal(out, view)
    with pytest.raises(TypeError, match="T.const 'M_' of copy is an int"):
        copy.compile(N=32, M=48, N_=288, M_=1.5)


def test_several_outputs_come_back_as_a_list():
    """As TileLang's kernels return them (its test of multiple T.empty
    outputs asserts a list): eager outputs, and a compiled kernel's out_idx
    outputs."""

    @tilelang.jit(target="cpu")
    def kernel(A):
        m = T.dynamic("m")
        A: T.Tensor[[m], T.float32]
        B = T.empty([m], T.float32)
        C = T.empty([m + 1], T.float32)
        with T.Kernel(1, threads=1):
            for i in T.serial(m):
                B[i] = A[i] + 1.0
            for i in T.serial(m + 1):
                C[i] = T.cast(i, T.float32)
        return B, C

    a = np.arange(29, dtype=np.float32)
    outputs = kernel(a)
    assert isinstance(outputs, list) and len(outputs) == 2
    np.testing.assert_array_equal(outputs[0], a + 1)
    np.testing.assert_array_equal(outputs[1], np.arange(30, dtype=np.float32))

    @T.prim_func
    def split(A: T.Tensor((8,), T.float32), B: T.Tensor((8,), T.float32),
              C: T.Tensor((8,), T.float32)):
        with T.Kernel(1, threads=8):
            for i in T.Parallel(8):
                B[i] = A[i] * 2.0
                C[i] = A[i] - 1.0

    b, c = outputs = tilelang.compile(split, out_idx=[1, 2], target="cpu")(a[:8])
    assert isinstance(outputs, list)
    np.testing.assert_array_equal(b, a[:8] * 2)
    np.testing.assert_array_equal(c, a[:8] - 1)


def test_macro_asserts_on_shapes_before_the_kernel():
    """A macro before the kernel compares two tensors' shapes in a Python
    assert (TileLang's `M, N = A.shape; M_, N_ = B.shape; assert M == M_`):
    sizes given by T.const, T.dynamic or the signature's annotations; the
    same size symbols are equal while the consts are discovered, and the
    values are checked when the kernel is traced."""

    @T.macro
    def copy_impl(A, B):
        M, N = A.shape
        M_, N_ = B.shape
        assert M == M_, "M mismatch %s %s" % (M, M_)
        assert not (N != N_), "N mismatch"
        with T.Kernel(T.ceildiv(M, 32), threads=32) as bx:
            for i, j in T.Parallel(32, N):
                if bx * 32 + i < M:
                    B[bx * 32 + i, j] = A[bx * 32 + i, j]

    @tilelang.jit(target="cpu")
    def by_consts(A, B):
        N, M = T.const("N, M")
        A: T.Tensor[[N, M], T.float32]
        B: T.Tensor[[N, M], T.float32]
        copy_impl(A, B)

    @tilelang.jit(target="cpu")
    def by_signature(A: T.Tensor[[64, 16], T.float32],
                     B: T.Tensor[[64, 16], T.float32]):
        copy_impl(A, B)

    @tilelang.jit(target="cpu")
    def by_dynamic(A, B):
        N = T.dynamic("N")
        M = T.const("M")
        A: T.Tensor[[N, M], T.float32]
        B: T.Tensor[[N, M], T.float32]
        copy_impl(A, B)

    @tilelang.jit(target="cpu")
    def mismatched(A, B):
        N, M, K = T.const("N, M, K")
        A: T.Tensor[[N, M], T.float32]
        B: T.Tensor[[K, M], T.float32]
        copy_impl(A, B)

    for copy in (by_consts, by_signature, by_dynamic):
        a = np.random.default_rng().standard_normal((64, 16)).astype(np.float32)
        b = np.full_like(a, np.nan)
        copy(a, b)
        np.testing.assert_array_equal(b, a)
    # Different symbols are different sizes while discovering (as TileLang
    # compares its size variables structurally).
    with pytest.raises(AssertionError,
                       match=re.escape("M mismatch T.const('N') T.const('K')")):
        mismatched(np.zeros((64, 16), np.float32), np.zeros((32, 16), np.float32))
