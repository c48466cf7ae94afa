//===- FragmentTableTest.cpp - Enumerated fragment layouts ---------------===//
//
// Part of TileLang-MLIR.
//
// The tables the register-fragment lowering relies on: which element each
// slot of each thread holds, the slot numbering, replication, the split of
// coordinates into slot and thread parts, and the layouts that have no
// table.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Dialect/Tile/IR/FragmentTable.h"
#include "TileLang/Registration/Registration.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

class FragmentTableTest : public ::testing::Test {
protected:
  FragmentTableTest() : ctx(makeRegistry()) { ctx.loadAllAvailableDialects(); }
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }
  FragmentLayoutAttr parse(StringRef text) {
    return cast<FragmentLayoutAttr>(parseAttribute(text, &ctx));
  }
  MLIRContext ctx;
};

// One warp's m16n8 mma.sync accumulator: lane 4g + t holds rows g and
// g + 8, columns 2t and 2t + 1, in slots 0-3.
TEST_F(FragmentTableTest, MmaAccumulator) {
  FailureOr<FragmentTable> table = FragmentTable::get(parse(
      "#tile.fragment<[16, 8], thread = (i, j) -> ((i mod 8) * 4 + (j mod 8) "
      "floordiv 2), index = (i, j) -> ((i floordiv 8) * 2 + j mod 2), "
      "threads = 32>"));
  ASSERT_TRUE(succeeded(table));
  EXPECT_EQ(table->getNumThreads(), 32);
  EXPECT_EQ(table->getNumSlots(), 4);
  // Lane 5: g = 1, t = 1; slot 2 is row 9, column 2.
  EXPECT_EQ(table->getCoords(table->getElement(5, 2)),
            (SmallVector<int64_t>{9, 2}));
  EXPECT_EQ(table->getSlot(table->getLinear({9, 3})), 3);
  EXPECT_TRUE(table->holds(5, table->getLinear({9, 3})));
  EXPECT_FALSE(table->holds(4, table->getLinear({9, 3})));
  EXPECT_EQ(table->getNumHolders(0), 1);
  // Row = slot part (8 for slots 2, 3) + lane / 4; column = slot part
  // (0 or 1) + 2 (lane mod 4).
  ASSERT_TRUE(table->isSeparable());
  EXPECT_EQ(table->getSlotPart(0, 3), 8);
  EXPECT_EQ(table->getSlotPart(1, 3), 1);
  // Lane 13: row part 3, column part 2.
  AffineExpr lane13 = getAffineConstantExpr(13, &ctx);
  EXPECT_EQ(table->getThreadPart(0).replaceDims({lane13}),
            getAffineConstantExpr(3, &ctx));
  EXPECT_EQ(table->getThreadPart(1).replaceDims({lane13}),
            getAffineConstantExpr(2, &ctx));
}

// A row vector replicated over the four lanes of each row group, with
// register positions that skip values (0 and 8): the slots are packed, and
// every element has four holders.
TEST_F(FragmentTableTest, ReplicatedAndSparseIndices) {
  FailureOr<FragmentTable> table = FragmentTable::get(parse(
      "#tile.fragment<[16], thread = (i, r) -> ((i mod 8) * 4 + r), "
      "index = (i) -> ((i floordiv 8) * 8), threads = 32, replicate = 4>"));
  ASSERT_TRUE(succeeded(table));
  EXPECT_EQ(table->getNumSlots(), 2);
  EXPECT_EQ(table->getNumHolders(3), 4);
  for (int64_t t = 12; t < 16; ++t) {
    EXPECT_EQ(table->getElement(t, 0), 3);
    EXPECT_EQ(table->getElement(t, 1), 11);
  }
}

// Threads holding different numbers of elements (96 elements over 64
// threads, two per thread only for the first 32): no table.
TEST_F(FragmentTableTest, UnevenLayoutsHaveNoTable) {
  EXPECT_TRUE(failed(FragmentTable::get(
      parse("#tile.fragment<[96], thread = (i) -> (i mod 64), "
            "index = (i) -> (i floordiv 64), threads = 64>"))));
}

// A thread map whose columns depend on the slot in a way no thread part
// shared by all slots describes (a diagonal): a table, not separable.
TEST_F(FragmentTableTest, DiagonalLayoutsAreNotSeparable) {
  FailureOr<FragmentTable> table = FragmentTable::get(
      parse("#tile.fragment<[4, 4], thread = (i, j) -> ((i + j) mod 4), "
            "index = (i, j) -> (i), threads = 4>"));
  ASSERT_TRUE(succeeded(table));
  EXPECT_FALSE(table->isSeparable());
}

// The mixed-radix fit behind the thread parts: digits of r in radices 4
// and 8 with strides 0 and 1 (the row of an mma lane: lane / 4).
TEST_F(FragmentTableTest, MixedRadixFit) {
  SmallVector<int64_t> rows;
  for (int64_t lane = 0; lane < 32; ++lane)
    rows.push_back(lane / 4);
  AffineExpr fit = fitMixedRadix(rows, getAffineDimExpr(0, &ctx));
  ASSERT_TRUE(fit);
  for (int64_t lane = 0; lane < 32; ++lane)
    EXPECT_EQ(fit.replaceDims({getAffineConstantExpr(lane, &ctx)}),
              getAffineConstantExpr(lane / 4, &ctx));
  EXPECT_FALSE(fitMixedRadix({0, 1, 0, 2}, getAffineDimExpr(0, &ctx)));
}

// Tables looked up through the dialect are built once per context: the
// same table for the same layout, none for a layout without one.
TEST_F(FragmentTableTest, LookupBuildsOncePerContext) {
  FragmentLayoutAttr layout = parse(
      "#tile.fragment<[16, 8], thread = (i, j) -> ((i mod 8) * 4 + (j mod 8) "
      "floordiv 2), index = (i, j) -> ((i floordiv 8) * 2 + j mod 2), "
      "threads = 32>");
  const FragmentTable *table = FragmentTable::lookup(layout);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(FragmentTable::lookup(layout), table);
  EXPECT_EQ(table->getNumSlots(), 4);
  EXPECT_EQ(FragmentTable::lookup(
                parse("#tile.fragment<[96], thread = (i) -> (i mod 64), "
                      "index = (i) -> (i floordiv 64), threads = 64>")),
            nullptr);
}

// The integer evaluation of affine maps agrees with MLIR's folding of
// AffineMap::compose, negative coordinates included (floordiv rounds down,
// ceildiv up, mod is never negative).
TEST_F(FragmentTableTest, EvaluateAffineMapAgreesWithCompose) {
  AffineMap map = cast<AffineMapAttr>(
                      parseAttribute("affine_map<(i, j, k) -> ((i floordiv 3) "
                                     "* 5 + j mod 4, (i + 2 * j) ceildiv 7 - "
                                     "k, k * -3 + (i mod 8) floordiv 2, 11)>",
                                     &ctx))
                      .getValue();
  for (int64_t i = -9; i <= 9; ++i)
    for (int64_t j = -5; j <= 5; ++j)
      for (int64_t k = -2; k <= 2; ++k) {
        SmallVector<int64_t> point{i, j, k};
        EXPECT_EQ(evaluateAffineMap(map, point),
                  (SmallVector<int64_t, 4>(map.compose(point))))
            << "at (" << i << ", " << j << ", " << k << ")";
      }
}

} // namespace
