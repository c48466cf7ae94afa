//===- ROCDLSchedStrategy.cpp - AMDGPU scheduler per kernel --------------===//
//
// Part of TileLang-MLIR.
//
// tile-rocdl-sched-strategy: the "amdgpu-sched-strategy" function attribute
// on the ROCDL kernels of a GPU module (see
// include/TileLang/Target/AMD/Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/AMD/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEROCDLSCHEDSTRATEGY
#include "TileLang/Target/AMD/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr llvm::StringLiteral kAttribute = "amdgpu-sched-strategy";

/// Whether `func` issues matrix-core instructions (WMMA, MFMA, SMFMAC).
bool usesMatrixCores(LLVM::LLVMFuncOp func) {
  WalkResult found = func.walk([](Operation *op) {
    StringRef name = op->getName().getStringRef();
    return name.starts_with("rocdl.wmma") || name.starts_with("rocdl.mfma") ||
                   name.starts_with("rocdl.smfmac")
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return found.wasInterrupted();
}

struct ROCDLSchedStrategyPass
    : public tile::impl::TileROCDLSchedStrategyBase<ROCDLSchedStrategyPass> {
  using Base::Base;

  void runOnOperation() override {
    static constexpr llvm::StringLiteral known[] = {
        "max-occupancy", "max-ilp", "max-memory-clause", "iterative-ilp",
        "iterative-minreg", "iterative-maxocc"};
    if (!llvm::is_contained(known, StringRef(strategy))) {
      getOperation().emitError()
          << "tile-rocdl-sched-strategy: unknown strategy '" << strategy
          << "' (known: max-occupancy, max-ilp, max-memory-clause, "
             "iterative-ilp, iterative-minreg, iterative-maxocc)";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      if (!func->hasAttr(ROCDL::ROCDLDialect::getKernelFuncAttrName()))
        return;
      if (matrixKernelsOnly && !usesMatrixCores(func))
        return;
      SmallVector<Attribute> entries;
      if (ArrayAttr existing = func.getPassthroughAttr()) {
        for (Attribute entry : existing) {
          auto pair = dyn_cast<ArrayAttr>(entry);
          auto key = pair && pair.size() == 2
                         ? dyn_cast<StringAttr>(pair[0])
                         : StringAttr();
          if (key && key.getValue() == kAttribute)
            return; // The kernel names its scheduler.
          entries.push_back(entry);
        }
      }
      entries.push_back(ArrayAttr::get(ctx, {StringAttr::get(ctx, kAttribute),
                                             StringAttr::get(ctx, strategy)}));
      func.setPassthroughAttr(ArrayAttr::get(ctx, entries));
    });
  }
};

} // namespace
