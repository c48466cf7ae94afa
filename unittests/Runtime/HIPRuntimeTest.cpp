//===- HIPRuntimeTest.cpp - The HIP runtime without a HIP runtime -------===//
//
// Part of TileLang-MLIR.
//
// No AMD GPU or ROCm runtime exists in this workplace: every entry point
// must fail cleanly with a message that names the missing piece, through
// the same error slot as the CUDA runtime.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Runtime/HIPRuntime.h"

#include "TileLang/Runtime/CUDARuntime.h"

#include "gtest/gtest.h"

#include <dlfcn.h>

using namespace mlir::tile;

namespace {

bool haveHIP() {
  void *lib = dlopen("libamdhip64.so", RTLD_NOW | RTLD_LOCAL);
  if (lib)
    dlclose(lib);
  return lib != nullptr;
}

template <typename Fn> Fn symbol(llvm::StringRef name) {
  for (auto [symbolName, address] : runtime::hip::getSymbols())
    if (symbolName == name)
      return reinterpret_cast<Fn>(address);
  return nullptr;
}

TEST(HIPRuntimeTest, NoRuntimeIsAClearErrorNotACrash) {
  if (haveHIP())
    GTEST_SKIP() << "a HIP runtime is installed";
  llvm::consumeError(runtime::takeError());
  llvm::Error err = runtime::hip::initHIP();
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err))
                .find("no HIP runtime: cannot load libamdhip64.so"),
            std::string::npos);

  // The entry points JIT-compiled ROCm host code calls record and return.
  auto moduleLoad = symbol<void *(*)(void *, size_t)>("mgpuModuleLoad");
  auto streamCreate = symbol<void *(*)()>("mgpuStreamCreate");
  auto launch = symbol<void (*)(void *, intptr_t, intptr_t, intptr_t,
                                intptr_t, intptr_t, intptr_t, int32_t, void *,
                                void **, void **, size_t)>("mgpuLaunchKernel");
  ASSERT_TRUE(moduleLoad && streamCreate && launch);
  char blob[16] = {};
  EXPECT_EQ(moduleLoad(blob, sizeof(blob)), nullptr);
  EXPECT_EQ(streamCreate(), nullptr);
  launch(nullptr, 1, 1, 1, 64, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  llvm::Error first = runtime::takeError();
  ASSERT_TRUE(bool(first));
  EXPECT_EQ(llvm::StringRef(llvm::toString(std::move(first)))
                .starts_with("mgpuModuleLoad: no HIP runtime: cannot load "
                             "libamdhip64.so"),
            true);
  EXPECT_FALSE(bool(runtime::takeError()));

  auto device = runtime::hip::allocate(64);
  ASSERT_FALSE(bool(device));
  llvm::consumeError(device.takeError());
  char host[4] = {};
  llvm::Error copy = runtime::hip::copyToDevice(host, host, sizeof(host));
  ASSERT_TRUE(bool(copy));
  llvm::consumeError(std::move(copy));
}

TEST(HIPRuntimeTest, ClustersAreRefused) {
  auto launch = symbol<void (*)(void *, intptr_t, intptr_t, intptr_t,
                                intptr_t, intptr_t, intptr_t, intptr_t,
                                intptr_t, intptr_t, int32_t, void *, void **,
                                void **)>("mgpuLaunchClusterKernel");
  ASSERT_TRUE(launch);
  llvm::consumeError(runtime::takeError());
  launch(nullptr, 2, 1, 1, 2, 1, 1, 64, 1, 1, 0, nullptr, nullptr, nullptr);
  llvm::Error err = runtime::takeError();
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("no thread block clusters"),
            std::string::npos);
}

/// A 64-byte ELF64 little-endian header with `machine` and `flags`.
static std::string elfHeader(uint16_t machine, uint32_t flags) {
  std::string header(64, '\0');
  header.replace(0, 4, "\x7f" "ELF");
  header[4] = 2; // ELFCLASS64
  header[5] = 1; // ELFDATA2LSB
  header[18] = char(machine & 0xff);
  header[19] = char(machine >> 8);
  for (int i = 0; i < 4; ++i)
    header[48 + i] = char((flags >> (8 * i)) & 0xff);
  return header;
}

TEST(HIPRuntimeTest, CodeObjectArchitecture) {
  // e_flags: the mach in the low byte (0x4c gfx942, 0x41 gfx1100), feature
  // bits above it.
  EXPECT_EQ(runtime::hip::getCodeObjectArch(elfHeader(224, 0x34c)), "gfx942");
  EXPECT_EQ(runtime::hip::getCodeObjectArch(elfHeader(224, 0x041)),
            "gfx1100");
  EXPECT_EQ(runtime::hip::getCodeObjectArch(elfHeader(224, 0x03f)), "gfx90a");
  EXPECT_EQ(runtime::hip::getCodeObjectArch(elfHeader(224, 0x0ee)),
            "amdgcn mach ee");
  // Not an AMDGPU code object: x86-64, truncated, not ELF.
  EXPECT_EQ(runtime::hip::getCodeObjectArch(elfHeader(62, 0x4c)), "");
  EXPECT_EQ(runtime::hip::getCodeObjectArch(elfHeader(224, 0x4c).substr(0, 40)),
            "");
  EXPECT_EQ(runtime::hip::getCodeObjectArch("not an ELF file at all, but long "
                                            "enough to have a header........."),
            "");
}

TEST(HIPRuntimeTest, SymbolsCoverTheHostLowering) {
  auto symbols = runtime::hip::getSymbols();
  auto cuda = runtime::getSymbols();
  // The CUDA runtime's names bound to HIP's own functions, but for what
  // only NVIDIA host code calls (programmatic launches: none here) and the
  // target-independent failure of a tile.assume (the same function).
  ASSERT_EQ(symbols.size() + 1, cuda.size());
  for (auto [name, address] : cuda) {
    void *hip = nullptr;
    for (auto [hipName, hipAddress] : symbols)
      if (hipName == name)
        hip = hipAddress;
    if (name == "tileProgrammaticLaunch") {
      EXPECT_FALSE(hip) << name.str();
      continue;
    }
    EXPECT_TRUE(hip) << name.str();
    if (name == "tileAssumeFailed")
      EXPECT_EQ(hip, address) << name.str();
    else
      EXPECT_NE(hip, address) << name.str();
  }
}

} // namespace
