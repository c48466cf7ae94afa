//===- SourceLimits.h - Input the MLIR parser reads in unbounded time -*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// MLIR's parser converts an integer literal with StringRef::getAsInteger
// into an APInt as wide as the literal, one full-width multiply per digit:
// the time grows with the cube of its length (8,000 digits take seconds, a
// million never finish). The tools and the JIT scan their input for such
// literals first and refuse them with a located error.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_SUPPORT_SOURCELIMITS_H
#define TILELANG_SUPPORT_SOURCELIMITS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
namespace tile {

/// The most digits an integer literal may have: every value of an i1024 in
/// decimal (309 digits) and of an i1280 in hexadecimal (the dialect's
/// widest integers are 64 bits). A file of literals this long parses at
/// 0.4 s per MB (2 s per MB at 1024 digits, 0.15 s at 64).
inline constexpr size_t kMaxIntegerLiteralDigits = 320;

/// Where the source breaks a limit (1-based line and column) and why.
struct SourceLimitError {
  unsigned line = 0;
  unsigned column = 0;
  std::string message;
};

/// The first integer literal of MLIR source text `source` with more than
/// kMaxIntegerLiteralDigits digits, if any. Reads the text once, as MLIR's
/// lexer does: digits inside string literals, comments, identifiers and
/// shapes (`4x8xf32`) are not literals.
std::optional<SourceLimitError> findOversizedLiteral(llvm::StringRef source);

} // namespace tile
} // namespace mlir

#endif // TILELANG_SUPPORT_SOURCELIMITS_H
