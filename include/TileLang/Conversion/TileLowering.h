//===- TileLowering.h - Loop lowering of tile ops shared by backends -*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// The lowering of every tile op except the kernel itself into loops over
// memrefs, shared by the CPU backend (sequential) and the SIMT GPU backend
// (the block's threads share the work).
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_CONVERSION_TILELOWERING_H
#define TILELANG_CONVERSION_TILELOWERING_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tile {

enum class TileLoweringMode {
  /// One thread does everything: the CPU reference.
  Sequential,
  /// Inside a gpu.launch: the threads of the block split every tile op on
  /// shared or fragment tiles, with a gpu.barrier before and after it; ops
  /// that only write local (per-thread) tiles run whole on every thread.
  Block,
};

/// The linear thread id (x fastest) and the thread count of the gpu.launch
/// that encloses `op`, computed at the builder's insertion point.
struct BlockThreads {
  Value threadId, numThreads;
};
BlockThreads getBlockThreads(OpBuilder &b, Operation *op);

/// Patterns for tile.copy, gemm, fill, clear, reduce, cumsum, atomic_add,
/// parallel, pipelined and the hints.
void populateTileOpLoweringPatterns(RewritePatternSet &patterns,
                                    TileLoweringMode mode);

/// Moves the ops of a tile region (kernel, parallel, pipelined body) in
/// front of `dest`'s terminator with `args` for its block arguments, and
/// drops its tile.yield.
void inlineTileBody(RewriterBase &rewriter, Region &region, Block *dest,
                    ValueRange args);

/// Rewrites every memref type under `root`: shared and fragment tiles go to
/// `sharedSpace`, local tiles to `localSpace` (null: the default space).
void replaceTileMemorySpaces(Operation *root, Attribute sharedSpace,
                             Attribute localSpace);

} // namespace tile
} // namespace mlir

#endif // TILELANG_CONVERSION_TILELOWERING_H
