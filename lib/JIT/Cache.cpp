//===- Cache.cpp - The on-disk compilation cache ------------------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/JIT/Cache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileOutputBuffer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

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
    shown.emplace_back(name, value.size() > 80 ? "sha256:" + sha256Hex(value)
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
static constexpr StringLiteral kEntrySuffix = ".tcache";

//===----------------------------------------------------------------------===//
// CompilationCache
//===----------------------------------------------------------------------===//

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
  if (std::optional<std::string> off = sys::Process::GetEnv("TILE_DISABLE_CACHE"))
    options.enabled = !(*off == "1" || StringRef(*off).equals_insensitive("true"));
  if (std::optional<std::string> cap =
          sys::Process::GetEnv("TILE_CACHE_MAX_BYTES")) {
    uint64_t bytes;
    if (!StringRef(*cap).getAsInteger(10, bytes))
      options.maxBytes = bytes;
  }
  return options;
}

CompilationCache::CompilationCache(Options opts, WarningHandler handler)
    : options(std::move(opts)), warnHandler(std::move(handler)),
      enabled(options.enabled) {
  if (!enabled)
    return;
  if (std::error_code ec = sys::fs::create_directories(options.directory)) {
    warn("cannot create the cache directory '" + options.directory +
         "' (" + ec.message() + "); compiling without a cache");
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
  sys::path::append(path, key + kEntrySuffix);
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
  size_t size = kHeaderSize + key.size() + payload.size();
  // FileOutputBuffer writes to a unique temporary file in the same directory
  // and renames it over `path` on commit: readers never see a partial entry
  // and concurrent writers of one key each leave a complete file.
  Expected<std::unique_ptr<FileOutputBuffer>> out =
      FileOutputBuffer::create(path, size);
  if (!out) {
    warn("cannot write cache entry '" + path +
         "': " + toString(out.takeError()));
    return;
  }
  char *p = reinterpret_cast<char *>((*out)->getBufferStart());
  std::memcpy(p, kMagic, 8);
  support::endian::write32le(p + 8, kFormatVersion);
  support::endian::write32le(p + 12, key.size());
  support::endian::write64le(p + 16, payload.size());
  std::array<uint8_t, 32> checksum =
      SHA256::hash(arrayRefFromStringRef(payload));
  std::memcpy(p + 24, checksum.data(), 32);
  std::memcpy(p + kHeaderSize, key.data(), key.size());
  std::memcpy(p + kHeaderSize + key.size(), payload.data(), payload.size());
  if (Error err = (*out)->commit()) {
    warn("cannot write cache entry '" + path + "': " + toString(std::move(err)));
    return;
  }
  evict();
}

void CompilationCache::evict() {
  if (!enabled)
    return;
  struct Entry {
    std::string path;
    uint64_t size;
    sys::TimePoint<> used;
  };
  SmallVector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (sys::fs::directory_iterator it(options.directory, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (!StringRef(it->path()).ends_with(kEntrySuffix))
      continue;
    sys::fs::file_status status;
    if (sys::fs::status(it->path(), status))
      continue;
    entries.push_back(
        {it->path(), status.getSize(), status.getLastModificationTime()});
    total += status.getSize();
  }
  if (total <= options.maxBytes)
    return;
  llvm::sort(entries, [](const Entry &a, const Entry &b) {
    return a.used < b.used || (a.used == b.used && a.path < b.path);
  });
  for (const Entry &entry : entries) {
    if (total <= options.maxBytes)
      break;
    // Another process may have evicted it already: that is fine.
    if (!sys::fs::remove(entry.path))
      total -= entry.size;
  }
}
