//===- Cache.cpp - The on-disk compilation cache ------------------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/JIT/Cache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <limits>
#include <mutex>

using namespace llvm;
using namespace mlir::tile::jit;

//===----------------------------------------------------------------------===//
// CacheKey
//===----------------------------------------------------------------------===//

std::string mlir::tile::jit::sha256Hex(StringRef data) {
  std::array<uint8_t, 32> hash = SHA256::hash(arrayRefFromStringRef(data));
  return toHex(hash, /*LowerCase=*/true);
}

void CacheKey::add(StringRef name, StringRef value) {
  components.emplace_back(name.str(), value.str());
}

std::string CacheKey::digest() const {
  SHA256 hasher;
  for (const auto &[name, value] : components) {
    // Length-prefix both parts so that no two component lists hash alike.
    hasher.update(std::to_string(name.size()) + ":" + name + "=");
    hasher.update(std::to_string(value.size()) + ":");
    hasher.update(value);
  }
  return toHex(hasher.final(), /*LowerCase=*/true);
}

SmallVector<std::pair<std::string, std::string>>
CacheKey::getComponents() const {
  SmallVector<std::pair<std::string, std::string>> shown;
  for (const auto &[name, value] : components)
    shown.emplace_back(name, value.size() > 200 ? "sha256:" + sha256Hex(value)
                                               : value);
  return shown;
}

//===----------------------------------------------------------------------===//
// Entry format
//===----------------------------------------------------------------------===//
//
//   magic "TILECACH" | u32 version | u32 key length | u64 payload length |
//   32-byte SHA-256 of the payload | key | payload
//
// All integers little-endian. An entry is valid only when its size, key and
// checksum all agree.

static constexpr char kMagic[8] = {'T', 'I', 'L', 'E', 'C', 'A', 'C', 'H'};
static constexpr uint32_t kFormatVersion = 1;
static constexpr size_t kHeaderSize = 8 + 4 + 4 + 8 + 32;
// Entries are named llvmcache-<key> so that llvm::pruneCache, which only
// considers files with that prefix, evicts them; temporaries have another
// prefix so that pruning never deletes a file being written.
static constexpr StringLiteral kEntryPrefix = "llvmcache-";
static constexpr StringLiteral kTemporaryModel = "tmp-%%%%%%%%%%%%.partial";

//===----------------------------------------------------------------------===//
// CompilationCache
//===----------------------------------------------------------------------===//

std::optional<uint64_t> mlir::tile::jit::parseByteSize(StringRef text) {
  StringRef rest = text.trim();
  uint64_t value;
  if (rest.consumeInteger(10, value))
    return std::nullopt;
  rest = rest.trim();
  uint64_t unit = 1;
  if (!rest.empty()) {
    char prefix = toLower(rest.front());
    StringRef tail = rest.drop_front();
    size_t exponent = StringRef("kmgtp").find(prefix);
    // "1G", "1GB", "1GiB", "1 g" all mean 2^30 bytes: a cache size is a
    // power-of-two quantity, as in ccache and du.
    if (exponent == StringRef::npos ||
        !(tail.empty() || tail.equals_insensitive("b") ||
          tail.equals_insensitive("ib")))
      return rest.equals_insensitive("b") ? std::optional<uint64_t>(value)
                                          : std::nullopt;
    unit = uint64_t(1) << (10 * (exponent + 1));
  }
  if (value > std::numeric_limits<uint64_t>::max() / unit)
    return std::nullopt;
  return value * unit;
}

std::optional<bool> mlir::tile::jit::parseSwitch(StringRef text) {
  std::string word = text.trim().lower();
  if (word == "1" || word == "true" || word == "yes" || word == "on" ||
      word == "y")
    return true;
  if (word == "0" || word == "false" || word == "no" || word == "off" ||
      word == "n" || word.empty())
    return false;
  return std::nullopt;
}

/// Prints `message` once per process (settings are read for every kernel).
static void warnOnce(const std::string &message) {
  static std::mutex mutex;
  static StringSet<> printed;
  std::lock_guard<std::mutex> lock(mutex);
  if (printed.insert(message).second)
    errs() << "tile cache: warning: " << message << "\n";
}

CompilationCache::Options CompilationCache::Options::fromEnvironment() {
  Options options;
  if (std::optional<std::string> dir = sys::Process::GetEnv("TILE_CACHE_DIR");
      dir && !dir->empty()) {
    options.directory = *dir;
  } else {
    SmallString<256> path;
    if (std::optional<std::string> xdg =
            sys::Process::GetEnv("XDG_CACHE_HOME");
        xdg && !xdg->empty())
      path = *xdg;
    else if (!sys::path::home_directory(path))
      path = "/tmp";
    else
      sys::path::append(path, ".cache");
    sys::path::append(path, "tilelang-mlir");
    options.directory = std::string(path);
  }
  if (std::optional<std::string> off =
          sys::Process::GetEnv("TILE_DISABLE_CACHE")) {
    if (std::optional<bool> disable = parseSwitch(*off))
      options.enabled = !*disable;
    else
      warnOnce("TILE_DISABLE_CACHE='" + *off +
               "' is not one of 1/true/yes/on or 0/false/no/off; the cache "
               "stays on");
  }
  if (std::optional<std::string> cap =
          sys::Process::GetEnv("TILE_CACHE_MAX_BYTES")) {
    if (std::optional<uint64_t> bytes = parseByteSize(*cap))
      options.maxBytes = *bytes;
    else
      warnOnce("TILE_CACHE_MAX_BYTES='" + *cap +
               "' is not a size like 2147483648, 500M or 2G; using " +
               std::to_string(options.maxBytes) + " bytes");
  }
  return options;
}

CompilationCache::CompilationCache(Options opts, WarningHandler handler)
    : options(std::move(opts)), warnHandler(std::move(handler)),
      enabled(options.enabled) {
  if (!enabled)
    return;
  // Created for its owner alone (whatever the umask): entries are code the
  // next run executes.
  if (std::error_code ec = sys::fs::create_directories(
          options.directory, /*IgnoreExisting=*/true,
          sys::fs::perms::owner_all | sys::fs::perms::group_read |
              sys::fs::perms::group_exe | sys::fs::perms::others_read |
              sys::fs::perms::others_exe)) {
    warn("cannot create the cache directory '" + options.directory +
         "' (" + ec.message() + "); compiling without a cache");
    enabled = false;
    return;
  }
  if (!sys::fs::is_directory(options.directory)) {
    warn("the cache directory '" + options.directory +
         "' is not a directory; compiling without a cache");
    enabled = false;
    return;
  }
  // Another user who can write the directory can plant an entry that this
  // process would run: such a directory is not used.
  ErrorOr<sys::fs::perms> mode = sys::fs::getPermissions(options.directory);
  if (mode && (*mode & (sys::fs::perms::group_write |
                        sys::fs::perms::others_write))) {
    warn("the cache directory '" + options.directory +
         "' is writable by other users, who could plant code this process "
         "would run (chmod go-w it, or set TILE_CACHE_DIR to a directory of "
         "your own); compiling without a cache");
    enabled = false;
    return;
  }
  if (sys::fs::access(options.directory, sys::fs::AccessMode::Write)) {
    warn("the cache directory '" + options.directory +
         "' is not writable; compiling without a cache");
    enabled = false;
  }
}

void CompilationCache::warn(const std::string &message) {
  if (warnHandler)
    warnHandler(message);
  else
    errs() << "tile cache: warning: " << message << "\n";
}

std::string CompilationCache::getEntryPath(StringRef key) const {
  SmallString<256> path(options.directory);
  sys::path::append(path, kEntryPrefix + key);
  return std::string(path);
}

std::unique_ptr<MemoryBuffer> CompilationCache::lookup(StringRef key) {
  if (!enabled)
    return nullptr;
  std::string path = getEntryPath(key);
  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFile(path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!file)
    return nullptr; // A miss.

  StringRef data = (*file)->getBuffer();
  auto corrupt = [&](StringRef why) -> std::unique_ptr<MemoryBuffer> {
    warn("corrupt cache entry '" + path + "' (" + why.str() +
         "); deleting it and recompiling");
    sys::fs::remove(path);
    return nullptr;
  };
  if (data.size() < kHeaderSize || std::memcmp(data.data(), kMagic, 8) != 0)
    return corrupt("bad header");
  const char *p = data.data() + 8;
  uint32_t version = support::endian::read32le(p);
  uint32_t keyLength = support::endian::read32le(p + 4);
  uint64_t payloadLength = support::endian::read64le(p + 8);
  StringRef checksum(p + 16, 32);
  if (version != kFormatVersion)
    return corrupt("format version " + std::to_string(version));
  if (data.size() != kHeaderSize + uint64_t(keyLength) + payloadLength)
    return corrupt("truncated or oversized: " + std::to_string(data.size()) +
                   " bytes, header says " +
                   std::to_string(kHeaderSize + uint64_t(keyLength) +
                                  payloadLength));
  StringRef storedKey = data.substr(kHeaderSize, keyLength);
  if (storedKey != key)
    return corrupt("entry is for another key");
  StringRef payload = data.substr(kHeaderSize + keyLength);
  std::array<uint8_t, 32> actual =
      SHA256::hash(arrayRefFromStringRef(payload));
  if (StringRef(reinterpret_cast<const char *>(actual.data()), 32) != checksum)
    return corrupt("checksum mismatch");

  // Mark as recently used for the LRU eviction.
  int fd;
  if (!sys::fs::openFileForReadWrite(path, fd, sys::fs::CD_OpenExisting,
                                     sys::fs::OF_None)) {
    (void)sys::fs::setLastAccessAndModificationTime(
        fd, std::chrono::system_clock::now());
    sys::Process::SafelyCloseFileDescriptor(fd);
  }
  return MemoryBuffer::getMemBufferCopy(payload, path);
}

void CompilationCache::store(StringRef key, StringRef payload) {
  if (!enabled)
    return;
  std::string path = getEntryPath(key);
  // Written through a file descriptor with every error checked (a full or
  // read-only filesystem is an error from write(), not a fault in a mapped
  // page), to a unique temporary in the same directory, then renamed over
  // `path`: readers never see a partial entry and concurrent writers of one
  // key each leave a complete file.
  SmallString<256> model(options.directory);
  sys::path::append(model, kTemporaryModel);
  int fd;
  SmallString<256> temporary;
  auto fail = [&](const Twine &why) {
    if (!temporary.empty())
      sys::fs::remove(temporary);
    warn("cannot write cache entry '" + path + "' (" + why.str() +
         "); compiling without a cache from now on");
    enabled = false;
  };
  if (std::error_code ec = sys::fs::createUniqueFile(model, fd, temporary))
    return fail(ec.message());
  char header[kHeaderSize];
  std::memcpy(header, kMagic, 8);
  support::endian::write32le(header + 8, kFormatVersion);
  support::endian::write32le(header + 12, key.size());
  support::endian::write64le(header + 16, payload.size());
  std::array<uint8_t, 32> checksum =
      SHA256::hash(arrayRefFromStringRef(payload));
  std::memcpy(header + 24, checksum.data(), 32);
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << StringRef(header, kHeaderSize) << key << payload;
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      return fail(ec.message());
    }
  }
  if (std::error_code ec = sys::fs::rename(temporary, path))
    return fail(ec.message());
  evict();
}

void CompilationCache::evict() {
  if (!enabled)
    return;
  // Least recently used first (a hit refreshes the entry's times) until the
  // entries fit in maxBytes; nothing expires by age alone.
  CachePruningPolicy policy;
  policy.Interval = std::chrono::seconds(0);
  policy.Expiration = std::chrono::seconds(0);
  policy.MaxSizePercentageOfAvailableSpace = 0;
  policy.MaxSizeFiles = 0;
  policy.MaxSizeBytes = options.maxBytes;
  if (options.maxBytes == 0) {
    // pruneCache reads 0 as "no limit"; here it is "keep nothing".
    std::error_code ec;
    for (sys::fs::directory_iterator it(options.directory, ec), end;
         !ec && it != end; it.increment(ec))
      if (sys::path::filename(it->path()).starts_with(kEntryPrefix))
        (void)sys::fs::remove(it->path());
    return;
  }
  pruneCache(options.directory, policy);
}
