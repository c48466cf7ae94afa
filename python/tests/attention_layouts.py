"""Attention kernels in the layouts TileLang's users write, as TileLang's
examples write them: FlashAttention forward over BSHD ([batch, seq, heads,
dim]) or BHSD tensors, grouped-query attention (K and V with fewer heads,
`K[b, s0:s1, h // groups, :]`) and MLA decode (`KV[b, s0:s1, kv_head, :]`
with a rotary part). Every tile is a region over non-trailing dimensions in
BSHD; the references (numpy) are in test_regions.py and test_gpu.py."""

import tilelang_mlir.language as T


class OnlineSoftmax:
    """The running row maxima and sums of an online softmax in base 2 over
    `rows` rows (fragments allocated in the kernel being traced)."""

    def __init__(self, rows, scale):
        self.rows, self.scale = rows, scale
        self.max = T.alloc_fragment((rows,), T.float32)
        self.max_prev = T.alloc_fragment((rows,), T.float32)
        self.rescale = T.alloc_fragment((rows,), T.float32)
        self.sum = T.alloc_fragment((rows,), T.float32)
        self.logsum = T.alloc_fragment((rows,), T.float32)
        T.fill(self.logsum, 0)
        T.fill(self.max, -T.infinity(T.float32))

    def update(self, acc_s, acc_o):
        """Scores acc_s -> probabilities (in place), acc_o rescaled to the
        new maxima, the row sums updated."""
        rows, cols = acc_s.shape
        T.copy(self.max, self.max_prev)
        T.fill(self.max, -T.infinity(T.float32))
        T.reduce_max(acc_s, self.max, dim=1, clear=False)
        # A row whose keys are all masked in this tile keeps its maximum
        # (else exp2(-inf - -inf) is NaN).
        for i in T.Parallel(rows):
            self.max[i] = T.max(self.max[i], self.max_prev[i])
        for i in T.Parallel(rows):
            self.rescale[i] = T.exp2(self.max_prev[i] * self.scale -
                                     self.max[i] * self.scale)
        for i, j in T.Parallel(rows, acc_o.shape[1]):
            acc_o[i, j] *= self.rescale[i]
        for i, j in T.Parallel(rows, cols):
            acc_s[i, j] = T.exp2(acc_s[i, j] * self.scale -
                                 self.max[i] * self.scale)
        T.reduce_sum(acc_s, self.sum, dim=1)
        for i in T.Parallel(rows):
            self.logsum[i] = self.logsum[i] * self.rescale[i] + self.sum[i]

    def normalize(self, acc_o):
        for i, j in T.Parallel(self.rows, acc_o.shape[1]):
            acc_o[i, j] /= self.logsum[i]


def flash_attention(batch, heads, seq_len, dim, is_causal, layout="bshd",
                    groups=1, block_M=64, block_N=64, threads=128,
                    num_stages=1):
    """FlashAttention forward (online softmax in base 2, f32 accumulation).
    Q and Output have `heads` heads, K and V heads // groups."""
    scale = (1.0 / dim) ** 0.5 * 1.44269504  # log2(e)
    kv_heads = heads // groups
    if layout == "bshd":
        q_shape = (batch, seq_len, heads, dim)
        kv_shape = (batch, seq_len, kv_heads, dim)
    else:
        q_shape = (batch, heads, seq_len, dim)
        kv_shape = (batch, kv_heads, seq_len, dim)

    def rows(buffer, b, h, start, count):
        """`count` rows of head h from row `start`, as the layout slices."""
        if layout == "bshd":
            return buffer[b, start:start + count, h, :]
        return buffer[b, h, start:start + count, :]

    @T.prim_func
    def main(Q: T.Tensor(q_shape, T.float16), K: T.Tensor(kv_shape, T.float16),
             V: T.Tensor(kv_shape, T.float16),
             Output: T.Tensor(q_shape, T.float16)):
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch,
                      threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared((block_M, dim), T.float16)
            K_shared = T.alloc_shared((block_N, dim), T.float16)
            V_shared = T.alloc_shared((block_N, dim), T.float16)
            O_shared = T.alloc_shared((block_M, dim), T.float16)
            acc_s = T.alloc_fragment((block_M, block_N), T.float32)
            acc_s_cast = T.alloc_fragment((block_M, block_N), T.float16)
            acc_o = T.alloc_fragment((block_M, dim), T.float32)
            state = OnlineSoftmax(block_M, scale)

            T.copy(rows(Q, bz, by, bx * block_M, block_M), Q_shared)
            T.fill(acc_o, 0)
            loop_range = (T.min(T.ceildiv((bx + 1) * block_M, block_N),
                                T.ceildiv(seq_len, block_N))
                          if is_causal else T.ceildiv(seq_len, block_N))
            for k in T.Pipelined(loop_range, num_stages=num_stages):
                T.copy(rows(K, bz, by // groups, k * block_N, block_N),
                       K_shared)
                for i, j in T.Parallel(block_M, block_N):
                    visible = k * block_N + j < seq_len
                    if is_causal:
                        visible = visible & (bx * block_M + i >= k * block_N + j)
                    acc_s[i, j] = T.if_then_else(visible, 0.0,
                                                 -T.infinity(T.float32))
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)
                state.update(acc_s, acc_o)
                T.copy(acc_s, acc_s_cast)
                T.copy(rows(V, bz, by // groups, k * block_N, block_N),
                       V_shared)
                T.gemm(acc_s_cast, V_shared, acc_o,
                       policy=T.GemmWarpPolicy.FullRow)
            state.normalize(acc_o)
            T.copy(acc_o, O_shared)
            T.copy(O_shared, rows(Output, bz, by, bx * block_M, block_M))

    return main


def mla_decode(batch, heads, kv_heads, seqlen_kv, dim, pe_dim, block_N=32,
               block_H=16, threads=128, num_stages=1, full_col=False,
               probs_in_shared=False):
    """MLA decode: one query row per head; keys are KV (dim) and K_pe
    (pe_dim) of the head's KV head, values KV itself. Q [b, h, dim], Q_pe
    [b, h, pe_dim], KV [b, s, kv_heads, dim], K_pe [b, s, kv_heads, pe_dim],
    Output [b, h, dim]; block_H heads per block. TileLang's Hopper
    configuration is block_N = block_H = 64, 256 threads, 2 stages, the
    warps split by columns (full_col) and the probabilities staged in a
    shared tile for the second gemm (probs_in_shared): with dim 512 and
    pe_dim 64 its shared tiles only fit a block where the output tile
    takes the bytes of tiles that are dead after the loop."""
    policy = T.GemmWarpPolicy.FullCol if full_col else T.GemmWarpPolicy.FullRow
    scale = (1.0 / (dim + pe_dim)) ** 0.5 * 1.44269504
    group = heads // kv_heads
    valid = min(block_H, group)

    @T.prim_func
    def main(Q: T.Tensor((batch, heads, dim), T.float16),
             Q_pe: T.Tensor((batch, heads, pe_dim), T.float16),
             KV: T.Tensor((batch, seqlen_kv, kv_heads, dim), T.float16),
             K_pe: T.Tensor((batch, seqlen_kv, kv_heads, pe_dim), T.float16),
             Output: T.Tensor((batch, heads, dim), T.float16)):
        with T.Kernel(batch, heads // valid, threads=threads) as (bid, hid):
            Q_shared = T.alloc_shared((block_H, dim), T.float16)
            Q_pe_shared = T.alloc_shared((block_H, pe_dim), T.float16)
            KV_shared = T.alloc_shared((block_N, dim), T.float16)
            K_pe_shared = T.alloc_shared((block_N, pe_dim), T.float16)
            O_shared = T.alloc_shared((valid, dim), T.float16)
            acc_s = T.alloc_fragment((block_H, block_N), T.float32)
            if probs_in_shared:
                acc_s_cast = T.alloc_shared((block_H, block_N), T.float16)
            else:
                acc_s_cast = T.alloc_fragment((block_H, block_N), T.float16)
            acc_o = T.alloc_fragment((block_H, dim), T.float32)
            state = OnlineSoftmax(block_H, scale)
            cur_kv_head = hid // (group // valid)

            T.copy(Q[bid, hid * valid:(hid + 1) * valid, :], Q_shared)
            T.copy(Q_pe[bid, hid * valid:(hid + 1) * valid, :], Q_pe_shared)
            T.fill(acc_o, 0)
            for k in T.Pipelined(T.ceildiv(seqlen_kv, block_N),
                                 num_stages=num_stages):
                T.copy(KV[bid, k * block_N:(k + 1) * block_N, cur_kv_head, :],
                       KV_shared)
                T.copy(K_pe[bid, k * block_N:(k + 1) * block_N, cur_kv_head,
                            :], K_pe_shared)
                for i, j in T.Parallel(block_H, block_N):
                    acc_s[i, j] = T.if_then_else(k * block_N + j < seqlen_kv,
                                                 0.0, -T.infinity(T.float32))
                T.gemm(Q_shared, KV_shared, acc_s, transpose_B=True,
                       policy=policy)
                T.gemm(Q_pe_shared, K_pe_shared, acc_s, transpose_B=True,
                       policy=policy)
                state.update(acc_s, acc_o)
                T.copy(acc_s, acc_s_cast)
                T.gemm(acc_s_cast, KV_shared, acc_o,
                       policy=policy)
            state.normalize(acc_o)
            T.copy(acc_o[0:valid, :], O_shared)
            T.copy(O_shared, Output[bid, hid * valid:(hid + 1) * valid, :])

    return main
