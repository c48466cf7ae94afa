"""TileLang's reducers (T.alloc_reducer, reducer_init/update, finalize), the
thread and block bindings (T.get_thread_binding & co.), bitwise and
NaN-aware reductions, and tiles allocated inside loops. Numerical kernels
run on the CPU against numpy on fresh random inputs; what needs threads is
compiled for sm_90a (the GPU run is in test_differential.py)."""

import math

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def _run(func, *inputs):
    return tilelang.compile(func, out_idx=-1, target="cpu")(*inputs)


def _scalar_kernel(extent, op="sum", dtype="float32", seed=None, threads=128):
    @T.prim_func
    def kernel(A: T.Tensor((extent,), dtype), B: T.Tensor((1,), dtype)):
        with T.Kernel(1, threads=threads):
            src = T.alloc_fragment((extent,), dtype)
            T.copy(A, src)
            acc = T.alloc_reducer((1,), dtype, op=op)
            if seed is None:
                T.reducer_init(acc)
            else:
                T.reducer_init(acc, seed)
            for i in T.Parallel(extent):
                T.reducer_update(acc[0], src[i])
            result = T.alloc_fragment((1,), dtype)
            T.finalize_reducer(acc, result)
            B[0] = result[0]
    return kernel


def test_scalar_sum_counts_each_iteration_once():
    A = np.arange(1, 9, dtype=np.float32)
    assert _run(_scalar_kernel(8), A)[0] == 36.0


@pytest.mark.parametrize("op,reference", [
    ("sum", np.sum), ("max", np.max), ("min", np.min)])
def test_float_ops(op, reference):
    A = RNG.standard_normal(200).astype(np.float32)
    # A sum of signed values may cancel to near zero: its rounding error is
    # bounded relative to the sum of magnitudes, not to the result (the
    # reference in f64; max and min are exact).
    np.testing.assert_allclose(_run(_scalar_kernel(200, op), A)[0],
                               reference(A.astype(np.float64)), rtol=1e-6,
                               atol=1e-6 * np.abs(A).sum())


@pytest.mark.parametrize("op,reference", [
    ("sum", np.sum), ("max", np.max), ("min", np.min),
    ("bitand", np.bitwise_and.reduce), ("bitor", np.bitwise_or.reduce),
    ("bitxor", np.bitwise_xor.reduce)])
def test_integer_ops(op, reference):
    A = RNG.integers(-2**20, 2**20, 37).astype(np.int32)
    if op.startswith("bit"):
        A = RNG.integers(0, 2**31 - 1, 37).astype(np.int32)
    assert _run(_scalar_kernel(37, op, "int32"), A)[0] == reference(A)


def test_seed_is_combined_once():
    A = RNG.standard_normal(64).astype(np.float32)
    # The seed may cancel the sum to near zero: bound the error by the
    # magnitudes summed (reference in f64), not by the result.
    np.testing.assert_allclose(_run(_scalar_kernel(64, seed=10.0), A)[0],
                               A.astype(np.float64).sum() + 10.0, rtol=1e-6,
                               atol=1e-6 * (np.abs(A).sum() + 10.0))
    np.testing.assert_allclose(_run(_scalar_kernel(64, "max", seed=100.0), A)[0],
                               100.0)


def test_rows_across_serial_tiles_and_mixed_sites():
    M, K, BK = 24, 300, 64  # K not a multiple of BK: the edge tile reads zeros

    @T.prim_func
    def kernel(A: T.Tensor((M, K), T.float32), C: T.Tensor((M,), T.float32),
               B: T.Tensor((M,), T.float32)):
        with T.Kernel(1, threads=128):
            acc = T.alloc_reducer((M,), T.float32, op="sum")
            T.reducer_init(acc)
            a_frag = T.alloc_fragment((M, BK), T.float32)
            c_frag = T.alloc_fragment((M,), T.float32)
            T.copy(C, c_frag)
            for k_tile in T.serial(T.ceildiv(K, BK)):
                T.copy(A[0, k_tile * BK], a_frag)
                for i, k in T.Parallel(M, BK):
                    T.reducer_update(acc[i], a_frag[i, k])
            for i in T.Parallel(M):          # a second site, another extent
                T.reducer_update(acc[i], c_frag[i] * 2.0)
            result = T.alloc_fragment((M,), T.float32)
            T.finalize_reducer(acc, result)
            T.copy(result, B)

    A = RNG.standard_normal((M, K)).astype(np.float32)
    C = RNG.standard_normal(M).astype(np.float32)
    np.testing.assert_allclose(_run(kernel, A, C), A.sum(1) + 2 * C, rtol=1e-4,
                               atol=1e-4)


def test_index_forms_permuted_unit_and_inner_serial():
    M, N, K = 8, 16, 5

    @T.prim_func
    def kernel(A: T.Tensor((M, N), T.float32), B: T.Tensor((N, M), T.float32),
               C: T.Tensor((1, M), T.float32), D: T.Tensor((M,), T.float32)):
        with T.Kernel(1, threads=64):
            src = T.alloc_fragment((M, N), T.float32)
            T.copy(A, src)
            perm = T.alloc_reducer((N, M), T.float32, op="sum")
            unit = T.alloc_reducer((1, M), T.float32, op="max")
            inner = T.alloc_reducer((M,), T.float32, op="sum")
            T.reducer_init(perm)
            T.reducer_init(unit)
            T.reducer_init(inner)
            for i, j in T.Parallel(M, N):
                T.reducer_update(perm[j, i], src[i, j])
                T.reducer_update(unit[0, i], src[i, j])
            for i in T.Parallel(M):
                for k in T.serial(K):
                    T.reducer_update(inner[i], src[i, k] * k)
            out_b = T.alloc_fragment((N, M), T.float32)
            out_c = T.alloc_fragment((1, M), T.float32)
            out_d = T.alloc_fragment((M,), T.float32)
            T.finalize_reducer(perm, out_b)
            T.finalize_reducer(unit, out_c)
            T.finalize_reducer(inner, out_d)
            T.copy(out_b, B)
            T.copy(out_c, C)
            T.copy(out_d, D)

    A = RNG.standard_normal((M, N)).astype(np.float32)
    B, C, D = (np.full(s, np.nan, np.float32) for s in ((N, M), (1, M), (M,)))
    tilelang.compile(kernel, target="cpu")(A, B, C, D)
    np.testing.assert_array_equal(B, A.T)
    np.testing.assert_array_equal(C, A.max(1)[None])
    terms = A[:, :K].astype(np.float64) * np.arange(K)
    np.testing.assert_allclose(D, terms.sum(1), rtol=1e-5,
                               atol=1e-6 * np.abs(terms).sum(1).max())


def test_epoch_inside_serial_loop_logsumexp():
    K, BK = 512, 128

    @T.prim_func
    def kernel(A: T.Tensor((K,), T.float32), B: T.Tensor((1,), T.float32)):
        with T.Kernel(1, threads=128):
            a_frag = T.alloc_fragment((BK,), T.float32)
            running_max = T.alloc_fragment((1,), T.float32)
            running_sum = T.alloc_fragment((1,), T.float32)
            running_max[0] = -T.infinity(T.float32)
            running_sum[0] = 0.0
            for k_tile in T.serial(K // BK):
                T.copy(A[k_tile * BK], a_frag)
                new_max = T.alloc_reducer((1,), T.float32, op="max")  # in a loop
                T.reducer_init(new_max, running_max[0])
                for i in T.Parallel(BK):
                    T.reducer_update(new_max[0], a_frag[i])
                max_result = T.alloc_fragment((1,), T.float32)
                T.finalize_reducer(new_max, max_result)
                new_sum = T.alloc_reducer((1,), T.float32, op="sum")
                T.reducer_init(new_sum)
                for i in T.Parallel(BK):
                    T.reducer_update(new_sum[0], T.exp(a_frag[i] - max_result[0]))
                sum_result = T.alloc_fragment((1,), T.float32)
                T.finalize_reducer(new_sum, sum_result)
                running_sum[0] = (T.exp(running_max[0] - max_result[0]) * running_sum[0]
                                  + sum_result[0])
                running_max[0] = max_result[0]
            B[0] = T.log(running_sum[0]) + running_max[0]

    A = RNG.standard_normal(K).astype(np.float32) * 4
    m = A.max()
    np.testing.assert_allclose(_run(kernel, A)[0], np.log(np.exp(A - m).sum()) + m,
                               rtol=1e-5)


def test_index_computed_before_the_loop():
    K = 96

    @T.prim_func
    def kernel(A: T.Tensor((4, K), T.float32), A2: T.Tensor((3, K), T.float32),
               B: T.Tensor((4, 3), T.float32)):
        with T.Kernel(1, threads=128):
            src = T.alloc_fragment((4, K), T.float32)
            src2 = T.alloc_fragment((3, K), T.float32)
            T.copy(A, src)
            T.copy(A2, src2)
            acc = T.alloc_reducer((4, 3), T.float32, op="sum")
            T.reducer_init(acc)
            for i in T.serial(4):
                for j in T.serial(3):
                    for k in T.Parallel(K):
                        T.reducer_update(acc[i, j], src[i, k] * src2[j, k])
            result = T.alloc_fragment((4, 3), T.float32)
            T.finalize_reducer(acc, result)
            T.copy(result, B)

    A = RNG.standard_normal((4, K)).astype(np.float32)
    A2 = RNG.standard_normal((3, K)).astype(np.float32)
    np.testing.assert_allclose(_run(kernel, A, A2), A @ A2.T, rtol=1e-4, atol=1e-4)


def _misuse(body):
    @T.prim_func
    def kernel(A: T.Tensor((8,), T.float32), B: T.Tensor((1,), T.float32)):
        with T.Kernel(1, threads=128):
            src = T.alloc_fragment((8,), T.float32)
            T.copy(A, src)
            body(src, B)
    return kernel


def _update_all(acc, src):
    for i in T.Parallel(8):
        T.reducer_update(acc[0], src[i])


def _finish(acc, B):
    result = T.alloc_fragment((1,), T.float32)
    T.finalize_reducer(acc, result)
    B[0] = result[0]


def _before_init(src, B):
    acc = T.alloc_reducer((1,), T.float32)
    _update_all(acc, src)


def _double_init(src, B):
    acc = T.alloc_reducer((1,), T.float32)
    T.reducer_init(acc)
    T.reducer_init(acc)


def _not_finalized(src, B):
    acc = T.alloc_reducer((1,), T.float32)
    T.reducer_init(acc)
    _update_all(acc, src)


def _ordinary_store(src, B):
    acc = T.alloc_reducer((1,), T.float32)
    T.reducer_init(acc)
    for i in T.Parallel(8):
        acc[0] += src[i]


def _read_open(src, B):
    acc = T.alloc_reducer((1,), T.float32)
    T.reducer_init(acc)
    _update_all(acc, src)
    B[0] = acc[0]


def _clear(src, B):
    acc = T.alloc_reducer((1,), T.float32)
    T.clear(acc)


def _outside_parallel(src, B):
    acc = T.alloc_reducer((1,), T.float32)
    T.reducer_init(acc)
    T.reducer_update(acc[0], src[0])


def _computed_index(src, B):
    acc = T.alloc_reducer((8,), T.float32)
    T.reducer_init(acc)
    for i in T.Parallel(8):
        T.reducer_update(acc[7 - i], src[i])


def _finalize_outside_init_loop(src, B):
    acc = T.alloc_reducer((1,), T.float32)
    for _ in T.serial(4):
        T.reducer_init(acc)
        _update_all(acc, src)
    _finish(acc, B)


def _finalize_in_extra_loop(src, B):
    acc = T.alloc_reducer((1,), T.float32)
    T.reducer_init(acc)
    _update_all(acc, src)
    for _ in T.serial(4):
        _finish(acc, B)


def _init_dtype(src, B):
    acc = T.alloc_reducer((1,), T.float32)
    T.reducer_init(acc, T.float16(1.0))


@pytest.mark.parametrize("body,message", [
    (_before_init, "before T.reducer_init"),
    (_double_init, "double T.reducer_init"),
    (_not_finalized, "never finalized"),
    (_ordinary_store, "illegal (store to|read of) reducer"),
    (_read_open, "illegal read of reducer"),
    (_clear, "illegal T.clear of reducer"),
    (_outside_parallel, "outside any T.Parallel"),
    (_computed_index, "index 0 must be a variable of the enclosing T.Parallel, "
                      "a value computed before it, or a constant"),
    (_init_dtype, r"dtype \(f16\) does not match reducer"),
    (_finalize_outside_init_loop, "not in the scope of its T.reducer_init"),
    (_finalize_in_extra_loop, "not in the scope of its T.reducer_init"),
])
def test_misuse_is_refused_at_the_users_line(body, message):
    with pytest.raises(T.TileLangError, match=message) as error:
        _misuse(body)
    assert __file__ in str(error.value)


def test_bitwise_reducer_needs_integers():
    with pytest.raises(AssertionError, match="integer dtype"):
        _misuse(lambda src, B: T.alloc_reducer((1,), T.float32, op="bitand"))


def test_bitwise_and_nan_aware_reductions():
    @T.prim_func
    def kernel(A: T.Tensor((4, 33), T.int32), F: T.Tensor((4, 33), T.float32),
               B: T.Tensor((3, 4), T.int32), M: T.Tensor((2, 4), T.float32)):
        with T.Kernel(1, threads=32):
            a = T.alloc_fragment((4, 33), T.int32)
            f = T.alloc_fragment((4, 33), T.float32)
            r = T.alloc_fragment((4,), T.int32)
            m = T.alloc_fragment((4,), T.float32)
            T.copy(A, a)
            T.copy(F, f)
            for row, reduce in enumerate((T.reduce_bitand, T.reduce_bitor,
                                          T.reduce_bitxor)):
                reduce(a, r, dim=1)
                T.copy(r, B[row, 0])
            T.reduce_max(f, m, dim=1)
            T.copy(m, M[0, 0])
            T.reduce_max(f, m, dim=1, nan_propagate=True)
            T.copy(m, M[1, 0])

    A = RNG.integers(0, 2**31 - 1, (4, 33)).astype(np.int32)
    F = RNG.standard_normal((4, 33)).astype(np.float32)
    F[1, 5] = np.nan
    B, M = np.zeros((3, 4), np.int32), np.zeros((2, 4), np.float32)
    tilelang.compile(kernel, target="cpu")(A, F, B, M)
    np.testing.assert_array_equal(B, [np.bitwise_and.reduce(A, 1),
                                      np.bitwise_or.reduce(A, 1),
                                      np.bitwise_xor.reduce(A, 1)])
    np.testing.assert_array_equal(M[0], np.nanmax(F, 1))
    np.testing.assert_array_equal(M[1], F.max(1))  # NaN in row 1
    assert math.isnan(M[1, 1])
    with pytest.raises(T.TileLangError, match="reduce_bitxor needs integer"):
        @T.prim_func
        def bad(F: T.Tensor((4, 8), T.float32)):
            with T.Kernel(1, threads=32):
                f = T.alloc_fragment((4, 8), T.float32)
                r = T.alloc_fragment((4,), T.float32)
                T.reduce_bitxor(f, r, dim=1)


def _per_thread():
    @T.prim_func
    def kernel(A: T.Tensor((4, 32), T.float32), B: T.Tensor((4, 32), T.float32),
               G: T.Tensor((8,), T.int32)):
        with T.Kernel(8, threads=(32, 4)) as bx:
            tx = T.get_thread_binding()
            ty = T.get_thread_binding(1)
            assert T.get_thread_extents() == [32, 4, 1]
            B[ty, tx] = A[ty, tx] + tx
            if tx == 0 and ty == 0:
                G[T.get_block_binding()] = bx * 10 + T.get_block_extent()
    return kernel


def test_thread_binding_compiles_for_the_gpu_and_is_refused_on_the_cpu():
    ptx = tilelang.compile(_per_thread(), target="sm_90a").get_kernel_source("ptx")
    assert "%tid.x" in ptx and "%tid.y" in ptx
    with pytest.raises(Exception, match="CPU target runs each block as one "
                                        "thread; compile for a GPU target"):
        tilelang.compile(_per_thread(), target="cpu").get_kernel_source("llvm")
    with pytest.raises(T.TileLangError, match="only meaningful inside a T.Kernel"):
        @T.prim_func
        def outside(A: T.Tensor((4,), T.float32)):
            T.get_thread_binding()


def test_tile_ops_under_thread_dependent_control_flow_are_refused():
    @T.prim_func
    def kernel(A: T.Tensor((128,), T.float32), B: T.Tensor((128,), T.float32)):
        with T.Kernel(1, threads=128):
            s = T.alloc_shared((128,), T.float32)
            if T.get_thread_binding() == 0:
                T.copy(A, s)      # every thread must reach a copy
            T.copy(s, B)

    with pytest.raises(Exception, match="synchronizes the threads that run "
                                        "it, but runs under control flow that "
                                        "depends on the thread index: the "
                                        "condition is not a range") as error:
        tilelang.compile(kernel, target="sm_90a").get_kernel_source("ptx")
    assert __file__ in str(error.value)


def test_warp_intrinsics_compile_to_shuffles():
    @T.prim_func
    def kernel(X: T.Tensor((32,), T.float16), B: T.Tensor((32,), T.int32),
               C: T.Tensor((32,), T.int64)):
        with T.Kernel(1, threads=32):
            tx = T.get_thread_binding()
            X[tx] = T.warp_reduce_max(X[tx]) + T.shfl_down(X[tx], 1)
            B[tx] = T.any_sync(tx == 0) + T.all_sync(tx < 40) * 2 + T.get_lane_idx()
            C[tx] = T.ballot(tx % 2 == 0)

    ptx = tilelang.compile(kernel, target="sm_90a").get_kernel_source("ptx")
    # 5 rounds for the max, one shfl.down, 3 x 5 rounds for the votes.
    assert ptx.count("shfl.sync.bfly") == 20 and ptx.count("shfl.sync.down") == 1
    with pytest.raises(TypeError, match="requires an integer or boolean predicate"):
        @T.prim_func
        def bad(B: T.Tensor((32,), T.int32)):
            with T.Kernel(1, threads=32):
                B[0] = T.any_sync(T.float32(0.5))


def test_64_bit_values_shuffle_as_two_halves():
    @T.prim_func
    def wide(B: T.Tensor((32,), T.float64), C: T.Tensor((32,), T.int64)):
        with T.Kernel(1, threads=32):
            tx = T.get_thread_binding()
            B[tx] = T.shfl_xor(B[tx], 1)
            C[tx] = T.warp_reduce_sum(C[tx])

    ptx = tilelang.compile(wide, target="sm_90a").get_kernel_source("ptx")
    assert ptx.count("shfl.sync.bfly") == 2 + 2 * 5


def test_shuffle_elect_and_warp_groups():
    from tilelang_mlir.rocm.target import check_hip_availability
    assert check_hip_availability() is False

    @T.prim_func
    def kernel(A: T.Tensor((256,), T.int32), B: T.Tensor((256,), T.int32)):
        with T.Kernel(1, threads=256):
            tx = T.get_thread_binding()
            elected = T.shuffle_elect(64)
            assert isinstance(elected, T.Expr) and elected.type == "i1"
            A[tx] = elected + T.shuffle_elect(0) * 2
            B[tx] = T.get_warp_group_idx(32, 2) * 100 + T.get_warp_idx() * 10 + \
                T.get_lane_idx(16)

    ptx = tilelang.compile(kernel, target="sm_90a").get_kernel_source("ptx")
    assert "%tid.x" in ptx and "shfl" not in ptx


def test_running_maxima_and_minima():
    @T.prim_func
    def kernel(A: T.Tensor((16, 40), T.float32), B: T.Tensor((3, 16, 40), T.float32)):
        with T.Kernel(1, threads=64):
            s = T.alloc_shared((16, 40), T.float32)
            f = T.alloc_fragment((16, 40), T.float32)
            T.copy(A, s)
            T.cummax(s, f, dim=1)
            T.copy(f, B[0, 0, 0])
            T.cummin(s, f, dim=0, reverse=True)
            T.copy(f, B[1, 0, 0])
            T.cummax(s, dim=1, reverse=True)  # in place
            T.copy(s, B[2, 0, 0])

    A = RNG.standard_normal((16, 40)).astype(np.float32)
    A[3, 7] = np.nan  # skipped, as in the reductions
    B = np.zeros((3, 16, 40), np.float32)
    tilelang.compile(kernel, target="cpu")(A, B)
    np.testing.assert_array_equal(B[0], np.fmax.accumulate(A, axis=1))
    np.testing.assert_array_equal(B[1], np.fmin.accumulate(A[::-1], axis=0)[::-1])
    np.testing.assert_array_equal(B[2], np.fmax.accumulate(A[:, ::-1], axis=1)[:, ::-1])
    with pytest.raises(T.TileLangError, match="T.cummax scans whole on-chip tiles"):
        @T.prim_func
        def bad(A: T.Tensor((16,), T.float32)):
            with T.Kernel(1, threads=32):
                T.cummax(A)


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_of_a_float_without_infinity_start_from_its_extremes(op):
    """float8_e4m3fn has no infinity: its max / min reducers start from
    -448 / 448. All values on the side of zero that would expose any other
    start (a max of negatives, a min of positives), the type's extreme
    among them."""
    @T.prim_func
    def kernel(A: T.Tensor((64,), T.float32), B: T.Tensor((1,), T.float32)):
        with T.Kernel(1, threads=32):
            src = T.alloc_fragment((64,), T.float8_e4m3fn)
            T.copy(A, src)
            acc = T.alloc_reducer((1,), T.float8_e4m3fn, op=op)
            T.reducer_init(acc)
            for i in T.Parallel(64):
                T.reducer_update(acc[0], src[i])
            result = T.alloc_fragment((1,), T.float8_e4m3fn)
            T.finalize_reducer(acc, result)
            B[0] = T.cast(result[0], T.float32)

    # Values exact in e4m3.
    sign = -1.0 if op == "max" else 1.0
    a = sign * RNG.choice(np.array([3.0, 0.5, 1.5, 2.0], np.float32), 64)
    a[RNG.integers(64)] = sign * 448.0
    b = np.zeros(1, np.float32)
    tilelang.compile(kernel, target="cpu")(a, b)
    assert b[0] == (a.max() if op == "max" else a.min())
