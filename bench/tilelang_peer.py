#!/usr/bin/env python3
"""The same TileLang programs through real TileLang and through this
package, on the GPU, against the vendor libraries: kernel time from the
profiler (timing.kernel_ms: CUPTI, every kernel a call launches), every
side interleaved in one process, median of --rounds rounds; and, with
--caller, what a Python caller sees (timing.bench_ms).

    PYTHONPATH=<this package>:<real TileLang>:python/tests python3 bench/tilelang_peer.py \\
        [--only gemm,attention,...] [--rounds 3] [--json FILE]

Each program is written once here, in TileLang's language, as a function
of the language module `T`; each compiler traces it with its own `T`
(`tilelang_mlir.language` and `tilelang.language`). Every side is first
checked against a torch reference on the timed inputs (outputs compared in
f32, tolerances per program); a side that fails to compile or computes a
wrong result is reported with the reason and not timed. Ratios are
other / ours of the medians: above 1, ours is faster.

Without a GPU, --compile-only traces and compiles our side of every case
for sm_90a (no torch needed): the programs stay compilable in CI's world.
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import import_timing  # noqa: E402

# ---------------------------------------------------------------------------
# Programs, in TileLang's language (T is the language module of the side)
# ---------------------------------------------------------------------------


def gemm(T, M, N, K, BM, BN, BK, threads, stages, dtype="float16",
         trans_b=False, swizzle=0, out_dtype=None):
    """C = A @ B (B [K, N]) or A @ B^T (B [N, K]), f32 accumulation."""
    out_dtype = out_dtype or dtype
    b_shape = (N, K) if trans_b else (K, N)
    b_tile = (BN, BK) if trans_b else (BK, BN)

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor(b_shape, dtype),
             C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, BN), T.ceildiv(M, BM), threads=threads) as (bx, by):
            A_s = T.alloc_shared((BM, BK), dtype)
            B_s = T.alloc_shared(b_tile, dtype)
            C_f = T.alloc_fragment((BM, BN), "float32")
            if swizzle:
                T.use_swizzle(panel_size=swizzle)
            T.clear(C_f)
            for k in T.Pipelined(T.ceildiv(K, BK), num_stages=stages):
                T.copy(A[by * BM, k * BK], A_s)
                if trans_b:
                    T.copy(B[bx * BN, k * BK], B_s)
                else:
                    T.copy(B[k * BK, bx * BN], B_s)
                T.gemm(A_s, B_s, C_f, transpose_B=trans_b)
            T.copy(C_f, C[by * BM, bx * BN])
    return main


def attention(T, B, H, S, D, causal, layout, BM, BN, threads, stages):
    """FlashAttention forward, online softmax in base 2; Q, K, V, O in BHSD
    ([B, H, S, D]) or BSHD ([B, S, H, D]) layout."""
    scale = (1.0 / D) ** 0.5 * 1.44269504
    shape = (B, H, S, D) if layout == "bhsd" else (B, S, H, D)

    def rows(X, b, h, start, n):
        if layout == "bhsd":
            return X[b, h, start:start + n, :]
        return X[b, start:start + n, h, :]

    @T.prim_func
    def main(Q: T.Tensor(shape, "float16"), K: T.Tensor(shape, "float16"),
             V: T.Tensor(shape, "float16"), O: T.Tensor(shape, "float16")):
        with T.Kernel(T.ceildiv(S, BM), H, B, threads=threads) as (bx, by, bz):
            Q_s = T.alloc_shared((BM, D), "float16")
            K_s = T.alloc_shared((BN, D), "float16")
            V_s = T.alloc_shared((BN, D), "float16")
            O_s = T.alloc_shared((BM, D), "float16")
            acc_s = T.alloc_fragment((BM, BN), "float32")
            acc_p = T.alloc_fragment((BM, BN), "float16")
            acc_o = T.alloc_fragment((BM, D), "float32")
            m = T.alloc_fragment((BM,), "float32")
            m_prev = T.alloc_fragment((BM,), "float32")
            corr = T.alloc_fragment((BM,), "float32")
            row_sum = T.alloc_fragment((BM,), "float32")
            l = T.alloc_fragment((BM,), "float32")
            T.copy(rows(Q, bz, by, bx * BM, BM), Q_s)
            T.fill(acc_o, 0)
            T.fill(l, 0)
            T.fill(m, -T.infinity("float32"))
            steps = (T.min(T.ceildiv(S, BN), T.ceildiv((bx + 1) * BM, BN))
                     if causal else T.ceildiv(S, BN))
            for k in T.Pipelined(steps, num_stages=stages):
                T.copy(rows(K, bz, by, k * BN, BN), K_s)
                if causal:
                    for i, j in T.Parallel(BM, BN):
                        acc_s[i, j] = T.if_then_else(bx * BM + i >= k * BN + j, 0,
                                                     -T.infinity("float32"))
                else:
                    T.clear(acc_s)
                T.gemm(Q_s, K_s, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)
                T.copy(m, m_prev)
                T.reduce_max(acc_s, m, dim=1, clear=False)
                for i in T.Parallel(BM):
                    corr[i] = T.exp2(m_prev[i] * scale - m[i] * scale)
                for i, j in T.Parallel(BM, D):
                    acc_o[i, j] *= corr[i]
                for i, j in T.Parallel(BM, BN):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - m[i] * scale)
                T.copy(rows(V, bz, by, k * BN, BN), V_s)
                T.reduce_sum(acc_s, row_sum, dim=1)
                for i in T.Parallel(BM):
                    l[i] = l[i] * corr[i] + row_sum[i]
                T.copy(acc_s, acc_p)
                T.gemm(acc_p, V_s, acc_o, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(BM, D):
                acc_o[i, j] /= l[i]
            T.copy(acc_o, O_s)
            T.copy(O_s, rows(O, bz, by, bx * BM, BM))
    return main


def mla_decode(T, B, H, S, D, PE, BH, BN, threads, stages):
    """MLA decode (one KV head): Q [B, H, D], Q_pe [B, H, PE], KV [B, S, 1, D],
    K_pe [B, S, 1, PE] -> O [B, H, D]; keys are KV | K_pe, values KV."""
    scale = (1.0 / (D + PE)) ** 0.5 * 1.44269504

    @T.prim_func
    def main(Q: T.Tensor((B, H, D), "float16"), Q_pe: T.Tensor((B, H, PE), "float16"),
             KV: T.Tensor((B, S, 1, D), "float16"), K_pe: T.Tensor((B, S, 1, PE), "float16"),
             O: T.Tensor((B, H, D), "float16")):
        with T.Kernel(H // BH, B, threads=threads) as (hx, bid):
            Q_s = T.alloc_shared((BH, D), "float16")
            Qpe_s = T.alloc_shared((BH, PE), "float16")
            KV_s = T.alloc_shared((BN, D), "float16")
            Kpe_s = T.alloc_shared((BN, PE), "float16")
            P_s = T.alloc_shared((BH, BN), "float16")
            O_s = T.alloc_shared((BH, D), "float16")
            acc_s = T.alloc_fragment((BH, BN), "float32")
            acc_o = T.alloc_fragment((BH, D), "float32")
            m = T.alloc_fragment((BH,), "float32")
            m_prev = T.alloc_fragment((BH,), "float32")
            corr = T.alloc_fragment((BH,), "float32")
            row_sum = T.alloc_fragment((BH,), "float32")
            l = T.alloc_fragment((BH,), "float32")
            T.copy(Q[bid, hx * BH:(hx + 1) * BH, :], Q_s)
            T.copy(Q_pe[bid, hx * BH:(hx + 1) * BH, :], Qpe_s)
            T.fill(acc_o, 0)
            T.fill(l, 0)
            T.fill(m, -T.infinity("float32"))
            for k in T.Pipelined(T.ceildiv(S, BN), num_stages=stages):
                T.copy(KV[bid, k * BN:(k + 1) * BN, 0, :], KV_s)
                T.copy(K_pe[bid, k * BN:(k + 1) * BN, 0, :], Kpe_s)
                T.gemm(Q_s, KV_s, acc_s, transpose_B=True, clear_accum=True,
                       policy=T.GemmWarpPolicy.FullCol)
                T.gemm(Qpe_s, Kpe_s, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullCol)
                T.copy(m, m_prev)
                T.fill(m, -T.infinity("float32"))
                T.reduce_max(acc_s, m, dim=1, clear=False)
                for i in T.Parallel(BH):
                    m[i] = T.max(m[i], m_prev[i])
                for i in T.Parallel(BH):
                    corr[i] = T.exp2(m_prev[i] * scale - m[i] * scale)
                for i, j in T.Parallel(BH, BN):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - m[i] * scale)
                T.reduce_sum(acc_s, row_sum, dim=1)
                T.copy(acc_s, P_s)
                for i in T.Parallel(BH):
                    l[i] = l[i] * corr[i] + row_sum[i]
                for i, j in T.Parallel(BH, D):
                    acc_o[i, j] *= corr[i]
                T.gemm(P_s, KV_s, acc_o, policy=T.GemmWarpPolicy.FullCol)
            for i, j in T.Parallel(BH, D):
                acc_o[i, j] /= l[i]
            T.copy(acc_o, O_s)
            T.copy(O_s, O[bid, hx * BH:(hx + 1) * BH, :])
    return main


def softmax(T, M, N, BM, threads):
    """Row softmax of a [M, N] f16 matrix, whole rows per block (base 2)."""
    log2e = 1.44269504

    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(M, BM), threads=threads) as bx:
            x = T.alloc_fragment((BM, N), "float32")
            mx = T.alloc_fragment((BM,), "float32")
            sm = T.alloc_fragment((BM,), "float32")
            T.copy(X[bx * BM, 0], x)
            T.reduce_max(x, mx, dim=1)
            for i, j in T.Parallel(BM, N):
                x[i, j] = T.exp2(x[i, j] * log2e - mx[i] * log2e)
            T.reduce_sum(x, sm, dim=1)
            for i, j in T.Parallel(BM, N):
                x[i, j] = x[i, j] / sm[i]
            T.copy(x, Y[bx * BM, 0])
    return main


def rmsnorm(T, M, N, BM, threads, eps=1e-6):
    """Y = X / sqrt(mean(X^2) + eps) * W over rows of a [M, N] f16 matrix."""

    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), W: T.Tensor((N,), "float16"),
             Y: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(M, BM), threads=threads) as bx:
            x = T.alloc_fragment((BM, N), "float32")
            sq = T.alloc_fragment((BM, N), "float32")
            ss = T.alloc_fragment((BM,), "float32")
            T.copy(X[bx * BM, 0], x)
            for i, j in T.Parallel(BM, N):
                sq[i, j] = x[i, j] * x[i, j]
            T.reduce_sum(sq, ss, dim=1)
            for i in T.Parallel(BM):
                ss[i] = T.rsqrt(ss[i] / N + eps)
            for i, j in T.Parallel(BM, N):
                x[i, j] = x[i, j] * ss[i] * W[j]
            T.copy(x, Y[bx * BM, 0])
    return main


def elementwise_add(T, M, N, BM, BN, threads):
    """C = A + B, f16, indexing global memory directly in T.Parallel."""

    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), B: T.Tensor((M, N), "float16"),
             C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, BN), T.ceildiv(M, BM), threads=threads) as (bx, by):
            for i, j in T.Parallel(BM, BN):
                C[by * BM + i, bx * BN + j] = A[by * BM + i, bx * BN + j] + \
                    B[by * BM + i, bx * BN + j]
    return main


def dequant_gemm(T, M, N, K, BM, BN, BK, G, threads, stages):
    """C = A @ W^T with W dequantized from int4 in the kernel: B [N, K/2]
    uint8 holds two 4-bit values per byte (element 2j in the low nibble),
    W[n, k] = (nibble - 8) * S[n, k // G] (a scale per group of G along K)."""

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((N, K // 2), "uint8"),
             S: T.Tensor((N, K // G), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, BN), T.ceildiv(M, BM), threads=threads) as (bx, by):
            A_s = T.alloc_shared((BM, BK), "float16")
            Bq_s = T.alloc_shared((BN, BK // 2), "uint8")
            W_s = T.alloc_shared((BN, BK), "float16")
            C_f = T.alloc_fragment((BM, BN), "float32")
            T.clear(C_f)
            for k in T.Pipelined(T.ceildiv(K, BK), num_stages=stages):
                T.copy(A[by * BM, k * BK], A_s)
                T.copy(B[bx * BN, k * (BK // 2)], Bq_s)
                for i, j in T.Parallel(BN, BK):
                    q = (Bq_s[i, j // 2] >> ((j % 2) * 4)) & 15
                    W_s[i, j] = (T.cast(q, "float16") - 8) * \
                        S[bx * BN + i, (k * BK + j) // G]
                T.gemm(A_s, W_s, C_f, transpose_B=True)
            T.copy(C_f, C[by * BM, bx * BN])
    return main


# ---------------------------------------------------------------------------
# Cases: the program, its inputs and reference, and the vendor peers
# ---------------------------------------------------------------------------


class Case:
    def __init__(self, group, name, build, out_idx, inputs, reference, tol,
                 peers=None, flops=None, bytes_moved=None):
        self.group, self.name, self.build = group, name, build
        self.out_idx, self.inputs, self.reference = out_idx, inputs, reference
        self.tol, self.peers = tol, peers or (lambda args: {})
        self.flops, self.bytes_moved = flops, bytes_moved


def _randn(shape, dtype="float16", scale=1.0):
    import torch
    return (torch.randn(shape, device="cuda") * scale).to(getattr(torch, dtype))


def gemm_cases():
    configs = {  # name: BM, BN, BK, threads, stages, trans_b, swizzle
        "quickstart NN": (128, 128, 32, 128, 3, False, 0),
        "hopper NN": (128, 256, 64, 256, 3, False, 8),
        "hopper TN": (128, 256, 64, 256, 4, True, 8),
    }
    square = [(4096, 4096, 4096), (8192, 8192, 8192)]
    # Llama-3-8B projections over 4096 tokens: QKV, gate/up (fused), down.
    llama = [(4096, 6144, 4096), (4096, 28672, 4096), (4096, 4096, 14336)]
    # Edge tiles in every dimension; K not a multiple of 8.
    unaligned = [(1000, 900, 700), (2048, 2048, 1001)]
    plan = [("quickstart NN", "float16", square + unaligned),
            ("hopper NN", "float16", square + llama + unaligned[:1]),
            ("hopper TN", "float16", square),
            ("hopper TN", "bfloat16", square)]
    return [_gemm_case(M, N, K, name, configs[name], dtype)
            for name, dtype, shapes in plan for M, N, K in shapes]


def ws_gemm(T, M, N, K, BM, BN, BK, stages, dtype="float16"):
    """C = A @ B, warp-specialized by hand in TileLang's style: warpgroup 1
    issues each stage's TMA copies (T.tma_copy on a barrier), warpgroup 0
    runs the gemms into accumulators it alone holds; `ready[s]` / `done[s]`
    hand the stages over. (TileLang's tma_copy takes whole slices.)"""

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, BN), T.ceildiv(M, BM), threads=256) as (bx, by):
            A_s = T.alloc_shared((stages, BM, BK), dtype)
            B_s = T.alloc_shared((stages, BK, BN), dtype)
            C_f = T.alloc_fragment((BM, BN), "float32")
            ready = T.alloc_barrier([128] * stages)
            done = T.alloc_barrier([128] * stages)
            with T.ws(0):
                T.clear(C_f)
            for k in range(T.ceildiv(K, BK)):
                with T.ws(1):
                    T.barrier_wait(done[k % stages], (k // stages) % 2 ^ 1)
                    T.tma_copy(A[by * BM:(by + 1) * BM, k * BK:(k + 1) * BK],
                               A_s[k % stages, :, :], barrier=ready[k % stages])
                    T.tma_copy(B[k * BK:(k + 1) * BK, bx * BN:(bx + 1) * BN],
                               B_s[k % stages, :, :], barrier=ready[k % stages])
                    T.barrier_arrive(ready[k % stages])
                with T.ws(0):
                    T.barrier_wait(ready[k % stages], (k // stages) % 2)
                    T.gemm(A_s[k % stages, :, :], B_s[k % stages, :, :], C_f)
                    T.barrier_arrive(done[k % stages])
            with T.ws(0):
                T.copy(C_f, C[by * BM, bx * BN])
    return main


def ws_gemm_cases():
    cases = []
    for M, N, K in [(4096, 4096, 4096), (8192, 8192, 8192)]:
        for stages in (1, 2, 3):
            def inputs(M=M, N=N, K=K):
                return [_randn((M, K)), _randn((K, N))]

            def peers(args):
                a, b = args
                return {"cuBLAS": lambda: a @ b}

            cases.append(Case(
                "ws", "gemm warp-specialized by hand, %d stages, f16 %dx%dx%d"
                % (stages, M, N, K),
                lambda T, M=M, N=N, K=K, stages=stages: ws_gemm(
                    T, M, N, K, 128, 128, 64, stages),
                [2], inputs, lambda a, b: a.float() @ b.float(), (1e-2, 5e-2),
                peers, flops=2 * M * N * K))
    return cases


def _gemm_case(M, N, K, cfg_name, cfg, dtype):
    BM, BN, BK, threads, stages, trans_b, swizzle = cfg

    def inputs():
        a = _randn((M, K), dtype)
        b = _randn((N, K) if trans_b else (K, N), dtype)
        return [a, b]

    def reference(a, b):
        return a.float() @ (b.float().T if trans_b else b.float())

    def peers(args):
        a, b = args
        return {"cuBLAS": (lambda: a @ b.T) if trans_b else (lambda: a @ b)}

    short = {"float16": "f16", "bfloat16": "bf16"}[dtype]
    return Case("gemm", "gemm %s %s %dx%dx%d" % (cfg_name, short, M, N, K),
                lambda T: gemm(T, M, N, K, BM, BN, BK, threads, stages, dtype,
                               trans_b, swizzle),
                [2], inputs, reference, (1e-2, 5e-2), peers,
                flops=2.0 * M * N * K)


def attention_cases():
    cases = []
    # TileLang's FlashAttention example configuration (128 threads, 128x128
    # blocks, 1 stage) and its Hopper one (256 threads, 128x128, 2 stages).
    configs = {"example": (128, 128, 128, 1), "hopper": (128, 128, 256, 2)}
    for layout in ("bhsd", "bshd"):
        for D in (64, 128):
            for causal in (False, True):
                for cfg_name, cfg in configs.items():
                    if D == 64 and cfg_name == "example":
                        continue
                    cases.append(_attention_case(4, 32, 4096, D, causal, layout,
                                                 cfg_name, cfg))
    # A small causal d64 problem.
    cases.append(_attention_case(1, 8, 512, 64, True, "bhsd", "hopper",
                                 configs["hopper"]))
    return cases


def _attention_case(B, H, S, D, causal, layout, cfg_name, cfg):
    BM, BN, threads, stages = cfg

    def inputs():
        shape = (B, H, S, D) if layout == "bhsd" else (B, S, H, D)
        return [_randn(shape) for _ in range(3)]

    def to_bhsd(x):
        return x if layout == "bhsd" else x.transpose(1, 2)

    def reference(q, k, v):
        import torch.nn.functional as F
        out = F.scaled_dot_product_attention(to_bhsd(q).float(), to_bhsd(k).float(),
                                             to_bhsd(v).float(), is_causal=causal)
        return out if layout == "bhsd" else out.transpose(1, 2)

    def peers(args):
        from common import sdpa_peers
        q, k, v = (to_bhsd(x).contiguous() for x in args)
        return sdpa_peers(q, k, v, causal)

    flops = 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
    return Case("attention", "attention %s d%d %s %s b%dh%ds%d" % (
        layout, D, "causal" if causal else "full", cfg_name, B, H, S),
        lambda T: attention(T, B, H, S, D, causal, layout, BM, BN, threads, stages),
        [3], inputs, reference, (1e-2, 1e-2), peers, flops=flops)


def mla_cases():
    B, H, S, D, PE = 132, 128, 8192, 512, 64

    def inputs():
        return [_randn((B, H, D)), _randn((B, H, PE)), _randn((B, S, 1, D)),
                _randn((B, S, 1, PE))]

    def reference(q, q_pe, kv, k_pe):
        import torch
        out = torch.empty(B, H, D, device="cuda")
        for b0 in range(0, B, 12):  # In slices: the f32 scores are 4 GiB.
            s = slice(b0, b0 + 12)
            keys = torch.cat([kv[s], k_pe[s]], -1).float()[:, :, 0]
            query = torch.cat([q[s], q_pe[s]], -1).float()
            scores = torch.einsum("bhd,bsd->bhs", query, keys) / (D + PE) ** 0.5
            out[s] = torch.einsum("bhs,bsd->bhd", scores.softmax(-1), kv[s].float()[:, :, 0])
        return out

    def peers(args):
        # The copy ceiling: reading KV once and writing it (the kernel only
        # reads it, so this moves twice the kernel's bytes). An elementwise
        # kernel, not copy_ (a cudaMemcpy, which the profiler timer does
        # not count as a kernel).
        import torch
        kv = args[2]
        dst = torch.empty_like(kv)
        return {"copy KV": lambda: torch.mul(kv, 1, out=dst)}

    kv_bytes = B * S * (D + PE) * 2
    return [Case("mla", "mla decode b%dh%d kv%d d%d+%d" % (B, H, S, D, PE),
                 lambda T: mla_decode(T, B, H, S, D, PE, 64, 64, 256, 2),
                 [4], inputs, reference, (1e-2, 1e-2), peers,
                 bytes_moved=kv_bytes)]


def sparse_mla(T, B, S, SKV, H, D, PE, topk, BI, stages, threads=256):
    """DeepSeek's sparse MLA forward in TileLang's style: each query row
    attends to its own `topk` keys (gathered by index from one shared KV
    head); the 576-wide query sits in one shared tile and its two parts,
    Q[:, :D] and Q[:, D:], multiply the gathered keys and their rotary
    tails. Online softmax; O = softmax(Q K^T / sqrt(D + PE)) V with V the
    keys' first D columns."""
    scale = (D + PE) ** -0.5 * 1.44269504

    @T.prim_func
    def main(Q: T.Tensor((B, S, H, D + PE), "bfloat16"),
             KV: T.Tensor((B, SKV, D + PE), "bfloat16"),
             Idx: T.Tensor((B, S, topk), "int32"),
             O: T.Tensor((B, S, H, D), "bfloat16")):
        with T.Kernel(S, B, threads=threads) as (s, b):
            q_s = T.alloc_shared((H, D + PE), "bfloat16")
            kv_s = T.alloc_shared((BI, D), "bfloat16")
            pe_s = T.alloc_shared((BI, PE), "bfloat16")
            p_s = T.alloc_shared((H, BI), "bfloat16")
            o_s = T.alloc_shared((H, D), "bfloat16")
            scores = T.alloc_fragment((H, BI), "float32")
            acc = T.alloc_fragment((H, D), "float32")
            row_max = T.alloc_fragment((H,), "float32")
            prev_max = T.alloc_fragment((H,), "float32")
            rescale = T.alloc_fragment((H,), "float32")
            row_sum = T.alloc_fragment((H,), "float32")
            block_sum = T.alloc_fragment((H,), "float32")
            T.copy(Q[b, s, :, :], q_s)
            T.fill(acc, 0)
            T.fill(row_sum, 0)
            T.fill(row_max, -(2 ** 30))
            for k in T.Pipelined(topk // BI, num_stages=stages):
                for i, d in T.Parallel(BI, D):
                    kv_s[i, d] = KV[b, Idx[b, s, k * BI + i], d]
                for i, d in T.Parallel(BI, PE):
                    pe_s[i, d] = KV[b, Idx[b, s, k * BI + i], D + d]
                T.clear(scores)
                T.gemm(q_s[:, :D], kv_s, scores, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)
                T.gemm(q_s[:, D:], pe_s, scores, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)
                T.copy(row_max, prev_max)
                T.reduce_max(scores, row_max, dim=1, clear=False)
                for h in T.Parallel(H):
                    rescale[h] = T.exp2((prev_max[h] - row_max[h]) * scale)
                for h, i in T.Parallel(H, BI):
                    scores[h, i] = T.exp2(scores[h, i] * scale - row_max[h] * scale)
                T.reduce_sum(scores, block_sum, dim=1)
                for h in T.Parallel(H):
                    row_sum[h] = row_sum[h] * rescale[h] + block_sum[h]
                for h, d in T.Parallel(H, D):
                    acc[h, d] *= rescale[h]
                T.copy(scores, p_s)
                T.gemm(p_s, kv_s, acc, policy=T.GemmWarpPolicy.FullRow)
            for h, d in T.Parallel(H, D):
                acc[h, d] /= row_sum[h]
            T.copy(acc, o_s)
            T.copy(o_s, O[b, s, :, :])
    return main


def sparse_mla_cases():
    B, S, SKV, H, D, PE, topk = 1, 2048, 8192, 64, 512, 64, 1024

    def inputs():
        import torch
        q = _randn((B, S, H, D + PE), "bfloat16")
        kv = _randn((B, SKV, D + PE), "bfloat16")
        idx = torch.stack([torch.randperm(SKV, device="cuda")[:topk]
                           for _ in range(B * S)]).view(B, S, topk).int()
        return [q, kv, idx]

    def reference(q, kv, idx):
        import torch
        out = torch.empty(B, S, H, D, device="cuda")
        for s0 in range(0, S, 256):
            sl = slice(s0, s0 + 256)
            keys = kv[0][idx[0, sl].long()].float()           # [s, topk, D+PE]
            scores = torch.einsum("shd,skd->shk", q[0, sl].float(), keys)
            probs = (scores * (D + PE) ** -0.5).softmax(-1)
            out[0, sl] = torch.einsum("shk,skd->shd", probs, keys[..., :D])
        return out

    flops = 2 * B * S * H * topk * (D + PE + D)
    return [Case("sparse_mla", "sparse mla fwd b%ds%dh%d topk%d d%d+%d, %d stages"
                 % (B, S, H, topk, D, PE, stages),
                 lambda T, stages=stages: sparse_mla(T, B, S, SKV, H, D, PE, topk,
                                                     64, stages),
                 [3], inputs, reference, (2e-2, 2e-2), None, flops=flops)
            for stages in (1, 2)]


def row_cases():
    cases = []
    M, N = 8192, 4096

    def sm_inputs():
        return [_randn((M, N))]

    def sm_peers(args):
        (x,) = args
        return {"torch": lambda: x.softmax(-1)}

    cases.append(Case("rows", "softmax %dx%d" % (M, N),
                      lambda T: softmax(T, M, N, 1, 256), [1], sm_inputs,
                      lambda x: x.float().softmax(-1), (1e-3, 1e-2), sm_peers,
                      bytes_moved=2 * M * N * 2))

    def rms_inputs():
        return [_randn((M, N)), _randn((N,))]

    def rms_ref(x, w):
        xf = x.float()
        return xf * (xf.pow(2).mean(-1, keepdim=True) + 1e-6).rsqrt() * w.float()

    def rms_peers(args):
        import torch
        x, w = args
        if hasattr(torch.nn.functional, "rms_norm"):
            return {"torch": lambda: torch.nn.functional.rms_norm(x, (N,), w, 1e-6)}
        return {}

    cases.append(Case("rows", "rmsnorm %dx%d" % (M, N),
                      lambda T: rmsnorm(T, M, N, 1, 256), [2], rms_inputs, rms_ref,
                      (1e-2, 1e-2), rms_peers, bytes_moved=2 * M * N * 2))

    def add_inputs():
        return [_randn((M, N)), _randn((M, N))]

    def add_peers(args):
        import torch
        a, b = args
        out = torch.empty_like(a)
        return {"torch": lambda: torch.add(a, b, out=out)}

    cases.append(Case("rows", "elementwise add %dx%d" % (M, N),
                      lambda T: elementwise_add(T, M, N, 128, 128, 256), [2],
                      add_inputs, lambda a, b: a.float() + b.float(), (1e-3, 1e-3),
                      add_peers, bytes_moved=3 * M * N * 2))
    return cases


def dequant_cases():
    """int4 weights (group scales of 128) times f16 activations: a batch of
    tokens (compute-bound) and a decode-sized one (weight-bandwidth-bound);
    the peer is cuBLAS on the already dequantized f16 weights."""
    G = 128
    plan = [(4096, 4096, 4096, (128, 128, 128, 256, 3)),
            (4096, 14336, 4096, (128, 128, 128, 256, 3)),
            (4096, 4096, 4096, (128, 128, 64, 256, 3)),
            (4096, 14336, 4096, (128, 128, 64, 256, 3)),
            (16, 14336, 4096, (64, 128, 128, 128, 3))]
    return [_dequant_case(M, N, K, G, cfg) for M, N, K, cfg in plan]


def _dequant_case(M, N, K, G, cfg):
    BM, BN, BK, threads, stages = cfg

    def weights(b, s):
        import torch
        w = torch.empty((N, K), device=b.device, dtype=torch.float32)
        w[:, 0::2] = (b & 15).float() - 8
        w[:, 1::2] = (b >> 4).float() - 8
        return (w * s.float().repeat_interleave(G, dim=1)).half()

    def inputs():
        import torch
        a = _randn((M, K))
        b = torch.randint(0, 256, (N, K // 2), device="cuda", dtype=torch.uint8)
        s = (torch.rand((N, K // G), device="cuda") * 0.02).half()
        return [a, b, s]

    def reference(a, b, s):
        return a.float() @ weights(b, s).float().T

    def peers(args):
        a, b, s = args
        w = weights(b, s)
        return {"cuBLAS f16 W": lambda: a @ w.T}

    return Case("dequant", "dequant int4 gemm %dx%dx%d g%d bk%d" % (M, N, K, G, BK),
                lambda T: dequant_gemm(T, M, N, K, BM, BN, BK, G, threads, stages),
                [3], inputs, reference, (1e-2, 5e-2), peers,
                flops=2.0 * M * N * K, bytes_moved=M * K * 2 + N * K // 2 + M * N * 2)


def fp8_cases():
    """FP8 (e4m3) GEMMs C = A @ B^T, bf16 out (bench/fp8_gemm.py's program
    and configurations), against torch._scaled_mm (cuBLASLt)."""
    from fp8_gemm import CONFIGS, fp8_gemm

    def case(M, N, K, cfg):
        def inputs():
            import torch
            return [(torch.randn(M, K, device="cuda") * 0.5).to(torch.float8_e4m3fn),
                    (torch.randn(N, K, device="cuda") * 0.5).to(torch.float8_e4m3fn)]

        def peers(args):
            import torch
            a, b = args
            one = torch.ones((), device="cuda")
            return {"cuBLAS": lambda: torch._scaled_mm(a, b.T, one, one,
                                                       out_dtype=torch.bfloat16)}

        return Case("fp8", "fp8 gemm %dx%dx%d %dx%dx%d/%d/%d" % ((M, N, K) + cfg),
                    lambda T: fp8_gemm(T, M, N, K, *cfg), [2], inputs,
                    lambda a, b: a.float() @ b.float().T, (2e-2, 1.0), peers,
                    flops=2.0 * M * N * K)

    return [case(M, N, K, cfg) for M, N, K in ((4096, 4096, 4096), (8192, 8192, 8192))
            for cfg in CONFIGS]


GROUPS = {"gemm": gemm_cases, "attention": attention_cases, "mla": mla_cases,
          "rows": row_cases, "ws": ws_gemm_cases,
          "dequant": dequant_cases, "fp8": fp8_cases,
          "sparse_mla": sparse_mla_cases}

# ---------------------------------------------------------------------------
# Runner
# ---------------------------------------------------------------------------


def compilers(with_peer, variants=()):
    """(name, compiler, language, target, pass_configs) of every side: ours,
    ours with other compile options (`variants`: "name:key=value,..."), and
    real TileLang."""
    import tilelang_mlir
    import tilelang_mlir.language as TM
    sides = [("ours", tilelang_mlir, TM, "sm_90a", None)]
    for variant in variants:
        name, _, settings = variant.partition(":")
        configs = {}
        for setting in filter(None, settings.split(",")):
            key, _, value = setting.partition("=")
            configs[key] = ({"true": True, "false": False}.get(value.lower())
                            if value.lower() in ("true", "false")
                            else int(value) if value.lstrip("-").isdigit()
                            else value)
        sides.append(("ours " + name, tilelang_mlir, TM, "sm_90a", configs))
    if with_peer:
        try:
            import tilelang
            import tilelang.language as TL
            sides.append(("TileLang", tilelang, TL, "cuda", None))
        except Exception as error:  # noqa: BLE001 (reported; the rest goes on)
            print("real TileLang unavailable: %s" % error, file=sys.stderr)
    return sides


def run_case(case, sides, timing, rounds, caller, profile_once=False):
    import torch
    args = case.inputs()
    want = case.reference(*args)
    torch.cuda.synchronize()
    calls, row = {}, {"case": case.name, "group": case.group, "errors": {}}
    for side, compiler, T, target, configs in sides:
        start = time.time()
        try:
            options = {"pass_configs": configs} if configs else {}
            kernel = compiler.compile(case.build(T), out_idx=case.out_idx,
                                      target=target, **options)
            row.setdefault("compile_s", {})[side] = round(time.time() - start, 2)
            out = kernel(*args)
            torch.cuda.synchronize()
        except Exception as error:  # noqa: BLE001 (reported, not timed)
            row["errors"][side] = "%s: %s" % (type(error).__name__, str(error)[:300])
            continue
        rtol, atol = case.tol
        if not torch.allclose(out.float(), want.float(), rtol=rtol, atol=atol):
            err = (out.float() - want.float()).abs().max().item()
            row["errors"][side] = "wrong result: max abs error %g" % err
            continue
        calls[side] = (lambda k: lambda: k(*args))(kernel)
    for name, call in case.peers(args).items():
        calls[name] = call
    if profile_once:
        # Under Nsight Compute: each side's kernels once, in side order.
        for call in calls.values():
            call()
        torch.cuda.synchronize()
        return row
    samples = {name: [] for name in calls}
    caller_ms = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            samples[name].append(timing.kernel_ms(call))
            if caller:
                caller_ms[name].append(timing.bench_ms(call))
    for name, v in list(samples.items()):
        if min(v) <= 0:
            row["errors"][name] = "the profiler saw no kernel of this call"
            del samples[name]
    row["ms"] = {name: statistics.median(v) for name, v in samples.items()}
    if caller:
        row["caller_ms"] = {name: statistics.median(v) for name, v in caller_ms.items()}
    if "ours" in samples:
        row["other_over_ours"] = {
            name: statistics.median(b / a for a, b in zip(samples["ours"], v))
            for name, v in samples.items() if name != "ours"}
    if case.flops and "ours" in row["ms"]:
        row["ours_tflops"] = case.flops / row["ms"]["ours"] / 1e9
    if case.bytes_moved:
        row["gbps"] = {name: case.bytes_moved / ms / 1e6 for name, ms in row["ms"].items()}
    return row


def print_row(row):
    ms = row.get("ms", {})
    parts = ["%s %.3f" % (name, v) for name, v in ms.items()]
    ratios = ["%s %.2fx" % (name, v) for name, v in row.get("other_over_ours", {}).items()]
    print("%-52s %s | %s" % (row["case"], "  ".join(parts), "  ".join(ratios)))
    for side, error in row["errors"].items():
        print("    %s: %s" % (side, error))
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(GROUPS),
                        help="groups: " + ", ".join(GROUPS))
    parser.add_argument("--match", default="", help="only cases whose name contains this")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--caller", action="store_true",
                        help="also time what a Python caller sees (bench_ms)")
    parser.add_argument("--no-tilelang", action="store_true")
    parser.add_argument("--variant", action="append", default=[],
                        help="another side: ours with compile options, "
                             "NAME:key=value,... (e.g. plain:overlap_gemm_chains=false)")
    parser.add_argument("--compile-only", action="store_true",
                        help="compile our side of every case for sm_90a (no GPU)")
    parser.add_argument("--ncu", action="store_true",
                        help="check each side, then call it once, untimed (to run "
                             "under Nsight Compute: the sides' kernels in order)")
    parser.add_argument("--json")
    args = parser.parse_args()
    cases = [c for g in args.only.split(",") for c in GROUPS[g]()
             if args.match in c.name]
    if args.compile_only:
        import tilelang_mlir
        import tilelang_mlir.language as TM
        failed = 0
        for case in cases:
            try:
                tilelang_mlir.compile(case.build(TM), out_idx=case.out_idx,
                                      target="sm_90a").get_kernel_source("ptx")
                print("compiled", case.name)
            except Exception as error:  # noqa: BLE001 (reported)
                failed += 1
                print("FAILED %s: %s" % (case.name, error))
        sys.exit(1 if failed else 0)
    timing = import_timing()
    sides = compilers(not args.no_tilelang, args.variant)
    rows = []
    for case in cases:
        row = run_case(case, sides, timing, args.rounds, args.caller, args.ncu)
        print_row(row)
        rows.append(row)
    if args.json:
        import torch
        with open(args.json, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d"),
                       "device": torch.cuda.get_device_name(),
                       "timer": "kernel_ms (CUPTI), interleaved, median of %d rounds"
                                % args.rounds,
                       "sides": [s[0] for s in sides], "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
