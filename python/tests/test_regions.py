"""Copies of regions (TileLang's `A[b, s0:s1, h, :]`) on the CPU backend,
against numpy references written here: every pattern of sliced and indexed
dimensions of 2-D to 5-D buffers in both directions with edge tiles, the
differential fuzzer (copy_fuzz.py), attention in the BSHD and BHSD layouts,
grouped-query attention and MLA decode, and the errors of bad slices."""

import itertools
import os
import re

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T

import attention_layouts
import copy_fuzz


# -- every slice pattern ------------------------------------------------------

def _pattern_case(rank, sliced, mode, space, dtypes):
    """A copy_fuzz.Case with a fixed pattern: a buffer of 5..7 per
    dimension, slices of 3 that start one past the middle (the last block's
    tile runs past the edge), indices that walk with the block (the last
    block's is outside the buffer)."""
    rng = np.random.default_rng(rank * 100 + sum(sliced) * 7)
    case = copy_fuzz.Case(rng, 0, spaces=[space], max_rank=rank)
    case.rank = rank
    case.iterations, case.kstep = 1, None
    case.shape = [5 + d % 3 for d in range(rank)]
    case.mode = mode
    case.space = space
    case.buffer_dtype, case.tile_dtype = dtypes
    case.head = False
    case.sliced = list(sliced)
    case.extents = [3 if s else 1 for s in sliced]
    case.tile = [3] * sum(sliced)
    case.blocks = 3
    stepped = [d for d in range(rank) if sliced[d]][0]
    case.base, case.step = [], []
    for d in range(rank):
        if mode == "load":
            case.base.append(case.shape[d] // 2 if sliced[d] else d % 2)
            case.step.append(2 if sliced[d] else case.shape[d] // 2)
        else:
            case.base.append(1 if d == stepped else d % 2)
            case.step.append(3 if d == stepped else 0)
    case.full = [False] * rank
    return case


PATTERNS = [(rank, sliced) for rank in range(2, 6)
            for sliced in itertools.product([True, False], repeat=rank)
            if any(sliced)]


@pytest.mark.parametrize("mode", ["load", "store"])
@pytest.mark.parametrize("rank,sliced", PATTERNS,
                         ids=["".join("s" if s else "i" for s in p)
                              for _, p in PATTERNS])
def test_every_slice_pattern(rank, sliced, mode):
    rng = np.random.default_rng()
    for space, dtypes in [("shared", ("float16", "float32")),
                          ("fragment", ("float32", "float32")),
                          ("local", ("int32", "int16"))]:
        case = _pattern_case(rank, sliced, mode, space, dtypes)
        reason = copy_fuzz.run_case(case, rng)
        assert reason is None, "%s: %s" % (case.describe(), reason)


# -- the differential fuzzer ----------------------------------------------------

def test_fuzz_fixed_seed():
    failures, ran = copy_fuzz.fuzz(seed=20261201, count=500)
    assert ran == 500 and not failures, failures[:5]


def test_fuzz_fresh_seed():
    seed = int(os.environ.get("TILE_FUZZ_SEED",
                              np.random.default_rng().integers(1 << 31)))
    failures, _ = copy_fuzz.fuzz(seed=seed, count=400, budget=60)
    assert not failures, "seed %d: %s" % (seed, failures[:5])


def test_fuzz_reports_a_wrong_result(monkeypatch):
    """A kernel that misplaces one element is a failure the fuzzer names."""
    real = copy_fuzz.Case.reference

    def off_by_one(case, args):
        expected = real(case, args)
        expected.flat[0] += 1
        return expected

    monkeypatch.setattr(copy_fuzz.Case, "reference", off_by_one)
    failures, ran = copy_fuzz.fuzz(seed=7, count=3, out=open(os.devnull, "w"))
    assert ran == 3 and len(failures) == 3
    assert "elements wrong" in failures[0][1]


# -- attention layouts ------------------------------------------------------------

def _attention_reference(q, k, v, causal, groups=1, layout="bshd"):
    """Softmax attention in float64 (heads of K, V repeated `groups` times)."""
    if layout == "bshd":  # -> bhsd
        q, k, v = (x.transpose(0, 2, 1, 3) for x in (q, k, v))
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    k = np.repeat(k, groups, axis=1)
    v = np.repeat(v, groups, axis=1)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
    if causal:
        s = q.shape[2]
        scores = np.where(np.tril(np.ones((s, s), bool)), scores, -np.inf)
    scores -= scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    out = (p / p.sum(axis=-1, keepdims=True)) @ v
    return out.transpose(0, 2, 1, 3) if layout == "bshd" else out


@pytest.mark.parametrize("layout,causal,groups,seq,block_M", [
    ("bshd", False, 1, 128, 64), ("bshd", True, 1, 100, 64),
    ("bhsd", False, 1, 100, 64), ("bhsd", True, 1, 128, 64),
    ("bshd", False, 2, 96, 64), ("bshd", True, 2, 80, 64),
    ("bshd", True, 1, 200, 128)])
def test_attention_layouts(layout, causal, groups, seq, block_M):
    batch, heads, dim = 2, 4, 64
    func = attention_layouts.flash_attention(batch, heads, seq, dim, causal,
                                             layout=layout, groups=groups,
                                             block_M=block_M, num_stages=2)
    if layout == "bshd":
        region = r"tile.copy %Q\[[^\]]*: " + str(block_M) + r", [^\]:]*, [^\]]*: 64\]"
        assert re.search(region, func.script()), "Q's copy is not a region"
    kernel = tilelang_mlir.compile(func, out_idx=[3])
    rng = np.random.default_rng()
    kv_heads = heads // groups
    shape = ((batch, seq, heads, dim) if layout == "bshd"
             else (batch, heads, seq, dim))
    kv_shape = ((batch, seq, kv_heads, dim) if layout == "bshd"
                else (batch, kv_heads, seq, dim))
    q = rng.standard_normal(shape).astype(np.float16)
    k = rng.standard_normal(kv_shape).astype(np.float16)
    v = rng.standard_normal(kv_shape).astype(np.float16)
    out = kernel(q, k, v)
    np.testing.assert_allclose(out.astype(np.float64),
                               _attention_reference(q, k, v, causal, groups,
                                                    layout),
                               rtol=2e-2, atol=2e-2)


def _mla_reference(q, q_pe, kv, k_pe):
    batch, heads, dim = q.shape
    kv_heads = kv.shape[2]
    group = heads // kv_heads
    out = np.zeros((batch, heads, dim))
    for b in range(batch):
        for h in range(heads):
            g = h // group
            keys = np.concatenate([kv[b, :, g, :], k_pe[b, :, g, :]], axis=1)
            query = np.concatenate([q[b, h], q_pe[b, h]]).astype(np.float64)
            scores = keys.astype(np.float64) @ query / np.sqrt(keys.shape[1])
            p = np.exp(scores - scores.max())
            out[b, h] = (p / p.sum()) @ kv[b, :, g, :].astype(np.float64)
    return out


def test_mla_decode_layout():
    batch, heads, kv_heads, seq, dim, pe_dim = 2, 32, 2, 200, 64, 32
    func = attention_layouts.mla_decode(batch, heads, kv_heads, seq, dim,
                                        pe_dim)
    kernel = tilelang_mlir.compile(func, out_idx=[4])
    rng = np.random.default_rng()
    q = rng.standard_normal((batch, heads, dim)).astype(np.float16)
    q_pe = rng.standard_normal((batch, heads, pe_dim)).astype(np.float16)
    kv = rng.standard_normal((batch, seq, kv_heads, dim)).astype(np.float16)
    k_pe = rng.standard_normal((batch, seq, kv_heads, pe_dim)).astype(
        np.float16)
    out = kernel(q, q_pe, kv, k_pe)
    np.testing.assert_allclose(out.astype(np.float64),
                               _mla_reference(q, q_pe, kv, k_pe),
                               rtol=2e-2, atol=2e-2)


def _hopper_mla(batch, seq):
    # TileLang's MLA decode configuration for Hopper: 64 heads x 64 keys per
    # step, 256 threads, 2 stages, warps split by columns, probabilities
    # staged in shared memory; DeepSeek's 512 + 64 dims, one KV head.
    return attention_layouts.mla_decode(batch, 64, 1, seq, 512, 64,
                                        block_N=64, block_H=64, threads=256,
                                        num_stages=2, full_col=True,
                                        probs_in_shared=True)


def test_mla_decode_hopper_config():
    batch, seq = 1, 150
    kernel = tilelang_mlir.compile(_hopper_mla(batch, seq), out_idx=[4],
                                   target="cpu")
    rng = np.random.default_rng()
    q = rng.standard_normal((batch, 64, 512)).astype(np.float16)
    q_pe = rng.standard_normal((batch, 64, 64)).astype(np.float16)
    kv = rng.standard_normal((batch, seq, 1, 512)).astype(np.float16)
    k_pe = rng.standard_normal((batch, seq, 1, 64)).astype(np.float16)
    out = kernel(q, q_pe, kv, k_pe)
    np.testing.assert_allclose(out.astype(np.float64),
                               _mla_reference(q, q_pe, kv, k_pe),
                               rtol=2e-2, atol=2e-2)


def test_mla_decode_hopper_config_fits_shared_memory():
    # Q (64 KiB), Q_pe and the staged probabilities (8 KiB each), two
    # stages of KV (128 KiB) and K_pe (16 KiB), the barriers and the
    # cross-warp reduction's scratch (the two warpgroups' partials of the
    # 64 rows, 512 bytes) make 229,920 bytes; the output tile (64 KiB)
    # takes Q's bytes after the loop. A block may have 232,448 on sm_90a.
    # The gemms run on wgmma, the two warpgroups splitting N (64 rows of C
    # are one m64 block).
    import re
    loops = tilelang_mlir.compile(_hopper_mla(2, 8192), out_idx=[4],
                                  target="sm_90a").get_kernel_source("loops")
    sizes = [int(n) for n in re.findall(
        r"dynamic_shared_memory_size %c(\d+)_i32", loops)]
    assert sizes == [229920], sizes
    ptx = tilelang_mlir.compile(_hopper_mla(2, 8192), out_idx=[4],
                                target="sm_90a").get_kernel_source("ptx")
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n32k16") == 36
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n256k16") == 4
    assert "mma.sync" not in ptx


# -- the reproducer, through T.atomic_add too ---------------------------

def test_bshd_round_trip_and_atomic_add():
    B, S, H, D, bm = 2, 100, 3, 64, 64

    @T.prim_func
    def main(Q: T.Tensor((B, S, H, D), "float16"),
             O: T.Tensor((B, S, H, D), "float16"),
             Acc: T.Tensor((B, S, H, D), "float32")):
        with T.Kernel(T.ceildiv(S, bm), H, B, threads=128) as (bx, by, bz):
            Qs = T.alloc_shared((bm, D), "float16")
            f = T.alloc_fragment((bm, D), "float32")
            T.copy(Q[bz, bx * bm:(bx + 1) * bm, by, :], Qs)
            T.copy(Qs, O[bz, bx * bm:(bx + 1) * bm, by, :])
            T.copy(Qs, f)
            T.atomic_add(Acc[bz, bx * bm:(bx + 1) * bm, by, :], f)

    kernel = tilelang_mlir.compile(main, out_idx=[1])
    q = np.random.default_rng().standard_normal((B, S, H, D)).astype(
        np.float16)
    acc = np.full((B, S, H, D), 0.5, np.float32)
    out = kernel(q, acc)
    np.testing.assert_array_equal(out, q)
    np.testing.assert_array_equal(acc, q.astype(np.float32) + 0.5)


# -- bad slices: located errors, never a kernel ------------------------------------

def _trace(body):
    @T.prim_func
    def main(A: T.Tensor((4, 64, 8, 32), "float16"),
             B: T.Tensor((64, 32), "float16")):
        with T.Kernel(1, threads=128) as bx:
            s = T.alloc_shared((64, 32), "float16")
            body(A, B, s, bx)
    return main


def test_slice_with_a_step_is_a_located_error():
    with pytest.raises(T.TileLangError,
                       match=r"test_regions\.py:\d+: the slice 0:64:2 along "
                             r"dimension 1 of A has a step"):
        _trace(lambda A, B, s, bx: T.copy(A[0, 0:64:2, 0, :], s))


def test_region_that_does_not_fit_the_tile():
    with pytest.raises(T.TileLangError,
                       match=r"test_regions\.py:\d+: T.copy: the region "
                             r"A\[i, :32, :8, :32\] does not match the tile "
                             r"of shape \(64, 32\)"):
        _trace(lambda A, B, s, bx: T.copy(A[0, 0:32, 0:8, :], s))


def test_negative_constant_index():
    with pytest.raises(T.TileLangError, match=r"index -1 along dimension 2 "
                                              r"is negative"):
        _trace(lambda A, B, s, bx: T.copy(A[0, 0:64, -1, :], s))


def test_empty_slice():
    with pytest.raises(T.TileLangError, match=r"is empty \(extent 0\)"):
        _trace(lambda A, B, s, bx: T.copy(A[0, bx * 64:bx * 64, 0, :], s))


def test_element_index_outside_a_static_buffer():
    def body(A, B, s, bx):
        B[64, 0] = 1.0
    with pytest.raises(T.TileLangError, match=r"index 64 along dimension 0 "
                                              r"is outside the buffer's "
                                              r"extent 64"):
        _trace(body)


def test_both_sides_sliced():
    # A slice into a slice copies elementwise (a parallel loop over their
    # common shape, guarded at the global edges); so does a slice and a head
    # address (TileLang's T.copy(A[m, k], A_shared[stage, :, :])): the
    # slice gives the shape, along the head address's trailing dimensions.
    func = _trace(lambda A, B, s, bx: T.copy(A[0, 0:64, 0, :], B[0:64, :]))
    assert "tile.parallel" in func.script() and "tile.copy" not in func.script()
    func = _trace(lambda A, B, s, bx: T.copy(A[0, 0:64, 0, :], B[0, 0]))
    assert "tile.parallel" in func.script() and "tile.copy" not in func.script()


def test_unknown_extent_takes_the_tile():
    """A slice whose extent is not known at trace time (`A[b, i:, h, :]`)
    takes the tile's extent along its dimension."""
    func = _trace(lambda A, B, s, bx: (T.copy(A[0, bx * 3:, 1, :], s),
                                       T.copy(s, B)))
    assert re.search(r"tile.copy %A\[%\w+, %\w+ : 64, %\w+, %\w+ : 32\]",
                     func.script())


# -- the audit: other places where information could be lost ------------------

def test_booleans_convert_as_zero_and_one():
    """A copy and T.cast between booleans and numbers: true is 1 (not the
    -1 of a signed 1-bit integer), a number is true where it is nonzero
    (2 is true, 0.5 is true), as numpy's astype and Python's bool()."""
    @T.prim_func
    def main(A: T.Tensor((16,), "bool"), I: T.Tensor((16,), "int32"),
             F: T.Tensor((16,), "float32"), OutI: T.Tensor((16,), "int32"),
             OutB: T.Tensor((16,), "bool"), CastF: T.Tensor((16,), "float32"),
             CastB: T.Tensor((16,), "bool")):
        with T.Kernel(1, threads=128) as bx:
            s = T.alloc_local((16,), "int32")
            t = T.alloc_local((16,), "bool")
            T.copy(A, s)
            T.copy(s, OutI)
            T.copy(I, t)
            T.copy(t, OutB)
            for i in T.serial(16):
                CastF[i] = T.cast(A[i], "float32")
                CastB[i] = T.cast(F[i], "bool")

    kernel = tilelang_mlir.compile(main, out_idx=[3, 4, 5, 6])
    rng = np.random.default_rng()
    a = rng.integers(0, 2, 16).astype(bool)
    i = rng.integers(-3, 4, 16).astype(np.int32)
    f = rng.choice([0.0, 0.5, -2.0, -0.0], 16).astype(np.float32)
    out_i, out_b, cast_f, cast_b = kernel(a, i, f)
    np.testing.assert_array_equal(out_i, a.astype(np.int32))
    np.testing.assert_array_equal(out_b, i.astype(bool))
    np.testing.assert_array_equal(cast_f, a.astype(np.float32))
    np.testing.assert_array_equal(cast_b, f.astype(bool))


def test_non_contiguous_inputs_keep_their_strides():
    """A strided or transposed numpy view is read through its strides."""
    @T.prim_func
    def main(A: T.Tensor((8, 16), "float32"), B: T.Tensor((8, 16), "float32")):
        with T.Kernel(1, threads=128) as bx:
            s = T.alloc_shared((8, 16), "float32")
            T.copy(A[0, 0], s)
            T.copy(s, B[0, 0])

    kernel = tilelang_mlir.compile(main, out_idx=[1])
    base = np.random.default_rng().standard_normal((16, 32)).astype(
        np.float32)
    for view in (base[:8, ::2], base[:16, :8].T, base[::2, 1::2]):
        np.testing.assert_array_equal(kernel(view), view)


def _elementwise_copy_in_parallel(M, N, bm, bn):
    @T.prim_func
    def main(A: T.Tensor((M, N), T.float16), B: T.Tensor((M, N), T.float16)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            for i, j in T.Parallel(bm, bn):
                T.copy(A[by * bm + i, bx * bn + j], B[by * bm + i, bx * bn + j])
    return main


def test_copy_of_one_element_inside_parallel_runs_in_the_thread():
    # TileLang's T.copy(A[i, j], B[i, j]) in a T.Parallel body: the copy's
    # own loop runs in the thread that runs the iteration (it was a
    # tile.parallel nested in the body, which the GPU spread over the block
    # again: most elements were never written).
    func = _elementwise_copy_in_parallel(200, 136, 64, 64)
    assert func.script().count("tile.parallel") == 1
    a = np.random.default_rng().standard_normal((200, 136)).astype(np.float16)
    b = np.full_like(a, np.nan)
    tilelang_mlir.compile(func, target="cpu")(a, b)
    np.testing.assert_array_equal(b, a)
    try:
        import torch
    except ImportError:
        return
    if not torch.cuda.is_available():
        return
    a_t = torch.randn(200, 136, device="cuda", dtype=torch.float16)
    b_t = torch.full_like(a_t, float("nan"))
    tilelang_mlir.compile(func, target="cuda")(a_t, b_t)
    assert torch.equal(b_t, a_t)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seq", [1000, T.symbolic("S")])
def test_attention_softmax_under_p_v(causal, seq):
    # TileLang's Hopper FlashAttention configuration (128x128 tiles, 256
    # threads, 2 stages) compiled for sm_90a: the loop issues S = Q K^T with
    # the previous tile's P V and waits for S alone before its softmax
    # (tile-overlap-gemm-chains); the first tile's S and the last P V come
    # out of it, guarded when the trip count is a run-time value. Off with
    # the option. (The numbers are checked on the GPU: test_gpu.py.)
    func = attention_layouts.flash_attention(2, 4, seq, 128, causal,
                                             layout="bshd", block_M=128,
                                             block_N=128, threads=256,
                                             num_stages=2)
    kernel = tilelang_mlir.compile(func, out_idx=[3], target="sm_90a")
    pipelined = kernel.get_kernel_source("pipelined")
    # (The consumer warpgroups take turns issuing the two: ping-pong.)
    assert re.search(r"wg_wait = -1 : i64\}.*\n.*wg_wait = -1 : i64\}.*\n"
                     r"(\s*\}\n)?\s*tile.gemm_wait pending\(1\)",
                     pipelined), pipelined
    assert pipelined.count("tile.gemm_wait pending(0)") >= 1
    guarded = re.search(r"scf.if .*\{\n\s*tile.gemm ", pipelined) is not None
    assert guarded == (causal or not isinstance(seq, int))
    off = tilelang_mlir.compile(func, out_idx=[3], target="sm_90a",
                                pass_configs={"overlap_gemm_chains": False})
    assert "gemm_wait" not in off.get_kernel_source("pipelined")
