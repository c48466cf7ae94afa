//===- TargetInfo.cpp - The target interface's defaults and lookup --------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/TargetInfo.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

KernelLowering::~KernelLowering() = default;

LogicalResult KernelLowering::prepare(ModuleOp module,
                                      RegisterFragments &fragments) {
  TargetAttr target = getTargetAttr(module);
  WalkResult result = module.walk([&](ProducerOp producer) {
    producer.emitOpError("needs a target with warp specialization (NVIDIA "
                         "sm_90 or newer), not ")
        << describeTarget(target);
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

TargetInfo::~TargetInfo() = default;

std::string mlir::tile::describeTarget(TargetAttr target) {
  if (!target)
    return "a module without a target";
  return (Twine(stringifyTargetKind(target.getKind())) + " " +
          target.getChip())
      .str();
}

/// "<requirement>, not <target>": the first registered implementation that
/// provides the instruction or engine says what it needs.
template <typename Kind>
static std::string explainMissing(
    MLIRContext *ctx, TargetAttr target, Kind kind, StringRef name,
    std::optional<std::string> (TargetInfo::*requirement)(Kind) const) {
  if (auto *dialect = ctx->getLoadedDialect<TileDialect>())
    for (const TargetInfo *info : dialect->getTargetInfos())
      if (std::optional<std::string> needs = (info->*requirement)(kind))
        return *needs + ", not " + describeTarget(target);
  return (name + " is not provided by any registered target, nor by " +
          describeTarget(target))
      .str();
}

std::optional<std::string>
TargetInfo::explainGemmMismatch(GemmOp gemm, GemmInstructionAttr instruction,
                                TargetAttr target, int64_t threads,
                                const GemmSelectionOptions &options) const {
  return explainMissing(gemm.getContext(), target, instruction.getKind(),
                        stringifyGemmInstructionKind(instruction.getKind()),
                        &TargetInfo::getGemmRequirement);
}

std::optional<std::string>
TargetInfo::explainCopyMismatch(CopyOp copy, CopyEngineAttr engine,
                                TargetAttr target) const {
  return explainMissing(copy.getContext(), target, engine.getKind(),
                        stringifyCopyEngineKind(engine.getKind()),
                        &TargetInfo::getCopyRequirement);
}

std::unique_ptr<KernelLowering>
TargetInfo::createKernelLowering(TargetAttr target,
                                 const KernelLoweringOptions &options) const {
  return std::make_unique<KernelLowering>();
}

/// What the CPU, a module without a target and an unregistered kind get.
static const TargetInfo &getBaseTargetInfo() {
  static const TargetInfo base;
  return base;
}

/// The implementation registered for `kind`, or null.
static const TargetInfo *lookup(MLIRContext *ctx, TargetKind kind) {
  auto *dialect = ctx->getLoadedDialect<TileDialect>();
  return dialect ? dialect->lookupTargetInfo(static_cast<uint32_t>(kind))
                 : nullptr;
}

const TargetInfo &mlir::tile::getTargetInfo(MLIRContext *ctx,
                                            TargetAttr target) {
  if (!target || target.getKind() == TargetKind::CPU)
    return getBaseTargetInfo();
  const TargetInfo *info = lookup(ctx, target.getKind());
  return info ? *info : getBaseTargetInfo();
}

const TargetInfo &mlir::tile::getTargetInfo(Operation *op) {
  return getTargetInfo(op->getContext(), getTargetAttr(op));
}

LogicalResult mlir::tile::checkTargetRegistered(Operation *op) {
  TargetAttr target = getTargetAttr(op);
  if (!target || target.getKind() == TargetKind::CPU ||
      lookup(op->getContext(), target.getKind()))
    return success();
  StringRef registration = target.getKind() == TargetKind::CUDA
                               ? "mlir::tile::registerNVIDIATarget"
                               : "mlir::tile::registerAMDTarget";
  return op->emitError("no implementation of the ")
         << stringifyTargetKind(target.getKind())
         << " target is registered with this context (target " << target
         << "); register it with " << registration
         << " or mlir::tile::registerAllDialects";
}

GemmInstructionAttr mlir::tile::getValidGemmInstruction(
    MLIRContext *ctx, GemmInstructionKind kind, int64_t m, int64_t n,
    int64_t k, bool registerA, int64_t blocks, SharedTileOptions sharedTiles) {
  auto quiet = [] { return InFlightDiagnostic(); };
  if (failed(GemmInstructionAttr::verifyInvariants(
          quiet, kind, m, n, k, registerA, blocks, sharedTiles.blocked,
          sharedTiles.panels)))
    return {};
  return GemmInstructionAttr::get(ctx, kind, m, n, k, registerA, blocks,
                                  sharedTiles.blocked, sharedTiles.panels);
}

bool mlir::tile::isGlobalToSharedTileCopy(CopyOp copy) {
  return isGlobalBuffer(copy.getSrc()) && !copy.getSrcOffsets().empty() &&
         isInSpace(copy.getDst().getType(), MemorySpace::Shared) &&
         copy.getDstOffsets().empty() &&
         copy.getSrc().getType().getElementType() ==
             copy.getDst().getType().getElementType();
}

void mlir::tile::externalizeDynamicSharedMemory(Operation *module,
                                                unsigned addrSpace) {
  for (Region &region : module->getRegions())
    for (auto global : region.getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() != addrSpace || !array ||
          array.getNumElements() != 0 ||
          global.getLinkage() != LLVM::Linkage::Internal ||
          global.getValueOrNull() || global.getInitializerBlock())
        continue;
      global.setLinkage(LLVM::Linkage::External);
    }
}
