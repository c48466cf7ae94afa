//===- InstructionSelection.h - The instruction of each tile op -*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//
//
// Which instruction each tile.gemm runs on, and which engine each tile.copy
// moves its elements on, is decided here, once, and recorded on the op
// (`instruction`, a #tile.gemm_instruction; `engine`, a #tile.copy_engine);
// tile-select-instructions stamps them, the passes that make copies
// asynchronous stamp the copies they make, and every later stage (layouts,
// pipelines, the lowering) reads the stamps instead of deciding again.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TRANSFORMS_INSTRUCTIONSELECTION_H
#define TILELANG_TRANSFORMS_INSTRUCTIONSELECTION_H

#include "TileLang/Target/TargetInfo.h"

#include <optional>
#include <string>

namespace mlir {
namespace tile {

/// Why `instruction` cannot run `gemm` in a block of `threads` threads on
/// `target` (null: the CPU), or nullopt when it can. Where the decision
/// depends on facts later stages establish (which swizzle a shared operand
/// gets), the prediction assumes they do what they do by default.
std::optional<std::string>
explainGemmInstructionMismatch(GemmOp gemm, GemmInstructionAttr instruction,
                               TargetAttr target, int64_t threads,
                               const GemmSelectionOptions &options);

/// The instruction `gemm` should run on: the first of the target's
/// candidates (TargetInfo::appendGemmCandidates: wgmma with
/// `options.wgmma`, then mma.sync on NVIDIA sm_80+; MFMA or WMMA on AMD
/// chips that have them) that can run it, else SIMT.
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

/// Why `engine` cannot move `copy` on `target` (null: the CPU), or nullopt
/// when it can. The TMA boxes of a shared tile without a layout yet (which
/// tile-infer-layout may still give it) are checked by the lowering, which
/// takes the generic copy when there are none.
std::optional<std::string> explainCopyEngineMismatch(CopyOp copy,
                                                     CopyEngineAttr engine,
                                                     TargetAttr target);

/// The engine `copy` should move on: the first of the target's candidates
/// (TargetInfo::appendCopyCandidates: on NVIDIA sm_90+ `tma` for a copy
/// that arrives on a barrier and, with `options.tmaStore`, a store of a
/// whole shared tile; on sm_80+ `cp_async` for an async copy without one;
/// on AMD `buffer_load` for a copy of a global region into a whole LDS
/// tile) that can move it, else `vector` where the generic copy has
/// vectors, else `elements`.
CopyEngineAttr selectCopyEngine(CopyOp copy, TargetAttr target,
                                const CopySelectionOptions &options);

/// The engine of `copy`: its `engine` attribute, else selectCopyEngine's
/// choice with the default options for the module's target.
CopyEngineAttr getCopyEngine(CopyOp copy);

/// Stamps every copy under `root` that has no engine with getCopyEngine's
/// choice.
void stampDefaultCopyEngines(Operation *root);

/// Stamps every async copy under `root` that has no engine (the ones a pass
/// just made asynchronous, which drops the engine of the synchronous copy
/// it came from) with selectCopyEngine's choice with the default options.
void stampAsyncCopyEngines(Operation *root);

} // namespace tile
} // namespace mlir

#endif // TILELANG_TRANSFORMS_INSTRUCTIONSELECTION_H
