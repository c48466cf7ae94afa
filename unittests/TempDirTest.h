//===- TempDirTest.h - A test fixture with a fresh directory ----*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_UNITTESTS_TEMPDIRTEST_H
#define TILELANG_UNITTESTS_TEMPDIRTEST_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <string>

namespace mlir::tile::testing {

/// A fresh, empty directory per test (`dir`), removed afterwards.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tile-test", path));
    dir = std::string(path);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// The number of files in `dir`, not counting the time stamp that
  /// llvm::pruneCache keeps there (llvmcache.timestamp).
  size_t countFiles() const {
    size_t n = 0;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end;
         !ec && it != end; it.increment(ec))
      n += !llvm::StringRef(it->path()).ends_with("/llvmcache.timestamp");
    return n;
  }

  std::string dir;
};

} // namespace mlir::tile::testing

#endif // TILELANG_UNITTESTS_TEMPDIRTEST_H
