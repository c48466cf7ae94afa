"""Element reads and writes of swizzled shared tiles: a tile that T.copy
and T.gemm use in a swizzle (the user's T.annotate_layout, or the one the
compiler gives a wgmma operand) may also be read and written element by
element (a T.Parallel gather into it, as DeepSeek's sparse MLA and paged
attention write their key tiles); those accesses go to the same swizzled
places. On the CPU against numpy (the CPU lowering applies the swizzles the
GPU's does), and compiled for sm_90a."""

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def swizzled_round_trip(M, N, stages):
    """A tile staged in a swizzled shared buffer of `stages` slices: copied
    in, read element by element (gathered rows), written element by element
    and copied out."""
    @T.prim_func
    def main(A: T.Tensor((M, N), T.float16), Rows: T.Tensor((M,), T.int32),
             B: T.Tensor((M, N), T.float32), C: T.Tensor((M, N), T.float16)):
        with T.Kernel(1, threads=128):
            A_s = T.alloc_shared((stages, M, N), T.float16)
            C_s = T.alloc_shared((M, N), T.float16)
            T.annotate_layout({A_s: T.make_swizzled_layout(A_s),
                               C_s: T.make_swizzled_layout(C_s)})
            T.copy(A, A_s[stages - 1, :, :])
            for i, j in T.Parallel(M, N):
                B[i, j] = A_s[stages - 1, Rows[i], j] * 2.0
            for i, j in T.Parallel(M, N):
                C_s[i, j] = A[Rows[i], j] + 1.0
            T.copy(C_s, C)
    return main


def _cuda_torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return torch


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.parametrize("M, N, stages", [(64, 64, 1), (32, 128, 2)])
def test_element_accesses_of_swizzled_tiles(M, N, stages, device):
    func = swizzled_round_trip(M, N, stages)
    if device == "cpu":
        # The GPU lowering keeps the swizzles (element accesses dropped
        # them); the CPU places tiles row-major whatever their layout.
        gpu = tilelang.compile(func, target="cuda -arch=sm_90a")
        assert gpu.get_kernel_source("layouts").count("#tile.swizzle<") >= 2
        kernel = tilelang.compile(func, target="cpu")
        a = RNG.standard_normal((M, N)).astype(np.float16)
        rows = RNG.permutation(M).astype(np.int32)
        b = np.full((M, N), np.nan, np.float32)
        c = np.full((M, N), np.nan, np.float16)
        kernel(a, rows, b, c)
    else:
        torch = _cuda_torch()
        kernel = tilelang.compile(func, target="cuda")
        a_t = torch.randn(M, N, device="cuda", dtype=torch.float16)
        rows_t = torch.randperm(M, device="cuda", dtype=torch.int32)
        b_t = torch.full((M, N), float("nan"), device="cuda")
        c_t = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
        kernel(a_t, rows_t, b_t, c_t)
        torch.cuda.synchronize()
        a, rows = a_t.cpu().numpy(), rows_t.cpu().numpy()
        b, c = b_t.cpu().numpy(), c_t.cpu().numpy()
    np.testing.assert_array_equal(b, a[rows].astype(np.float32) * 2)
    np.testing.assert_array_equal(c, (a[rows].astype(np.float32) + 1).astype(np.float16))


def gather_gemm(H=64, BI=64, D=128):
    """The sparse-MLA pattern: keys gathered row by row into a shared tile
    that a gemm reads as B."""
    @T.prim_func
    def main(Q: T.Tensor((H, D), T.float16), KV: T.Tensor((1024, D), T.float16),
             Idx: T.Tensor((BI,), T.int32), S: T.Tensor((H, BI), T.float32)):
        with T.Kernel(1, threads=256):
            Q_s = T.alloc_shared((H, D), T.float16)
            K_s = T.alloc_shared((BI, D), T.float16)
            acc = T.alloc_fragment((H, BI), T.float32)
            T.copy(Q, Q_s)
            for i, d in T.Parallel(BI, D):
                K_s[i, d] = KV[Idx[i], d]
            T.clear(acc)
            T.gemm(Q_s, K_s, acc, transpose_B=True)
            T.copy(acc, S)
    return main


def test_gather_into_a_wgmma_operand():
    """The gathered operand keeps its swizzle, so the gemm runs on wgmma
    for sm_90a (it fell to mma.sync with the accumulators in shared
    memory); on the CPU against numpy."""
    main = gather_gemm()
    kernel = tilelang.compile(main, target="cuda -arch=sm_90a")
    assert "wgmma" in kernel.get_kernel_source("selected")
    assert "wgmma.mma_async" in kernel.get_kernel_source("ptx")
    q = RNG.standard_normal((64, 128)).astype(np.float16)
    kv = RNG.standard_normal((1024, 128)).astype(np.float16)
    idx = RNG.choice(1024, 64, replace=False).astype(np.int32)
    expected = q.astype(np.float32) @ kv[idx].astype(np.float32).T
    s = np.full((64, 64), np.nan, np.float32)
    tilelang.compile(main, target="cpu")(q, kv, idx, s)
    np.testing.assert_allclose(s, expected, rtol=2e-3, atol=2e-3)


def test_gather_into_a_wgmma_operand_on_the_gpu():
    torch = _cuda_torch()
    kernel = tilelang.compile(gather_gemm(), target="cuda")
    q = torch.randn(64, 128, device="cuda", dtype=torch.float16)
    kv = torch.randn(1024, 128, device="cuda", dtype=torch.float16)
    idx = torch.randperm(1024, device="cuda", dtype=torch.int32)[:64].contiguous()
    s = torch.full((64, 64), float("nan"), device="cuda")
    kernel(q, kv, idx, s)
    torch.testing.assert_close(s, q.float() @ kv[idx.long()].float().T,
                               rtol=2e-3, atol=2e-3)
