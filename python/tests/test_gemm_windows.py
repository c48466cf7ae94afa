"""Gemms on windows of a wider shared tile: TileLang's ``Q_shared[:, :D]``
and ``Q_shared[:, D:]`` (DeepSeek's MLA query and its rotary part in one
64 x 576 tile), ``KV_shared[stage, :, :D // 2]`` (half of a hand-buffered
stage as an MN-major B). The tile takes the swizzle of its whole rows; on
sm_90a a window of whole column panels is a wgmma operand (its descriptors
start at the panel, in the tile's layout), and ldmatrix reads any other
window through the tile's swizzle. Numerics against numpy on random
inputs (the CPU target, and the GPU where there is one); the sm_90a
assembly runs every gemm of these programs on wgmma."""

import re

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def _split_query_program(H, D, DT, N, threads, dtype):
    """S = Q[:, :D] @ K^T + Q[:, D:] @ KT^T with Q in one H x (D + DT)
    shared tile, as TileLang's sparse MLA kernels write it."""

    @T.prim_func
    def main(Q: T.Tensor((H, D + DT), dtype), K: T.Tensor((N, D), dtype),
             KT: T.Tensor((N, DT), dtype), S: T.Tensor((H, N), T.float32)):
        with T.Kernel(1, threads=threads):
            Q_shared = T.alloc_shared((H, D + DT), dtype)
            K_shared = T.alloc_shared((N, D), dtype)
            KT_shared = T.alloc_shared((N, DT), dtype)
            acc = T.alloc_fragment((H, N), T.float32)
            T.copy(Q, Q_shared)
            T.copy(K, K_shared)
            T.copy(KT, KT_shared)
            T.clear(acc)
            T.gemm(Q_shared[:, :D], K_shared, acc, transpose_B=True)
            T.gemm(Q_shared[:, D:], KT_shared, acc, transpose_B=True)
            T.copy(acc, S)

    return main


def _half_stage_program(H, N, D, stages, stage, dtype):
    """O_left = P @ KV[stage][:, :D/2], O_right = P @ KV[stage][:, D/2:]:
    halves of one stage of a hand-buffered KV tile as MN-major B operands
    (TileLang's sparse_mla_fwd_pipelined)."""

    @T.prim_func
    def main(P: T.Tensor((H, N), dtype), KV: T.Tensor((stages, N, D), dtype),
             O: T.Tensor((H, D), T.float32)):
        with T.Kernel(1, threads=256):
            P_shared = T.alloc_shared((H, N), dtype)
            KV_shared = T.alloc_shared((stages, N, D), dtype)
            left = T.alloc_fragment((H, D // 2), T.float32)
            right = T.alloc_fragment((H, D // 2), T.float32)
            T.copy(P, P_shared)
            for s in T.serial(stages):
                T.copy(KV[s, :, :], KV_shared[s, :, :])
            T.clear(left)
            T.clear(right)
            T.gemm(P_shared, KV_shared[stage, :, :D // 2], left)
            T.gemm(P_shared, KV_shared[stage, :, D // 2:], right)
            T.copy(left, O[:, :D // 2])
            T.copy(right, O[:, D // 2:])

    return main


def _column_window_program(M, N, K, offset, dtype):
    """C = A[:, offset:offset + K] @ B^T: a window of a tile's 128-byte rows
    (not whole rows: ldmatrix reads it through the tile's swizzle)."""

    @T.prim_func
    def main(A: T.Tensor((M, 2 * K), dtype), B: T.Tensor((N, K), dtype),
             C: T.Tensor((M, N), T.float32)):
        with T.Kernel(1, threads=128):
            A_shared = T.alloc_shared((M, 2 * K), dtype)
            B_shared = T.alloc_shared((N, K), dtype)
            acc = T.alloc_fragment((M, N), T.float32)
            T.copy(A, A_shared)
            T.copy(B, B_shared)
            T.clear(acc)
            T.gemm(A_shared[:, offset:offset + K], B_shared, acc, transpose_B=True)
            T.copy(acc, C)

    return main


def _random(shape, dtype):
    # Small integers: the products and sums are exact in f16/bf16 inputs
    # and an f32 accumulator, so any misplaced element shows.
    return RNG.integers(-3, 4, shape).astype(np.float32)


def _as(array, dtype, torch=None):
    if torch is not None:
        return torch.from_numpy(array).to(getattr(torch, dtype)).cuda()
    if dtype == "bfloat16":
        # numpy has no bfloat16: the CPU cases use float16.
        raise AssertionError("CPU cases take float16")
    return array.astype(np.float16)


SPLIT_CASES = [(64, 512, 64, 32, 128), (64, 512, 64, 32, 256),
               (64, 128, 64, 64, 128)]
HALF_CASES = [(64, 32, 512, 2, 1), (64, 64, 256, 1, 0)]
WINDOW_CASES = [(64, 64, 32, 0), (64, 64, 32, 32), (64, 32, 16, 16)]


def _split_reference(q, k, kt, D):
    return q[:, :D] @ k.T + q[:, D:] @ kt.T


def _half_reference(p, kv, stage, D):
    return p @ kv[stage]


@pytest.mark.parametrize("H,D,DT,N,threads", SPLIT_CASES)
def test_split_query_on_the_cpu(H, D, DT, N, threads):
    main = _split_query_program(H, D, DT, N, threads, "float16")
    q, k, kt = _random((H, D + DT), 0), _random((N, D), 0), _random((N, DT), 0)
    s = np.full((H, N), np.nan, np.float32)
    tilelang.compile(main, target="cpu")(_as(q, "float16"), _as(k, "float16"),
                                          _as(kt, "float16"), s)
    np.testing.assert_array_equal(s, _split_reference(q, k, kt, D))


@pytest.mark.parametrize("H,N,D,stages,stage", HALF_CASES)
def test_half_stages_on_the_cpu(H, N, D, stages, stage):
    main = _half_stage_program(H, N, D, stages, stage, "float16")
    p, kv = _random((H, N), 0), _random((stages, N, D), 0)
    o = np.full((H, D), np.nan, np.float32)
    tilelang.compile(main, target="cpu")(_as(p, "float16"), _as(kv, "float16"), o)
    np.testing.assert_array_equal(o, _half_reference(p, kv, stage, D))


def _wgmma_count(main):
    ptx = tilelang.compile(main, target="sm_90a").get_kernel_source("ptx")
    return len(re.findall(r"wgmma\.mma_async", ptx)), len(re.findall(r"mma\.sync", ptx))


@pytest.mark.parametrize("H,D,DT,N,threads", SPLIT_CASES[:2])
def test_split_query_runs_on_wgmma(H, D, DT, N, threads):
    """Both windows of Q (eight panels, and the one after them) are read by
    wgmma: per warpgroup K / 16 instructions of each gemm, no mma.sync."""
    wgmma, mma = _wgmma_count(_split_query_program(H, D, DT, N, threads, "bfloat16"))
    assert mma == 0
    assert wgmma == (D + DT) // 16


def test_half_stages_run_on_wgmma():
    wgmma, mma = _wgmma_count(_half_stage_program(64, 32, 512, 2, 1, "bfloat16"))
    assert mma == 0 and wgmma == 2 * 32 // 16


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("H,D,DT,N,threads", SPLIT_CASES)
def test_split_query_on_the_gpu(cuda_torch, H, D, DT, N, threads, dtype):
    torch = cuda_torch
    main = _split_query_program(H, D, DT, N, threads, dtype)
    kernel = tilelang.compile(main, target="cuda -arch=sm_90a")
    q, k, kt = _random((H, D + DT), 0), _random((N, D), 0), _random((N, DT), 0)
    s = torch.full((H, N), float("nan"), device="cuda")
    kernel(_as(q, dtype, torch), _as(k, dtype, torch), _as(kt, dtype, torch), s)
    np.testing.assert_array_equal(s.cpu().numpy(), _split_reference(q, k, kt, D))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("H,N,D,stages,stage", HALF_CASES)
def test_half_stages_on_the_gpu(cuda_torch, H, N, D, stages, stage, dtype):
    torch = cuda_torch
    main = _half_stage_program(H, N, D, stages, stage, dtype)
    kernel = tilelang.compile(main, target="cuda -arch=sm_90a")
    p, kv = _random((H, N), 0), _random((stages, N, D), 0)
    o = torch.full((H, D), float("nan"), device="cuda")
    kernel(_as(p, dtype, torch), _as(kv, dtype, torch), o)
    np.testing.assert_array_equal(o.cpu().numpy(), _half_reference(p, kv, stage, D))


@pytest.mark.parametrize("M,N,K,offset", WINDOW_CASES)
def test_column_windows_on_the_gpu(cuda_torch, M, N, K, offset):
    torch = cuda_torch
    main = _column_window_program(M, N, K, offset, "float16")
    kernel = tilelang.compile(main, target="cuda -arch=sm_90a")
    a, b = _random((M, 2 * K), 0), _random((N, K), 0)
    c = torch.full((M, N), float("nan"), device="cuda")
    kernel(_as(a, "float16", torch), _as(b, "float16", torch), c)
    np.testing.assert_array_equal(c.cpu().numpy(), a[:, offset:offset + K] @ b.T)


def _async_thirds_program(H, D, DT, N, dtype):
    """TileLang's sparse_mla_fwd_pipelined issue order: three explicit
    asynchronous gemms (T.wgmma_gemm) on windows of one query tile, one
    T.wait_wgmma(0) before the scores are read."""
    half = D // 2

    @T.prim_func
    def main(Q: T.Tensor((H, D + DT), dtype), K: T.Tensor((N, D + DT), dtype),
             S: T.Tensor((H, N), T.float32)):
        with T.Kernel(1, threads=128):
            Q_shared = T.alloc_shared((H, D + DT), dtype)
            K_shared = T.alloc_shared((N, D + DT), dtype)
            acc = T.alloc_fragment((H, N), T.float32)
            T.copy(Q, Q_shared)
            T.copy(K, K_shared)
            T.clear(acc)
            T.wgmma_gemm(Q_shared[:, :half], K_shared[:, :half], acc, transpose_B=True)
            T.wgmma_gemm(Q_shared[:, half:D], K_shared[:, half:D], acc, transpose_B=True)
            T.wgmma_gemm(Q_shared[:, D:], K_shared[:, D:], acc, transpose_B=True)
            T.wait_wgmma(0)
            T.copy(acc, S)

    return main


def test_async_gemms_on_windows_on_the_cpu():
    main = _async_thirds_program(64, 512, 64, 32, "float16")
    q, k = _random((64, 576), 0), _random((32, 576), 0)
    s = np.full((64, 32), np.nan, np.float32)
    tilelang.compile(main, target="cpu")(_as(q, "float16"), _as(k, "float16"), s)
    np.testing.assert_array_equal(s, q @ k.T)


def test_async_gemms_wait_once():
    """Each T.wgmma_gemm commits its group and leaves it in flight: the one
    wgmma.wait_group of the kernel is T.wait_wgmma's."""
    main = _async_thirds_program(64, 512, 64, 32, "bfloat16")
    ptx = tilelang.compile(main, target="sm_90a").get_kernel_source("ptx")
    assert len(re.findall(r"wgmma\.mma_async", ptx)) == 576 // 16
    assert len(re.findall(r"wgmma\.commit_group", ptx)) == 3
    assert len(re.findall(r"wgmma\.wait_group", ptx)) == 1


def test_async_gemms_on_windows_on_the_gpu(cuda_torch):
    torch = cuda_torch
    main = _async_thirds_program(64, 512, 64, 32, "bfloat16")
    kernel = tilelang.compile(main, target="cuda -arch=sm_90a")
    q, k = _random((64, 576), 0), _random((32, 576), 0)
    s = torch.full((64, 32), float("nan"), device="cuda")
    kernel(_as(q, "bfloat16", torch), _as(k, "bfloat16", torch), s)
    np.testing.assert_array_equal(s.cpu().numpy(), q @ k.T)


@pytest.mark.parametrize("threads", [128, 256])
def test_split_query_compiles_for_gfx942(threads):
    """On AMD matrix cores the windows are read through the tile's swizzle
    (its element loads): the kernel compiles to gfx942 machine code with
    matrix-core instructions (not run: no AMD hardware here)."""
    # (A 64 KiB LDS: a 64 x 192 query.)
    main = _split_query_program(64, 128, 64, 64, threads, "float16")
    isa = tilelang.compile(main, target="hip -mcpu=gfx942").get_kernel_source("llvm")
    assert "v_mfma" in isa
