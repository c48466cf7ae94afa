//===- CUDARuntimeTest.cpp - The CUDA runtime without or with a driver --===//
//
// Part of TileLang-MLIR.
//
// Without a driver (this machine, CI) every entry point must fail cleanly
// with a message that names the missing piece; with a GPU, memory round-trips.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Runtime/CUDARuntime.h"

#include "gtest/gtest.h"

#include <dlfcn.h>
#include <vector>

using namespace mlir::tile;

namespace {

bool haveDriver() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib)
    dlclose(lib);
  return lib != nullptr;
}

TEST(CUDARuntimeTest, NoDriverIsAClearErrorNotACrash) {
  if (haveDriver())
    GTEST_SKIP() << "a CUDA driver is installed";
  llvm::Error err = runtime::initCUDA();
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err))
                .find("no CUDA driver: cannot load libcuda.so.1"),
            std::string::npos);

  // The C entry points of JIT-compiled code record the error and return.
  char blob[16] = {};
  EXPECT_EQ(mgpuModuleLoad(blob, sizeof(blob)), nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(nullptr, "k"), nullptr);
  mgpuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr,
                   0);
  mgpuLaunchClusterKernel(nullptr, 2, 1, 1, 2, 1, 1, 32, 1, 1, 0, nullptr,
                          nullptr, nullptr);
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  int64_t descriptor[7] = {}, box[2] = {64, 64};
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, descriptor, 6, 0, 3, 0, 0, box),
            nullptr);
  llvm::Error first = runtime::takeError();
  ASSERT_TRUE(bool(first));
  EXPECT_EQ(llvm::toString(std::move(first)),
            "mgpuModuleLoad: no CUDA driver: cannot load libcuda.so.1 "
            "(libcuda.so.1: cannot open shared object file: No such file or "
            "directory)");
  // Taking the error clears it.
  EXPECT_FALSE(bool(runtime::takeError()));

  auto device = runtime::allocate(64);
  ASSERT_FALSE(bool(device));
  llvm::consumeError(device.takeError());
  auto cc = runtime::getComputeCapability();
  ASSERT_FALSE(bool(cc));
  llvm::consumeError(cc.takeError());
  auto sms = runtime::getDeviceAttribute(/*MULTIPROCESSOR_COUNT=*/16, 0);
  ASSERT_FALSE(bool(sms));
  EXPECT_NE(llvm::toString(sms.takeError())
                .find("no CUDA driver: cannot load libcuda.so.1"),
            std::string::npos);
}

TEST(CUDARuntimeTest, SymbolsCoverTheHostLowering) {
  auto symbols = runtime::getSymbols();
  auto has = [&](llvm::StringRef name) {
    return llvm::any_of(symbols, [&](auto &s) { return s.first == name && s.second; });
  };
  for (const char *name :
       {"mgpuModuleLoad", "mgpuModuleUnload", "mgpuModuleGetFunction",
        "mgpuLaunchKernel", "mgpuLaunchClusterKernel", "mgpuStreamCreate", "mgpuStreamSynchronize",
        "mgpuStreamDestroy", "mgpuMemAlloc", "mgpuMemFree", "mgpuMemcpy",
        "mgpuEventCreate", "mgpuEventRecord", "mgpuEventSynchronize",
        "mgpuEventDestroy", "mgpuStreamWaitEvent", "mgpuMemset32",
        "mgpuTensorMapEncodeTiledMemref", "tileTensorMapEncode",
        "tileMultiprocessorCount", "tileProgrammaticLaunch",
        "tileAssumeFailed"})
    EXPECT_TRUE(has(name)) << name;
}

TEST(CUDARuntimeTest, DeviceMemoryRoundTrip) {
  if (llvm::Error err = runtime::initCUDA()) {
    GTEST_SKIP() << "no GPU here: " << llvm::toString(std::move(err));
  }
  std::vector<float> host(1000), back(1000, 0);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = 0.5f * i;
  auto device = runtime::allocate(host.size() * sizeof(float));
  ASSERT_TRUE(bool(device)) << llvm::toString(device.takeError());
  ASSERT_FALSE(bool(runtime::copyToDevice(*device, host.data(), 4000)));
  ASSERT_FALSE(bool(runtime::copyToHost(back.data(), *device, 4000)));
  EXPECT_EQ(host, back);
  runtime::release(*device);
}

} // namespace
