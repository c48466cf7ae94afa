//===- tile-opt.cpp - The TileLang optimizer driver ---------------------===//
//
// Part of TileLang-MLIR.
//
// An mlir-opt with the tile dialect, every TileLang pass and pipeline, and
// the upstream dialects, passes and extensions.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Registration/Registration.h"
#include "TileLang/Support/SourceLimits.h"
#include "TileLang/Support/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

/// mlir-opt's driver, with the input checked for what the parser would read
/// in unbounded time (tile::findOversizedLiteral) before it is parsed.
static LogicalResult runOpt(int argc, char **argv, DialectRegistry &registry) {
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "TileLang optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return MlirOptMain(argc, argv, inputFilename, outputFilename, registry);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  if (std::optional<tile::SourceLimitError> error =
          tile::findOversizedLiteral(file->getBuffer())) {
    llvm::SourceMgr sourceMgr;
    StringRef buffer = file->getBuffer();
    unsigned id = sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    const char *at = sourceMgr.FindLocForLineAndColumn(id, error->line,
                                                       error->column)
                         .getPointer();
    sourceMgr.PrintMessage(llvm::errs(),
                           llvm::SMLoc::getFromPointer(at ? at
                                                          : buffer.data()),
                           llvm::SourceMgr::DK_Error, error->message);
    return failure();
  }
  auto output = openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  if (failed(MlirOptMain(output->os(), std::move(file), registry, config)))
    return failure();
  output->keep();
  return success();
}

int main(int argc, char **argv) {
  DialectRegistry registry;
  tile::registerAll(registry);
  tile::setVersionPrinter();
  // Deeply nested input (thousands of regions) recurses deeper than a main
  // thread's stack.
  int status = 0;
  tile::runOnLargeStack(
      [&] { status = asMainReturnCode(runOpt(argc, argv, registry)); });
  return status;
}
