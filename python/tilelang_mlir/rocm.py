"""``tilelang.rocm``: what TileLang's ROCm helpers answer here.
``tilelang.rocm.target.check_hip_availability()`` is False: this package
compiles for AMD chips named in the target (``"hip -mcpu=gfx942"``) but
does not look for ROCm devices (``target="auto"`` never picks one)."""

import sys

__path__ = []  # a package whose one submodule, .target, is this module


def check_hip_availability():
    """Whether target "auto" would use a ROCm device here: never."""
    return False


sys.modules.setdefault(__name__ + ".target", sys.modules[__name__])
