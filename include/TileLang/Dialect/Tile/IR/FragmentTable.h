//===- FragmentTable.h - Enumerated fragment layouts -------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// A #tile.fragment layout enumerated over its elements: which element each
// register slot of each thread holds. Layout inference uses the mixed-radix
// fit to express enumerated patterns as affine maps; the register lowering
// uses the table to visit a thread's own elements, to find where another
// fragment keeps the same element, and to prove at compile time that a
// fragment can live in registers (every slot index a constant).
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_IR_FRAGMENTTABLE_H
#define TILELANG_DIALECT_TILE_IR_FRAGMENTTABLE_H

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/IR/AffineExpr.h"

namespace mlir {
namespace tile {

/// Fits `xs` (xs[0] = 0) as a mixed-radix sequence: xs[r] = sum over levels
/// l of digit_l(r) * stride_l, the digits of r in radices count_l (least
/// significant first). Returns that expression of `r`, or null.
AffineExpr fitMixedRadix(ArrayRef<int64_t> xs, AffineExpr r);

/// The registers of a fragment layout over all `threads` threads of its
/// block. Slots number the distinct register positions (the index map's
/// results) in lexicographic order, so a layout whose positions are
/// 0..N-1 keeps them; a layout whose threads do not all hold every slot has
/// no table.
class FragmentTable {
public:
  /// The table of `layout`, or failure when some thread leaves a slot
  /// empty or the layout has more than `maxElements` elements.
  static FailureOr<FragmentTable> get(FragmentLayoutAttr layout,
                                      int64_t maxElements = 1 << 16);
  /// The table of `layout` built once per context (the tile dialect keeps
  /// it), or null when it has none.
  static const FragmentTable *lookup(FragmentLayoutAttr layout);

  FragmentLayoutAttr getLayout() const { return layout; }
  ArrayRef<int64_t> getShape() const { return layout.getShape(); }
  int64_t getNumThreads() const { return numThreads; }
  int64_t getNumSlots() const { return numSlots; }
  int64_t getNumElements() const { return slotOf.size(); }

  /// Row-major index of the element in slot `s` of thread `t`.
  int64_t getElement(int64_t t, int64_t s) const {
    return elementOf[t * numSlots + s];
  }
  /// The slot that holds element `e` in every thread that holds it.
  int64_t getSlot(int64_t e) const { return slotOf[e]; }
  /// Whether thread `t` holds element `e`.
  bool holds(int64_t t, int64_t e) const {
    return getElement(t, getSlot(e)) == e;
  }
  /// The number of threads that hold element `e`.
  int64_t getNumHolders(int64_t e) const { return holders[e]; }

  /// Coordinates of element `e`, and the reverse.
  SmallVector<int64_t> getCoords(int64_t e) const;
  int64_t getLinear(ArrayRef<int64_t> coords) const;

  /// Coordinate `d` of the element in slot `s` of thread `t` is
  /// getSlotPart(d, s) + getThreadPart(d)(t). The thread part is a
  /// mixed-radix expression of dimension 0 (the thread), or null when the
  /// coordinate does not split that way.
  int64_t getSlotPart(int64_t d, int64_t s) const {
    return getCoords(getElement(0, s))[d];
  }
  AffineExpr getThreadPart(int64_t d) const { return threadParts[d]; }
  /// Whether `other` puts the same element in every slot of every thread.
  bool placesLike(const FragmentTable &other) const {
    return getShape() == other.getShape() && elementOf == other.elementOf;
  }
  /// Whether every coordinate splits into a slot and a thread part.
  bool isSeparable() const {
    return llvm::all_of(threadParts, [](AffineExpr e) { return bool(e); });
  }

private:
  FragmentLayoutAttr layout;
  int64_t numThreads = 0, numSlots = 0;
  SmallVector<int64_t> elementOf, slotOf, holders;
  SmallVector<AffineExpr> threadParts;
};

} // namespace tile
} // namespace mlir

#endif // TILELANG_DIALECT_TILE_IR_FRAGMENTTABLE_H
