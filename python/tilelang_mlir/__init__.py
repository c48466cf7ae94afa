"""TileLang-MLIR from Python: the ``T.*`` language (``tilelang_mlir.language``)
the JIT (``tilelang_mlir.jit``), ``lower`` (MLIR text through a pass
pipeline) and ``device_code`` (the PTX, cubins and SASS in a lowered
module)."""

from ._tilelang import __version__, __commit__, lower  # noqa: F401
from . import device_code, language  # noqa: F401
from .jit import jit, compile, JITKernel, TileError  # noqa: F401,A004
from .language import TileLangError  # noqa: F401
from .profiler import TensorSupplyType, do_bench  # noqa: F401
from .autotuner import autotune  # noqa: F401
