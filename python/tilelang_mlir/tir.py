"""``tvm.tir`` (TileLang's IR) is not provided: the module imports, and any
use of it is an ImportError that says so (tilelang_mlir.tvm)."""

from .tvm import _refusing

__getattr__ = _refusing("tir")
