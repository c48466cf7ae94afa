//===- CheckedSize.h - Element counts and byte sizes without overflow -*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// Every product of extents (element counts, byte sizes of tiles, buffers,
// .npy payloads) goes through these helpers: a product that does not fit in
// int64_t is nullopt, never a wrapped value that allocates a small buffer
// for a kernel told it is huge.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_SUPPORT_CHECKEDSIZE_H
#define TILELANG_SUPPORT_CHECKEDSIZE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CheckedArithmetic.h" // (for the helpers' users)
#include "llvm/Support/MathExtras.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace tile {

/// The number of elements of `shape` (1 for rank 0), or nullopt when an
/// extent is negative or the product overflows int64_t.
inline std::optional<int64_t> getCheckedElementCount(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t extent : shape) {
    if (extent < 0)
      return std::nullopt;
    // (The compiler's overflow builtin: llvm::checkedMul goes through
    // APInt, and every kernel call checks its buffers' sizes.)
    if (llvm::MulOverflow(count, extent, count))
      return std::nullopt;
  }
  return count;
}

/// The bytes of `shape` elements of `elementBytes` each, or nullopt on
/// overflow (or a negative extent).
inline std::optional<int64_t> getCheckedByteSize(llvm::ArrayRef<int64_t> shape,
                                                 int64_t elementBytes) {
  std::optional<int64_t> count = getCheckedElementCount(shape);
  if (!count)
    return std::nullopt;
  int64_t bytes;
  if (llvm::MulOverflow(*count, elementBytes, bytes))
    return std::nullopt;
  return bytes;
}

} // namespace tile
} // namespace mlir

#endif // TILELANG_SUPPORT_CHECKEDSIZE_H
