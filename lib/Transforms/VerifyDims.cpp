//===- VerifyDims.cpp - memref.dim indices that are dimensions ----------===//
//
// Part of TileLang-MLIR.
//
// tile-verify-dims: a memref.dim with a constant index outside the rank is
// an error at its location (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Transforms/Passes.h"

#include "TileLang/Support/CheckedSize.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEVERIFYDIMS
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

/// Whether the static extents of `type` (its dynamic ones left out) and
/// its element size multiply to a byte count that fits in int64_t: strides,
/// offsets and sizes of every lowering are products of them.
static bool hasRepresentableSize(MemRefType type) {
  SmallVector<int64_t> extents;
  for (int64_t extent : type.getShape())
    if (!ShapedType::isDynamic(extent))
      extents.push_back(extent);
  Type element = type.getElementType();
  int64_t bytes = 1;
  if (element.isIntOrIndexOrFloat()) {
    int64_t bits = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
    bytes = std::max<int64_t>(1, bits / 8);
  }
  return getCheckedByteSize(extents, bytes).has_value();
}

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
    // Memref types too large to address: a function argument or an op's
    // result, reported once per op.
    getOperation()->walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (auto type = dyn_cast<MemRefType>(arg.getType());
                type && !hasRepresentableSize(type)) {
              op->emitOpError("argument ")
                  << arg.getArgNumber() << " has type " << type
                  << ", whose static extents hold more bytes than fit in 64 bits";
              failedAny = true;
            }
      for (Type type : op->getResultTypes())
        if (auto memref = dyn_cast<MemRefType>(type);
            memref && !hasRepresentableSize(memref)) {
          op->emitOpError("result type ")
              << memref << " holds more bytes than fit in 64 bits";
          failedAny = true;
          break;
        }
    });
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
