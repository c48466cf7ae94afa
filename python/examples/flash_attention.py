"""FlashAttention forward in T.*, as TileLang writes it: online softmax in
base 2, f32 accumulation, 64x64 blocks, 128 threads. Used by the Python
tests (test/Python/kernels.py) and by bench/gen_attention.py, which writes
the head-dim-128 kernel the GPU suite times."""

import tilelang_mlir.language as T


def flash_attention(batch, heads, seq_len, dim, is_causal, block_M=64,
                    block_N=64, num_stages=2, threads=128,
                    name="flash_attention", split=None, overlap=False,
                    peel_first=False, peel_last=True, stage_output=False,
                    longest_first=False, lazy_rescale=False):
    """The traced kernel; sizes are ints or T.symbolic(). With split=w, Q,
    K, V and the output accumulator are held as dim // w tiles of w columns
    each: Q K^T sums one gemm per pair of parts, P V is one gemm per part.
    With w = 64 (128-byte rows) every gemm fits sm_90's wgmma (Q K^T from
    shared memory, P V with P in registers and V MN-major), which the
    256-byte rows of whole d128 tiles do not.

    With overlap=True (whole tiles only), the softmax of each K tile runs
    while the tensor cores compute the previous tile's P V (FlashAttention-3's
    intra-warpgroup overlap): iteration k issues S_k = Q K_k^T and
    O += P_{k-1} V_{k-1} without waiting (T.gemm wg_wait), waits for S_k
    alone, computes its softmax, then waits for P V and rescales O. With
    peel_first, S_0 and its softmax come before the loop (k from 1, K_0
    copied with Q); otherwise the loop starts at 0 with P zero (a P V whose
    result is dropped). With peel_last, the last P V comes after the loop
    (its V copied there); otherwise the loop runs once more, on a wholly
    masked S (a Q K^T whose result is dropped, but the last V copy stays
    in the pipeline). With both, K_0 and the last V take turns in one tile
    (K_0 is dead once S_0 is computed), so peeling the first iteration
    costs no shared memory (bench/gen_attention.py's default: -0.4 to -0.8 %
    on the H200, run 51).

    With longest_first (causal only), each head's query tiles run last
    first (query tile i sees i + 1 key tiles): blocks start in order of
    decreasing work within a head, and the kernel ends on short blocks. The
    grid keeps the query tiles innermost, so the blocks running at once
    share a few heads' K and V in L2 (heads innermost, 132 blocks read 132
    heads' K and V: 18 % slower on the H200, run 34).

    With lazy_rescale (FlashAttention-4's conditional rescale), a row keeps
    its running maximum until the new one exceeds it by more than 8 in
    log2 units (so its exponentials stay below 2^8): O and the row sum are
    rescaled only in the iterations where a row's maximum moves, under a
    T.If per row, which the GPU lowering turns into one branch per row of
    each thread; once the maxima settle, the 64 multiplies per thread and
    key tile are skipped. The result is the same up to rounding (O and the
    sum use the same stale maximum)."""
    parts = dim // split if split else 1
    # The parts' indices as Python values: a `for` over them is unrolled
    # while tracing (a `for ... in range(...)` in a kernel is a loop the
    # kernel runs, as in TileLang, and could not index the lists of tiles).
    part_ids = tuple(range(parts))
    width = dim // parts
    scale = (1.0 / dim) ** 0.5 * 1.44269504  # log2(e)
    shape = (batch, heads, seq_len, dim)

    def main(Q: T.Tensor(shape, T.float16), K: T.Tensor(shape, T.float16),
             V: T.Tensor(shape, T.float16), Output: T.Tensor(shape, T.float16)):
        query_tiles = T.ceildiv(seq_len, block_M)
        reverse = longest_first and is_causal
        with T.Kernel(query_tiles, heads, batch, threads=threads) as ids:
            order, by, bz = ids
            bx = query_tiles - 1 - order if reverse else order
            Q_parts = [T.alloc_shared((block_M, width), T.float16)
                       for _ in range(parts)]
            K_parts = [T.alloc_shared((block_N, width), T.float16)
                       for _ in range(parts)]
            V_parts = [T.alloc_shared((block_N, width), T.float16)
                       for _ in range(parts)]
            # The tiles the peeled ends read (the loop's own copies get
            # their buffers from pipeline planning): with both ends peeled,
            # K_0 (read by S_0 before the loop) and the last V (after it)
            # take turns in one tile, so peeling the first iteration costs
            # no shared memory.
            both = overlap and peel_first and peel_last
            K_first = ([T.alloc_shared((block_N, width), T.float16)
                        for _ in range(parts)] if both else K_parts)
            V_last = K_first if both else V_parts
            if stage_output:
                O_shared = [T.alloc_shared((block_M, width), T.float16)
                            for _ in range(parts)]
                T.annotate_layout({o: T.Layout(
                    "#tile.swizzle<3, 3, 3, blocked = true, panels = true>"
                    if width > 64 else "#tile.swizzle<3, 3, 3>")
                    for o in O_shared})
            acc_s = T.alloc_fragment((block_M, block_N), T.float32)
            acc_s_cast = T.alloc_fragment((block_M, block_N), T.float16)
            acc_o = [T.alloc_fragment((block_M, width), T.float32)
                     for _ in range(parts)]
            scores_max = T.alloc_fragment((block_M,), T.float32)
            scores_max_prev = T.alloc_fragment((block_M,), T.float32)
            scores_scale = T.alloc_fragment((block_M,), T.float32)
            scores_sum = T.alloc_fragment((block_M,), T.float32)
            logsum = T.alloc_fragment((block_M,), T.float32)

            for p in part_ids:
                T.copy(Q[bz, by, bx * block_M, p * width], Q_parts[p])
            for p in part_ids:
                T.fill(acc_o[p], 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(T.float32))
            tiles = (T.min(T.ceildiv((bx + 1) * block_M, block_N),
                           T.ceildiv(seq_len, block_N))
                     if is_causal else T.ceildiv(seq_len, block_N))

            def mask(k):
                for i, j in T.Parallel(block_M, block_N):
                    visible = k * block_N + j < seq_len
                    if is_causal:
                        visible = visible & (bx * block_M + i >= k * block_N + j)
                    acc_s[i, j] = T.if_then_else(visible, 0.0,
                                                 -T.infinity(T.float32))

            def scores_q_k(wg_wait, K_tiles=K_parts):
                for p in part_ids:
                    T.gemm(Q_parts[p], K_tiles[p], acc_s, transpose_B=True,
                           policy=T.GemmWarpPolicy.FullRow, wg_wait=wg_wait)

            def output_p_v(wg_wait, V_tiles=V_parts):
                for p in part_ids:
                    T.gemm(acc_s_cast, V_tiles[p], acc_o[p],
                           policy=T.GemmWarpPolicy.FullRow, wg_wait=wg_wait)

            def new_max():
                T.copy(scores_max, scores_max_prev)
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    if lazy_rescale:
                        # The old maximum stays unless the new one is more
                        # than 2^8 larger (-inf on both: NaN, kept too).
                        grown = (scores_max[i] * scale -
                                 scores_max_prev[i] * scale > 8.0)
                        scores_max[i] = T.if_then_else(
                            grown, scores_max[i], scores_max_prev[i])
                        scores_scale[i] = T.if_then_else(
                            grown, T.exp2(scores_max_prev[i] * scale -
                                          scores_max[i] * scale), 1.0)
                    else:
                        scores_scale[i] = T.exp2(scores_max_prev[i] * scale -
                                                 scores_max[i] * scale)

            def rescale_output():
                for p in part_ids:
                    for i, j in T.Parallel(block_M, width):
                        if lazy_rescale:
                            # Below 2^-8 where the row's maximum moved, 1
                            # exactly where it did not.
                            with T.If(scores_scale[i] < 1.0):
                                acc_o[p][i, j] *= scores_scale[i]
                        else:
                            acc_o[p][i, j] *= scores_scale[i]

            def exponentials():
                for i, j in T.Parallel(block_M, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale -
                                         scores_max[i] * scale)

            def update_logsum():
                T.reduce_sum(acc_s, scores_sum, dim=1)
                for i in T.Parallel(block_M):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]

            if overlap:
                first = 1 if peel_first else 0
                last = tiles if peel_last else tiles + 1
                if peel_first:
                    for p in part_ids:
                        T.copy(K[bz, by, 0, p * width], K_first[p])
                    mask(0)
                    scores_q_k(0, K_first)
                    new_max()
                    exponentials()
                    update_logsum()
                    T.copy(acc_s, acc_s_cast)
                else:
                    T.fill(acc_s_cast, 0)  # P of the tile before the first
                for k in T.Pipelined(first, last, num_stages=num_stages):
                    k_tile = k if peel_last else T.min(k, tiles - 1)
                    for p in part_ids:
                        T.copy(K[bz, by, k_tile * block_N, p * width],
                               K_parts[p])
                    v_tile = k - 1 if peel_first else T.max(k - 1, 0)
                    for p in part_ids:
                        T.copy(V[bz, by, v_tile * block_N, p * width],
                               V_parts[p])
                    mask(k)
                    scores_q_k(-1)
                    output_p_v(-1)
                    T.wait_wgmma(parts)  # S_k (P V: one group per part)
                    new_max()
                    exponentials()
                    update_logsum()
                    T.wait_wgmma(0)  # O += P_{k-1} V_{k-1}
                    rescale_output()
                    # P_k in 16 bits once P_{k-1} V_{k-1} is done: the loop
                    # carries P in the registers the gemm read (a cast at
                    # the top of the next iteration would carry the 32-bit
                    # P, and ptxas, short of registers, would wait for the
                    # P V gemm before the softmax to reuse P_{k-1}'s).
                    T.copy(acc_s, acc_s_cast)
                if peel_last:
                    for p in part_ids:
                        T.copy(V[bz, by, (tiles - 1) * block_N, p * width],
                               V_last[p])
                    output_p_v(0, V_last)  # P_{last}
            else:
                for k in T.Pipelined(tiles, num_stages=num_stages):
                    for p in part_ids:
                        T.copy(K[bz, by, k * block_N, p * width], K_parts[p])
                    mask(k)
                    scores_q_k(0)
                    for p in part_ids:
                        T.copy(V[bz, by, k * block_N, p * width], V_parts[p])
                    new_max()
                    rescale_output()
                    exponentials()
                    T.copy(acc_s, acc_s_cast)
                    output_p_v(0)
                    update_logsum()
            for p in part_ids:
                # One reciprocal per row (the thread's copies of logsum[i]
                # are one register: CSE leaves one division per row) and a
                # multiply per element, instead of a division per element.
                for i, j in T.Parallel(block_M, width):
                    acc_o[p][i, j] *= 1.0 / logsum[i]
                if not stage_output:
                    T.copy(acc_o[p], Output[bz, by, bx * block_M, p * width])
                    continue
                # Through a shared tile laid out as TMA reads it (128-byte
                # swizzle in 64-column panels): 16-byte units or one TMA
                # store per panel instead of the accumulators' 4-byte stores.
                T.copy(acc_o[p], O_shared[p])
                T.copy(O_shared[p], Output[bz, by, bx * block_M, p * width])

    main.__name__ = name
    return T.prim_func(main)
