//===- FragmentTable.cpp - Enumerated fragment layouts ------------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Dialect/Tile/IR/FragmentTable.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;

AffineExpr mlir::tile::fitMixedRadix(ArrayRef<int64_t> xs, AffineExpr r) {
  if (xs.empty() || xs.front() != 0)
    return {};
  MLIRContext *ctx = r.getContext();
  AffineExpr fit = getAffineConstantExpr(0, ctx);
  int64_t period = 1; // Elements the lower levels enumerate.
  while (period < static_cast<int64_t>(xs.size())) {
    int64_t stride = xs[period];
    int64_t count = 1;
    auto matches = [&](int64_t q) {
      if ((q + 1) * period > static_cast<int64_t>(xs.size()))
        return false;
      for (int64_t p = 0; p < period; ++p)
        if (xs[q * period + p] != q * stride + xs[p])
          return false;
      return true;
    };
    while (matches(count))
      ++count;
    if (count == 1)
      return {};
    AffineExpr digit = r.floorDiv(period);
    if (period * count < static_cast<int64_t>(xs.size()))
      digit = digit % count;
    fit = fit + digit * stride;
    period *= count;
  }
  return period == static_cast<int64_t>(xs.size()) ? fit : AffineExpr();
}

SmallVector<int64_t> FragmentTable::getCoords(int64_t e) const {
  ArrayRef<int64_t> shape = getShape();
  SmallVector<int64_t> coords(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    coords[d] = e % shape[d];
    e /= shape[d];
  }
  return coords;
}

int64_t FragmentTable::getLinear(ArrayRef<int64_t> coords) const {
  int64_t linear = 0;
  for (auto [extent, coord] : llvm::zip_equal(getShape(), coords))
    linear = linear * extent + coord;
  return linear;
}

const FragmentTable *FragmentTable::lookup(FragmentLayoutAttr layout) {
  return cast<TileDialect>(layout.getDialect()).getFragmentTable(layout);
}

FailureOr<FragmentTable> FragmentTable::get(FragmentLayoutAttr layout,
                                            int64_t maxElements) {
  FragmentTable table;
  table.layout = layout;
  table.numThreads = layout.getThreads();
  int64_t numElements = 1;
  for (int64_t extent : layout.getShape()) {
    numElements *= extent;
    if (numElements > maxElements)
      return failure();
  }

  // Register positions, then the slots: the distinct positions in order
  // (a layout whose positions skip values, as a reduced one can, still
  // packs its registers).
  SmallVector<SmallVector<int64_t>> indices;
  std::map<SmallVector<int64_t>, int64_t> slots;
  for (int64_t e = 0; e < numElements; ++e) {
    indices.push_back(layout.getIndexOf(table.getCoords(e)));
    if (llvm::any_of(indices.back(), [](int64_t i) { return i < 0; }))
      return failure();
    slots.try_emplace(indices.back(), 0);
  }
  for (auto [rank, entry] : llvm::enumerate(slots))
    entry.second = rank;
  table.numSlots = slots.size();
  table.slotOf.resize(numElements);
  for (int64_t e = 0; e < numElements; ++e)
    table.slotOf[e] = slots[indices[e]];

  table.elementOf.assign(table.numThreads * table.numSlots, -1);
  table.holders.assign(numElements, 0);
  for (int64_t e = 0; e < numElements; ++e) {
    for (int64_t t : layout.getThreadsOf(table.getCoords(e))) {
      if (t < 0 || t >= table.numThreads)
        return failure();
      int64_t &held = table.elementOf[t * table.numSlots + table.slotOf[e]];
      if (held == e)
        continue;
      if (held >= 0)
        return failure();
      held = e;
      ++table.holders[e];
    }
  }
  if (llvm::is_contained(table.elementOf, -1))
    return failure();

  // Coordinate d = slot part + thread part when the thread moves every
  // slot's element by the same amount.
  MLIRContext *ctx = layout.getContext();
  for (int64_t d = 0, rank = layout.getShape().size(); d < rank; ++d) {
    auto coord = [&](int64_t t, int64_t s) {
      return table.getCoords(table.getElement(t, s))[d];
    };
    SmallVector<int64_t> xs;
    bool separable = true;
    for (int64_t t = 0; t < table.numThreads && separable; ++t) {
      xs.push_back(coord(t, 0) - coord(0, 0));
      for (int64_t s = 1; s < table.numSlots && separable; ++s)
        separable = coord(t, s) - coord(0, s) == xs.back();
    }
    table.threadParts.push_back(
        separable ? fitMixedRadix(xs, getAffineDimExpr(0, ctx)) : AffineExpr());
  }
  return table;
}
