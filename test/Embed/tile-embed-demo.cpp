//===- tile-embed-demo.cpp - TileLang embedded in another MLIR tool -----===//
//
// Part of TileLang-MLIR.
//
// Uses the installed TileLang package the way another MLIR compiler would:
// registers the dialects and passes, builds a tile kernel with the C++
// builders, parses a kernel file, runs a textual pass pipeline and reports.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "TileLang/Registration/Registration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// Builds `out[i, j] = in[i, j] * 2` over 64x64 tiles with the C++ builders.
static OwningOpRef<ModuleOp> buildScaleKernel(MLIRContext &ctx) {
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());

  auto global = MemRefType::get({ShapedType::kDynamic, ShapedType::kDynamic},
                                b.getF32Type());
  auto func = func::FuncOp::create(
      b, loc, "scale",
      b.getFunctionType({global, global, b.getIndexType(), b.getIndexType()},
                        {}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  Value in = entry->getArgument(0), out = entry->getArgument(1);
  Value gx = entry->getArgument(2), gy = entry->getArgument(3);

  auto kernel = tile::KernelOp::create(b, loc, ValueRange{gx, gy},
                                       ArrayRef<int64_t>{128});
  b.setInsertionPointToStart(&kernel.getBody().front());
  Value c64 = arith::ConstantIndexOp::create(b, loc, 64);
  Value row = arith::MulIOp::create(b, loc, kernel.getBlockIds()[1], c64);
  Value col = arith::MulIOp::create(b, loc, kernel.getBlockIds()[0], c64);
  auto fragType = MemRefType::get(
      {64, 64}, b.getF32Type(), MemRefLayoutAttrInterface(),
      tile::MemorySpaceAttr::get(&ctx, tile::MemorySpace::Fragment));
  Value frag = tile::AllocFragmentOp::create(b, loc, fragType);
  tile::CopyOp::create(b, loc, in, ValueRange{row, col}, frag, ValueRange{});

  auto parallel = tile::ParallelOp::create(b, loc, ArrayRef<int64_t>{64, 64});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&parallel.getBody().front());
    ValueRange ij = parallel.getIndices();
    Value v = memref::LoadOp::create(b, loc, frag, ij);
    Value two = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(2.0f));
    Value scaled = arith::MulFOp::create(b, loc, v, two);
    memref::StoreOp::create(b, loc, scaled, frag, ij);
  }
  tile::CopyOp::create(b, loc, frag, ValueRange{}, out, ValueRange{row, col});

  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, loc);
  return module;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: tile-embed-demo <kernel.mlir>\n";
    return 2;
  }
  DialectRegistry registry;
  tile::registerAllDialects(registry);
  tile::registerAllPasses();
  // The host compiler registers its own passes next to TileLang's.
  registerCanonicalizerPass();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  // 1. Build a kernel with the C++ API and verify it.
  OwningOpRef<ModuleOp> built = buildScaleKernel(ctx);
  if (failed(verify(*built))) {
    llvm::errs() << "built kernel does not verify\n";
    return 1;
  }
  llvm::outs() << "built:\n";
  built->print(llvm::outs());
  llvm::outs() << "\n";

  // 2. Parse a kernel file and run a textual pipeline of TileLang and
  //    upstream passes on it.
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> parsed =
      parseSourceFile<ModuleOp>(argv[1], sourceMgr, ParserConfig(&ctx));
  if (!parsed)
    return 1;
  PassManager pm(&ctx);
  if (failed(parsePassPipeline(
          "canonicalize,"
          "tile-attach-target{kind=cuda chip=sm_80 overwrite=true}",
          pm))) {
    llvm::errs() << "cannot parse the pass pipeline\n";
    return 1;
  }
  if (failed(pm.run(*parsed)))
    return 1;

  llvm::StringMap<unsigned> counts;
  parsed->walk([&](Operation *op) {
    if (isa<tile::TileDialect>(op->getDialect()))
      ++counts[op->getName().getStringRef()];
  });
  llvm::outs() << "parsed: target "
               << (*parsed)->getAttr(tile::TileDialect::getTargetAttrName())
               << "\n";
  for (StringRef name : {"tile.kernel", "tile.alloc_shared",
                         "tile.alloc_fragment", "tile.copy", "tile.gemm",
                         "tile.pipelined", "tile.parallel"})
    llvm::outs() << "  " << name << ": " << counts.lookup(name) << "\n";
  return 0;
}
