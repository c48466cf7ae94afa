//===- tile-opt.cpp - The TileLang optimizer driver ---------------------===//
//
// Part of TileLang-MLIR.
//
// An mlir-opt with the tile dialect, every TileLang pass and pipeline, and
// the upstream dialects, passes and extensions.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Registration/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tile::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates device code to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::tile::registerAllDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "TileLang optimizer driver\n", registry));
}
