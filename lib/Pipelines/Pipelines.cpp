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
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
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
  // Outline before canonicalizing: the canonicalizer hoists constants to the
  // function, and outlining sinks scalar constants back but passes vector
  // ones (mma accumulators) as kernel arguments.
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.emitCInterface)
    pm.addPass(std::make_unique<EmitCInterfacePass>());

  // Lower host and device code (the sequence of MLIR's
  // gpu-lower-to-nvvm-pipeline, with the toolkit made explicit so that ptxas
  // and libdevice are found without environment variables).
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions nvvmTarget;
  nvvmTarget.chip = options.chip;
  nvvmTarget.features = options.features;
  nvvmTarget.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(nvvmTarget));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  ConvertGpuOpsToNVVMOpsOptions device;
  // redux.sync exists from sm_80 on.
  StringRef sm = StringRef(options.chip).drop_front(3);
  unsigned version = 0;
  device.hasRedux = !sm.consumeInteger(10, version) && version >= 80;
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertGpuOpsToNVVMOps(device));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());

  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath =
      options.cudaPath.empty() ? findCUDAToolkit() : options.cudaPath.getValue();
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

std::string mlir::tile::findCUDAToolkit() {
  for (const char *var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (std::optional<std::string> path = llvm::sys::Process::GetEnv(var);
        path && !path->empty())
      return *path;
  if (llvm::sys::fs::is_directory("/usr/local/cuda"))
    return "/usr/local/cuda";
  return "";
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
