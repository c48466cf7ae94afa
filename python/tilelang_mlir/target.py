"""Targets as TileLang names them, resolved to the compiler's own.

``jit``, ``compile`` and ``autotune`` take what TileLang takes and hand the
C++ JIT one of its target strings ("cpu", "sm_90a", "cuda:sm_80:+ptx80",
"gfx942", ...):

* ``"auto"`` (the default): the target in the environment variable
  ``TILE_TARGET`` when it is set (any form below; for test suites and CI
  machines), else CUDA device 0 when a driver and a device are present (its
  chip: ``sm_90a`` on an H100 or H200, ``sm_80`` on an A100), else the CPU,
  with a warning (once per process) that says why;
* ``"cuda"``: CUDA device 0's chip; an error when there is none;
* ``"cuda -arch=sm_80"`` (TVM's form; other ``-key=value`` attributes are
  hints this compiler does not need and are ignored), ``{"kind": "cuda",
  "arch": "sm_80"}``: that chip; ``sm_90`` means ``sm_90a`` (the
  architecture-specific features wgmma and TMA multicast need), as in
  TileLang;
* ``"hip -mcpu=gfx942"``, ``{"kind": "hip", "mcpu": "gfx942"}``: that chip
  (a bare ``"hip"`` is an error: ROCm devices are not queried);
* ``"llvm"``, ``"c"``, ``"cpu"``: the host CPU;
* the compiler's own strings, unchanged.

Anything else (``"metal"``, ``"webgpu"``, ``"cutedsl"``, a TVM Target
object, a misspelling) is an error naming what is accepted: a kernel never
runs on a target the user did not ask for.
"""

import os
import re
import warnings

from . import _tilelang

__all__ = ["determine_target", "SUPPORTED_TARGETS"]

SUPPORTED_TARGETS = {
    "auto": "CUDA device 0 if a driver and a device are present, else the CPU "
            "(with a warning)",
    "cuda": "CUDA device 0's chip; 'cuda -arch=sm_80' or {'kind': 'cuda', "
            "'arch': 'sm_80'} names one",
    "hip": "an AMD chip: 'hip -mcpu=gfx942' or {'kind': 'hip', 'mcpu': 'gfx942'}",
    "llvm": "the host CPU (also 'c' and 'cpu')",
}

# Backends of TileLang that this compiler does not have.
_OTHER_BACKENDS = {"metal", "webgpu", "cutedsl", "opencl", "vulkan", "rocm-llvm"}

_warned_auto = False


def _accepted():
    return ("'auto', 'cuda', 'cuda -arch=sm_90a', 'hip -mcpu=gfx942', 'llvm' "
            "or 'cpu', a chip ('sm_80', 'sm_90a', 'gfx942', 'gfx1100'), or "
            "{'kind': 'cuda', 'arch': ...} / {'kind': 'hip', 'mcpu': ...}")


def _error(target, why):
    return ValueError("target %r: %s; expected %s" % (target, why, _accepted()))


def chip_of_capability(capability):
    """The chip of a compute capability (major * 10 + minor): sm_90a for 90
    (the architecture-specific features from Hopper on), sm_80 for 80."""
    return "sm_%d%s" % (capability, "a" if capability >= 90 else "")


def _cuda_chip(arch):
    """The chip of an -arch value: sm_90 is sm_90a (as TileLang compiles
    for Hopper); compute_XX and sm_XX(a) otherwise as given."""
    match = re.fullmatch(r"(?:sm|compute)_(\d+)(a?)", arch)
    if not match:
        raise ValueError("-arch=%s is not a CUDA chip (sm_80, sm_90a, ...)" % arch)
    number, suffix = int(match.group(1)), match.group(2)
    return "sm_%d%s" % (number, suffix or ("a" if number == 90 else ""))


def _device_chip(target):
    capability, why = _tilelang.cuda_compute_capability()
    if capability is None:
        raise _error(target, "it takes the chip of CUDA device 0, and there is "
                             "none here (%s); name the chip" % why)
    return chip_of_capability(capability)


def _from_kind(target, kind, attrs):
    """The compiler's target for a TVM-style kind and its attributes."""
    if kind == "cuda":
        arch = attrs.get("arch")
        if arch is None:
            return _device_chip(target)
        try:
            return _cuda_chip(str(arch))
        except ValueError as error:
            raise _error(target, str(error)) from None
    if kind in ("hip", "rocm"):
        mcpu = attrs.get("mcpu")
        if mcpu is None:
            raise _error(target, "ROCm devices are not queried; name the chip "
                                 "(-mcpu=gfx942)")
        mcpu = str(mcpu).split(":")[0]
        if not mcpu.startswith("gfx"):
            raise _error(target, "-mcpu=%s is not an AMD chip" % mcpu)
        return mcpu
    if kind in ("llvm", "c", "cpu"):
        return "cpu"
    if kind in _OTHER_BACKENDS:
        raise _error(target, "%s is a TileLang backend this compiler does not "
                             "have (it targets NVIDIA CUDA, AMD ROCm and the "
                             "CPU)" % kind)
    return None


def determine_target(target="auto"):
    """The compiler's target string for `target` as TileLang takes it (see
    the module's documentation)."""
    global _warned_auto
    if target is None or (isinstance(target, str) and target.strip() == "auto"):
        chosen = os.environ.get("TILE_TARGET", "").strip()
        if chosen and chosen != "auto":
            return determine_target(chosen)
        capability, why = _tilelang.cuda_compute_capability()
        if capability is not None:
            return chip_of_capability(capability)
        if not _warned_auto:
            _warned_auto = True
            warnings.warn("target='auto': no CUDA device (%s); kernels compile "
                          "and run on the CPU" % why, RuntimeWarning, stacklevel=3)
        return "cpu"
    if isinstance(target, dict):
        kind = target.get("kind")
        if not isinstance(kind, str):
            raise _error(target, "a target dict needs a 'kind'")
        resolved = _from_kind(target, kind, target)
        if resolved is None:
            raise _error(target, "unknown kind %r" % kind)
        return resolved
    if not isinstance(target, str):
        raise _error(target, "a %s is not a target here (TVM Target objects "
                             "are not provided)" % type(target).__name__)
    text = target.strip()
    words = text.split()
    if not words:
        raise _error(target, "empty")
    kind, options = words[0], words[1:]
    attrs = {}
    for option in options:
        match = re.fullmatch(r"-{1,2}([\w.]+)=(\S+)", option)
        if not match:
            raise _error(target, "%r is not a -key=value attribute" % option)
        attrs[match.group(1)] = match.group(2)
    resolved = _from_kind(target, kind, attrs)
    if resolved is not None:
        return resolved
    if options:
        raise _error(target, "unknown kind %r" % kind)
    # The compiler's own forms; the C++ parser checks the chip.
    if re.fullmatch(r"(cuda:|rocm:)?(sm_\d+a?|gfx[0-9a-f]+)(:[^:\s]*)?", text):
        return text
    raise _error(target, "unknown target")
