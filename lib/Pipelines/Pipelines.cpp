//===- Pipelines.cpp - Named end-to-end pipelines -----------------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Pipelines/Pipelines.h"

#include "TileLang/Conversion/Passes.h"
#include "TileLang/Target/AMD/Passes.h"
#include "TileLang/Target/NVIDIA/Passes.h"
#include "TileLang/Transforms/Passes.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/AMDGPUToROCDL/AMDGPUToROCDL.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
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


void mlir::tile::buildTileToCPUPipeline(OpPassManager &pm,
                                        const TileToCPUOptions &options) {
  TileAttachTargetOptions target;
  target.kind = "cpu";
  target.chip = "host";
  target.overwrite = true;
  pm.addPass(createTileVerifyDims());
  pm.addPass(createTileAttachTarget(target));
  pm.addPass(createConvertTileToSCF());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.stopAfter == CPUPipelineStage::Loops)
    return;
  // Before any lowering of math or arith: what cannot be lowered on 8-bit
  // floats is reported at its op.
  pm.addPass(createTileExpandF8());
  if (options.emitCInterface)
    pm.addPass(createTileEmitCInterface());

  pm.addPass(createSCFToControlFlowPass());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

namespace {
/// Every compile option (CompileOptions.def) as a plain value: the
/// pipeline's own, and off (false, 0) for the options its vendor does not
/// have.
struct CompileOptionValues {
#define TILE_COMPILE_OPTION(VENDOR, TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)   \
  TYPE NAME{};
#include "TileLang/Pipelines/CompileOptions.def"
};

/// What differs between the GPU pipelines besides their options: the
/// target kind, the device-side conversions and the toolkit that serializes
/// the binaries.
struct GPUTargetSpec {
  StringRef kind;
  std::string toolkit;
  /// Attaches the MLIR GPU target (#nvvm.target, #rocdl.target).
  function_ref<void(OpPassManager &)> attachTarget;
  /// The vendor's passes over the tile kernels right before the register
  /// selection and the conversion (NVIDIA: warp specialization, tensor
  /// maps, deferred TMA store waits).
  function_ref<void(OpPassManager &)> prepareKernels;
  /// The vendor's passes between the register selection and the
  /// conversion (NVIDIA: the gemms on arrived operands).
  function_ref<void(OpPassManager &)> prepareConversion;
  /// The vendor's passes over the lowered launches, after the generic ones
  /// (NVIDIA: named barriers).
  function_ref<void(OpPassManager &)> finishLaunches;
  /// Lowers gpu.module contents to the target's LLVM dialect flavor.
  function_ref<void(OpPassManager &)> lowerKernels;
};
} // namespace

/// The values of `options`, a GPU pipeline's.
template <typename Options>
static CompileOptionValues getValues(const Options &options) {
  CompileOptionValues values;
#define TILE_GPU_OPTION(TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)               \
  values.NAME = options.NAME;
#include "TileLang/Pipelines/CompileOptions.def"
  if constexpr (std::is_same_v<Options, TileToNVVMOptions>) {
#define TILE_CUDA_OPTION(TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)              \
  values.NAME = options.NAME;
#include "TileLang/Pipelines/CompileOptions.def"
  }
  return values;
}

/// tile IR -> gpu.launch -> outlined kernels -> device binaries and host
/// LLVM (the sequence of MLIR's gpu-lower-to-nvvm-pipeline, shared by both
/// vendors, with the toolkit explicit).
template <typename Options>
static void buildTileToGPUPipeline(OpPassManager &pm, const Options &options,
                                   const GPUTargetSpec &spec) {
  const CompileOptionValues values = getValues(options);
  TileAttachTargetOptions target;
  target.kind = spec.kind.str();
  target.chip = options.chip;
  target.features = options.features;
  target.overwrite = true;
  // Before anything folds: upstream folders crash on a memref.dim of a
  // dimension that does not exist.
  pm.addPass(createTileVerifyDims());
  pm.addPass(createTileAttachTarget(target));
  // (Not in tile-to-cpu: the sequential reference the GPU kernels are
  // checked against stays free of it.)
  if (values.versionParallel)
    pm.addPass(createTileVersionParallel());
  if (values.persistent) {
    TileMakePersistentOptions persistent;
    persistent.dynamic = values.dynamicTiles;
    pm.addPass(createTileMakePersistent(persistent));
  }
  // The instruction of every gemm and the engine of every copy, which the
  // planner, the layouts and the lowering read.
  TileSelectInstructionsOptions select;
  select.wgmma = values.wgmma;
  select.blockedOperands = values.wgmma && values.wgmmaBlocked;
  select.panelBlocks = values.wgmma && values.wgmmaBlocked && values.wgmmaPanels;
  select.wgmmaTallRows = values.wgmma && values.wgmmaTallRows;
  select.tmaStore = values.tmaStore;
  pm.addPass(createTileSelectInstructions(select));
  GPUPipelineStage stop = options.stopAfter;
  if (stop == GPUPipelineStage::Selected)
    return;
  if (values.pipelineCopies && values.wgmma && values.overlapGemmChains)
    pm.addPass(createTileOverlapGemmChains());
  if (values.pipelineCopies) {
    // wgmma gemms keep a k tile of work in flight across iterations.
    TilePlanPipelinesOptions plan;
    plan.overlapGemms = values.wgmma;
    plan.tma = values.tma;
    plan.tmaBlocked = values.tma && values.tmaBlocked;
    plan.releaseBarriers = values.tma && values.tmaRelease;
    plan.releaseMinWarpgroups = values.tmaReleaseMinWarpgroups;
    plan.releaseMaxStages = values.tmaReleaseMaxStages;
    plan.warpSpecialize = values.tma && values.tmaRelease && values.warpSpecialize;
    plan.pingpong = plan.warpSpecialize && values.pingpong;
    // AMD: the prefetch before the compute, which then ends the body (after
    // it, the backend sinks the matrix-core instructions away from their
    // operand loads, into the block that follows the prefetch's branch).
    plan.prefetchFirst = spec.kind == "rocm";
    plan.singleStage = values.singleStage;
    plan.singleStageProducer = values.tma && values.singleStageProducer;
    pm.addPass(createTilePlanPipelines(plan));
  }
  // (After the planner: its staged buffers leave the tiles of copies after
  // a pipelined loop to those copies.)
  if (values.tma && values.prefetchCopies) {
    TilePrefetchCopiesOptions prefetch;
    prefetch.useProducer = values.producerCopies;
    pm.addPass(createTilePrefetchCopies(prefetch));
  }
  if (stop == GPUPipelineStage::Pipelined)
    return;
  // Fragments whose layouts conflict stay in shared memory.
  TileInferLayoutOptions layouts;
  layouts.keepConflictsInMemory = true;
  pm.addPass(createTileInferLayout(layouts));
  if (stop == GPUPipelineStage::Layouts)
    return;
  pm.addPass(createTileLowerParallelAtomics());
  spec.prepareKernels(pm);
  TileSelectRegisterFragmentsOptions registers;
  registers.registers = values.registerFragments;
  pm.addPass(createTileSelectRegisterFragments(registers));
  spec.prepareConversion(pm);
  ConvertTileToGPUOptions toGPU;
  toGPU.stmatrix = values.stmatrix;
  pm.addPass(createConvertTileToGPU(toGPU));
  TilePlaceSharedMemoryOptions place;
  place.reuseSharedMemory = values.reuseSharedMemory;
  pm.addPass(createTilePlaceSharedMemory(place));
  pm.addPass(createTileDropRedundantBarriers());
  spec.finishLaunches(pm);
  if (stop == GPUPipelineStage::Loops) {
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    return;
  }
  // Outline before canonicalizing (the canonicalizer hoists constants to
  // the function), and first sink the constants and index computations the
  // launch body uses into it: outlining passes every value defined outside
  // as a kernel argument, and block sizes, loop steps and tile sizes known
  // to the device compiler turn divisions into shifts and loops into
  // unrolled code.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // The kernels' arithmetic may fuse into FMAs (host code is untouched).
  if (values.fpContract)
    pm.addNestedPass<gpu::GPUModuleOp>(createTileContractFloatOps());
  if (options.emitCInterface)
    pm.addPass(createTileEmitCInterface());

  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  spec.attachTarget(pm);
  if (values.flushDenormals)
    pm.addNestedPass<gpu::GPUModuleOp>(createTileNVVMFlushDenormals());
  // Warp-specialized kernels launch within their consumers' registers.
  pm.addNestedPass<gpu::GPUModuleOp>(createTileNVVMLaunchRegisters());
  if (values.minBlocksPerSM > 0) {
    TileNVVMMinBlocksOptions minBlocks;
    minBlocks.blocks = values.minBlocksPerSM;
    pm.addNestedPass<gpu::GPUModuleOp>(createTileNVVMMinBlocks(minBlocks));
  }
  pm.addPass(createLowerAffinePass());
  pm.addPass(createTileExpandF8());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  spec.lowerKernels(kernels);
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());

  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = spec.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::tile::buildTileToNVVMPipeline(OpPassManager &pm,
                                         const TileToNVVMOptions &options) {
  auto attachTarget = [&](OpPassManager &pm) {
    GpuNVVMAttachTargetOptions nvvmTarget;
    nvvmTarget.chip = options.chip;
    nvvmTarget.features = options.features;
    nvvmTarget.optLevel = options.optLevel;
    pm.addPass(createGpuNVVMAttachTarget(nvvmTarget));
    // (With the target known, before tile-expand-f8: conversions to 8-bit
    // floats the chip does in one instruction.)
    pm.addNestedPass<gpu::GPUModuleOp>(createTileNVVMConvertF8());
    // Kernels that wait on their grid dependencies (T.pdl_sync) launch
    // with programmatic stream serialization.
    pm.addPass(createTileNVVMProgrammaticLaunch());
  };
  auto prepareKernels = [&](OpPassManager &pm) {
    pm.addPass(createTileNVVMWarpSpecialize());
    pm.addPass(createTileNVVMTensorMaps());
    pm.addPass(createTileNVVMDeferTmaStoreWaits());
  };
  auto prepareConversion = [&](OpPassManager &pm) {
    pm.addPass(createTileNVVMArrivedOperands());
  };
  auto finishLaunches = [&](OpPassManager &pm) {
    pm.addPass(createTileNVVMNamedBarriers());
  };
  auto lowerKernels = [&](OpPassManager &kernels) {
    ConvertGpuOpsToNVVMOpsOptions device;
    // redux.sync exists from sm_80 on.
    device.hasRedux = parseSmVersion(options.chip) >= 80;
    kernels.addPass(createConvertGpuOpsToNVVMOps(device));
    kernels.addPass(createTileNVVMExternDynamicShared());
  };
  buildTileToGPUPipeline(pm, options,
                         {"cuda",
                          options.cudaPath.empty()
                              ? findCUDAToolkit()
                              : options.cudaPath.getValue(),
                          attachTarget, prepareKernels, prepareConversion,
                          finishLaunches, lowerKernels});
}

void mlir::tile::buildTileToROCDLPipeline(OpPassManager &pm,
                                          const TileToROCDLOptions &options) {
  bool wave64 = getWarpSize(TargetKind::ROCm, options.chip) == 64;
  auto attachTarget = [&](OpPassManager &pm) {
    GpuROCDLAttachTargetOptions rocdlTarget;
    rocdlTarget.chip = options.chip;
    rocdlTarget.features = options.features;
    rocdlTarget.optLevel = options.optLevel;
    rocdlTarget.wave64Flag = wave64;
    // The device libraries of Debian's rocm-device-libs stop at ABI 5.
    rocdlTarget.abiVersion = "500";
    pm.addPass(createGpuROCDLAttachTarget(rocdlTarget));
  };
  auto lowerKernels = [&](OpPassManager &kernels) {
    ConvertAMDGPUToROCDLPassOptions matrix;
    matrix.chipset = options.chip;
    kernels.addPass(createConvertAMDGPUToROCDLPass(matrix));
    ConvertGpuOpsToROCDLOpsOptions device;
    device.chipset = options.chip;
    device.runtime = gpu::amd::Runtime::HIP;
    kernels.addPass(createConvertGpuOpsToROCDLOps(device));
    kernels.addPass(createTileROCDLExternDynamicShared());
    // "auto": on wave32 chips, kernels with matrix cores schedule for
    // fewer registers (their accumulators take half a lane's registers).
    std::string strategy = options.schedStrategy;
    bool automatic = strategy == "auto";
    if (automatic)
      strategy = wave64 ? "" : "iterative-minreg";
    if (!strategy.empty() && strategy != "default") {
      TileROCDLSchedStrategyOptions sched;
      sched.strategy = strategy;
      sched.matrixKernelsOnly = automatic;
      kernels.addPass(createTileROCDLSchedStrategy(sched));
    }
  };
  buildTileToGPUPipeline(
      pm, options,
      {"rocm",
       options.rocmPath.empty() ? findROCmToolkit() : options.rocmPath.getValue(),
       attachTarget, [](OpPassManager &) {}, [](OpPassManager &) {},
       [](OpPassManager &) {}, lowerKernels});
}

/// The first of `variables` that is set, else `fallback` if it is a
/// directory, else empty.
static std::string findToolkit(ArrayRef<const char *> variables,
                               StringRef fallback) {
  for (const char *var : variables)
    if (std::optional<std::string> path = llvm::sys::Process::GetEnv(var);
        path && !path->empty())
      return *path;
  if (llvm::sys::fs::is_directory(fallback))
    return fallback.str();
  return "";
}

std::string mlir::tile::findROCmToolkit() {
  return findToolkit({"ROCM_PATH", "ROCM_HOME"}, "/opt/rocm");
}

std::string mlir::tile::findCUDAToolkit() {
  return findToolkit({"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"},
                     "/usr/local/cuda");
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
  PassPipelineRegistration<TileToROCDLOptions>(
      "tile-to-rocdl",
      "Lower tile kernels for AMD GPUs: gpu.launch, ROCDL and a code object "
      "per kernel (hsaco, through the ROCm device libraries and ld.lld)",
      buildTileToROCDLPipeline);
}
