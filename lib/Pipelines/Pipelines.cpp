//===- Pipelines.cpp - Named end-to-end pipelines -----------------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Pipelines/Pipelines.h"

#include "TileLang/Conversion/Passes.h"
#include "TileLang/Transforms/Passes.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Marks every public function for a C-compatible wrapper.
struct EmitCInterfacePass
    : public PassWrapper<EmitCInterfacePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EmitCInterfacePass)
  StringRef getArgument() const final { return "tile-emit-c-interface"; }
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func.isPublic() && !func.isDeclaration())
        func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      UnitAttr::get(&getContext()));
  }
};
} // namespace

void mlir::tile::buildTileToCPUPipeline(OpPassManager &pm,
                                        const TileToCPUOptions &options) {
  TileAttachTargetOptions target;
  target.kind = "cpu";
  target.chip = "host";
  target.overwrite = true;
  pm.addPass(createTileAttachTarget(target));
  pm.addPass(createConvertTileToSCF());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.emitCInterface)
    pm.addPass(std::make_unique<EmitCInterfacePass>());

  pm.addPass(createSCFToControlFlowPass());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::tile::buildTileToNVVMPipeline(OpPassManager &pm,
                                         const TileToNVVMOptions &options) {
  TileAttachTargetOptions target;
  target.kind = "cuda";
  target.chip = options.chip;
  target.features = options.features;
  target.overwrite = true;
  pm.addPass(createTileAttachTarget(target));
  pm.addPass(createConvertTileToGPU());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.emitCInterface)
    pm.addPass(std::make_unique<EmitCInterfacePass>());

  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip;
  nvvm.cubinFeatures = options.features;
  nvvm.cubinFormat = options.format;
  nvvm.optLevel = options.optLevel;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
}

void mlir::tile::registerTilePipelines() {
  PassPipelineRegistration<TileToCPUOptions>(
      "tile-to-cpu",
      "Lower tile kernels to the LLVM dialect for the host CPU (the "
      "sequential reference)",
      buildTileToCPUPipeline);
  PassPipelineRegistration<TileToNVVMOptions>(
      "tile-to-nvvm",
      "Lower tile kernels for NVIDIA GPUs: gpu.launch, NVVM, a device binary "
      "per kernel (cubin through ptxas) and host code calling mgpu*",
      buildTileToNVVMPipeline);
}
