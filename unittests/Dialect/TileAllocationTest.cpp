//===- TileAllocationTest.cpp - TileAllocationOpInterface ---------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "TileLang/Registration/Registration.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::tile;

namespace {

TEST(TileAllocationTest, EveryAllocationImplementsTheInterface) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    func.func @f(%n: index) {
      tile.kernel grid(%n) threads(32) -> (%bx) {
        %s = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<128x64xf16, #tile.mem<shared>>
        %f = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
        %l = tile.alloc_local : memref<3xi1, #tile.mem<local>>
      }
      return
    }
  )mlir", &ctx);
  ASSERT_TRUE(module);

  SmallVector<TileAllocationOpInterface> allocs;
  module->walk([&](TileAllocationOpInterface alloc) { allocs.push_back(alloc); });
  ASSERT_EQ(allocs.size(), 3u);

  EXPECT_EQ(allocs[0].getTileMemorySpace(), MemorySpace::Shared);
  EXPECT_EQ(allocs[0].getTileSizeInBytes(), 128 * 64 * 2);
  EXPECT_EQ(allocs[0].getTileLayout(), SwizzleAttr::get(&ctx, 3, 3, 3));
  EXPECT_EQ(allocs[0].getTile(), allocs[0]->getResult(0));

  EXPECT_EQ(allocs[1].getTileMemorySpace(), MemorySpace::Fragment);
  EXPECT_EQ(allocs[1].getTileSizeInBytes(), 64 * 64 * 4);
  EXPECT_FALSE(allocs[1].getTileLayout());

  EXPECT_EQ(allocs[2].getTileMemorySpace(), MemorySpace::Local);
  EXPECT_EQ(allocs[2].getTileSizeInBytes(), 1) << "3 bits round up to a byte";

  // Setting a layout through the interface keeps the op valid.
  allocs[0].setTileLayout(SwizzleAttr::get(&ctx, 2, 3, 3));
  EXPECT_EQ(allocs[0].getTileLayout(), SwizzleAttr::get(&ctx, 2, 3, 3));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST(SwizzleTest, BlockedStoresEightRowGroupsByColumnBlock) {
  MLIRContext ctx;
  ctx.loadDialect<TileDialect>();
  auto blocked = SwizzleAttr::get(&ctx, 3, 3, 3, /*blocked=*/true);
  auto plain = SwizzleAttr::get(&ctx, 3, 3, 3);
  EXPECT_EQ(blocked.getBlockWidth(), 64);
  // A 16 x 192 f16 tile: groups of 8 rows, each stored as three 8 x 64
  // blocks (1024 bytes, one 128-byte swizzle atom each) one after another;
  // inside a block the XOR of the unblocked 64-wide tile.
  const int64_t rows = 16, cols = 192;
  std::vector<bool> seen(rows * cols, false);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      int64_t stored = blocked.applyToTile(r, c, rows, cols);
      int64_t block = (r / 8) * 8 * cols + (c / 64) * 8 * 64;
      EXPECT_EQ(stored, block + plain.apply((r % 8) * 64 + c % 64))
          << r << ", " << c;
      ASSERT_TRUE(stored >= 0 && stored < rows * cols && !seen[stored]);
      seen[stored] = true;
    }
  // Rows of one block width: blocked and unblocked agree.
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 64; ++c)
      EXPECT_EQ(blocked.applyToTile(r, c, 16, 64),
                plain.applyToTile(r, c, 16, 64));
}

TEST(SwizzleTest, PanelsStoreColumnPanelsWhole) {
  MLIRContext ctx;
  ctx.loadDialect<TileDialect>();
  auto panels = SwizzleAttr::get(&ctx, 3, 3, 3, /*blocked=*/true,
                                 /*panels=*/true);
  auto plain = SwizzleAttr::get(&ctx, 3, 3, 3);
  // A 24 x 192 f16 tile: three 64-column panels of 24 x 64 elements (what
  // one TMA box with the 128-byte swizzle writes), one after another;
  // inside a panel the XOR of an unblocked 64-wide tile.
  const int64_t rows = 24, cols = 192;
  std::vector<bool> seen(rows * cols, false);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      int64_t stored = panels.applyToTile(r, c, rows, cols);
      EXPECT_EQ(stored, (c / 64) * rows * 64 + plain.apply(r * 64 + c % 64))
          << r << ", " << c;
      ASSERT_TRUE(stored >= 0 && stored < rows * cols && !seen[stored]);
      seen[stored] = true;
    }
  // One panel wide: the same as the row-group-major blocked layout.
  auto blocked = SwizzleAttr::get(&ctx, 3, 3, 3, /*blocked=*/true);
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 64; ++c)
      EXPECT_EQ(panels.applyToTile(r, c, 16, 64),
                blocked.applyToTile(r, c, 16, 64));
}

TEST(SwizzleTest, XorPermutesWithinAPeriod) {
  MLIRContext ctx;
  ctx.loadDialect<TileDialect>();
  auto swizzle = SwizzleAttr::get(&ctx, 3, 3, 3); // 128-byte f16 swizzle
  EXPECT_EQ(swizzle.getPeriod(), 512);
  // Row r of 64 f16 elements: its 16-byte chunks are XOR-ed with r % 8.
  for (int64_t row = 0; row < 8; ++row)
    for (int64_t chunk = 0; chunk < 8; ++chunk) {
      int64_t offset = row * 64 + chunk * 8 + 5;
      EXPECT_EQ(swizzle.apply(offset), row * 64 + ((chunk ^ row) * 8) + 5);
    }
  // A bijection on each period.
  std::vector<bool> seen(512, false);
  for (int64_t o = 0; o < 512; ++o) {
    int64_t s = swizzle.apply(o);
    ASSERT_TRUE(s >= 0 && s < 512 && !seen[s]);
    seen[s] = true;
  }
}

TEST(FragmentLayoutTest, EvaluatesTheMaps) {
  MLIRContext ctx;
  ctx.loadDialect<TileDialect>();
  // The m16n8 accumulator of mma.sync for one warp.
  auto layout = dyn_cast_or_null<FragmentLayoutAttr>(parseAttribute(
      "#tile.fragment<[16, 8], thread = (i, j) -> ((i mod 8) * 4 + (j mod 8) "
      "floordiv 2), index = (i, j) -> ((i floordiv 8) * 2 + j mod 2), "
      "threads = 32>",
      &ctx));
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout.getThreadOf({9, 5}), 1 * 4 + 2);
  EXPECT_EQ(layout.getIndexOf({9, 5}), (SmallVector<int64_t>{3}));
  EXPECT_EQ(layout.getThreadsOf({9, 5}), (SmallVector<int64_t>{6}));
  EXPECT_FALSE(layout.hasReplicaDim());
}

TEST(FragmentLayoutTest, EnumeratesReplicas) {
  MLIRContext ctx;
  ctx.loadDialect<TileDialect>();
  // Row maxima of the accumulator: the four lanes of a row hold it.
  auto rows = dyn_cast_or_null<FragmentLayoutAttr>(parseAttribute(
      "#tile.fragment<[16], thread = (i, r) -> ((i mod 8) * 4 + r), "
      "index = (i) -> (i floordiv 8), threads = 32, replicate = 4>",
      &ctx));
  ASSERT_TRUE(rows);
  EXPECT_TRUE(rows.hasReplicaDim());
  EXPECT_EQ(rows.getThreadOf({9}), 4);
  EXPECT_EQ(rows.getThreadsOf({9}), (SmallVector<int64_t>{4, 5, 6, 7}));
  // The strided form: thread t + k * (threads / replicate).
  auto halves = dyn_cast_or_null<FragmentLayoutAttr>(parseAttribute(
      "#tile.fragment<[16], thread = (i) -> (i), index = (i) -> (0), "
      "threads = 32, replicate = 2>",
      &ctx));
  ASSERT_TRUE(halves);
  EXPECT_FALSE(halves.hasReplicaDim());
  EXPECT_EQ(halves.getThreadsOf({3}), (SmallVector<int64_t>{3, 19}));
}

TEST(SwizzleTest, LdmatrixSwizzlesAreConflictFree) {
  MLIRContext ctx;
  ctx.loadDialect<TileDialect>();
  // The swizzles tile-infer-layout gives f16 tiles with rows of 16 to 128
  // elements: the eight rows an ldmatrix reads at one logical 16-byte column
  // land in eight different 16-byte bank groups, and the tile is permuted.
  struct Case {
    int64_t rowElements;
    unsigned bits, base, shift;
  } cases[] = {{16, 1, 3, 3}, {32, 2, 3, 3}, {64, 3, 3, 3}, {128, 3, 3, 4}};
  for (const Case &c : cases) {
    auto swizzle = SwizzleAttr::get(&ctx, c.bits, c.base, c.shift);
    int64_t rows = 64, elements = rows * c.rowElements;
    std::set<int64_t> image;
    for (int64_t o = 0; o < elements; ++o)
      image.insert(swizzle.apply(o));
    EXPECT_EQ(int64_t(image.size()), elements) << c.rowElements;
    EXPECT_EQ(*image.rbegin(), elements - 1) << c.rowElements;
    for (int64_t row0 = 0; row0 < rows; row0 += 8)
      for (int64_t col = 0; col < c.rowElements; col += 8) {
        std::set<int64_t> groups;
        for (int64_t r = row0; r < row0 + 8; ++r)
          groups.insert(swizzle.apply(r * c.rowElements + col) * 2 / 16 % 8);
        EXPECT_EQ(groups.size(), 8u)
            << c.rowElements << " row " << row0 << " col " << col;
      }
  }
}

} // namespace
