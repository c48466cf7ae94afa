//===- ROCDLExternDynamicShared.cpp - Dynamic LDS as extern ------------===//
//
// Part of TileLang-MLIR.
//
// tile-rocdl-extern-dynamic-shared: the dynamic shared memory symbol of
// ROCDL GPU modules becomes an external declaration of unknown size (see
// include/TileLang/Target/AMD/Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/AMD/Passes.h"
#include "TileLang/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEROCDLEXTERNDYNAMICSHARED
#include "TileLang/Target/AMD/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

struct ROCDLExternDynamicSharedPass
    : public tile::impl::TileROCDLExternDynamicSharedBase<
          ROCDLExternDynamicSharedPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    ArrayAttr targets = module.getTargetsAttr();
    if (!targets ||
        !llvm::any_of(targets, llvm::IsaPred<ROCDL::ROCDLTargetAttr>))
      return;
    externalizeDynamicSharedMemory(
        module, ROCDL::ROCDLDialect::kSharedMemoryAddressSpace);
  }
};

} // namespace
