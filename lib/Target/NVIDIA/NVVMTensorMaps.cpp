//===- NVVMTensorMaps.cpp - Host-side tensor maps of TMA copies ----------===//
//
// Part of TileLang-MLIR.
//
// tile-nvvm-tensor-maps: every copy on TMA gets the tensor map the host
// creates before its kernel (see Passes.td; the maps: createTensorMaps in
// Lowering/CopyToTMA.cpp).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Passes.h"

#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Target/NVIDIA/Lowering.h"
#include "TileLang/Transforms/InstructionSelection.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILENVVMTENSORMAPS
#include "TileLang/Target/NVIDIA/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {
struct NVVMTensorMapsPass
    : public tile::impl::TileNVVMTensorMapsBase<NVVMTensorMapsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!hasTensorMemoryAccelerator(getTargetAttr(module)))
      return;
    // Copies without an engine take the default choice, as in the
    // conversion; the boxes follow the layouts the lowering gives the tiles.
    stampDefaultCopyEngines(module);
    dropUnappliedSwizzles(module);
    createTensorMaps(module);
  }
};
} // namespace
