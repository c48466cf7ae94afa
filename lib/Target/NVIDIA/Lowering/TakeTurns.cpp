//===- TakeTurns.cpp - Warpgroups taking turns on NVIDIA ------------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//
//
// tile.take_turns on named barriers: the warpgroups of a kernel run its
// body one after the other (tile-nvvm-warp-specialize splits the kernels
// with a producer into their sides before the lowering).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Target/NVIDIA/Lowering.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Named barriers from 3 on order the turns (0 is the block's, 1 and 2 the
/// consumers' and the producer's).
constexpr int64_t kFirstTurnBarrier = 3;

struct TakeTurnsWithNamedBarriers : OpRewritePattern<TakeTurnsOp> {
  TakeTurnsWithNamedBarriers(MLIRContext *ctx)
      : OpRewritePattern<TakeTurnsOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(TakeTurnsOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> threads = getStaticBlockThreads(op);
    if (!threads)
      return rewriter.notifyMatchFailure(op, "block size unknown");
    int64_t warpgroups = *threads / ProducerOp::kThreads;
    Location loc = op.getLoc();
    auto i32 = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, v, 32);
    };
    auto warpgroupOf = [&](OpBuilder &b) -> Value {
      Value wg = arith::DivUIOp::create(
          b, loc, getBlockThreads(b, op).threadId,
          arith::ConstantIndexOp::create(b, loc, ProducerOp::kThreads));
      return arith::IndexCastOp::create(b, loc, b.getI32Type(), wg);
    };
    Value pair = i32(rewriter, 2 * ProducerOp::kThreads);
    // The first turn: the op of the kernel body (or of its thread range)
    // that holds this one is preceded by the last warpgroup's arrival on
    // warpgroup 0's barrier.
    Operation *outer = op;
    while (outer->getParentOp() &&
           !isa<gpu::LaunchOp>(outer->getParentOp()) &&
           !outer->getParentOp()->hasAttr(
               TileDialect::getThreadRangeAttrName()))
      outer = outer->getParentOp();
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(outer);
      Value last = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::eq,
                                         warpgroupOf(rewriter),
                                         i32(rewriter, warpgroups - 1));
      scf::IfOp::create(rewriter, loc, last, [&](OpBuilder &b, Location) {
        NVVM::BarrierArriveOp::create(b, loc, i32(b, kFirstTurnBarrier),
                                      i32(b, 2 * ProducerOp::kThreads));
        scf::YieldOp::create(b, loc);
      });
    }
    Value wg = warpgroupOf(rewriter);
    NVVM::BarrierOp::create(
        rewriter, loc, /*res=*/Type(),
        arith::AddIOp::create(rewriter, loc, wg,
                              i32(rewriter, kFirstTurnBarrier)),
        pair, /*reductionOp=*/{}, /*reductionPredicate=*/Value());
    Block &body = op.getBody().front();
    markGemmsInTurn(op, rewriter);
    rewriter.eraseOp(body.getTerminator());
    rewriter.inlineBlockBefore(&body, op);
    Value next = arith::RemUIOp::create(
        rewriter, loc, arith::AddIOp::create(rewriter, loc, wg, i32(rewriter, 1)),
        i32(rewriter, warpgroups));
    NVVM::BarrierArriveOp::create(
        rewriter, loc,
        arith::AddIOp::create(rewriter, loc, next,
                              i32(rewriter, kFirstTurnBarrier)),
        pair);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::tile::populateTakeTurnsPatterns(RewritePatternSet &patterns) {
  patterns.add<TakeTurnsWithNamedBarriers>(patterns.getContext());
}
