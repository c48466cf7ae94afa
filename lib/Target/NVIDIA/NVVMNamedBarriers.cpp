//===- NVVMNamedBarriers.cpp - Barriers of one warp-specialized side ----===//
//
// Part of TileLang-MLIR.
//
// tile-nvvm-named-barriers: a gpu.barrier inside a thread range of a
// warp-specialized kernel becomes that range's named barrier (see
// Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Passes.h"

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILENVVMNAMEDBARRIERS
#include "TileLang/Target/NVIDIA/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {
struct NVVMNamedBarriersPass
    : public tile::impl::TileNVVMNamedBarriersBase<NVVMNamedBarriersPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<gpu::BarrierOp> barriers;
    getOperation().walk(
        [&](gpu::BarrierOp barrier) { barriers.push_back(barrier); });
    for (gpu::BarrierOp barrier : barriers) {
      // The innermost thread range holding the barrier, within its launch.
      for (Operation *parent = barrier->getParentOp();
           parent && !isa<gpu::LaunchOp>(parent);
           parent = parent->getParentOp()) {
        auto range = parent->getAttrOfType<DenseI64ArrayAttr>(
            TileDialect::getThreadRangeAttrName());
        if (!range)
          continue;
        // (Its form, [first, count(, registers)], the dialect verifies.)
        if (range[1] % 32) {
          parent->emitError() << "'" << TileDialect::getThreadRangeAttrName()
                              << "' must be [first, count] or [first, count, "
                                 "registers] with a count of whole warps";
          return signalPassFailure();
        }
        OpBuilder b(barrier);
        Location loc = barrier.getLoc();
        // Barrier 0 is the whole block's.
        int64_t id = range[0] == 0 ? 1 : 2;
        NVVM::BarrierOp::create(
            b, loc, /*res=*/Type(),
            arith::ConstantIntOp::create(b, loc, id, 32),
            arith::ConstantIntOp::create(b, loc, range[1], 32),
            /*reductionOp=*/{}, /*reductionPredicate=*/Value());
        barrier.erase();
        break;
      }
    }
  }
};
} // namespace
