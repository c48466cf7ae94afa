//===- Passes.h - Conversions out of the tile dialect -----------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_CONVERSION_PASSES_H
#define TILELANG_CONVERSION_PASSES_H

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace tile {

#define GEN_PASS_DECL
#include "TileLang/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TileLang/Conversion/Passes.h.inc"

} // namespace tile
} // namespace mlir

#endif // TILELANG_CONVERSION_PASSES_H
