//===- NVVMLaunchRegisters.cpp - Registers at launch of split kernels ----===//
//
// Part of TileLang-MLIR.
//
// tile-nvvm-launch-registers: `nvvm.maxnreg` on the warp-specialized
// kernels of NVVM GPU modules, so that they launch with no more registers
// than their consumers' setmaxnreg.inc asks for (see
// include/TileLang/Target/NVIDIA/Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILENVVMLAUNCHREGISTERS
#include "TileLang/Target/NVIDIA/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

/// Registers of an sm_90 multiprocessor's file, for one block.
static constexpr int64_t kRegisterFile = 65536;

namespace {

struct NVVMLaunchRegistersPass
    : public tile::impl::TileNVVMLaunchRegistersBase<NVVMLaunchRegistersPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (!hasNVVMTarget(module))
      return;
    StringRef name = NVVM::NVVMDialect::getMaxnregAttrName();
    for (auto kernel : module.getOps<gpu::GPUFuncOp>()) {
      if (!kernel.isKernel())
        continue;
      std::optional<int64_t> raised;
      kernel.walk([&](NVVM::SetMaxRegisterOp op) {
        if (op.getAction() != NVVM::SetMaxRegisterAction::increase)
          return;
        int64_t count = op.getRegCount();
        raised = raised ? std::min(*raised, count) : count;
      });
      // A block of the kernel's size launches with at most 65536 registers
      // over its threads (in the allocation unit of 8; ptxas keeps within
      // that from the block size): only where that exceeds the raise can a
      // warp hold more at launch than it asks for.
      std::optional<ArrayRef<int32_t>> block = kernel.getKnownBlockSize();
      if (!raised || !block)
        continue;
      int64_t threads = 1;
      for (int32_t extent : *block)
        threads *= extent;
      if (threads <= 0 || kRegisterFile / threads / 8 * 8 <= *raised)
        continue;
      if (auto given = kernel->getAttrOfType<IntegerAttr>(name);
          given && given.getInt() <= *raised)
        continue;
      kernel->setAttr(name, IntegerAttr::get(
                                IntegerType::get(&getContext(), 32), *raised));
    }
  }
};

} // namespace
