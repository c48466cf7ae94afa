"""TileLang's raw cp.async: ``T.ptx_cp_async(T.access_ptr(dst, "w", n),
T.access_ptr(src, "r", n), n)`` copies n elements of a global tensor into a
shared tile, issued by each thread for itself (DeepSeek's
sparse_mla_fwd_pipelined gathers its key rows this way in a producer
warpgroup). Completion: ``T.ptx_commit_group()`` and
``T.ptx_wait_group(n)`` (the thread's own groups), or
``T.cp_async_barrier_noinc(bar)`` (the arrival once the thread's copies
landed) and ``T.barrier_wait``. Numerics against numpy on the GPU (the
CPU target refuses programs that read the thread index): gathered rows,
swizzled and plain tiles, 4-, 8- and 16-byte copies; ``predicate=`` (a
false one reads nothing and zero-fills: on the CPU with one thread, on the
GPU per thread); the sm_80 and sm_90a assembly; the errors of misuse."""

import re

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def _grouped_program(N, R, D, V, dtype):
    """O = KV[Idx]: thread t copies V elements of row Idx[t // (D / V)]
    into a shared tile, waits for its group, and the block copies the tile
    out."""
    per_row = D // V

    @T.prim_func
    def main(KV: T.Tensor((N, D), dtype), Idx: T.Tensor((R,), T.int32),
             O: T.Tensor((R, D), dtype)):
        with T.Kernel(1, threads=R * per_row):
            S = T.alloc_shared((R, D), dtype)
            tx = T.get_thread_binding()
            r = tx // per_row
            c = tx % per_row * V
            T.ptx_cp_async(T.access_ptr(S[r, c], "w", V),
                           T.access_ptr(KV[Idx[r], c], "r", V), V)
            T.ptx_commit_group()
            T.ptx_wait_group(0)
            T.sync_threads()
            T.copy(S, O)

    return main


def _producer_program(N, R, D, V, dtype, gemm=False):
    """A producer warpgroup (threads 128-255) gathers R rows of KV by index
    into a shared tile with T.ptx_cp_async and arrives on a barrier after
    its copies (T.cp_async_barrier_noinc); the consumers (threads 0-127)
    wait for the phase and write the tile out: with `gemm`, O = P @ KV[Idx]
    (the tile as a gemm operand, swizzled), else O = KV[Idx]."""
    per_row = D // V
    rounds = R * per_row // 128

    @T.prim_func
    def main(KV: T.Tensor((N, D), dtype), Idx: T.Tensor((R,), T.int32),
             P: T.Tensor((64, R), dtype),
             O: T.Tensor((64 if gemm else R, D), T.float32 if gemm else dtype)):
        with T.Kernel(1, threads=256):
            S = T.alloc_shared((R, D), dtype)
            P_s = T.alloc_shared((64, R), dtype)
            acc = T.alloc_fragment((64, D), T.float32)
            bar = T.alloc_barrier(arrive_count=128)
            tx = T.get_thread_binding()
            if tx >= 128:
                for k in T.serial(rounds):
                    v = (tx - 128) + k * 128
                    r = v // per_row
                    c = v % per_row * V
                    row = Idx[r]
                    if row >= 0:
                        T.ptx_cp_async(T.access_ptr(S[r, c], "w", V),
                                       T.access_ptr(KV[row, c], "r", V), V)
                T.cp_async_barrier_noinc(bar)
            else:
                T.barrier_wait(bar, 0)
                if gemm:
                    T.copy(P, P_s)
                    T.clear(acc)
                    T.gemm(P_s, S, acc)
                    T.copy(acc, O)
                else:
                    T.copy(S, O)

    return main


def _random(shape):
    return RNG.integers(-3, 4, shape).astype(np.float32)


def _indices(N, R):
    idx = RNG.permutation(N)[:R].astype(np.int32)
    idx[: R // 4] = idx[0]  # repeats
    return idx


GROUPED = [  # N, R, D, V, dtype
    (100, 8, 64, 8, "float16"),    # 16 bytes
    (100, 16, 32, 4, "float16"),   # 8 bytes
    (50, 8, 32, 2, "float16"),     # 4 bytes
    (100, 8, 32, 4, "float32"),    # 16 bytes of f32
]


def _predicated_program(N, R, D, V, dtype, threads):
    """O = KV[Idx] where 0 <= Idx < N, zeros elsewhere: each copy of V
    elements is predicated on its row (an index out of range is never
    read). With one thread the loops are the thread's (this runs on the
    CPU target too); with R * D / V threads, each copies one vector."""
    per_row = D // V

    @T.prim_func
    def main(KV: T.Tensor((N, D), dtype), Idx: T.Tensor((R,), T.int32),
             O: T.Tensor((R, D), dtype)):
        with T.Kernel(1, threads=threads):
            S = T.alloc_shared((R, D), dtype)
            if threads == 1:
                for r in T.serial(R):
                    for c in T.serial(per_row):
                        row = Idx[r]
                        T.ptx_cp_async(T.access_ptr(S[r, c * V], "w", V),
                                       T.access_ptr(KV[row, c * V], "r", V), V,
                                       predicate=(row >= 0) & (row < N))
            else:
                tx = T.get_thread_binding()
                r = tx // per_row
                c = tx % per_row * V
                row = Idx[r]
                T.ptx_cp_async(T.access_ptr(S[r, c], "w", V),
                               T.access_ptr(KV[row, c], "r", V), V,
                               predicate=(row >= 0) & (row < N))
            T.ptx_commit_group()
            T.ptx_wait_group(0)
            T.sync_threads()
            T.copy(S, O)

    return main


def _predicated_reference(kv, idx):
    inside = (idx >= 0) & (idx < kv.shape[0])
    return np.where(inside[:, None], kv[np.where(inside, idx, 0)], 0)


def _rows_in_and_out(N, R):
    """Indices of R rows, about half of them out of range (negative, N, or
    far past the end: a read there would fault)."""
    idx = RNG.integers(0, N, R).astype(np.int32)
    out = RNG.permutation(R)[: R // 2]
    idx[out] = RNG.choice([-1, -(1 << 30), N, 1 << 30], len(out))
    return idx


@pytest.mark.parametrize("N,R,D,V,dtype", GROUPED)
def test_predicated_copies_zero_fill_on_the_cpu(N, R, D, V, dtype):
    kernel = tilelang.compile(_predicated_program(N, R, D, V, dtype, 1),
                              target="cpu")
    kv, idx = _random((N, D)).astype(dtype), _rows_in_and_out(N, R)
    o = np.full((R, D), np.nan, dtype)
    kernel(kv, idx, o)
    np.testing.assert_array_equal(o, _predicated_reference(kv, idx))


def test_predicated_copy_assembly():
    """The predicate chooses the cp.async's source size: 16 or 0 bytes."""
    ptx = tilelang.compile(_predicated_program(100, 8, 64, 8, "float16", 64),
                           target="sm_90a").get_kernel_source("ptx")
    assert re.search(r"selp\.b32\s+(%r\d+), 16, 0, %p\d+;", ptx)
    assert re.search(r"cp\.async\.cg\.shared\.global \[[^]]+\], \[[^]]+\], "
                     r"16, %r\d+;", ptx)


def _rows_on_the_gpu(torch, program, kv, idx, dtype):
    """O (len(idx) x D, NaN first) from `program` on the GPU, as numpy."""
    kernel = tilelang.compile(program, target="cuda -arch=sm_90a")
    o = torch.full((len(idx), kv.shape[1]), float("nan"),
                   dtype=getattr(torch, dtype), device="cuda")
    kernel(torch.from_numpy(kv).to(getattr(torch, dtype)).cuda(),
           torch.from_numpy(idx).cuda(), o)
    return o.float().cpu().numpy()


@pytest.mark.parametrize("N,R,D,V,dtype", GROUPED)
def test_predicated_copies_zero_fill_on_the_gpu(cuda_torch, N, R, D, V, dtype):
    kv, idx = _random((N, D)), _rows_in_and_out(N, R)
    got = _rows_on_the_gpu(
        cuda_torch, _predicated_program(N, R, D, V, dtype, R * (D // V)),
        kv, idx, dtype)
    np.testing.assert_array_equal(got, _predicated_reference(kv, idx))


@pytest.mark.parametrize("N,R,D,V,dtype", GROUPED)
def test_grouped_copies_compile_for_sm80(N, R, D, V, dtype):
    """(These programs read the thread index: the CPU target refuses them,
    so their numerics are checked on the GPU.) Before sm_90 the copies are
    cp.async too, of the requested width."""
    ptx = tilelang.compile(_grouped_program(N, R, D, V, dtype),
                           target="sm_80").get_kernel_source("ptx")
    bytes_ = V * (4 if dtype == "float32" else 2)
    assert re.search(r"cp\.async\.c[ag]\.shared\.global \[[^]]+\], \[[^]]+\], %d;"
                     % bytes_, ptx)


def test_producer_arrival_waits_before_sm90():
    """Without mbarriers (sm_80), the arrival after the copies waits for
    them: a cp.async.wait_group 0 and no cp.async.mbarrier."""
    ptx = tilelang.compile(_producer_program(100, 32, 64, 8, "float16"),
                           target="sm_80").get_kernel_source("ptx")
    assert "cp.async.mbarrier" not in ptx
    assert re.search(r"cp\.async\.wait_group\s+0;", ptx)


def test_sm90a_assembly():
    """One 16-byte cp.async per copy, the arrival after the thread's copies
    (noinc), and the gemm still on wgmma from the tile the copies fill."""
    ptx = tilelang.compile(_producer_program(100, 32, 64, 8, "float16",
                                             gemm=True),
                           target="sm_90a").get_kernel_source("ptx")
    assert re.search(r"cp\.async\.cg\.shared\.global \[[^]]+\], \[[^]]+\], 16;",
                     ptx)
    assert "cp.async.mbarrier.arrive.noinc" in ptx
    assert "wgmma.mma_async" in ptx
    grouped = tilelang.compile(_grouped_program(100, 8, 64, 8, "float16"),
                               target="sm_90a").get_kernel_source("ptx")
    assert re.search(r"cp\.async\.wait_group\s+0;", grouped)


def _kernel_calling(body):
    @T.prim_func
    def main(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128):
            S = T.alloc_shared((64, 64), "float16")
            body(A, B, S)
            T.copy(S, A)

    return main


@pytest.mark.parametrize("body,message", [
    (lambda A, B, S: T.ptx_cp_async(S[0, 0], T.access_ptr(A[0, 0], "r", 8), 8),
     "the destination is a T.access_ptr"),
    (lambda A, B, S: T.ptx_cp_async(T.access_ptr(S[0, 0], "r", 8),
                                    T.access_ptr(A[0, 0], "r", 8), 8),
     "it needs 'w'"),
    (lambda A, B, S: T.ptx_cp_async(T.access_ptr(A[0, 0], "w", 8),
                                    T.access_ptr(S[0, 0], "r", 8), 8),
     "copies from a global tensor into a shared tile"),
    (lambda A, B, S: T.ptx_cp_async(T.access_ptr(S[0, 0], "w", 8),
                                    T.access_ptr(B[0, 0], "r", 8), 8),
     "moves bytes unchanged"),
    (lambda A, B, S: T.ptx_cp_async(T.access_ptr(S[0, 0], "w", 8),
                                    T.access_ptr(A[0, 0], "r", 8), 8,
                                    predicate=T.cast(1, T.float32)),
     "the predicate is a boolean or an integer"),
    (lambda A, B, S: T.access_ptr(A[0, 0], "r", 8, offset=4),
     "is not provided: name the element itself"),
    (lambda A, B, S: T.access_ptr(A[0, 0], "x"),
     "the access type is 'r', 'w', 'rw'"),
    (lambda A, B, S: T.ptx_wait_group(-1), "a group count >= 0"),
])
def test_misuse_is_refused_at_the_line(body, message):
    with pytest.raises(T.TileLangError, match=re.escape(message)) as info:
        tilelang.compile(_kernel_calling(body), target="cpu")
    assert "test_ptx_cp_async.py" in str(info.value)


def test_bytes_other_than_4_8_16_are_refused():
    with pytest.raises(tilelang.TileError, match="copies 4, 8 or 16 bytes"):
        tilelang.compile(_kernel_calling(
            lambda A, B, S: T.ptx_cp_async(T.access_ptr(S[0, 0], "w", 3),
                                           T.access_ptr(A[0, 0], "r", 3), 3)),
            target="cpu")


@pytest.mark.parametrize("N,R,D,V,dtype", GROUPED)
def test_grouped_copies_on_the_gpu(cuda_torch, N, R, D, V, dtype):
    kv, idx = _random((N, D)), _indices(N, R)
    got = _rows_on_the_gpu(cuda_torch, _grouped_program(N, R, D, V, dtype),
                           kv, idx, dtype)
    np.testing.assert_array_equal(got, kv[idx])


@pytest.mark.parametrize("gemm", [False, True])
def test_producer_copies_on_the_gpu(cuda_torch, gemm):
    torch = cuda_torch
    N, R, D, V = 100, 32, 64, 8
    kernel = tilelang.compile(_producer_program(N, R, D, V, "float16", gemm),
                              target="cuda -arch=sm_90a")
    kv, idx, p = _random((N, D)), _indices(N, R), _random((64, R))
    rows, dtype = (64, torch.float32) if gemm else (R, torch.float16)
    o = torch.full((rows, D), float("nan"), dtype=dtype, device="cuda")
    kernel(torch.from_numpy(kv).half().cuda(), torch.from_numpy(idx).cuda(),
           torch.from_numpy(p).half().cuda(), o)
    want = p @ kv[idx] if gemm else kv[idx]
    np.testing.assert_array_equal(o.float().cpu().numpy(), want)
