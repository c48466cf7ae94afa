//===- TileToSCF.cpp - Sequential lowering of tile kernels --------------===//
//
// Part of TileLang-MLIR.
//
// The CPU reference lowering: every tile op becomes plain loops over memrefs
// with the op's sequential meaning, edge handling included. GPU results are
// checked against what this lowering computes.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/Passes.h"

#include "TileLang/Conversion/TileLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_CONVERTTILETOSCF
#include "TileLang/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

/// tile.kernel -> allocations + a loop nest over the grid (z outermost).
struct KernelLowering : OpRewritePattern<KernelOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(KernelOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> buffers;
    for (Operation &inner :
         llvm::make_early_inc_range(op.getBody().front())) {
      auto alloc = dyn_cast<TileAllocationOpInterface>(inner);
      if (!alloc)
        continue;
      Value buffer =
          memref::AllocOp::create(rewriter, inner.getLoc(),
                                  alloc.getTile().getType(),
                                  rewriter.getI64IntegerAttr(64));
      rewriter.replaceOp(alloc, buffer);
      buffers.push_back(buffer);
    }

    SmallVector<Value> lbs, ubs, steps;
    for (Value extent : llvm::reverse(op.getGrid())) {
      lbs.push_back(arith::ConstantIndexOp::create(rewriter, loc, 0));
      ubs.push_back(extent);
      steps.push_back(arith::ConstantIndexOp::create(rewriter, loc, 1));
    }
    scf::LoopNest nest = scf::buildLoopNest(rewriter, loc, lbs, ubs, steps);
    SmallVector<Value> blockIds;
    for (scf::ForOp loop : llvm::reverse(nest.loops))
      blockIds.push_back(loop.getInductionVar());
    // The GPU's block order, so that the CPU runs check it covers the grid.
    if (blockIds.size() >= 2) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(nest.loops.back().getBody());
      rasterizeBlockIds(rewriter, loc, op, op.getGrid()[0], op.getGrid()[1],
                        blockIds);
    }
    inlineTileBody(rewriter, op.getBody(), nest.loops.back().getBody(),
                   blockIds);

    rewriter.setInsertionPointAfter(op);
    for (Value buffer : buffers)
      memref::DeallocOp::create(rewriter, loc, buffer);
    rewriter.eraseOp(op);
    return success();
  }
};

struct ConvertTileToSCFPass
    : public tile::impl::ConvertTileToSCFBase<ConvertTileToSCFPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    dropUnappliedSwizzles(module);
    swizzleElementAccesses(module);
    lowerAssumes(module);
    // Blocks run one after another here: no clusters.
    if (failed(lowerClusterOps(module, /*hardwareClusters=*/false, "cpu")))
      return signalPassFailure();
    // A producer runs beside the consumers it feeds: no sequential order.
    WalkResult producers = module.walk([](ProducerOp op) {
      op.emitOpError("runs concurrently with the kernel's threads: "
                     "lowered for NVIDIA sm_90 only, not sequentially");
      return WalkResult::interrupt();
    });
    if (producers.wasInterrupted())
      return signalPassFailure();
    // ... and so does the hand-off of a dynamic schedule's tile indices.
    WalkResult handoffs = module.walk([](NextTileOp op) {
      if (!op.getFull())
        return WalkResult::advance();
      op.emitOpError(kNextTileHandoffNVIDIAOnly);
      return WalkResult::interrupt();
    });
    if (handoffs.wasInterrupted())
      return signalPassFailure();
    // Each block runs as one thread: per-thread code has no meaning here.
    WalkResult threadIds = module.walk([](ThreadIdOp op) {
      op.emitOpError("reads the thread index (T.get_thread_binding): the CPU "
                     "target runs each block as one thread; compile for a "
                     "GPU target");
      return WalkResult::interrupt();
    });
    if (threadIds.wasInterrupted())
      return signalPassFailure();

    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });

    RewritePatternSet patterns(ctx);
    patterns.add<KernelLowering>(ctx);
    populateTileOpLoweringPatterns(patterns, TileLoweringMode::Sequential);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // Tiles are plain host memory now.
    replaceTileMemorySpaces(module, /*sharedSpace=*/nullptr,
                            /*localSpace=*/nullptr);
  }
};

} // namespace
