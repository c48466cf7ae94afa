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
    """How the profiler fills the kernel's inputs (TileLang's members, values
    and distributions)."""
    Integer = 1   # integers in [-2, 2] ([0, 2] unsigned, {0, 1} bool)
    Uniform = 2   # uniform in [-1, 1) (int8: ones)
    Normal = 3    # normal with mean -1 and standard deviation 1 (int8: ones)
    Randn = 4     # standard normal
    Zero = 5
    One = 6
    Auto = 7      # floats uniform in [-1, 1), other types as Integer


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


def _runs(estimate_ms, budget_ms, count):
    """How many runs: `count` when given (> 0), else as many as fit in
    `budget_ms` at `estimate_ms` each (at least one)."""
    if count > 0:
        return int(count)
    return max(1, int(budget_ms / max(estimate_ms, 1e-6)))


def do_bench(fn, warmup=25, rep=100, _n_warmup=0, _n_repeat=0,
             quantiles=None, fast_flush=True, backend=None,
             return_mode="mean", device=False, cache_size=256):
    """TileLang's do_bench: times `fn()` in milliseconds. As in TileLang,
    `warmup` and `rep` are milliseconds of running time (the number of runs
    follows from a first estimate), unless `_n_warmup` / `_n_repeat` give
    the counts; the result is the `return_mode` ("mean", "median", "min",
    "max") of the runs, or with `quantiles` the list of those quantiles.
    With `device` (and torch on a CUDA GPU) each run is timed with CUDA
    events on the current stream, and with `fast_flush` the L2 cache is
    flushed before each run by writing `cache_size` MB; otherwise the host
    clock times each call. `backend`: "event" is `device=True`; "cupti"
    returns the kernels' own mean time per call from the profiler (CUPTI
    through torch.profiler; torch on a CUDA GPU needed); "cudagraph" is not
    provided (a ValueError)."""
    if rep <= 0 and _n_repeat <= 0:
        raise ValueError("rep (milliseconds) or _n_repeat (runs) must be "
                         "positive")
    modes = {"median": statistics.median, "mean": statistics.fmean,
             "min": min, "max": max}
    if return_mode not in modes:
        raise ValueError("return_mode is one of %s" % ", ".join(modes))
    if backend is not None:
        if backend not in ("event", "cupti"):
            raise ValueError("do_bench backend is 'event' or 'cupti' here, got "
                             "%r" % (backend,))
        torch = _cuda_torch()
        if torch is None:
            raise ValueError("do_bench backend=%r needs torch with a CUDA "
                             "device" % backend)
        if backend == "cupti":
            estimate = _cupti_ms(torch, fn, 1, 5)
            return _cupti_ms(torch, fn, _runs(estimate, warmup, _n_warmup),
                             _runs(estimate, rep, _n_repeat))
        device = True
    torch = _cuda_torch() if device else None
    cache = (torch.empty(int(cache_size) << 20, dtype=torch.int8, device="cuda")
             if torch is not None and fast_flush else None)

    def timed():
        if torch is not None:
            if cache is not None:
                cache.zero_()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end)
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) * 1e3

    # A first estimate (as TileLang's: five runs) sets the counts that the
    # milliseconds ask for.
    estimate = (statistics.fmean(timed() for _ in range(5))
                if _n_warmup <= 0 or _n_repeat <= 0 else 0.0)
    for _ in range(_runs(estimate, warmup, _n_warmup)):
        fn()
    times = [timed() for _ in range(_runs(estimate, rep, _n_repeat))]
    if quantiles is not None:
        return [float(q) for q in np.quantile(times, quantiles)]
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


def _supply(kind, mlir_type, shape, rng):
    """Fresh values of `kind` for a tensor of `mlir_type`: a numpy array of
    the type (float32 for bf16, which numpy lacks: _to_torch_cuda or the
    caller converts it)."""
    from .jit import _NUMPY_TYPES
    dtype = _NUMPY_TYPES.get(mlir_type, np.float32)
    is_float = mlir_type in T._FLOAT_TYPES
    if kind == TensorSupplyType.Zero:
        data = np.zeros(shape)
    elif kind == TensorSupplyType.One or (
            mlir_type == "i8" and kind in (TensorSupplyType.Uniform,
                                           TensorSupplyType.Normal)):
        data = np.ones(shape)
    elif mlir_type == "i1":
        data = rng.integers(0, 2, shape)
    elif kind == TensorSupplyType.Integer or not is_float:
        data = rng.integers(0 if T._is_unsigned(mlir_type) else -2, 3, shape)
    elif kind in (TensorSupplyType.Uniform, TensorSupplyType.Auto):
        data = rng.uniform(-1.0, 1.0, shape)
    elif kind == TensorSupplyType.Normal:
        data = rng.normal(-1.0, 1.0, shape)
    elif kind == TensorSupplyType.Randn:
        data = rng.standard_normal(shape)
    else:
        raise ValueError("unknown tensor supply type %r" % (kind,))
    return np.asarray(data).astype(dtype)


def _to_torch_cuda(torch, data, mlir_type):
    """`data` as a CUDA tensor of `mlir_type` (bf16 and FP8 rounded from
    float32)."""
    from .jit import _torch_dtype
    tensor = torch.from_numpy(np.ascontiguousarray(data, dtype=np.float32)
                              if mlir_type in ("bf16", "f8E4M3FN", "f8E5M2",
                                               "f8E8M0FNU")
                              else data).cuda()
    return tensor.to(_torch_dtype(torch, mlir_type))


class Profiler:
    """Fresh inputs for a JITKernel, checks against a reference, timings."""

    def __init__(self, kernel, supply_type=TensorSupplyType.Auto,
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
            data = _supply(self.supply_type, T._mlir_type(spec.dtype), shape,
                           self.rng)
            if self.torch is not None:
                data = _to_torch_cuda(self.torch, data, T._mlir_type(spec.dtype))
            inputs.append(data)
        return inputs

    def run_once(self, func=None):
        """Calls `func` (the kernel by default) once on fresh inputs and
        returns what it returns (TileLang's Profiler.run_once)."""
        return (func or self.kernel)(*self.supply_inputs())

    def _run(self, inputs=None):
        inputs = self.supply_inputs() if inputs is None else inputs
        outputs = self.kernel(*inputs)
        return inputs, outputs

    def assert_allclose(self, reference_program, input_tensors=None,
                        atol=1e-2, rtol=1e-2, max_mismatched_ratio=0.01):
        """Runs the kernel and `reference_program(*inputs)` (numpy arrays in,
        an array or a tuple of arrays out, one per output) on the same fresh
        inputs (or `input_tensors`) and compares every output; as in TileLang,
        up to `max_mismatched_ratio` of the elements (1%) may be outside the
        tolerances."""
        inputs, outputs = self._run(input_tensors)
        expected = reference_program(*[
            x.clone() if hasattr(x, "clone") else
            x.copy() if isinstance(x, np.ndarray) else x for x in inputs])
        outputs = outputs if isinstance(outputs, (list, tuple)) else (outputs,)
        expected = expected if isinstance(expected, (list, tuple)) else (expected,)
        if len(outputs) != len(expected):
            raise AssertionError("the kernel has %d outputs, the reference "
                                 "returned %d" % (len(outputs), len(expected)))
        for i, (got, want) in enumerate(zip(outputs, expected)):
            assert_allclose(got, want, rtol=rtol, atol=atol,
                            max_mismatched_ratio=max_mismatched_ratio,
                            name="output %d" % i)

    def do_bench(self, func=None, warmup=25, rep=100, n_warmup=0, n_repeat=0,
                 input_tensors=None, backend=None, quantiles=None,
                 return_mode="mean"):
        """Milliseconds of the kernel on one set of fresh inputs (or
        `input_tensors`), or of `func(*inputs)`: TileLang's
        Profiler.do_bench (`warmup`/`rep` in milliseconds, `n_warmup` /
        `n_repeat` as counts; see `do_bench`)."""
        inputs = self.supply_inputs() if input_tensors is None else list(input_tensors)
        target = func if func is not None else self.kernel
        return do_bench(lambda: target(*inputs), warmup=warmup, rep=rep,
                        _n_warmup=n_warmup, _n_repeat=n_repeat,
                        quantiles=quantiles, backend=backend,
                        return_mode=return_mode,
                        device=self.torch is not None)
