//===- RegisterAll.cpp - TileLang and all of upstream MLIR --------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Registration/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::tile::registerAll(DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates device code to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  tile::registerAllDialects(registry);
  tile::registerAllExtensions(registry);
  mlir::registerAllPasses();
  tile::registerAllPasses();
}
