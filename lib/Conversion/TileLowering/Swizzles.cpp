//===- Swizzles.cpp - Swizzled shared tiles ------------------------------===//
//
// Part of TileLang-MLIR.
//
// The XOR swizzles of shared tiles (#tile.swizzle, blocked or not) as index
// arithmetic, and which swizzles a tile's uses can apply.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/TileLowering.h"

#include "LoweringCommon.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

//===----------------------------------------------------------------------===//
// Swizzled shared tiles
//===----------------------------------------------------------------------===//

/// True when `view` selects whole leading slices of `source` (offsets only
/// in the dimensions it drops, unit strides, full trailing extents) and
/// those slices are whole periods of `swizzle`.
static bool isLeadingSliceView(memref::SubViewOp view, SwizzleAttr swizzle) {
  MemRefType source = view.getSourceType();
  MemRefType result = view.getType();
  int64_t lead = source.getRank() - result.getRank();
  if (lead < 0 || !source.hasStaticShape())
    return false;
  ArrayRef<int64_t> sizes = view.getStaticSizes();
  ArrayRef<int64_t> offsets = view.getStaticOffsets();
  ArrayRef<int64_t> strides = view.getStaticStrides();
  int64_t slice = 1;
  for (int64_t d = 0; d < source.getRank(); ++d) {
    if (strides[d] != 1)
      return false;
    if (d < lead) {
      if (sizes[d] != 1)
        return false;
      continue;
    }
    if (offsets[d] != 0 || sizes[d] != source.getDimSize(d))
      return false;
    slice *= source.getDimSize(d);
  }
  return slice % swizzle.getPeriod() == 0;
}

/// The geometry of the window of a page of its source `view` is, if it
/// is one (see SwizzleWindow; whole pages are not windows): no swizzle in
/// it yet.
static std::optional<SwizzleWindow> getWindowGeometry(memref::SubViewOp view) {
  MemRefType source = view.getSourceType();
  int64_t rank = source.getRank();
  if (rank < 2 || !source.hasStaticShape() || view.getType().getRank() < 2)
    return std::nullopt;
  ArrayRef<int64_t> sizes = view.getStaticSizes();
  ArrayRef<int64_t> offsets = view.getStaticOffsets();
  if (llvm::any_of(view.getStaticStrides(),
                   [](int64_t stride) { return stride != 1; }))
    return std::nullopt;
  // One page (the trailing two dimensions) of one leading slice, which
  // the view keeps as its own trailing dimensions.
  for (int64_t d = 0; d < rank - 2; ++d)
    if (sizes[d] != 1)
      return std::nullopt;
  llvm::SmallBitVector dropped = view.getDroppedDims();
  if (dropped.test(rank - 2) || dropped.test(rank - 1))
    return std::nullopt;
  for (int64_t d : {rank - 2, rank - 1})
    if (ShapedType::isDynamic(offsets[d]) || ShapedType::isDynamic(sizes[d]))
      return std::nullopt;
  SwizzleWindow window;
  window.pageRows = source.getDimSize(rank - 2);
  window.pageCols = source.getDimSize(rank - 1);
  window.row = offsets[rank - 2];
  window.col = offsets[rank - 1];
  window.rows = sizes[rank - 2];
  window.cols = sizes[rank - 1];
  if (window.rows == window.pageRows && window.cols == window.pageCols)
    return std::nullopt;
  return window;
}

/// The window of a page of `view`'s source, placed by `swizzle`, that
/// `view` is (see SwizzleWindow), if it is one.
static std::optional<SwizzleWindow> getWindow(memref::SubViewOp view,
                                              SwizzleAttr swizzle) {
  std::optional<SwizzleWindow> window = getWindowGeometry(view);
  // Whole units of the swizzle along the rows (the unit vectors of the
  // accesses through it stay whole).
  if (!swizzle || !window || isLeadingSliceView(view, swizzle) ||
      window->col % (int64_t(1) << swizzle.getBase()))
    return std::nullopt;
  window->swizzle = swizzle;
  return window;
}

MemRefType mlir::tile::getWindowPage(Value tile) {
  auto type = cast<MemRefType>(tile.getType());
  auto view = tile.getDefiningOp<memref::SubViewOp>();
  std::optional<SwizzleWindow> window =
      view ? getWindowGeometry(view) : std::nullopt;
  if (!window)
    return MemRefType::get(type.getShape(), type.getElementType());
  return MemRefType::get({window->pageRows, window->pageCols},
                         type.getElementType());
}

std::optional<SwizzleWindow> mlir::tile::getSwizzleWindow(Value tile) {
  auto view = tile.getDefiningOp<memref::SubViewOp>();
  if (!view)
    return std::nullopt;
  return getWindow(view, getTileSwizzle(view.getSource()));
}

std::optional<SwizzleWindow> mlir::tile::getSwizzleWindow(Value tile,
                                                          SwizzleAttr swizzle) {
  auto view = tile.getDefiningOp<memref::SubViewOp>();
  if (!view)
    return std::nullopt;
  return getWindow(view, swizzle);
}

SwizzleAttr mlir::tile::getTileSwizzle(Value tile) {
  Operation *def = tile.getDefiningOp();
  if (auto view = dyn_cast_or_null<memref::SubViewOp>(def)) {
    SwizzleAttr swizzle = getTileSwizzle(view.getSource());
    if (!swizzle)
      return {};
    // A leading slice has the swizzle as its own; a window of a page is
    // placed by the page's (swizzleIndices, getSwizzleWindow).
    return isLeadingSliceView(view, swizzle) || getWindow(view, swizzle)
               ? swizzle
               : SwizzleAttr();
  }
  // A view of a shared tile as another element type: the same bytes where
  // the tile's swizzle puts them (appliesSwizzle kept only swizzles its
  // views can keep).
  if (auto view = dyn_cast_or_null<ViewOp>(def)) {
    SwizzleAttr swizzle = getTileSwizzle(view.getSource());
    return swizzle ? swizzle.reinterpret(
                         cast<MemRefType>(view.getSource().getType()),
                         cast<MemRefType>(view.getType()))
                   : SwizzleAttr();
  }
  if (auto alloc = dyn_cast_or_null<AllocSharedOp>(def)) {
    auto swizzle = dyn_cast_or_null<SwizzleAttr>(alloc.getLayoutAttr());
    // The identity (a row-major layout the user fixed) applies as none.
    return swizzle && !swizzle.isIdentity() ? swizzle : SwizzleAttr();
  }
  return {};
}

/// `x + y`.
static Value offsetIndex(OpBuilder &b, Location loc, Value x, int64_t y) {
  return y ? arith::AddIOp::create(b, loc, x, indexConst(b, loc, y))
                 .getResult()
           : x;
}

/// The mask `swizzle` XORs into the element offset `offset`: the `bits`
/// bits from `base + shift` moved down to `base`.
static Value getSwizzleMask(OpBuilder &b, Location loc, SwizzleAttr swizzle,
                            Value offset) {
  Value field = arith::AndIOp::create(
      b, loc,
      arith::ShRUIOp::create(
          b, loc, offset,
          indexConst(b, loc, swizzle.getBase() + swizzle.getShift())),
      indexConst(b, loc, (int64_t(1) << swizzle.getBits()) - 1));
  return arith::ShLIOp::create(b, loc, field,
                               indexConst(b, loc, swizzle.getBase()));
}

/// swizzleIndices for a blocked swizzle: the stored offset of the element
/// (SwizzleAttr::applyToTile), as indices of the same shape.
static SmallVector<Value> swizzleBlockedIndices(OpBuilder &b, Location loc,
                                                SwizzleAttr swizzle,
                                                ArrayRef<int64_t> shape,
                                                ValueRange indices) {
  int64_t rowLength = shape.back(), width = swizzle.getBlockWidth();
  auto mul = [&](Value v, int64_t c) -> Value {
    return arith::MulIOp::create(b, loc, v, indexConst(b, loc, c));
  };
  auto div = [&](Value v, int64_t c) -> Value {
    return arith::DivUIOp::create(b, loc, v, indexConst(b, loc, c));
  };
  auto rem = [&](Value v, int64_t c) -> Value {
    return arith::RemUIOp::create(b, loc, v, indexConst(b, loc, c));
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  // Each page (the trailing two dimensions) of each leading slice is laid
  // out by itself, as a leading-slice view of it sees it: the leading
  // indices select the page, row-major.
  size_t rank = shape.size();
  int64_t rows = rank >= 2 ? shape[rank - 2] : 1;
  Value page = indexConst(b, loc, 0);
  for (size_t d = 0; d + 2 < rank; ++d)
    page = add(mul(page, shape[d]), indices[d]);
  Value row = rank >= 2 ? indices[rank - 2] : indexConst(b, loc, 0);
  Value col = indices.back();
  // Group of 8 rows, then the column block, then the row inside the group,
  // then the column inside the block; in column panels, the panel, then the
  // row, then the column inside the panel.
  Value offset =
      swizzle.getPanels()
          ? add(mul(div(col, width), rows * width),
                add(mul(row, width), rem(col, width)))
          : add(add(mul(div(row, 8), 8 * rowLength),
                    mul(div(col, width), 8 * width)),
                add(mul(rem(row, 8), width), rem(col, width)));
  offset = add(mul(page, rows * rowLength), offset);
  offset = arith::XOrIOp::create(b, loc, offset,
                                 getSwizzleMask(b, loc, swizzle, offset));
  // Back to indices of the tile's shape.
  SmallVector<Value> result(indices.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    result[d] = d == 0 ? offset : rem(offset, shape[d]);
    if (d > 0)
      offset = div(offset, shape[d]);
  }
  return result;
}

SmallVector<Value> mlir::tile::swizzleIndices(OpBuilder &b, Location loc,
                                              Value tile, ValueRange indices) {
  SmallVector<Value> result(indices);
  SwizzleAttr swizzle = getTileSwizzle(tile);
  if (!swizzle || indices.empty())
    return result;
  if (std::optional<SwizzleWindow> window = getSwizzleWindow(tile)) {
    // The element's place in the page, as indices of the view: the
    // page's (row, column) less the window's origin (the view's strides
    // are the page's, so the difference addresses the same element even
    // where it lies outside the window's bounds).
    size_t rank = indices.size();
    SmallVector<Value> page = {
        offsetIndex(b, loc, indices[rank - 2], window->row),
        offsetIndex(b, loc, indices[rank - 1], window->col)};
    SmallVector<Value> placed = swizzleIndices(
        b, loc, swizzle, {window->pageRows, window->pageCols}, page);
    result[rank - 2] = offsetIndex(b, loc, placed[0], -window->row);
    result[rank - 1] = offsetIndex(b, loc, placed[1], -window->col);
    return result;
  }
  return swizzleIndices(b, loc, swizzle,
                        cast<MemRefType>(tile.getType()).getShape(), indices);
}

SmallVector<Value> mlir::tile::swizzleIndices(OpBuilder &b, Location loc,
                                              SwizzleAttr swizzle,
                                              ArrayRef<int64_t> shape,
                                              ValueRange indices) {
  SmallVector<Value> result(indices);
  if (swizzle.getBlocked())
    return swizzleBlockedIndices(b, loc, swizzle, shape, indices);
  // The row-major offset; only the bits the swizzle reads matter, and they
  // start above the innermost index's permuted bits.
  Value linear = indices.back();
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d > 0; --d) {
    stride *= shape[d];
    linear = arith::AddIOp::create(
        b, loc, linear,
        arith::MulIOp::create(b, loc, indices[d - 1],
                              indexConst(b, loc, stride)));
  }
  result.back() = arith::XOrIOp::create(
      b, loc, indices.back(), getSwizzleMask(b, loc, swizzle, linear));
  return result;
}

bool mlir::tile::appliesSwizzle(Value tile, SwizzleAttr swizzle) {
  if (swizzle.isIdentity())
    return true;
  auto type = cast<MemRefType>(tile.getType());
  if (!type.hasStaticShape() || type.getRank() == 0 ||
      type.getShape().back() %
              (int64_t(1) << (swizzle.getBase() + swizzle.getBits())) !=
          0)
    return false;
  // A blocked layout stores groups of 8 rows.
  if (swizzle.getBlocked() &&
      (type.getNumElements() / type.getShape().back()) % 8)
    return false;
  for (Operation *user : tile.getUsers()) {
    // Element accesses apply it too (swizzleElementAccesses).
    if (isa<CopyOp, GemmOp, memref::LoadOp, memref::StoreOp>(user))
      continue;
    // A thread's few elements, inside one contiguous unit (the program
    // aligns them to their size).
    if (auto elements = dyn_cast<AsyncCopyElementsOp>(user)) {
      if (elements.getCount() > (int64_t(1) << swizzle.getBase()))
        return false;
      continue;
    }
    // A view as another element type applies what it keeps of it.
    if (auto view = dyn_cast<ViewOp>(user)) {
      SwizzleAttr kept =
          swizzle.reinterpret(type, cast<MemRefType>(view.getType()));
      if (!kept || !tile::appliesSwizzle(view.getResult(), kept))
        return false;
      continue;
    }
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (!view)
      return false;
    // A window of a page that only gemms read: their lowerings place its
    // elements through the page (swizzleIndices, the wgmma descriptors).
    if (getWindow(view, swizzle)) {
      if (!llvm::all_of(view->getUsers(),
                        [](Operation *op) { return isa<GemmOp>(op); }))
        return false;
      continue;
    }
    if (!isLeadingSliceView(view, swizzle) ||
        !tile::appliesSwizzle(view.getResult(), swizzle))
      return false;
  }
  return true;
}

void mlir::tile::dropUnappliedSwizzles(Operation *root) {
  root->walk([](AllocSharedOp alloc) {
    if (auto swizzle = dyn_cast_or_null<SwizzleAttr>(alloc.getLayoutAttr());
        swizzle && !tile::appliesSwizzle(alloc.getResult(), swizzle))
      alloc.removeLayoutAttr();
  });
}

/// Rewrites the indices of `op` (a memref.load or memref.store of a
/// swizzled tile) into the element's place in the swizzle.
static void swizzleAccess(OpBuilder &b, Operation *op) {
  b.setInsertionPoint(op);
  if (auto load = dyn_cast<memref::LoadOp>(op))
    load.getIndicesMutable().assign(swizzleIndices(
        b, op->getLoc(), load.getMemRef(), load.getIndices()));
  else if (auto store = dyn_cast<memref::StoreOp>(op))
    store.getIndicesMutable().assign(swizzleIndices(
        b, op->getLoc(), store.getMemRef(), store.getIndices()));
}

void mlir::tile::swizzleElementAccesses(Operation *root) {
  SmallVector<Operation *> accesses;
  root->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op);
        load && getTileSwizzle(load.getMemRef()))
      accesses.push_back(op);
    if (auto store = dyn_cast<memref::StoreOp>(op);
        store && getTileSwizzle(store.getMemRef()))
      accesses.push_back(op);
  });
  OpBuilder b(root->getContext());
  for (Operation *op : accesses)
    if (!op->hasAttr(kSwizzleLaterAttrName))
      swizzleAccess(b, op);
}

void mlir::tile::swizzleMarkedAccesses(Operation *root) {
  SmallVector<Operation *> marked;
  root->walk([&](Operation *op) {
    if (op->hasAttr(kSwizzleLaterAttrName))
      marked.push_back(op);
  });
  OpBuilder b(root->getContext());
  for (Operation *op : marked) {
    op->removeAttr(kSwizzleLaterAttrName);
    swizzleAccess(b, op);
  }
}
