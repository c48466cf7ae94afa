//===- NVIDIATarget.h - The NVIDIA implementation of TargetInfo -*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TARGET_NVIDIA_NVIDIATARGET_H
#define TILELANG_TARGET_NVIDIA_NVIDIATARGET_H

namespace mlir {
class DialectRegistry;

namespace tile {

/// Registers the NVIDIA implementation of the target interface (mma.sync
/// and wgmma gemms, cp.async and TMA copies, their layouts and swizzles,
/// warp specialization, the nvgpu/nvvm lowering) for #tile.target<cuda, ...>
/// with the tile dialect of every context `registry` is appended to.
void registerNVIDIATarget(DialectRegistry &registry);

} // namespace tile
} // namespace mlir

#endif // TILELANG_TARGET_NVIDIA_NVIDIATARGET_H
