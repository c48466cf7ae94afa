//===- Passes.td - Conversions out of the tile dialect -----*- tablegen -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_CONVERSION_PASSES_TD
#define TILELANG_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToSCF : Pass<"convert-tile-to-scf", "::mlir::ModuleOp"> {
  let summary = "Lower tile kernels to sequential loops (the CPU reference)";
  let description = [{
    Gives every tile op its sequential meaning with `scf`, `memref` and
    `arith` ops, so that kernels run on the CPU through the LLVM dialect and
    serve as the oracle for the GPU backends:

    * `tile.kernel` becomes a loop nest over the grid (`bz`, `by`, `bx` from
      outermost to innermost); its on-chip tiles become `memref.alloc`s made
      once before the loops and freed after them (a block's tiles start
      uninitialized, so blocks may share them when they run one after the
      other).
    * `tile.parallel` and `tile.pipelined` become `scf.for` nests.
    * `tile.copy` and `tile.atomic_add` become loops over the tile with
      bounds checks on the global side: out-of-bounds reads give zero and
      out-of-bounds writes are dropped.
    * `tile.gemm` (C accumulated in C's type), `tile.reduce`, `tile.cumsum`,
      `tile.fill` and `tile.clear` become plain loops.
    * Layout and scheduling hints are dropped, and tile memory spaces are
      removed from every memref type.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // TILELANG_CONVERSION_PASSES_TD
