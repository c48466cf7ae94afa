//===- NVVMFlushDenormals.cpp - Flush-to-zero libdevice math -------------===//
//
// Part of TileLang-MLIR.
//
// tile-nvvm-ftz: the `nvvm-reflect-ftz` module flag on NVVM GPU modules, so
// that libdevice's math functions take their flush-to-zero forms (see
// Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILENVVMFLUSHDENORMALS
#include "TileLang/Target/NVIDIA/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

bool mlir::tile::hasNVVMTarget(gpu::GPUModuleOp module) {
  ArrayAttr targets = module.getTargetsAttr();
  return targets && llvm::any_of(targets, llvm::IsaPred<NVVM::NVVMTargetAttr>);
}

namespace {

/// The flag libdevice's `__nvvm_reflect("__CUDA_FTZ")` reads.
constexpr llvm::StringLiteral kReflectFtz = "nvvm-reflect-ftz";

struct NVVMFlushDenormalsPass
    : public tile::impl::TileNVVMFlushDenormalsBase<NVVMFlushDenormalsPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (!hasNVVMTarget(module))
      return;
    MLIRContext *ctx = &getContext();
    auto flag = LLVM::ModuleFlagAttr::get(
        ctx, LLVM::ModFlagBehavior::Override, StringAttr::get(ctx, kReflectFtz),
        IntegerAttr::get(IntegerType::get(ctx, 32), 1));
    Block &body = module.getBodyRegion().front();
    auto existing = body.getOps<LLVM::ModuleFlagsOp>();
    if (existing.empty()) {
      OpBuilder b = OpBuilder::atBlockBegin(&body);
      LLVM::ModuleFlagsOp::create(b, module.getLoc(),
                                  b.getArrayAttr({flag}));
      return;
    }
    LLVM::ModuleFlagsOp flags = *existing.begin();
    SmallVector<Attribute> entries(flags.getFlags().getValue());
    for (Attribute entry : entries)
      if (auto named = dyn_cast<LLVM::ModuleFlagAttr>(entry);
          named && named.getKey() == kReflectFtz)
        return; // The module chose.
    entries.push_back(flag);
    flags.setFlagsAttr(ArrayAttr::get(ctx, entries));
  }
};

} // namespace
