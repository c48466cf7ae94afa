//===- SwizzleIndicesTest.cpp - swizzleIndices against applyToTile --------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//
//
// Checks the index arithmetic swizzleIndices builds for swizzled shared
// tiles against SwizzleAttr::applyToTile (the layout's definition, checked
// by TileAllocationTest), element by element: the arithmetic is evaluated
// here on constant indices. Covers whole tiles, the pages of a tile with a
// leading dimension (each laid out by itself, as its leading-slice views
// see it) and windows of a page (memref.subview of part of its rows and
// columns: the element's place is the page's).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "TileLang/Registration/Registration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/TypeSwitch.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The value of `v`, built by swizzleIndices from constants.
int64_t evaluate(Value v) {
  Operation *op = v.getDefiningOp();
  EXPECT_TRUE(op) << "a block argument";
  if (!op)
    return 0;
  if (auto constant = dyn_cast<arith::ConstantIndexOp>(op))
    return constant.value();
  auto operand = [&](unsigned i) { return evaluate(op->getOperand(i)); };
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case([&](arith::AddIOp) { return operand(0) + operand(1); })
      .Case([&](arith::SubIOp) { return operand(0) - operand(1); })
      .Case([&](arith::MulIOp) { return operand(0) * operand(1); })
      .Case([&](arith::DivUIOp) {
        return int64_t(uint64_t(operand(0)) / uint64_t(operand(1)));
      })
      .Case([&](arith::RemUIOp) {
        return int64_t(uint64_t(operand(0)) % uint64_t(operand(1)));
      })
      .Case([&](arith::XOrIOp) { return operand(0) ^ operand(1); })
      .Case([&](arith::AndIOp) { return operand(0) & operand(1); })
      .Case([&](arith::ShRUIOp) {
        return int64_t(uint64_t(operand(0)) >> operand(1));
      })
      .Case([&](arith::ShLIOp) { return operand(0) << operand(1); })
      .Default([&](Operation *other) {
        ADD_FAILURE() << "unexpected op " << other->getName().getStringRef().str();
        return int64_t(0);
      });
}

class SwizzleIndicesTest : public ::testing::Test {
protected:
  SwizzleIndicesTest() : ctx(makeRegistry()), b(&ctx) {
    ctx.loadAllAvailableDialects();
    module = ModuleOp::create(b.getUnknownLoc());
    auto func = func::FuncOp::create(b.getUnknownLoc(), "f",
                                     b.getFunctionType({}, {}));
    module.push_back(func);
    b.setInsertionPointToStart(func.addEntryBlock());
  }
  ~SwizzleIndicesTest() override { module->erase(); }

  /// How a failure names a swizzle.
  static std::string describe(Attribute attr) {
    std::string text;
    llvm::raw_string_ostream os(text);
    attr.print(os);
    return text;
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }

  /// A shared tile of `shape` f16 placed by `swizzle`.
  Value tile(ArrayRef<int64_t> shape, SwizzleAttr swizzle) {
    auto type = MemRefType::get(
        shape, b.getF16Type(), MemRefLayoutAttrInterface(),
        MemorySpaceAttr::get(&ctx, MemorySpace::Shared));
    auto alloc = AllocSharedOp::create(b, b.getUnknownLoc(), type);
    alloc.setLayoutAttr(swizzle);
    return alloc.getResult();
  }

  /// The row-major element offset, within `tile`'s memory (the allocation
  /// the views come from), that swizzleIndices gives element `indices` of
  /// `view` (strides and offset from the view's type).
  int64_t stored(Value view, ArrayRef<int64_t> indices) {
    SmallVector<Value> at;
    for (int64_t i : indices)
      at.push_back(arith::ConstantIndexOp::create(b, b.getUnknownLoc(), i));
    SmallVector<Value> placed =
        swizzleIndices(b, b.getUnknownLoc(), view, at);
    auto type = cast<MemRefType>(view.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    EXPECT_TRUE(succeeded(type.getStridesAndOffset(strides, offset)));
    int64_t linear = offset;
    for (auto [index, stride] : llvm::zip(placed, strides))
      linear += evaluate(index) * stride;
    return linear;
  }

  Value subview(Value source, ArrayRef<int64_t> offsets,
                ArrayRef<int64_t> sizes, ArrayRef<int64_t> resultShape) {
    auto sourceType = cast<MemRefType>(source.getType());
    SmallVector<int64_t> ones(offsets.size(), 1);
    auto type = cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
        resultShape, sourceType, offsets, sizes, ones));
    return memref::SubViewOp::create(b, b.getUnknownLoc(), type, source,
                                     offsets, sizes, ones)
        .getResult();
  }

  MLIRContext ctx;
  OpBuilder b;
  ModuleOp module;
};

TEST_F(SwizzleIndicesTest, WholeTilesAreTheirLayout) {
  for (SwizzleAttr swizzle :
       {SwizzleAttr::get(&ctx, 3, 3, 3),
        SwizzleAttr::get(&ctx, 3, 3, 3, /*blocked=*/true),
        SwizzleAttr::get(&ctx, 3, 3, 3, /*blocked=*/true, /*panels=*/true)}) {
    Value t = tile({16, 192}, swizzle);
    for (int64_t r = 0; r < 16; ++r)
      for (int64_t c = 0; c < 192; c += 5)
        ASSERT_EQ(stored(t, {r, c}), swizzle.applyToTile(r, c, 16, 192))
            << describe(swizzle) << " at " << r << ", " << c;
  }
}

TEST_F(SwizzleIndicesTest, EachPageIsLaidOutByItself) {
  // A 3 x 16 x 192 tile (three stages of a pipeline): element (s, r, c) is
  // in page s, placed as in a 16 x 192 tile, whether it is reached from
  // the tile or from the page's leading-slice view.
  auto panels = SwizzleAttr::get(&ctx, 3, 3, 3, true, true);
  Value t = tile({3, 16, 192}, panels);
  for (int64_t s = 0; s < 3; ++s) {
    Value page = subview(t, {s, 0, 0}, {1, 16, 192}, {16, 192});
    for (int64_t r = 0; r < 16; r += 3)
      for (int64_t c = 0; c < 192; c += 7) {
        int64_t want = s * 16 * 192 + panels.applyToTile(r, c, 16, 192);
        ASSERT_EQ(stored(t, {s, r, c}), want) << s << ", " << r << ", " << c;
        ASSERT_EQ(stored(page, {r, c}), want) << s << ", " << r << ", " << c;
      }
  }
}

TEST_F(SwizzleIndicesTest, WindowsAreWherePagesPutThem) {
  // Windows of a 64 x 576 page (TileLang's Q_shared[:, :512] and
  // Q_shared[:, 512:]), of a row range, and of one page of a staged tile;
  // each layout of 128-byte units.
  struct Window {
    SmallVector<int64_t> offsets, sizes, shape;
  };
  for (SwizzleAttr swizzle :
       {SwizzleAttr::get(&ctx, 3, 3, 3),
        SwizzleAttr::get(&ctx, 3, 3, 3, /*blocked=*/true),
        SwizzleAttr::get(&ctx, 3, 3, 3, /*blocked=*/true, /*panels=*/true)}) {
    Value q = tile({64, 576}, swizzle);
    for (const Window &w :
         {Window{{0, 0}, {64, 512}, {64, 512}},
          Window{{0, 512}, {64, 64}, {64, 64}},
          Window{{8, 64}, {16, 128}, {16, 128}},
          Window{{0, 8}, {64, 40}, {64, 40}}}) {
      Value view = subview(q, w.offsets, w.sizes, w.shape);
      ASSERT_TRUE(getSwizzleWindow(view).has_value());
      ASSERT_EQ(getTileSwizzle(view), swizzle);
      for (int64_t r = 0; r < w.sizes[0]; r += 3)
        for (int64_t c = 0; c < w.sizes[1]; c += 5)
          ASSERT_EQ(stored(view, {r, c}),
                    swizzle.applyToTile(r + w.offsets[0], c + w.offsets[1],
                                        64, 576))
              << describe(swizzle) << " window at " << w.offsets[0] << ", "
              << w.offsets[1] << ": " << r << ", " << c;
    }
    // Half of stage 1 of a 2 x 32 x 512 tile (an MN-major B).
    Value kv = tile({2, 32, 512}, swizzle);
    Value half = subview(kv, {1, 0, 256}, {1, 32, 256}, {32, 256});
    ASSERT_TRUE(getSwizzleWindow(half).has_value());
    for (int64_t r = 0; r < 32; r += 3)
      for (int64_t c = 0; c < 256; c += 7)
        ASSERT_EQ(stored(half, {r, c}),
                  32 * 512 + swizzle.applyToTile(r, c + 256, 32, 512))
            << describe(swizzle) << ": " << r << ", " << c;
  }
}

TEST_F(SwizzleIndicesTest, WindowsSplittingSwizzleUnitsAreNotWindows) {
  // A column offset inside a 16-byte unit of the swizzle: no window, so
  // the view has no swizzle (appliesSwizzle then drops the tile's).
  auto swizzle = SwizzleAttr::get(&ctx, 3, 3, 3);
  Value q = tile({64, 128}, swizzle);
  Value view = subview(q, {0, 4}, {64, 64}, {64, 64});
  EXPECT_FALSE(getSwizzleWindow(view).has_value());
  EXPECT_FALSE(getTileSwizzle(view));
  EXPECT_FALSE(appliesSwizzle(q, swizzle));
  // Whole leading slices are not windows: they are their own pages.
  Value staged = tile({2, 64, 64}, swizzle);
  Value stage = subview(staged, {1, 0, 0}, {1, 64, 64}, {64, 64});
  EXPECT_FALSE(getSwizzleWindow(stage).has_value());
  EXPECT_EQ(getTileSwizzle(stage), swizzle);
}

} // namespace
