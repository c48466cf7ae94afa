//===- Version.h - The project's version and build identity -----*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// The version of this build (the CMake project version), the commit it was
// built from, and the identity of the compiler binary for cache keys: the
// GNU build IDs of the loaded objects that hold TileLang and MLIR/LLVM, which
// the linker derives from their contents, so the same binary reached by any
// path has one identity and a rebuilt compiler or an upgraded libMLIR has a
// new one.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_SUPPORT_VERSION_H
#define TILELANG_SUPPORT_VERSION_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
namespace tile {

/// The project version, e.g. "0.1.0".
llvm::StringRef getVersion();

/// The commit of the sources (`git describe --always --dirty`), or "unknown"
/// outside a git checkout.
llvm::StringRef getCommit();

/// "TileLang-MLIR <version> (<commit>), MLIR/LLVM <version>" and a newline:
/// what `--version` prints.
void printVersion(llvm::raw_ostream &os);

/// Installs printVersion as the `--version` printer of llvm::cl.
void setVersionPrinter();

/// Runs `fn` on a thread with a stack of `bytes` (default 512 MiB, reserved,
/// not committed) and waits for it: MLIR's parser and walks recurse once
/// per nesting level, and a few thousand nested regions overflow a main
/// thread's 8 MiB. The tools, the JIT's parse and its compile run this way.
void runOnLargeStack(llvm::function_ref<void()> fn,
                     unsigned bytes = 512u << 20);

/// runOnLargeStack for a function with a result: returns what `fn` returns.
template <typename Fn> auto callOnLargeStack(Fn &&fn) -> decltype(fn()) {
  std::optional<decltype(fn())> result;
  runOnLargeStack([&] { result.emplace(fn()); });
  return std::move(*result);
}

/// The identity of the running compiler, by content: one
/// "<file name>:<build id>" per loaded object that holds this code or
/// MLIR/LLVM (the objects without a build ID contribute their size and
/// modification time instead). Computed once per process.
const std::string &getCompilerIdentity();

} // namespace tile
} // namespace mlir

#endif // TILELANG_SUPPORT_VERSION_H
