//===- Clusters.cpp - Thread block cluster synchronization ---------------===//
//
// Part of TileLang-MLIR.
//
// tile.cluster_arrive, tile.cluster_wait, tile.block_rank_in_cluster and
// tile.cluster_barrier_arrive (TileLang's T.cluster_arrive/_relaxed,
// T.cluster_wait, T.block_rank_in_cluster, T.mbarrier_arrive(bar, cta_id))
// as barrier.cluster, %cluster_ctarank and remote mbarrier arrivals (sm_90
// and newer; lowerClusterOps handles targets without clusters).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Lowering.h"

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Not `.aligned`: the threads of a warp may reach the op apart (under a
/// branch on the thread index).
struct ClusterArriveToNVVM : OpRewritePattern<ClusterArriveOp> {
  ClusterArriveToNVVM(MLIRContext *ctx)
      : OpRewritePattern<ClusterArriveOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(ClusterArriveOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getRelaxed())
      NVVM::ClusterArriveRelaxedOp::create(rewriter, op.getLoc(), UnitAttr());
    else
      NVVM::ClusterArriveOp::create(rewriter, op.getLoc(), UnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct ClusterWaitToNVVM : OpRewritePattern<ClusterWaitOp> {
  ClusterWaitToNVVM(MLIRContext *ctx)
      : OpRewritePattern<ClusterWaitOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(ClusterWaitOp op,
                                PatternRewriter &rewriter) const override {
    NVVM::ClusterWaitOp::create(rewriter, op.getLoc(), UnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BlockRankToNVVM : OpRewritePattern<BlockRankInClusterOp> {
  BlockRankToNVVM(MLIRContext *ctx)
      : OpRewritePattern<BlockRankInClusterOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(BlockRankInClusterOp op,
                                PatternRewriter &rewriter) const override {
    Value rank =
        NVVM::ClusterId::create(rewriter, op.getLoc(), rewriter.getI32Type());
    rewriter.replaceOpWithNewOp<arith::IndexCastUIOp>(
        op, rewriter.getIndexType(), rank);
    return success();
  }
};

/// The barrier's shared-memory address mapped into block `cta`'s window
/// of the cluster's shared memory, and a release arrival at cluster scope.
struct ClusterBarrierArriveToNVVM : OpRewritePattern<ClusterBarrierArriveOp> {
  ClusterBarrierArriveToNVVM(MLIRContext *ctx)
      : OpRewritePattern<ClusterBarrierArriveOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(ClusterBarrierArriveOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value local =
        getBarrierPointer(rewriter, loc, op.getBarriers(), op.getIndex());
    Value cta = arith::IndexCastUIOp::create(rewriter, loc,
                                             rewriter.getI32Type(), op.getCta());
    auto clusterPointer = LLVM::LLVMPointerType::get(
        ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
    Value remote =
        NVVM::MapaOp::create(rewriter, loc, clusterPointer, local, cta);
    NVVM::MBarrierArriveOp::create(
        rewriter, loc, Type(), remote, /*count=*/Value(),
        NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CLUSTER));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateClusterPatterns(RewritePatternSet &patterns) {
  patterns.add<ClusterArriveToNVVM, ClusterWaitToNVVM, BlockRankToNVVM,
               ClusterBarrierArriveToNVVM>(patterns.getContext());
}
