//===- Passes.h - Tile-level passes -----------------------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TRANSFORMS_PASSES_H
#define TILELANG_TRANSFORMS_PASSES_H

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace tile {

#define GEN_PASS_DECL
#include "TileLang/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TileLang/Transforms/Passes.h.inc"

} // namespace tile
} // namespace mlir

#endif // TILELANG_TRANSFORMS_PASSES_H
