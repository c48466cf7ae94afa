"""The Python layer on a GPU (the H200 of the GPU machine): T.* kernels
compiled for sm_90a, called with torch CUDA tensors (in place, through
DLPack) and with numpy arrays (through device copies), against torch: the
CPU suite's programs (test/Python: TileLang's GEMM+ReLU, softmax, row
reductions, cumsum, FlashAttention, int4 dequantize-GEMM) on fresh random
inputs and edge shapes, plus the profiler on the GPU.

Skips where there is no CUDA GPU or no torch. Runs under pytest or alone:
    PYTHONPATH=<package dir> python3 python/tests/test_gpu.py
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
SUITE = os.path.join(HERE, "..", "..", "test", "Python")

import tilelang_mlir  # noqa: E402
import tilelang_mlir.language as T  # noqa: E402
from kernels import matmul_func, tile_copy_func  # noqa: E402

TARGET = os.environ.get("TILE_GPU_TARGET", "sm_90a")


class Skip(Exception):
    pass


def _torch():
    """torch with a CUDA device, or skip."""
    try:
        import torch
    except ImportError:
        raise Skip("torch is not installed")
    if not torch.cuda.is_available():
        raise Skip("no CUDA device")
    return torch


def _skip(reason):
    if "pytest" in sys.modules:  # Under pytest: its skip.
        sys.modules["pytest"].skip(reason)
    raise Skip(reason)


def _needs_gpu():
    try:
        return _torch()
    except Skip as skip:
        _skip(str(skip))


def test_matmul_on_torch_cuda_tensors_in_place():
    torch = _needs_gpu()
    kernel = tilelang_mlir.compile(
        matmul_func(T.symbolic("M"), 96, 80, block_M=64, block_N=32,
                    block_K=16, threads=128), out_idx=[-1], target=TARGET)
    for m in (1, 70, 128):
        a = torch.randn(m, 80, device="cuda", dtype=torch.float16)
        b = torch.randn(80, 96, device="cuda", dtype=torch.float16)
        c = kernel(a, b)
        assert isinstance(c, torch.Tensor) and c.is_cuda
        assert c.shape == (m, 96) and c.dtype == torch.float32
        torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-3,
                                   atol=1e-3)
    # Written in place: a preallocated output, poisoned first.
    whole = tilelang_mlir.compile(kernel.func, target=TARGET)
    out = torch.full((70, 96), float("nan"), device="cuda")
    a = torch.randn(70, 80, device="cuda", dtype=torch.float16)
    b = torch.randn(80, 96, device="cuda", dtype=torch.float16)
    whole(a, b, out)
    torch.testing.assert_close(out, a.float() @ b.float(), rtol=1e-3,
                               atol=1e-3)


def test_matmul_on_numpy_arrays_through_device_copies():
    _needs_gpu()
    kernel = tilelang_mlir.compile(matmul_func(64, 64, 32, threads=128),
                                   out_idx=[-1], target=TARGET)
    rng = np.random.default_rng()
    a = rng.standard_normal((64, 32)).astype(np.float16)
    b = rng.standard_normal((32, 64)).astype(np.float16)
    c = kernel(a, b)
    assert isinstance(c, np.ndarray)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)


def test_flash_attention_against_torch_sdpa():
    torch = _needs_gpu()
    from flash_attention import flash_attention
    import torch.nn.functional as F
    for causal in (False, True):
        func = flash_attention(2, 3, T.symbolic("S"), 64, causal)
        kernel = tilelang_mlir.compile(func, out_idx=[3], target=TARGET)
        for s in (70, 256):
            q, k, v = (torch.randn(2, 3, s, 64, device="cuda",
                                   dtype=torch.float16) for _ in range(3))
            out = kernel(q, k, v)
            ref = F.scaled_dot_product_attention(q.float(), k.float(),
                                                 v.float(), is_causal=causal)
            torch.testing.assert_close(out.float(), ref, rtol=1e-2,
                                       atol=2e-3)


def _suite(name):
    """A module of the CPU suite (test/Python), under its own name."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "suite_" + name, os.path.join(SUITE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _on_gpu(jitted, out_idx):
    """The CPU suite's jitted kernel, compiled for the GPU."""
    return tilelang_mlir.compile(jitted.func, out_idx=out_idx, target=TARGET)


def test_gemm_relu_from_the_readme():
    torch = _needs_gpu()
    gemm_relu = _suite("gemm_relu")
    for m, n, k in ((128, 128, 64), (130, 65, 33)):
        kernel = _on_gpu(gemm_relu.matmul(T.symbolic("M"), T.symbolic("N"),
                                          T.symbolic("K"), 64, 64, 32), [-1])
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        torch.testing.assert_close(kernel(a, b).float(),
                                   torch.relu(a.float() @ b.float()),
                                   rtol=1e-2, atol=1e-2)


def test_softmax_row_reductions_and_cumsum():
    torch = _needs_gpu()
    suite = _suite("kernels")
    x = torch.randn(13, 1024, device="cuda")
    softmax = _on_gpu(suite.softmax(T.symbolic("M")), [1])
    torch.testing.assert_close(softmax(x), torch.softmax(x, dim=1),
                               rtol=1e-5, atol=1e-6)
    x = torch.randn(70, 300, device="cuda")
    stats = _on_gpu(suite.row_stats(T.symbolic("M"), T.symbolic("N")),
                    [1, 2, 3])
    s, mx, a = stats(x)
    torch.testing.assert_close(s, x.sum(1), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(mx, x.amax(1), rtol=0, atol=0)
    torch.testing.assert_close(a, x.abs().sum(1), rtol=1e-4, atol=1e-4)
    x = torch.randn(45, 256, device="cuda")
    for reverse in (False, True):
        scan = _on_gpu(suite.cumsum(T.symbolic("M"), 256, reverse=reverse),
                       [1])
        want = (x.flip(1).cumsum(1).flip(1) if reverse else x.cumsum(1))
        torch.testing.assert_close(scan(x), want, rtol=1e-4, atol=1e-4)


def test_dequantize_gemm():
    torch = _needs_gpu()
    suite = _suite("kernels")
    m, n, k = 100, 90, 64
    rng = np.random.default_rng()
    q = rng.integers(0, 16, (n, k))
    packed = ((q[:, 1::2] << 4) | q[:, 0::2]).astype(np.uint8).view(np.int8)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    scale = (torch.rand(n, device="cuda") * 0.1 + 0.01).half()
    kernel = _on_gpu(suite.dequant_gemm(T.symbolic("M"), T.symbolic("N"),
                                        T.symbolic("K")), [3])
    c = kernel(a, torch.from_numpy(packed).cuda(), scale)
    w = (torch.from_numpy(q).cuda().half() - 8) * scale[:, None]
    torch.testing.assert_close(c.float(), a.float() @ w.float().t(),
                               rtol=1e-2, atol=5e-2)


def test_profiler_on_the_gpu():
    torch = _needs_gpu()
    kernel = tilelang_mlir.compile(matmul_func(256, 256, 128, block_M=64,
                                               block_N=64, threads=128),
                                   out_idx=[-1], target=TARGET)
    profiler = kernel.get_profiler()
    # torch tensors on the GPU in, the reference gets them too.
    profiler.assert_allclose(lambda a, b: a.float() @ b.float(), rtol=1e-3,
                             atol=1e-3)
    ms = profiler.do_bench(warmup=5, rep=20)
    assert 0 < ms < 100, ms
    assert isinstance(profiler.supply_inputs()[0], torch.Tensor)


def test_sass_shows_wgmma_and_tma():
    # The sm_90a lowering's instructions in the machine code: HGMMA (wgmma),
    # UTMALDG (TMA loads), SYNCS (mbarriers), no LDGSTS (cp.async).
    _needs_gpu()
    from tilelang_mlir import device_code
    if not (device_code.find_cuda_tool("cuobjdump")
            or device_code.find_cuda_tool("nvdisasm")):
        _skip("no cuobjdump or nvdisasm")
    kernel = tilelang_mlir.compile(
        matmul_func(512, 512, 512, block_M=128, block_N=128, block_K=64,
                    threads=256, stages=3), out_idx=[-1], target=TARGET)
    counts = device_code.opcodes(kernel.get_kernel_source("sass"))
    for op in ("HGMMA", "UTMALDG", "SYNCS"):
        assert counts.get(op), (op, counts)
    assert not counts.get("LDGSTS"), counts


def test_attention_layouts_against_torch_sdpa():
    # TileLang's BSHD FlashAttention (every copy a region over non-trailing
    # dimensions), BHSD, and grouped-query attention, in several block
    # configurations (wgmma with one or two m64 blocks per warpgroup and
    # mma.sync, TMA boxes of rank 4 with unit extents), on fresh inputs with edge tiles, against torch.
    torch = _needs_gpu()
    import torch.nn.functional as F
    from attention_layouts import flash_attention
    configs = [("bshd", 1, 64, 64, 128, 1), ("bshd", 1, 128, 64, 128, 2),
               ("bshd", 1, 128, 128, 256, 2), ("bhsd", 1, 128, 64, 128, 2),
               ("bshd", 4, 64, 64, 128, 2),
               # TileLang's example config: one warpgroup owns 128 rows (two
               # m64 blocks per wgmma, P from registers).
               ("bhsd", 1, 128, 128, 128, 1)]
    for layout, groups, bm, bn, threads, stages in configs:
        for causal in (False, True):
            b, h, s, d = 2, 8, 1000, 64
            func = flash_attention(b, h, s, d, causal, layout=layout,
                                   groups=groups, block_M=bm, block_N=bn,
                                   threads=threads, num_stages=stages)
            kernel = tilelang_mlir.compile(func, out_idx=[3], target=TARGET)
            kv_h = h // groups
            q = torch.randn(b, h, s, d, device="cuda", dtype=torch.float16)
            k, v = (torch.randn(b, kv_h, s, d, device="cuda",
                                dtype=torch.float16) for _ in range(2))
            ref = F.scaled_dot_product_attention(
                q.float(), k.float().repeat_interleave(groups, 1),
                v.float().repeat_interleave(groups, 1), is_causal=causal)
            if layout == "bshd":
                args = [x.transpose(1, 2).contiguous() for x in (q, k, v)]
                out = kernel(*args).transpose(1, 2)
            else:
                out = kernel(q, k, v)
            torch.testing.assert_close(
                out.float(), ref, rtol=1e-2, atol=3e-3,
                msg=lambda m: "%s groups=%d %dx%d/%d causal=%s: %s" % (
                    layout, groups, bm, bn, threads, causal, m))



def _single_stage_gemm(M, N, K, bm, bn, bk):
    """A GEMM over one stage whose A tile is also read by a parallel loop
    after the gemm (its refill must wait for that loop), before the loop
    (the first K tile, copied outside it) and after it (the last K tile)."""
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float32"), R: T.Tensor((M, bk), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_f = T.alloc_fragment((bm, bn), "float32")
            r = T.alloc_fragment((bm, bk), "float32")
            T.clear(C_f)
            T.clear(r)
            T.copy(A[by * bm, 0], A_s)
            for i, j in T.Parallel(bm, bk):
                r[i, j] += A_s[i, j]
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=1):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_f)
                for i, j in T.Parallel(bm, bk):
                    r[i, j] += A_s[i, j] * 2
            for i, j in T.Parallel(bm, bk):
                r[i, j] += A_s[i, j] * 4
            T.copy(C_f, C[by * bm, bx * bn])
            if bx == 0:
                T.copy(r, R[by * bm, 0])
    return main


def test_single_stage_pipelines_refill_after_the_last_read():
    # num_stages=1 loops copy asynchronously into their one tile, refilled
    # right after the iteration's last read of it (tile-plan-pipelines
    # {single-stage}): through TMA barriers and through cp.async groups,
    # against numpy, with edge tiles in M and K, and without the option.
    torch = _needs_gpu()
    M, N, K, bm, bn, bk = 250, 192, 1000, 64, 64, 32
    rng = np.random.default_rng()
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    tiles = -(-K // bk)
    padded = np.zeros((M, tiles * bk), np.float32)
    padded[:, :K] = a
    blocks = padded.reshape(M, tiles, bk)
    want_r = blocks[:, 0] + 2 * blocks.sum(axis=1) + 4 * blocks[:, -1]
    want_c = a.astype(np.float32) @ b.astype(np.float32)
    for configs in ({}, {"tma": False}, {"single_stage": False}):
        kernel = tilelang_mlir.compile(_single_stage_gemm(M, N, K, bm, bn, bk),
                                       target=TARGET, pass_configs=configs)
        A, B = (torch.from_numpy(x).cuda() for x in (a, b))
        C = torch.full((M, N), float("nan"), device="cuda")
        R = torch.full((M, bk), float("nan"), device="cuda")
        kernel(A, B, C, R)
        np.testing.assert_allclose(C.cpu().numpy(), want_c, rtol=1e-3,
                                   atol=1e-2, err_msg=str(configs))
        np.testing.assert_allclose(R.cpu().numpy(), want_r, rtol=1e-3,
                                   atol=1e-2, err_msg=str(configs))


def test_single_stage_producer_attention_against_torch_sdpa():
    # The experimental single_stage_producer: a producer warpgroup refills
    # the one-stage K and V tiles of a 256-thread FlashAttention (two
    # consumer warpgroups), each after the consumers released it; edge
    # tiles (s=1000), causal or not, against torch.
    torch = _needs_gpu()
    import torch.nn.functional as F
    from attention_layouts import flash_attention
    for causal in (False, True):
        b, h, s, d = 2, 8, 1000, 64
        func = flash_attention(b, h, s, d, causal, layout="bhsd", block_M=128,
                               block_N=64, threads=256, num_stages=1)
        kernel = tilelang_mlir.compile(
            func, out_idx=[3], target=TARGET,
            pass_configs={"single_stage_producer": True,
                          # (The rotated loop reads K's tile before it.)
                          "overlap_gemm_chains": False})
        assert "setmaxnreg" in kernel.get_kernel_source("ptx")
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16)
                   for _ in range(3))
        ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                             is_causal=causal)
        torch.testing.assert_close(kernel(q, k, v).float(), ref, rtol=1e-2,
                                   atol=3e-3)


def test_softmax_under_p_v_against_torch_sdpa():
    # TileLang's Hopper FlashAttention configuration (128x128 tiles, 256
    # threads, 2 stages), whose loop tile-overlap-gemm-chains rotates (S_k
    # issued with P_{k-1} V_{k-1}, the first S and the last P V outside the
    # loop, guarded for run-time trip counts): head dims 64 and 128, causal
    # or not, a static and a symbolic sequence length, sequences of one key
    # tile (the loop runs zero times), of a partial last tile and of several
    # tiles, against torch and against the same program without the
    # rotation.
    torch = _needs_gpu()
    import torch.nn.functional as F
    from attention_layouts import flash_attention
    for d in (64, 128):
        for causal in (False, True):
            for seq in (T.symbolic("S"), 1000):
                func = flash_attention(2, 4, seq, d, causal, layout="bhsd",
                                       block_M=128, block_N=128, threads=256,
                                       num_stages=2)
                kernel = tilelang_mlir.compile(func, out_idx=[3], target=TARGET)
                plain = tilelang_mlir.compile(
                    func, out_idx=[3], target=TARGET,
                    pass_configs={"overlap_gemm_chains": False})
                assert "gemm_wait pending(1)" in kernel.get_kernel_source(
                    "pipelined")
                for s in ((100, 1000, 1024) if not isinstance(seq, int)
                          else (seq,)):
                    q, k, v = (torch.randn(2, 4, s, d, device="cuda",
                                           dtype=torch.float16) for _ in range(3))
                    ref = F.scaled_dot_product_attention(
                        q.float(), k.float(), v.float(), is_causal=causal)
                    out = kernel(q, k, v)
                    torch.testing.assert_close(
                        out.float(), ref, rtol=1e-2, atol=3e-3,
                        msg=lambda m: "d%d s%d causal=%s: %s" % (d, s, causal, m))
                    torch.testing.assert_close(out, plain(q, k, v), rtol=1e-2,
                                               atol=2e-3)

def test_mla_decode_layout_against_torch():
    torch = _needs_gpu()
    from attention_layouts import mla_decode
    b, h, kv_h, s, d, pe = 4, 32, 2, 1000, 128, 64
    kernel = tilelang_mlir.compile(mla_decode(b, h, kv_h, s, d, pe),
                                   out_idx=[4], target=TARGET)
    q = torch.randn(b, h, d, device="cuda", dtype=torch.float16)
    q_pe = torch.randn(b, h, pe, device="cuda", dtype=torch.float16)
    kv = torch.randn(b, s, kv_h, d, device="cuda", dtype=torch.float16)
    k_pe = torch.randn(b, s, kv_h, pe, device="cuda", dtype=torch.float16)
    out = kernel(q, q_pe, kv, k_pe)
    group = h // kv_h
    keys = torch.cat([kv, k_pe], -1).float().repeat_interleave(group, 2)
    query = torch.cat([q, q_pe], -1).float()
    scores = torch.einsum("bhd,bshd->bhs", query, keys) / (d + pe) ** 0.5
    ref = torch.einsum("bhs,bshd->bhd", scores.softmax(-1),
                       kv.float().repeat_interleave(group, 2))
    torch.testing.assert_close(out.float(), ref, rtol=1e-2, atol=3e-3)


def test_mla_decode_hopper_config_against_torch():
    # TileLang's Hopper MLA configuration (64 heads x 64 keys per step,
    # 256 threads, 2 stages, full_col warps, probabilities staged in shared
    # memory, dims 512 + 64): its tiles take 231,456 of the 232,448 bytes a
    # block may have. A ragged last key block (1000 keys).
    torch = _needs_gpu()
    from attention_layouts import mla_decode
    b, h, s, d, pe = 3, 128, 1000, 512, 64
    kernel = tilelang_mlir.compile(
        mla_decode(b, h, 1, s, d, pe, block_N=64, block_H=64, threads=256,
                   num_stages=2, full_col=True, probs_in_shared=True),
        out_idx=[4], target=TARGET)
    q = torch.randn(b, h, d, device="cuda", dtype=torch.float16)
    q_pe = torch.randn(b, h, pe, device="cuda", dtype=torch.float16)
    kv = torch.randn(b, s, 1, d, device="cuda", dtype=torch.float16)
    k_pe = torch.randn(b, s, 1, pe, device="cuda", dtype=torch.float16)
    out = kernel(q, q_pe, kv, k_pe)
    keys = torch.cat([kv, k_pe], -1).float()[:, :, 0]
    query = torch.cat([q, q_pe], -1).float()
    scores = torch.einsum("bhd,bsd->bhs", query, keys) / (d + pe) ** 0.5
    ref = torch.einsum("bhs,bsd->bhd", scores.softmax(-1), kv.float()[:, :, 0])
    torch.testing.assert_close(out.float(), ref, rtol=1e-2, atol=3e-3)


def test_copy_fuzzer_on_the_gpu():
    # The CPU suite's differential fuzzer of region copies, on the GPU with
    # torch CUDA tensors (in place), against its numpy reference.
    _needs_gpu()
    import copy_fuzz
    seed = int(os.environ.get("TILE_FUZZ_SEED", "20261202"))
    failures, ran = copy_fuzz.fuzz(seed=seed, count=int(
        os.environ.get("TILE_FUZZ_COUNT", "150")), target=TARGET,
        use_torch=True, budget=float(os.environ.get("TILE_FUZZ_BUDGET",
                                                    "240")))
    assert ran > 0 and not failures, "seed %d: %d of %d failed: %s" % (
        seed, len(failures), ran, failures[:5])


def test_program_fuzzer_on_the_gpu():
    # The differential fuzzer of whole programs (maps, reductions, K loops,
    # gemms, prefix sums with edge tiles) on the GPU with torch CUDA
    # tensors: each result against the numpy model and against the CPU's.
    # Programs the GPU pipeline refuses are listed, not failures.
    _needs_gpu()
    import program_fuzz
    seed = int(os.environ.get("TILE_FUZZ_SEED", "20261202"))
    failures, refused, ran = program_fuzz.fuzz(seed=seed, count=int(
        os.environ.get("TILE_FUZZ_COUNT", "150")), target=TARGET,
        use_torch=True, budget=float(os.environ.get("TILE_FUZZ_BUDGET", "240")))
    for case, reason in refused:
        print("refused:", case, reason)
    assert ran > 0 and not failures, "seed %d: %d of %d failed: %s" % (
        seed, len(failures), ran, failures[:5])


def test_empty_and_one_element_tensors():
    # Empty inputs run (an empty grid launches nothing; torch's empty CUDA
    # tensors have no storage, numpy's empty arrays zero strides), and a
    # one-element float32 array through device copies keeps its neighbours.
    torch = _needs_gpu()
    kernel = tilelang_mlir.compile(tile_copy_func(), target=TARGET)
    for shape in ((0, 5), (5, 0), (0, 0)):
        a = torch.randn(*shape, device="cuda")
        b = torch.empty_like(a)
        kernel(a, b)
        h = np.zeros(shape, np.float32)
        kernel(h, np.zeros(shape, np.float32))
    guard = np.full(4, 7.0, np.float32)
    out = guard[1:2]  # one element with neighbours on both sides
    kernel(np.full((1, 1), 3.0, np.float32), out.reshape(1, 1))
    assert guard.tolist() == [7.0, 3.0, 7.0, 7.0], guard


def test_f8_bytes_decode_on_the_gpu():
    # tile-expand-f8 in the device code: every byte of both formats, against
    # the decoder written from the formats' definitions (test_f8.py).
    _needs_gpu()
    import test_f8
    from tilelang_mlir import _tilelang
    for fmt in ("f8E4M3FN", "f8E5M2"):
        kernel = _tilelang.Kernel(test_f8.KERNEL.format(f8=fmt, out="f32"), TARGET)
        result = np.full(256, 12345, np.float32)
        kernel.run(np.arange(256, dtype=np.uint8).view(np.int8), result)
        want = np.array([test_f8.reference(b, fmt) for b in range(256)])
        nan = np.isnan(want)
        assert (np.isnan(result) == nan).all(), fmt
        assert (result[~nan] == want[~nan]).all(), fmt
        assert (np.signbit(result) == np.signbit(want)).all(), fmt


def test_f8_encodings_on_the_gpu():
    # Conversions to FP8 in device code: cvt.rn.satfinite on sm_89 and newer
    # (tile-nvvm-convert-f8), scalar and through a vectorized fragment copy,
    # against the search reference of test_f8.py (ties, saturation, signed
    # zeros, NaN) on the same inputs.
    _needs_gpu()
    import test_f8
    from tilelang_mlir import _tilelang
    rng = np.random.default_rng()
    for fmt in ("f8E4M3FN", "f8E5M2"):
        x = test_f8._trunc_inputs(fmt, rng)
        want = test_f8.encode_reference(x.astype(np.float64) * 2, fmt)
        source = test_f8.TRUNC_KERNEL.format(
            n=len(x), load="f32", convert="%x = arith.addf %v, %v : f32",
            src="f32", f8=fmt)
        out = np.full(len(x), 0x55, np.uint8)
        _tilelang.Kernel(source, TARGET).run(x, out.view(np.int8))
        bad = np.nonzero(out != want)[0]
        assert len(bad) == 0, (fmt, [(float(x[k]), hex(out[k]), hex(want[k]))
                                     for k in bad[:8]])
        n = 1024 * (len(x) // 1024)
        out = np.full(n, 0x55, np.uint8)
        _tilelang.Kernel(test_f8.TRUNC_COPY_KERNEL.format(n=n, f8=fmt),
                         TARGET).run(x[:n], out.view(np.int8))
        np.testing.assert_array_equal(
            out, test_f8.encode_reference(x[:n].astype(np.float64), fmt))


def test_fp8_tensors_at_the_boundary_and_an_fp8_gemm():
    # torch float8 tensors pass through DLPack as themselves: an e4m3 GEMM
    # (wgmma on sm_90a) with an f32 output, and e5m2 values widened; the
    # profiler draws fp8 inputs too.
    torch = _needs_gpu()
    M, N, K = 128, 64, 64

    @T.prim_func
    def gemm(A: T.Tensor((M, K), T.float8_e4m3fn), B: T.Tensor((N, K), T.float8_e4m3fn),
             C: T.Tensor((M, N), T.float32)):
        with T.Kernel(1, threads=128):
            a = T.alloc_shared((M, K), T.float8_e4m3fn)
            b = T.alloc_shared((N, K), T.float8_e4m3fn)
            c = T.alloc_fragment((M, N), T.float32)
            T.copy(A, a)
            T.copy(B, b)
            T.gemm(a, b, c, transpose_B=True, clear_accum=True)
            T.copy(c, C)

    kernel = tilelang_mlir.compile(gemm, out_idx=[-1], target=TARGET)
    a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
    c = kernel(a, b)
    # On wgmma (m64n64k32, two m64 blocks): its FP8 accumulation keeps
    # fewer bits than f32 across k steps.
    assert "m64n64k32.f32.e4m3.e4m3" in kernel.get_kernel_source("ptx")
    torch.testing.assert_close(c, a.float() @ b.float().T, rtol=1e-2, atol=1e-2)
    kernel.get_profiler().assert_allclose(
        lambda x, y: x.float() @ y.float().T, rtol=1e-2, atol=1e-2)

    @T.prim_func
    def widen(X: T.Tensor((256,), T.float8_e5m2), Y: T.Tensor((256,), T.float32)):
        with T.Kernel(1, threads=128):
            for i in T.Parallel(256):
                Y[i] = T.cast(X[i], T.float32) * 2.0

    x = torch.arange(256, device="cuda", dtype=torch.uint8).view(torch.float8_e5m2)
    y = tilelang_mlir.compile(widen, out_idx=[-1], target=TARGET)(x)
    want = x.float() * 2
    nan = torch.isnan(want)
    assert torch.equal(torch.isnan(y), nan)
    assert torch.equal(y[~nan], want[~nan])


def test_pipelined_fp8_gemms_on_wgmma():
    # TileLang's FP8 GEMM shape (both operands K-major, f32 accumulators)
    # on wgmma m64nNk32 with TMA pipelines: e4m3 x e4m3 and e4m3 x e5m2,
    # edge tiles in M and N, two warpgroups and one with two m64 blocks.
    torch = _needs_gpu()

    def fp8_gemm(M, N, K, a_dtype, b_dtype, BM, BN, BK, threads):
        @T.prim_func
        def main(A: T.Tensor((M, K), a_dtype), B: T.Tensor((N, K), b_dtype),
                 C: T.Tensor((M, N), T.float32)):
            with T.Kernel(T.ceildiv(N, BN), T.ceildiv(M, BM),
                          threads=threads) as (bx, by):
                a = T.alloc_shared((BM, BK), a_dtype)
                b = T.alloc_shared((BN, BK), b_dtype)
                c = T.alloc_fragment((BM, BN), T.float32)
                T.clear(c)
                for k in T.Pipelined(T.ceildiv(K, BK), num_stages=3):
                    T.copy(A[by * BM, k * BK], a)
                    T.copy(B[bx * BN, k * BK], b)
                    T.gemm(a, b, c, transpose_B=True)
                T.copy(c, C[by * BM, bx * BN])
        return main

    g = torch.Generator(device="cuda").manual_seed(int.from_bytes(os.urandom(4), "little"))
    for (M, N, K, bdt, BM, BN, BK, threads, instr) in [
            (1000, 700, 512, T.float8_e4m3fn, 128, 128, 128, 256,
             "m64n128k32.f32.e4m3.e4m3"),
            (300, 260, 384, T.float8_e5m2, 128, 64, 128, 128,
             "m64n64k32.f32.e4m3.e5m2")]:
        kernel = tilelang_mlir.compile(
            fp8_gemm(M, N, K, T.float8_e4m3fn, bdt, BM, BN, BK, threads),
            out_idx=[-1], target=TARGET)
        assert "wgmma.mma_async.sync.aligned." + instr in \
            kernel.get_kernel_source("ptx")
        a = torch.randn(M, K, device="cuda", generator=g).to(torch.float8_e4m3fn)
        b = torch.randn(N, K, device="cuda", generator=g).to(
            torch.float8_e4m3fn if bdt == T.float8_e4m3fn else torch.float8_e5m2)
        c = kernel(a, b)
        # FP8 wgmma accumulates across k steps with fewer bits than f32
        # (a single k32 step is exact); a wrong layout errs by whole sums.
        torch.testing.assert_close(c, a.float() @ b.float().T, rtol=1e-2,
                                   atol=5e-2)


def test_tensors_that_require_grad_are_used_in_place():
    torch = _needs_gpu()

    @T.prim_func
    def double(X: T.Tensor((1000,), T.float32), Y: T.Tensor((1000,), T.float32)):
        with T.Kernel(T.ceildiv(1000, 128), threads=128) as bx:
            for i in T.Parallel(128):
                if bx * 128 + i < 1000:
                    Y[bx * 128 + i] = X[bx * 128 + i] * 2.0

    x = torch.randn(1000, device="cuda", requires_grad=True)
    y = torch.full((1000,), float("nan"), device="cuda", requires_grad=True)
    tilelang_mlir.compile(double, target=TARGET)(x, y)
    torch.testing.assert_close(y.detach(), x.detach() * 2)


def test_outputs_of_a_kernel_without_inputs_are_cuda_tensors():
    # As TileLang's: kernel() on a CUDA target returns torch CUDA tensors.
    torch = _needs_gpu()

    @T.prim_func
    def lanes(A: T.Tensor((128,), T.int32)):
        with T.Kernel(1, threads=128):
            tx = T.get_thread_binding()
            A[tx] = T.get_lane_idx() + T.get_warp_idx() * 100 + T.shuffle_elect(64) * 1000

    out = tilelang_mlir.compile(lanes, out_idx=[-1], target=TARGET)()
    assert isinstance(out, torch.Tensor) and out.is_cuda
    t = torch.arange(128, device="cuda", dtype=torch.int32)
    torch.testing.assert_close(out, t % 32 + (t // 32) * 100 + (t % 64 == 0).int() * 1000)


def test_in_place_output_views_on_the_gpu():
    # A non-contiguous numpy output of a GPU kernel (no out_idx) is written
    # back through its view.
    _needs_gpu()
    kernel = tilelang_mlir.compile(tile_copy_func(), target=TARGET)
    a = np.random.default_rng(3).standard_normal((20, 35)).astype(np.float32)
    base = np.full((35, 20), -1, np.float32)
    kernel(a, base.T)
    assert (base.T == a).all()


def test_device_tensor_on_a_cpu_kernel_is_refused():
    torch = _needs_gpu()
    kernel = tilelang_mlir.compile(matmul_func(32, 32, 16), out_idx=[-1])
    a = torch.zeros(32, 16, device="cuda", dtype=torch.float16)
    b = torch.zeros(16, 32, device="cuda", dtype=torch.float16)
    try:
        kernel(a, b)
    except tilelang_mlir.TileError as error:
        assert "lives on a CUDA device" in str(error), error
    else:
        raise AssertionError("a CUDA tensor ran on a CPU kernel")


def test_auto_target_and_device_branches_on_the_gpu():
    """target="auto" (TILE_TARGET unset) takes device 0's chip, and a kernel
    with Python if/elif/else, a ternary, and/or and == on device values
    (frontend.py) computes on it what numpy loops compute."""
    torch = _needs_gpu()
    from test_control_flow import branches, branches_reference
    capability = torch.cuda.get_device_capability()
    saved = os.environ.pop("TILE_TARGET", None)
    try:
        kernel = tilelang_mlir.compile(branches(96, 0.25))
    finally:
        if saved is not None:
            os.environ["TILE_TARGET"] = saved
    chip = "sm_%d%d" % capability + ("a" if capability[0] >= 9 else "")
    assert kernel.target == chip, (kernel.target, chip)
    a = torch.randn(96, device="cuda", dtype=torch.float32)
    b = torch.full_like(a, float("nan"))
    kernel(a, b)
    np.testing.assert_array_equal(b.cpu().numpy(),
                                  branches_reference(a.cpu().numpy(), 0.25))


def test_strided_torch_views_in_place():
    # T.StridedTensor: a torch view a[:, 3:3 + K] (offset, rows of the wide
    # tensor's stride) is the operand as it is: elementwise, and a GEMM
    # whose TMA map is encoded from the view's strides (wgmma).
    torch = _needs_gpu()
    from test_strided import _copy_with_stride, _gemm
    kernel = tilelang_mlir.compile(_copy_with_stride(300, 200, T.dynamic("NN"), 64, 64),
                                   out_idx=[1], target=TARGET)
    wide = torch.randn(300, 264, device="cuda", dtype=torch.float16)
    torch.testing.assert_close(kernel(wide[:, 8:208]), wide[:, 8:208], rtol=0, atol=0)
    kernel = tilelang_mlir.compile(
        _gemm(256, 256, 320, T.dynamic("KK"), 128, 128, 32, "float16"),
        out_idx=[2], target=TARGET)
    wide = torch.randn(256, 400, device="cuda", dtype=torch.float16)
    b = torch.randn(320, 256, device="cuda", dtype=torch.float16)
    a = wide[:, 8:328]  # rows 800 bytes apart, starting 16 bytes in
    torch.testing.assert_close(kernel(a, b), a.float() @ b.float(),
                               rtol=1e-2, atol=1e-2)


def test_alloc_global_between_kernels_on_the_stream():
    # T.alloc_global's buffer comes from torch's allocator on the call's
    # stream and carries one kernel's partial sums to the next.
    torch = _needs_gpu()
    from test_alloc_global import split_row_sums
    kernel = tilelang_mlir.compile(split_row_sums(T.dynamic("M"), 256, 8),
                                   out_idx=[1], target=TARGET)
    for m in (7, 64):
        x = torch.randn(m, 256, device="cuda")
        torch.testing.assert_close(kernel(x), x.sum(1), rtol=1e-4, atol=1e-3)


def test_gemm_on_regions_of_shared_tiles():
    # T.gemm of views (A_shared[:, k:], a stage of a 3-D tile) on tensor
    # cores: the views keep the tiles unswizzled, read through ldmatrix.
    torch = _needs_gpu()
    from test_gemm_views import offset_operands, staged_operands
    a = torch.randn(256, 320, device="cuda", dtype=torch.float16)
    b = torch.randn(320, 192, device="cuda", dtype=torch.float16)
    kernel = tilelang_mlir.compile(offset_operands(256, 192, 320, 128, 64, 32),
                                   out_idx=[2], target=TARGET)
    torch.testing.assert_close(kernel(a, b).float(), a.float() @ b.float(),
                               rtol=1e-2, atol=5e-2)
    kernel = tilelang_mlir.compile(staged_operands(256, 192, 320, 128, 64, 32),
                                   out_idx=[2], target=TARGET)
    bt = b.t().contiguous()
    torch.testing.assert_close(kernel(a, bt), a.float() @ b.float(),
                               rtol=1e-2, atol=5e-2)


def _swizzled_round_trip(M, N, dtype):
    """Y = X * 3 through a shared tile with a swizzle that a T.Parallel loop
    writes and T.copy reads back."""

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, 64), threads=128) as bx:
            s = T.alloc_shared((64, N), dtype)
            T.annotate_layout({s: T.make_swizzled_layout(s)})
            for i, j in T.Parallel(64, N):
                s[i, j] = X[bx * 64 + i, j] * 3
            T.copy(s, Y[bx * 64, 0])
    return main


def test_parallel_loops_write_swizzled_shared_tiles_in_vectors():
    # The bench's int4 dequantize-GEMM program (bench/tilelang_peer.py).
    sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
    from tilelang_peer import dequant_gemm
    # A T.Parallel body storing to a swizzled shared tile runs in groups of
    # consecutive columns with one vector store each, placed by the
    # swizzle (dequantized gemm operands, TileLang's dequantize-GEMM style);
    # checked against torch on fresh inputs, with edge tiles in M.
    torch = _needs_gpu()
    for M, N, K, cfg in ((256, 384, 512, (128, 128, 128, 256, 3)),
                         (16, 256, 384, (64, 128, 128, 128, 3)),
                         (200, 256, 256, (64, 128, 64, 128, 2)),
                         # Operand tiles rewritten each iteration take two
                         # buffers and the gemm stays in flight (4 stages).
                         (256, 384, 1024, (128, 128, 64, 256, 3)),
                         (130, 256, 640, (64, 128, 64, 128, 4))):
        BM, BN, BK, threads, stages = cfg
        G = 128 if BK == 128 else 64
        kernel = tilelang_mlir.compile(
            dequant_gemm(T, M, N, K, BM, BN, BK, G, threads, stages),
            out_idx=[3], target=TARGET)
        ptx = kernel.get_kernel_source("ptx")
        assert "st.shared.v4.b32" in ptx, "no vector stores of the operand"
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randint(0, 256, (N, K // 2), device="cuda", dtype=torch.uint8)
        s = (torch.rand(N, K // G, device="cuda") * 0.05 + 0.01).half()
        w = torch.empty(N, K, device="cuda")
        w[:, 0::2] = (b & 15).float() - 8
        w[:, 1::2] = (b >> 4).float() - 8
        w = (w * s.float().repeat_interleave(G, dim=1)).half()
        torch.testing.assert_close(kernel(a, b, s).float(), a.float() @ w.float().t(),
                                   rtol=1e-2, atol=5e-2)
    for dtype, N in (("float16", 64), ("float32", 32), ("int8", 128), ("bfloat16", 128)):
        kernel = tilelang_mlir.compile(_swizzled_round_trip(192, N, dtype),
                                       out_idx=[1], target=TARGET)
        tdtype = getattr(torch, dtype)
        x = (torch.randn(192, N, device="cuda") * 20).to(tdtype)
        torch.testing.assert_close(kernel(x), x * 3, rtol=0, atol=0)


if __name__ == "__main__":
    passed = failed = skipped = 0
    for name, test in sorted(globals().items()):
        if not name.startswith("test_"):
            continue
        try:
            test()
            passed += 1
            print("PASS", name)
        except Skip as skip:
            skipped += 1
            print("SKIP", name, "-", skip)
        except Exception as error:  # noqa: BLE001 (reported)
            failed += 1
            print("FAIL", name, "-", type(error).__name__, error)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    sys.exit(1 if failed else 0)


def test_parallel_loop_with_local_scratch_updates_each_element_once():
    # A T.Parallel that writes an alloc_local scratch and global memory is
    # split over the threads (TileLang's partition): B[i] += 2 A[i] + 1
    # happens once per element, not once per thread.
    _needs_gpu()

    @T.prim_func
    def main(A: T.Tensor((1024,), T.float32), B: T.Tensor((1024,), T.float32)):
        with T.Kernel(4, threads=128) as bx:
            loc = T.alloc_local((2,), T.float32)
            for i in T.Parallel(256):
                loc[0] = A[bx * 256 + i] * 2.0
                loc[1] = loc[0] + 1.0
                B[bx * 256 + i] = B[bx * 256 + i] + loc[1]

    kernel = tilelang_mlir.compile(main, target=TARGET)
    a = np.random.default_rng().standard_normal(1024).astype(np.float32)
    b = np.random.default_rng().standard_normal(1024).astype(np.float32)
    want = b + 2 * a + 1
    kernel(a, b)
    np.testing.assert_allclose(b, want, rtol=1e-6, atol=1e-6)


def test_both_branches_of_a_warp_range_run_tile_ops():
    # `if tx < 128: T.copy(...) else: T.copy(...)`: each branch is a range of
    # 128 threads of its own (the else becomes an if on tx >= 128).
    _needs_gpu()

    @T.prim_func
    def main(A: T.Tensor((256,), T.float32), B: T.Tensor((256,), T.float32),
             C: T.Tensor((512,), T.float32)):
        with T.Kernel(1, threads=256):
            s = T.alloc_shared((256,), T.float32)
            t = T.alloc_shared((256,), T.float32)
            tx = T.get_thread_binding()
            if tx < 128:
                T.copy(A, s)
            else:
                T.copy(B, t)
            T.copy(s, C[0:256])
            T.copy(t, C[256:512])

    kernel = tilelang_mlir.compile(main, target=TARGET)
    assert kernel.get_kernel_source("loops").count("tile.thread_range") == 2
    a = np.random.default_rng().standard_normal(256).astype(np.float32)
    b = np.random.default_rng().standard_normal(256).astype(np.float32)
    c = np.full(512, np.nan, np.float32)
    kernel(a, b, c)
    np.testing.assert_array_equal(c, np.concatenate([a, b]))


def test_gemm_rows_of_every_alignment():
    # The quickstart GEMM (wgmma, 3 stages) with K and N whose rows are 2-,
    # 4-, 8- and 16-byte aligned: the copies that cannot take cp.async or
    # TMA move the widest vectors each row's alignment allows at run time
    # (K symbolic) or by the static strides, down to single f16 elements,
    # all of a thread's loads issued before its stores; every path must give
    # the product, edge tiles included.
    torch = _needs_gpu()
    M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")
    dynamic = tilelang_mlir.compile(
        matmul_func(M, N, K, block_M=128, block_N=128, block_K=32,
                    threads=128, stages=3), target=TARGET)
    static = tilelang_mlir.compile(
        matmul_func(300, 130, 1001, block_M=128, block_N=128, block_K=32,
                    threads=128, stages=3), target=TARGET)
    cases = [(dynamic, 300, 130, k) for k in (1001, 1002, 1004, 1008)]
    cases += [(dynamic, 257, 129, 77), (static, 300, 130, 1001)]
    for kernel, m, n, k in cases:
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        c = torch.full((m, n), float("nan"), device="cuda")
        kernel(a, b, c)
        torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-3,
                                   atol=2e-2, msg="%dx%dx%d" % (m, n, k))
