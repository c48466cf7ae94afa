"""``tilelang.carver.arch``: of TileLang's architecture models (``CUDA``,
``CDNA``, ``auto_infer_current_arch``, ...) only ``driver`` exists here, the
device queries; any other name is an ImportError that says so."""

from . import driver  # noqa: F401

from ...tvm import _refusing

__getattr__ = _refusing(
    "carver.arch", "%s is one of TileLang's architecture models for its "
    "tile-configuration search, which this package does not have; "
    "tilelang.carver.arch.driver answers device queries (get_num_sms, "
    "get_shared_memory_per_block, ...)")
