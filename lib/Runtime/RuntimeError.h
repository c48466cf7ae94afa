//===- RuntimeError.h - Errors of the mgpu* runtimes -------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// The error slot the CUDA and HIP runtimes share: JIT-compiled host code
// cannot take an error back, so a failing mgpu* call records the first
// message of the thread and `runtime::takeError` reports it.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_RUNTIME_RUNTIMEERROR_H
#define TILELANG_LIB_RUNTIME_RUNTIMEERROR_H

#include "llvm/ADT/Twine.h"

namespace mlir {
namespace tile {
namespace runtime {
namespace detail {

/// Records `message` unless an earlier error of this thread is pending.
void recordError(const llvm::Twine &message);

} // namespace detail
} // namespace runtime
} // namespace tile
} // namespace mlir

#endif // TILELANG_LIB_RUNTIME_RUNTIMEERROR_H
