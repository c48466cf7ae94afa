//===- KernelTest.cpp - Tests of the JIT driver API ---------------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/JIT/JIT.h"

#include "../TempDirTest.h"

#include "TileLang/Registration/Registration.h"
#include "TileLang/Runtime/CUDARuntime.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <cmath>
#include <string>
#include <vector>

using namespace mlir::tile::jit;
namespace fs = llvm::sys::fs;

namespace {

/// out[i, j] = in[i, j] * s over 16x16 tiles, edges included.
const char *kScale = R"mlir(
func.func @scale(%in: memref<?x?xf32>, %out: memref<?x?xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %m = memref.dim %in, %c0 : memref<?x?xf32>
  %n = memref.dim %in, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %n, %c16 : index
  %gy = arith.ceildivui %m, %c16 : index
  tile.kernel grid(%gx, %gy) threads(64) -> (%bx, %by) {
    %t = tile.alloc_fragment : memref<16x16xf32, #tile.mem<fragment>>
    %r = arith.muli %by, %c16 : index
    %c = arith.muli %bx, %c16 : index
    tile.copy %in[%r, %c] to %t : memref<?x?xf32> to memref<16x16xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (16, 16) {
      %v = memref.load %t[%i, %j] : memref<16x16xf32, #tile.mem<fragment>>
      %w = arith.mulf %v, %s : f32
      memref.store %w, %t[%i, %j] : memref<16x16xf32, #tile.mem<fragment>>
    }
    tile.copy %t to %out[%r, %c] : memref<16x16xf32, #tile.mem<fragment>> to memref<?x?xf32>
  }
  return
}
)mlir";

/// The same with `s` a compile-time parameter.
std::string scaleConstexpr() {
  std::string text = kScale;
  text.replace(text.find("%s: f32"), 7, "%s: f32 {tile.constexpr}");
  return text;
}

/// Kernels whose cache lives in a fresh directory per test.
class KernelTest : public mlir::tile::testing::TempDirTest {
protected:
  CompileOptions options() {
    CompileOptions opts;
    opts.cache.directory = dir;
    opts.cache.enabled = true;
    return opts;
  }
};

struct Matrix {
  int64_t rows, cols;
  std::vector<float> data;
  Matrix(int64_t r, int64_t c, float fill) : rows(r), cols(c), data(r * c, fill) {}
  BufferArg arg() {
    BufferArg a;
    a.data = data.data();
    a.dtype = DType::F32;
    a.shape = {rows, cols};
    return a;
  }
};

void runScale(Kernel &kernel, int64_t rows, int64_t cols, float s) {
  Matrix in(rows, cols, 0), out(rows, cols, NAN);
  for (size_t i = 0; i < in.data.size(); ++i)
    in.data[i] = static_cast<float>(i % 97) - 40.0f;
  llvm::Error err = kernel.run({in.arg(), out.arg(), ScalarArg{double(s)}});
  ASSERT_FALSE(err) << llvm::toString(std::move(err));
  for (size_t i = 0; i < in.data.size(); ++i)
    ASSERT_EQ(out.data[i], in.data[i] * s) << "element " << i;
}

// The JIT's __truncsfbf2 rounds as APFloat does (to nearest, ties to
// even): around every bf16 step (below, at, above the halfway point, at
// each end of the f32 range between), through denormals, the largest
// finite values (rounding up to infinity) and infinities; NaNs stay NaNs.
TEST(BFloat16Test, TruncationRoundsToNearestEven) {
  const uint32_t lows[] = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff};
  for (uint32_t high = 0; high <= 0xffff; ++high)
    for (uint32_t low : lows) {
      float value = llvm::bit_cast<float>((high << 16) | low);
      uint16_t bits = truncateToBFloat16(value);
      if (std::isnan(value)) {
        ASSERT_EQ(bits & 0x7f80u, 0x7f80u) << "NaN stays NaN";
        ASSERT_NE(bits & 0x7fu, 0u) << "NaN stays NaN";
        continue;
      }
      llvm::APFloat expected(value);
      bool lost;
      expected.convert(llvm::APFloat::BFloat(),
                       llvm::APFloat::rmNearestTiesToEven, &lost);
      ASSERT_EQ(bits, expected.bitcastToAPInt().getZExtValue())
          << "f32 bits " << ((high << 16) | low);
    }
}

// The JIT's half conversions (__truncdfhf2, __truncsfhf2, __extendhfsf2)
// agree with APFloat: every half extends exactly; doubles at each half,
// at the halfway points between neighbours and one double ulp either side
// of them (ties to even), across subnormals, past the largest finite value
// (to infinity), below the smallest subnormal (to zero), and random
// doubles of every exponent round as APFloat rounds them.
TEST(HalfTest, ConversionsMatchAPFloat) {
  auto expected = [](double value) {
    llvm::APFloat converted(value);
    bool lost;
    converted.convert(llvm::APFloat::IEEEhalf(),
                      llvm::APFloat::rmNearestTiesToEven, &lost);
    return converted.bitcastToAPInt().getZExtValue();
  };
  auto check = [&](double value) {
    uint16_t bits = truncateToHalf(value);
    if (std::isnan(value)) {
      ASSERT_EQ(bits & 0x7e00u, 0x7e00u) << "NaN stays a quiet NaN";
      return;
    }
    ASSERT_EQ(bits, expected(value)) << llvm::formatv("{0:e17}", value).str();
    ASSERT_EQ(truncateToHalf(static_cast<double>(static_cast<float>(value))),
              expected(static_cast<float>(value)));
  };
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    float value = extendHalf(static_cast<uint16_t>(h));
    llvm::APFloat half(llvm::APFloat::IEEEhalf(), llvm::APInt(16, h));
    bool lost;
    half.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
                 &lost);
    if (std::isnan(value)) {
      ASSERT_TRUE(half.isNaN()) << h;
      continue;
    }
    ASSERT_EQ(llvm::bit_cast<uint32_t>(value),
              half.bitcastToAPInt().getZExtValue()) << "half bits " << h;
    if ((h & 0x7fffu) >= 0x7c00u)
      continue;
    double here = value;
    double next = (h & 0x7fffu) == 0x7bffu
                      ? std::copysign(65520.0, here) // The rounding boundary.
                      : static_cast<double>(extendHalf(static_cast<uint16_t>(h + 1)));
    double middle = (here + next) / 2;
    for (double v : {here, middle, std::nextafter(middle, here),
                     std::nextafter(middle, next), next})
      check(v);
  }
  llvm::SmallVector<double> special = {0x1p-25, 0x1p-26, 0x1.8p-25, 0x1p-1074,
                                       1e300, -1e300, 65519.99, 65520.0,
                                       INFINITY, -INFINITY, NAN};
  for (double v : special)
    check(v);
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 200000; ++i) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    // Exponents from below the smallest subnormal to past the largest.
    uint64_t exponent = 1023 - 30 + (state >> 52) % 48;
    check(llvm::bit_cast<double>((state & ((1ull << 52) - 1)) | (exponent << 52) |
                                 (state & (1ull << 63))));
  }
}

TEST_F(KernelTest, RunsWithEdgeTiles) {
  auto kernel = Kernel::create(kScale, options());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ((*kernel)->getEntry(), "scale");
  ASSERT_EQ((*kernel)->getParams().size(), 3u);
  EXPECT_EQ((*kernel)->getParams()[0].describe(), "memref<?x?xf32>");
  runScale(**kernel, 37, 50, 3.0f); // not multiples of 16
  runScale(**kernel, 16, 16, -2.0f);
}

// FP8 buffers cross the boundary as bytes: every e4m3fn and every e5m2 bit
// pattern in, widened to f32 by the kernel (checked against APFloat), the
// e5m2 bytes also copied through unchanged; an e4m3fn scalar rounds as
// APFloat rounds.
TEST_F(KernelTest, FP8BuffersAndScalars) {
  const char *text = R"mlir(
func.func @widen(%a: memref<256xf8E4M3FN>, %b: memref<256xf8E5M2>,
                 %wa: memref<256xf32>, %wb: memref<256xf32>,
                 %copy: memref<256xf8E5M2>, %s: f8E4M3FN) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) -> (%bx) {
    tile.parallel (%i) in (256) {
      %t = arith.extf %s : f8E4M3FN to f32
      %va = memref.load %a[%i] : memref<256xf8E4M3FN>
      %xa = arith.extf %va : f8E4M3FN to f32
      %pa = arith.addf %xa, %t : f32
      memref.store %pa, %wa[%i] : memref<256xf32>
      %vb = memref.load %b[%i] : memref<256xf8E5M2>
      %xb = arith.extf %vb : f8E5M2 to f32
      memref.store %xb, %wb[%i] : memref<256xf32>
      memref.store %vb, %copy[%i] : memref<256xf8E5M2>
    }
  }
  return
}
)mlir";
  auto kernel = Kernel::create(text, options());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ((*kernel)->getParams()[0].describe(), "memref<256xf8E4M3FN>");
  EXPECT_EQ(getByteSize(DType::F8E5M2), 1);
  EXPECT_EQ(parseDType("f8E5M2"), DType::F8E5M2);
  std::vector<uint8_t> bits(256), copy(256, 0);
  std::vector<float> wa(256, NAN), wb(256, NAN);
  for (int i = 0; i < 256; ++i)
    bits[i] = static_cast<uint8_t>(i);
  auto buffer = [](void *data, DType dtype) {
    BufferArg a;
    a.data = data;
    a.dtype = dtype;
    a.shape = {256};
    return a;
  };
  llvm::Error err = (*kernel)->run(
      {buffer(bits.data(), DType::F8E4M3FN), buffer(bits.data(), DType::F8E5M2),
       buffer(wa.data(), DType::F32), buffer(wb.data(), DType::F32),
       buffer(copy.data(), DType::F8E5M2), ScalarArg{0.30}});
  ASSERT_FALSE(err) << llvm::toString(std::move(err));
  uint8_t sBits;
  writeElement(DType::F8E4M3FN, &sBits, ScalarArg{0.30});
  double s = readElement(DType::F8E4M3FN, &sBits);
  EXPECT_EQ(s, 0.3125); // 0.30 to the nearest e4m3fn
  EXPECT_EQ(copy, bits);
  for (int i = 0; i < 256; ++i) {
    for (bool e5m2 : {false, true}) {
      llvm::APFloat value(e5m2 ? llvm::APFloat::Float8E5M2()
                               : llvm::APFloat::Float8E4M3FN(),
                          llvm::APInt(8, i));
      float got = e5m2 ? wb[i] : wa[i];
      if (value.isNaN()) {
        EXPECT_TRUE(std::isnan(got)) << i;
        continue;
      }
      double expected = value.convertToDouble();
      EXPECT_EQ(got, static_cast<float>(e5m2 ? expected : expected + s))
          << (e5m2 ? "e5m2" : "e4m3fn") << " bits " << i;
      EXPECT_EQ(readElement(e5m2 ? DType::F8E5M2 : DType::F8E4M3FN, &bits[i]),
                expected);
    }
  }
}

TEST_F(KernelTest, FromABuiltModule) {
  mlir::DialectRegistry registry;
  mlir::tile::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kScale, &ctx);
  ASSERT_TRUE(module);
  auto kernel = Kernel::create(*module, options());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  runScale(**kernel, 19, 23, 1.25f);
}

TEST_F(KernelTest, SpecializationsCoexistAndCompileOnce) {
  auto kernel = Kernel::create(kScale, options());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  runScale(**kernel, 20, 30, 2.0f);
  runScale(**kernel, 33, 7, 2.0f);
  EXPECT_EQ((*kernel)->getNumSpecializations(), 2u);
  runScale(**kernel, 20, 30, 5.0f); // same shapes: no new specialization
  EXPECT_EQ((*kernel)->getNumSpecializations(), 2u);
  EXPECT_EQ(countFiles(), 2u);

  // A new kernel object (a new process, as far as the cache knows) hits.
  auto again = Kernel::create(kScale, options());
  ASSERT_TRUE(bool(again));
  Matrix in(20, 30, 1), out(20, 30, 0);
  auto report = (*again)->prepare({in.arg(), out.arg(), ScalarArg{1.0}});
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  EXPECT_TRUE(report->cacheHit);
  // Each buffer's shape and the 16-byte alignment of its data.
  ASSERT_EQ(report->specialization.size(), 4u);
  EXPECT_EQ(report->specialization[0], "arg0.shape=20x30");
  EXPECT_EQ(report->specialization[1], "arg0.align=16");
  EXPECT_EQ(report->specialization[2], "arg1.shape=20x30");
  EXPECT_EQ(report->specialization[3], "arg1.align=16");
  runScale(**again, 20, 30, 4.0f);
}

TEST_F(KernelTest, VerifyingEveryPassChangesNothingButTime) {
  // The verifier between passes is a debugging aid: a kernel compiled with
  // it runs the same and shares the cache entry of one compiled without.
  CompileOptions verifying = options();
  verifying.verifyPasses = true;
  auto checked = Kernel::create(kScale, verifying);
  ASSERT_TRUE(bool(checked)) << llvm::toString(checked.takeError());
  runScale(**checked, 21, 18, 1.5f);
  EXPECT_EQ(countFiles(), 1u);
  auto plain = Kernel::create(kScale, options());
  ASSERT_TRUE(bool(plain)) << llvm::toString(plain.takeError());
  Matrix in(21, 18, 1), out(21, 18, 0);
  auto report = (*plain)->prepare({in.arg(), out.arg(), ScalarArg{1.0}});
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  EXPECT_TRUE(report->cacheHit);
  runScale(**plain, 21, 18, 1.5f);
  // A cold compile without the verifier between passes.
  CompileOptions uncached = options();
  uncached.cache.enabled = false;
  auto cold = Kernel::create(kScale, uncached);
  ASSERT_TRUE(bool(cold)) << llvm::toString(cold.takeError());
  runScale(**cold, 21, 18, -0.5f);
}

TEST_F(KernelTest, ViewsStartAtTheirOffset) {
  // `offset` elements past `data`: the kernel (specialized to a static
  // shape with an identity layout) sees the view from there.
  auto kernel = Kernel::create(kScale, options());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  const int64_t rows = 17, cols = 16, skip = 4;
  std::vector<float> in(rows * cols + skip), out(rows * cols + skip, -1.0f);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = float(i);
  auto view = [&](std::vector<float> &storage) {
    BufferArg a;
    a.data = storage.data();
    a.offset = skip;
    a.dtype = DType::F32;
    a.shape = {rows, cols};
    return a;
  };
  llvm::Error err = (*kernel)->run({view(in), view(out), ScalarArg{3.0}});
  ASSERT_FALSE(err) << llvm::toString(std::move(err));
  for (int64_t i = 0; i < skip; ++i)
    EXPECT_EQ(out[i], -1.0f) << "before the view: " << i;
  for (int64_t i = 0; i < rows * cols; ++i)
    ASSERT_EQ(out[skip + i], 3.0f * in[skip + i]) << "element " << i;
}

TEST_F(KernelTest, MisalignedDataIsItsOwnSpecialization) {
  // Data one float past a 16-byte boundary: compiled without the alignment
  // (its vector accesses checked at run time, elements moved one by one),
  // a specialization apart from the aligned one, and still right.
  auto kernel = Kernel::create(kScale, options());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  const int64_t rows = 20, cols = 32;
  std::vector<float> in(rows * cols + 4), out(rows * cols + 4, 0.0f);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = float(i % 7) - 3.0f;
  auto view = [&](std::vector<float> &storage, size_t skip) {
    BufferArg a;
    a.data = storage.data() + skip;
    a.dtype = DType::F32;
    a.shape = {rows, cols};
    return a;
  };
  size_t skip = 0;
  while (reinterpret_cast<uintptr_t>(in.data() + skip) % 16 != 4)
    ++skip;
  size_t outSkip = 0;
  while (reinterpret_cast<uintptr_t>(out.data() + outSkip) % 16 != 4)
    ++outSkip;
  auto report = (*kernel)->prepare(
      {view(in, skip), view(out, outSkip), ScalarArg{2.0}});
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  EXPECT_EQ(report->specialization.size(), 2u); // shapes only
  ASSERT_FALSE(bool((*kernel)->run(
      {view(in, skip), view(out, outSkip), ScalarArg{2.0}})));
  for (int64_t i = 0; i < rows * cols; ++i)
    ASSERT_EQ(out[outSkip + i], 2.0f * in[skip + i]) << "element " << i;
  runScale(**kernel, rows, cols, 3.0f); // aligned: another specialization
  EXPECT_EQ((*kernel)->getNumSpecializations(), 2u);
}

TEST_F(KernelTest, WithoutShapeSpecializationOneBinaryServesAllShapes) {
  CompileOptions opts = options();
  opts.specializeShapes = false;
  auto kernel = Kernel::create(kScale, opts);
  ASSERT_TRUE(bool(kernel));
  runScale(**kernel, 20, 30, 2.0f);
  runScale(**kernel, 33, 7, 2.0f);
  EXPECT_EQ((*kernel)->getNumSpecializations(), 1u);
}

TEST_F(KernelTest, IsPreparedOnceTheSpecializationIsLoaded) {
  auto kernel = Kernel::create(kScale, options());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  Matrix in(20, 30, 1), out(20, 30, 0), other(21, 30, 1);
  EXPECT_FALSE((*kernel)->isPrepared({in.arg(), out.arg(), ScalarArg{1.0}}));
  runScale(**kernel, 20, 30, 2.0f);
  EXPECT_TRUE((*kernel)->isPrepared({in.arg(), out.arg(), ScalarArg{1.0}}));
  // Another shape is another specialization; arguments that do not match
  // the parameters (a scalar for a buffer, a wrong rank) are not prepared.
  EXPECT_FALSE(
      (*kernel)->isPrepared({other.arg(), other.arg(), ScalarArg{1.0}}));
  EXPECT_FALSE((*kernel)->isPrepared({in.arg(), ScalarArg{1.0}, in.arg()}));
  BufferArg flat = in.arg();
  flat.shape = {600};
  flat.strides.clear();
  EXPECT_FALSE((*kernel)->isPrepared({flat, out.arg(), ScalarArg{1.0}}));
  EXPECT_FALSE((*kernel)->isPrepared({in.arg()}));
}

TEST_F(KernelTest, ConstexprParametersSpecialize) {
  auto kernel = Kernel::create(scaleConstexpr(), options());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_TRUE((*kernel)->getParams()[2].isConstexpr);
  runScale(**kernel, 17, 17, 2.0f);
  runScale(**kernel, 17, 17, 0.5f);
  EXPECT_EQ((*kernel)->getNumSpecializations(), 2u);
  runScale(**kernel, 17, 17, 2.0f);
  EXPECT_EQ((*kernel)->getNumSpecializations(), 2u);
}

TEST_F(KernelTest, DisabledCacheWritesNothing) {
  CompileOptions opts = options();
  opts.cache.enabled = false;
  auto kernel = Kernel::create(kScale, opts);
  ASSERT_TRUE(bool(kernel));
  runScale(**kernel, 5, 5, 2.0f);
  EXPECT_EQ(countFiles(), 0u);
}

/// The error message of `kernel.run(args)`, or "" when it succeeds.
std::string runError(Kernel &kernel, llvm::ArrayRef<KernelArg> args) {
  llvm::Error err = kernel.run(args);
  return err ? llvm::toString(std::move(err)) : "";
}

TEST_F(KernelTest, UnsignedBuffersAndScalars) {
  // A uint8 buffer widened by zeros and a uint32 scalar above INT32_MAX
  // (its bits) added: the JIT takes unsigned arguments where the entry
  // marks them `tile.unsigned` and checks their range.
  const char *text = R"mlir(
func.func @widen(%a: memref<256xi8> {tile.unsigned},
                 %out: memref<256xi32> {tile.unsigned},
                 %s: i32 {tile.unsigned}) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) -> (%bx) {
    tile.parallel (%i) in (256) {
      %v = memref.load %a[%i] : memref<256xi8>
      %w = arith.extui %v : i8 to i32
      %r = arith.addi %w, %s : i32
      memref.store %r, %out[%i] : memref<256xi32>
    }
  }
  return
}
)mlir";
  auto kernel = Kernel::create(text, options());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ((*kernel)->getParams()[0].describe(), "memref<256xui8>");
  EXPECT_EQ((*kernel)->getParams()[2].describe(), "ui32");
  EXPECT_EQ(parseDType("ui64"), DType::U64);
  EXPECT_TRUE(isUnsigned(DType::U16));
  EXPECT_FALSE(isUnsigned(DType::I16));
  std::vector<uint8_t> a(256);
  std::vector<uint32_t> out(256, 0x5A5A5A5A);
  for (int i = 0; i < 256; ++i)
    a[i] = static_cast<uint8_t>(255 - i);
  BufferArg in, result;
  in.data = a.data();
  in.dtype = DType::U8;
  in.shape = {256};
  result.data = out.data();
  result.dtype = DType::U32;
  result.shape = {256};
  llvm::Error err = (*kernel)->run({in, result, ScalarArg{int64_t(3000000000)}});
  ASSERT_FALSE(err) << llvm::toString(std::move(err));
  for (int i = 0; i < 256; ++i)
    EXPECT_EQ(out[i], 3000000000u + a[i]) << i;

  EXPECT_EQ(runError(**kernel, {in, result, ScalarArg{int64_t(-1)}}),
            "argument #2 ('arg2', ui32): -1 is out of the range of ui32 (0 to "
            "4294967295)");
  EXPECT_EQ(runError(**kernel, {in, result, ScalarArg{int64_t(1) << 32}}),
            "argument #2 ('arg2', ui32): 4294967296 is out of the range of "
            "ui32 (0 to 4294967295)");
  BufferArg signedIn = in;
  signedIn.dtype = DType::I8;
  EXPECT_EQ(runError(**kernel, {signedIn, result, ScalarArg{int64_t(0)}}),
            "argument #0 ('arg0', memref<256xui8>): expected element type "
            "ui8, got i8");
  uint8_t byte;
  writeElement(DType::U8, &byte, ScalarArg{int64_t(200)});
  EXPECT_EQ(readElement(DType::U8, &byte), 200.0);
  uint64_t word;
  writeElement(DType::U64, &word, ScalarArg{int64_t(-1)});
  EXPECT_EQ(readElement(DType::U64, &word), 18446744073709551615.0);

  auto bad = Kernel::create(R"mlir(
func.func @f(%x: f32 {tile.unsigned}) {
  return
}
)mlir",
                            options());
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError())
                .find("`tile.unsigned` marks integers of 8 to 64 bits, not 'f32'"),
            std::string::npos);
}

TEST_F(KernelTest, UnusedBuffersMayBeNull) {
  // The second buffer is never used: a null one is accepted (TileLang's
  // optional tensors), and the parameter says it is unused.
  auto kernel = Kernel::create(R"mlir(
func.func @fill(%out: memref<4xf32>, %unused: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %out[%c0] : memref<4xf32>
  return
}
)mlir",
                               options());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  ASSERT_EQ((*kernel)->getParams().size(), 2u);
  EXPECT_TRUE((*kernel)->getParams()[0].isUsed);
  EXPECT_FALSE((*kernel)->getParams()[1].isUsed);
  float out[4] = {0, 0, 0, 0};
  BufferArg result{out, DType::F32, {4}};
  BufferArg null{nullptr, DType::F32, {8}};
  ASSERT_FALSE(bool((*kernel)->run({result, null})));
  EXPECT_EQ(out[0], 1.0f);
}

TEST_F(KernelTest, BadArgumentsNameTheArgument) {
  auto kernel = Kernel::create(kScale, options());
  ASSERT_TRUE(bool(kernel));
  Matrix a(4, 4, 1), b(4, 4, 0);
  ScalarArg s{1.0};

  EXPECT_EQ(runError(**kernel, {a.arg(), b.arg()}),
            "'scale' takes 3 arguments, got 2");

  BufferArg rank3 = b.arg();
  rank3.shape = {2, 2, 4};
  EXPECT_EQ(runError(**kernel, {a.arg(), rank3, s}),
            "argument #1 ('arg1', memref<?x?xf32>): expected rank 2, got rank "
            "3 (shape 2x2x4)");

  BufferArg wrongType = a.arg();
  wrongType.dtype = DType::F16;
  EXPECT_EQ(runError(**kernel, {wrongType, b.arg(), s}),
            "argument #0 ('arg0', memref<?x?xf32>): expected element type "
            "f32, got f16");

  BufferArg null = a.arg();
  null.data = nullptr;
  EXPECT_EQ(runError(**kernel, {null, b.arg(), s}),
            "argument #0 ('arg0', memref<?x?xf32>): the buffer is null, and "
            "the kernel uses it");

  EXPECT_EQ(runError(**kernel, {a.arg(), b.arg(), a.arg()}),
            "argument #2 ('arg2', f32): expected a scalar, got a buffer");
  EXPECT_EQ(runError(**kernel, {s, b.arg(), s}),
            "argument #0 ('arg0', memref<?x?xf32>): expected a buffer, got a "
            "scalar");

  BufferArg strided = a.arg();
  strided.strides = {1, 4};
  EXPECT_NE(runError(**kernel, {strided, b.arg(), s})
                .find("must be contiguous and row-major"),
            std::string::npos);
  EXPECT_EQ((*kernel)->getNumSpecializations(), 0u)
      << "nothing is compiled for rejected arguments";
}

TEST_F(KernelTest, StaticShapesAreChecked) {
  std::string text = kScale;
  // Make the input 8x8 static.
  text.replace(text.find("%in: memref<?x?xf32>"), 20, "%in: memref<8x8xf32>");
  for (size_t at; (at = text.find("memref.dim %in, %c0 : memref<?x?xf32>")) !=
                  std::string::npos;)
    text.replace(at, 38, "memref.dim %in, %c0 : memref<8x8xf32>");
  for (size_t at; (at = text.find("memref.dim %in, %c1 : memref<?x?xf32>")) !=
                  std::string::npos;)
    text.replace(at, 38, "memref.dim %in, %c1 : memref<8x8xf32>");
  text.replace(text.find("tile.copy %in[%r, %c] to %t : memref<?x?xf32>"), 46,
               "tile.copy %in[%r, %c] to %t : memref<8x8xf32>");
  auto kernel = Kernel::create(text, options());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  Matrix a(8, 9, 1), b(8, 9, 0);
  EXPECT_EQ(runError(**kernel, {a.arg(), b.arg(), ScalarArg{1.0}}),
            "argument #0 ('arg0', memref<8x8xf32>): expected shape 8x8, got "
            "8x9 (dimension 1 must be 8)");
}

TEST_F(KernelTest, ParseErrorsCarryTheLocation) {
  auto kernel = Kernel::create("func.func @f(%a: memref<?xf32>) {\n"
                               "  tile.kernel grid(%a) threads(32) -> (%b) {}\n"
                               "  return\n}\n",
                               options(), "broken.mlir");
  ASSERT_FALSE(bool(kernel));
  std::string message = llvm::toString(kernel.takeError());
  EXPECT_NE(message.find("cannot parse the kernel"), std::string::npos);
  EXPECT_NE(message.find("broken.mlir:2:"), std::string::npos) << message;
}

TEST_F(KernelTest, EntrySelection) {
  std::string two = std::string(kScale) +
                    "func.func @other(%x: memref<?xf32>) { return }\n";
  auto ambiguous = Kernel::create(two, options());
  ASSERT_FALSE(bool(ambiguous));
  EXPECT_EQ(llvm::toString(ambiguous.takeError()),
            "the kernel module has several public functions; name the entry");
  CompileOptions opts = options();
  opts.entry = "missing";
  auto missing = Kernel::create(two, opts);
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "no function 'missing' in the kernel module; its public "
            "functions: scale, other");
  opts.entry = "scale";
  auto chosen = Kernel::create(two, opts);
  ASSERT_TRUE(bool(chosen));
  runScale(**chosen, 9, 40, 1.5f);
}

TEST_F(KernelTest, CompileFailureWritesNoCacheEntry) {
  // f8 arithmetic has no lowering: the pipeline fails (tile-expand-f8).
  const char *f8 = R"mlir(
func.func @f8(%out: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) -> (%bx) {
    %t = tile.alloc_fragment : memref<4xf8E4M3FN, #tile.mem<fragment>>
    tile.parallel (%i) in (4) {
      %x = memref.load %t[%i] : memref<4xf8E4M3FN, #tile.mem<fragment>>
      %y = arith.addf %x, %x : f8E4M3FN
      memref.store %y, %t[%i] : memref<4xf8E4M3FN, #tile.mem<fragment>>
    }
    tile.copy %t to %out : memref<4xf8E4M3FN, #tile.mem<fragment>> to memref<?xf32>
  }
  return
}
)mlir";
  auto kernel = Kernel::create(f8, options());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<float> out(4, 0);
  BufferArg arg;
  arg.data = out.data();
  arg.dtype = DType::F32;
  arg.shape = {4};
  std::string message = runError(**kernel, {arg});
  EXPECT_NE(message.find("'arith.addf' op on 8-bit floats"),
            std::string::npos)
      << message;
  EXPECT_EQ(countFiles(), 0u);
}

TEST_F(KernelTest, LoweringErrorsAreShort) {
  // 3 x 96 KiB of shared tiles exceed sm_90a's 227 KiB: the error names the
  // problem and its location, without the lowered kernel printed after it.
  const char *big = R"mlir(
func.func @big(%A: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<192x128xf32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<192x128xf32, #tile.mem<shared>>
    %c = tile.alloc_shared : memref<192x128xf32, #tile.mem<shared>>
    tile.copy %A[%c0, %c0] to %a : memref<?x?xf32> to memref<192x128xf32, #tile.mem<shared>>
    tile.copy %A[%c0, %c0] to %b : memref<?x?xf32> to memref<192x128xf32, #tile.mem<shared>>
    tile.copy %a to %c : memref<192x128xf32, #tile.mem<shared>> to memref<192x128xf32, #tile.mem<shared>>
    tile.copy %b to %A[%c0, %c0] : memref<192x128xf32, #tile.mem<shared>> to memref<?x?xf32>
    tile.copy %c to %A[%c0, %c0] : memref<192x128xf32, #tile.mem<shared>> to memref<?x?xf32>
  }
  return
}
)mlir";
  CompileOptions opts = options();
  auto target = Target::parse("sm_90a");
  ASSERT_TRUE(bool(target));
  opts.target = *target;
  auto kernel = Kernel::create(big, opts, "big.mlir");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  Matrix a(192, 128, 1);
  auto report = (*kernel)->compile({a.arg()});
  ASSERT_FALSE(bool(report));
  std::string message = llvm::toString(report.takeError());
  EXPECT_NE(message.find("big.mlir:5:3: error: the kernel's shared tiles need"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("bytes of shared memory"), std::string::npos)
      << message;
  EXPECT_EQ(message.find("see current operation"), std::string::npos)
      << message;
  EXPECT_LT(message.size(), 1000u) << message;
  EXPECT_EQ(countFiles(), 0u);
}

TEST_F(KernelTest, GpuTargetWithoutADriverIsAClearError) {
  CompileOptions opts = options();
  auto target = Target::parse("sm_90a");
  ASSERT_TRUE(bool(target));
  EXPECT_EQ(target->str(), "cuda:sm_90a:+ptx80");
  opts.target = *target;
  auto kernel = Kernel::create(kScale, opts);
  ASSERT_TRUE(bool(kernel));
  Matrix a(4, 4, 1), b(4, 4, 0);
  std::string message = runError(**kernel, {a.arg(), b.arg(), ScalarArg{1.0}});
  if (llvm::Error err = mlir::tile::runtime::initCUDA()) {
    EXPECT_EQ(message.find("cannot run on cuda:sm_90a:+ptx80: "), 0u)
        << message;
    EXPECT_NE(message.find(llvm::toString(std::move(err))), std::string::npos)
        << message;
  }
  EXPECT_EQ(countFiles(), 0u);
}

TEST(TargetTest, Parse) {
  auto check = [](llvm::StringRef text, llvm::StringRef expected) {
    auto target = Target::parse(text);
    ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
    EXPECT_EQ(target->str(), expected);
  };
  check("cpu", "cpu:host");
  check("sm_80", "cuda:sm_80:+ptx80");
  check("cuda:sm_90a:+ptx85", "cuda:sm_90a:+ptx85");
  check("gfx942", "rocm:gfx942");
  check("rocm:gfx1100", "rocm:gfx1100");
  auto bad = Target::parse("cuda:gfx942");
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("cuda chip must look like"),
            std::string::npos);
}

} // namespace

TEST(LowerToTextTest, EachStage) {
  llvm::Expected<std::string> loops =
      lowerToText(kScale, "convert-tile-to-scf,canonicalize");
  ASSERT_TRUE(static_cast<bool>(loops)) << llvm::toString(loops.takeError());
  EXPECT_EQ(loops->find("tile.kernel"), std::string::npos);
  EXPECT_NE(loops->find("scf.for"), std::string::npos);
  llvm::Expected<std::string> ptx =
      lowerToText(kScale, "tile-to-nvvm{chip=sm_80 format=isa}");
  ASSERT_TRUE(static_cast<bool>(ptx)) << llvm::toString(ptx.takeError());
  EXPECT_NE(ptx->find(".target sm_80"), std::string::npos);
}

TEST(LowerToTextTest, ErrorsNameTheProblem) {
  llvm::Expected<std::string> badPipeline =
      lowerToText(kScale, "no-such-pass");
  ASSERT_FALSE(static_cast<bool>(badPipeline));
  EXPECT_NE(llvm::toString(badPipeline.takeError()).find("no-such-pass"),
            std::string::npos);
  llvm::Expected<std::string> badSource =
      lowerToText("func.func @f( {", "canonicalize", "bad.mlir");
  ASSERT_FALSE(static_cast<bool>(badSource));
  EXPECT_NE(llvm::toString(badSource.takeError()).find("bad.mlir:1:"),
            std::string::npos);
}
