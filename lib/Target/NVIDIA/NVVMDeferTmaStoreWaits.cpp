//===- NVVMDeferTmaStoreWaits.cpp - TMA stores overlapping the next tile -===//
//
// Part of TileLang-MLIR.
//
// tile-nvvm-defer-tma-store-waits: the wait for TMA to read a stored tile
// moves from the store to the tile's next write (see Passes.td; the
// rewrite: deferTmaStoreReadWaits in Lowering/CopyToTMA.cpp).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Passes.h"

#include "TileLang/Target/NVIDIA/Lowering.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILENVVMDEFERTMASTOREWAITS
#include "TileLang/Target/NVIDIA/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {
struct NVVMDeferTmaStoreWaitsPass
    : public tile::impl::TileNVVMDeferTmaStoreWaitsBase<
          NVVMDeferTmaStoreWaitsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (hasTensorMemoryAccelerator(getTargetAttr(module)))
      deferTmaStoreReadWaits(module);
  }
};
} // namespace
