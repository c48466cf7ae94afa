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

/// A persistent kernel's loop over its tiles (tile.persistent_tiles): the
/// scf.for of the static schedule (without loop-carried values) or the
/// scf.while over (tile, iteration) of the dynamic one (without others).
bool isPersistentTiles(Operation *op);

/// The block that runs once per tile.
Block *getTilesBody(Operation *tiles);

/// The values of the body that identify its tile: the scf.for's induction
/// variable; the scf.while's tile and iteration.
SmallVector<Value> getTileArguments(Operation *tiles);

/// The tile's iteration number (from 0) at `b`'s point in the body.
Value getTileIteration(OpBuilder &b, Location loc, Operation *tiles);

/// Makes `tiles` carry one more value: `init` into the first tile, then
/// `next` of the body's argument for it (built before the terminator).
/// Returns the loop that replaces `tiles` (and its results) and the new
/// argument of its body.
FailureOr<std::pair<Operation *, Value>>
addTilesCarried(Operation *tiles, Value init,
                function_ref<Value(OpBuilder &, Location, Value)> next);

/// The loop of `producer` over a persistent kernel's tiles, or null.
Operation *getProducerTiles(ProducerOp producer);

/// A tile.producer runs beside the kernel body's ops that follow it: the
/// values its ops take from there are recomputed inside it, at the start of
/// its body, and those taken from the body of the consumers' loop over
/// persistent tiles `tiles` (may be null) at the start of the body of the
/// producer's own loop over the same tiles, with the tile arguments
/// (getTileArguments) mapped. Only ops free of memory effects and regions
/// are recomputed: when another is needed (or another block argument of
/// `tiles`), nothing changes and failure is returned.
LogicalResult recomputeProducerOperands(ProducerOp producer, Operation *tiles);

} // namespace tile
} // namespace mlir

#endif // TILELANG_LIB_TRANSFORMS_PRODUCEROPERANDS_H
