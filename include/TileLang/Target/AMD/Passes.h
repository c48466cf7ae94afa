//===- Passes.h - AMD target passes ----------------------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TARGET_AMD_PASSES_H
#define TILELANG_TARGET_AMD_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace tile {

#define GEN_PASS_DECL
#include "TileLang/Target/AMD/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TileLang/Target/AMD/Passes.h.inc"

} // namespace tile
} // namespace mlir

#endif // TILELANG_TARGET_AMD_PASSES_H
