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
#include "TileLang/Transforms/Passes.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILESELECTINSTRUCTIONS
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

std::optional<std::string> mlir::tile::explainGemmInstructionMismatch(
    GemmOp gemm, GemmInstructionAttr instruction, TargetAttr target,
    int64_t threads, const GemmSelectionOptions &options) {
  if (instruction.getKind() == GemmInstructionKind::SIMT)
    return std::nullopt;
  return getTargetInfo(gemm.getContext(), target)
      .explainGemmMismatch(gemm, instruction, target, threads, options);
}

GemmInstructionAttr
mlir::tile::selectGemmInstruction(GemmOp gemm, TargetAttr target,
                                  int64_t threads,
                                  const GemmSelectionOptions &options) {
  MLIRContext *ctx = gemm.getContext();
  SmallVector<GemmInstructionAttr> candidates;
  const TargetInfo &info = getTargetInfo(ctx, target);
  info.appendGemmCandidates(gemm, target, threads, options, candidates);
  for (GemmInstructionAttr candidate : candidates)
    if (!explainGemmInstructionMismatch(gemm, candidate, target, threads,
                                        options))
      return candidate;
  return GemmInstructionAttr::get(ctx, GemmInstructionKind::SIMT);
}

/// The threads of the block that runs `op`: its kernel's or its thread
/// range's, or, inside a launch (during the lowering), the launch's or
/// thread range's.
static int64_t getGemmThreads(GemmOp op) {
  if (op->getParentOfType<KernelOp>())
    return getThreadsOf(op);
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

std::optional<std::string>
mlir::tile::explainCopyEngineMismatch(CopyOp copy, CopyEngineAttr engine,
                                      TargetAttr target) {
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
  default:
    return getTargetInfo(copy.getContext(), target)
        .explainCopyMismatch(copy, engine, target);
  }
}

CopyEngineAttr
mlir::tile::selectCopyEngine(CopyOp copy, TargetAttr target,
                             const CopySelectionOptions &options) {
  MLIRContext *ctx = copy.getContext();
  SmallVector<CopyEngineKind> candidates;
  getTargetInfo(ctx, target).appendCopyCandidates(copy, target, options,
                                                  candidates);
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
    if (failed(checkTargetRegistered(getOperation())))
      return signalPassFailure();
    GemmSelectionOptions options;
    options.wgmma = wgmma;
    options.sharedTiles = {/*blocked=*/blockedOperands,
                           /*panels=*/blockedOperands && panelBlocks};
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
