//===- VerifyDims.cpp - memref.dim indices that are dimensions ----------===//
//
// Part of TileLang-MLIR.
//
// tile-verify-dims: a memref.dim with a constant index outside the rank,
// an element access out of a static extent on every path, and a memref
// type too large to address are errors at their location (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Transforms/Passes.h"

#include "TileLang/Support/CheckedSize.h"

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

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

/// Whether an scf.if lies between `op` and `until` (exclusive; null: the
/// enclosing function): the access may be guarded.
static bool isUnderCondition(Operation *op, Operation *until) {
  for (Operation *parent = op->getParentOp(); parent && parent != until;
       parent = parent->getParentOp()) {
    if (isa<scf::IfOp>(parent))
      return true;
    if (isa<FunctionOpInterface>(parent))
      break;
  }
  return false;
}

/// Reports, at `access`, an index of it that is outside a static extent of
/// `memref` on every path to it: a constant outside [0, extent), or a
/// tile.parallel coordinate used directly whose range passes the extent,
/// with no scf.if between the access and where the index is defined.
static bool hasOutOfRangeIndex(Operation *access, Value memref,
                               ValueRange indices) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type)
    return false;
  for (auto [axis, index] : llvm::enumerate(indices)) {
    int64_t extent = type.getDimSize(axis);
    if (ShapedType::isDynamic(extent))
      continue;
    if (std::optional<int64_t> constant = getConstantIntValue(index)) {
      if ((*constant < 0 || *constant >= extent) &&
          !isUnderCondition(access, nullptr)) {
        access->emitOpError("index ")
            << *constant << " along dimension " << axis << " of " << type
            << " is outside [0, " << extent << ")";
        return true;
      }
      continue;
    }
    auto coordinate = dyn_cast<BlockArgument>(index);
    auto parallel = coordinate ? dyn_cast_or_null<ParallelOp>(
                                     coordinate.getOwner()->getParentOp())
                               : ParallelOp();
    if (!parallel)
      continue;
    int64_t range = parallel.getExtents()[coordinate.getArgNumber()];
    if (range > extent && !isUnderCondition(access, parallel)) {
      InFlightDiagnostic diag = access->emitOpError("index along dimension ")
                                << axis << " of " << type
                                << " is a tile.parallel coordinate over [0, "
                                << range << "), past the dimension's "
                                << extent << " elements";
      diag.attachNote(parallel.getLoc()) << "the tile.parallel";
      return true;
    }
  }
  return false;
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
    // Element accesses out of a static extent on every path to them.
    getOperation()->walk([&](Operation *op) {
      if (auto load = dyn_cast<memref::LoadOp>(op))
        failedAny |=
            hasOutOfRangeIndex(op, load.getMemRef(), load.getIndices());
      else if (auto store = dyn_cast<memref::StoreOp>(op))
        failedAny |=
            hasOutOfRangeIndex(op, store.getMemRef(), store.getIndices());
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
