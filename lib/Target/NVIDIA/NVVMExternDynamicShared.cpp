//===- NVVMExternDynamicShared.cpp - Dynamic shared memory of unknown size -===//
//
// Part of TileLang-MLIR.
//
// tile-nvvm-extern-dynamic-shared: the dynamic shared memory symbol of an
// NVVM GPU module becomes an external declaration, as CUDA's `extern
// __shared__` array is (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Passes.h"
#include "TileLang/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILENVVMEXTERNDYNAMICSHARED
#include "TileLang/Target/NVIDIA/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

struct NVVMExternDynamicSharedPass
    : public tile::impl::TileNVVMExternDynamicSharedBase<
          NVVMExternDynamicSharedPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (!hasNVVMTarget(module))
      return;
    externalizeDynamicSharedMemory(
        module, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  }
};

} // namespace
