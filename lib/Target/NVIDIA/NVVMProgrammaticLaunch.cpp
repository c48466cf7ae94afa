//===- NVVMProgrammaticLaunch.cpp - Programmatic dependent launch --------===//
//
// Part of TileLang-MLIR.
//
// tile-nvvm-programmatic-launch: the launches of kernels that wait on their
// grid dependencies (nvvm.griddepcontrol wait) are preceded by a call of the
// runtime's tileProgrammaticLaunch(), so that they launch with programmatic
// stream serialization (see include/TileLang/Target/NVIDIA/Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILENVVMPROGRAMMATICLAUNCH
#include "TileLang/Target/NVIDIA/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr llvm::StringLiteral kProgrammaticLaunch = "tileProgrammaticLaunch";

/// Whether `kernel` (a kernel of an NVVM GPU module) waits on the grids it
/// depends on.
bool waitsOnGridDependencies(gpu::GPUFuncOp kernel) {
  auto module = kernel->getParentOfType<gpu::GPUModuleOp>();
  if (!module || !hasNVVMTarget(module))
    return false;
  return kernel
      .walk([](NVVM::GriddepcontrolOp op) {
        return op.getKind() == NVVM::GridDepActionKind::wait
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

struct NVVMProgrammaticLaunchPass
    : public tile::impl::TileNVVMProgrammaticLaunchBase<
          NVVMProgrammaticLaunchPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (kernel && waitsOnGridDependencies(kernel))
        launches.push_back(launch);
    });
    if (launches.empty())
      return;

    auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(kProgrammaticLaunch);
    if (!callee) {
      auto builder = OpBuilder::atBlockEnd(module.getBody());
      auto type = LLVM::LLVMFunctionType::get(
          LLVM::LLVMVoidType::get(&getContext()), {});
      callee = LLVM::LLVMFuncOp::create(builder, module.getLoc(),
                                        kProgrammaticLaunch, type);
    }
    for (gpu::LaunchFuncOp launch : launches) {
      OpBuilder builder(launch);
      LLVM::CallOp::create(builder, launch.getLoc(), callee, ValueRange());
    }
  }
};

} // namespace
