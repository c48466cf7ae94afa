//===- Registration.cpp - Register TileLang with an MLIR context --------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Registration/Registration.h"

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "TileLang/Conversion/Passes.h"
#include "TileLang/Pipelines/Pipelines.h"
#include "TileLang/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"

void mlir::tile::registerAllDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, func::FuncDialect,
                  math::MathDialect, memref::MemRefDialect, scf::SCFDialect>();
}

void mlir::tile::registerAllPasses() {
  tile::registerTilePasses();
  tile::registerTileConversionPasses();
  tile::registerTilePipelines();
}
