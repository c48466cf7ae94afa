//===- SelectRegisterFragments.cpp - Fragments kept in registers ---------===//
//
// Part of TileLang-MLIR.
//
// tile-select-register-fragments: marks the fragments convert-tile-to-gpu
// keeps in per-thread registers (see Passes.td). The analysis is the
// register lowering's own (RegisterFragments::select); what the target's
// gemm lowerings take in registers comes from its TargetInfo.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/Passes.h"

#include "TileLang/Conversion/RegisterFragments.h"
#include "TileLang/Target/TargetInfo.h"
#include "TileLang/Transforms/InstructionSelection.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILESELECTREGISTERFRAGMENTS
#include "TileLang/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether `layout` (null: none) puts every element where `table` does.
bool placesLike(FragmentLayoutAttr layout, const FragmentTable &table) {
  if (!layout)
    return false;
  const FragmentTable *expected = FragmentTable::lookup(layout);
  return expected && expected->placesLike(table);
}

struct SelectRegisterFragmentsPass
    : public tile::impl::TileSelectRegisterFragmentsBase<
          SelectRegisterFragmentsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkTargetRegistered(module)))
      return signalPassFailure();
    auto target =
        module->getAttrOfType<TargetAttr>(TileDialect::getTargetAttrName());
    const TargetInfo &info = getTargetInfo(&getContext(), target);
    // The layouts gemm operands take in registers are those of their
    // instructions.
    stampDefaultGemmInstructions(module);
    if (registers) {
      // The lowering of `gemm`'s instruction takes `fragment`, its A or C
      // tile, in registers laid out as `table` when that is exactly the
      // layout the target's lowering holds it in.
      RegisterFragments::select(module, [&](GemmOp gemm, Value fragment,
                                            const FragmentTable &table) {
        int64_t threads = table.getNumThreads();
        GemmInstructionAttr instruction = gemm.getInstructionAttr();
        if (fragment == gemm.getC())
          return placesLike(
              info.getAccumulatorLayout(gemm, instruction, threads, target),
              table);
        return placesLike(
            info.getOperandALayout(gemm, instruction, threads, target),
            table);
      });
    } else {
      module.walk([](AllocFragmentOp alloc) {
        alloc->removeAttr(TileDialect::getInRegistersAttrName());
      });
    }
    // The gemms whose instructions need registers these fragments did not
    // get take another.
    info.reviseGemmInstructions(module, target);
  }
};

} // namespace
