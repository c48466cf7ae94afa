//===- VerifyDims.cpp - memref.dim indices that are dimensions ----------===//
//
// Part of TileLang-MLIR.
//
// tile-verify-dims: a memref.dim with a constant index outside the rank is
// an error at its location (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEVERIFYDIMS
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {
struct VerifyDimsPass : public tile::impl::TileVerifyDimsBase<VerifyDimsPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failedAny = false;
    getOperation()->walk([&](memref::DimOp dim) {
      std::optional<int64_t> index = dim.getConstantIndex();
      auto type = dyn_cast<MemRefType>(dim.getSource().getType());
      if (!index || !type || (*index >= 0 && *index < type.getRank()))
        return;
      dim.emitOpError("asks for dimension ")
          << *index << " of " << type << ", which has "
          << (type.getRank() == 1 ? "1 dimension"
                                  : std::to_string(type.getRank()) +
                                        " dimensions");
      failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
