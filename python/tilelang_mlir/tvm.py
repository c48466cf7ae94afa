"""``tilelang.tvm`` is TileLang's embedded TVM; this package has none (its
compiler is MLIR): importing it says so."""

raise ImportError(
    "tilelang_mlir has no TVM: tilelang.tvm, tvm.tir and TVMScript internals "
    "(tir.PrimFunc, tvm.IRModule, transform passes) are not provided; the "
    "T.* language, jit/compile, PassConfigKey and tilelang_mlir.testing are "
    "(docs/python.md lists what exists)")
