//===- SourceLimitsTest.cpp - Oversized literals found before parsing ----===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Support/SourceLimits.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir::tile;

namespace {

std::string digits(size_t n, char c = '9') { return std::string(n, c); }

constexpr size_t kLimit = kMaxIntegerLiteralDigits;

TEST(SourceLimits, LiteralsUpToTheLimitPass) {
  EXPECT_FALSE(findOversizedLiteral(""));
  EXPECT_FALSE(findOversizedLiteral("%c = arith.constant " + digits(kLimit) +
                                    " : i64"));
  EXPECT_FALSE(findOversizedLiteral("x = 0x" + digits(kLimit, 'f')));
  EXPECT_FALSE(findOversizedLiteral("dense<[" + digits(kLimit) + ", " +
                                    digits(kLimit) + "]>"));
}

TEST(SourceLimits, ALongerLiteralIsFoundWithItsLocation) {
  std::string source = "func.func @f() {\n  %c = arith.constant -" +
                       digits(kLimit + 1) + " : i64\n}\n";
  auto error = findOversizedLiteral(source);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->line, 2u);
  EXPECT_EQ(error->column, 24u);
  EXPECT_NE(error->message.find(std::to_string(kLimit + 1) + " digits"),
            std::string::npos);
  // Hexadecimal digits count without the prefix; decimal ones stop at the
  // first non-digit.
  EXPECT_TRUE(findOversizedLiteral("[0x" + digits(kLimit + 1, 'a') + "]"));
  EXPECT_FALSE(findOversizedLiteral("[0x" + digits(kLimit, 'a') + "]"));
  EXPECT_TRUE(findOversizedLiteral("(" + digits(kLimit + 1) + ")"));
  EXPECT_TRUE(findOversizedLiteral(digits(kLimit + 1)));
  // The integer part of a float is a number too.
  EXPECT_TRUE(findOversizedLiteral("x = " + digits(kLimit + 1) + ".5"));
}

TEST(SourceLimits, LinesAndColumnsAreCountedAfterEarlierTokens) {
  std::string source = "// " + digits(5000) + "\n\"a\\\"" + digits(5000) +
                       "\"\n  [1, 2, " + digits(kLimit + 1) + "]";
  auto error = findOversizedLiteral(source);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->line, 3u);
  EXPECT_EQ(error->column, 10u);
}

TEST(SourceLimits, DigitsThatAreNotLiteralsAreIgnored) {
  std::string many = digits(100000);
  for (std::string source :
       {"// " + many, "\"" + many + "\"", "\"\\\"" + many + "\"",
        "%" + many + " = x", "%arg" + many, "@f" + many, "^bb" + many,
        "#map" + many, "!t" + many, "i" + many, "memref<4x" + many + "xf32>",
        "1." + many, "name_" + many, "a$" + many})
    EXPECT_FALSE(findOversizedLiteral(source)) << source.substr(0, 12);
  // A string ends at a newline: what follows is read again.
  EXPECT_TRUE(findOversizedLiteral("\"open\n" + digits(kLimit + 1)));
}

} // namespace
