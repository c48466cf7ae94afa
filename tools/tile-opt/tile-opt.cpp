//===- tile-opt.cpp - The TileLang optimizer driver ---------------------===//
//
// Part of TileLang-MLIR.
//
// An mlir-opt with the tile dialect, every TileLang pass and pipeline, and
// the upstream dialects, passes and extensions.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Registration/Registration.h"
#include "TileLang/Support/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tile::registerAll(registry);
  mlir::tile::setVersionPrinter();
  // Deeply nested input (thousands of regions) recurses deeper than a main
  // thread's stack.
  int status = 0;
  mlir::tile::runOnLargeStack([&] {
    status = mlir::asMainReturnCode(mlir::MlirOptMain(
        argc, argv, "TileLang optimizer driver\n", registry));
  });
  return status;
}
