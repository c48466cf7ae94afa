//===- TileToAMDGPU.h - AMD lowering of tile ops ----------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_CONVERSION_TILETOAMDGPU_H
#define TILELANG_CONVERSION_TILETOAMDGPU_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tile {

/// True when `chip` (gfx90a, gfx942, gfx950, ...) has the wave64 matrix
/// cores (MFMA) the gemm lowering uses.
bool hasMFMA(StringRef chip);

/// AMD lowerings that take precedence over the generic Block-mode ones
/// inside a gpu.launch: on chips with MFMA, f16 and bf16 `tile.gemm` with
/// f32 accumulation as `amdgpu.mfma` 16x16x16 (one 16x16 C tile per wave
/// at a time, its accumulators in registers across k).
void populateTileToAMDGPUPatterns(RewritePatternSet &patterns, StringRef chip);

} // namespace tile
} // namespace mlir

#endif // TILELANG_CONVERSION_TILETOAMDGPU_H
