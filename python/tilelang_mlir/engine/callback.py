"""``tilelang.engine.callback``: TileLang's hooks that rewrite the CUDA,
HIP, C or Metal source it generates before compiling it. This compiler
generates no such source (it lowers through MLIR to PTX or AMDGPU ISA), so
a callback could never run, and one that changes the code would change
results: each registration raises TileLangError, naming itself. The
module and its names exist, so that programs which only import them (as
TileLang's gated delta net examples do) run."""

from ..language import TileLangError


def _refuse(what, func):
    name = getattr(func, "__name__", repr(func))
    raise TileLangError(
        "tilelang.engine.callback.%s(%s) is not provided: this compiler "
        "generates no %s source to post-process (it lowers through MLIR); "
        "kernel.get_kernel_source(stage) shows each stage of what it does "
        "generate" % (what, name, {"register_cuda_postproc": "CUDA",
                                   "register_hip_postproc": "HIP",
                                   "register_c_postproc": "C host",
                                   "register_metal_postproc": "Metal"}[what]))


def register_cuda_postproc(func, override=True):
    """Refused (module docstring)."""
    _refuse("register_cuda_postproc", func)


def register_hip_postproc(func, override=True):
    """Refused (module docstring)."""
    _refuse("register_hip_postproc", func)


def register_c_postproc(func, override=True):
    """Refused (module docstring)."""
    _refuse("register_c_postproc", func)


def register_metal_postproc(func, override=True):
    """Refused (module docstring)."""
    _refuse("register_metal_postproc", func)


def _decorator(register, func, override):
    """TileLang's decorator forms: @register, @register(), @register(False),
    @register(override=False); anything else is a TypeError, as there."""
    if callable(func):
        return register(func, override)
    if func is None or isinstance(func, bool):
        flag = func if isinstance(func, bool) else override
        return lambda fn: register(fn, flag)
    raise TypeError("Invalid decorator usage")


def register_cuda_postproc_callback(func=None, override=True):
    """Refused when it registers (module docstring)."""
    return _decorator(register_cuda_postproc, func, override)


def register_hip_postproc_callback(func=None, override=True):
    """Refused when it registers (module docstring)."""
    return _decorator(register_hip_postproc, func, override)
