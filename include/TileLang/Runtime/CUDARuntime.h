//===- CUDARuntime.h - CUDA driver runtime of JIT-compiled code -*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// The `mgpu*` functions that host code lowered by MLIR's gpu-to-llvm calls
// (same names and signatures as upstream MLIR's CUDA runtime wrappers),
// implemented over the CUDA driver API. libcuda.so.1 is opened with dlopen on
// first use, so the project builds and runs its CPU tests on machines without
// a driver; there, and on machines without a GPU, every call records an
// error instead of crashing, and `takeError` reports it.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_RUNTIME_CUDARUNTIME_H
#define TILELANG_RUNTIME_CUDARUNTIME_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <utility>

extern "C" {
void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, void *stream, void **params,
                             void **extra);
void *mgpuStreamCreate();
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate();
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream);
void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *rankedDescriptor,
                                     int64_t dataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims);
/// Makes this thread's next mgpuLaunchKernel / mgpuLaunchClusterKernel
/// launch with programmatic stream serialization (the host code of kernels
/// that wait on their grid dependencies calls it right before the launch:
/// tile-nvvm-programmatic-launch).
void tileProgrammaticLaunch();
/// A tile.assume whose condition is false: `message` becomes the error of
/// the call (runtime::takeError); the host code then returns.
void tileAssumeFailed(const char *message);
}

namespace mlir {
namespace tile {
namespace runtime {

/// Loads the driver, initializes it and makes the primary context of device
/// 0 current. Errors say what is missing: the driver library, a GPU, ...
llvm::Error initCUDA();

/// The compute capability of device 0 as major * 10 + minor (90 for H100
/// and H200).
llvm::Expected<int> getComputeCapability();

/// cuDeviceGetAttribute: the value of `attribute` (a CUdevice_attribute,
/// numbered as CUDA's runtime numbers its cudaDeviceAttr) of `device`.
/// Errors name a device out of range, a missing driver or what the driver
/// refused.
llvm::Expected<int> getDeviceAttribute(int attribute, int device);

/// The first error recorded by an mgpu* call on this thread since the last
/// call, or success. JIT-compiled code cannot return errors, so the driver
/// checks this after running it.
llvm::Error takeError();

/// The mgpu* functions by name, for the JIT's symbol table.
llvm::SmallVector<std::pair<llvm::StringRef, void *>> getSymbols();

/// Device memory for callers that hold host data (tile-run, tests), on the
/// launch target's device (runtime/Launch.h).
llvm::Expected<void *> allocate(size_t bytes);
void release(void *device);
llvm::Error copyToDevice(void *device, const void *host, size_t bytes);
llvm::Error copyToHost(void *host, const void *device, size_t bytes);

/// Device-side timing of the kernels the calling thread launches: from
/// startKernelTiming() on, every launch is bracketed by two events on its
/// stream; stopKernelTiming() waits for them and returns the milliseconds
/// the kernels took, summed (launch overhead and host synchronization
/// excluded, as CUDA-event timings of other libraries measure them).
void startKernelTiming();
llvm::Expected<double> stopKernelTiming();

/// Waits for all work on the launch target's device (every stream of its
/// primary context, including other libraries' on the same device).
llvm::Error synchronize();

/// Waits for the work queued on `stream` (of the launch target's device).
llvm::Error synchronizeStream(void *stream);

/// Whether `stream` (of the launch target's device) is being captured
/// into a CUDA graph.
llvm::Expected<bool> isCapturing(void *stream);

/// The number of CUDA devices the driver sees (at most kMaxDevices).
llvm::Expected<int> getDeviceCount();

} // namespace runtime
} // namespace tile
} // namespace mlir

#endif // TILELANG_RUNTIME_CUDARUNTIME_H
