//===- TileToNVGPU.h - NVIDIA lowering of tile ops --------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_CONVERSION_TILETONVGPU_H
#define TILELANG_CONVERSION_TILETONVGPU_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tile {

/// NVIDIA lowerings that take precedence over the generic Block-mode ones
/// inside a gpu.launch: tile.gemm on tensor cores (nvgpu.mma.sync
/// m16n8k16) from sm_80 on.
void populateTileToNVGPUPatterns(RewritePatternSet &patterns,
                                 int64_t smVersion);

} // namespace tile
} // namespace mlir

#endif // TILELANG_CONVERSION_TILETONVGPU_H
