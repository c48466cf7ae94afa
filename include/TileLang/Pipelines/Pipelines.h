//===- Pipelines.h - Named end-to-end pipelines -----------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PIPELINES_PIPELINES_H
#define TILELANG_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;

namespace tile {

/// Where the CPU pipeline may stop (the Python `get_kernel_source` stages
/// on the CPU).
enum class CPUPipelineStage {
  /// The whole lowering: the host module in the LLVM dialect.
  All,
  /// After convert-tile-to-scf (canonicalized): scf loops over memrefs.
  Loops,
};

/// Options of `tile-to-cpu`.
struct TileToCPUOptions : public PassPipelineOptions<TileToCPUOptions> {
  PassOptions::Option<bool> emitCInterface{
      *this, "emit-c-interface",
      llvm::cl::desc("Give every public function a C-compatible wrapper "
                     "(_mlir_ciface_<name>) taking memref descriptors by "
                     "pointer, as the JIT driver calls them"),
      llvm::cl::init(false)};
  PassOptions::Option<CPUPipelineStage> stopAfter{
      *this, "stop-after",
      llvm::cl::desc("Stop after a stage: all (the default), loops "
                     "(convert-tile-to-scf, canonicalized)"),
      llvm::cl::init(CPUPipelineStage::All),
      llvm::cl::values(
          clEnumValN(CPUPipelineStage::All, "all", "the whole lowering"),
          clEnumValN(CPUPipelineStage::Loops, "loops",
                     "after convert-tile-to-scf"))};
};

/// tile IR -> LLVM dialect for the host CPU: the sequential reference
/// (convert-tile-to-scf), then the upstream conversions to LLVM.
void buildTileToCPUPipeline(OpPassManager &pm, const TileToCPUOptions &options);

/// Where a GPU pipeline may stop, to show the IR of a stage exactly as the
/// whole lowering produces it (the Python `get_kernel_source` stages).
enum class GPUPipelineStage {
  /// The whole lowering: host LLVM and device binaries.
  All,
  /// After tile-select-instructions.
  Selected,
  /// After tile-plan-pipelines and tile-prefetch-copies.
  Pipelined,
  /// After tile-infer-layout.
  Layouts,
  /// After convert-tile-to-gpu and the passes over its launches
  /// (canonicalized): gpu.launch and loops.
  Loops,
};

/// Options every GPU pipeline has, whatever the vendor.
template <typename Derived>
struct TileToGPUOptions : public PassPipelineOptions<Derived> {
  template <typename T>
  using Option = typename ::mlir::detail::PassOptions::template Option<T>;

  Option<GPUPipelineStage> stopAfter{
      *this, "stop-after",
      llvm::cl::desc("Stop after a stage, with every option as the whole "
                     "lowering has it: selected (instructions), pipelined "
                     "(planned pipelines, prefetches), layouts (inferred "
                     "layouts), loops (convert-tile-to-gpu, canonicalized)"),
      llvm::cl::init(GPUPipelineStage::All),
      llvm::cl::values(
          clEnumValN(GPUPipelineStage::All, "all", "the whole lowering"),
          clEnumValN(GPUPipelineStage::Selected, "selected",
                     "after tile-select-instructions"),
          clEnumValN(GPUPipelineStage::Pipelined, "pipelined",
                     "after tile-plan-pipelines and tile-prefetch-copies"),
          clEnumValN(GPUPipelineStage::Layouts, "layouts",
                     "after tile-infer-layout"),
          clEnumValN(GPUPipelineStage::Loops, "loops",
                     "after convert-tile-to-gpu"))};

  Option<int> optLevel{
      *this, "opt-level", llvm::cl::desc("Device optimization level"),
      llvm::cl::init(3)};
  Option<bool> emitCInterface{
      *this, "emit-c-interface",
      llvm::cl::desc("Give every public host function a C-compatible "
                     "wrapper (_mlir_ciface_<name>)"),
      llvm::cl::init(false)};

  // The compile options of every GPU target (CompileOptions.def).
#define TILE_GPU_OPTION(TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)               \
  Option<TYPE> NAME{*this, FLAG, llvm::cl::desc(DESCRIPTION),                  \
                    llvm::cl::init(DEFAULT)};
#include "TileLang/Pipelines/CompileOptions.def"
};

/// Options of `tile-to-nvvm`.
struct TileToNVVMOptions : public TileToGPUOptions<TileToNVVMOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("CUDA chip: sm_80, sm_90a, ..."),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features; MLIR's default PTX 6.0 cannot target "
                     "sm_80 or sm_90a"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Device binary: bin (cubin, through ptxas), isa (PTX "
                     "text) or fatbin"),
      llvm::cl::init("bin")};
  // The compile options of NVIDIA targets (CompileOptions.def).
#define TILE_CUDA_OPTION(TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)              \
  PassOptions::Option<TYPE> NAME{*this, FLAG, llvm::cl::desc(DESCRIPTION),     \
                                 llvm::cl::init(DEFAULT)};
#include "TileLang/Pipelines/CompileOptions.def"
  PassOptions::Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit (ptxas, libdevice); default: $CUDA_HOME, "
                     "$CUDA_PATH, $CUDA_ROOT, then /usr/local/cuda"),
      llvm::cl::init("")};
};

/// Options of `tile-to-rocdl`.
struct TileToROCDLOptions : public TileToGPUOptions<TileToROCDLOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("AMD chip: gfx90a, gfx942, gfx1100, ..."),
      llvm::cl::init("gfx942")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("Target features"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Device binary: bin (hsaco, linked by ld.lld) or isa "
                     "(AMDGPU assembly)"),
      llvm::cl::init("bin")};
  PassOptions::Option<std::string> rocmPath{
      *this, "rocm-path",
      llvm::cl::desc("ROCm toolkit: amdgcn/bitcode device libraries and "
                     "llvm/bin/ld.lld; default: $ROCM_PATH, $ROCM_HOME, then "
                     "/opt/rocm"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> schedStrategy{
      *this, "sched-strategy",
      llvm::cl::desc("The AMDGPU backend's scheduler for the kernels "
                     "(tile-rocdl-sched-strategy): auto (iterative-minreg "
                     "for the kernels with matrix cores on wave32 chips, "
                     "where a lane holds twice the accumulators; LLVM's "
                     "default otherwise), default (LLVM's), or a strategy "
                     "name for every kernel"),
      llvm::cl::init("auto")};
};

/// tile IR -> gpu.launch (convert-tile-to-gpu) -> ROCDL and a code object
/// per kernel (gpu.binary), host code in the LLVM dialect.
void buildTileToROCDLPipeline(OpPassManager &pm,
                              const TileToROCDLOptions &options);

/// The ROCm toolkit the AMD pipeline uses when none is given: $ROCM_PATH,
/// $ROCM_HOME, then /opt/rocm if it exists; empty if none.
std::string findROCmToolkit();

/// The CUDA toolkit the NVIDIA pipeline uses when none is given: $CUDA_HOME,
/// $CUDA_PATH, $CUDA_ROOT, then /usr/local/cuda if it exists; empty if none.
std::string findCUDAToolkit();

/// tile IR -> gpu.launch (convert-tile-to-gpu) -> NVVM and a device binary
/// per kernel (gpu.binary), host code in the LLVM dialect calling the mgpu*
/// runtime.
void buildTileToNVVMPipeline(OpPassManager &pm,
                             const TileToNVVMOptions &options);

/// Registers `tile-to-cpu` (and the later named pipelines) with the global
/// pass registry.
void registerTilePipelines();

} // namespace tile
} // namespace mlir

#endif // TILELANG_PIPELINES_PIPELINES_H
