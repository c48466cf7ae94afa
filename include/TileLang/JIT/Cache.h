//===- Cache.h - The on-disk compilation cache ------------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// Compiled artifacts (host object code, device binaries) keyed by a SHA-256
// of everything that changes their bytes. Entries (files llvmcache-<key>) are
// written through a file descriptor to a temporary file and renamed into
// place, carry a checksum verified on every load, are deleted and reported
// when corrupt, and are evicted least-recently-used first by llvm::pruneCache
// when the cache outgrows its size cap. A filesystem that refuses a write
// (full, read-only) turns the cache off with one warning.
//
// Trust: the checksum detects corruption, not tampering. An entry is object
// code that the next process runs, so the cache directory must be as trusted
// as the compiler itself (by default it is under the user's home).
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_JIT_CACHE_H
#define TILELANG_JIT_CACHE_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace mlir {
namespace tile {
namespace jit {

/// The components of a cache key, in order, and their digest. Every
/// component contributes (name and value), so changing any one changes the
/// key.
class CacheKey {
public:
  /// Adds a component. `value` may be long (the IR): the digest covers all of
  /// it, and `getComponents` shows a short form.
  void add(llvm::StringRef name, llvm::StringRef value);

  /// The hex SHA-256 of all components.
  std::string digest() const;

  /// (name, value) pairs for display; values longer than 200 characters are
  /// shown as `sha256:<hex>` of the value.
  llvm::SmallVector<std::pair<std::string, std::string>> getComponents() const;

private:
  llvm::SmallVector<std::pair<std::string, std::string>> components;
};

/// Hex SHA-256 of `data`.
std::string sha256Hex(llvm::StringRef data);

/// A size such as "2147483648", "500M", "2G", "1 GiB" (binary units K, M, G,
/// T, P with an optional "B" or "iB"), or nullopt when `text` is not one or
/// does not fit in 64 bits.
std::optional<uint64_t> parseByteSize(llvm::StringRef text);

/// An on/off setting: 1/true/yes/on/y or 0/false/no/off/n/"" (any case), or
/// nullopt for anything else.
std::optional<bool> parseSwitch(llvm::StringRef text);

class CompilationCache {
public:
  struct Options {
    /// Directory of the entries.
    std::string directory;
    /// False turns the cache off: lookups miss and stores do nothing.
    bool enabled = true;
    /// Size cap of all entries together; the least recently used entries
    /// are evicted beyond it.
    uint64_t maxBytes = uint64_t(2) << 30;

    /// The defaults, overridden by the environment: TILE_CACHE_DIR (else
    /// $XDG_CACHE_HOME/tilelang-mlir, else ~/.cache/tilelang-mlir),
    /// TILE_DISABLE_CACHE (parseSwitch), TILE_CACHE_MAX_BYTES
    /// (parseByteSize). A value that does not parse keeps the default and
    /// is reported once per process on stderr.
    static Options fromEnvironment();
  };

  /// Receives warnings (a corrupt entry, an unwritable directory).
  using WarningHandler = std::function<void(const std::string &)>;

  explicit CompilationCache(Options options, WarningHandler warn = nullptr);

  /// True when lookups and stores go to disk.
  bool isEnabled() const { return enabled; }
  const Options &getOptions() const { return options; }

  /// The payload stored under `key`, or null on a miss. A corrupt or
  /// truncated entry is reported, deleted and treated as a miss. A hit marks
  /// the entry as recently used.
  std::unique_ptr<llvm::MemoryBuffer> lookup(llvm::StringRef key);

  /// Stores `payload` under `key` atomically (temporary file + rename), then
  /// evicts down to the size cap. Concurrent stores of one key leave one
  /// valid entry. A failure is a warning, not an error, and turns the cache
  /// off for the rest of this object's life: a cache that cannot write is a
  /// cache that misses.
  void store(llvm::StringRef key, llvm::StringRef payload);

  /// Deletes least recently used entries until all fit in `maxBytes`
  /// (llvm::pruneCache; 0 deletes every entry).
  void evict();

  /// Path of the entry for `key`.
  std::string getEntryPath(llvm::StringRef key) const;

private:
  void warn(const std::string &message);

  Options options;
  WarningHandler warnHandler;
  bool enabled;
};

} // namespace jit
} // namespace tile
} // namespace mlir

#endif // TILELANG_JIT_CACHE_H
