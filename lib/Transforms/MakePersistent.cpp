//===- MakePersistent.cpp - Persistent tile kernels ----------------------===//
//
// Part of TileLang-MLIR.
//
// tile-make-persistent: a fixed set of blocks loops over the tiles of each
// kernel's grid (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Transforms/Passes.h"

#include "TileLang/Conversion/TileLowering.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEMAKEPERSISTENT
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

/// The runtime function that gives the device's multiprocessor count.
static constexpr llvm::StringLiteral kCountFunction =
    "tileMultiprocessorCount";

namespace {

/// The declaration of the multiprocessor-count function in `module`.
func::FuncOp getCountFunction(ModuleOp module) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(kCountFunction))
    return fn;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), kCountFunction,
                                 b.getFunctionType({}, {b.getI64Type()}));
  fn.setPrivate();
  return fn;
}

struct MakePersistentPass
    : public tile::impl::TileMakePersistentBase<MakePersistentPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (blocks < 0) {
      module.emitError() << "tile-make-persistent: blocks must be >= 0, got "
                         << static_cast<int64_t>(blocks);
      return signalPassFailure();
    }
    auto target =
        module->getAttrOfType<TargetAttr>(TileDialect::getTargetAttrName());
    if (blocks == 0 && (!target || target.getKind() == TargetKind::CPU)) {
      module.emitError() << "tile-make-persistent: blocks = 0 asks the GPU "
                            "for its multiprocessor count; give blocks for "
                            "a CPU target";
      return signalPassFailure();
    }
    SmallVector<KernelOp> kernels;
    module.walk([&](KernelOp kernel) {
      if (!kernel.getCluster() && !kernel.getGrid().empty())
        kernels.push_back(kernel);
    });
    for (KernelOp kernel : kernels)
      rewrite(kernel, module);
  }

  void rewrite(KernelOp kernel, ModuleOp module) {
    Location loc = kernel.getLoc();
    OpBuilder b(kernel);
    ValueRange grid = kernel.getGrid();
    Value total = grid.front();
    for (Value extent : grid.drop_front())
      total = arith::MulIOp::create(b, loc, total, extent);
    Value count =
        blocks > 0
            ? arith::ConstantIndexOp::create(b, loc, blocks).getResult()
            : arith::IndexCastOp::create(
                  b, loc, b.getIndexType(),
                  func::CallOp::create(b, loc, getCountFunction(module),
                                       ValueRange{})
                      .getResult(0))
                  .getResult();
    Value running = arith::MinUIOp::create(b, loc, total, count);
    auto persistent = KernelOp::create(b, loc, ValueRange{running},
                                       kernel.getThreads(), {});
    Block &oldBody = kernel.getBody().front();
    Block &newBody = persistent.getBody().front();
    Operation *terminator = newBody.getTerminator();

    // Allocations first, outside the loop over tiles.
    for (Operation &op : llvm::make_early_inc_range(oldBody))
      if (isa<TileAllocationOpInterface>(op))
        op.moveBefore(terminator);

    b.setInsertionPoint(terminator);
    Value step = running;
    auto loop = scf::ForOp::create(b, loc, persistent.getBlockIds()[0], total,
                                   step);
    loop->setAttr(TileDialect::getPersistentTilesAttrName(), b.getUnitAttr());
    b.setInsertionPointToStart(loop.getBody());
    // The tile's coordinates, x fastest, then the kernel's rasterization.
    SmallVector<Value> ids;
    Value rest = loop.getInductionVar();
    for (auto [d, extent] : llvm::enumerate(grid)) {
      if (d + 1 == grid.size()) {
        ids.push_back(rest);
        break;
      }
      ids.push_back(arith::RemUIOp::create(b, loc, rest, extent));
      rest = arith::DivUIOp::create(b, loc, rest, extent);
    }
    if (grid.size() >= 2)
      rasterizeBlockIds(b, loc, kernel, grid[0], grid[1], ids);
    for (auto swizzle :
         llvm::make_early_inc_range(oldBody.getOps<UseSwizzleOp>()))
      swizzle.erase();
    // The rest of the body runs once per tile.
    Operation *yield = loop.getBody()->getTerminator();
    for (Operation &op : llvm::make_early_inc_range(oldBody))
      if (!op.hasTrait<::mlir::OpTrait::IsTerminator>())
        op.moveBefore(yield);
    for (auto [old, id] : llvm::zip(kernel.getBlockIds(), ids))
      old.replaceAllUsesWith(id);
    kernel.erase();
  }
};

} // namespace
