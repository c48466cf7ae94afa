//===- SelectInstructions.cpp - The instruction of each tile gemm --------===//
//
// Part of TileLang-MLIR.
//
// tile-select-instructions: each tile.gemm gets the instruction it runs on
// (#tile.gemm_instruction) and each tile.copy the engine it moves on
// (#tile.copy_engine) before any pass that depends on them (pipeline
// planning, layout inference, the lowering).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Transforms/InstructionSelection.h"

#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Conversion/TileToAMDGPU.h"
#include "TileLang/Conversion/TileToNVGPU.h"
#include "TileLang/Transforms/Passes.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILESELECTINSTRUCTIONS
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

/// Threads per warpgroup, the unit wgmma runs on.
static constexpr int64_t kWarpgroupThreads = 128;

/// Whether every shared operand of `gemm` will be in a swizzle wgmma reads
/// through descriptors: its own, or the one tile-infer-layout (or the
/// pipeline planner, for staged tiles) gives a tile without one, kept by
/// every access (convert-tile-to-gpu drops a swizzle an element-wise access
/// cannot apply).
static bool keepsWgmmaSwizzles(GemmOp gemm, bool blockedOperands) {
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
    auto plain = MemRefType::get(type.getShape(), type.getElementType());
    auto swizzle = dyn_cast_or_null<SwizzleAttr>(shared.getLayoutAttr());
    if (!swizzle)
      swizzle = getWgmmaOperandSwizzle(plain, blockedOperands);
    // What the lowering reads (getWgmmaRowBytes).
    if (!swizzle || !appliesSwizzle(root, swizzle) ||
        !isWgmmaOperandSwizzle(plain, swizzle))
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
  if (instruction.getN() != gemm.getN() ||
      instruction.getBlocks() * rows != gemm.getM())
    return "a " + std::to_string(gemm.getM()) + "x" +
           std::to_string(gemm.getN()) + " C over " +
           std::to_string(threads / kWarpgroupThreads) +
           " warpgroups is wgmma m64n" + std::to_string(gemm.getN()) +
           "k16 with " + std::to_string(gemm.getM() / rows) +
           " blocks, if any";
  if (instruction.getBlocks() > 1 && !options.wgmmaTallRows)
    return std::string("two m64 blocks per warpgroup need wgmma-tall-rows");
  auto isBlocked = [](Value tile) {
    SwizzleAttr swizzle = getTileSwizzle(tile);
    return swizzle && swizzle.getBlocked();
  };
  bool blocked = options.blockedOperands || isBlocked(gemm.getA()) ||
                 isBlocked(gemm.getB());
  if (getMmaSyncMismatch(gemm) ||
      !fitsWgmma(gemm, threads, blocked,
                 /*tallRows=*/instruction.getBlocks() > 1))
    return std::string("wgmma does not take these types, transposes or "
                       "shapes (f16/bf16 -> f32, B in shared memory, K-major "
                       "shared rows of 32, 64 or 128 bytes or blocked wider "
                       "ones, N a multiple of 8 up to 256, K of 16)");
  if (!keepsWgmmaSwizzles(gemm, options.blockedOperands))
    return std::string("a shared operand will not be in a swizzle wgmma "
                       "reads (a layout or an access that keeps it from "
                       "its swizzle)");
  return std::nullopt;
}

std::optional<std::string> mlir::tile::explainGemmInstructionMismatch(
    GemmOp gemm, GemmInstructionAttr instruction, TargetAttr target,
    int64_t threads, const GemmSelectionOptions &options) {
  GemmInstructionKind kind = instruction.getKind();
  StringRef name = stringifyGemmInstructionKind(kind);
  bool cuda = target && target.getKind() == TargetKind::CUDA;
  bool rocm = target && target.getKind() == TargetKind::ROCm;
  std::string where =
      target ? (Twine(stringifyTargetKind(target.getKind())) + " " +
                target.getChip())
                   .str()
             : std::string("a module without a target");
  switch (kind) {
  case GemmInstructionKind::SIMT:
    return std::nullopt;
  case GemmInstructionKind::MmaSync:
  case GemmInstructionKind::Wgmma: {
    int64_t needed = kind == GemmInstructionKind::Wgmma ? 90 : 80;
    if (!cuda || target.getSmVersion() < needed)
      return (name + " needs an NVIDIA target of sm_" + Twine(needed) +
              " or newer, not " + where)
          .str();
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
  case GemmInstructionKind::MFMA:
  case GemmInstructionKind::WMMA: {
    bool has = rocm && (kind == GemmInstructionKind::MFMA
                            ? hasMFMA(target.getChip())
                            : hasWMMA(target.getChip()));
    if (!has)
      return (name + " needs an AMD chip that has it (" +
              (kind == GemmInstructionKind::MFMA ? "gfx90a, gfx94x, gfx950"
                                                 : "gfx11") +
              "), not " + where)
          .str();
    if (std::optional<StringRef> why =
            getMatrixCoreMismatch(gemm, target.getChip(), threads))
      return why->str();
    return std::nullopt;
  }
  }
  llvm_unreachable("unknown gemm instruction kind");
}

GemmInstructionAttr
mlir::tile::selectGemmInstruction(GemmOp gemm, TargetAttr target,
                                  int64_t threads,
                                  const GemmSelectionOptions &options) {
  MLIRContext *ctx = gemm.getContext();
  SmallVector<GemmInstructionAttr> candidates;
  // A candidate the attribute itself rejects (wgmma with N = 12, mma.sync
  // k8 of 32-bit operands) is no candidate.
  auto consider = [&](GemmInstructionKind kind, int64_t m, int64_t n,
                      int64_t k, bool registerA = false, int64_t blocks = 1) {
    auto quiet = [] { return InFlightDiagnostic(); };
    if (succeeded(GemmInstructionAttr::verifyInvariants(quiet, kind, m, n, k,
                                                        registerA, blocks)))
      candidates.push_back(
          GemmInstructionAttr::get(ctx, kind, m, n, k, registerA, blocks));
  };
  if (target && target.getKind() == TargetKind::CUDA) {
    if (options.wgmma && threads >= kWarpgroupThreads)
      consider(GemmInstructionKind::Wgmma, 64, gemm.getN(), 16,
               isInSpace(gemm.getA().getType(), MemorySpace::Fragment),
               std::max<int64_t>(
                   1, gemm.getM() / (64 * (threads / kWarpgroupThreads))));
    consider(GemmInstructionKind::MmaSync, 16, 8, getMmaSyncTileK(gemm));
  } else if (target && target.getKind() == TargetKind::ROCm) {
    if (hasMFMA(target.getChip()))
      consider(GemmInstructionKind::MFMA, 16, 16, 16);
    else if (hasWMMA(target.getChip()))
      consider(GemmInstructionKind::WMMA, 16, 16, 16);
  }
  for (GemmInstructionAttr candidate : candidates)
    if (!explainGemmInstructionMismatch(gemm, candidate, target, threads,
                                        options))
      return candidate;
  return GemmInstructionAttr::get(ctx, GemmInstructionKind::SIMT);
}

/// The threads of the block that runs `op`: its kernel's, or, inside a
/// launch (during the lowering), the launch's or thread range's.
static int64_t getGemmThreads(GemmOp op) {
  if (auto kernel = op->getParentOfType<KernelOp>())
    return kernel.getNumThreads();
  return getStaticBlockThreads(op).value_or(0);
}

GemmInstructionAttr mlir::tile::getGemmInstruction(GemmOp gemm) {
  if (GemmInstructionAttr instruction = gemm.getInstructionAttr())
    return instruction;
  return selectGemmInstruction(gemm, getTargetAttr(gemm),
                               getGemmThreads(gemm), GemmSelectionOptions());
}

void mlir::tile::stampDefaultGemmInstructions(Operation *root) {
  root->walk([](GemmOp gemm) {
    if (!gemm.getInstructionAttr())
      gemm.setInstructionAttr(getGemmInstruction(gemm));
  });
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

std::optional<std::string>
mlir::tile::explainCopyEngineMismatch(CopyOp copy, CopyEngineAttr engine,
                                      TargetAttr target) {
  bool cuda = target && target.getKind() == TargetKind::CUDA;
  bool rocm = target && target.getKind() == TargetKind::ROCm;
  auto where = [&] {
    return target ? (Twine(stringifyTargetKind(target.getKind())) + " " +
                     target.getChip())
                        .str()
                  : std::string("a module without a target");
  };
  // (The op's verifier checked the form each engine moves.)
  switch (engine.getKind()) {
  case CopyEngineKind::Elements:
    return std::nullopt;
  case CopyEngineKind::Vector:
    if (!getCopyVectorWidth(copy))
      return std::string("no vector of 2 or more elements splits the rows "
                         "of both sides (local tiles, rows across the last "
                         "dimension, strides or swizzles of odd elements)");
    return std::nullopt;
  case CopyEngineKind::CpAsync:
    if (!cuda || target.getSmVersion() < 80)
      return "cp.async needs an NVIDIA target of sm_80 or newer, not " +
             where();
    return getCopyVectorsMismatch(copy);
  case CopyEngineKind::TMA:
    if (!cuda || target.getSmVersion() < 90)
      return "TMA needs an NVIDIA target of sm_90 or newer, not " + where();
    // The boxes depend on the shared tile's layout, which tile-infer-layout
    // may still choose; until then the lowering checks them.
    return getTmaCopyMismatch(
        copy, /*checkBox=*/hasLayout(copy.getBarriers() ? copy.getDst()
                                                        : copy.getSrc()));
  case CopyEngineKind::BufferLoad:
    if (!rocm)
      return "buffer loads need an AMD target, not " + where();
    return getCopyVectorsMismatch(copy);
  }
  llvm_unreachable("unknown copy engine kind");
}

CopyEngineAttr
mlir::tile::selectCopyEngine(CopyOp copy, TargetAttr target,
                             const CopySelectionOptions &options) {
  MLIRContext *ctx = copy.getContext();
  SmallVector<CopyEngineKind> candidates;
  bool cuda = target && target.getKind() == TargetKind::CUDA;
  bool intoSharedTile =
      isGlobalBuffer(copy.getSrc()) && !copy.getSrcOffsets().empty() &&
      isInSpace(copy.getDst().getType(), MemorySpace::Shared) &&
      copy.getDstOffsets().empty() &&
      copy.getSrc().getType().getElementType() ==
          copy.getDst().getType().getElementType();
  if (cuda && target.getSmVersion() >= 90 &&
      (copy.getBarriers() ||
       (options.tmaStore && !copy.getAsync() &&
        !getMemorySpace(copy.getDst().getType()) &&
        isInSpace(copy.getSrc().getType(), MemorySpace::Shared))))
    candidates.push_back(CopyEngineKind::TMA);
  if (cuda && copy.getAsync() && !copy.getBarriers() && intoSharedTile)
    candidates.push_back(CopyEngineKind::CpAsync);
  if (target && target.getKind() == TargetKind::ROCm && intoSharedTile &&
      !copy.getBarriers())
    candidates.push_back(CopyEngineKind::BufferLoad);
  candidates.push_back(CopyEngineKind::Vector);
  for (CopyEngineKind kind : candidates) {
    auto engine = CopyEngineAttr::get(ctx, kind);
    if (!explainCopyEngineMismatch(copy, engine, target))
      return engine;
  }
  return CopyEngineAttr::get(ctx, CopyEngineKind::Elements);
}

CopyEngineAttr mlir::tile::getCopyEngine(CopyOp copy) {
  if (CopyEngineAttr engine = copy.getEngineAttr())
    return engine;
  return selectCopyEngine(copy, getTargetAttr(copy), CopySelectionOptions());
}

void mlir::tile::stampDefaultCopyEngines(Operation *root) {
  root->walk([](CopyOp copy) {
    if (!copy.getEngineAttr())
      copy.setEngineAttr(getCopyEngine(copy));
  });
}

void mlir::tile::stampAsyncCopyEngines(Operation *root) {
  root->walk([](CopyOp copy) {
    if (copy.getAsync() && !copy.getEngineAttr())
      copy.setEngineAttr(selectCopyEngine(copy, getTargetAttr(copy),
                                          CopySelectionOptions()));
  });
}

namespace {
struct SelectInstructionsPass
    : public tile::impl::TileSelectInstructionsBase<SelectInstructionsPass> {
  using Base::Base;

  void runOnOperation() override {
    GemmSelectionOptions options;
    options.wgmma = wgmma;
    options.blockedOperands = blockedOperands;
    options.wgmmaTallRows = wgmmaTallRows;
    WalkResult result = getOperation().walk([&](GemmOp gemm) {
      TargetAttr target = getTargetAttr(gemm);
      int64_t threads = getGemmThreads(gemm);
      // A choice already made (by the user, or an earlier run) is kept if
      // the instruction can run the gemm.
      if (GemmInstructionAttr given = gemm.getInstructionAttr()) {
        if (std::optional<std::string> why = explainGemmInstructionMismatch(
                gemm, given, target, threads, options)) {
          gemm.emitOpError("cannot run on ") << given << ": " << *why;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      }
      gemm.setInstructionAttr(
          selectGemmInstruction(gemm, target, threads, options));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    CopySelectionOptions copyOptions;
    copyOptions.tmaStore = tmaStore;
    result = getOperation().walk([&](CopyOp copy) {
      TargetAttr target = getTargetAttr(copy);
      if (CopyEngineAttr given = copy.getEngineAttr()) {
        if (std::optional<std::string> why =
                explainCopyEngineMismatch(copy, given, target)) {
          copy.emitOpError("cannot move on ") << given << ": " << *why;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      }
      copy.setEngineAttr(selectCopyEngine(copy, target, copyOptions));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
