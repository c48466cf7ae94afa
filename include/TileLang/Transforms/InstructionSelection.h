//===- InstructionSelection.h - The instruction of each tile op -*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//
//
// Which instruction each tile.gemm runs on is decided here, once, and
// recorded on the op (`instruction`, a #tile.gemm_instruction);
// tile-select-instructions stamps it, and every later stage (layouts,
// pipelines, the lowering) reads the stamp instead of deciding again.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TRANSFORMS_INSTRUCTIONSELECTION_H
#define TILELANG_TRANSFORMS_INSTRUCTIONSELECTION_H

#include "TileLang/Dialect/Tile/IR/TileDialect.h"

#include <optional>
#include <string>

namespace mlir {
namespace tile {

/// What the selection may choose beyond the target's defaults.
struct GemmSelectionOptions {
  /// sm_90: wgmma where it fits (else mma.sync).
  bool wgmma = false;
  /// Shared operands with rows wider than 128 bytes will be stored in the
  /// blocked 128-byte swizzle, which wgmma reads (tile-infer-layout's and
  /// tile-plan-pipelines' `blocked-operands`).
  bool blockedOperands = false;
  /// A warpgroup may own two m64 blocks of a wgmma gemm's C (128 rows).
  bool wgmmaTallRows = false;
};

/// Why `instruction` cannot run `gemm` in a block of `threads` threads on
/// `target` (null: the CPU), or nullopt when it can. Where the decision
/// depends on facts later stages establish (which swizzle a shared operand
/// gets), the prediction assumes they do what they do by default.
std::optional<std::string>
explainGemmInstructionMismatch(GemmOp gemm, GemmInstructionAttr instruction,
                               TargetAttr target, int64_t threads,
                               const GemmSelectionOptions &options);

/// The instruction `gemm` should run on: wgmma (with `options.wgmma`), then
/// mma.sync on NVIDIA sm_80+, MFMA or WMMA on AMD chips that have them,
/// the first of them that can run it, else SIMT.
GemmInstructionAttr selectGemmInstruction(GemmOp gemm, TargetAttr target,
                                          int64_t threads,
                                          const GemmSelectionOptions &options);

/// The instruction of `gemm`: its `instruction` attribute, else what
/// selectGemmInstruction chooses with the default options (never wgmma)
/// for the module's target and the enclosing kernel's threads.
GemmInstructionAttr getGemmInstruction(GemmOp gemm);

/// Stamps every gemm under `root` that has no instruction with
/// getGemmInstruction's choice.
void stampDefaultGemmInstructions(Operation *root);

} // namespace tile
} // namespace mlir

#endif // TILELANG_TRANSFORMS_INSTRUCTIONSELECTION_H
