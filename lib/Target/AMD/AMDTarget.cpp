//===- AMDTarget.cpp - The AMD implementation of TargetInfo ---------------===//
//
// Part of TileLang-MLIR.
//
// What #tile.target<rocm, ...> can do: MFMA (gfx90a, gfx94x, gfx950) and
// WMMA (gfx11) gemms with their accumulators in registers, buffer-load
// copies into LDS, and the amdgpu/rocdl lowering of
// lib/Target/AMD/Lowering as its part of convert-tile-to-gpu. AMD GPUs
// have no thread block clusters: clustered kernels launch as independent
// blocks (the dialect exposes nothing cluster-scoped, so they compute the
// same result).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/AMD/AMDTarget.h"

#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Target/AMD/Lowering.h"
#include "TileLang/Target/TargetInfo.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// AMD's part of convert-tile-to-gpu: the matrix-core gemms and buffer
/// loads.
class AMDKernelLowering : public KernelLowering {
public:
  explicit AMDKernelLowering(TargetAttr target) : chip(target.getChip()) {}

  void populatePatterns(RewritePatternSet &patterns,
                        RegisterFragments &fragments) override {
    populateTileToAMDGPUPatterns(patterns, chip, &fragments);
  }

private:
  std::string chip;
};

class AMDTargetInfo : public TargetInfo {
public:
  void appendGemmCandidates(GemmOp gemm, TargetAttr target, int64_t threads,
                            const GemmSelectionOptions &options,
                            SmallVectorImpl<GemmInstructionAttr> &out)
      const override {
    std::optional<GemmInstructionKind> kind;
    if (hasMFMA(target.getChip()))
      kind = GemmInstructionKind::MFMA;
    else if (hasWMMA(target.getChip()))
      kind = GemmInstructionKind::WMMA;
    if (kind)
      if (GemmInstructionAttr candidate =
              getValidGemmInstruction(gemm.getContext(), *kind, 16, 16, 16))
        out.push_back(candidate);
  }

  std::optional<std::string>
  explainGemmMismatch(GemmOp gemm, GemmInstructionAttr instruction,
                      TargetAttr target, int64_t threads,
                      const GemmSelectionOptions &options) const override {
    GemmInstructionKind kind = instruction.getKind();
    if (!instruction.isMatrixCore())
      return TargetInfo::explainGemmMismatch(gemm, instruction, target,
                                             threads, options);
    bool has = kind == GemmInstructionKind::MFMA ? hasMFMA(target.getChip())
                                                 : hasWMMA(target.getChip());
    if (!has)
      return *getGemmRequirement(kind) + ", not " + describeTarget(target);
    if (std::optional<StringRef> why =
            getMatrixCoreMismatch(gemm, target.getChip(), threads))
      return why->str();
    return std::nullopt;
  }

  void appendCopyCandidates(CopyOp copy, TargetAttr target,
                            const CopySelectionOptions &options,
                            SmallVectorImpl<CopyEngineKind> &out)
      const override {
    if (isGlobalToSharedTileCopy(copy) && !copy.getBarriers())
      out.push_back(CopyEngineKind::BufferLoad);
  }

  std::optional<std::string>
  explainCopyMismatch(CopyOp copy, CopyEngineAttr engine,
                      TargetAttr target) const override {
    if (engine.getKind() != CopyEngineKind::BufferLoad)
      return TargetInfo::explainCopyMismatch(copy, engine, target);
    return getCopyVectorsMismatch(copy);
  }

  std::optional<std::string>
  getGemmRequirement(GemmInstructionKind kind) const override {
    if (kind == GemmInstructionKind::MFMA)
      return (stringifyGemmInstructionKind(kind) +
              " needs an AMD chip that has it (gfx90a, gfx94x, gfx950)")
          .str();
    if (kind == GemmInstructionKind::WMMA)
      return (stringifyGemmInstructionKind(kind) +
              " needs an AMD chip that has it (gfx11)")
          .str();
    return std::nullopt;
  }

  std::optional<std::string>
  getCopyRequirement(CopyEngineKind kind) const override {
    if (kind != CopyEngineKind::BufferLoad)
      return std::nullopt;
    return std::string("buffer loads need an AMD target");
  }

  FragmentLayoutAttr getAccumulatorLayout(GemmOp gemm,
                                          GemmInstructionAttr instruction,
                                          int64_t threads,
                                          TargetAttr target) const override {
    if (!instruction.isMatrixCore())
      return {};
    return getMatrixCoreAccumulatorLayout(gemm, threads, target.getChip());
  }

  FailureOr<bool> launchesClusters(KernelOp kernel,
                                   TargetAttr target) const override {
    return false;
  }

  std::unique_ptr<KernelLowering>
  createKernelLowering(TargetAttr target,
                       const KernelLoweringOptions &options) const override {
    return std::make_unique<AMDKernelLowering>(target);
  }
};

} // namespace

void mlir::tile::registerAMDTarget(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TileDialect *dialect) {
    dialect->registerTargetInfo(static_cast<uint32_t>(TargetKind::ROCm),
                                std::make_shared<AMDTargetInfo>());
    // What the AMD lowering emits during convert-tile-to-gpu (see
    // registerNVIDIATarget).
    ctx->getOrLoadDialect<amdgpu::AMDGPUDialect>();
  });
}
