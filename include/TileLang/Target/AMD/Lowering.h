//===- Lowering.h - AMD lowering of tile ops --------------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TARGET_AMD_LOWERING_H
#define TILELANG_TARGET_AMD_LOWERING_H

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tile {

/// True when `chip` (gfx90a, gfx94x, gfx950) has the wave64 matrix cores
/// (MFMA) the gemm lowering uses.
bool hasMFMA(StringRef chip);

/// True when `chip` (gfx11) has the wave32 WMMA instructions the gemm
/// lowering uses.
bool hasWMMA(StringRef chip);

/// Why `op` cannot run on `chip`'s 16x16x16 matrix cores (MFMA or WMMA)
/// over `threads` threads, if it cannot.
std::optional<StringRef> getMatrixCoreMismatch(GemmOp op, StringRef chip,
                                               std::optional<int64_t> threads);

class RegisterFragments;

/// AMD lowerings inside a gpu.launch: the f16 and bf16 `tile.gemm` ops with
/// f32 accumulation whose `instruction` is mfma or wmma as
/// `amdgpu.mfma` 16x16x16 (MFMA chips) or `amdgpu.wmma` 16x16x16 (gfx11),
/// one 16x16 C tile per wave at a time, its accumulators in registers
/// across k; a C tile among `fragments` (when given) is read and written in
/// its registers.
void populateTileToAMDGPUPatterns(RewritePatternSet &patterns, StringRef chip,
                                  const RegisterFragments *fragments = nullptr);

/// Copies from global buffers to whole LDS tiles as bounds-checked buffer
/// loads of whole vectors, the elements outside the view zeroed by a
/// select (no per-vector branch); the generic copy where the block's
/// run-time check (alignment, view at the buffer's base, under 2 GiB)
/// fails. Part of populateTileToAMDGPUPatterns.
void populateBufferLoadCopyPatterns(RewritePatternSet &patterns);

/// The layout of `op`'s C tile when the gemm runs on `chip`'s matrix cores
/// over a block of `threads` threads: 16x16 tiles dealt to the waves in
/// turn (tile t to wave t mod W), each lane holding the instruction's
/// accumulator elements of its wave's tiles. Null when the gemm does not
/// take that path or the waves do not get the same number of tiles.
FragmentLayoutAttr getMatrixCoreAccumulatorLayout(GemmOp op, int64_t threads,
                                                  StringRef chip);

} // namespace tile
} // namespace mlir

#endif // TILELANG_TARGET_AMD_LOWERING_H
