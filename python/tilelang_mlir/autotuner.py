"""Autotuning over a list of configurations, as TileLang's ``autotune``::

    @autotune(configs=[{"block_M": 64, "block_N": 64}, ...], warmup=3, rep=10)
    @jit(out_idx=[-1])
    def matmul(M, N, K, block_M=128, block_N=128, block_K=32):
        ...

    kernel = matmul(1024, 1024, 1024)   # tunes once, returns the fastest
    kernel.config, kernel.latency

Every configuration (a dict of keyword arguments of the decorated function)
is traced, compiled, optionally checked against `ref_prog`, and timed on
fresh inputs; the ones that fail to build or to match are reported and
skipped. The progress goes to stderr, one line per configuration. The
winner is remembered in the cache directory (``$TILE_CACHE_DIR/autotune``,
default ``~/.cache/tilelang-mlir/autotune``; off with ``TILE_DISABLE_CACHE=1``),
keyed by the function's source, its arguments, the configurations and the
target, so a later process starts from it without tuning again.
"""

import functools
import hashlib
import inspect
import json
import os
import sys
import tempfile
import threading

from . import _tilelang
from .target import determine_target
from .profiler import Profiler, TensorSupplyType

__all__ = ["autotune", "AutotuneResult"]


class AutotuneResult:
    """What a tuning run measured: (config, latency in ms or None, error)."""

    def __init__(self, entries, best):
        self.entries = entries
        self.best = best


def _cache_dir():
    # The JIT's own reading of TILE_CACHE_DIR / TILE_DISABLE_CACHE, so that
    # both caches agree on where they are and whether they are on.
    settings = _tilelang.cache_settings()
    if not settings["enabled"]:
        return None
    return os.path.join(settings["directory"], "autotune")


def _key(fn, args, kwargs, configs, target):
    try:
        source = inspect.getsource(inspect.unwrap(fn))
    except (OSError, TypeError):
        source = getattr(fn, "__qualname__", repr(fn))
    text = json.dumps({"source": source, "args": repr(args),
                       "kwargs": repr(sorted(kwargs.items())),
                       "configs": repr(configs), "target": target},
                      sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _load(path):
    try:
        with open(path) as f:
            return json.load(f)["config"]
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent or corrupt: tune again


def _store(path, config, latency):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump({"config": config, "latency_ms": latency}, f)
    os.replace(tmp, path)


_captured = threading.local()


class _AutotuneInputs:
    """The context of ``with set_autotune_inputs(a, b, ...):``."""

    def __init__(self, tensors):
        self.tensors = tensors

    def __enter__(self):
        stack = getattr(_captured, "stack", None)
        if stack is None:
            stack = _captured.stack = []
        stack.append(self.tensors)
        return self

    def __exit__(self, *exc):
        _captured.stack.pop()
        return False


def set_autotune_inputs(*args):
    """``with set_autotune_inputs(a, b, c):`` (or a list): autotuning in the
    block checks and times every configuration on these arguments (the
    kernel's inputs in order, tensors and scalars) instead of fresh ones."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return _AutotuneInputs(list(args[0]))
    return _AutotuneInputs(list(args))


def get_autotune_inputs():
    """The innermost set_autotune_inputs' arguments, or None."""
    stack = getattr(_captured, "stack", None)
    return stack[-1] if stack else None


def autotune(configs, warmup=25, rep=100, ref_prog=None, rtol=1e-2, atol=1e-2,
             supply_type=TensorSupplyType.Auto, shapes=None, cache=True,
             target="auto", progress=True):
    """Decorates a @jit function: calls tune over `configs` and return the
    fastest kernel (with `.config`, `.latency` and `.autotune_result`)."""
    if not configs:
        raise ValueError("autotune needs at least one configuration")
    configs = [dict(c) for c in configs]

    def decorate(jit_fn):
        from .eager import EagerJIT
        if isinstance(jit_fn, EagerJIT):
            return _tune_eager(jit_fn, configs, warmup, rep, supply_type, shapes,
                               progress)

        @functools.wraps(jit_fn)
        def tuned(*args, **kwargs):
            given = _given_tunables(jit_fn, configs, args, kwargs)
            if given:
                # TileLang's rule: a caller that sets a tunable parameter
                # itself gets that kernel, compiled directly, untuned.
                kernel = jit_fn(*args, **kwargs)
                kernel.config, kernel.latency = None, None
                kernel.autotune_result = None
                return kernel
            directory = _cache_dir() if cache else None
            path = None
            if directory is not None:
                path = os.path.join(directory, _key(
                    jit_fn, args, kwargs, configs,
                    determine_target(target)) + ".json")
                config = _load(path)
                if config in configs:
                    kernel = jit_fn(*args, **kwargs, **config)
                    kernel.config, kernel.latency = config, None
                    kernel.autotune_result = None
                    return kernel
            entries, best = [], None
            name = getattr(jit_fn, "__name__", "kernel")
            for i, config in enumerate(configs):
                try:
                    kernel = jit_fn(*args, **kwargs, **config)
                    profiler = Profiler(kernel, supply_type, shapes)
                    given = get_autotune_inputs()
                    if ref_prog is not None:
                        profiler.assert_allclose(ref_prog, input_tensors=given,
                                                 rtol=rtol, atol=atol)
                    latency = profiler.do_bench(warmup=warmup, rep=rep,
                                                input_tensors=given)
                    entries.append((config, latency, None))
                    if best is None or latency < best[1]:
                        best = (config, latency, kernel)
                    status = "%.4f ms" % latency
                except Exception as error:  # noqa: BLE001 (reported, skipped)
                    entries.append((config, None, error))
                    status = "failed: %s" % str(error).splitlines()[0]
                if progress:
                    print("autotune %s [%d/%d] %s: %s" % (name, i + 1, len(configs),
                                                         config, status),
                          file=sys.stderr, flush=True)
            if best is None:
                raise RuntimeError("autotune %s: every configuration failed: %s"
                                   % (name, "; ".join(str(e) for _, _, e in entries)))
            config, latency, kernel = best
            if progress:
                print("autotune %s: best %s (%.4f ms)" % (name, config, latency),
                      file=sys.stderr, flush=True)
            if path is not None:
                _store(path, config, latency)
            kernel.config, kernel.latency = config, latency
            kernel.autotune_result = AutotuneResult(entries, best[:2])
            return kernel

        return tuned

    return decorate


def _given_tunables(fn, configs, args, kwargs):
    """The configurations' parameters that the call sets itself, by
    keyword or by position."""
    tunables = set().union(*(config.keys() for config in configs))
    given = tunables & set(kwargs)
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return given
    return given | (tunables & set(names[:len(args)]))


def _tune_eager(jit_fn, configs, warmup, rep, supply_type, shapes, progress):
    """Autotuning of an eager-style @jit kernel (eager.py): a call times
    each configuration's kernel for these arguments (configuration values
    fill the parameters the caller did not give), runs the fastest on the
    caller's tensors and returns its outputs; the choice is kept per
    specialization of the caller's arguments. ``compile(...)`` returns the
    fastest kernel instead."""
    chosen = {}

    def best_kernel(args, kwargs):
        key = (_signature_of(args), _signature_of(sorted(kwargs.items())))
        if key in chosen:
            return chosen[key]
        name = jit_fn.__name__
        entries, best = [], None
        seen = []
        for i, config in enumerate(configs):
            merged = dict(config, **kwargs)
            if merged in seen:
                continue
            seen.append(merged)
            try:
                kernel, arguments, runtime = jit_fn._specialize(args, merged)
                latency = Profiler(kernel, supply_type, shapes).do_bench(
                    warmup=warmup, rep=rep, input_tensors=get_autotune_inputs())
                entries.append((config, latency, None))
                if best is None or latency < best[1]:
                    best = (config, latency, (kernel, arguments, runtime))
                status = "%.4f ms" % latency
            except Exception as error:  # noqa: BLE001 (reported, skipped)
                entries.append((config, None, error))
                status = "failed: %s" % str(error).splitlines()[0]
            if progress:
                print("autotune %s [%d/%d] %s: %s" % (name, i + 1, len(configs),
                                                     config, status),
                      file=sys.stderr, flush=True)
        if best is None:
            raise RuntimeError("autotune %s: every configuration failed: %s"
                               % (name, "; ".join(str(e) for _, _, e in entries)))
        kernel = best[2][0]
        kernel.config, kernel.latency = best[0], best[1]
        kernel.autotune_result = AutotuneResult(entries, best[:2])
        chosen[key] = best[2]
        return best[2]

    @functools.wraps(jit_fn)
    def tuned(*args, **kwargs):
        kernel, arguments, runtime = best_kernel(args, kwargs)
        # The caller's own tensors, in the kernel's order.
        _, arguments, runtime = jit_fn._specialize(args, dict(kernel.config, **kwargs))
        return jit_fn._run(kernel, arguments, runtime)

    def compile(*args, **kwargs):  # noqa: A001 (TileLang's name)
        return best_kernel(args, kwargs)[0]

    tuned.compile = compile
    return tuned


def _signature_of(values):
    """What of the arguments selects a kernel: tensors by shape and dtype,
    other values by their repr."""
    out = []
    for value in values:
        if isinstance(value, tuple):
            out.append(_signature_of(value))
        elif hasattr(value, "shape") and hasattr(value, "dtype"):
            out.append(("tensor", tuple(value.shape), str(value.dtype)))
        else:
            out.append(repr(value))
    return tuple(out)
