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

/// True when `chip` (gfx90a, gfx94x, gfx950) has the wave64 matrix cores
/// (MFMA) the gemm lowering uses.
bool hasMFMA(StringRef chip);

/// True when `chip` (gfx11) has the wave32 WMMA instructions the gemm
/// lowering uses.
bool hasWMMA(StringRef chip);

/// AMD lowerings that take precedence over the generic Block-mode ones
/// inside a gpu.launch: f16 and bf16 `tile.gemm` with f32 accumulation as
/// `amdgpu.mfma` 16x16x16 (MFMA chips) or `amdgpu.wmma` 16x16x16 (gfx11),
/// one 16x16 C tile per wave at a time, its accumulators in registers
/// across k.
void populateTileToAMDGPUPatterns(RewritePatternSet &patterns, StringRef chip);

} // namespace tile
} // namespace mlir

#endif // TILELANG_CONVERSION_TILETOAMDGPU_H
