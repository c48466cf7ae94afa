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

/// The name of a dynamic schedule's counters (made unique per kernel).
static constexpr llvm::StringLiteral kCountersName = "tile_tile_counters";

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

  /// The dynamic schedule's loop at `b`'s point in `persistent`: an
  /// scf.while over (tile, iteration) from (block id, 0) while the tile is
  /// below `total`, whose body ends taking the next tile (its index in
  /// `tileIndex`); tile.finish_tiles after it. Returns the tile.next_tile,
  /// which the body's work goes in front of.
  NextTileOp buildDynamicLoop(OpBuilder &b, Location loc, ModuleOp module,
                              KernelOp persistent, Value total, Value running,
                              Value &tileIndex) {
    // The counters: a zero-initialized global of their own.
    OpBuilder top(module.getContext());
    auto countersType = MemRefType::get({2}, top.getI32Type());
    auto global = memref::GlobalOp::create(
        top, loc, kCountersName, top.getStringAttr("private"), countersType,
        DenseIntElementsAttr::get(RankedTensorType::get({2}, top.getI32Type()),
                                  ArrayRef<int32_t>{0, 0}),
        /*constant=*/false, /*alignment=*/IntegerAttr());
    // (Renamed when the name is taken.)
    SymbolTable(module).insert(global, module.getBody()->begin());

    // The slot that passes the index to every thread, with the
    // allocations.
    Block &body = persistent.getBody().front();
    OpBuilder alloc = OpBuilder::atBlockBegin(&body);
    Value slot = AllocSharedOp::create(
        alloc, loc,
        MemRefType::get(
            {1}, b.getI32Type(), AffineMap(),
            MemorySpaceAttr::get(b.getContext(), MemorySpace::Shared)),
        Attribute());
    Value counters =
        memref::GetGlobalOp::create(b, loc, countersType, global.getSymName());
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Type index = b.getIndexType();
    NextTileOp next;
    auto loop = scf::WhileOp::create(
        b, loc, TypeRange{index, index},
        ValueRange{persistent.getBlockIds()[0], zero},
        [&](OpBuilder &before, Location, ValueRange args) {
          Value more = arith::CmpIOp::create(
              before, loc, arith::CmpIPredicate::ult, args[0], total);
          scf::ConditionOp::create(before, loc, more, args);
        },
        [&](OpBuilder &after, Location, ValueRange args) {
          Value count = arith::AddIOp::create(
              after, loc, args[1],
              arith::ConstantIndexOp::create(after, loc, 1));
          next = NextTileOp::create(after, loc, after.getIndexType(), counters,
                                    running, slot, Value(), Value(), Value(),
                                    UnitAttr());
          scf::YieldOp::create(after, loc, ValueRange{next, count});
        });
    loop->setAttr(TileDialect::getPersistentTilesAttrName(), b.getUnitAttr());
    FinishTilesOp::create(b, loc, counters, running);
    tileIndex = loop.getAfterBody()->getArgument(0);
    return next;
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
    // The body goes in front of `end`.
    Value tileIndex;
    Operation *end;
    if (!dynamic) {
      auto loop = scf::ForOp::create(b, loc, persistent.getBlockIds()[0], total,
                                     running);
      loop->setAttr(TileDialect::getPersistentTilesAttrName(), b.getUnitAttr());
      tileIndex = loop.getInductionVar();
      end = loop.getBody()->getTerminator();
    } else {
      end = buildDynamicLoop(b, loc, module, persistent, total, running,
                             tileIndex);
    }
    b.setInsertionPointToStart(end->getBlock());
    // The tile's coordinates, x fastest, then the kernel's rasterization.
    SmallVector<Value> ids;
    Value rest = tileIndex;
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
    for (Operation &op : llvm::make_early_inc_range(oldBody))
      if (!op.hasTrait<::mlir::OpTrait::IsTerminator>())
        op.moveBefore(end);
    for (auto [old, id] : llvm::zip(kernel.getBlockIds(), ids))
      old.replaceAllUsesWith(id);
    kernel.erase();
  }
};

} // namespace
