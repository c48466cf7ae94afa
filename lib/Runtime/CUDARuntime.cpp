//===- CUDARuntime.cpp - CUDA driver runtime of JIT-compiled code -------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Runtime/CUDARuntime.h"
#include "TileLang/Runtime/Launch.h"

#include "RuntimeError.h"
#include "StreamPool.h"

#include "llvm/ADT/Twine.h"

#include <dlfcn.h>
#include <array>
#include <atomic>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// The driver API, resolved with dlopen (no cuda.h needed to build)
//===----------------------------------------------------------------------===//

namespace {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
constexpr CUresult CUDA_SUCCESS = 0;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
constexpr unsigned CU_EVENT_DEFAULT = 0;
constexpr int CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14;
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;
constexpr int CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;
constexpr CUresult CUDA_ERROR_NOT_SUPPORTED = 801;
/// CUstreamCaptureMode / CUstreamCaptureStatus values.
constexpr int CU_STREAM_CAPTURE_MODE_RELAXED = 2;
constexpr int CU_STREAM_CAPTURE_STATUS_NONE = 0;
/// Clusters of more blocks than this need a per-function opt-in.
constexpr intptr_t kPortableClusterSize = 8;

/// The driver's launch attribute and configuration records (cuda.h,
/// CUDA 12 and later): an attribute is an id padded to 8 bytes and a 64-byte
/// value union, of which a cluster dimension uses the first three words and
/// programmatic stream serialization the first.
struct CUlaunchAttribute {
  int id;
  char pad[4];
  union {
    char raw[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
    int programmaticStreamSerializationAllowed;
  } value;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "cuda.h layout");
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void *hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};
/// Dynamic shared memory a kernel may use without opting in.
constexpr int32_t kDefaultDynamicSharedLimit = 48 * 1024;
/// Static shared memory a kernel may have besides its tiles.
constexpr int32_t kStaticSharedAllowance = 1024;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(void **, CUdevice);
  CUresult (*cuCtxSetCurrent)(void *);
  CUresult (*cuModuleLoadData)(void **, const void *);
  CUresult (*cuModuleUnload)(void *);
  CUresult (*cuModuleGetFunction)(void **, void *, const char *);
  CUresult (*cuFuncSetAttribute)(void *, int, int);
  CUresult (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, void *, void **,
                             void **);
  /// Optional (CUDA 12+): only launches with thread block clusters need it.
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *, void *, void **,
                               void **);
  CUresult (*cuStreamCreate)(void **, unsigned);
  CUresult (*cuStreamDestroy)(void *);
  CUresult (*cuStreamSynchronize)(void *);
  CUresult (*cuStreamWaitEvent)(void *, void *, unsigned);
  CUresult (*cuEventCreate)(void **, unsigned);
  CUresult (*cuEventDestroy)(void *);
  CUresult (*cuEventSynchronize)(void *);
  CUresult (*cuEventRecord)(void *, void *);
  CUresult (*cuEventElapsedTime)(float *, void *, void *);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpy)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, void *);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, void *);
  /// Optional (CUDA 12+, sm_90): only TMA descriptors need it.
  /// Optional (CUDA 10+): graph capture awareness.
  CUresult (*cuStreamIsCapturing)(void *, int *);
  CUresult (*cuThreadExchangeStreamCaptureMode)(int *);
  CUresult (*cuTensorMapEncodeTiled)(void *tensorMap, int dataType,
                                     uint32_t rank, void *address,
                                     const uint64_t *dims,
                                     const uint64_t *strides,
                                     const uint32_t *box,
                                     const uint32_t *elementStrides,
                                     int interleave, int swizzle,
                                     int l2Promotion, int oobFill);
};

/// Loads libcuda.so.1 and initializes device 0, once per process. On
/// failure `driver` is null and `failure` says why. The primary contexts of
/// other devices are retained when a launch target first names them.
struct DriverState {
  Driver api;
  Driver *driver = nullptr;
  int deviceCount = 0;
  std::array<std::atomic<void *>, runtime::kMaxDevices> contexts{};
  std::mutex contextMutex;
  std::string failure;
};

DriverState &getState() {
  static DriverState state;
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = runtime::detail::openLibrary({"libcuda.so.1"}, "no CUDA driver",
                                             state.failure);
    if (!lib)
      return;
    bool complete = true;
    auto bind = [&](auto &fn, const char *name) {
      complete &= runtime::detail::bindSymbol(lib, fn, name, "the CUDA driver",
                                              "update the driver",
                                              state.failure);
    };
    Driver &d = state.api;
    bind(d.cuInit, "cuInit");
    bind(d.cuGetErrorString, "cuGetErrorString");
    bind(d.cuDeviceGetCount, "cuDeviceGetCount");
    bind(d.cuDeviceGet, "cuDeviceGet");
    bind(d.cuDeviceGetAttribute, "cuDeviceGetAttribute");
    bind(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    bind(d.cuCtxSetCurrent, "cuCtxSetCurrent");
    bind(d.cuModuleLoadData, "cuModuleLoadData");
    bind(d.cuModuleUnload, "cuModuleUnload");
    bind(d.cuModuleGetFunction, "cuModuleGetFunction");
    bind(d.cuFuncSetAttribute, "cuFuncSetAttribute");
    bind(d.cuLaunchKernel, "cuLaunchKernel");
    bind(d.cuStreamCreate, "cuStreamCreate");
    bind(d.cuStreamDestroy, "cuStreamDestroy_v2");
    bind(d.cuStreamSynchronize, "cuStreamSynchronize");
    bind(d.cuStreamWaitEvent, "cuStreamWaitEvent");
    bind(d.cuEventCreate, "cuEventCreate");
    bind(d.cuEventDestroy, "cuEventDestroy_v2");
    bind(d.cuEventSynchronize, "cuEventSynchronize");
    bind(d.cuEventRecord, "cuEventRecord");
    bind(d.cuEventElapsedTime, "cuEventElapsedTime");
    bind(d.cuMemAlloc, "cuMemAlloc_v2");
    bind(d.cuMemFree, "cuMemFree_v2");
    bind(d.cuMemcpy, "cuMemcpy");
    bind(d.cuCtxSynchronize, "cuCtxSynchronize");
    bind(d.cuMemcpyAsync, "cuMemcpyAsync");
    bind(d.cuMemsetD32Async, "cuMemsetD32Async");
    if (!complete)
      return;
    d.cuLaunchKernelEx = reinterpret_cast<decltype(d.cuLaunchKernelEx)>(
        dlsym(lib, "cuLaunchKernelEx"));
    d.cuStreamIsCapturing = reinterpret_cast<decltype(d.cuStreamIsCapturing)>(
        dlsym(lib, "cuStreamIsCapturing"));
    d.cuThreadExchangeStreamCaptureMode =
        reinterpret_cast<decltype(d.cuThreadExchangeStreamCaptureMode)>(
            dlsym(lib, "cuThreadExchangeStreamCaptureMode"));
    d.cuTensorMapEncodeTiled =
        reinterpret_cast<decltype(d.cuTensorMapEncodeTiled)>(
            dlsym(lib, "cuTensorMapEncodeTiled"));
    auto fail = [&](const char *what, CUresult result) {
      const char *message = nullptr;
      d.cuGetErrorString(result, &message);
      state.failure = std::string(what) + ": " +
                      (message ? message : "CUDA error " +
                                               std::to_string(result));
    };
    if (CUresult r = d.cuInit(0); r != CUDA_SUCCESS)
      return fail("cannot initialize the CUDA driver (cuInit)", r);
    int count = 0;
    if (CUresult r = d.cuDeviceGetCount(&count); r != CUDA_SUCCESS)
      return fail("cannot count CUDA devices", r);
    if (count == 0) {
      state.failure = "no CUDA device: the driver sees no GPU";
      return;
    }
    CUdevice device;
    if (CUresult r = d.cuDeviceGet(&device, 0); r != CUDA_SUCCESS)
      return fail("cannot open CUDA device 0", r);
    void *context = nullptr;
    if (CUresult r = d.cuDevicePrimaryCtxRetain(&context, device);
        r != CUDA_SUCCESS)
      return fail("cannot create a CUDA context on device 0", r);
    state.contexts[0] = context;
    state.deviceCount = std::min(count, runtime::kMaxDevices);
    state.driver = &state.api;
  });
  return state;
}

thread_local std::string pendingError;

void record(const llvm::Twine &message) {
  runtime::detail::recordError(message);
}

bool check(Driver *d, CUresult result, const char *what);

/// The primary context of `device` (retained on first use), or null after
/// recording why there is none.
void *getContext(DriverState &state, int device, const char *caller) {
  if (device < 0 || device >= state.deviceCount) {
    record(llvm::Twine(caller) + ": there is no CUDA device " +
           llvm::Twine(device) + " (the driver sees " +
           llvm::Twine(state.deviceCount) + ")");
    return nullptr;
  }
  if (void *context = state.contexts[device].load(std::memory_order_acquire))
    return context;
  std::lock_guard<std::mutex> lock(state.contextMutex);
  if (void *context = state.contexts[device].load())
    return context;
  CUdevice handle;
  void *context = nullptr;
  if (!check(&state.api, state.api.cuDeviceGet(&handle, device),
             "cuDeviceGet") ||
      !check(&state.api, state.api.cuDevicePrimaryCtxRetain(&context, handle),
             "cuDevicePrimaryCtxRetain"))
    return nullptr;
  state.contexts[device].store(context, std::memory_order_release);
  return context;
}

/// The driver with the primary context of the launch target's device
/// current on this thread, or null after recording why not. Within a
/// launch scope the context is made current once (the scope's calls run
/// without other code between them); outside, on every call (other
/// libraries may switch it between calls).
Driver *driver(const char *caller) {
  DriverState &state = getState();
  if (!state.driver) {
    record(llvm::Twine(caller) + ": " + state.failure);
    return nullptr;
  }
  thread_local uint64_t currentIn = ~uint64_t(0);
  uint64_t serial = runtime::getLaunchSerial();
  bool scoped = runtime::inLaunchScope();
  if (scoped && currentIn == serial)
    return state.driver;
  void *context =
      getContext(state, runtime::getLaunchTarget().device, caller);
  if (!context)
    return nullptr;
  state.driver->cuCtxSetCurrent(context);
  currentIn = scoped ? serial : ~uint64_t(0);
  return state.driver;
}

/// Lets the calling thread, while it lives, make the calls a stream capture
/// in CUDA's global mode forbids (module loads, allocations, synchronous
/// copies of tensor maps): they are not stream work, and a graph captured
/// meanwhile only refers to what they made.
class RelaxedCapture {
public:
  explicit RelaxedCapture(Driver *d) : d(d) {
    if (d->cuThreadExchangeStreamCaptureMode)
      exchanged =
          d->cuThreadExchangeStreamCaptureMode(&mode) == CUDA_SUCCESS;
  }
  ~RelaxedCapture() {
    if (exchanged)
      d->cuThreadExchangeStreamCaptureMode(&mode);
  }
  RelaxedCapture(const RelaxedCapture &) = delete;
  RelaxedCapture &operator=(const RelaxedCapture &) = delete;

private:
  Driver *d;
  int mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  bool exchanged = false;
};

/// Whether the launch target's stream is being captured into a CUDA graph
/// (asked once per launch scope).
bool isCapturing(Driver *d) {
  const runtime::LaunchTarget &target = runtime::getLaunchTarget();
  if (!target.stream || !d->cuStreamIsCapturing)
    return false;
  thread_local uint64_t askedIn = ~uint64_t(0);
  thread_local bool capturing = false;
  if (askedIn != runtime::getLaunchSerial()) {
    int status = CU_STREAM_CAPTURE_STATUS_NONE;
    capturing = d->cuStreamIsCapturing(*target.stream, &status) ==
                    CUDA_SUCCESS &&
                status != CU_STREAM_CAPTURE_STATUS_NONE;
    askedIn = runtime::getLaunchSerial();
  }
  return capturing;
}

/// Records a failed driver call; returns true on success.
bool check(Driver *d, CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *message = nullptr;
  d->cuGetErrorString(result, &message);
  record(llvm::Twine(what) + " failed: " +
         (message ? message : "CUDA error " + std::to_string(result)));
  return false;
}

/// What every launch checks first: the kernel loaded, and the opt-in a
/// function needs for its dynamic shared memory. Without it, static and
/// dynamic shared memory together may not pass 48 KiB, and kernels have a
/// little static shared memory of their own (the lowering's dynamic-memory
/// symbol): so any dynamic size near the limit opts in. (Setting it on
/// every such launch costs less than tracking function handles, which a
/// later module may reuse.)
bool prepareLaunch(Driver *d, void *function, int32_t smem) {
  if (!function) {
    record("cannot launch a kernel that failed to load");
    return false;
  }
  return smem <= kDefaultDynamicSharedLimit - kStaticSharedAllowance ||
         check(d,
               d->cuFuncSetAttribute(
                   function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                   smem),
               "cuFuncSetAttribute(max dynamic shared memory)");
}
} // namespace

//===----------------------------------------------------------------------===//
// mgpu* wrappers
//===----------------------------------------------------------------------===//

namespace {
/// A module as host code holds it (the handle mgpuModuleLoad returns): the
/// binary, loaded into the context of each device that launches from it,
/// on first use there, and the functions looked up so far.
struct DeviceModule {
  const void *data;
  std::mutex mutex;
  std::array<void *, runtime::kMaxDevices> modules{};
  struct Function {
    int device;
    const char *name; // The host code's constant: compared by address.
    void *function;
  };
  llvm::SmallVector<Function, 4> functions;

  explicit DeviceModule(const void *data) : data(data) {}

  /// The module on the launch target's device (loaded now if needed), or
  /// null after recording why not. Holds `mutex`.
  void *get(Driver *d, int device) {
    if (!modules[device]) {
      RelaxedCapture relaxed(d);
      check(d, d->cuModuleLoadData(&modules[device], data),
            "cuModuleLoadData");
    }
    return modules[device];
  }
};
} // namespace

/// Loads the module on the launch target's device now (so a binary the
/// device cannot run fails here, as kernels are prepared), and on other
/// devices when they first launch from it.
extern "C" void *mgpuModuleLoad(void *data, size_t /*size*/) {
  Driver *d = driver("mgpuModuleLoad");
  if (!d)
    return nullptr;
  auto module = std::make_unique<DeviceModule>(data);
  std::lock_guard<std::mutex> lock(module->mutex);
  if (!module->get(d, runtime::getLaunchTarget().device))
    return nullptr;
  return module.release();
}

extern "C" void *mgpuModuleLoadJIT(void *data, int /*optLevel*/) {
  // The driver JIT-compiles PTX on load.
  return mgpuModuleLoad(data, 0);
}

extern "C" void mgpuModuleUnload(void *handle) {
  std::unique_ptr<DeviceModule> module(static_cast<DeviceModule *>(handle));
  if (!module)
    return;
  for (auto [device, loaded] : llvm::enumerate(module->modules)) {
    if (!loaded)
      continue;
    runtime::LaunchScope scope({std::nullopt, static_cast<int>(device)});
    if (Driver *d = driver("mgpuModuleUnload"))
      check(d, d->cuModuleUnload(loaded), "cuModuleUnload");
  }
}

extern "C" void *mgpuModuleGetFunction(void *handle, const char *name) {
  Driver *d = driver("mgpuModuleGetFunction");
  if (!d)
    return nullptr;
  if (!handle) {
    record(llvm::Twine("cannot look up kernel '") + name +
           "': its module failed to load");
    return nullptr;
  }
  auto *module = static_cast<DeviceModule *>(handle);
  int device = runtime::getLaunchTarget().device;
  std::lock_guard<std::mutex> lock(module->mutex);
  for (const DeviceModule::Function &f : module->functions)
    if (f.device == device && f.name == name)
      return f.function;
  void *loaded = module->get(d, device);
  if (!loaded)
    return nullptr;
  void *function = nullptr;
  if (check(d, d->cuModuleGetFunction(&function, loaded, name),
            "cuModuleGetFunction"))
    module->functions.push_back({device, name, function});
  return function;
}

namespace {
/// The launches of this thread being timed (runtime::startKernelTiming):
/// an event pair around each.
struct KernelTiming {
  bool enabled = false;
  llvm::SmallVector<std::pair<void *, void *>> events;
};
thread_local KernelTiming kernelTiming;

/// Calls `launch`, between two events on `stream` when this thread times
/// its kernels.
template <typename Launch>
void timedLaunch(Driver *d, void *stream, Launch launch) {
  if (!kernelTiming.enabled)
    return launch();
  void *start = nullptr, *end = nullptr;
  if (!check(d, d->cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate") ||
      !check(d, d->cuEventCreate(&end, CU_EVENT_DEFAULT), "cuEventCreate"))
    return;
  kernelTiming.events.push_back({start, end});
  check(d, d->cuEventRecord(start, stream), "cuEventRecord");
  launch();
  check(d, d->cuEventRecord(end, stream), "cuEventRecord");
}
} // namespace

/// Set by tileProgrammaticLaunch for this thread's next launch.
static thread_local bool nextLaunchProgrammatic = false;

extern "C" void tileProgrammaticLaunch() { nextLaunchProgrammatic = true; }

namespace {
/// Launches `function` on `stream` with a cluster shape when `cluster` is
/// given and with programmatic stream serialization when tileProgrammaticLaunch
/// asked for it (consumed here, launched or not): cuLaunchKernelEx with
/// those attributes, cuLaunchKernel without any.
void launchKernel(const char *caller, void *function,
            std::optional<std::array<intptr_t, 3>> cluster,
            std::array<intptr_t, 3> grid, std::array<intptr_t, 3> block,
            int32_t smem, void *stream, void **params, void **extra) {
  bool programmatic = std::exchange(nextLaunchProgrammatic, false);
  // An empty grid (a size-0 input) launches nothing; CUDA would refuse it.
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return;
  Driver *d = driver(caller);
  if (!d)
    return;
  // Programmatic serialization only lets the kernel start earlier: without
  // cuLaunchKernelEx (drivers before CUDA 12) it launches in stream order.
  if (!d->cuLaunchKernelEx)
    programmatic = false;
  if (cluster && !d->cuLaunchKernelEx) {
    record("the CUDA driver lacks cuLaunchKernelEx, which launches thread "
           "block clusters; update the driver");
    return;
  }
  if (!prepareLaunch(d, function, smem))
    return;
  if (cluster && (*cluster)[0] * (*cluster)[1] * (*cluster)[2] >
                     kPortableClusterSize &&
      !check(d,
             d->cuFuncSetAttribute(
                 function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                 1),
             "cuFuncSetAttribute(non-portable cluster size)"))
    return;
  if (!cluster && !programmatic) {
    timedLaunch(d, stream, [&] {
      check(d,
            d->cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0],
                              block[1], block[2], smem, stream, params, extra),
            "cuLaunchKernel");
    });
    return;
  }
  CUlaunchAttribute attributes[2] = {};
  unsigned count = 0;
  if (cluster) {
    CUlaunchAttribute &a = attributes[count++];
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim = {static_cast<unsigned>((*cluster)[0]),
                          static_cast<unsigned>((*cluster)[1]),
                          static_cast<unsigned>((*cluster)[2])};
  }
  unsigned withoutProgrammatic = count;
  if (programmatic) {
    CUlaunchAttribute &a = attributes[count++];
    a.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    a.value.programmaticStreamSerializationAllowed = 1;
  }
  CUlaunchConfig config = {};
  config.gridDimX = grid[0];
  config.gridDimY = grid[1];
  config.gridDimZ = grid[2];
  config.blockDimX = block[0];
  config.blockDimY = block[1];
  config.blockDimZ = block[2];
  config.sharedMemBytes = smem;
  config.hStream = stream;
  config.attrs = attributes;
  config.numAttrs = count;
  timedLaunch(d, stream, [&] {
    CUresult result = d->cuLaunchKernelEx(&config, function, params, extra);
    // A device or capture that cannot take the programmatic edge runs the
    // kernel in stream order instead.
    if (result == CUDA_ERROR_NOT_SUPPORTED && programmatic) {
      config.numAttrs = withoutProgrammatic;
      result = config.numAttrs
                   ? d->cuLaunchKernelEx(&config, function, params, extra)
                   : d->cuLaunchKernel(function, grid[0], grid[1], grid[2],
                                       block[0], block[1], block[2], smem,
                                       stream, params, extra);
    }
    check(d, result, cluster ? "cuLaunchKernelEx(cluster launch)"
                             : "cuLaunchKernelEx(programmatic launch)");
  });
}
} // namespace

extern "C" void mgpuLaunchKernel(void *function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t smem, void *stream,
                                 void **params, void **extra,
                                 size_t /*paramsCount*/) {
  launchKernel("mgpuLaunchKernel", function, std::nullopt,
               {gridX, gridY, gridZ}, {blockX, blockY, blockZ}, smem, stream,
               params, extra);
}

/// gpu.launch_func with clusters: the cluster shape travels as a launch
/// attribute of cuLaunchKernelEx.
extern "C" void mgpuLaunchClusterKernel(
    void *function, intptr_t clusterX, intptr_t clusterY, intptr_t clusterZ,
    intptr_t gridX, intptr_t gridY, intptr_t gridZ, intptr_t blockX,
    intptr_t blockY, intptr_t blockZ, int32_t smem, void *stream,
    void **params, void **extra) {
  launchKernel("mgpuLaunchClusterKernel", function,
               std::array<intptr_t, 3>{clusterX, clusterY, clusterZ},
               {gridX, gridY, gridZ}, {blockX, blockY, blockZ}, smem, stream,
               params, extra);
}

namespace {
runtime::detail::StreamPool &streamPool() {
  static runtime::detail::StreamPool pool;
  return pool;
}
} // namespace

/// Whether `stream` is the caller's (the launch target's): the host code
/// launches there and neither waits for nor destroys it.
static bool isCallerStream(void *stream) {
  const std::optional<void *> &target = runtime::getLaunchTarget().stream;
  return target && *target == stream;
}

extern "C" void *mgpuStreamCreate() {
  if (std::optional<void *> stream = runtime::getLaunchTarget().stream)
    return *stream;
  Driver *d = driver("mgpuStreamCreate");
  if (!d)
    return nullptr;
  if (void *stream = streamPool().take())
    return stream;
  void *stream = nullptr;
  check(d, d->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
  return stream;
}

extern "C" void mgpuStreamDestroy(void *stream) {
  if (isCallerStream(stream))
    return;
  Driver *d = driver("mgpuStreamDestroy");
  if (d && stream && !streamPool().give(stream))
    check(d, d->cuStreamDestroy(stream), "cuStreamDestroy");
}

extern "C" void mgpuStreamSynchronize(void *stream) {
  if (isCallerStream(stream))
    return;
  Driver *d = driver("mgpuStreamSynchronize");
  if (d)
    check(d, d->cuStreamSynchronize(stream), "cuStreamSynchronize");
}

extern "C" void mgpuStreamWaitEvent(void *stream, void *event) {
  Driver *d = driver("mgpuStreamWaitEvent");
  if (d)
    check(d, d->cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

extern "C" void *mgpuEventCreate() {
  Driver *d = driver("mgpuEventCreate");
  void *event = nullptr;
  if (d)
    check(d, d->cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
  return event;
}

extern "C" void mgpuEventDestroy(void *event) {
  Driver *d = driver("mgpuEventDestroy");
  if (d && event)
    check(d, d->cuEventDestroy(event), "cuEventDestroy");
}

extern "C" void mgpuEventSynchronize(void *event) {
  Driver *d = driver("mgpuEventSynchronize");
  if (d)
    check(d, d->cuEventSynchronize(event), "cuEventSynchronize");
}

extern "C" void mgpuEventRecord(void *event, void *stream) {
  Driver *d = driver("mgpuEventRecord");
  if (d)
    check(d, d->cuEventRecord(event, stream), "cuEventRecord");
}

namespace {
/// Bytes of an element of each CUtensorMapDataType (uint8, uint16, uint32,
/// int32, uint64, int64, float16, float32, float64, bfloat16, float32 ftz,
/// tfloat32, tfloat32 ftz).
constexpr int64_t kTensorMapElementBytes[] = {1, 2, 4, 4, 8, 8, 2,
                                              4, 8, 2, 4, 4, 4};
/// The driver's opaque tensor map: 128 bytes, 64-byte aligned.
struct alignas(64) TensorMap {
  uint64_t words[16];
  bool operator<(const TensorMap &other) const {
    return std::memcmp(words, other.words, sizeof(words)) < 0;
  }
};

/// A device copy of a tensor map.
struct TensorMapCopy {
  CUdeviceptr address = 0;
  /// Read by a launch a CUDA graph captured: the graph may replay it at any
  /// time, so the copy is never freed.
  bool pinned = false;
};

/// Device copies of the tensor maps made so far, by device and content:
/// JIT-compiled host code asks for its maps on every call, and the same
/// tensor and box give the same map.
std::mutex tensorMapMutex;
std::map<std::pair<int, TensorMap>, TensorMapCopy> tensorMapCopies;
/// The answers of tileTensorMapEncode by its arguments and device (a map's
/// copy, or null for "no TMA"); cleared with the copies they point to.
using RequestKey = std::array<int64_t, 20>;
std::map<RequestKey, TensorMapCopy *> tensorMapRequests;
/// Beyond this many copies (128 bytes each) the device finishes what it
/// runs and the copies no captured graph reads are freed: buffers that
/// change on every call do not grow the set without bound.
constexpr size_t kMaxTensorMapCopies = 1 << 14;

/// The address of `copy` for a launch, which pins it when the launch is
/// being captured. Holds tensorMapMutex.
uint64_t useCopy(Driver *d, TensorMapCopy &copy) {
  if (!copy.pinned && isCapturing(d))
    copy.pinned = true;
  return copy.address;
}

/// The device copy of `map` on the launch target's device (made once per
/// content), or null after recording the error. Holds tensorMapMutex.
TensorMapCopy *deviceCopy(Driver *d, const TensorMap &map) {
  std::pair<int, TensorMap> key = {runtime::getLaunchTarget().device, map};
  if (tensorMapCopies.size() >= kMaxTensorMapCopies &&
      !tensorMapCopies.count(key) && !isCapturing(d)) {
    // Kernels queued on any stream of the device may read the copies.
    if (!check(d, d->cuCtxSynchronize(), "cuCtxSynchronize (tensor maps)"))
      return nullptr;
    for (auto it = tensorMapCopies.begin(); it != tensorMapCopies.end();) {
      if (it->first.first != key.first || it->second.pinned) {
        ++it;
        continue;
      }
      check(d, d->cuMemFree(it->second.address), "cuMemFree (tensor map)");
      it = tensorMapCopies.erase(it);
    }
    tensorMapRequests.clear();
  }
  auto [it, inserted] = tensorMapCopies.try_emplace(key);
  if (inserted) {
    RelaxedCapture relaxed(d);
    if (!check(d, d->cuMemAlloc(&it->second.address, sizeof(TensorMap)),
               "cuMemAlloc (tensor map)") ||
        !check(d,
               d->cuMemcpy(it->second.address,
                           reinterpret_cast<CUdeviceptr>(&map),
                           sizeof(TensorMap)),
               "cuMemcpy (tensor map)")) {
      if (it->second.address)
        d->cuMemFree(it->second.address);
      tensorMapCopies.erase(it);
      return nullptr;
    }
  }
  useCopy(d, it->second);
  return &it->second;
}
} // namespace

namespace {
/// A tensor map request in the driver's order (innermost dimension first).
struct TensorMapShape {
  uint64_t dims[5], byteStrides[4];
  uint32_t box[5], elementStrides[5];
};

/// Fills `shape` from sizes, strides (in elements) and box extents listed
/// outermost first, as MLIR orders them; the reason when TMA cannot take
/// them: boxes of 1 to 256 elements, a contiguous innermost dimension, a
/// 16-byte aligned start and strides of 16-byte multiples.
std::optional<std::string> prepareTensorMap(int64_t rank, int64_t bytes,
                                            uintptr_t address,
                                            const int64_t *sizes,
                                            const int64_t *strides,
                                            const int64_t *boxes,
                                            TensorMapShape &shape) {
  for (int64_t i = 0; i < rank; ++i) {
    int64_t from = rank - 1 - i;
    if (boxes[from] < 1 || boxes[from] > 256)
      return "TMA boxes are 1 to 256 elements along each dimension, got " +
             std::to_string(boxes[from]);
    shape.dims[i] = static_cast<uint64_t>(sizes[from]);
    shape.box[i] = static_cast<uint32_t>(boxes[from]);
    shape.elementStrides[i] = 1;
    if (i > 0)
      shape.byteStrides[i - 1] = static_cast<uint64_t>(strides[from] * bytes);
  }
  if (strides[rank - 1] != 1 || address % 16 ||
      llvm::any_of(llvm::ArrayRef<uint64_t>(shape.byteStrides, rank - 1),
                   [](uint64_t s) { return s % 16 != 0; }))
    return std::string("TMA needs a contiguous innermost dimension, a "
                       "16-byte aligned start and 16-byte multiple strides");
  return std::nullopt;
}

/// Encodes the map and returns its device copy (null after recording the
/// error). Holds tensorMapMutex.
TensorMapCopy *encodeTensorMap(Driver *d, int64_t dataType, int64_t rank,
                      uintptr_t address, const TensorMapShape &shape,
                      int64_t interleave, int64_t swizzle,
                      int64_t l2Promotion, int64_t oobFill) {
  TensorMap map = {};
  if (!check(d,
             d->cuTensorMapEncodeTiled(
                 &map, static_cast<int>(dataType), static_cast<uint32_t>(rank),
                 reinterpret_cast<void *>(address), shape.dims,
                 shape.byteStrides, shape.box, shape.elementStrides,
                 static_cast<int>(interleave), static_cast<int>(swizzle),
                 static_cast<int>(l2Promotion), static_cast<int>(oobFill)),
             "cuTensorMapEncodeTiled"))
    return nullptr;
  return deviceCopy(d, map);
}
} // namespace

/// The tensor map (TMA descriptor) of a box of a memref, in device memory
/// (what `nvgpu.tma.create.descriptor` lowers to). `rankedDescriptor`
/// points to the memref's descriptor {allocated, aligned, offset,
/// sizes[rank], strides[rank]}; dimensions and box sizes are given
/// outermost first, as MLIR orders them, and reversed for the driver.
extern "C" void *mgpuTensorMapEncodeTiledMemref(
    int64_t rank, void *rankedDescriptor, int64_t dataType,
    int64_t interleave, int64_t swizzle, int64_t l2Promotion, int64_t oobFill,
    int64_t *boxDims) {
  Driver *d = driver("mgpuTensorMapEncodeTiledMemref");
  if (!d)
    return nullptr;
  if (!d->cuTensorMapEncodeTiled) {
    record("the CUDA driver lacks cuTensorMapEncodeTiled, which creates TMA "
           "descriptors (CUDA 12 or newer); update the driver");
    return nullptr;
  }
  if (rank < 1 || rank > 5 || dataType < 0 ||
      dataType >= static_cast<int64_t>(std::size(kTensorMapElementBytes))) {
    record("mgpuTensorMapEncodeTiledMemref: a TMA descriptor needs rank 1 to "
           "5 and a known element type, got rank " +
           llvm::Twine(rank) + " and type " + llvm::Twine(dataType));
    return nullptr;
  }
  auto *fields = static_cast<int64_t *>(rankedDescriptor);
  int64_t bytes = kTensorMapElementBytes[dataType];
  uintptr_t address = static_cast<uintptr_t>(fields[1]) + fields[2] * bytes;
  TensorMapShape shape;
  if (std::optional<std::string> why =
          prepareTensorMap(rank, bytes, address, fields + 3, fields + 3 + rank,
                           boxDims, shape)) {
    record("mgpuTensorMapEncodeTiledMemref: " + *why);
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(tensorMapMutex);
  TensorMapCopy *copy = encodeTensorMap(d, dataType, rank, address, shape,
                                        interleave, swizzle, l2Promotion,
                                        oobFill);
  return copy ? reinterpret_cast<void *>(copy->address) : nullptr;
}

/// The tensor map of a box of a strided tensor of rank 2 to 5 for the
/// kernels the tile lowering emits (TMA copies that arrive on mbarriers):
/// `address` is the first element; sizes, strides (in elements) and box
/// extents come outermost first, `rank` of each used (the rest ignored);
/// swizzle mode 0-3 (none, 32, 64, 128 bytes), zero fill outside the
/// tensor. Returns the map's device address, or 0 without an error when the
/// tensor does not allow TMA (the kernel then copies without it): a start
/// or a stride that is not a multiple of 16 bytes, an innermost stride
/// other than 1, sizes beyond the signed 32-bit coordinates, boxes beyond
/// 256.
extern "C" uint64_t
tileTensorMapEncode(uint64_t address, int64_t dataType, int64_t rank,
                    int64_t size0, int64_t size1, int64_t size2, int64_t size3,
                    int64_t size4, int64_t stride0, int64_t stride1,
                    int64_t stride2, int64_t stride3, int64_t stride4,
                    int64_t box0, int64_t box1, int64_t box2, int64_t box3,
                    int64_t box4, int64_t swizzle) {
  Driver *d = driver("tileTensorMapEncode");
  if (!d || !d->cuTensorMapEncodeTiled || dataType < 0 ||
      dataType >= static_cast<int64_t>(std::size(kTensorMapElementBytes)) ||
      swizzle < 0 || swizzle > 3 || rank < 1 || rank > 5)
    return 0;
  // Host code asks on every launch, mostly for maps it asked for before:
  // answer those without encoding again.
  const RequestKey request = {static_cast<int64_t>(address), dataType, rank,
                              size0, size1, size2, size3, size4, stride0,
                              stride1, stride2, stride3, stride4, box0, box1,
                              box2, box3, box4, swizzle,
                              runtime::getLaunchTarget().device};
  std::lock_guard<std::mutex> lock(tensorMapMutex);
  if (auto it = tensorMapRequests.find(request); it != tensorMapRequests.end())
    return it->second ? useCopy(d, *it->second) : 0;
  const int64_t sizes[] = {size0, size1, size2, size3, size4};
  const int64_t strides[] = {stride0, stride1, stride2, stride3, stride4};
  const int64_t boxes[] = {box0, box1, box2, box3, box4};
  int64_t bytes = kTensorMapElementBytes[dataType];
  auto answer = [&](TensorMapCopy *copy) -> uint64_t {
    if (tensorMapRequests.size() >= kMaxTensorMapCopies)
      tensorMapRequests.clear();
    tensorMapRequests[request] = copy;
    return copy ? copy->address : 0;
  };
  // Coordinates are signed 32-bit: every element must be reachable; no
  // zero strides.
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] < 1 || sizes[d] > std::numeric_limits<int32_t>::max() ||
        (d + 1 < rank && (strides[d] < 1 ||
                          strides[d] * bytes >= (int64_t(1) << 40))))
      return answer(nullptr);
  TensorMapShape shape;
  if (prepareTensorMap(rank, bytes, address, sizes, strides, boxes, shape))
    return answer(nullptr);
  // Interleave none, L2 promotion 128 bytes, out-of-bounds elements zero.
  TensorMapCopy *copy = encodeTensorMap(d, dataType, rank, address, shape,
                                        /*interleave=*/0, swizzle,
                                        /*l2Promotion=*/2, /*oobFill=*/0);
  return copy ? answer(copy) : 0;
}

/// The multiprocessor count of the launch target's device (what persistent
/// kernels size their grid by); 1 after recording the error when the driver cannot say.
extern "C" int64_t tileMultiprocessorCount() {
  Driver *d = driver("tileMultiprocessorCount");
  CUdevice device;
  int count = 0;
  if (!d ||
      !check(d, d->cuDeviceGet(&device, runtime::getLaunchTarget().device),
             "cuDeviceGet") ||
      !check(d,
             d->cuDeviceGetAttribute(
                 &count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
             "cuDeviceGetAttribute") ||
      count < 1)
    return 1;
  return count;
}

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/,
                              bool isHostShared) {
  Driver *d = driver("mgpuMemAlloc");
  CUdeviceptr ptr = 0;
  if (!d)
    return nullptr;
  if (isHostShared) {
    record("mgpuMemAlloc: host-shared (managed) memory is not supported");
    return nullptr;
  }
  if (sizeBytes != 0)
    check(d, d->cuMemAlloc(&ptr, sizeBytes), "cuMemAlloc");
  return reinterpret_cast<void *>(ptr);
}

extern "C" void mgpuMemFree(void *ptr, void * /*stream*/) {
  Driver *d = driver("mgpuMemFree");
  if (d && ptr)
    check(d, d->cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)), "cuMemFree");
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           void *stream) {
  Driver *d = driver("mgpuMemcpy");
  if (d)
    check(d,
          d->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                           reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                           stream),
          "cuMemcpyAsync");
}

extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             void *stream) {
  Driver *d = driver("mgpuMemset32");
  if (d)
    check(d,
          d->cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value,
                              count, stream),
          "cuMemsetD32Async");
}

//===----------------------------------------------------------------------===//
// C++ API
//===----------------------------------------------------------------------===//

llvm::Error runtime::initCUDA() {
  DriverState &state = getState();
  if (!state.driver)
    return llvm::createStringError(state.failure);
  return llvm::Error::success();
}

llvm::Expected<int> runtime::getDeviceAttribute(int attribute, int device) {
  if (llvm::Error err = initCUDA())
    return std::move(err);
  int count = getState().deviceCount;
  if (device < 0 || device >= count)
    return llvm::createStringError(
        "CUDA device %d does not exist: the driver sees %d device%s", device,
        count, count == 1 ? "" : "s");
  Driver *d = driver("getDeviceAttribute");
  CUdevice handle;
  int value = 0;
  if (!check(d, d->cuDeviceGet(&handle, device), "cuDeviceGet") ||
      !check(d, d->cuDeviceGetAttribute(&value, attribute, handle),
             "cuDeviceGetAttribute"))
    return takeError();
  return value;
}

llvm::Expected<int> runtime::getComputeCapability() {
  llvm::Expected<int> major =
      getDeviceAttribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);
  if (!major)
    return major.takeError();
  llvm::Expected<int> minor =
      getDeviceAttribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0);
  if (!minor)
    return minor.takeError();
  return *major * 10 + *minor;
}

void runtime::detail::recordError(const llvm::Twine &message) {
  if (pendingError.empty())
    pendingError = message.str();
}

extern "C" void tileAssumeFailed(const char *message) {
  runtime::detail::recordError(message);
}

llvm::Error runtime::takeError() {
  if (pendingError.empty())
    return llvm::Error::success();
  std::string message = std::move(pendingError);
  pendingError.clear();
  return llvm::createStringError(message);
}

llvm::SmallVector<std::pair<llvm::StringRef, void *>> runtime::getSymbols() {
  return {
      {"mgpuModuleLoad", reinterpret_cast<void *>(&mgpuModuleLoad)},
      {"mgpuModuleLoadJIT", reinterpret_cast<void *>(&mgpuModuleLoadJIT)},
      {"mgpuModuleUnload", reinterpret_cast<void *>(&mgpuModuleUnload)},
      {"mgpuModuleGetFunction",
       reinterpret_cast<void *>(&mgpuModuleGetFunction)},
      {"mgpuLaunchKernel", reinterpret_cast<void *>(&mgpuLaunchKernel)},
      {"mgpuLaunchClusterKernel",
       reinterpret_cast<void *>(&mgpuLaunchClusterKernel)},
      {"mgpuStreamCreate", reinterpret_cast<void *>(&mgpuStreamCreate)},
      {"mgpuStreamDestroy", reinterpret_cast<void *>(&mgpuStreamDestroy)},
      {"mgpuStreamSynchronize",
       reinterpret_cast<void *>(&mgpuStreamSynchronize)},
      {"mgpuStreamWaitEvent", reinterpret_cast<void *>(&mgpuStreamWaitEvent)},
      {"mgpuEventCreate", reinterpret_cast<void *>(&mgpuEventCreate)},
      {"mgpuEventDestroy", reinterpret_cast<void *>(&mgpuEventDestroy)},
      {"mgpuEventSynchronize",
       reinterpret_cast<void *>(&mgpuEventSynchronize)},
      {"mgpuEventRecord", reinterpret_cast<void *>(&mgpuEventRecord)},
      {"mgpuMemAlloc", reinterpret_cast<void *>(&mgpuMemAlloc)},
      {"mgpuMemFree", reinterpret_cast<void *>(&mgpuMemFree)},
      {"mgpuMemcpy", reinterpret_cast<void *>(&mgpuMemcpy)},
      {"mgpuMemset32", reinterpret_cast<void *>(&mgpuMemset32)},
      {"mgpuTensorMapEncodeTiledMemref",
       reinterpret_cast<void *>(&mgpuTensorMapEncodeTiledMemref)},
      {"tileTensorMapEncode", reinterpret_cast<void *>(&tileTensorMapEncode)},
      {"tileMultiprocessorCount",
       reinterpret_cast<void *>(&tileMultiprocessorCount)},
      {"tileProgrammaticLaunch",
       reinterpret_cast<void *>(&tileProgrammaticLaunch)},
      {"tileAssumeFailed", reinterpret_cast<void *>(&tileAssumeFailed)},
  };
}

llvm::Expected<void *> runtime::allocate(size_t bytes) {
  if (llvm::Error err = initCUDA())
    return std::move(err);
  void *ptr = mgpuMemAlloc(bytes, nullptr, false);
  if (llvm::Error err = takeError())
    return std::move(err);
  return ptr;
}

void runtime::release(void *device) {
  mgpuMemFree(device, nullptr);
  llvm::consumeError(takeError());
}

llvm::Error runtime::copyToDevice(void *device, const void *host,
                                  size_t bytes) {
  if (bytes == 0)
    return llvm::Error::success(); // An empty tensor: nothing to move.
  if (llvm::Error err = initCUDA())
    return err;
  Driver *d = driver("copyToDevice");
  check(d,
        d->cuMemcpy(reinterpret_cast<CUdeviceptr>(device),
                    reinterpret_cast<CUdeviceptr>(host), bytes),
        "cuMemcpy (host to device)");
  return takeError();
}

llvm::Error runtime::copyToHost(void *host, const void *device, size_t bytes) {
  if (bytes == 0)
    return llvm::Error::success(); // An empty tensor: nothing to move.
  if (llvm::Error err = initCUDA())
    return err;
  Driver *d = driver("copyToHost");
  check(d,
        d->cuMemcpy(reinterpret_cast<CUdeviceptr>(host),
                    reinterpret_cast<CUdeviceptr>(device), bytes),
        "cuMemcpy (device to host)");
  return takeError();
}

llvm::Error runtime::synchronize() {
  if (llvm::Error err = initCUDA())
    return err;
  if (Driver *d = driver("synchronize"))
    check(d, d->cuCtxSynchronize(), "cuCtxSynchronize");
  return takeError();
}

llvm::Error runtime::synchronizeStream(void *stream) {
  if (llvm::Error err = initCUDA())
    return err;
  if (Driver *d = driver("synchronizeStream"))
    check(d, d->cuStreamSynchronize(stream), "cuStreamSynchronize");
  return takeError();
}

llvm::Expected<bool> runtime::isCapturing(void *stream) {
  if (llvm::Error err = initCUDA())
    return std::move(err);
  Driver *d = driver("isCapturing");
  int status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (d && d->cuStreamIsCapturing)
    check(d, d->cuStreamIsCapturing(stream, &status), "cuStreamIsCapturing");
  if (llvm::Error err = takeError())
    return std::move(err);
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

llvm::Expected<int> runtime::getDeviceCount() {
  if (llvm::Error err = initCUDA())
    return std::move(err);
  return getState().deviceCount;
}

void runtime::startKernelTiming() {
  kernelTiming.enabled = true;
  kernelTiming.events.clear();
}

llvm::Expected<double> runtime::stopKernelTiming() {
  kernelTiming.enabled = false;
  auto events = std::move(kernelTiming.events);
  kernelTiming.events.clear();
  if (events.empty())
    return 0.0;
  Driver *d = driver("stopKernelTiming");
  if (!d)
    return takeError();
  double total = 0;
  for (auto [start, end] : events) {
    float ms = 0;
    if (check(d, d->cuEventSynchronize(end), "cuEventSynchronize") &&
        check(d, d->cuEventElapsedTime(&ms, start, end),
              "cuEventElapsedTime"))
      total += ms;
    d->cuEventDestroy(start);
    d->cuEventDestroy(end);
  }
  if (llvm::Error err = takeError())
    return std::move(err);
  return total;
}
