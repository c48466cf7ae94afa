//===- Launch.h - Where the kernels a thread calls run ----------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// JIT-compiled host code launches each kernel on a stream it creates and
// waits for it: a synchronous call. A caller that orders its work by streams
// (a framework's current stream, a CUDA graph being captured) instead sets
// a launch target for the duration of its call:
//
//   runtime::LaunchScope scope({/*stream=*/callerStream, /*device=*/1});
//   fn(args);   // launches queued on callerStream of device 1; no waits
//
// The CUDA and HIP runtimes read the target in their mgpu* functions: the
// host code's stream is the caller's, its synchronizations of that stream
// are skipped, and device objects (contexts, modules, tensor maps) are those
// of the target's device.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_RUNTIME_LAUNCH_H
#define TILELANG_RUNTIME_LAUNCH_H

#include <cstdint>
#include <optional>

namespace mlir {
namespace tile {
namespace runtime {

/// The most devices a process addresses (the device ordinals 0 to 63).
constexpr int kMaxDevices = 64;

/// Where the GPU work of the calling thread's kernel calls goes.
struct LaunchTarget {
  /// The stream (a CUstream or hipStream_t, null and the drivers' special
  /// handles 1 = legacy default and 2 = per-thread default included) the
  /// launches are queued on, after the caller's work already there; the
  /// call returns once they are queued. Unset: a stream of the runtime's
  /// own, waited for before the call returns.
  std::optional<void *> stream;
  /// The device ordinal (on CUDA, its primary context).
  int device = 0;
};

/// Makes `target` the calling thread's launch target while it lives; the
/// previous one is restored when it is destroyed.
class LaunchScope {
public:
  explicit LaunchScope(const LaunchTarget &target);
  ~LaunchScope();
  LaunchScope(const LaunchScope &) = delete;
  LaunchScope &operator=(const LaunchScope &) = delete;

private:
  LaunchTarget saved;
};

/// The calling thread's launch target: device 0 and the runtime's own
/// stream outside any LaunchScope.
const LaunchTarget &getLaunchTarget();

/// A number that changes with every LaunchScope the thread opens or closes:
/// what a runtime keys per-call facts by (whether the caller's stream is
/// being captured into a CUDA graph).
uint64_t getLaunchSerial();

/// Whether the calling thread is inside a LaunchScope.
bool inLaunchScope();

} // namespace runtime
} // namespace tile
} // namespace mlir

#endif // TILELANG_RUNTIME_LAUNCH_H
