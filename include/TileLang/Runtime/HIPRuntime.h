//===- HIPRuntime.h - HIP runtime of JIT-compiled code ----------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// The HIP twin of CUDARuntime.h: the `mgpu*` functions the host code of
// ROCm kernels calls (same names and signatures as upstream MLIR's ROCm
// runtime wrappers), implemented over the HIP runtime, which is opened with
// dlopen (libamdhip64.so) on first use. They are not exported under their C
// names (the CUDA runtime owns those in this process): the JIT binds them to
// the host code of ROCm targets through `getSymbols`. Without the HIP
// runtime or an AMD GPU every call records an error (reported by the shared
// `runtime::takeError`) instead of crashing.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_RUNTIME_HIPRUNTIME_H
#define TILELANG_RUNTIME_HIPRUNTIME_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <string>
#include <utility>

namespace mlir {
namespace tile {
namespace runtime {
namespace hip {

/// Loads the HIP runtime and selects device 0. Errors say what is missing:
/// the runtime library, a GPU, ...
llvm::Error initHIP();

/// The mgpu* functions by name, for the JIT's symbol table of ROCm targets.
llvm::SmallVector<std::pair<llvm::StringRef, void *>> getSymbols();

/// Device memory for callers that hold host data.
llvm::Expected<void *> allocate(size_t bytes);
void release(void *device);
llvm::Error copyToDevice(void *device, const void *host, size_t bytes);
llvm::Error copyToHost(void *host, const void *device, size_t bytes);

/// Waits for all work on the current device (hipDeviceSynchronize).
llvm::Error synchronize();

/// Waits for the work queued on `stream` (hipStreamSynchronize).
llvm::Error synchronizeStream(void *stream);

/// The GPU architecture an AMDGPU code object (ELF64, EM_AMDGPU) is built
/// for, from its header's e_flags ("gfx942"; "amdgcn mach 0x.." for one
/// this table does not name); empty when `object` is not such a file.
/// Module loads that fail name it, so an architecture mismatch is plain.
std::string getCodeObjectArch(llvm::StringRef object);

} // namespace hip
} // namespace runtime
} // namespace tile
} // namespace mlir

#endif // TILELANG_RUNTIME_HIPRUNTIME_H
