//===- Passes.h - NVIDIA target passes ----------------------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TARGET_NVIDIA_PASSES_H
#define TILELANG_TARGET_NVIDIA_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace tile {

#define GEN_PASS_DECL
#include "TileLang/Target/NVIDIA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TileLang/Target/NVIDIA/Passes.h.inc"

/// Whether `module` is compiled for an NVVM target (the passes over GPU
/// modules leave the others alone).
bool hasNVVMTarget(gpu::GPUModuleOp module);

} // namespace tile
} // namespace mlir

#endif // TILELANG_TARGET_NVIDIA_PASSES_H
