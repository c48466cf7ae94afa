"""Python control flow inside @T.prim_func read as TileLang reads it
(tilelang_mlir/frontend.py): if/elif/else, ternaries, and/or/not, == and !=
on device values become traced IR; on Python values they choose what to
trace; T.alloc_var assignments store. Every kernel runs on the CPU against
loops written here in numpy, on fresh random inputs, outputs poisoned."""

import inspect

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def run(func, *arrays):
    """Runs `func` on the CPU with its last array poisoned (NaN) and
    written in place; returns that array."""
    kernel = tilelang_mlir.compile(func, target="cpu")
    out = np.full_like(arrays[-1], np.nan)
    kernel(*arrays[:-1], out)
    return out


def branches(n, threshold):
    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32)):
        with T.Kernel(n // 32, threads=32) as bx:
            for i in T.Parallel(32):
                x = A[bx * 32 + i]
                if x > threshold and i != 3:
                    B[bx * 32 + i] = x
                elif bx == 1 or not i < 30:
                    B[bx * 32 + i] = -x
                else:
                    B[bx * 32 + i] = 2.0 if i % 2 == 0 else x * 3.0
    return main


def branches_reference(a, threshold):
    """What branches(len(a), threshold) computes, in numpy loops."""
    want = np.empty_like(a)
    for bx in range(len(a) // 32):
        for i in range(32):
            x = a[bx * 32 + i]
            if x > np.float32(threshold) and i != 3:
                want[bx * 32 + i] = x
            elif bx == 1 or not i < 30:
                want[bx * 32 + i] = -x
            else:
                want[bx * 32 + i] = 2.0 if i % 2 == 0 else x * np.float32(3.0)
    return want


def test_if_elif_else_on_device_values():
    a = RNG.standard_normal(96).astype(np.float32)
    got = run(branches(96, 0.25), a, np.empty_like(a))
    np.testing.assert_array_equal(got, branches_reference(a, 0.25))


def test_equality_on_device_values_is_traced():
    """`bx == 1` compares on the device (it was Python's identity, False,
    which chose the else branch without a word)."""
    source = branches(64, 0.0).script()
    assert "arith.cmpi eq" in source and "arith.cmpi ne" in source
    assert "} else {" in source


def python_choice(n, flag):
    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32)):
        with T.Kernel(1, threads=n) as bx:
            for i in T.Parallel(n):
                if flag == "double":
                    B[i] = A[i] * 2.0
                elif n > 1000:
                    B[i] = T.no_such_function(A[i])  # never traced
                else:
                    B[i] = A[i] + (1.0 if flag == "one" else 5.0)
    return main


@pytest.mark.parametrize("flag, want", [("double", lambda a: a * 2),
                                        ("one", lambda a: a + 1),
                                        ("five", lambda a: a + 5)])
def test_if_on_python_values_chooses_what_to_trace(flag, want):
    a = RNG.standard_normal(32).astype(np.float32)
    func = python_choice(32, flag)
    assert "scf.if" not in func.script()
    np.testing.assert_array_equal(run(func, a, np.empty_like(a)), want(a))


def counted(n):
    @T.prim_func
    def main(A: T.Tensor((n, 16), T.float32), C: T.Tensor((n,), T.float32),
             S: T.Tensor((n,), T.float32)):
        with T.Kernel(n, threads=1) as bx:
            count = T.alloc_var(T.float32, init=0.0)
            total = T.alloc_var(T.float32)
            total = 0.0
            for j in range(16):
                x = A[bx, j]
                if x > 0:
                    count += 1.0
                    total = total + x
                else:
                    total -= 0.5
            C[bx] = count
            S[bx] = total
    return main


def test_alloc_var_assignments_store():
    a = RNG.standard_normal((5, 16)).astype(np.float32)
    kernel = tilelang_mlir.compile(counted(5), target="cpu")
    c = np.full(5, np.nan, np.float32)
    s = np.full(5, np.nan, np.float32)
    kernel(a, c, s)
    np.testing.assert_array_equal(c, (a > 0).sum(axis=1).astype(np.float32))
    want = np.zeros(5, np.float32)
    for r in range(5):
        for x in a[r]:
            want[r] = want[r] + x if x > 0 else want[r] - np.float32(0.5)
    np.testing.assert_allclose(s, want, rtol=1e-6, atol=1e-6)


def dynamic_rows():
    n = T.symbolic("N")

    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((1,), T.float32)):
        with T.Kernel(1, threads=1) as bx:
            total = T.alloc_var(T.float32, init=0.0)
            for i in range(n):
                total += A[i]
            B[0] = total
    return main


def test_range_over_a_device_value_is_a_loop():
    func = dynamic_rows()
    assert "scf.for" in func.script()
    for size in (1, 7, 300):
        a = RNG.standard_normal(size).astype(np.float32)
        got = run(func, a, np.empty(1, np.float32))
        np.testing.assert_allclose(got[0], a.sum(dtype=np.float32), rtol=1e-5, atol=1e-5)


def k_loop(m, n, k, bk, copies):
    """C = A @ B with a `for ko in range(k // bk)` k loop (Python ints), the
    tiles of A kept in a list that a comprehension over range builds, and
    a Python loop before the kernel choosing how many copies to sum."""
    scale = 0.0
    for _ in range(copies):  # outside the kernel: Python's loop
        scale += 1.0

    @T.prim_func
    def main(A: T.Tensor((m, k), T.float32), B: T.Tensor((k, n), T.float32),
             C: T.Tensor((m, n), T.float32)):
        with T.Kernel(1, threads=32) as _:
            a_tiles = [T.alloc_fragment((m, bk), T.float32) for _ in range(1)]
            b = T.alloc_fragment((bk, n), T.float32)
            acc = T.alloc_fragment((m, n), T.float32)
            T.clear(acc)
            for ko in range(k // bk):
                T.copy(A[0, ko * bk], a_tiles[0])
                T.copy(B[ko * bk, 0], b)
                for i, j in T.Parallel(m, n):
                    for kk in range(bk):
                        acc[i, j] += a_tiles[0][i, kk] * b[kk, j]
            for i, j in T.Parallel(m, n):
                acc[i, j] *= scale
            T.copy(acc, C)
    return main


def test_for_over_range_in_a_kernel_is_the_kernels_loop():
    # TileLang's builder makes `for ... in range(...)` a loop the kernel runs
    # whatever the bounds: traced once (one scf.for, the copies once), not
    # unrolled by Python; comprehensions and loops outside the kernel stay
    # Python's.
    func = k_loop(8, 16, 96, 8, 3)
    script = func.script()
    assert script.count("tile.copy") == 3, script  # A, B in the loop; C
    assert "scf.for" in script
    a = RNG.standard_normal((8, 96)).astype(np.float32)
    b = RNG.standard_normal((96, 16)).astype(np.float32)
    got = run(func, a, b, np.empty((8, 16), np.float32))
    np.testing.assert_allclose(got, 3.0 * (a.astype(np.float64) @ b), rtol=1e-4, atol=1e-4)


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_return_in_a_device_branch_is_refused_at_the_if():
    def make():
        @T.prim_func
        def main(A: T.Tensor((32,), T.float32)):
            with T.Kernel(1, threads=32) as bx:
                for i in T.Parallel(32):
                    if A[i] > 0:  # the if
                        return
        return main
    with pytest.raises(T.TileLangError) as error:
        make()
    assert "return inside an if on a device value" in str(error.value)
    assert "%s:%d:" % (__file__, line_of(make, "# the if")) in str(error.value)


def test_a_python_name_bound_in_a_device_branch_and_read_after_is_refused():
    def make():
        @T.prim_func
        def main(A: T.Tensor((32,), T.float32), B: T.Tensor((32,), T.float32)):
            with T.Kernel(1, threads=32) as bx:
                for i in T.Parallel(32):
                    y = 1.0
                    if A[i] > 0:
                        y = 2.0  # the binding
                    B[i] = y
        return main
    with pytest.raises(T.TileLangError) as error:
        make()
    message = str(error.value)
    assert "'y' is assigned under a condition on a device value" in message
    assert "T.alloc_var" in message
    assert "%s:%d:" % (__file__, line_of(make, "# the binding")) in message


def test_a_temporary_inside_a_device_branch_is_fine():
    @T.prim_func
    def main(A: T.Tensor((32,), T.float32), B: T.Tensor((32,), T.float32)):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(32):
                if A[i] > 0:
                    t = A[i] * 4.0
                    B[i] = t
                else:
                    B[i] = A[i]
    a = RNG.standard_normal(32).astype(np.float32)
    np.testing.assert_array_equal(run(main, a, np.empty_like(a)), np.where(a > 0, a * 4, a))


def doublings(n):
    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32),
             C: T.Tensor((n,), T.int32)):
        with T.Kernel(n, threads=1) as bx:
            v = T.alloc_var(T.float32, init=A[bx])
            count = T.alloc_var(T.int32, init=0)
            while v < 10.0 and count < 40:
                v = v * 2.0
                count += 1
            steps = 0
            while steps < 2:  # a Python loop: unrolled into the trace
                v = v + 1.0
                steps += 1
            B[bx] = v
            C[bx] = count
    return main


def test_while_on_a_device_value_is_a_loop():
    func = doublings(16)
    assert func.script().count("scf.while") == 1
    a = np.abs(RNG.standard_normal(16)).astype(np.float32) + np.float32(0.01)
    a[0] = 20.0
    kernel = tilelang_mlir.compile(func, target="cpu")
    b = np.full(16, np.nan, np.float32)
    c = np.full(16, -1, np.int32)
    kernel(a, b, c)
    want_b, want_c = np.empty_like(a), np.empty_like(c)
    for r, x in enumerate(a):
        count = 0
        while x < np.float32(10.0) and count < 40:
            x = np.float32(x * np.float32(2.0))
            count += 1
        want_b[r], want_c[r] = x + np.float32(2.0), count
    np.testing.assert_array_equal(b, want_b)
    np.testing.assert_array_equal(c, want_c)


def test_break_in_a_device_while_is_refused():
    def make():
        @T.prim_func
        def main(A: T.Tensor((32,), T.float32)):
            with T.Kernel(1, threads=1) as bx:
                v = T.alloc_var(T.float32, init=1.0)
                while v < 10.0:  # the loop
                    v = v * 2.0
                    if v > 5.0:
                        break
        return main
    with pytest.raises(T.TileLangError) as error:
        make()
    assert "break inside a while loop on a device value" in str(error.value)
    assert "%s:%d:" % (__file__, line_of(make, "# the loop")) in str(error.value)


def test_macro_is_inlined_with_its_control_flow():
    @T.macro
    def clamp_store(B, index, value, bound):
        if value > bound:
            B[index] = bound
        else:
            B[index] = value

    @T.prim_func
    def main(A: T.Tensor((32,), T.float32), B: T.Tensor((32,), T.float32)):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(32):
                clamp_store(B, i, A[i] * 2.0, 1.0)
    a = RNG.standard_normal(32).astype(np.float32)
    np.testing.assert_array_equal(run(main, a, np.empty_like(a)), np.minimum(a * 2, 1))


def test_macro_parameters_annotated_as_on_chip_tiles():
    """TileLang's macros annotate their tile parameters T.SharedBuffer /
    T.FragmentBuffer / T.LocalBuffer (minference's sparse attention): the
    macro gets the caller's tiles; a kernel parameter so annotated is
    refused by name (a kernel's parameters are global tensors)."""
    @T.macro
    def scale_rows(src: T.SharedBuffer([16, 32], T.float32),
                   dst: T.FragmentBuffer([16, 32], T.float32),
                   factor: T.LocalBuffer([1], T.float32)):
        for i, j in T.Parallel(16, 32):
            dst[i, j] = src[i, j] * factor[0]

    @T.prim_func
    def main(A: T.Tensor((16, 32), T.float32), B: T.Tensor((16, 32), T.float32)):
        with T.Kernel(1, threads=64):
            a_s = T.alloc_shared((16, 32), T.float32)
            b_f = T.alloc_fragment((16, 32), T.float32)
            f = T.alloc_local((1,), T.float32)
            f[0] = 3.0
            T.copy(A, a_s)
            scale_rows(a_s, b_f, f)
            T.copy(b_f, B)
    a = RNG.standard_normal((16, 32)).astype(np.float32)
    np.testing.assert_array_equal(run(main, a, np.empty_like(a)), a * 3)

    with pytest.raises(T.TileLangError, match="parameter 'A' of bad is annotated "
                       r"T.SharedBuffer\(\(16,\), 'float32'\): a kernel's parameters are "
                       "global tensors"):
        @T.prim_func
        def bad(A: T.SharedBuffer((16,), T.float32)):
            with T.Kernel(1, threads=16):
                pass


def test_dtype_names_and_cdiv():
    assert T.dtype("float16") == "float16" and T.dtype("float16").bits == 16
    assert T.dtype(T.int8).bits == 8
    assert T.float == "float32"
    with pytest.raises(T.TileLangError, match="unknown dtype 'float12'"):
        T.dtype("float12")
    assert tilelang_mlir.cdiv(10, 4) == 3


def test_engine_callbacks_import_and_refuse_to_register():
    # TileLang's gated delta net examples import
    # tilelang.engine.callback.register_cuda_postproc_callback and never
    # use it: the import works; a registration, whose callback could never
    # run here (no CUDA source), is refused by name, in each decorator form.
    from tilelang_mlir.engine.callback import (register_cuda_postproc_callback,
                                               register_hip_postproc_callback)
    from tilelang_mlir import engine

    def dump(code, target):
        return code

    for form in (lambda: register_cuda_postproc_callback(dump),
                 lambda: register_cuda_postproc_callback()(dump),
                 lambda: register_cuda_postproc_callback(False)(dump),
                 lambda: engine.register_cuda_postproc(dump)):
        with pytest.raises(T.TileLangError,
                           match=r"register_cuda_postproc\(dump\) is not "
                                 r"provided: this compiler generates no CUDA"):
            form()
    with pytest.raises(T.TileLangError, match="no HIP source"):
        register_hip_postproc_callback(dump)
    with pytest.raises(TypeError, match="Invalid decorator usage"):
        register_cuda_postproc_callback("not a function")
    with pytest.raises(ImportError, match="tilelang.engine.lower is TileLang's"):
        engine.lower


def test_tvm_is_refused_by_name():
    # Naming it is fine (TileLang's files import it and never use it);
    # using it says there is no TVM.
    from tilelang_mlir import tvm, tir
    with pytest.raises(ImportError, match="tvm.tir: tilelang_mlir has no TVM"):
        tvm.tir
    with pytest.raises(ImportError, match="tir.PrimFunc: tilelang_mlir has no"):
        tir.PrimFunc
    with pytest.raises(AttributeError):
        tvm.__wrapped__
    assert not hasattr(tir, "__deepcopy__")
    # Code that probes every module for a module's name (pickle's
    # whichmodule, which torch.compile's graph hashing reaches) reads it as
    # absent; a program that uses a TVM name still gets the ImportError.
    import pickle
    assert not hasattr(tvm, "numpy")
    assert pickle.whichmodule(np, "numpy").startswith("numpy")


def test_jit_call_options(capsys):
    kernel = tilelang_mlir.compile(branches(64, 0.0), target="cpu",
                                   execution_backend="cython", verbose=True)
    assert kernel.target == "cpu"
    assert "tilelang_mlir: main for cpu: tile-to-cpu" in capsys.readouterr().out
    with pytest.raises(ValueError, match="execution_backend is one of"):
        tilelang_mlir.compile(branches(64, 0.0), execution_backend="jax")
    with pytest.raises(TypeError, match="verbose is True or False"):
        tilelang_mlir.jit(verbose="yes")
    with pytest.raises(ValueError, match="backend is 'event' or 'cupti'"):
        tilelang_mlir.do_bench(lambda: None, backend="cudagraph")


def test_floor_and_trunc_division_of_signed_values():
    # Device integers of both signs, divisors of both signs: each function
    # against Python's (floor) and C's (trunc) definitions.
    @T.prim_func
    def main(A: T.Tensor((64,), T.int32), D: T.Tensor((64,), T.int32),
             Q: T.Tensor((4, 64), T.int32)):
        with T.Kernel(1, threads=64) as bx:
            for i in T.Parallel(64):
                a, d = A[i], D[i]
                Q[0, i] = T.floordiv(a, d)
                Q[1, i] = T.floormod(a, d)
                Q[2, i] = T.truncdiv(a, d)
                Q[3, i] = T.truncmod(a, d)

    a = RNG.integers(-1000, 1000, 64).astype(np.int32)
    d = RNG.integers(1, 17, 64).astype(np.int32) * RNG.choice([-1, 1], 64).astype(np.int32)
    q = run(main, a, d, np.zeros((4, 64), np.int32))
    np.testing.assert_array_equal(q[0], a // d)
    np.testing.assert_array_equal(q[1], a % d)
    trunc = np.array([int(x / y) for x, y in zip(a.tolist(), d.tolist())], np.int32)
    np.testing.assert_array_equal(q[2], trunc)
    np.testing.assert_array_equal(q[3], a - trunc * d)
    assert T.floordiv(-7, 2) == -4 and T.floormod(-7, 2) == 1
    assert T.truncdiv(-7, 2) == -3 and T.truncmod(-7, 2) == -1


def test_hints_accepted_and_misuse_refused():
    @T.prim_func
    def main(A: T.Tensor((32,), T.float32), B: T.Tensor((32,), T.float32)):
        T.func_attr({"tir.noalias": True, "global_symbol": "main"})
        with T.Kernel(1, threads=32) as bx:
            T.assume(bx == 0)
            for i in T.Parallel(32):
                B[i] = A[i] * 2.0
            T.sync_threads()

    a = RNG.standard_normal(32).astype(np.float32)
    np.testing.assert_array_equal(run(main, a, np.empty_like(a)), a * 2)

    def attr(key):
        @T.prim_func
        def bad(A: T.Tensor((32,), T.float32)):
            T.func_attr({key: 1})
            with T.Kernel(1, threads=32):
                T.fill(A, 0.0)
        return bad

    with pytest.raises(T.TileLangError, match="'target' is a TVM function attribute"):
        attr("target")

    with pytest.raises(T.TileLangError, match=r"test_control_flow.py:\d+: T.sync_threads"):
        @T.prim_func
        def partial_warp(A: T.Tensor((32,), T.float32)):
            with T.Kernel(1, threads=32):
                T.sync_threads(3, 16)

    # A named barrier of more threads than the block has (the compile
    # checks its count against the threads that run it).
    @T.prim_func
    def named(A: T.Tensor((32,), T.float32)):
        with T.Kernel(1, threads=32):
            T.sync_threads(3, 128)
    with pytest.raises(tilelang_mlir.TileError, match="synchronizes 128 threads, but "
                       "the block has 32"):
        tilelang_mlir.compile(named, target="cuda -arch=sm_90a").get_kernel_source("ptx")


def test_parallel_over_run_time_extents():
    # TileLang's T.Parallel(n) with n known at run time: every iteration
    # once (chunks of the block's threads; the last chunk partly idle),
    # including empty ranges and two dynamic dimensions.
    @T.prim_func
    def main(A: T.Tensor((40, 24), T.float32), B: T.Tensor((40, 24), T.float32),
             rows: T.int32, cols: T.int32):
        with T.Kernel(1, threads=64):
            for i, j in T.Parallel(40, 24):
                B[i, j] = -1.0
            for i, j in T.parallel(T.min(rows, 40), cols):
                B[i, j] = A[i, j] * 2.0

    kernel = tilelang_mlir.compile(main, target="cpu")
    A = np.random.default_rng().standard_normal((40, 24)).astype(np.float32)
    for rows, cols in ((0, 5), (3, 24), (40, 7), (77, 24), (13, 0)):
        B = np.full((40, 24), np.nan, np.float32)
        kernel(A, B, rows, cols)
        want = np.full((40, 24), -1.0, np.float32)
        r = min(rows, 40)
        want[:r, :cols] = A[:r, :cols] * 2
        np.testing.assert_array_equal(B, want)
    assert "tile.parallel" in tilelang_mlir.compile(main, target="sm_90a").get_kernel_source("tile")
    with pytest.raises(T.TileLangError, match="extent 0 must be an integer"):
        @T.prim_func
        def bad(A: T.Tensor((4,), T.float32), x: T.float32):
            with T.Kernel(1, threads=32):
                for i in T.Parallel(x):
                    A[i] = 0.0


@pytest.mark.parametrize("kind", ["any", "all"])
def test_any_of_all_of_guard_block_sparse_gemm(kind):
    # TileLang's block-sparse GEMM: a K block is multiplied when any (all)
    # of its mask entries are set; the condition is traced as a loop over
    # the slice on each thread.
    M = N = K = 64
    bM = bN = 32
    bK = 16

    @T.prim_func
    def main(A: T.Tensor((M, K), T.float16), B: T.Tensor((K, N), T.float16),
             Mask: T.Tensor((M // bM, N // bN, K // bK, 3), T.bool),
             C: T.Tensor((M, N), T.float32)):
        with T.Kernel(N // bN, M // bM, threads=64) as (bx, by):
            a = T.alloc_shared((bM, bK), T.float16)
            b = T.alloc_shared((bK, bN), T.float16)
            c = T.alloc_fragment((bM, bN), T.float32)
            T.clear(c)
            for k in T.Pipelined(K // bK, num_stages=2):
                fold = T.any_of if kind == "any" else T.all_of
                if fold(Mask[by, bx, k, :]):
                    T.copy(A[by * bM, k * bK], a)
                    T.copy(B[k * bK, bx * bN], b)
                    T.gemm(a, b, c)
            T.copy(c, C[by * bM, bx * bN])

    rng = np.random.default_rng()
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    mask = rng.random((M // bM, N // bN, K // bK, 3)) < 0.5
    C = tilelang_mlir.compile(main, out_idx=[3], target="cpu")(A, B, mask)
    want = np.zeros((M, N), np.float32)
    for i in range(M // bM):
        for j in range(N // bN):
            for k in range(K // bK):
                bits = mask[i, j, k]
                if bits.any() if kind == "any" else bits.all():
                    want[i*bM:(i+1)*bM, j*bN:(j+1)*bN] += (
                        A[i*bM:(i+1)*bM, k*bK:(k+1)*bK].astype(np.float32)
                        @ B[k*bK:(k+1)*bK, j*bN:(j+1)*bN].astype(np.float32))
    np.testing.assert_allclose(C, want, rtol=1e-3, atol=1e-3)


def test_break_and_continue_in_kernel_loops():
    # break/continue under device conditions in T.serial (an scf.for traced
    # once: flags in per-thread variables), a nested loop's break leaving
    # only that loop, and a Python loop's own break.
    @T.prim_func
    def main(A: T.Tensor((16,), T.int32), B: T.Tensor((4,), T.int32)):
        with T.Kernel(1, threads=1):
            total = T.alloc_var(T.int32, 0)
            for i in T.serial(16):
                if A[i] < 0:
                    break
                if A[i] == 0:
                    continue
                total += A[i]
            B[0] = total
            pairs = T.alloc_var(T.int32, 0)
            for i in T.serial(4):
                for j in T.serial(4):
                    if j > i:
                        break
                    pairs += 1
            B[1] = pairs
            count = T.alloc_var(T.int32, 0)
            for i in range(16):
                if i == 5:
                    break
                count += 1
            B[2] = count
            last = T.alloc_var(T.int32, -1)
            for i in T.serial(16):
                last = i
                if A[i] > 6:
                    break
            B[3] = last

    rng = np.random.default_rng()
    for _ in range(5):
        a = rng.integers(-3, 9, 16).astype(np.int32)
        b = run(main, a, np.zeros(4, np.int32))
        total = 0
        for x in a:
            if x < 0:
                break
            if x == 0:
                continue
            total += x
        big = np.flatnonzero(a > 6)
        expected = [total, 10, 5, big[0] if len(big) else 15]
        np.testing.assert_array_equal(b, expected)


def test_bitwise_not_and_names_rebound_after_a_branch():
    @T.prim_func
    def main(A: T.Tensor((8,), T.int32), U: T.Tensor((8,), T.uint8),
             B: T.Tensor((8,), T.int32), V: T.Tensor((8,), T.uint8)):
        with T.Kernel(1, threads=1):
            for i in T.serial(8):
                offset = 0
                if A[i] > 0:
                    offset = 1  # read nowhere else: rebound below first
                    B[i] = ~A[i] + offset
                offset = 2
                if A[i] <= 0:
                    B[i] = ~A[i] * offset
                V[i] = ~U[i]

    a = np.arange(-4, 4, dtype=np.int32)
    u = np.arange(0, 256, 32, dtype=np.uint8)
    b = np.zeros(8, np.int32)
    v = np.zeros(8, np.uint8)
    tilelang_mlir.compile(main, target="cpu")(a, u, b, v)
    np.testing.assert_array_equal(b, np.where(a > 0, ~a + 1, ~a * 2))
    np.testing.assert_array_equal(v, ~u)


def _mask(i, j, block, diagonal):
    # A helper the front end does not rewrite (TileLang's examples build
    # masks this way): == and != of device values, and of a device value
    # with a Python number, are device comparisons.
    same_block = T.if_then_else(i // block == j // block, 1, 0)
    below = T.if_then_else(i // block != j // block, T.if_then_else(i > j, 1, 0), 0)
    return T.if_then_else(diagonal == 1, same_block, below)


def test_equality_in_helper_functions_compares_on_the_device():
    # Before, Expr had no __eq__: `diagonal == 1` was Python's identity test
    # (False), so T.if_then_else silently took its else branch (TileLang's
    # block-causal attention example masked the wrong keys).
    n, block = 32, 4

    @T.prim_func
    def main(D: T.Tensor((n,), T.int32), B: T.Tensor((n, n), T.float32)):
        with T.Kernel(1, threads=32):
            for i, j in T.Parallel(n, n):
                B[i, j] = T.cast(_mask(i, j, block, D[i]), T.float32)

    d = RNG.integers(0, 2, n).astype(np.int32)
    out = run(main, d, np.zeros((n, n), np.float32))
    want = np.zeros((n, n), np.float32)
    for i in range(n):
        for j in range(n):
            if d[i] == 1:
                want[i, j] = i // block == j // block
            else:
                want[i, j] = i // block != j // block and i > j
    np.testing.assert_array_equal(out, want)


def test_equality_of_device_values_as_python_truth_is_identity():
    # Containers of traced values keep working: `x in [...]` and == as a
    # Python truth value say whether both sides are the same value.
    seen = {}

    @T.prim_func
    def main(A: T.Tensor((4,), T.float32)):
        with T.Kernel(1, threads=4) as bx:
            values = [bx, bx + 1]
            seen["in"] = values[1] in values
            seen["same"] = bool(values[0] == values[0])
            seen["other"] = bool(values[0] == values[1])
            seen["ne"] = bool(values[0] != values[1])
            A[0] = 1.0

    tilelang_mlir.compile(main, target="cpu")
    assert seen == {"in": True, "same": True, "other": False, "ne": True}


def _pick(v, a, b):
    # A helper comparing a T.alloc_var with == and != (not rewritten).
    return T.if_then_else(v == 1, a, T.if_then_else(v != 2, b, a + b))


def test_equality_of_alloc_vars_in_helpers_compares_on_the_device():
    n = 32

    @T.prim_func
    def main(D: T.Tensor((n,), T.int32), A: T.Tensor((n,), T.float32),
             B: T.Tensor((n,), T.float32)):
        with T.Kernel(1, threads=32):
            v = T.alloc_var(T.int32)
            for i in T.serial(n):
                v = D[i]
                B[i] = _pick(v, A[i], 10.0)

    d = RNG.integers(0, 4, n).astype(np.int32)
    a = RNG.standard_normal(n).astype(np.float32)
    out = run(main, d, a, np.zeros(n, np.float32))
    want = np.where(d == 1, a, np.where(d != 2, 10.0, a + 10.0)).astype(np.float32)
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_slices_with_int32_bounds_have_known_extents():
    """`K[k:k + 16]` with k an int32 read from an index table (TileLang's
    sparse attention): the extent is 16 whatever the bounds' type."""
    @T.prim_func
    def main(K: T.Tensor((64, 8), T.float32), Offsets: T.Tensor((4,), T.int32),
             Out: T.Tensor((4, 16, 8), T.float32)):
        with T.Kernel(4, threads=32) as b:
            k = Offsets[b]
            tile = T.alloc_shared((16, 8), T.float32)
            T.copy(K[k:k + 16, :], tile)
            T.copy(tile, Out[b, :, :])
    k = RNG.standard_normal((64, 8)).astype(np.float32)
    offsets = np.array([0, 48, 7, 31], np.int32)
    out = np.full((4, 16, 8), np.nan, np.float32)
    tilelang_mlir.compile(main, target="cpu")(k, offsets, out)
    np.testing.assert_array_equal(out, np.stack([k[o:o + 16] for o in offsets]))


def test_parallel_prefer_async_and_cp_async_groups_are_accepted():
    """TileLang's hints for gathers into shared memory
    (`T.Parallel(..., prefer_async=True)`, `T.ptx_commit_group()`,
    `T.ptx_wait_group(n)`): accepted; the loop has completed when the next
    op reads its tile."""
    @T.prim_func
    def main(A: T.Tensor((64, 16), T.float32), Rows: T.Tensor((8,), T.int32),
             B: T.Tensor((8, 16), T.float32)):
        with T.Kernel(1, threads=32):
            s = T.alloc_shared((8, 16), T.float32)
            for i, j in T.Parallel(8, 16, prefer_async=True,
                                   annotations={"parallel_async_without_async_commit_wait": True}):
                s[i, j] = A[Rows[i], j]
            T.ptx_commit_group()
            T.ptx_wait_group(0)
            T.copy(s, B)
    a = RNG.standard_normal((64, 16)).astype(np.float32)
    rows = RNG.integers(0, 64, 8).astype(np.int32)
    np.testing.assert_array_equal(run(main, a, rows, np.empty((8, 16), np.float32)), a[rows])
    with pytest.raises(T.TileLangError, match="prefer_async is a bool"):
        @T.prim_func
        def bad(A: T.Tensor((8,), T.float32)):
            with T.Kernel(1, threads=8):
                for i in T.Parallel(8, prefer_async=1):
                    A[i] = 0.0


def _uniform_branch_in_a_range():
    @T.prim_func
    def main(A: T.Tensor((64,), T.float32), N: T.Tensor((1,), T.int32),
             B: T.Tensor((64,), T.float32)):
        with T.Kernel(1, threads=256):
            n = T.alloc_var(T.int32)
            n = N[0]
            s = T.alloc_shared((64,), T.float32)
            tid = T.get_thread_binding()
            if tid < 128:
                if n != 0:
                    for i in T.Parallel(64):
                        s[i] = A[i] * 2.0
                    T.copy(s, B)
    return main


def test_uniform_branch_inside_a_thread_range_compiles():
    """`if tid < 128: if n != 0: ...` (TileLang's minference): the inner
    branch is on a value every thread computes alike, so the tile ops in it
    run on the range's threads, synchronized by the range's named barrier
    (never the block's, which the other threads would not reach)."""
    import re
    ptx = tilelang_mlir.compile(_uniform_branch_in_a_range(),
                                target="sm_90a").get_kernel_source("ptx")
    barriers = re.findall(r"bar\.sync\s+(\d+)(?:,\s*(\d+))?;", ptx)
    assert barriers and all(b == ("1", "128") for b in barriers), barriers


def test_uniform_branch_inside_a_thread_range_on_the_gpu(cuda_torch):
    torch = cuda_torch
    kernel = tilelang_mlir.compile(_uniform_branch_in_a_range(),
                                   target="cuda -arch=sm_90a")
    a = torch.randn(64, device="cuda")
    for n in (0, 5):
        b = torch.full((64,), float("nan"), device="cuda")
        kernel(a, torch.tensor([n], dtype=torch.int32, device="cuda"), b)
        if n:
            torch.testing.assert_close(b, a * 2, rtol=0, atol=0)
        else:
            assert torch.isnan(b).all()
