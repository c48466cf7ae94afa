//===- CheckedSizeTest.cpp - Element counts and byte sizes ---------------===//
//
// Part of TileLang-MLIR.
//
// getCheckedElementCount / getCheckedByteSize: exact products up to
// INT64_MAX, nullopt for anything past it or a negative extent (every
// kernel call checks its buffers' sizes through them).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Support/CheckedSize.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

using mlir::tile::getCheckedByteSize;
using mlir::tile::getCheckedElementCount;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(CheckedSizeTest, CountsExactly) {
  EXPECT_EQ(getCheckedElementCount({}), 1);
  EXPECT_EQ(getCheckedElementCount({0, kMax}), 0);
  EXPECT_EQ(getCheckedElementCount({3, 5, 7}), 105);
  EXPECT_EQ(getCheckedElementCount({int64_t(1) << 31, int64_t(1) << 31}),
            int64_t(1) << 62);
  EXPECT_EQ(getCheckedElementCount({kMax}), kMax);
  EXPECT_EQ(getCheckedByteSize({4096, 4096}, 2), int64_t(1) << 25);
  EXPECT_EQ(getCheckedByteSize({}, 8), 8);
}

TEST(CheckedSizeTest, RefusesOverflowAndNegativeExtents) {
  EXPECT_EQ(getCheckedElementCount({int64_t(1) << 62, 2}), std::nullopt);
  EXPECT_EQ(getCheckedElementCount({kMax, 2}), std::nullopt);
  EXPECT_EQ(getCheckedElementCount({int64_t(1) << 32, int64_t(1) << 32}),
            std::nullopt);
  EXPECT_EQ(getCheckedElementCount({4, -1}), std::nullopt);
  // A negative extent is refused even after a zero one.
  EXPECT_EQ(getCheckedElementCount({0, -3}), std::nullopt);
  // The count fits, the bytes do not.
  EXPECT_EQ(getCheckedByteSize({int64_t(1) << 60}, 8), std::nullopt);
  EXPECT_EQ(getCheckedByteSize({(int64_t(1) << 60) - 1}, 8),
            ((int64_t(1) << 60) - 1) * 8);
  EXPECT_EQ(getCheckedByteSize({kMax / 2 + 1}, 2), std::nullopt);
}

} // namespace
