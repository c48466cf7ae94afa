"""TileLang-MLIR from Python: the ``T.*`` language (``tilelang_mlir.language``)
and the JIT (``tilelang_mlir.jit``)."""

from . import language  # noqa: F401
from .jit import jit, compile, JITKernel, TileError  # noqa: F401,A004
from .language import TileLangError  # noqa: F401
from .profiler import TensorSupplyType, do_bench  # noqa: F401
from .autotuner import autotune  # noqa: F401
