//===- GridDependencies.cpp - Programmatic dependent launch --------------===//
//
// Part of TileLang-MLIR.
//
// tile.grid_wait and tile.grid_launch_dependents (TileLang's T.pdl_sync and
// T.pdl_trigger) as griddepcontrol.wait and griddepcontrol.launch_dependents
// (sm_90 and newer; the generic lowering erases them elsewhere).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Lowering.h"

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

template <typename Op, NVVM::GridDepActionKind Kind>
struct GridDependencyToNVVM : OpRewritePattern<Op> {
  GridDependencyToNVVM(MLIRContext *ctx)
      : OpRewritePattern<Op>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    NVVM::GriddepcontrolOp::create(
        rewriter, op.getLoc(),
        NVVM::GridDepActionKindAttr::get(rewriter.getContext(), Kind));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateGridDependencyPatterns(RewritePatternSet &patterns) {
  patterns.add<GridDependencyToNVVM<GridWaitOp, NVVM::GridDepActionKind::wait>,
               GridDependencyToNVVM<GridLaunchDependentsOp,
                                    NVVM::GridDepActionKind::launch_dependents>>(
      patterns.getContext());
}
