"""What TileLang's test files use from ``tilelang.testing``: running a test
file by itself, seeds, skipping without the GPU a test needs, and a
tolerant comparison of tensors.

    import tilelang_mlir.testing

    @tilelang_mlir.testing.requires_cuda
    @tilelang_mlir.testing.requires_cuda_compute_version_ge(9, 0)
    def test_wgmma():
        ...
        tilelang_mlir.testing.torch_assert_close(c, ref, rtol=1e-2, atol=1e-2)

    if __name__ == "__main__":
        tilelang_mlir.testing.main()

pytest is imported when a decorator or ``main`` is used (the rest works
without it); torch where a tensor is one.
"""

import inspect
import random
import sys

import numpy as np

from . import _tilelang

__all__ = ["main", "set_random_seed", "requires_cuda", "requires_cuda_compute_version",
           "requires_cuda_compute_version_ge", "requires_cuda_compute_version_gt",
           "requires_cuda_compute_version_eq", "requires_cuda_compute_version_lt",
           "requires_cuda_compute_version_le", "requires_cuda_or_cdna", "requires_rocm",
           "requires_cdna", "requires_gfx950", "requires_metal", "requires_llvm",
           "requires_package", "torch_assert_close"]


def main():
    """Runs the calling test file under pytest (command-line arguments
    passed on) and exits with its status."""
    import pytest
    path = inspect.getsourcefile(sys._getframe(1))
    sys.exit(pytest.main([path] + sys.argv[1:]))


def set_random_seed(seed=42):
    """Seeds Python's, numpy's and (when installed) torch's generators."""
    random.seed(seed)
    np.random.seed(seed)
    try:
        import torch
    except ImportError:
        return
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def _compute_version():
    """(major, minor) of CUDA device 0, and why there is none (None when
    there is one)."""
    capability, why = _tilelang.cuda_compute_capability()
    if capability is None:
        return (0, 0), why
    return (capability // 10, capability % 10), None


def requires_cuda(func):
    """Skips the test where there is no CUDA driver or device (the reason
    says which)."""
    import pytest
    _, why = _compute_version()
    return pytest.mark.skipif(why is not None, reason="needs a CUDA device: %s" % why)(func)


def requires_cuda_or_cdna(func):
    """TileLang's "a CUDA or a CDNA GPU": here a CUDA device (ROCm devices
    are not queried; tests that need one skip, saying so)."""
    return requires_cuda(func)


def _skip(reason):
    def decorate(func):
        import pytest
        return pytest.mark.skip(reason=reason)(func)
    return decorate


# ROCm devices are not queried and there is no Metal backend: the tests
# that need them skip with the reason (kernels for gfx942 compile, to ISA).
requires_rocm = _skip("needs a ROCm device: tilelang_mlir does not run on ROCm devices "
                      "(it compiles for gfx942/gfx1100 only)")
requires_cdna = requires_rocm
requires_gfx950 = requires_rocm
requires_metal = _skip("needs Metal: tilelang_mlir has no Metal backend")


def requires_llvm(func):
    """The CPU backend is always there (LLVM is built in)."""
    return func


def requires_package(*packages):
    """Skips the test unless every named Python package imports."""
    import importlib.util

    missing = [p for p in packages if importlib.util.find_spec(p) is None]

    def decorate(func):
        import pytest
        return pytest.mark.skipif(bool(missing), reason="needs the package(s) %s"
                                  % ", ".join(missing))(func)
    return decorate


_COMPARISONS = {
    "ge": (lambda a, b: a >= b, ">="), "gt": (lambda a, b: a > b, ">"),
    "eq": (lambda a, b: a == b, "=="), "lt": (lambda a, b: a < b, "<"),
    "le": (lambda a, b: a <= b, "<="),
}


def requires_cuda_compute_version(major_version, minor_version=0, mode="ge"):
    """Skips the test unless CUDA device 0's compute capability compares to
    (major_version, minor_version) as `mode` ("ge", "gt", "eq", "lt", "le")
    says; a decorator. Without a device the test is skipped too."""
    if mode not in _COMPARISONS:
        raise ValueError("mode is one of %s, got %r" % (", ".join(_COMPARISONS), mode))
    compare, symbol = _COMPARISONS[mode]
    wanted = (major_version, minor_version)

    def decorate(func):
        import pytest
        have, why = _compute_version()
        if why is not None:
            reason = "needs a CUDA device: %s" % why
        else:
            reason = "needs compute capability %s %d.%d, device 0 has %d.%d" % (
                symbol, wanted[0], wanted[1], have[0], have[1])
        return pytest.mark.skipif(why is not None or not compare(have, wanted),
                                  reason=reason)(func)

    return decorate


def requires_cuda_compute_version_ge(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "ge")


def requires_cuda_compute_version_gt(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "gt")


def requires_cuda_compute_version_eq(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "eq")


def requires_cuda_compute_version_lt(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "lt")


def requires_cuda_compute_version_le(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "le")


def _as_float64(value):
    """A float64 numpy array of a torch tensor (any device, bf16 too), a
    numpy array or a number."""
    if type(value).__module__.split(".")[0] == "torch":
        return value.detach().to("cpu").double().numpy()
    return np.asarray(value, dtype=np.float64)


def torch_assert_close(tensor_a, tensor_b, rtol=1e-2, atol=1e-3,
                       max_mismatched_ratio=0.001, verbose=False,
                       equal_nan=True, base_name="LHS", ref_name="RHS"):
    """Asserts that `tensor_a` is close to the reference `tensor_b`:
    |a - b| <= atol + rtol * |b| everywhere but at most a fraction
    `max_mismatched_ratio` of the elements (TileLang's tolerance for
    reduced-precision kernels). Shapes must match; NaNs in the same places
    are equal with `equal_nan`. The message gives the count, the allowed
    count and the worst elements."""
    a, b = _as_float64(tensor_a), _as_float64(tensor_b)
    if a.shape != b.shape:
        raise AssertionError("%s has shape %s, %s has shape %s"
                             % (base_name, a.shape, ref_name, b.shape))
    with np.errstate(invalid="ignore"):
        close = np.abs(a - b) <= atol + rtol * np.abs(b)
    if equal_nan:
        close |= np.isnan(a) & np.isnan(b)
    mismatched = int(a.size - np.count_nonzero(close))
    allowed = int(a.size * max_mismatched_ratio)
    if verbose:
        print("%s vs %s: %d of %d elements mismatched (allowed %d)"
              % (base_name, ref_name, mismatched, a.size, allowed))
    if mismatched > allowed:
        where = np.argwhere(~close)[:5]
        worst = ", ".join("%s: %s=%g %s=%g" % (tuple(int(i) for i in idx), base_name,
                                               a[tuple(idx)], ref_name, b[tuple(idx)])
                          for idx in where)
        raise AssertionError(
            "%d of %d elements differ beyond atol=%g + rtol=%g * |%s| (at most %d "
            "allowed: max_mismatched_ratio=%g); first: %s"
            % (mismatched, a.size, atol, rtol, ref_name, allowed, max_mismatched_ratio,
               worst))
