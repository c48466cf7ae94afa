//===- SourceLimits.cpp - Input the MLIR parser reads in unbounded time --===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Support/SourceLimits.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir::tile;

/// Characters that continue an identifier, a keyword or a shape: a digit
/// after one of them is not the start of a literal (`i32`, `%arg0`,
/// `4x8xf32`, `#map1`, `1.5`).
static bool continuesName(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '%' ||
         c == '@' || c == '^' || c == '#' || c == '!';
}

std::optional<SourceLimitError>
mlir::tile::findOversizedLiteral(llvm::StringRef source) {
  unsigned line = 1;
  size_t lineStart = 0;
  size_t n = source.size();
  for (size_t i = 0; i < n;) {
    char c = source[i];
    if (c == '\n') {
      ++line;
      lineStart = ++i;
      continue;
    }
    // A comment runs to the end of the line.
    if (c == '/' && i + 1 < n && source[i + 1] == '/') {
      while (i < n && source[i] != '\n')
        ++i;
      continue;
    }
    // A string literal (dense resources and hex blobs are strings) runs to
    // its unescaped closing quote; the lexer ends it at a newline too.
    if (c == '"') {
      for (++i; i < n && source[i] != '"' && source[i] != '\n'; ++i)
        if (source[i] == '\\')
          ++i;
      if (i < n && source[i] == '"')
        ++i;
      continue;
    }
    if (!llvm::isDigit(c) || (i > 0 && continuesName(source[i - 1]))) {
      ++i;
      continue;
    }
    size_t start = i;
    bool hex = c == '0' && i + 1 < n && source[i + 1] == 'x' && i + 2 < n &&
               llvm::isHexDigit(source[i + 2]);
    if (hex)
      i += 2;
    while (i < n && (hex ? llvm::isHexDigit(source[i]) : llvm::isDigit(source[i])))
      ++i;
    size_t digits = i - start - (hex ? 2 : 0);
    if (digits > kMaxIntegerLiteralDigits) {
      SourceLimitError error;
      error.line = line;
      error.column = start - lineStart + 1;
      error.message = "a number of " + std::to_string(digits) +
                      " digits: at most " +
                      std::to_string(kMaxIntegerLiteralDigits) +
                      " are accepted (MLIR's parser takes time cubic in the "
                      "length of an integer literal)";
      return error;
    }
    // The rest of the token (a float's fraction, a shape's `x`) is not a
    // new literal.
    while (i < n && continuesName(source[i]))
      ++i;
  }
  return std::nullopt;
}
