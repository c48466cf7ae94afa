"""Kernel calls as a torch program makes them: on the caller's stream without
waiting, inside CUDA graphs, as torch.library operators under
torch.compile, and the errors of calls that cannot be made.

The schema and argument tests run everywhere; the torch tests skip without
torch, the GPU ones without a CUDA device (they run on the H200 of the GPU
machine).
"""

import time

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T
from tilelang_mlir.torch_ops import schema

from kernels import matmul_func


def add_func(N, block=256, dtype=T.float32):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype),
             C: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                C[bx * block + i] = A[bx * block + i] + B[bx * block + i]
    return main


def scale_func(N, block=128):
    @T.prim_func
    def main(X: T.Tensor((N,), T.float32), alpha: T.float32,
             Y: T.Tensor((N,), T.float32)):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                Y[bx * block + i] = X[bx * block + i] * alpha
                X[bx * block + i] = X[bx * block + i] + 1
    return main


def test_operator_schemas_follow_the_parameters():
    add = tilelang_mlir.compile(add_func(256), out_idx=[-1], target="cpu")
    assert schema(add) == "(Tensor A, Tensor B) -> Tensor"
    in_place = tilelang_mlir.compile(add_func(256), target="cpu")
    assert schema(in_place) == "(Tensor A, Tensor B, Tensor(a!) C) -> ()"
    # A scalar; an input the kernel also writes is mutated.
    scale = tilelang_mlir.compile(scale_func(256), out_idx=[-1], target="cpu")
    assert schema(scale) == "(Tensor(a!) X, float alpha) -> Tensor"
    matmul = tilelang_mlir.compile(matmul_func(T.symbolic("M"), 64, 32),
                                   out_idx=[-1], target="cpu")
    assert schema(matmul) == "(Tensor A, Tensor B) -> Tensor"


def test_stream_argument_forms_and_misuse():
    kernel = tilelang_mlir.compile(add_func(256), out_idx=[-1], target="cpu")
    rng = np.random.default_rng()
    a = rng.standard_normal(256).astype(np.float32)
    b = rng.standard_normal(256).astype(np.float32)
    # A CPU kernel runs synchronously; TileLang's stream=-1 (the default)
    # and a handle are accepted.
    for stream in (None, -1, 0):
        np.testing.assert_allclose(kernel(a, b, stream=stream), a + b)
    with pytest.raises(tilelang_mlir.TileError, match="stream= takes a stream "
                                                      "handle"):
        kernel(a, b, stream="default")
    with pytest.raises(tilelang_mlir.TileError, match="stream=-5 is not a "
                                                      "stream handle"):
        kernel(a, b, stream=-5)
    with pytest.raises(TypeError, match="unexpected keyword argument 'strem'"):
        kernel(a, b, strem=0)
    with pytest.raises(tilelang_mlir.TileError,
                       match="unexpected keyword argument 'strem'"):
        kernel._kernel.run(a, b, np.empty_like(a), strem=0)


def test_output_shapes_from_planned_and_solved_dimensions():
    # An output sized by an input's symbol (planned once) and one sized by
    # an expression of it (solved per call).
    n = T.symbolic("n")

    @T.prim_func
    def twice(X: T.Tensor((n,), T.float32), Y: T.Tensor((n,), T.float32),
              Z: T.Tensor((n * 2,), T.float32)):
        with T.Kernel(T.ceildiv(n, 64), threads=64) as bx:
            for i in T.Parallel(64):
                Y[bx * 64 + i] = X[bx * 64 + i] * 3
                Z[(bx * 64 + i) * 2] = X[bx * 64 + i]
                Z[(bx * 64 + i) * 2 + 1] = -X[bx * 64 + i]

    kernel = tilelang_mlir.compile(twice, out_idx=[1, 2], target="cpu")
    assert kernel._output_plans[0] == [(0, 0)]
    assert kernel._output_plans[1] is None
    # (Whole blocks: the kernel indexes X, Y and Z without guards.)
    for size in (64, 192):
        x = np.random.default_rng().standard_normal(size).astype(np.float32)
        y, z = kernel(x)
        np.testing.assert_allclose(y, x * 3)
        np.testing.assert_allclose(z, np.stack([x, -x], 1).reshape(-1))
    with pytest.raises(tilelang_mlir.TileError, match="expected rank 1"):
        kernel(np.zeros((4, 4), np.float32))


def _torch():
    return pytest.importorskip("torch")


def _cuda():
    torch = _torch()
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return torch


def test_torch_operator_on_the_cpu_under_torch_compile():
    torch = _torch()
    kernel = tilelang_mlir.compile(add_func(256), out_idx=[-1], target="cpu")
    op = kernel.torch_op("tl_calls_cpu::add")
    a, b = torch.randn(256), torch.randn(256)
    torch.testing.assert_close(op(a, b), a + b)

    @torch.compile(fullgraph=True, backend="eager")
    def f(x, y):
        return op(x, y) * 2

    torch.testing.assert_close(f(a, b), (a + b) * 2)
    # Mutated inputs: the operator writes X in place and returns Y.
    scale = tilelang_mlir.compile(scale_func(256), out_idx=[-1], target="cpu")
    sop = scale.torch_op("tl_calls_cpu::scale")
    x = torch.randn(256)
    before = x.clone()
    y = sop(x, 2.5)
    torch.testing.assert_close(y, before * 2.5)
    torch.testing.assert_close(x, before + 1)
    with pytest.raises(ValueError, match="namespace::name"):
        kernel.torch_op("no_namespace")


def _gpu_add(torch, n=1 << 20):
    kernel = tilelang_mlir.compile(add_func(n), target="sm_90a")
    out_kernel = tilelang_mlir.compile(add_func(n), out_idx=[-1],
                                       target="sm_90a")
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    c = torch.full((n,), float("nan"), device="cuda")
    kernel(a, b, c)  # Compiled and loaded before anything is timed.
    out_kernel(a, b)
    torch.cuda.synchronize()
    return kernel, out_kernel, a, b, c


# About a quarter of a second of an H200's clock.
SLEEP_CYCLES = 500_000_000


def test_a_call_queues_after_the_callers_work_and_does_not_wait():
    torch = _cuda()
    kernel, out_kernel, a, b, c = _gpu_add(torch)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        # The stream is busy for a while, then writes A: a call that waited
        # would take that long, one on another stream would read the old A.
        torch.cuda._sleep(SLEEP_CYCLES)
        a.fill_(3.0)
        start = time.perf_counter()
        kernel(a, b, c)
        out = out_kernel(a, b)
        queued = time.perf_counter() - start
        assert not side.query(), "the stream finished before the check"
    assert queued < 0.05, "the call waited %.3f s" % queued
    side.synchronize()
    torch.testing.assert_close(c, b + 3)
    torch.testing.assert_close(out, b + 3)
    # Work on another stream does not hold a call back either (the device
    # is not synchronized).
    other = torch.cuda.Stream()
    with torch.cuda.stream(other):
        torch.cuda._sleep(SLEEP_CYCLES)
    start = time.perf_counter()
    kernel(a, b, c)
    assert time.perf_counter() - start < 0.05
    torch.cuda.synchronize()


def test_explicit_streams():
    torch = _cuda()
    kernel, out_kernel, a, b, c = _gpu_add(torch)
    side = torch.cuda.Stream()
    for stream in (side, side.cuda_stream):
        c.fill_(float("nan"))
        with torch.cuda.stream(side):
            torch.cuda._sleep(SLEEP_CYCLES // 4)
            a.fill_(-2.0)
        # Called from the default stream, queued on `side`, after the fill.
        kernel(a, b, c, stream=stream)
        side.synchronize()
        torch.testing.assert_close(c, b - 2)
        # An output allocated on the current stream and written on `side`
        # is recorded there (its memory is not reused before `side` is done).
        with torch.cuda.stream(side):
            torch.cuda._sleep(SLEEP_CYCLES // 4)
        out = out_kernel(a, b, stream=stream)
        del out
        reused = torch.full((a.numel(),), 5.0, device="cuda")
        side.synchronize()
        torch.testing.assert_close(reused, torch.full_like(reused, 5.0))


def test_cuda_graph_capture_and_replay():
    torch = _cuda()
    kernel, out_kernel, a, b, c = _gpu_add(torch)
    # A GEMM whose copies use TMA (tensor maps of the captured buffers),
    # captured on its first call with these buffers.
    gemm = tilelang_mlir.compile(
        matmul_func(256, 256, 128, block_M=128, block_N=128, block_K=32,
                    threads=128, stages=3), out_idx=[-1], target="sm_90a")
    x = torch.randn(256, 128, device="cuda", dtype=torch.float16)
    y = torch.randn(128, 256, device="cuda", dtype=torch.float16)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        kernel(a, b, c)
        out = out_kernel(c, b)
        z = gemm(x, y)
    for _ in range(3):
        a.copy_(torch.randn_like(a))
        x.copy_(torch.randn_like(x))
        c.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(c, a + b)
        torch.testing.assert_close(out, a + 2 * b)
        torch.testing.assert_close(z, x.float() @ y.float(), rtol=1e-3,
                                   atol=1e-3)


def test_torch_operator_on_the_gpu_under_torch_compile():
    torch = _cuda()
    gemm = tilelang_mlir.compile(
        matmul_func(T.symbolic("M"), 128, 64, block_M=64, block_N=64,
                    block_K=32, threads=128), out_idx=[-1], target="sm_90a")
    op = gemm.torch_op("tl_calls_gpu::gemm")

    @torch.compile(fullgraph=True)
    def f(x, y):
        return torch.relu(op(x * 2, y)) + 1

    for m in (64, 100):
        x = torch.randn(m, 64, device="cuda", dtype=torch.float16)
        y = torch.randn(64, 128, device="cuda", dtype=torch.float16)
        torch.testing.assert_close(
            f(x, y), torch.relu((x * 2).float() @ y.float()) + 1,
            rtol=1e-3, atol=1e-3)


def test_host_arrays_and_device_tensors_in_one_call():
    torch = _cuda()
    kernel, out_kernel, a, b, c = _gpu_add(torch)
    host = np.random.default_rng().standard_normal(a.numel()).astype(
        np.float32)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(SLEEP_CYCLES // 4)
        b.fill_(1.5)
        # The host array's result is there when the call returns.
        out = np.full_like(host, np.nan)
        kernel(host, b, out)
    np.testing.assert_allclose(out, host + 1.5, rtol=1e-6)


def test_tensors_on_other_devices_are_refused():
    torch = _cuda()
    kernel, out_kernel, a, b, c = _gpu_add(torch)
    with pytest.raises(tilelang_mlir.TileError,
                       match="a torch tensor on meta"):
        kernel(a, torch.empty(a.shape, device="meta"), c)
    if torch.cuda.device_count() > 1:
        other = b.to("cuda:1")
        with pytest.raises(tilelang_mlir.TileError,
                           match=r"argument 1 \('B'\) is on device 1, but "
                                 r"argument 0 \('A'\) is on device 0"):
            kernel(a, other, c)


def test_the_tensors_device_runs_the_kernel():
    torch = _cuda()
    if torch.cuda.device_count() < 2:
        pytest.skip("one CUDA device")
    kernel, out_kernel, a, b, c = _gpu_add(torch)
    gemm = tilelang_mlir.compile(
        matmul_func(256, 256, 128, block_M=128, block_N=128, block_K=32,
                    threads=128, stages=3), out_idx=[-1], target="sm_90a")
    # The same kernels on each device in turn (the module loads on a
    # device at its first launch there; tensor maps are per device), each
    # on that device's current stream.
    for device in (1, 0, 1):
        with torch.cuda.device(device):
            x = torch.randn(a.numel(), device="cuda")
            y = torch.randn(a.numel(), device="cuda")
            z = torch.full_like(x, float("nan"))
            kernel(x, y, z)
            out = out_kernel(x, y)
            assert out.device == x.device
            p = torch.randn(256, 128, device="cuda", dtype=torch.float16)
            q = torch.randn(128, 256, device="cuda", dtype=torch.float16)
            r = gemm(p, q)
            torch.cuda.synchronize()
            torch.testing.assert_close(z, x + y)
            torch.testing.assert_close(out, x + y)
            torch.testing.assert_close(r, p.float() @ q.float(), rtol=1e-3,
                                       atol=1e-3)
    # Called from device 0's context with tensors of device 1.
    x = torch.randn(a.numel(), device="cuda:1")
    doubled = out_kernel(x, x)
    torch.cuda.synchronize(1)
    assert doubled.device.index == 1
    torch.testing.assert_close(doubled, 2 * x)


def test_host_arrays_inside_a_capture_are_refused():
    torch = _cuda()
    kernel, out_kernel, a, b, c = _gpu_add(torch)
    host = np.ones(a.numel(), np.float32)
    graph = torch.cuda.CUDAGraph()
    with pytest.raises(tilelang_mlir.TileError,
                       match="a CUDA graph being captured cannot hold"):
        with torch.cuda.graph(graph):
            kernel(host, b, c)
    # Refused before anything was queued: the device goes on working.
    kernel(a, b, c)
    torch.cuda.synchronize()
    torch.testing.assert_close(c, a + b)


class _Producer:
    """A DLPack producer that is not torch (over a torch tensor), recording
    the consumer streams it is asked to order its writes before."""

    def __init__(self, tensor):
        self.tensor = tensor
        self.streams = []

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()

    def __dlpack__(self, stream=None, **kwargs):
        self.streams.append(stream)
        return self.tensor.__dlpack__(stream=stream, **kwargs)


def test_other_dlpack_producers_are_asked_for_the_launch_stream():
    torch = _cuda()
    kernel, out_kernel, a, b, c = _gpu_add(torch)
    side = torch.cuda.Stream()
    pa, pb = _Producer(a), _Producer(b)
    with torch.cuda.stream(side):
        # With a torch tensor in the call, the launch stream is torch's
        # current one, and the producers are asked to order before it.
        kernel(pa, pb, c)
    assert pa.streams == [side.cuda_stream] and pb.streams == [side.cuda_stream]
    side.synchronize()
    torch.testing.assert_close(c, a + b)
    # Without one: the legacy default stream (DLPack's 1).
    pc = _Producer(c)
    c.fill_(float("nan"))
    kernel(pa, pb, pc)
    assert pc.streams == [1]
    torch.cuda.synchronize()
    torch.testing.assert_close(c, a + b)


def test_torch_tensors_the_kernel_cannot_take_are_refused_by_name():
    torch = _torch()
    kernel = tilelang_mlir.compile(add_func(256), target="cpu")
    a, b, c = torch.randn(256), torch.randn(256), torch.empty(256)
    # A view with a stride: refused before anything runs, naming it.
    strided = torch.randn(512)[::2]
    with pytest.raises(tilelang_mlir.TileError,
                       match=r"'B'.*contiguous and row-major; dimension 0 has "
                             r"stride 2"):
        kernel(a, strided, c)
    with pytest.raises(tilelang_mlir.TileError,
                       match=r"argument 1 \('B'\): unsupported torch dtype "
                             r"torch.complex64"):
        kernel(a, torch.randn(256, dtype=torch.complex64), c)
    with pytest.raises(tilelang_mlir.TileError, match="expected element type f32"):
        kernel(a, b.double(), c)
    # A tensor that requires gradient is taken by its storage.
    w = torch.randn(256, requires_grad=True)
    kernel(w, b, c)
    torch.testing.assert_close(c, w.detach() + b)
