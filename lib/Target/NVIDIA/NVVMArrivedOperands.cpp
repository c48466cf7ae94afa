//===- NVVMArrivedOperands.cpp - Gemms on TMA-arrived operands -----------===//
//
// Part of TileLang-MLIR.
//
// tile-nvvm-arrived-operands: the gemms that need no block barrier because
// only copies that arrive on barriers write their shared operands (see
// Passes.td; the analysis: markGemmsOnArrivedTiles in
// Lowering/MmaSync.cpp).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Passes.h"

#include "TileLang/Target/NVIDIA/Lowering.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILENVVMARRIVEDOPERANDS
#include "TileLang/Target/NVIDIA/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {
struct NVVMArrivedOperandsPass
    : public tile::impl::TileNVVMArrivedOperandsBase<NVVMArrivedOperandsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (hasTensorMemoryAccelerator(getTargetAttr(module)))
      markGemmsOnArrivedTiles(module);
  }
};
} // namespace
