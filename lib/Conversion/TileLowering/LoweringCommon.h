//===- LoweringCommon.h - Helpers of the loop lowering ------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// Private to lib/Conversion/TileLowering: the helpers its files share
// (scalars, the distribution of an op's iterations, barriers around it).
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_CONVERSION_TILELOWERING_LOWERINGCOMMON_H
#define TILELANG_LIB_CONVERSION_TILELOWERING_LOWERINGCOMMON_H

#include "TileLang/Conversion/TileLowering.h"

namespace mlir {
namespace tile {
namespace lowering {

/// The zero of `type`.
Value zeroOf(OpBuilder &b, Location loc, Type type);
/// lhs + rhs, float or integer.
Value add(OpBuilder &b, Location loc, Value lhs, Value rhs);
/// Whether `buffer` is a local (per-thread) tile.
bool isLocal(Value buffer);

/// How the iterations of one tile op are executed: by a single thread (the
/// CPU, or a GPU thread working on its own local tile), or split over the
/// threads of the block.
struct Distribution {
  /// Linear thread id and block size; null when one thread does all.
  Value threadId, numThreads;
  bool isSplit() const { return static_cast<bool>(threadId); }
};

/// The distribution of an op in `mode`; `perThread` forces one thread (an op
/// that writes only its thread's local tiles).
Distribution getDistribution(OpBuilder &b, Operation *op,
                             TileLoweringMode mode, bool perThread);

/// The coordinates of row-major position `linear` in [0, extents).
SmallVector<Value> delinearize(OpBuilder &b, Location loc,
                               ArrayRef<int64_t> extents, Value linear);

/// Iterates over [0, extents): a loop nest on one thread, or one loop over
/// the linearized space from `threadId` by `numThreads` when split. `body`
/// gets the coordinates.
void buildTileLoops(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
                    const Distribution &dist,
                    function_ref<void(OpBuilder &, Location, ValueRange)> body);

/// Emits `lower` between barriers in Block mode (the op's reads see every
/// earlier write of the block, and later ops see its writes).
void withBarriers(OpBuilder &b, Location loc, TileLoweringMode mode,
                  function_ref<void()> lower);

/// buffer[indices] += value: atomically when threads share the buffer
/// (Block mode, shared or global memory), as a plain read-modify-write on a
/// single thread.
void accumulate(OpBuilder &b, Location loc, TileLoweringMode mode,
                Value buffer, ValueRange indices, Value value);

} // namespace lowering
} // namespace tile
} // namespace mlir

#endif // TILELANG_LIB_CONVERSION_TILELOWERING_LOWERINGCOMMON_H
