"""An accumulator read at shifted rows: TileLang's split store (DeepSeek's
sparse MLA backward stores its dKV accumulator half by half,
``for s in range(2): if i < BS // 2: half[i, d] = acc[i + s * BS // 2, d]``,
then adds each half into global rows chosen by an index table). The loop
over the halves is unrolled and each half's T.Parallel runs over the
accumulator's own elements, so the accumulator stays in registers on the
GPU (it used to move to shared memory, where the sparse MLA backward
kernel did not fit). Numerics against numpy (exact: small integers), with
indices that repeat; the register decision from the lowered IR."""

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def _split_store_program(BS, D, H, split, threads, dtype, guarded=True):
    """acc = A^T B (BS x D); Plain = acc, half by half through a shared
    tile; Out[Idx[r], :] += acc[r, :]. With `guarded`, each half's loop
    runs over all BS rows under `if i < BS // split` (TileLang's form);
    otherwise over the half's rows only."""
    rows = BS // split

    @T.prim_func
    def main(A: T.Tensor((H, BS), dtype), B: T.Tensor((H, D), dtype),
             Idx: T.Tensor((BS,), T.int32), Plain: T.Tensor((BS, D), T.float32),
             Out: T.Tensor((BS, D), T.float32)):
        with T.Kernel(1, threads=threads):
            a_s = T.alloc_shared((H, BS), dtype)
            b_s = T.alloc_shared((H, D), dtype)
            acc = T.alloc_fragment((BS, D), T.float32)
            half = T.alloc_shared((rows, D), T.float32)
            T.copy(A, a_s)
            T.copy(B, b_s)
            T.gemm(a_s, b_s, acc, transpose_A=True, clear_accum=True,
                   policy=T.GemmWarpPolicy.FullCol)
            for s in range(split):
                if guarded:
                    for i, d in T.Parallel(BS, D):
                        if i < rows:
                            half[i, d] = acc[i + s * rows, d]
                else:
                    for i, d in T.Parallel(rows, D):
                        half[i, d] = acc[i + s * rows, d]
                T.copy(half, Plain[s * rows, 0])
                for i, d in T.Parallel(rows, D):
                    T.atomic_add(Out[Idx[i + s * rows], d], half[i, d])

    return main


def _inputs(BS, D, H):
    a = RNG.integers(-3, 4, (H, BS)).astype(np.float32)
    b = RNG.integers(-3, 4, (H, D)).astype(np.float32)
    idx = RNG.integers(0, BS, BS).astype(np.int32)  # rows repeat
    return a, b, idx


def _reference(a, b, idx):
    acc = a.T @ b
    out = np.zeros_like(acc)
    np.add.at(out, idx, acc)
    return acc, out


CASES = [  # BS, D, H, split, threads
    (32, 64, 16, 2, 128),
    (32, 128, 32, 2, 256),
    (64, 64, 16, 4, 128),
    (64, 128, 64, 2, 256),
]


def _check_on_the_cpu(program, BS, D, H):
    kernel = tilelang.compile(program, target="cpu")
    a, b, idx = _inputs(BS, D, H)
    plain = np.full((BS, D), np.nan, np.float32)
    out = np.zeros((BS, D), np.float32)
    kernel(a.astype(np.float16), b.astype(np.float16), idx, plain, out)
    want_plain, want_out = _reference(a, b, idx)
    np.testing.assert_array_equal(plain, want_plain)
    np.testing.assert_array_equal(out, want_out)


@pytest.mark.parametrize("guarded", [True, False])
@pytest.mark.parametrize("BS,D,H,split,threads", CASES)
def test_split_store_on_the_cpu(BS, D, H, split, threads, guarded):
    _check_on_the_cpu(
        _split_store_program(BS, D, H, split, threads, T.float16, guarded),
        BS, D, H)


@pytest.mark.parametrize("guarded", [True, False])
@pytest.mark.parametrize("BS,D,H,split,threads", CASES)
def test_the_accumulator_stays_in_registers(BS, D, H, split, threads, guarded):
    kernel = tilelang.compile(
        _split_store_program(BS, D, H, split, threads, T.float16, guarded),
        target="cuda -arch=sm_90a")
    loops = kernel.get_kernel_source("loops")
    # The shared half is there; the accumulator is not.
    assert "memref<%dx%dxf32, #gpu.address_space<workgroup>>" % (BS // split, D) in loops
    assert "memref<%dx%dxf32, #gpu.address_space<workgroup>>" % (BS, D) not in loops
    assert ".entry" in kernel.get_kernel_source("ptx")


def test_a_loop_of_many_halves_keeps_the_accumulator_in_memory():
    """Nine stores of 8 rows each (BS = 72): a loop of more than 8
    iterations is not unrolled, so the rows each read hits are not known
    at compile time; the accumulator lives in shared memory, and the
    results are the same (CPU)."""
    BS, D, H, split = 72, 64, 16, 9
    program = _split_store_program(BS, D, H, split, 128, T.float16)
    loops = tilelang.compile(program, target="cuda -arch=sm_90a") \
        .get_kernel_source("loops")
    assert "memref<%dx%dxf32, #gpu.address_space<workgroup>>" % (BS, D) in loops
    _check_on_the_cpu(program, BS, D, H)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("guarded", [True, False])
@pytest.mark.parametrize("BS,D,H,split,threads", CASES)
def test_split_store_on_the_gpu(cuda_torch, BS, D, H, split, threads, guarded,
                                dtype):
    torch = cuda_torch
    kernel = tilelang.compile(
        _split_store_program(BS, D, H, split, threads, dtype, guarded),
        target="cuda -arch=sm_90a")
    a, b, idx = _inputs(BS, D, H)
    to = getattr(torch, dtype)
    plain = torch.full((BS, D), float("nan"), device="cuda")
    out = torch.zeros((BS, D), device="cuda")
    kernel(torch.from_numpy(a).to(to).cuda(), torch.from_numpy(b).to(to).cuda(),
           torch.from_numpy(idx).cuda(), plain, out)
    want_plain, want_out = _reference(a, b, idx)
    np.testing.assert_array_equal(plain.cpu().numpy(), want_plain)
    np.testing.assert_array_equal(out.cpu().numpy(), want_out)
