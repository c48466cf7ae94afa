"""TileLang-MLIR from Python: the ``T.*`` language (``tilelang_mlir.language``)
the JIT (``tilelang_mlir.jit``), ``lower`` (MLIR text through a pass
pipeline) and ``device_code`` (the PTX, cubins and SASS in a lowered
module)."""

import glob as _glob
import os as _os
import sys as _sys

try:
    from ._tilelang import __version__, __commit__, lower  # noqa: F401
    from ._tilelang import compile_options  # noqa: F401
    from ._tilelang import pipeline as jit_pipeline  # noqa: F401
except ImportError as _error:
    # The usual cause: the compiled module was built for another Python
    # (its file name says which) or cannot find a shared library.
    _built = sorted(_os.path.basename(p) for p in _glob.glob(
        _os.path.join(_os.path.dirname(__file__), "_tilelang*")))
    raise ImportError(
        "tilelang_mlir cannot load its compiled module: %s\n"
        "  this Python: %s (%s, extension suffix %r)\n"
        "  compiled modules in %s: %s\n"
        "Build the package for this Python (`%s -m pip install .`), or run "
        "the Python it was built for (the build tree's is /usr/bin/python3)."
        % (_error, _sys.executable, _sys.version.split()[0],
           __import__("sysconfig").get_config_var("EXT_SUFFIX"),
           _os.path.dirname(__file__), ", ".join(_built) or "none",
           _sys.executable)) from _error
from . import device_code, env, language, layout, math, target, testing, transform  # noqa: F401
from .jit import jit, compile, par_compile, JITKernel, TileError  # noqa: F401,A004
from .language import TileLangError  # noqa: F401
from .pass_config import PassConfigKey  # noqa: F401
from .target import determine_target  # noqa: F401
from .language import ceildiv as cdiv  # noqa: F401 (tilelang.cdiv)
from .math import next_power_of_2, prev_power_of_2  # noqa: F401 (tilelang.next_power_of_2)
from .profiler import TensorSupplyType, do_bench  # noqa: F401
from .autotuner import autotune  # noqa: F401
