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

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"

#include <dlfcn.h>
#include <string>
#include <type_traits>

namespace mlir {
namespace tile {
namespace runtime {
namespace detail {

/// Records `message` unless an earlier error of this thread is pending.
void recordError(const llvm::Twine &message);

/// dlopens the first of `names` that loads; otherwise null, with `failure`
/// set to "<missing>: cannot load <names[0]> (<why>)".
inline void *openLibrary(llvm::ArrayRef<const char *> names,
                         const char *missing, std::string &failure) {
  std::string why;
  for (const char *name : names) {
    if (void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))
      return lib;
    if (const char *error = dlerror(); error && why.empty())
      why = error;
  }
  failure = std::string(missing) + ": cannot load " + names.front() + " (" +
            (why.empty() ? std::string("not found") : why) + ")";
  return nullptr;
}

/// Resolves `name` in `lib` into `fn`; otherwise false, with `failure` set
/// to "<runtime> lacks <name>; <hint>".
template <typename Fn>
bool bindSymbol(void *lib, Fn &fn, const char *name, const char *runtime,
                const char *hint, std::string &failure) {
  fn = reinterpret_cast<std::remove_reference_t<Fn>>(dlsym(lib, name));
  if (fn)
    return true;
  failure = std::string(runtime) + " lacks " + name + "; " + hint;
  return false;
}

} // namespace detail
} // namespace runtime
} // namespace tile
} // namespace mlir

#endif // TILELANG_LIB_RUNTIME_RUNTIMEERROR_H
