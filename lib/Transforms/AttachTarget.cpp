//===- AttachTarget.cpp - Attach the compilation target -----------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Transforms/Passes.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEATTACHTARGET
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {
struct AttachTargetPass
    : public tile::impl::TileAttachTargetBase<AttachTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<TargetKind> targetKind = symbolizeTargetKind(kind);
    if (!targetKind) {
      module.emitError() << "unknown target kind '" << kind
                         << "'; expected cpu, cuda or rocm";
      return signalPassFailure();
    }
    std::string targetFeatures = features;
    if (targetFeatures.empty() && *targetKind == TargetKind::CUDA)
      targetFeatures = "+ptx80";

    auto emitError = [&] { return module.emitError(); };
    if (failed(TargetAttr::verifyInvariants(emitError, *targetKind, chip,
                                            targetFeatures)))
      return signalPassFailure();
    auto target =
        TargetAttr::get(&getContext(), *targetKind, chip, targetFeatures);

    StringRef name = TileDialect::getTargetAttrName();
    if (Attribute existing = module->getAttr(name);
        existing && existing != target && !overwrite) {
      module.emitError() << "module already targets " << existing
                         << "; pass overwrite=true to replace it with "
                         << target;
      return signalPassFailure();
    }
    module->setAttr(name, target);
  }
};
} // namespace
