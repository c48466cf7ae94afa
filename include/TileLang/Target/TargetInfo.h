//===- TargetInfo.h - What a target can do, asked by generic code -*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// The target interface. Generic code (the dialect, tile-level passes, the
// shared lowering, convert-tile-to-gpu) asks a target what it can do through
// TargetInfo and never includes or links vendor code; each vendor implements
// TargetInfo in its own library (lib/Target/NVIDIA, lib/Target/AMD) and
// registers it for its kind of #tile.target with the tile dialect:
//
//   mlir::tile::registerNVIDIATarget(registry);   // TileLang/Target/NVIDIA
//   mlir::tile::registerAMDTarget(registry);      // TileLang/Target/AMD
//
// (mlir::tile::registerAllDialects registers both.) The CPU, a module without
// a target, and a kind whose vendor is not registered get this base class:
// no vendor instruction, engine, layout or lowering, the generic lowering
// only. The passes that depend on a vendor (tile-select-instructions,
// convert-tile-to-gpu) refuse a target whose vendor is not registered
// (checkTargetRegistered) instead of silently compiling it generically.
//
// As in Triton's TargetInfoBase: the interface is small and asks questions;
// the generic passes own the algorithms (which candidate wins, how layouts
// propagate, where barriers go), the vendor answers what its instructions
// need and supplies its lowering patterns.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TARGET_TARGETINFO_H
#define TILELANG_TARGET_TARGETINFO_H

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir {
namespace tile {

class RegisterFragments;

/// How the shared tiles of a gemm (its operands, the staging of its
/// accumulators) are laid out where a layout pass chooses: the `blocked`
/// and `panels` of its #tile.gemm_instruction.
struct SharedTileOptions {
  /// Rows wider than 128 bytes in the blocked 128-byte swizzle.
  bool blocked = false;
  /// Blocked tiles stored in column panels (one bulk-copy box each).
  bool panels = false;

  /// What a tile read by instructions of both options needs.
  void merge(SharedTileOptions other) {
    blocked |= other.blocked;
    panels |= other.panels;
  }
};

/// The shared-tile layout `instruction` records (none for a null one).
inline SharedTileOptions getSharedTileOptions(GemmInstructionAttr instruction) {
  if (!instruction)
    return {};
  return {instruction.getBlocked(), instruction.getPanels()};
}

/// What the gemm selection may choose beyond the target's defaults.
struct GemmSelectionOptions {
  /// sm_90: wgmma where it fits (else mma.sync).
  bool wgmma = false;
  /// How the tensor-core instructions chosen lay out their shared tiles
  /// (tile-select-instructions' `wgmma-blocked`, `wgmma-panels`; with
  /// `blocked`, wgmma also takes operands with rows wider than 128 bytes).
  SharedTileOptions sharedTiles;
  /// A warpgroup may own two m64 blocks of a wgmma gemm's C (128 rows).
  bool wgmmaTallRows = false;
};

/// What the copy selection may choose beyond the target's defaults.
struct CopySelectionOptions {
  /// sm_90: synchronous copies of whole shared tiles into global buffers
  /// on TMA (stores through a tensor map).
  bool tmaStore = false;
};

/// The options of convert-tile-to-gpu a vendor's lowering reads.
struct KernelLoweringOptions {
  /// sm_90: fragment-to-shared copies of the accumulator layout as stmatrix.
  bool stmatrix = true;
};

/// One run of a vendor's part of convert-tile-to-gpu, over one module. The
/// generic pass calls, in order: prepare (the tile ops are still tile ops,
/// the register fragments chosen), populatePatterns (lowered in one partial
/// conversion with the generic patterns, the vendor's winning where both
/// apply). What a vendor does after the lowering is its own pass
/// (NVIDIA's tile-nvvm-named-barriers). The base lowers nothing of its own
/// and refuses what only a vendor can lower.
class KernelLowering {
public:
  virtual ~KernelLowering();

  /// Before the patterns (the fragments marked in registers have their
  /// arrays in `fragments`): checks the vendor's own constraints, such as
  /// stamps it cannot emit with those registers, with located errors (what the
  /// vendor prepares in the IR, such as NVIDIA's tensor maps and thread
  /// ranges, is its passes' before this one). The base refuses
  /// tile.producer, which needs a vendor's warp specialization.
  virtual LogicalResult prepare(ModuleOp module, RegisterFragments &fragments);

  /// The vendor's patterns, added to the generic ones.
  virtual void populatePatterns(RewritePatternSet &patterns,
                                RegisterFragments &fragments) {}

};

/// The target interface (see the file comment). Every query takes the
/// #tile.target it is asked about (null: a module without a target), as
/// one implementation serves every chip of its kind.
class TargetInfo {
public:
  virtual ~TargetInfo();

  //===--------------------------------------------------------------------===//
  // Instructions and copy engines (tile-select-instructions)
  //===--------------------------------------------------------------------===//

  /// Appends the vendor instructions that may run `gemm` in a block of
  /// `threads` threads on `target`, most preferred first; the selection
  /// takes the first that explainGemmMismatch accepts, else SIMT.
  virtual void appendGemmCandidates(GemmOp gemm, TargetAttr target,
                                    int64_t threads,
                                    const GemmSelectionOptions &options,
                                    SmallVectorImpl<GemmInstructionAttr> &out)
      const {}

  /// Why `instruction` (not SIMT, which runs anything) cannot run `gemm` in
  /// a block of `threads` threads on `target`, or nullopt when it can. The
  /// base: none is this target's (requirementOf says which target has it).
  virtual std::optional<std::string>
  explainGemmMismatch(GemmOp gemm, GemmInstructionAttr instruction,
                      TargetAttr target, int64_t threads,
                      const GemmSelectionOptions &options) const;

  /// Appends the vendor engines that may move `copy` on `target`, most
  /// preferred first; the selection tries them, then the generic vector
  /// and element-wise copies.
  virtual void appendCopyCandidates(CopyOp copy, TargetAttr target,
                                    const CopySelectionOptions &options,
                                    SmallVectorImpl<CopyEngineKind> &out) const {
  }

  /// Why the vendor engine `engine` (not vector or elements, which the
  /// generic lowering has) cannot move `copy` on `target`, or nullopt when
  /// it can. The base: none is this target's.
  virtual std::optional<std::string>
  explainCopyMismatch(CopyOp copy, CopyEngineAttr engine,
                      TargetAttr target) const;

  /// What a target needs to have `kind` (e.g. "wgmma needs an NVIDIA target
  /// of sm_90 or newer"), when this implementation provides it; nullopt
  /// otherwise. The base's mismatch messages ask every registered
  /// implementation.
  virtual std::optional<std::string>
  getGemmRequirement(GemmInstructionKind kind) const {
    return std::nullopt;
  }
  virtual std::optional<std::string>
  getCopyRequirement(CopyEngineKind kind) const {
    return std::nullopt;
  }

  /// After tile-select-register-fragments marked the fragments that live in
  /// registers (RegisterFragments::getMarkedTable): restamps each gemm
  /// under `root` whose stamped instruction the vendor's lowering cannot
  /// emit with those registers with the selection's choice without it
  /// (NVIDIA: wgmma needs C, and A when it is a fragment, in registers in
  /// its layouts). The base restamps nothing.
  virtual void reviseGemmInstructions(Operation *root,
                                      TargetAttr target) const {}

  //===--------------------------------------------------------------------===//
  // Layouts (tile-infer-layout, tile-plan-pipelines, register fragments)
  //===--------------------------------------------------------------------===//

  /// The layout `gemm`'s C tile has in registers when it runs on its
  /// `instruction` over `threads` threads, as the vendor's lowering holds
  /// it; null when the lowering keeps no accumulators in registers.
  virtual FragmentLayoutAttr
  getAccumulatorLayout(GemmOp gemm, GemmInstructionAttr instruction,
                       int64_t threads, TargetAttr target) const {
    return {};
  }

  /// The layout an A tile in registers must have for `gemm` on its
  /// `instruction`; null when the lowering reads none from registers.
  virtual FragmentLayoutAttr getOperandALayout(GemmOp gemm,
                                               GemmInstructionAttr instruction,
                                               int64_t threads,
                                               TargetAttr target) const {
    return {};
  }

  /// The swizzle a shared operand tile of `type` of `gemm` on its
  /// `instruction` (which says how wide rows are laid out) takes when the
  /// user gave none; null: none.
  virtual SwizzleAttr getOperandSwizzle(GemmOp gemm,
                                        GemmInstructionAttr instruction,
                                        int64_t threads, MemRefType type,
                                        TargetAttr target) const {
    return {};
  }

  /// The swizzle the pipeline planner gives a staged tile of `type` that a
  /// gemm reads (before the layout pass, whatever its instruction), laid
  /// out as `options` (those of the gemm's instruction) say; null: none.
  virtual SwizzleAttr getStagedOperandSwizzle(MemRefType type,
                                              const SharedTileOptions &options,
                                              TargetAttr target) const {
    return {};
  }

  /// The swizzle of a shared tile that only stages fragments on their way
  /// to global memory (a staged epilogue), laid out as `options` (those of
  /// the instruction of the gemm whose accumulators it stages, if any)
  /// say; null: none.
  virtual SwizzleAttr getStagingTileSwizzle(MemRefType type,
                                            const SharedTileOptions &options,
                                            TargetAttr target) const {
    return {};
  }

  //===--------------------------------------------------------------------===//
  // Capabilities (tile-plan-pipelines, convert-tile-to-gpu)
  //===--------------------------------------------------------------------===//

  /// Copies that arrive on barriers can be bulk tensor copies (TMA).
  virtual bool hasBulkTensorCopies(TargetAttr target) const { return false; }

  /// Gemms stay in flight after they are issued (wgmma), so a pipeline may
  /// overlap them with the next iteration's work.
  virtual bool hasAsynchronousGemms(TargetAttr target) const { return false; }

  /// The number of bulk tensor copies (boxes) that move `copy` into the
  /// shared tile `tile` laid out with `swizzle` (null: row-major), or
  /// nullopt when they cannot.
  virtual std::optional<int64_t> getBulkCopyBoxes(CopyOp copy,
                                                  MemRefType tile,
                                                  SwizzleAttr swizzle,
                                                  TargetAttr target) const {
    return std::nullopt;
  }

  /// Whether `kernel`'s thread block clusters are launched as clusters
  /// (true) or as independent blocks (false, for targets without clusters,
  /// where blocks compute the same result); failure, with a located error,
  /// where they cannot be. The base launches them.
  virtual FailureOr<bool> launchesClusters(KernelOp kernel,
                                           TargetAttr target) const {
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Lowering (convert-tile-to-gpu)
  //===--------------------------------------------------------------------===//

  /// Whether `op`, one of the vendor's lowered ops, may stand between two
  /// block barriers without making either needed: it orders only its own
  /// thread's accesses (NVIDIA: proxy fences). tile-drop-redundant-barriers
  /// asks.
  virtual bool isBarrierTransparent(Operation *op) const { return false; }

  /// The vendor's part of one run of convert-tile-to-gpu.
  virtual std::unique_ptr<KernelLowering>
  createKernelLowering(TargetAttr target,
                       const KernelLoweringOptions &options) const;
};

/// The implementation registered for `target`'s kind; the base class for
/// the CPU, a null target, or a kind whose vendor is not registered.
const TargetInfo &getTargetInfo(MLIRContext *ctx, TargetAttr target);

/// The implementation for the target of the module that encloses `op`.
const TargetInfo &getTargetInfo(Operation *op);

/// Fails, with an error at `op` naming the registration function, when the
/// target of the module enclosing `op` is of a kind whose vendor
/// implementation is not registered with the context.
LogicalResult checkTargetRegistered(Operation *op);

/// "cuda sm_90a", "rocm gfx942", or "a module without a target".
std::string describeTarget(TargetAttr target);

/// The instruction with these parameters, or null when the attribute's
/// verifier rejects them (wgmma with N = 12, mma.sync k8 of 32-bit
/// operands): such a candidate is no candidate.
GemmInstructionAttr getValidGemmInstruction(MLIRContext *ctx,
                                            GemmInstructionKind kind,
                                            int64_t m, int64_t n, int64_t k,
                                            bool registerA = false,
                                            int64_t blocks = 1,
                                            SharedTileOptions sharedTiles = {});

/// Whether `copy` moves a region of a global buffer into a whole shared
/// tile of the same element type (what cp.async and buffer loads take).
bool isGlobalToSharedTileCopy(CopyOp copy);

/// Makes each zero-element internal global of address space `addrSpace`
/// in `module` (the dynamic shared memory symbol the GPU-to-NVVM and
/// GPU-to-ROCDL conversions define) an external declaration of unknown
/// size, as CUDA's and HIP's `extern __shared__` arrays are: LLVM's alias
/// analysis may assume that in-bounds accesses of a zero-byte object never
/// overlap. Globals with a value or an initializer are left alone.
void externalizeDynamicSharedMemory(Operation *module, unsigned addrSpace);

} // namespace tile
} // namespace mlir

#endif // TILELANG_TARGET_TARGETINFO_H
