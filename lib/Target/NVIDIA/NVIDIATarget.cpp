//===- NVIDIATarget.cpp - The NVIDIA implementation of TargetInfo ---------===//
//
// Part of TileLang-MLIR.
//
// What #tile.target<cuda, ...> can do: mma.sync (sm_80) and wgmma (sm_90)
// gemms, cp.async (sm_80) and TMA (sm_90) copies, the tensor cores'
// register layouts and shared-memory swizzles, thread block clusters and
// warp specialization (sm_90), and the nvgpu/nvvm lowering of
// lib/Target/NVIDIA/Lowering as its part of convert-tile-to-gpu.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/NVIDIATarget.h"

#include "TileLang/Conversion/RegisterFragments.h"
#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Target/NVIDIA/Lowering.h"
#include "TileLang/Target/TargetInfo.h"
#include "TileLang/Transforms/InstructionSelection.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::tile;

/// Threads per warpgroup, the unit wgmma runs on.
static constexpr int64_t kWarpgroupThreads = 128;

/// Whether every shared operand of `gemm` will be in a swizzle wgmma reads
/// through descriptors: its own, or the one tile-infer-layout (or the
/// pipeline planner, for staged tiles) gives a tile without one, kept by
/// every access (convert-tile-to-gpu drops a swizzle an element-wise access
/// cannot apply).
static bool keepsWgmmaSwizzles(GemmOp gemm, GemmInstructionAttr instruction) {
  for (Value operand : {gemm.getA(), gemm.getB()}) {
    auto type = cast<MemRefType>(operand.getType());
    if (isInSpace(type, MemorySpace::Fragment))
      continue;
    // Pipeline stages are views of one multi-buffered allocation.
    Value root = operand;
    while (auto view = root.getDefiningOp<memref::SubViewOp>())
      root = view.getSource();
    auto shared = root.getDefiningOp<AllocSharedOp>();
    if (!shared)
      return false;
    auto swizzle = dyn_cast_or_null<SwizzleAttr>(shared.getLayoutAttr());
    if (!swizzle)
      swizzle = getWgmmaOperandSwizzle(getWindowPage(operand),
                                       instruction.getBlocked(),
                                       instruction.getPanels());
    // What the lowering reads (getWgmmaRowBytes).
    if (!swizzle || !appliesSwizzle(root, swizzle) ||
        !getWgmmaRowBytes(operand, swizzle))
      return false;
  }
  return true;
}

/// Why `gemm` cannot run on wgmma as `instruction` says, if it cannot.
static std::optional<std::string>
explainWgmmaMismatch(GemmOp gemm, GemmInstructionAttr instruction,
                     int64_t threads, const GemmSelectionOptions &options) {
  if (threads % kWarpgroupThreads)
    return "wgmma needs whole warpgroups of 128 threads; the kernel has " +
           std::to_string(threads);
  int64_t rows = 64 * (threads / kWarpgroupThreads);
  bool registerA = isInSpace(gemm.getA().getType(), MemorySpace::Fragment);
  if (instruction.getRegisterA() != registerA)
    return std::string(registerA ? "A is a fragment: wgmma reads it from "
                                   "registers (register_a)"
                                 : "A is in shared memory: wgmma reads it "
                                   "through a descriptor, not registers");
  // The warpgroups split N into column groups of one wgmma each, the rest
  // of them split M.
  int64_t groups = threads / kWarpgroupThreads;
  int64_t columnGroups = getWgmmaColumnGroups(gemm, instruction);
  bool columnsSplit = instruction.getN() > 0 &&
                      gemm.getN() % instruction.getN() == 0 &&
                      groups % columnGroups == 0;
  if (!columnsSplit || instruction.getBlocks() * 64 * (groups / columnGroups) !=
                           gemm.getM())
    return "a " + std::to_string(gemm.getM()) + "x" +
           std::to_string(gemm.getN()) + " C over " + std::to_string(groups) +
           " warpgroups is wgmma m64n" + std::to_string(gemm.getN()) + "k" +
           std::to_string(getWgmmaTileK(gemm)) + " with " +
           std::to_string(gemm.getM() / rows) +
           " blocks, if any, or, when M is less than 64 rows per warpgroup, "
           "m64n(N/g) over g column groups of warpgroups";
  if (columnGroups > 1 && (registerA || instruction.getBlocks() > 1))
    return std::string("warpgroups split N only with A in shared memory and "
                       "one m64 block each");
  if (instruction.getK() != getWgmmaTileK(gemm))
    return "wgmma takes these operands as m64nNk" +
           std::to_string(getWgmmaTileK(gemm));
  if (instruction.getBlocks() > 1 && !options.wgmmaTallRows)
    return std::string("two m64 blocks per warpgroup need wgmma-tall-rows");
  auto isBlocked = [](Value tile) {
    SwizzleAttr swizzle = getTileSwizzle(tile);
    return swizzle && swizzle.getBlocked();
  };
  bool blocked = instruction.getBlocked() || isBlocked(gemm.getA()) ||
                 isBlocked(gemm.getB());
  if (getWgmmaShapeMismatch(gemm) ||
      !fitsWgmma(gemm, threads, blocked,
                 /*tallRows=*/instruction.getBlocks() > 1, columnGroups))
    return std::string("wgmma does not take these types, transposes or "
                       "shapes (f16/bf16 -> f32, or FP8 -> f32 with A and B "
                       "K-major in shared memory; B in shared memory, K-major "
                       "shared rows of 32, 64 or 128 bytes or blocked wider "
                       "ones, N a multiple of 8 up to 256, K of 16, 32 for "
                       "FP8; with warpgroups splitting N, an MN-major B "
                       "blocked, each group's columns whole 128-byte "
                       "blocks)");
  if (!keepsWgmmaSwizzles(gemm, instruction))
    return std::string("a shared operand will not be in a swizzle wgmma "
                       "reads (a layout or an access that keeps it from "
                       "its swizzle)");
  return std::nullopt;
}

/// Whether the shared allocation `tile` is a view of has its layout (a
/// swizzle, given by the user, the planner or tile-infer-layout, which
/// never replaces one).
static bool hasLayout(Value tile) {
  while (auto view = tile.getDefiningOp<memref::SubViewOp>())
    tile = view.getSource();
  auto alloc = tile.getDefiningOp<AllocSharedOp>();
  return alloc && alloc.getLayoutAttr();
}

/// The compute capability an instruction or engine needs.
static int64_t getRequiredSmVersion(GemmInstructionKind kind) {
  return kind == GemmInstructionKind::Wgmma ? 90 : 80;
}
static int64_t getRequiredSmVersion(CopyEngineKind kind) {
  return kind == CopyEngineKind::TMA ? 90 : 80;
}

namespace {

/// Whether some gemm under `root` is stamped wgmma; fails, with a located
/// error, on one the wgmma lowering cannot emit with the fragments marked
/// in registers (tile-select-register-fragments restamps those).
FailureOr<bool> checkWgmmaGemms(Operation *root) {
  bool any = false;
  WalkResult result = root->walk([&](GemmOp gemm) {
    GemmInstructionAttr instruction = gemm.getInstructionAttr();
    if (!instruction || instruction.getKind() != GemmInstructionKind::Wgmma)
      return WalkResult::advance();
    any = true;
    int64_t threads = getThreadsOf(gemm);
    if (std::optional<StringRef> why =
            getWgmmaLoweringMismatch(gemm, threads)) {
      gemm.emitOpError("is stamped ")
          << instruction << " but the wgmma lowering cannot emit it: " << *why
          << " (tile-select-register-fragments marks the registers and "
             "restamps such gemms)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return any;
}

/// The turns of warpgroups wait on named barriers, so their gemms must not
/// need block barriers, which SIMT gemms always do (mma.sync ones say so
/// when they do).
LogicalResult checkTurns(ModuleOp module) {
  WalkResult turns = module.walk([](TakeTurnsOp op) {
    for (auto gemm : op.getBody().getOps<GemmOp>())
      if (gemm.getInstructionAttr().getKind() == GemmInstructionKind::SIMT) {
        InFlightDiagnostic diag =
            gemm.emitOpError("runs on SIMT, whose block barriers "
                             "warpgroups taking turns never reach "
                             "together (tile.take_turns)");
        diag.attachNote(op.getLoc()) << "the turns";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(turns.wasInterrupted());
}

/// NVIDIA's part of convert-tile-to-gpu.
class NVIDIAKernelLowering : public KernelLowering {
public:
  NVIDIAKernelLowering(TargetAttr target, const KernelLoweringOptions &options)
      : smVersion(target.getSmVersion()), options(options) {}

  LogicalResult prepare(ModuleOp module,
                        RegisterFragments &fragments) override {
    // Warp specialization, the tensor maps, the deferred waits of TMA
    // stores and the gemms on arrived operands are passes before
    // (tile-nvvm-warp-specialize, tile-nvvm-tensor-maps,
    // tile-nvvm-defer-tma-store-waits, tile-nvvm-arrived-operands).
    WalkResult unsplit = module.walk([](ProducerOp producer) {
      producer.emitOpError("must be split into its warpgroup by "
                           "tile-nvvm-warp-specialize before "
                           "convert-tile-to-gpu (tile-to-nvvm runs it)");
      return WalkResult::interrupt();
    });
    if (unsplit.wasInterrupted())
      return failure();
    FailureOr<bool> anyWgmma = checkWgmmaGemms(module);
    if (failed(anyWgmma))
      return failure();
    wgmma = *anyWgmma;
    if (failed(checkTurns(module)))
      return failure();
    return success();
  }

  void populatePatterns(RewritePatternSet &patterns,
                        RegisterFragments &fragments) override {
    populateTileToNVGPUPatterns(patterns, smVersion, &fragments, wgmma);
    if (!isHopper())
      return;
    populateTmaPatterns(patterns);
    populateTmaStorePatterns(patterns);
    populateGridDependencyPatterns(patterns);
    populateWarpgroupRegisterPatterns(patterns);
    populateClusterPatterns(patterns);
    if (options.stmatrix)
      populateStmatrixPatterns(patterns, fragments);
    populateTakeTurnsPatterns(patterns);
  }

private:
  bool isHopper() const { return smVersion >= 90; }

  int64_t smVersion;
  KernelLoweringOptions options;
  /// Some gemm stays on wgmma.
  bool wgmma = false;
};

class NVIDIATargetInfo : public TargetInfo {
public:
  void reviseGemmInstructions(Operation *root,
                              TargetAttr target) const override {
    // A gemm selected for wgmma that its lowering cannot emit with these
    // registers takes the default choice (mma.sync, or SIMT).
    root->walk([&](GemmOp gemm) {
      GemmInstructionAttr instruction = gemm.getInstructionAttr();
      if (!instruction || instruction.getKind() != GemmInstructionKind::Wgmma)
        return;
      int64_t threads = getThreadsOf(gemm);
      if (!getWgmmaLoweringMismatch(gemm, threads))
        return;
      gemm.removeInstructionAttr();
      gemm.setInstructionAttr(getGemmInstruction(gemm));
    });
  }

  void appendGemmCandidates(GemmOp gemm, TargetAttr target, int64_t threads,
                            const GemmSelectionOptions &options,
                            SmallVectorImpl<GemmInstructionAttr> &out)
      const override {
    MLIRContext *ctx = gemm.getContext();
    auto consider = [&](GemmInstructionAttr candidate) {
      if (candidate)
        out.push_back(candidate);
    };
    bool registerA = isInSpace(gemm.getA().getType(), MemorySpace::Fragment);
    int64_t groups = threads / kWarpgroupThreads;
    if (options.wgmma && groups >= 1) {
      consider(getValidGemmInstruction(
          ctx, GemmInstructionKind::Wgmma, 64, gemm.getN(),
          getWgmmaTileK(gemm), registerA,
          std::max<int64_t>(1, gemm.getM() / (64 * groups)),
          options.sharedTiles));
      // Fewer 64-row blocks than warpgroups (TileLang's MLA decode: 64
      // heads over two warpgroups): the warpgroups split N as well, each
      // a wgmma of N / g columns.
      int64_t rowGroups = gemm.getM() / 64;
      if (!registerA && gemm.getM() % 64 == 0 && rowGroups >= 1 &&
          rowGroups < groups && groups % rowGroups == 0 &&
          gemm.getN() % (groups / rowGroups) == 0)
        consider(getValidGemmInstruction(
            ctx, GemmInstructionKind::Wgmma, 64,
            gemm.getN() / (groups / rowGroups), getWgmmaTileK(gemm),
            /*registerA=*/false, /*blocks=*/1, options.sharedTiles));
    }
    consider(getValidGemmInstruction(ctx, GemmInstructionKind::MmaSync, 16, 8,
                                     getMmaSyncTileK(gemm), /*registerA=*/false,
                                     /*blocks=*/1, options.sharedTiles));
  }

  std::optional<std::string>
  explainGemmMismatch(GemmOp gemm, GemmInstructionAttr instruction,
                      TargetAttr target, int64_t threads,
                      const GemmSelectionOptions &options) const override {
    GemmInstructionKind kind = instruction.getKind();
    if (!instruction.isTensorCore())
      return TargetInfo::explainGemmMismatch(gemm, instruction, target,
                                             threads, options);
    if (target.getSmVersion() < getRequiredSmVersion(kind))
      return *getGemmRequirement(kind) + ", not " + describeTarget(target);
    if (threads % target.getWarpSize())
      return std::string("the block is not whole warps");
    if (kind == GemmInstructionKind::Wgmma)
      return explainWgmmaMismatch(gemm, instruction, threads, options);
    if (std::optional<StringRef> why = getMmaSyncMismatch(gemm))
      return why->str();
    if (instruction.getK() != getMmaSyncTileK(gemm))
      return ("mma.sync takes these operands as m16n8k" +
              Twine(getMmaSyncTileK(gemm)))
          .str();
    return std::nullopt;
  }

  void appendCopyCandidates(CopyOp copy, TargetAttr target,
                            const CopySelectionOptions &options,
                            SmallVectorImpl<CopyEngineKind> &out)
      const override {
    if (target.getSmVersion() >= 90 &&
        (copy.getBarriers() ||
         (options.tmaStore && !copy.getAsync() &&
          !getMemorySpace(copy.getDst().getType()) &&
          isInSpace(copy.getSrc().getType(), MemorySpace::Shared))))
      out.push_back(CopyEngineKind::TMA);
    if (copy.getAsync() && !copy.getBarriers() &&
        isGlobalToSharedTileCopy(copy))
      out.push_back(CopyEngineKind::CpAsync);
  }

  std::optional<std::string>
  explainCopyMismatch(CopyOp copy, CopyEngineAttr engine,
                      TargetAttr target) const override {
    CopyEngineKind kind = engine.getKind();
    if (kind != CopyEngineKind::CpAsync && kind != CopyEngineKind::TMA)
      return TargetInfo::explainCopyMismatch(copy, engine, target);
    if (target.getSmVersion() < getRequiredSmVersion(kind))
      return *getCopyRequirement(kind) + ", not " + describeTarget(target);
    if (kind == CopyEngineKind::CpAsync)
      return getCopyVectorsMismatch(copy);
    // The boxes depend on the shared tile's layout, which tile-infer-layout
    // may still choose; until then the lowering checks them.
    return getTmaCopyMismatch(
        copy, /*checkBox=*/hasLayout(copy.getBarriers() ? copy.getDst()
                                                        : copy.getSrc()));
  }

  std::optional<std::string>
  getGemmRequirement(GemmInstructionKind kind) const override {
    if (kind != GemmInstructionKind::Wgmma &&
        kind != GemmInstructionKind::MmaSync)
      return std::nullopt;
    return (stringifyGemmInstructionKind(kind) +
            " needs an NVIDIA target of sm_" +
            Twine(getRequiredSmVersion(kind)) + " or newer")
        .str();
  }

  std::optional<std::string>
  getCopyRequirement(CopyEngineKind kind) const override {
    if (kind != CopyEngineKind::TMA && kind != CopyEngineKind::CpAsync)
      return std::nullopt;
    return (Twine(kind == CopyEngineKind::TMA ? "TMA" : "cp.async") +
            " needs an NVIDIA target of sm_" +
            Twine(getRequiredSmVersion(kind)) + " or newer")
        .str();
  }

  FragmentLayoutAttr getAccumulatorLayout(GemmOp gemm,
                                          GemmInstructionAttr instruction,
                                          int64_t threads,
                                          TargetAttr target) const override {
    if (!instruction.isTensorCore())
      return {};
    // wgmma's layout is the full_row mma.sync layout with 64 rows per
    // warpgroup; with more, its m64 blocks; with column groups, theirs.
    if (instruction.getKind() == GemmInstructionKind::Wgmma &&
        (instruction.getBlocks() > 1 ||
         getWgmmaColumnGroups(gemm, instruction) > 1))
      return getWgmmaAccumulatorLayout(gemm, threads, instruction.getN());
    return getMmaAccumulatorLayout(gemm, threads);
  }

  FragmentLayoutAttr getOperandALayout(GemmOp gemm,
                                       GemmInstructionAttr instruction,
                                       int64_t threads,
                                       TargetAttr target) const override {
    if (!instruction.isTensorCore())
      return {};
    if (instruction.getKind() == GemmInstructionKind::Wgmma)
      return getWgmmaOperandALayout(gemm, threads, instruction.getBlocks());
    return getMmaOperandALayout(gemm, threads);
  }

  SwizzleAttr getOperandSwizzle(GemmOp gemm, GemmInstructionAttr instruction,
                                int64_t threads, MemRefType type,
                                TargetAttr target) const override {
    // Shared operands that ldmatrix or wgmma's descriptors read (of a gemm
    // whose C splits over the block as the instruction's lowering splits
    // it).
    if (!instruction.isTensorCore())
      return {};
    if (instruction.getKind() == GemmInstructionKind::Wgmma
            ? !getWgmmaAccumulatorLayout(gemm, threads, instruction.getN())
            : !getMmaAccumulatorLayout(gemm, threads))
      return {};
    return getWgmmaOperandSwizzle(type, instruction.getBlocked(),
                                  instruction.getPanels());
  }

  SwizzleAttr getStagedOperandSwizzle(MemRefType type,
                                      const SharedTileOptions &options,
                                      TargetAttr target) const override {
    return getWgmmaOperandSwizzle(type, options.blocked, options.panels);
  }

  /// The fragments' stores (a warp's lanes over 8 rows) then hit distinct
  /// banks, and its rows are what a TMA store reads.
  SwizzleAttr getStagingTileSwizzle(MemRefType type,
                                    const SharedTileOptions &options,
                                    TargetAttr target) const override {
    if (target.getSmVersion() < 80)
      return {};
    return getWgmmaOperandSwizzle(type, options.blocked, options.panels);
  }

  bool hasBulkTensorCopies(TargetAttr target) const override {
    return hasTensorMemoryAccelerator(target);
  }

  bool hasAsynchronousGemms(TargetAttr target) const override {
    return target.getSmVersion() >= 90;
  }

  std::optional<int64_t> getBulkCopyBoxes(CopyOp copy, MemRefType tile,
                                          SwizzleAttr swizzle,
                                          TargetAttr target) const override {
    int64_t rank = copy.getSrc().getType().getRank();
    if (target.getSmVersion() < 90 || rank < 2 || rank > 5 ||
        tile.getRank() != 2 ||
        getTensorMapStrideMismatch(copy.getSrc().getType()))
      return std::nullopt;
    std::optional<TmaBox> box =
        getTmaBox(tile.getShape(), tile.getElementType(), swizzle);
    if (!box)
      return std::nullopt;
    return box->rowBoxes * box->colBoxes;
  }

  FailureOr<bool> launchesClusters(KernelOp kernel,
                                   TargetAttr target) const override {
    if (target.getSmVersion() >= 90)
      return true;
    return kernel.emitOpError("thread block clusters need sm_90 or newer; "
                              "the target is ")
           << target.getChip();
  }

  std::unique_ptr<KernelLowering>
  createKernelLowering(TargetAttr target,
                       const KernelLoweringOptions &options) const override {
    return std::make_unique<NVIDIAKernelLowering>(target, options);
  }

  bool isBarrierTransparent(Operation *op) const override {
    return isa<NVVM::FenceProxyOp>(op);
  }
};

} // namespace

void mlir::tile::registerNVIDIATarget(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TileDialect *dialect) {
    dialect->registerTargetInfo(static_cast<uint32_t>(TargetKind::CUDA),
                                std::make_shared<NVIDIATargetInfo>());
    // What the NVIDIA lowering emits during convert-tile-to-gpu, whose
    // generic record cannot name vendor dialects: loaded with the tile
    // dialect, before any pass runs.
    ctx->getOrLoadDialect<NVVM::NVVMDialect>();
    ctx->getOrLoadDialect<nvgpu::NVGPUDialect>();
  });
}
