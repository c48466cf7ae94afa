"""``tilelang.carver.arch``: of TileLang's architecture models (``CUDA``,
``CDNA``, ``auto_infer_current_arch``, ...) only ``driver`` exists here, the
device queries; any other name is an ImportError that says so."""

from . import driver  # noqa: F401


def __getattr__(name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    raise ImportError(
        "tilelang.carver.arch.%s is one of TileLang's architecture models for "
        "its tile-configuration search, which this package does not have; "
        "tilelang.carver.arch.driver answers device queries (get_num_sms, "
        "get_shared_memory_per_block, ...)" % name,
        name="tilelang_mlir.carver.arch.%s" % name)
