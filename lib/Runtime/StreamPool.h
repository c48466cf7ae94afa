//===- StreamPool.h - Reused streams of the mgpu* runtimes -------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// JIT-compiled host code creates a stream for every call of a kernel
// function and destroys it after the final wait. Creating and destroying a
// driver stream costs tens of microseconds, more than a small kernel runs,
// so the CUDA and HIP runtimes keep destroyed streams here and hand them out
// again. Reuse is safe without a wait: work queued on a reused stream runs
// after what the stream already holds, which only orders more than needed.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_RUNTIME_STREAMPOOL_H
#define TILELANG_LIB_RUNTIME_STREAMPOOL_H

#include "llvm/ADT/SmallVector.h"

#include <mutex>

namespace mlir {
namespace tile {
namespace runtime {
namespace detail {

class StreamPool {
public:
  /// Streams kept at most; more concurrent calls than this create and
  /// destroy their extra streams.
  static constexpr unsigned kCapacity = 16;

  /// A kept stream, or null when none is free.
  void *take() {
    std::lock_guard<std::mutex> lock(mutex);
    return streams.empty() ? nullptr : streams.pop_back_val();
  }

  /// Keeps `stream` for a later take(); false when the pool is full and the
  /// caller must destroy it.
  bool give(void *stream) {
    std::lock_guard<std::mutex> lock(mutex);
    if (streams.size() >= kCapacity)
      return false;
    streams.push_back(stream);
    return true;
  }

private:
  std::mutex mutex;
  llvm::SmallVector<void *, kCapacity> streams;
};

} // namespace detail
} // namespace runtime
} // namespace tile
} // namespace mlir

#endif // TILELANG_LIB_RUNTIME_STREAMPOOL_H
