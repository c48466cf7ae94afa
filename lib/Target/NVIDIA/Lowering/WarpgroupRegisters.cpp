//===- WarpgroupRegisters.cpp - setmaxnreg --------------------------------===//
//
// Part of TileLang-MLIR.
//
// tile.set_max_registers (TileLang's T.set_max_nreg) as setmaxnreg.inc or
// setmaxnreg.dec (sm_90a; the generic lowering erases it elsewhere).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Lowering.h"

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct SetMaxRegistersToNVVM : OpRewritePattern<SetMaxRegistersOp> {
  SetMaxRegistersToNVVM(MLIRContext *ctx)
      : OpRewritePattern<SetMaxRegistersOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(SetMaxRegistersOp op,
                                PatternRewriter &rewriter) const override {
    NVVM::SetMaxRegisterOp::create(
        rewriter, op.getLoc(), op.getCount(),
        op.getIncrease() ? NVVM::SetMaxRegisterAction::increase
                         : NVVM::SetMaxRegisterAction::decrease);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateWarpgroupRegisterPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SetMaxRegistersToNVVM>(patterns.getContext());
}
