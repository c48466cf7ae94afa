"""``tilelang.transform``: here only ``PassConfigKey`` (TileLang's TVM
passes are not provided; the compiler's passes are MLIR passes, listed by
``tile-opt --help`` and set through pass_configs)."""

from .pass_config import PassConfigKey  # noqa: F401
from .tvm import _refusing

__all__ = ["PassConfigKey"]
__getattr__ = _refusing("transform")
