//===- NVVMMinBlocks.cpp - Blocks per multiprocessor for ptxas -----------===//
//
// Part of TileLang-MLIR.
//
// tile-nvvm-min-blocks: `nvvm.minctasm` (PTX `.minnctapersm`) on the
// kernels of NVVM GPU modules, so that ptxas budgets their registers for
// several blocks per multiprocessor (see
// include/TileLang/Target/NVIDIA/Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILENVVMMINBLOCKS
#include "TileLang/Target/NVIDIA/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

struct NVVMMinBlocksPass
    : public tile::impl::TileNVVMMinBlocksBase<NVVMMinBlocksPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (blocks < 1 || blocks > 32) {
      module.emitError("tile-nvvm-min-blocks: blocks must be in [1, 32] "
                       "(a multiprocessor runs at most 32 blocks), got ")
          << static_cast<int64_t>(blocks);
      return signalPassFailure();
    }
    if (!hasNVVMTarget(module))
      return;
    StringRef name = NVVM::NVVMDialect::getMinctasmAttrName();
    auto value = IntegerAttr::get(IntegerType::get(&getContext(), 32), blocks);
    for (auto kernel : module.getOps<gpu::GPUFuncOp>()) {
      if (!kernel.isKernel() || kernel->hasAttr(name))
        continue;
      // Warp specialization splits one block's registers between its
      // producer and consumers.
      if (kernel.walk([](NVVM::SetMaxRegisterOp) { return WalkResult::interrupt(); })
              .wasInterrupted())
        continue;
      kernel->setAttr(name, value);
    }
  }
};

} // namespace
