//===- CacheTest.cpp - Tests of the on-disk compilation cache -----------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/JIT/Cache.h"

#include "../TempDirTest.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <csignal>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace mlir::tile::jit;
namespace fs = llvm::sys::fs;

namespace {

/// A cache in a fresh directory per test, collecting its warnings.
class CacheTest : public mlir::tile::testing::TempDirTest {
protected:
  CompilationCache makeCache(uint64_t maxBytes = uint64_t(1) << 30) {
    CompilationCache::Options options;
    options.directory = dir;
    options.maxBytes = maxBytes;
    return CompilationCache(options, [this](const std::string &message) {
      warnings.push_back(message);
    });
  }

  std::vector<std::string> warnings;
};

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &path, const std::string &data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

void setAge(const std::string &path, int secondsAgo) {
  int fd;
  ASSERT_FALSE(fs::openFileForReadWrite(path, fd, fs::CD_OpenExisting,
                                        fs::OF_None));
  auto when = std::chrono::system_clock::now() -
              std::chrono::seconds(secondsAgo);
  ASSERT_FALSE(fs::setLastAccessAndModificationTime(fd, when));
  ::close(fd);
}

TEST(CacheKeyTest, EveryComponentChangesTheKey) {
  const std::vector<std::pair<std::string, std::string>> base = {
      {"tilelang", "0.1.0"},   {"llvm", "22.1.8"},
      {"target", "cuda:sm_90a:+ptx80"}, {"host", "x86_64 znver4"},
      {"pipeline", "tile-to-nvvm"},     {"ptxas", "13.0"},
      {"ir", "module {}"}};
  auto keyOf = [](const std::vector<std::pair<std::string, std::string>> &c) {
    CacheKey key;
    for (const auto &[name, value] : c)
      key.add(name, value);
    return key.digest();
  };
  std::string reference = keyOf(base);
  EXPECT_EQ(reference.size(), 64u);
  EXPECT_EQ(reference, keyOf(base)) << "the key must be deterministic";
  for (size_t i = 0; i < base.size(); ++i) {
    auto changedValue = base;
    changedValue[i].second += "x";
    EXPECT_NE(reference, keyOf(changedValue)) << "value of " << base[i].first;
    auto changedName = base;
    changedName[i].first += "x";
    EXPECT_NE(reference, keyOf(changedName)) << "name of " << base[i].first;
  }
  // Moving a character between name and value, or reordering, changes it.
  auto shifted = base;
  shifted[0] = {"tilelang0", ".1.0"};
  EXPECT_NE(reference, keyOf(shifted));
  auto reordered = base;
  std::swap(reordered[0], reordered[1]);
  EXPECT_NE(reference, keyOf(reordered));
}

TEST(CacheKeyTest, LongValuesAreShownAsDigests) {
  CacheKey key;
  key.add("short", "abc");
  key.add("ir", std::string(201, 'x'));
  auto shown = key.getComponents();
  ASSERT_EQ(shown.size(), 2u);
  EXPECT_EQ(shown[0].second, "abc");
  EXPECT_EQ(shown[1].second, "sha256:" + sha256Hex(std::string(201, 'x')));
}

TEST_F(CacheTest, StoreThenLookup) {
  CompilationCache cache = makeCache();
  EXPECT_EQ(cache.lookup("k1"), nullptr);
  std::string payload = "object bytes\0with a nul"; // binary-safe
  payload.push_back('\0');
  cache.store("k1", payload);
  auto hit = cache.lookup("k1");
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->getBuffer().str(), payload);
  EXPECT_EQ(cache.lookup("k2"), nullptr);
  EXPECT_TRUE(warnings.empty());
}

TEST_F(CacheTest, TruncatedEntryIsReportedDeletedAndRebuilt) {
  CompilationCache cache = makeCache();
  cache.store("key", std::string(1000, 'a'));
  std::string path = cache.getEntryPath("key");
  std::string data = readFile(path);
  writeFile(path, data.substr(0, data.size() / 2));
  EXPECT_EQ(cache.lookup("key"), nullptr);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("corrupt cache entry"), std::string::npos);
  EXPECT_NE(warnings[0].find("truncated"), std::string::npos);
  EXPECT_FALSE(fs::exists(path)) << "a corrupt entry must be deleted";
  cache.store("key", std::string(1000, 'b'));
  auto hit = cache.lookup("key");
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->getBuffer(), std::string(1000, 'b'));
}

TEST_F(CacheTest, GarbageEntryIsReportedAndDeleted) {
  CompilationCache cache = makeCache();
  std::string path = cache.getEntryPath("key");
  writeFile(path, "this is not a cache entry at all, just some garbage bytes "
                  "long enough to hold a header");
  EXPECT_EQ(cache.lookup("key"), nullptr);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("bad header"), std::string::npos);
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(CacheTest, FlippedPayloadByteFailsTheChecksum) {
  CompilationCache cache = makeCache();
  cache.store("key", std::string(100, 'p'));
  std::string path = cache.getEntryPath("key");
  std::string data = readFile(path);
  data.back() ^= 1;
  writeFile(path, data);
  EXPECT_EQ(cache.lookup("key"), nullptr);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("checksum mismatch"), std::string::npos);
}

TEST_F(CacheTest, EntryUnderAnotherKeyIsRejected) {
  CompilationCache cache = makeCache();
  cache.store("a", "payload of a");
  writeFile(cache.getEntryPath("b"), readFile(cache.getEntryPath("a")));
  EXPECT_EQ(cache.lookup("b"), nullptr);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("another key"), std::string::npos);
  EXPECT_NE(cache.lookup("a"), nullptr);
}

TEST_F(CacheTest, EvictsLeastRecentlyUsedFirst) {
  const std::string payload(1000, 'x');
  // Room for two entries (each ~1.1 KB), not three.
  CompilationCache cache = makeCache(2500);
  cache.store("a", payload);
  cache.store("b", payload);
  setAge(cache.getEntryPath("a"), 100);
  setAge(cache.getEntryPath("b"), 50);
  // Using `a` makes `b` the least recently used.
  ASSERT_NE(cache.lookup("a"), nullptr);
  cache.store("c", payload);
  EXPECT_TRUE(fs::exists(cache.getEntryPath("a")));
  EXPECT_FALSE(fs::exists(cache.getEntryPath("b")));
  EXPECT_TRUE(fs::exists(cache.getEntryPath("c")));
  // Then `c` is newer than `a`: storing `d` evicts `a`.
  setAge(cache.getEntryPath("a"), 20);
  setAge(cache.getEntryPath("c"), 10);
  cache.store("d", payload);
  EXPECT_FALSE(fs::exists(cache.getEntryPath("a")));
  EXPECT_TRUE(fs::exists(cache.getEntryPath("c")));
  EXPECT_TRUE(fs::exists(cache.getEntryPath("d")));
}

TEST_F(CacheTest, RacingProcessesLeaveOneValidEntry) {
  // Eight processes store the same key (1 MB payloads) and read it back
  // concurrently; every read is either a miss or the full payload, and the
  // directory ends with exactly one valid entry and no temporary files.
  const std::string payload(1 << 20, 'r');
  const int processes = 8;
  std::vector<pid_t> children;
  for (int p = 0; p < processes; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      CompilationCache::Options options;
      options.directory = dir;
      int bad = 0;
      CompilationCache cache(options, [&](const std::string &) { ++bad; });
      for (int i = 0; i < 20; ++i) {
        cache.store("shared-key", payload);
        auto hit = cache.lookup("shared-key");
        if (hit && hit->getBuffer() != payload)
          ++bad;
      }
      _exit(bad == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "a racing process saw a partial or corrupt entry";
  }
  CompilationCache cache = makeCache();
  auto hit = cache.lookup("shared-key");
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->getBuffer(), payload);
  EXPECT_EQ(countFiles(), 1u) << "temporary files were left behind";
  EXPECT_TRUE(warnings.empty());
}

TEST_F(CacheTest, EnvironmentControlsLocationAndSwitch) {
  ::setenv("TILE_CACHE_DIR", dir.c_str(), 1);
  ::unsetenv("TILE_DISABLE_CACHE");
  ::setenv("TILE_CACHE_MAX_BYTES", "12345", 1);
  CompilationCache::Options options = CompilationCache::Options::fromEnvironment();
  EXPECT_EQ(options.directory, dir);
  EXPECT_TRUE(options.enabled);
  EXPECT_EQ(options.maxBytes, 12345u);
  ::setenv("TILE_DISABLE_CACHE", "1", 1);
  options = CompilationCache::Options::fromEnvironment();
  EXPECT_FALSE(options.enabled);
  CompilationCache disabled(options);
  EXPECT_FALSE(disabled.isEnabled());
  disabled.store("key", "payload");
  EXPECT_EQ(disabled.lookup("key"), nullptr);
  EXPECT_EQ(countFiles(), 0u) << "a disabled cache must not write";
  ::unsetenv("TILE_DISABLE_CACHE");
  ::unsetenv("TILE_CACHE_DIR");
  ::unsetenv("TILE_CACHE_MAX_BYTES");
}

TEST_F(CacheTest, UnwritableDirectoryDegradesWithOneWarning) {
  // A directory that cannot be created: below a regular file.
  std::string file = dir + "/plain-file";
  writeFile(file, "x");
  CompilationCache::Options options;
  options.directory = file + "/cache";
  CompilationCache cache(options, [this](const std::string &message) {
    warnings.push_back(message);
  });
  EXPECT_FALSE(cache.isEnabled());
  cache.store("key", "payload");
  EXPECT_EQ(cache.lookup("key"), nullptr);
  ASSERT_EQ(warnings.size(), 1u) << "exactly one warning";
  EXPECT_NE(warnings[0].find("compiling without a cache"), std::string::npos);
}

TEST_F(CacheTest, ARegularFileAsTheDirectoryDegradesWithOneWarning) {
  std::string file = dir + "/plain-file";
  writeFile(file, "x");
  CompilationCache::Options options;
  options.directory = file;
  CompilationCache cache(options, [this](const std::string &message) {
    warnings.push_back(message);
  });
  EXPECT_FALSE(cache.isEnabled());
  cache.store("key", "payload");
  EXPECT_EQ(cache.lookup("key"), nullptr);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("is not a directory"), std::string::npos);
  EXPECT_EQ(readFile(file), "x");
}

TEST_F(CacheTest, ADirectoryOthersCanWriteIsNotUsed) {
  // Group- or world-writable (a shared /tmp-like directory, sticky or not):
  // another user could plant an entry under a key this process computes.
  for (fs::perms mode : {fs::perms::all_all, fs::perms::owner_all |
                                                 fs::perms::group_all,
                         fs::perms::all_all | fs::perms::sticky_bit}) {
    warnings.clear();
    ASSERT_FALSE(fs::setPermissions(dir, mode));
    CompilationCache cache = makeCache();
    EXPECT_FALSE(cache.isEnabled());
    cache.store("key", "payload");
    EXPECT_EQ(cache.lookup("key"), nullptr);
    EXPECT_EQ(countFiles(), 0u);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("writable by other users"), std::string::npos)
        << warnings[0];
  }
  ASSERT_FALSE(fs::setPermissions(dir, fs::perms::owner_all));
  warnings.clear();
  EXPECT_TRUE(makeCache().isEnabled());
  EXPECT_TRUE(warnings.empty());
}

TEST_F(CacheTest, ACreatedDirectoryIsTheOwnersWhateverTheUmask) {
  mode_t old = ::umask(0);
  std::string nested = dir + "/a/b/cache";
  CompilationCache::Options options;
  options.directory = nested;
  CompilationCache cache(options, [this](const std::string &message) {
    warnings.push_back(message);
  });
  ::umask(old);
  EXPECT_TRUE(cache.isEnabled());
  EXPECT_TRUE(warnings.empty());
  for (std::string path : {dir + "/a", dir + "/a/b", nested}) {
    llvm::ErrorOr<fs::perms> mode = fs::getPermissions(path);
    ASSERT_TRUE(bool(mode)) << path;
    EXPECT_EQ(*mode & (fs::perms::group_write | fs::perms::others_write),
              fs::perms::no_perms)
        << path;
  }
}

TEST(CacheSettingsTest, SizesTakeBinarySuffixes) {
  EXPECT_EQ(parseByteSize("12345"), 12345u);
  EXPECT_EQ(parseByteSize(" 0 "), 0u);
  EXPECT_EQ(parseByteSize("500M"), 500u << 20);
  EXPECT_EQ(parseByteSize("1G"), uint64_t(1) << 30);
  EXPECT_EQ(parseByteSize("1g"), uint64_t(1) << 30);
  EXPECT_EQ(parseByteSize("2GB"), uint64_t(2) << 30);
  EXPECT_EQ(parseByteSize("3 GiB"), uint64_t(3) << 30);
  EXPECT_EQ(parseByteSize("64k"), 64u << 10);
  EXPECT_EQ(parseByteSize("1T"), uint64_t(1) << 40);
  EXPECT_EQ(parseByteSize("100B"), 100u);
  for (const char *bad : {"", "lots", "-1", "1.5G", "1e9", "1X", "1GBB", "G",
                          "99999999999999999999", "20000000P"})
    EXPECT_EQ(parseByteSize(bad), std::nullopt) << "'" << bad << "'";
}

TEST(CacheSettingsTest, SwitchesTakeTheUsualWords) {
  for (const char *on : {"1", "true", "TRUE", "yes", "Yes", "on", "y"})
    EXPECT_EQ(parseSwitch(on), true) << on;
  for (const char *off : {"0", "false", "no", "off", "OFF", "n", ""})
    EXPECT_EQ(parseSwitch(off), false) << off;
  for (const char *bad : {"2", "maybe", "disable", "tru"})
    EXPECT_EQ(parseSwitch(bad), std::nullopt) << bad;
}

TEST_F(CacheTest, EnvironmentTakesSuffixesAndKeepsDefaultsOnGarbage) {
  ::setenv("TILE_CACHE_DIR", dir.c_str(), 1);
  ::setenv("TILE_CACHE_MAX_BYTES", "1G", 1);
  ::setenv("TILE_DISABLE_CACHE", "yes", 1);
  CompilationCache::Options options = CompilationCache::Options::fromEnvironment();
  EXPECT_EQ(options.maxBytes, uint64_t(1) << 30);
  EXPECT_FALSE(options.enabled);
  // Unparsable values keep the defaults (and print a warning).
  ::setenv("TILE_CACHE_MAX_BYTES", "lots", 1);
  ::setenv("TILE_DISABLE_CACHE", "maybe", 1);
  options = CompilationCache::Options::fromEnvironment();
  EXPECT_EQ(options.maxBytes, CompilationCache::Options().maxBytes);
  EXPECT_TRUE(options.enabled);
  ::unsetenv("TILE_DISABLE_CACHE");
  ::unsetenv("TILE_CACHE_DIR");
  ::unsetenv("TILE_CACHE_MAX_BYTES");
}

TEST_F(CacheTest, EntriesArePrunableAndTemporariesAreNot) {
  CompilationCache cache = makeCache();
  cache.store("k", "payload");
  std::string entry = cache.getEntryPath("k");
  llvm::StringRef name = llvm::sys::path::filename(entry);
  EXPECT_TRUE(name.starts_with("llvmcache-")) << name.str();
  EXPECT_TRUE(fs::exists(cache.getEntryPath("k")));
  // Files of other programs in the directory are never evicted.
  writeFile(dir + "/notes.txt", std::string(4000, 'n'));
  CompilationCache tiny = makeCache(1);
  tiny.store("other", std::string(100, 'o'));
  EXPECT_TRUE(fs::exists(dir + "/notes.txt"));
  EXPECT_FALSE(fs::exists(cache.getEntryPath("k")));
}

TEST_F(CacheTest, AFullFilesystemTurnsTheCacheOffWithOneWarning) {
  // A child process whose files may not grow past 4 KiB (RLIMIT_FSIZE): a
  // write beyond it fails as on a full disk (EFBIG, SIGXFSZ ignored).
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {4096, 4096};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
      _exit(10);
    std::vector<std::string> seen;
    CompilationCache::Options options;
    options.directory = dir;
    CompilationCache cache(options, [&](const std::string &message) {
      seen.push_back(message);
    });
    cache.store("big", std::string(1 << 20, 'b'));
    if (seen.size() != 1 ||
        seen[0].find("compiling without a cache") == std::string::npos)
      _exit(11);
    if (cache.isEnabled() || cache.lookup("big"))
      _exit(12);
    cache.store("again", std::string(1 << 20, 'a'));
    _exit(seen.size() == 1 ? 0 : 13);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the store crashed (signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(countFiles(), 0u) << "the partial entry was left behind";
}

} // namespace
