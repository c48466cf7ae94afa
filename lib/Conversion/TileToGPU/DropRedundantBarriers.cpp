//===- DropRedundantBarriers.cpp - Back-to-back block barriers ----------===//
//
// Part of TileLang-MLIR.
//
// tile-drop-redundant-barriers: a gpu.barrier that another follows with
// nothing in between that touches memory is dropped (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/Passes.h"

#include "TileLang/Target/TargetInfo.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEDROPREDUNDANTBARRIERS
#include "TileLang/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {
struct DropRedundantBarriersPass
    : public tile::impl::TileDropRedundantBarriersBase<
          DropRedundantBarriersPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkTargetRegistered(module)))
      return signalPassFailure();
    const TargetInfo &info = getTargetInfo(module);
    // Collected first: of a run of barriers, all but the last go.
    SmallVector<gpu::BarrierOp> redundant;
    module.walk([&](gpu::BarrierOp barrier) {
      for (Operation *next = barrier->getNextNode(); next;
           next = next->getNextNode()) {
        if (isa<gpu::BarrierOp>(next)) {
          redundant.push_back(barrier);
          return;
        }
        if (!info.isBarrierTransparent(next) &&
            (next->getNumRegions() || !isMemoryEffectFree(next)))
          return;
      }
    });
    for (gpu::BarrierOp barrier : redundant)
      barrier.erase();
  }
};
} // namespace
