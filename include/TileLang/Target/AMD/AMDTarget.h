//===- AMDTarget.h - The AMD implementation of TargetInfo -------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TARGET_AMD_AMDTARGET_H
#define TILELANG_TARGET_AMD_AMDTARGET_H

namespace mlir {
class DialectRegistry;

namespace tile {

/// Registers the AMD implementation of the target interface (MFMA and WMMA
/// gemms, buffer-load copies, the matrix cores' layouts, the amdgpu/rocdl
/// lowering) for #tile.target<rocm, ...> with the tile dialect of every
/// context `registry` is appended to.
void registerAMDTarget(DialectRegistry &registry);

} // namespace tile
} // namespace mlir

#endif // TILELANG_TARGET_AMD_AMDTARGET_H
