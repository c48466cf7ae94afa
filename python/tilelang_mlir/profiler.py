"""Checking and timing kernels, as TileLang's profiler::

    profiler = kernel.get_profiler(tensor_supply_type=TensorSupplyType.Normal)
    profiler.assert_allclose(lambda A, B: A @ B, rtol=1e-2, atol=1e-2)
    latency_ms = profiler.do_bench()

Inputs are drawn fresh for every check (random by default), the kernel's
outputs are allocated by the call (never reused), and timings are the
median of `rep` runs after `warmup` runs, in milliseconds. For a kernel
compiled for a CUDA GPU, when torch has one, the inputs are torch tensors
on it (the reference program gets them too, as in TileLang) and each run
is timed with CUDA events; otherwise numpy arrays and the host clock.
"""

import enum
import statistics
import time

import numpy as np

from . import language as T

__all__ = ["TensorSupplyType", "do_bench", "assert_allclose", "Profiler"]


class TensorSupplyType(enum.Enum):
    """How the profiler fills the kernel's inputs."""
    Integer = 1   # random integers in [-2, 2]
    Uniform = 2   # uniform in [0, 1) (rounding to the dtype may reach 1)
    Normal = 3    # standard normal
    Randn = 3     # alias of Normal, TileLang's name
    Zero = 4
    One = 5


def _cuda_torch():
    """torch when it has a CUDA device, else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def _cupti_ms(torch, fn, warmup, rep):
    """The kernels' own time per call (the profiler's CUDA kernel events,
    summed and divided by `rep`)."""
    from torch.profiler import ProfilerActivity, profile
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(rep):
            fn()
        torch.cuda.synchronize()
    total = sum(ev.time_range.end - ev.time_range.start for ev in prof.events()
                if "CUDA" in str(ev.device_type)
                and not ev.name.startswith(("Memcpy", "Memset")))
    return total / rep / 1e3


def do_bench(fn, warmup=25, rep=100, return_mode="median", device=False,
             backend=None):
    """Runs `fn()` `warmup` times, then times `rep` runs one by one and
    returns the median (or "mean", "min", "max") in milliseconds. With
    `device` (and torch on a CUDA GPU), each run is timed with CUDA events
    on the current stream; otherwise with the host clock. TileLang's
    `backend`: "event" is `device=True`; "cupti" returns the kernels' own
    mean time per call from the profiler (CUPTI through torch.profiler; torch
    on a CUDA GPU needed); "cudagraph" is not provided (a ValueError)."""
    if rep < 1:
        raise ValueError("rep must be at least 1")
    if backend is not None:
        if backend not in ("event", "cupti"):
            raise ValueError("do_bench backend is 'event' or 'cupti' here, got "
                             "%r" % (backend,))
        torch = _cuda_torch()
        if torch is None:
            raise ValueError("do_bench backend=%r needs torch with a CUDA "
                             "device" % backend)
        if backend == "cupti":
            return _cupti_ms(torch, fn, warmup, rep)
        device = True
    torch = _cuda_torch() if device else None
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(rep):
        if torch is not None:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
            continue
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    modes = {"median": statistics.median, "mean": statistics.fmean,
             "min": min, "max": max}
    if return_mode not in modes:
        raise ValueError("return_mode is one of %s" % ", ".join(modes))
    return modes[return_mode](times)


def assert_allclose(actual, expected, rtol=1e-2, atol=1e-2,
                    max_mismatched_ratio=0.0, name="output"):
    """Like numpy's, in float64, NaN only matching NaN, allowing a ratio of
    mismatched elements; the message says how many and the worst one."""
    actual = np.asarray(_to_numpy(actual), dtype=np.float64)
    expected = np.asarray(_to_numpy(expected), dtype=np.float64)
    if actual.shape != expected.shape:
        raise AssertionError("%s: shape %s, expected %s"
                             % (name, actual.shape, expected.shape))
    both_nan = np.isnan(actual) & np.isnan(expected)
    close = np.isclose(actual, expected, rtol=rtol, atol=atol) | both_nan
    bad = int(close.size - np.count_nonzero(close))
    if bad > max_mismatched_ratio * close.size:
        diff = np.where(close, 0, np.abs(actual - expected))
        worst = np.unravel_index(int(np.nanargmax(np.nan_to_num(diff, nan=np.inf))),
                                 close.shape)
        raise AssertionError(
            "%s: %d of %d elements outside rtol=%g atol=%g; worst at %s: got "
            "%r, expected %r" % (name, bad, close.size, rtol, atol,
                                 tuple(int(i) for i in worst),
                                 actual[worst], expected[worst]))


def _to_numpy(value):
    """A numpy view of `value` (torch tensors, on any device, copied to the
    host as float64 when numpy lacks their type)."""
    if type(value).__module__.split(".")[0] == "torch":
        return value.detach().cpu().double().numpy()
    return value


class Profiler:
    """Fresh inputs for a JITKernel, checks against a reference, timings."""

    def __init__(self, kernel, supply_type=TensorSupplyType.Normal,
                 shapes=None, seed=None):
        self.kernel = kernel
        self.supply_type = supply_type
        self.shapes = dict(shapes or {})
        self.rng = np.random.default_rng(seed)
        from .jit import _split_target
        # torch tensors on the GPU for a CUDA kernel, when torch has one.
        self.torch = (_cuda_torch()
                      if _split_target(kernel.target)[0] == "cuda" else None)

    def _shape(self, spec, name):
        shape = []
        for dim in spec.shape:
            if isinstance(dim, int):
                shape.append(dim)
                continue
            missing = sorted(dim.symbols() - set(self.shapes))
            if missing:
                raise ValueError("parameter %r has the symbolic dimension %s: "
                                 "give its size, get_profiler(shapes={%r: ...})"
                                 % (name, missing[0], missing[0]))
            shape.append(int(dim.evaluate(self.shapes)))
        return tuple(shape)

    def supply_inputs(self):
        """Fresh inputs for every parameter that is not an output."""
        from .jit import _NUMPY_TYPES
        inputs = []
        for index, (name, spec) in enumerate(self.kernel.func.params):
            if index in self.kernel.out_idx:
                continue
            if not isinstance(spec, T.Tensor):
                raise ValueError("scalar parameter %r: the profiler supplies "
                                 "tensors only" % name)
            shape = self._shape(spec, name)
            dtype = _NUMPY_TYPES[T._mlir_type(spec.dtype)]
            kind = self.supply_type
            if kind == TensorSupplyType.Zero:
                data = np.zeros(shape)
            elif kind == TensorSupplyType.One:
                data = np.ones(shape)
            elif kind == TensorSupplyType.Integer or np.issubdtype(dtype, np.integer):
                data = self.rng.integers(-2, 3, shape)
            elif kind == TensorSupplyType.Uniform:
                data = self.rng.random(shape)
            else:
                data = self.rng.standard_normal(shape)
            data = np.asarray(data).astype(dtype)
            if self.torch is not None:
                data = self.torch.from_numpy(data).cuda()
            inputs.append(data)
        return inputs

    def run_once(self, inputs=None):
        inputs = self.supply_inputs() if inputs is None else inputs
        outputs = self.kernel(*inputs)
        return inputs, outputs

    def assert_allclose(self, reference_program, rtol=1e-2, atol=1e-2,
                        max_mismatched_ratio=0.0):
        """Runs the kernel and `reference_program(*inputs)` (numpy arrays in,
        an array or a tuple of arrays out, one per output) on the same fresh
        inputs and compares every output."""
        inputs, outputs = self.run_once()
        expected = reference_program(*[x.clone() if self.torch is not None
                                       else x.copy() for x in inputs])
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        expected = expected if isinstance(expected, tuple) else (expected,)
        if len(outputs) != len(expected):
            raise AssertionError("the kernel has %d outputs, the reference "
                                 "returned %d" % (len(outputs), len(expected)))
        for i, (got, want) in enumerate(zip(outputs, expected)):
            assert_allclose(got, want, rtol=rtol, atol=atol,
                            max_mismatched_ratio=max_mismatched_ratio,
                            name="output %d" % i)

    def do_bench(self, func=None, warmup=25, rep=100, return_mode="median"):
        """Median milliseconds of the kernel on one set of fresh inputs (or
        of `func(*inputs)`)."""
        inputs = self.supply_inputs()
        target = func if func is not None else self.kernel
        return do_bench(lambda: target(*inputs), warmup=warmup, rep=rep,
                        return_mode=return_mode,
                        device=self.torch is not None)
