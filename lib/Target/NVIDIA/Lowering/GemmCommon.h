//===- GemmCommon.h - What the gemm lowerings share -------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// Private to lib/Target/NVIDIA/Lowering: the helpers the mma.sync lowering
// (MmaSync.cpp), the wgmma lowering (Wgmma.cpp) and the layout queries
// (GemmLayouts.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_TARGET_NVIDIA_LOWERING_GEMMCOMMON_H
#define TILELANG_LIB_TARGET_NVIDIA_LOWERING_GEMMCOMMON_H

#include "TileLang/Conversion/RegisterFragments.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tile {
namespace nvidia {

// The m16n8kK mma.sync shape (the warp size, kWarpSize, is NVGPU's): K is
// 16 for 16-bit operands, 32 for 8-bit ones (getMmaSyncTileK).
constexpr int64_t kTileM = 16, kTileN = 8;
/// Accumulator registers per lane (f32) a warp may hold across a loop.
constexpr int64_t kMaxAccumulatorRegisters = 128;

/// Whether `op` was selected for `kind` (tile-select-instructions, or
/// convert-tile-to-gpu's default for gemms that carry none).
bool selectedFor(GemmOp op, GemmInstructionKind kind);

/// The number of threads of the block around `op` when `op` is a gemm that
/// mma.sync m16n8k16 can run, else failure.
FailureOr<int64_t> matchMmaGemm(GemmOp op, PatternRewriter &rewriter);

/// x + y as index arithmetic (nothing for y = 0).
Value addIndex(OpBuilder &b, Location loc, Value x, Value y);
Value addIndex(OpBuilder &b, Location loc, Value x, int64_t y);

/// The warp grid (rows, columns) that splits tilesM x tilesN tiles over
/// `warps` warps for `policy`, or failure.
FailureOr<std::pair<int64_t, int64_t>>
chooseWarpGrid(GemmPolicy policy, int64_t warps, int64_t tilesM,
               int64_t tilesN);

/// True when the register fragment `fragment` holds its elements where
/// `layout` (null: none) places them.
bool holdsLayout(const RegisterFragments &fragments, Value fragment,
                 FragmentLayoutAttr layout);

/// Emits the block barrier a gemm on register fragments needs before it
/// and returns whether one must follow it; a located error inside
/// tile.take_turns, whose warpgroups never reach a block barrier together.
FailureOr<bool> emitBarrierBefore(GemmOp op, PatternRewriter &rewriter,
                                  const RegisterFragments &fragments);

/// The wgmma patterns (Wgmma.cpp): gemms stamped wgmma, the fills of their
/// accumulators, tile.gemm_wait.
void populateWgmmaPatterns(RewritePatternSet &patterns,
                           const RegisterFragments &fragments);

} // namespace nvidia
} // namespace tile
} // namespace mlir

#endif // TILELANG_LIB_TARGET_NVIDIA_LOWERING_GEMMCOMMON_H
