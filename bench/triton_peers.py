"""The Triton peers of bench/experiments.py (imported on the GPU machine
only, where triton is): a GEMM, C = A B with f32 accumulation, any strides
(B transposed through its strides), blocks in groups of GROUP block rows as
cuBLAS and our kernels raster them (autotuned over four configurations, or
one configuration for the cold-compile experiment); `increment`, one
element's kernel that builds Triton's launcher before a compile is timed;
`add_one`, torch's x.add_(1) on one block, for the launch overhead."""
import triton
import triton.language as tl

CONFIGS = [  # (BM, BN, BK, stages, warps)
    (128, 256, 64, 3, 8), (128, 256, 64, 4, 8),
    (256, 128, 64, 3, 8), (128, 128, 64, 4, 4)]


@triton.jit
def gemm(a, b, c, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
         BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
         GROUP: tl.constexpr):
    pid = tl.program_id(0)
    rows = tl.cdiv(M, BM)
    cols = tl.cdiv(N, BN)
    first = pid // (GROUP * cols) * GROUP
    height = min(rows - first, GROUP)
    row = first + (pid % (GROUP * cols)) % height
    col = (pid % (GROUP * cols)) // height
    offs_m = row * BM + tl.arange(0, BM)
    offs_n = col * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptr = a + (offs_m[:, None] % M) * s_am + offs_k[None, :] * s_ak
    b_ptr = b + offs_k[:, None] * s_bk + (offs_n[None, :] % N) * s_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a_tile = tl.load(a_ptr, mask=offs_k[None, :] < K - k0, other=0.0)
        b_tile = tl.load(b_ptr, mask=offs_k[:, None] < K - k0, other=0.0)
        acc = tl.dot(a_tile, b_tile, acc)
        a_ptr += BK * s_ak
        b_ptr += BK * s_bk
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c + offs_m[:, None] * s_cm + offs_n[None, :] * s_cn,
             acc.to(c.dtype.element_ty), mask=mask)


tuned = triton.autotune(
    configs=[triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP": 8},
                           num_stages=stages, num_warps=warps)
             for bm, bn, bk, stages, warps in CONFIGS],
    key=["M", "N", "K"])(gemm)


@triton.jit
def increment(x):
    tl.store(x, tl.load(x) + 1)


@triton.jit
def add_one(x, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x + offs, tl.load(x + offs, mask=mask) + 1, mask=mask)


def launch(kernel, a, b, c, **config):
    (M, K), N = a.shape, c.shape[1]
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) *  # noqa: E731
                         triton.cdiv(N, meta["BN"]),)
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                 b.stride(1), c.stride(0), c.stride(1), **config)
