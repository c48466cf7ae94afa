//===- HIPRuntime.cpp - HIP runtime of JIT-compiled code -----------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Runtime/HIPRuntime.h"

#include "RuntimeError.h"
#include "StreamPool.h"
#include "TileLang/Runtime/CUDARuntime.h"
#include "TileLang/Runtime/Launch.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"

#include <dlfcn.h>
#include <mutex>
#include <optional>
#include <string>

using namespace mlir::tile;
using runtime::detail::recordError;
using runtime::detail::StreamPool;

//===----------------------------------------------------------------------===//
// The HIP runtime API, resolved with dlopen (no hip headers needed to build)
//===----------------------------------------------------------------------===//

namespace {
using hipError_t = int;
constexpr hipError_t hipSuccess = 0;
constexpr int hipMemcpyDefault = 4;
constexpr unsigned hipMemAttachGlobal = 1;

struct Runtime {
  hipError_t (*hipInit)(unsigned);
  const char *(*hipGetErrorString)(hipError_t);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipModuleLoadData)(void **, const void *);
  hipError_t (*hipModuleUnload)(void *);
  hipError_t (*hipModuleGetFunction)(void **, void *, const char *);
  hipError_t (*hipModuleLaunchKernel)(void *, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      void *, void **, void **);
  hipError_t (*hipStreamCreate)(void **);
  hipError_t (*hipStreamDestroy)(void *);
  hipError_t (*hipStreamSynchronize)(void *);
  hipError_t (*hipStreamWaitEvent)(void *, void *, unsigned);
  hipError_t (*hipEventCreate)(void **);
  hipError_t (*hipEventDestroy)(void *);
  hipError_t (*hipEventSynchronize)(void *);
  hipError_t (*hipEventRecord)(void *, void *);
  hipError_t (*hipMalloc)(void **, size_t);
  hipError_t (*hipMallocManaged)(void **, size_t, unsigned);
  hipError_t (*hipFree)(void *);
  hipError_t (*hipMemcpy)(void *, const void *, size_t, int);
  hipError_t (*hipDeviceSynchronize)();
  hipError_t (*hipMemcpyAsync)(void *, const void *, size_t, int, void *);
  hipError_t (*hipMemsetD32Async)(void *, int, size_t, void *);
};

/// Loads libamdhip64 and selects device 0, once per process. On failure
/// `runtime` is null and `failure` says why.
struct RuntimeState {
  Runtime api;
  Runtime *runtime = nullptr;
  std::string failure;
};

RuntimeState &getState() {
  static RuntimeState state;
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = runtime::detail::openLibrary(
        {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"},
        "no HIP runtime", state.failure);
    if (!lib)
      return;
    bool complete = true;
    auto bind = [&](auto &fn, const char *name) {
      complete &= runtime::detail::bindSymbol(lib, fn, name, "the HIP runtime",
                                              "update ROCm", state.failure);
    };
    Runtime &r = state.api;
    bind(r.hipInit, "hipInit");
    bind(r.hipGetErrorString, "hipGetErrorString");
    bind(r.hipGetDeviceCount, "hipGetDeviceCount");
    bind(r.hipSetDevice, "hipSetDevice");
    bind(r.hipModuleLoadData, "hipModuleLoadData");
    bind(r.hipModuleUnload, "hipModuleUnload");
    bind(r.hipModuleGetFunction, "hipModuleGetFunction");
    bind(r.hipModuleLaunchKernel, "hipModuleLaunchKernel");
    bind(r.hipStreamCreate, "hipStreamCreate");
    bind(r.hipStreamDestroy, "hipStreamDestroy");
    bind(r.hipStreamSynchronize, "hipStreamSynchronize");
    bind(r.hipStreamWaitEvent, "hipStreamWaitEvent");
    bind(r.hipEventCreate, "hipEventCreate");
    bind(r.hipEventDestroy, "hipEventDestroy");
    bind(r.hipEventSynchronize, "hipEventSynchronize");
    bind(r.hipEventRecord, "hipEventRecord");
    bind(r.hipMalloc, "hipMalloc");
    bind(r.hipMallocManaged, "hipMallocManaged");
    bind(r.hipFree, "hipFree");
    bind(r.hipMemcpy, "hipMemcpy");
    bind(r.hipDeviceSynchronize, "hipDeviceSynchronize");
    bind(r.hipMemcpyAsync, "hipMemcpyAsync");
    bind(r.hipMemsetD32Async, "hipMemsetD32Async");
    if (!complete)
      return;
    auto fail = [&](const char *what, hipError_t result) {
      const char *message = r.hipGetErrorString(result);
      state.failure = std::string(what) + ": " +
                      (message ? message : "HIP error " +
                                               std::to_string(result));
    };
    if (hipError_t e = r.hipInit(0); e != hipSuccess)
      return fail("cannot initialize the HIP runtime (hipInit)", e);
    int count = 0;
    if (hipError_t e = r.hipGetDeviceCount(&count); e != hipSuccess)
      return fail("cannot count HIP devices", e);
    if (count == 0) {
      state.failure = "no AMD GPU: the HIP runtime sees no device";
      return;
    }
    if (hipError_t e = r.hipSetDevice(0); e != hipSuccess)
      return fail("cannot select HIP device 0", e);
    state.runtime = &state.api;
  });
  return state;
}

/// The runtime with device 0 current on this thread, or null after
/// recording why not (a launch target on another device among the reasons:
/// modules are loaded on device 0 only).
Runtime *hipRuntime(const char *caller) {
  RuntimeState &state = getState();
  if (!state.runtime) {
    recordError(llvm::Twine(caller) + ": " + state.failure);
    return nullptr;
  }
  if (int device = runtime::getLaunchTarget().device; device != 0) {
    recordError(llvm::Twine(caller) + ": ROCm kernels run on device 0, not " +
                llvm::Twine(device) + " (modules are loaded there only)");
    return nullptr;
  }
  state.runtime->hipSetDevice(0);
  return state.runtime;
}

/// Records a failed runtime call; returns true on success.
bool check(Runtime *r, hipError_t result, const char *what) {
  if (result == hipSuccess)
    return true;
  const char *message = r->hipGetErrorString(result);
  recordError(llvm::Twine(what) + " failed: " +
              (message ? message : "HIP error " + std::to_string(result)));
  return false;
}

//===----------------------------------------------------------------------===//
// mgpu* wrappers (upstream's ROCm runtime signatures)
//===----------------------------------------------------------------------===//

void *moduleLoad(void *data, size_t size) {
  Runtime *r = hipRuntime("mgpuModuleLoad");
  void *module = nullptr;
  if (!r)
    return nullptr;
  // A failed load names the code object's architecture (the usual cause:
  // compiled for another chip than this GPU's).
  std::string arch = runtime::hip::getCodeObjectArch(
      llvm::StringRef(static_cast<const char *>(data), size));
  std::string what = "hipModuleLoadData";
  if (!arch.empty())
    what += " (a code object for " + arch + ")";
  check(r, r->hipModuleLoadData(&module, data), what.c_str());
  return module;
}

void *moduleLoadJIT(void *data, int /*optLevel*/) {
  recordError("mgpuModuleLoadJIT: ROCm code objects are loaded, not JIT-"
              "compiled from assembly");
  return nullptr;
}

void moduleUnload(void *module) {
  if (Runtime *r = hipRuntime("mgpuModuleUnload"); r && module)
    check(r, r->hipModuleUnload(module), "hipModuleUnload");
}

void *moduleGetFunction(void *module, const char *name) {
  Runtime *r = hipRuntime("mgpuModuleGetFunction");
  void *function = nullptr;
  if (!r)
    return nullptr;
  if (!module) {
    recordError(llvm::Twine("mgpuModuleGetFunction: no module to look up ") +
                name + " in");
    return nullptr;
  }
  check(r, r->hipModuleGetFunction(&function, module, name),
        "hipModuleGetFunction");
  return function;
}

void launchKernel(void *function, intptr_t gridX, intptr_t gridY,
                  intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                  intptr_t blockZ, int32_t smem, void *stream, void **params,
                  void **extra, size_t /*paramsCount*/) {
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return; // An empty grid (a size-0 input) launches nothing.
  Runtime *r = hipRuntime("mgpuLaunchKernel");
  if (!r)
    return;
  if (!function) {
    recordError("cannot launch a kernel that failed to load");
    return;
  }
  check(r,
        r->hipModuleLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                                 blockZ, smem, stream, params, extra),
        "hipModuleLaunchKernel");
}

void launchClusterKernel(void *, intptr_t, intptr_t, intptr_t, intptr_t,
                         intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
                         int32_t, void *, void **, void **) {
  recordError("mgpuLaunchClusterKernel: AMD GPUs have no thread block "
              "clusters");
}

StreamPool &streamPool() {
  static StreamPool pool;
  return pool;
}

void *tensorMapEncodeTiled(int64_t, void *, int64_t, int64_t, int64_t,
                           int64_t, int64_t, int64_t *) {
  recordError("mgpuTensorMapEncodeTiledMemref: AMD GPUs have no tensor "
              "memory accelerator (TMA descriptors are NVIDIA sm_90 only)");
  return nullptr;
}

/// No tensor maps on AMD GPUs: kernels copy without TMA (they are never
/// compiled to ask, since only the sm_90 lowering does).
uint64_t tensorMapEncode(uint64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t) {
  return 0;
}

/// Persistent kernels on AMD GPUs run one block (correct, not fast): the
/// HIP twin does not query the compute-unit count yet.
int64_t multiprocessorCount() { return 1; }

/// Whether `stream` is the caller's (the launch target's): the host code
/// launches there and neither waits for nor destroys it.
bool isCallerStream(void *stream) {
  const std::optional<void *> &target = runtime::getLaunchTarget().stream;
  return target && *target == stream;
}

void *streamCreate() {
  if (std::optional<void *> stream = runtime::getLaunchTarget().stream)
    return *stream;
  Runtime *r = hipRuntime("mgpuStreamCreate");
  if (!r)
    return nullptr;
  if (void *stream = streamPool().take())
    return stream;
  void *stream = nullptr;
  check(r, r->hipStreamCreate(&stream), "hipStreamCreate");
  return stream;
}

void streamDestroy(void *stream) {
  if (isCallerStream(stream))
    return;
  if (Runtime *r = hipRuntime("mgpuStreamDestroy");
      r && stream && !streamPool().give(stream))
    check(r, r->hipStreamDestroy(stream), "hipStreamDestroy");
}

void streamSynchronize(void *stream) {
  if (isCallerStream(stream))
    return;
  if (Runtime *r = hipRuntime("mgpuStreamSynchronize"))
    check(r, r->hipStreamSynchronize(stream), "hipStreamSynchronize");
}

void streamWaitEvent(void *stream, void *event) {
  if (Runtime *r = hipRuntime("mgpuStreamWaitEvent"))
    check(r, r->hipStreamWaitEvent(stream, event, 0), "hipStreamWaitEvent");
}

void *eventCreate() {
  Runtime *r = hipRuntime("mgpuEventCreate");
  void *event = nullptr;
  if (r)
    check(r, r->hipEventCreate(&event), "hipEventCreate");
  return event;
}

void eventDestroy(void *event) {
  if (Runtime *r = hipRuntime("mgpuEventDestroy"); r && event)
    check(r, r->hipEventDestroy(event), "hipEventDestroy");
}

void eventSynchronize(void *event) {
  if (Runtime *r = hipRuntime("mgpuEventSynchronize"))
    check(r, r->hipEventSynchronize(event), "hipEventSynchronize");
}

void eventRecord(void *event, void *stream) {
  if (Runtime *r = hipRuntime("mgpuEventRecord"))
    check(r, r->hipEventRecord(event, stream), "hipEventRecord");
}

void *memAlloc(uint64_t sizeBytes, void * /*stream*/, bool isHostShared) {
  Runtime *r = hipRuntime("mgpuMemAlloc");
  void *ptr = nullptr;
  if (!r || sizeBytes == 0)
    return ptr;
  if (isHostShared)
    check(r, r->hipMallocManaged(&ptr, sizeBytes, hipMemAttachGlobal),
          "hipMallocManaged");
  else
    check(r, r->hipMalloc(&ptr, sizeBytes), "hipMalloc");
  return ptr;
}

void memFree(void *ptr, void * /*stream*/) {
  if (Runtime *r = hipRuntime("mgpuMemFree"); r && ptr)
    check(r, r->hipFree(ptr), "hipFree");
}

void memCopy(void *dst, void *src, size_t sizeBytes, void *stream) {
  if (Runtime *r = hipRuntime("mgpuMemcpy"))
    check(r, r->hipMemcpyAsync(dst, src, sizeBytes, hipMemcpyDefault, stream),
          "hipMemcpyAsync");
}

void memset32(void *dst, unsigned int value, size_t count, void *stream) {
  if (Runtime *r = hipRuntime("mgpuMemset32"))
    check(r, r->hipMemsetD32Async(dst, static_cast<int>(value), count, stream),
          "hipMemsetD32Async");
}

/// Host to device or back, synchronously.
llvm::Error copy(void *dst, const void *src, size_t bytes, const char *what) {
  if (llvm::Error err = runtime::hip::initHIP())
    return err;
  if (Runtime *r = hipRuntime(what))
    check(r, r->hipMemcpy(dst, src, bytes, hipMemcpyDefault), what);
  return runtime::takeError();
}
} // namespace

//===----------------------------------------------------------------------===//
// C++ API
//===----------------------------------------------------------------------===//

llvm::Error runtime::hip::initHIP() {
  RuntimeState &state = getState();
  if (!state.runtime)
    return llvm::createStringError(state.failure);
  return llvm::Error::success();
}

llvm::SmallVector<std::pair<llvm::StringRef, void *>>
runtime::hip::getSymbols() {
  return {
      {"mgpuModuleLoad", reinterpret_cast<void *>(&moduleLoad)},
      {"mgpuModuleLoadJIT", reinterpret_cast<void *>(&moduleLoadJIT)},
      {"mgpuModuleUnload", reinterpret_cast<void *>(&moduleUnload)},
      {"mgpuModuleGetFunction", reinterpret_cast<void *>(&moduleGetFunction)},
      {"mgpuLaunchKernel", reinterpret_cast<void *>(&launchKernel)},
      {"mgpuLaunchClusterKernel",
       reinterpret_cast<void *>(&launchClusterKernel)},
      {"mgpuStreamCreate", reinterpret_cast<void *>(&streamCreate)},
      {"mgpuStreamDestroy", reinterpret_cast<void *>(&streamDestroy)},
      {"mgpuStreamSynchronize", reinterpret_cast<void *>(&streamSynchronize)},
      {"mgpuStreamWaitEvent", reinterpret_cast<void *>(&streamWaitEvent)},
      {"mgpuEventCreate", reinterpret_cast<void *>(&eventCreate)},
      {"mgpuEventDestroy", reinterpret_cast<void *>(&eventDestroy)},
      {"mgpuEventSynchronize", reinterpret_cast<void *>(&eventSynchronize)},
      {"mgpuEventRecord", reinterpret_cast<void *>(&eventRecord)},
      {"mgpuMemAlloc", reinterpret_cast<void *>(&memAlloc)},
      {"mgpuMemFree", reinterpret_cast<void *>(&memFree)},
      {"mgpuMemcpy", reinterpret_cast<void *>(&memCopy)},
      {"mgpuMemset32", reinterpret_cast<void *>(&memset32)},
      {"mgpuTensorMapEncodeTiledMemref",
       reinterpret_cast<void *>(&tensorMapEncodeTiled)},
      {"tileTensorMapEncode", reinterpret_cast<void *>(&tensorMapEncode)},
      {"tileMultiprocessorCount",
       reinterpret_cast<void *>(&multiprocessorCount)},
      // Target-independent (CUDARuntime.cpp).
      {"tileAssumeFailed", reinterpret_cast<void *>(&tileAssumeFailed)},
  };
}

std::string runtime::hip::getCodeObjectArch(llvm::StringRef object) {
  using namespace llvm::ELF;
  // ELF64 little-endian header: e_machine at 18, e_flags at 48.
  if (object.size() < 64 || !object.starts_with("\x7f" "ELF") ||
      object[EI_CLASS] != ELFCLASS64 || object[EI_DATA] != ELFDATA2LSB)
    return "";
  auto read = [&](size_t offset, size_t bytes) {
    uint32_t value = 0;
    for (size_t i = 0; i < bytes; ++i)
      value |= uint32_t(static_cast<unsigned char>(object[offset + i]))
               << (8 * i);
    return value;
  };
  if (read(18, 2) != EM_AMDGPU)
    return "";
  unsigned mach = read(48, 4) & EF_AMDGPU_MACH;
  switch (mach) {
  case EF_AMDGPU_MACH_AMDGCN_GFX908:
    return "gfx908";
  case EF_AMDGPU_MACH_AMDGCN_GFX90A:
    return "gfx90a";
  case EF_AMDGPU_MACH_AMDGCN_GFX942:
    return "gfx942";
  case EF_AMDGPU_MACH_AMDGCN_GFX950:
    return "gfx950";
  case EF_AMDGPU_MACH_AMDGCN_GFX1100:
    return "gfx1100";
  case EF_AMDGPU_MACH_AMDGCN_GFX1101:
    return "gfx1101";
  case EF_AMDGPU_MACH_AMDGCN_GFX1102:
    return "gfx1102";
  case EF_AMDGPU_MACH_AMDGCN_GFX1200:
    return "gfx1200";
  case EF_AMDGPU_MACH_AMDGCN_GFX1201:
    return "gfx1201";
  default:
    return "amdgcn mach " + llvm::utohexstr(mach, /*LowerCase=*/true);
  }
}

llvm::Expected<void *> runtime::hip::allocate(size_t bytes) {
  if (llvm::Error err = initHIP())
    return std::move(err);
  void *ptr = memAlloc(bytes, nullptr, false);
  if (llvm::Error err = runtime::takeError())
    return std::move(err);
  return ptr;
}

void runtime::hip::release(void *device) {
  memFree(device, nullptr);
  llvm::consumeError(runtime::takeError());
}

llvm::Error runtime::hip::copyToDevice(void *device, const void *host,
                                       size_t bytes) {
  if (bytes == 0)
    return llvm::Error::success(); // An empty tensor: nothing to move.
  return copy(device, host, bytes, "hipMemcpy (host to device)");
}

llvm::Error runtime::hip::copyToHost(void *host, const void *device,
                                     size_t bytes) {
  if (bytes == 0)
    return llvm::Error::success(); // An empty tensor: nothing to move.
  return copy(host, device, bytes, "hipMemcpy (device to host)");
}

llvm::Error runtime::hip::synchronize() {
  if (llvm::Error err = initHIP())
    return err;
  if (Runtime *r = hipRuntime("synchronize"))
    check(r, r->hipDeviceSynchronize(), "hipDeviceSynchronize");
  return runtime::takeError();
}

llvm::Error runtime::hip::synchronizeStream(void *stream) {
  if (llvm::Error err = initHIP())
    return err;
  if (Runtime *r = hipRuntime("synchronizeStream"))
    check(r, r->hipStreamSynchronize(stream), "hipStreamSynchronize");
  return runtime::takeError();
}
