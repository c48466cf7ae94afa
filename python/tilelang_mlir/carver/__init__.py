"""``tilelang.carver``: TileLang's tile-configuration search (its roller,
templates and architecture models). This compiler chooses its own
instructions and layouts, so of this package only the device queries of
``carver.arch.driver`` exist (what persistent kernels size their grids by);
any other name is an ImportError that says so."""


def __getattr__(name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    if name == "arch":
        from . import arch
        return arch
    raise ImportError(
        "tilelang.carver.%s is TileLang's tile-configuration search, which this "
        "package does not have (its compiler chooses layouts and instructions "
        "itself; tune block sizes with tilelang.autotune); only "
        "tilelang.carver.arch.driver's device queries exist" % name,
        name="tilelang_mlir.carver.%s" % name)
