"""``tilelang.engine``: TileLang's lowering driver. Here the compiler is
MLIR's (``tilelang.compile``, ``kernel.get_kernel_source(stage)``), so of
this package only the callback registrations exist (engine.callback), and
they refuse to register: there is no CUDA, HIP or C source to
post-process. Any other name (``lower``, ``is_device_call``,
``KernelParam``) is an ImportError that says so."""

from .callback import (  # noqa: F401
    register_c_postproc,
    register_cuda_postproc,
    register_cuda_postproc_callback,
    register_hip_postproc,
    register_hip_postproc_callback,
    register_metal_postproc,
)

from ..tvm import _refusing

__getattr__ = _refusing(
    "engine", "%s is TileLang's TVM lowering, which this package does not "
    "have: compile with tilelang.compile / tilelang.jit and read each stage "
    "with kernel.get_kernel_source(stage) (docs/python.md)")
