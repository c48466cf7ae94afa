"""``tilelang.carver``: TileLang's tile-configuration search (its roller,
templates and architecture models). This compiler chooses its own
instructions and layouts, so of this package only the device queries of
``carver.arch.driver`` exist (what persistent kernels size their grids by);
any other name is an ImportError that says so."""

from . import arch  # noqa: F401
from ..tvm import _refusing

__getattr__ = _refusing(
    "carver", "%s is TileLang's tile-configuration search, which this package "
    "does not have (its compiler chooses layouts and instructions itself; "
    "tune block sizes with tilelang.autotune); only "
    "tilelang.carver.arch.driver's device queries exist")
