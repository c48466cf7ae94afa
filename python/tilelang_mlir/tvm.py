"""``tilelang.tvm`` is TileLang's embedded TVM; this package has none (its
compiler is MLIR). The module imports, so that a program which only names
it (``from tilelang import tvm as tvm``, as many of TileLang's files do)
runs; any use of it (``tvm.tir``, ``tvm.IRModule``, ...) is an ImportError
that says so."""

_WHY = ("tilelang_mlir has no TVM: tilelang.tvm, tvm.tir and TVMScript "
        "internals (tir.PrimFunc, tvm.IRModule, transform passes) are not "
        "provided; the T.* language, jit/compile, PassConfigKey and "
        "tilelang_mlir.testing are (docs/python.md lists what exists)")


def _refusing(module):
    """The module `__getattr__` of tilelang_mlir.<module>: every public
    name is an ImportError saying there is no TVM."""
    def __getattr__(name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)  # introspection (copy, pickle, doctest)
        raise ImportError("%s.%s: %s" % (module, name, _WHY),
                          name="tilelang_mlir.%s.%s" % (module, name))
    return __getattr__


__getattr__ = _refusing("tvm")
