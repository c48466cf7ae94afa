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

/// Options of `tile-to-cpu`.
struct TileToCPUOptions : public PassPipelineOptions<TileToCPUOptions> {
  PassOptions::Option<bool> emitCInterface{
      *this, "emit-c-interface",
      llvm::cl::desc("Give every public function a C-compatible wrapper "
                     "(_mlir_ciface_<name>) taking memref descriptors by "
                     "pointer, as the JIT driver calls them"),
      llvm::cl::init(false)};
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
  /// After convert-tile-to-gpu (canonicalized): gpu.launch and loops.
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
  Option<bool> reuseSharedMemory{
      *this, "reuse-shared-memory",
      llvm::cl::desc("Let tiles with disjoint lifetimes share shared memory "
                     "(convert-tile-to-gpu's option)"),
      llvm::cl::init(true)};
  Option<bool> emitCInterface{
      *this, "emit-c-interface",
      llvm::cl::desc("Give every public host function a C-compatible "
                     "wrapper (_mlir_ciface_<name>)"),
      llvm::cl::init(false)};
  Option<bool> pipelineCopies{
      *this, "pipeline-copies",
      llvm::cl::desc("Software-pipeline the copies of tile.pipelined loops "
                     "over num_stages buffers with asynchronous copies "
                     "(tile-plan-pipelines)"),
      llvm::cl::init(true)};
  Option<bool> registerFragments{
      *this, "register-fragments",
      llvm::cl::desc("Keep fragments in per-thread registers where their "
                     "inferred layouts allow it (convert-tile-to-gpu's "
                     "option; =false: fragments in shared memory)"),
      llvm::cl::init(true)};
  Option<bool> fpContract{
      *this, "fp-contract",
      llvm::cl::desc("Let the kernels' floating-point multiplies and adds "
                     "fuse into FMAs, as nvcc, hipcc and Triton do by "
                     "default (tile-contract-float-ops; =false: every "
                     "operation rounds on its own)"),
      llvm::cl::init(true)};
  Option<bool> versionParallel{
      *this, "version-parallel",
      llvm::cl::desc("Give tile.parallel ops whose selects test conditions "
                     "affine in their indices (masks) copies for the tiles "
                     "where the condition holds everywhere or nowhere "
                     "(tile-version-parallel)"),
      llvm::cl::init(true)};
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
  PassOptions::Option<bool> wgmma{
      *this, "wgmma",
      llvm::cl::desc("sm_90: gemms that fit wgmma (f16/bf16 -> f32, K-major "
                     "operands of 32-128-byte rows, 64 rows per warpgroup) "
                     "take its warpgroup partition and run on "
                     "wgmma.mma_async, one k tile in flight in pipelined "
                     "loops of 4+ stages; =false: mma.sync"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> wgmmaBlocked{
      *this, "wgmma-blocked",
      llvm::cl::desc("sm_90: gemm operands with rows wider than 128 bytes "
                     "take the blocked 128-byte layout and such gemms run "
                     "on wgmma too (8 x 64-element column blocks per 8 "
                     "rows; =false: such gemms stay on mma.sync)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> wgmmaPanels{
      *this, "wgmma-panels",
      llvm::cl::desc("sm_90: blocked gemm operand tiles are stored in "
                     "column panels, which TMA writes with one box per "
                     "panel, and wgmma reads them one panel apart "
                     "(=false: blocked tiles stay on cp.async)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> stmatrix{
      *this, "stmatrix",
      llvm::cl::desc("sm_90: register fragments in the accumulator order "
                     "store into 16-bit shared tiles with stmatrix "
                     "(convert-tile-to-gpu{stmatrix}; experimental)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> ftz{
      *this, "ftz",
      llvm::cl::desc("libdevice's math functions (exp2f, expf, rsqrtf, ...) "
                     "flush f32 denormals to zero, as nvcc -ftz=true and "
                     "Triton do (tile-nvvm-ftz; =false: IEEE denormals)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> prefetchCopies{
      *this, "prefetch-copies",
      llvm::cl::desc("sm_90 with TMA: a kernel's one-off copies into shared "
                     "tiles are issued as early as they may be, "
                     "asynchronously, and waited for where they were "
                     "(tile-prefetch-copies)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> producerCopies{
      *this, "producer-copies",
      llvm::cl::desc("sm_90 with prefetch-copies and warp-specialize: the "
                     "producer warpgroup issues those one-off copies, once "
                     "per tile in persistent kernels "
                     "(tile-prefetch-copies{producer})"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> tmaStore{
      *this, "tma-store",
      llvm::cl::desc("sm_90: synchronous copies of whole shared tiles into "
                     "global memory are TMA stores where TMA boxes cover "
                     "the tile (tile-select-instructions{tma-store}; =false: "
                     "the threads' vector stores)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> tmaRelease{
      *this, "tma-release",
      llvm::cl::desc("sm_90: with tma, warps release each pipeline stage on "
                     "an mbarrier that the issuing thread waits for before "
                     "refilling it, instead of a block barrier per stage "
                     "(tile-plan-pipelines{release-barriers}), in kernels "
                     "of at least tma-release-min-warpgroups warpgroups and "
                     "pipelines of at most tma-release-max-stages stages"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> tmaReleaseMinWarpgroups{
      *this, "tma-release-min-warpgroups",
      llvm::cl::desc("sm_90: with tma-release, the fewest warpgroups a "
                     "kernel needs for release barriers (one warpgroup "
                     "keeps its block barriers: cheaper there)"),
      llvm::cl::init(2)};
  PassOptions::Option<bool> warpSpecialize{
      *this, "warp-specialize",
      llvm::cl::desc("sm_90: pipelines with release barriers get a producer "
                     "warpgroup that issues their TMA copies while the "
                     "kernel's threads compute (tile-plan-pipelines"
                     "{warp-specialize}; setmaxnreg 24 / up to 240)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> pingpong{
      *this, "pingpong",
      llvm::cl::desc("sm_90: with warp-specialize, the consumer warpgroups "
                     "take turns issuing the pipelined loop's first gemms "
                     "(tile-plan-pipelines{pingpong})"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> minBlocksPerSM{
      *this, "min-blocks-per-sm",
      llvm::cl::desc("Kernels without warp specialization get registers for "
                     "this many blocks per multiprocessor (ptxas's "
                     ".minnctapersm, CUDA's __launch_bounds__ minBlocks; "
                     "tile-nvvm-min-blocks); 0: ptxas chooses"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> tmaReleaseMaxStages{
      *this, "tma-release-max-stages",
      llvm::cl::desc("sm_90: with tma-release, the most stages a pipeline "
                     "may have for release barriers (0: any; deeper "
                     "pipelines refill buffers consumed long before, where "
                     "a block barrier rarely waits)"),
      llvm::cl::init(2)};
  PassOptions::Option<bool> tmaBlocked{
      *this, "tma-blocked",
      llvm::cl::desc("sm_90: with tma, tiles in the blocked layout load "
                     "through TMA too, one 8-row box per 1 KiB block; "
                     "only with wgmma-panels=false (experimental: slower "
                     "than panels on the H200)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> persistent{
      *this, "persistent",
      llvm::cl::desc("Persistent kernels: one block per multiprocessor "
                     "loops over the grid's tiles (tile-make-persistent; "
                     "experimental)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> dynamicTiles{
      *this, "dynamic-tiles",
      llvm::cl::desc("With persistent: the tiles after the first wave go to "
                     "whichever block asks first, from a global counter "
                     "(tile-make-persistent{dynamic}; experimental)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> wgmmaTallRows{
      *this, "wgmma-tall-rows",
      llvm::cl::desc("sm_90: warpgroups may own 128 rows of a wgmma gemm's "
                     "C (two m64 blocks), so 128-thread 128-row blocks run "
                     "on wgmma (=false: such gemms stay on mma.sync)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> tma{
      *this, "tma",
      llvm::cl::desc("sm_90: pipelined loops whose copies TMA can do load "
                     "their stages with one TMA transfer per copy, counted "
                     "on mbarriers (tensor maps created on the host; "
                     "=false: cp.async)"),
      llvm::cl::init(true)};
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
