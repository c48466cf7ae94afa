//===- ProducerOperands.h - Values a producer warpgroup recomputes -*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_TRANSFORMS_PRODUCEROPERANDS_H
#define TILELANG_LIB_TRANSFORMS_PRODUCEROPERANDS_H

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace tile {

/// The loop of `producer` over a persistent kernel's tiles (the scf.for
/// marked like tile-make-persistent's), or null.
scf::ForOp getProducerTiles(ProducerOp producer);

/// A tile.producer runs beside the kernel body's ops that follow it: the
/// values its ops take from there are recomputed inside it, at the start of
/// its body, and those taken from the body of the consumers' loop over
/// persistent tiles `tiles` (may be null) at the start of the body of the
/// producer's own loop over the same tiles, with the tile index mapped.
/// Only ops free of memory effects and regions are recomputed: when another
/// is needed (or a block argument of `tiles` other than its induction
/// variable), nothing changes and failure is returned.
LogicalResult recomputeProducerOperands(ProducerOp producer,
                                        scf::ForOp tiles);

} // namespace tile
} // namespace mlir

#endif // TILELANG_LIB_TRANSFORMS_PRODUCEROPERANDS_H
