"""``tilelang.tvm`` is TileLang's embedded TVM; this package has none (its
compiler is MLIR). The module imports, so that a program which only names
it (``from tilelang import tvm as tvm``, as many of TileLang's files do)
runs; any use of it (``tvm.tir``, ``tvm.IRModule``, ...) is an ImportError
that says so."""

_WHY = ("tilelang_mlir has no TVM: tilelang.tvm, tvm.tir and TVMScript "
        "internals (tir.PrimFunc, tvm.IRModule, transform passes) are not "
        "provided; the T.* language, jit/compile, PassConfigKey and "
        "tilelang_mlir.testing are (docs/python.md lists what exists)")


def _refusing(module, why=None):
    """The module `__getattr__` of tilelang_mlir.<module>: every public
    name is an ImportError saying why it is missing: `why`, a format of the
    dotted name (``tilelang.<module>.<name>``), or by default that there is
    no TVM. Two kinds of names are AttributeErrors instead (with the same
    message), because code that probes modules catches only those: dunders
    (copy, pickle, doctest) and the names of imported modules (pickle's
    whichmodule looks a module up by its name in every loaded module, as
    torch.compile's graph hashing does)."""
    import sys

    def __getattr__(name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        message = (why % ("tilelang.%s.%s" % (module, name)) if why
                   else "%s.%s: %s" % (module, name, _WHY))
        if name in sys.modules:
            raise AttributeError(message)
        raise ImportError(message, name="tilelang_mlir.%s.%s" % (module, name))
    return __getattr__


__getattr__ = _refusing("tvm")
