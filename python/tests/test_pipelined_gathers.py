"""Gathers in a T.Pipelined loop: a T.Parallel that copies rows of a global
tensor chosen by an index table into a shared tile (DeepSeek's sparse MLA:
``KV_shared[i, d] = KV[b, Indices[b, s, k * BI + i], d]``) is staged by the
pipeline like a T.copy: its tile gets one buffer per stage, the gathers of
later iterations are issued ahead (on sm_80 and newer as cp.async groups)
and each iteration waits for its own. The result is the loop's, whatever
the stage count: numerics against numpy (exact: small integers), with
indices that repeat and run backwards, trip counts that are not a multiple
of the stages, rows of 16 and 8 bytes, and a tensor whose base address is
misaligned (the plain stores path)."""

import re

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def _gather_gemm_program(M, N, D, topk, BI, stages, dtype, threads=128):
    """C = A @ KV[Idx]: each k tile gathers BI rows of KV by index into a
    shared tile and multiplies the matching columns of A by it."""

    @T.prim_func
    def main(A: T.Tensor((M, topk), dtype), KV: T.Tensor((N, D), dtype),
             Idx: T.Tensor((topk,), T.int32), C: T.Tensor((M, D), T.float32)):
        with T.Kernel(1, threads=threads):
            A_s = T.alloc_shared((M, BI), dtype)
            KV_s = T.alloc_shared((BI, D), dtype)
            acc = T.alloc_fragment((M, D), T.float32)
            T.clear(acc)
            for k in T.Pipelined(topk // BI, num_stages=stages):
                T.copy(A[0, k * BI], A_s)
                for i, d in T.Parallel(BI, D):
                    KV_s[i, d] = KV[Idx[k * BI + i], d]
                T.gemm(A_s, KV_s, acc)
            T.copy(acc, C)

    return main


def _gather_sum_program(N, D, topk, BI, stages, dtype, threads=128):
    """S[i, :] = sum over k of KV[Idx[k * BI + i], :]: the gathered tile
    read by a T.Parallel (any row width)."""

    @T.prim_func
    def main(KV: T.Tensor((N, D), dtype), Idx: T.Tensor((topk,), T.int32),
             S: T.Tensor((BI, D), T.float32)):
        with T.Kernel(1, threads=threads):
            KV_s = T.alloc_shared((BI, D), dtype)
            acc = T.alloc_fragment((BI, D), T.float32)
            T.clear(acc)
            for k in T.Pipelined(topk // BI, num_stages=stages):
                for i, d in T.Parallel(BI, D):
                    KV_s[i, d] = KV[Idx[k * BI + i], d]
                for i, d in T.Parallel(BI, D):
                    acc[i, d] += KV_s[i, d]
            T.copy(acc, S)

    return main


def _random(shape):
    return RNG.integers(-3, 4, shape).astype(np.float32)


def _indices(N, topk):
    # Repeats and backwards runs: every row may be gathered more than once.
    idx = RNG.integers(0, N, topk).astype(np.int32)
    idx[: topk // 4] = np.arange(topk // 4)[::-1] % N
    return idx


CASES = [
    # M, N, D, topk, BI
    (64, 512, 64, 320, 32),   # 10 k tiles: not a multiple of 3 or 4 stages
    (64, 200, 128, 256, 64),
]
SUM_CASES = [
    # N, D, topk, BI, dtype
    (100, 36, 96, 32, "float16"),   # rows of 72 bytes: 8-byte vectors
    (100, 18, 160, 32, "float16"),  # 36 bytes: 4-byte vectors
    (300, 36, 224, 32, "float32"),  # 16-byte vectors of f32
    (64, 7, 64, 16, "float16"),     # 14 bytes: no vectors (plain stores)
]


def _sum_reference(kv, idx, BI):
    return kv[idx].reshape(-1, BI, kv.shape[1]).sum(axis=0)


@pytest.mark.parametrize("M,N,D,topk,BI", CASES)
@pytest.mark.parametrize("stages", [1, 3])
def test_gather_gemm_on_the_cpu(M, N, D, topk, BI, stages):
    main = _gather_gemm_program(M, N, D, topk, BI, stages, "float16")
    a, kv, idx = _random((M, topk)), _random((N, D)), _indices(N, topk)
    c = np.full((M, D), np.nan, np.float32)
    tilelang.compile(main, target="cpu")(a.astype(np.float16),
                                          kv.astype(np.float16), idx, c)
    np.testing.assert_array_equal(c, a @ kv[idx])


@pytest.mark.parametrize("N,D,topk,BI,dtype", SUM_CASES)
def test_gather_sum_on_the_cpu(N, D, topk, BI, dtype):
    main = _gather_sum_program(N, D, topk, BI, 2, dtype)
    kv, idx = _random((N, D)), _indices(N, topk)
    s = np.full((BI, D), np.nan, np.float32)
    tilelang.compile(main, target="cpu")(kv.astype(dtype), idx, s)
    np.testing.assert_array_equal(s, _sum_reference(kv, idx, BI))


@pytest.mark.parametrize("stages", [2, 3])
def test_gathers_are_staged_as_cp_async(stages):
    """The gather is one of the pipeline's copies: stage buffers, an
    asynchronous tile.parallel, and 16-byte cp.async transfers in the
    sm_90a assembly."""
    kernel = tilelang.compile(
        _gather_gemm_program(64, 512, 64, 320, 32, stages, "float16"),
        target="sm_90a")
    pipelined = kernel.get_kernel_source("pipelined")
    # (A loop of three stages whose gemm stays in flight gets a fourth
    # buffer.)
    buffers = re.search(r"tile\.alloc_shared .*: memref<(\d+)x32x64xf16",
                        pipelined)
    assert buffers and int(buffers.group(1)) in (stages, stages + 1)
    assert "tile.parallel" in pipelined and "attributes {async}" in pipelined
    ptx = kernel.get_kernel_source("ptx")
    assert re.search(r"cp\.async\.cg\.shared\.global \[[^]]+\], \[[^]]+\], 16;",
                     ptx)
    assert "cp.async.wait_group" in ptx


def _misaligned(torch, array, dtype):
    """A contiguous device tensor of `array` whose base address is 2 bytes
    past a 16-byte boundary."""
    flat = torch.empty(array.size + 8, dtype=getattr(torch, dtype),
                       device="cuda")
    view = flat[1:1 + array.size].view(array.shape)
    view.copy_(torch.from_numpy(array).to(getattr(torch, dtype)))
    assert view.data_ptr() % 16 == 2
    return view


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("M,N,D,topk,BI", CASES)
@pytest.mark.parametrize("stages", [1, 2, 3, 4])
def test_gather_gemm_on_the_gpu(cuda_torch, M, N, D, topk, BI, stages, dtype):
    torch = cuda_torch
    kernel = tilelang.compile(
        _gather_gemm_program(M, N, D, topk, BI, stages, dtype),
        target="cuda -arch=sm_90a")
    a, kv, idx = _random((M, topk)), _random((N, D)), _indices(N, topk)
    want = a @ kv[idx]
    to = getattr(torch, dtype)
    args = (torch.from_numpy(a).to(to).cuda(),
            torch.from_numpy(kv).to(to).cuda(),
            torch.from_numpy(idx).cuda())
    c = torch.full((M, D), float("nan"), device="cuda")
    kernel(*args, c)
    np.testing.assert_array_equal(c.cpu().numpy(), want)
    # The same kernel on a misaligned KV: the plain stores path.
    c.fill_(float("nan"))
    kernel(args[0], _misaligned(torch, kv, dtype), args[2], c)
    np.testing.assert_array_equal(c.cpu().numpy(), want)


@pytest.mark.parametrize("N,D,topk,BI,dtype", SUM_CASES)
@pytest.mark.parametrize("stages", [2, 3])
def test_gather_sum_on_the_gpu(cuda_torch, N, D, topk, BI, dtype, stages):
    torch = cuda_torch
    kernel = tilelang.compile(_gather_sum_program(N, D, topk, BI, stages, dtype),
                              target="cuda -arch=sm_90a")
    kv, idx = _random((N, D)), _indices(N, topk)
    s = torch.full((BI, D), float("nan"), device="cuda")
    kernel(torch.from_numpy(kv).to(getattr(torch, dtype)).cuda(),
           torch.from_numpy(idx).cuda(), s)
    np.testing.assert_array_equal(s.cpu().numpy(), _sum_reference(kv, idx, BI))
