//===- GemmLayouts.cpp - What the NVIDIA gemm lowerings expect -----------===//
//
// Part of TileLang-MLIR.
//
// The queries the target interface (NVIDIATarget.cpp) and the lowerings ask
// about gemms on NVIDIA tensor cores: whether mma.sync or wgmma can take a
// gemm, the register layouts of their accumulators and A operands, the
// shared-memory swizzles their operands are read in.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Lowering.h"

#include "GemmCommon.h"

#include "TileLang/Conversion/RegisterFragments.h"
#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvidia;

/// One 16-byte row of each 8x8 matrix ldmatrix loads, twice.
int64_t mlir::tile::getMmaSyncTileK(GemmOp op) {
  return 256 / op.getA().getType().getElementTypeBitWidth();
}

std::optional<StringRef> mlir::tile::getMmaSyncMismatch(GemmOp op) {
  Type aType = op.getA().getType().getElementType();
  Type bType = op.getB().getType().getElementType();
  Type cType = op.getC().getType().getElementType();
  bool f16 = aType.isF16() && (cType.isF32() || cType.isF16());
  bool bf16 = aType.isBF16() && cType.isF32();
  // ldmatrix moves 16-bit elements: 8-bit operands need no transposition,
  // i.e. A stored M x K and B stored N x K (the "TN" int8 GEMM).
  bool i8 = aType.isInteger(8) && cType.isInteger(32) &&
            !op.getTransposeA() && op.getTransposeB();
  if (aType != bType || !(f16 || bf16 || i8))
    return StringRef("no mma.sync for the types and transposes");
  if (op.getM() % kTileM || op.getN() % kTileN || op.getK() % getMmaSyncTileK(op))
    return StringRef("not a multiple of the mma shape");
  // ldmatrix reads 16-byte rows: the tiles' rows must be whole vectors.
  for (Value operand : {op.getA(), op.getB()}) {
    auto type = cast<MemRefType>(operand.getType());
    if ((type.getDimSize(1) * type.getElementTypeBitWidth()) % 128)
      return StringRef("rows not 16-byte multiples");
    // A swizzle must move whole 16-byte rows of the 8x8 matrices.
    if (SwizzleAttr swizzle = getTileSwizzle(operand);
        swizzle && swizzle.getBase() < 3)
      return StringRef("swizzle splits 16-byte rows");
  }
  return std::nullopt;
}

/// (Also the layout of wgmma's accumulators with one m64 block per
/// warpgroup, FP8 operands included: their pieces are the same.)
static FailureOr<std::pair<int64_t, int64_t>> getMmaWarpGrid(GemmOp op,
                                                             int64_t threads) {
  if (getWgmmaShapeMismatch(op) || threads % kWarpSize)
    return failure();
  return chooseWarpGrid(op.getPolicy(), threads / kWarpSize,
                        op.getM() / kTileM, op.getN() / kTileN);
}

FragmentLayoutAttr mlir::tile::getMmaAccumulatorLayout(GemmOp op,
                                                       int64_t threads) {
  FailureOr<std::pair<int64_t, int64_t>> grid = getMmaWarpGrid(op, threads);
  if (failed(grid))
    return {};
  int64_t tilesM = op.getM() / kTileM, tilesN = op.getN() / kTileN;
  auto [wm, wn] = *grid;
  int64_t tm = tilesM / wm, tn = tilesN / wn;
  MLIRContext *ctx = op.getContext();
  AffineExpr i = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx);
  // Warp (row-major over the warp grid), then the lane of the m16n8
  // accumulator: lane = 4 (i mod 8) + (j mod 8) floordiv 2.
  AffineExpr warp = i.floorDiv(tm * kTileM) * wn + j.floorDiv(tn * kTileN);
  AffineExpr thread = warp * kWarpSize + (i % 8) * 4 + (j % 8).floorDiv(2);
  // The warp's pieces row-major, four registers each: rows i and i + 8 of
  // the piece, two adjacent columns.
  AffineExpr piece = (i % (tm * kTileM)).floorDiv(kTileM) * tn +
                     (j % (tn * kTileN)).floorDiv(kTileN);
  AffineExpr slot = piece * 4 + (i % kTileM).floorDiv(8) * 2 + j % 2;
  return FragmentLayoutAttr::get(
      ctx, op.getC().getType().getShape(), AffineMap::get(2, 0, thread),
      AffineMap::get(2, 0, slot), threads, /*replicate=*/1);
}

FragmentLayoutAttr mlir::tile::getMmaOperandALayout(GemmOp op,
                                                    int64_t threads) {
  FailureOr<std::pair<int64_t, int64_t>> grid = getMmaWarpGrid(op, threads);
  // The m16k16 operand layout of 16-bit elements.
  if (op.getTransposeA() || failed(grid) ||
      op.getA().getType().getElementTypeBitWidth() != 16)
    return {};
  constexpr int64_t kTileK = 16;
  int64_t tilesM = op.getM() / kTileM;
  auto [wm, wn] = *grid;
  int64_t tm = tilesM / wm, tilesK = op.getK() / kTileK;
  MLIRContext *ctx = op.getContext();
  AffineExpr i = getAffineDimExpr(0, ctx), k = getAffineDimExpr(1, ctx);
  // The warps of one warp-grid row share A: the warp column is the replica.
  AffineExpr warp = i.floorDiv(tm * kTileM) * wn;
  if (wn > 1)
    warp = warp + getAffineDimExpr(2, ctx);
  AffineExpr thread =
      warp * kWarpSize + (i % 8) * 4 + (k % 8).floorDiv(2);
  // Per 16x16 piece, eight registers: a0-a3 for k < 8 (rows i, i + 8),
  // a4-a7 for k >= 8.
  AffineExpr piece =
      (i % (tm * kTileM)).floorDiv(kTileM) * tilesK + k.floorDiv(kTileK);
  AffineExpr slot = piece * 8 + (k % kTileK).floorDiv(8) * 4 +
                    (i % kTileM).floorDiv(8) * 2 + k % 2;
  return FragmentLayoutAttr::get(
      ctx, op.getA().getType().getShape(),
      AffineMap::get(wn > 1 ? 3 : 2, 0, thread), AffineMap::get(2, 0, slot),
      threads, /*replicate=*/wn);
}

int64_t mlir::tile::getWgmmaTileK(GemmOp op) {
  return op.getA().getType().getElementTypeBitWidth() == 8 ? 32 : 16;
}

/// Whether `type` is an operand element type of wgmma's FP8 forms.
static bool isWgmmaF8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

std::optional<StringRef> mlir::tile::getWgmmaShapeMismatch(GemmOp op) {
  if (!isWgmmaF8(op.getA().getType().getElementType()))
    return getMmaSyncMismatch(op);
  if (op.getM() % kTileM || op.getN() % kTileN ||
      op.getK() % getWgmmaTileK(op))
    return StringRef("not a multiple of the wgmma shape");
  for (Value operand : {op.getA(), op.getB()}) {
    auto type = cast<MemRefType>(operand.getType());
    if ((type.getDimSize(1) * type.getElementTypeBitWidth()) % 128)
      return StringRef("rows not 16-byte multiples");
  }
  return std::nullopt;
}

SwizzleAttr mlir::tile::getWgmmaOperandSwizzle(MemRefType type,
                                               bool blocked, bool panels) {
  int64_t rowBytes =
      type.getShape().back() * type.getElementTypeBitWidth() / 8;
  int64_t rows = type.getNumElements() / type.getShape().back();
  if (rowBytes <= 128 || !blocked || type.getElementTypeBitWidth() != 16 ||
      rowBytes % 128 || rows % 8)
    return getLdmatrixSwizzle(type);
  return SwizzleAttr::get(type.getContext(), 3, 3, 3, /*blocked=*/true,
                          panels);
}

int64_t mlir::tile::getWgmmaColumnGroups(GemmOp op,
                                         GemmInstructionAttr instruction) {
  if (!instruction || instruction.getN() <= 0 ||
      op.getN() % instruction.getN())
    return 1;
  return op.getN() / instruction.getN();
}

bool mlir::tile::fitsWgmma(GemmOp op, int64_t threads, bool blockedRows,
                           bool tallRows, int64_t columnGroups) {
  MemRefType aType = op.getA().getType(), bType = op.getB().getType();
  Type element = aType.getElementType();
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  auto descriptorRow = [&](int64_t rowBytes) {
    return rowBytes == 32 || rowBytes == 64 || rowBytes == 128 ||
           (blockedRows && rowBytes % 128 == 0);
  };
  // f16 x f16 or bf16 x bf16; FP8 (e4m3 or e5m2, either operand) with
  // both operands K-major in shared memory (wgmma transposes 16-bit
  // operands only): A M x K, B N x K.
  bool sixteen = (element.isF16() || element.isBF16()) &&
                 bType.getElementType() == element;
  bool f8 = isWgmmaF8(element) && isWgmmaF8(bType.getElementType()) &&
            op.getTransposeB() &&
            getMemorySpace(aType) == MemorySpace::Shared;
  if (!(sixteen || f8) ||
      !op.getC().getType().getElementType().isF32() || op.getTransposeA() ||
      getMemorySpace(bType) != MemorySpace::Shared)
    return false;
  // A: K-major shared rows, or registers in the mma operand layout.
  if (getMemorySpace(aType) == MemorySpace::Shared) {
    if (!descriptorRow(op.getK() * bytes))
      return false;
  } else if (getMemorySpace(aType) != MemorySpace::Fragment) {
    return false;
  }
  // B: K-major (N x K) rows, or MN-major (K x N) rows that hold all of N
  // (one swizzle atom across).
  if (!descriptorRow(op.getTransposeB() ? op.getK() * bytes
                                        : op.getN() * bytes))
    return false;
  int64_t groups = threads / (4 * kWarpSize);
  if (threads % (4 * kWarpSize) || columnGroups < 1 ||
      op.getN() % columnGroups || groups % columnGroups ||
      op.getK() % getWgmmaTileK(op))
    return false;
  // Each column group's N columns, one wgmma wide.
  int64_t n = op.getN() / columnGroups;
  if (n % 8 || n > 256)
    return false;
  if (columnGroups > 1) {
    // A from shared memory (each column group reads all of its rows), one
    // m64 block; a column group starts B at a whole 8-row group (K-major)
    // or at a whole 128-byte block of a blocked row (MN-major).
    if (getMemorySpace(aType) != MemorySpace::Shared || tallRows)
      return false;
    if (!op.getTransposeB() &&
        (!blockedRows || op.getN() * bytes <= 128 || (n * bytes) % 128))
      return false;
  }
  // 64 rows per warpgroup of a column; with tallRows 128 (two m64 blocks)
  // when both blocks' accumulators fit (2 N <= 256 registers), A shared or
  // in registers (each block's rows its own registers).
  int64_t rows = 64 * (groups / columnGroups);
  return op.getM() == rows ||
         (tallRows && op.getM() == 2 * rows && 2 * n <= 256);
}

FragmentLayoutAttr mlir::tile::getWgmmaOperandALayout(GemmOp op,
                                                      int64_t threads,
                                                      int64_t blocks) {
  int64_t groups = threads / (4 * kWarpSize);
  int64_t m = op.getM(), k = op.getK();
  if (op.getTransposeA() ||
      op.getA().getType().getElementTypeBitWidth() != 16 ||
      threads % (4 * kWarpSize) || groups == 0 || blocks < 1 ||
      m != 64 * blocks * groups || k % 16)
    return {};
  int64_t rows = 64 * blocks;
  MLIRContext *ctx = op.getContext();
  AffineExpr i = getAffineDimExpr(0, ctx), kk = getAffineDimExpr(1, ctx);
  // As getWgmmaAccumulatorLayout with K for N: per 16 of K the registers
  // a0..a7 are the accumulator slots of two 8-column pieces.
  AffineExpr warp = i.floorDiv(rows) * 4 + (i % 64).floorDiv(kTileM);
  AffineExpr thread = warp * kWarpSize + (i % 8) * 4 + (kk % 8).floorDiv(2);
  AffineExpr slot = (i % rows).floorDiv(64) * (k / 2) + kk.floorDiv(8) * 4 +
                    (i % kTileM).floorDiv(8) * 2 + kk % 2;
  return FragmentLayoutAttr::get(
      ctx, op.getA().getType().getShape(), AffineMap::get(2, 0, thread),
      AffineMap::get(2, 0, slot), threads, /*replicate=*/1);
}

bool mlir::tile::isWgmmaOperandSwizzle(MemRefType type, SwizzleAttr swizzle) {
  int64_t rowBytes =
      type.getShape().back() * type.getElementTypeBitWidth() / 8;
  // Rows wider than 128 bytes: the blocked 128-byte layout (in either
  // order of its blocks).
  return swizzle &&
         swizzle == getWgmmaOperandSwizzle(type, /*blocked=*/rowBytes > 128,
                                           swizzle.getPanels()) &&
         (int64_t(1) << swizzle.getBase()) *
                 type.getElementTypeBitWidth() ==
             128 &&
         swizzle.getShift() == 3 &&
         (rowBytes <= 128 || swizzle.getBlocked());
}

int64_t mlir::tile::getWgmmaRowBytes(Value tile) {
  return getWgmmaRowBytes(tile, getTileSwizzle(tile));
}

int64_t mlir::tile::getWgmmaRowBytes(Value tile, SwizzleAttr swizzle) {
  auto type = cast<MemRefType>(tile.getType());
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  std::optional<SwizzleWindow> window = getSwizzleWindow(tile, swizzle);
  if (!window) {
    if (!isWgmmaOperandSwizzle(type, swizzle))
      return 0;
    return type.getDimSize(1) * bytes;
  }
  auto page = MemRefType::get({window->pageRows, window->pageCols},
                              type.getElementType());
  if (!isWgmmaOperandSwizzle(page, swizzle) || window->row % 8)
    return 0;
  if (swizzle.getPanels()) {
    // Whole panels: each is a 128-byte-row tile of the page's rows.
    int64_t width = swizzle.getBlockWidth();
    if (window->col % width || window->cols % width)
      return 0;
    return window->cols * bytes;
  }
  // Elsewhere 8-row groups span the page's rows: whole rows only.
  if (window->col || window->cols != window->pageCols)
    return 0;
  return window->pageCols * bytes;
}

int64_t mlir::tile::getWgmmaWindowCorrection(Value tile) {
  std::optional<SwizzleWindow> window = getSwizzleWindow(tile);
  if (!window)
    return 0;
  auto type = cast<MemRefType>(tile.getType());
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  int64_t rowMajor = (window->row * window->pageCols + window->col) * bytes;
  if (!window->swizzle.getPanels())
    return 0; // Whole rows: the row-major distance is the layout's.
  // In column panels: the window's first panel, then its first row there.
  int64_t width = window->swizzle.getBlockWidth();
  int64_t placed = (window->col / width) * window->pageRows * width * bytes +
                   window->row * width * bytes;
  return placed - rowMajor;
}

std::optional<StringRef>
mlir::tile::getWgmmaLoweringMismatch(GemmOp op, int64_t threads) {
  const FragmentTable *c = RegisterFragments::getMarkedTable(op.getC());
  if (!c)
    return StringRef("C not in registers");
  bool registerA = isInSpace(op.getA().getType(), MemorySpace::Fragment);
  if (registerA && !RegisterFragments::getMarkedTable(op.getA()))
    return StringRef("A is a fragment in memory");
  if (getWgmmaShapeMismatch(op) || threads % kWarpSize)
    return StringRef("no mma shape or whole warps");
  auto isBlocked = [](Value tile) {
    SwizzleAttr swizzle = getTileSwizzle(tile);
    return swizzle && swizzle.getBlocked();
  };
  GemmInstructionAttr instruction = op.getInstructionAttr();
  bool tallRows = instruction && instruction.getBlocks() > 1;
  int64_t columnGroups = getWgmmaColumnGroups(op, instruction);
  if (!fitsWgmma(op, threads,
                 /*blockedRows=*/isBlocked(op.getA()) || isBlocked(op.getB()),
                 tallRows, columnGroups))
    return StringRef("shapes, types or transposes that wgmma does not take");
  FragmentLayoutAttr accumulators = getWgmmaAccumulatorLayout(
      op, threads, instruction ? instruction.getN() : 0);
  const FragmentTable *expected =
      accumulators ? FragmentTable::lookup(accumulators) : nullptr;
  if (!expected || !expected->placesLike(*c))
    return StringRef("C's registers are not in wgmma's accumulator layout");
  if ((!registerA && !getWgmmaRowBytes(op.getA())) ||
      !getWgmmaRowBytes(op.getB()))
    return StringRef("operands not wgmma-swizzled");
  return std::nullopt;
}

FragmentLayoutAttr mlir::tile::getWgmmaAccumulatorLayout(GemmOp op,
                                                         int64_t threads,
                                                         int64_t instructionN) {
  int64_t groups = threads / (4 * kWarpSize);
  int64_t m = op.getM(), n = op.getN();
  int64_t width = instructionN > 0 ? instructionN : n;
  if (threads % (4 * kWarpSize) || groups == 0 || n % width || width % 8)
    return {};
  int64_t columnGroups = n / width;
  if (groups % columnGroups)
    return {};
  int64_t rowGroups = groups / columnGroups;
  if (m % (64 * rowGroups))
    return {};
  int64_t rows = m / rowGroups; // per warpgroup: rows / 64 blocks of m64
  MLIRContext *ctx = op.getContext();
  AffineExpr i = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx);
  // Warp 4g + w holds rows 16w.. of every m64 block of warpgroup g; the
  // lane and the four registers per 8 columns as in the m16n8 piece.
  AffineExpr group = i.floorDiv(rows);
  if (columnGroups > 1)
    group = group * columnGroups + j.floorDiv(width);
  AffineExpr warp = group * 4 + (i % 64).floorDiv(kTileM);
  AffineExpr thread = warp * kWarpSize + (i % 8) * 4 + (j % 8).floorDiv(2);
  AffineExpr column = columnGroups > 1 ? j % width : j;
  AffineExpr slot = (i % rows).floorDiv(64) * (width / 2) +
                    column.floorDiv(8) * 4 + (i % kTileM).floorDiv(8) * 2 +
                    j % 2;
  return FragmentLayoutAttr::get(
      ctx, op.getC().getType().getShape(), AffineMap::get(2, 0, thread),
      AffineMap::get(2, 0, slot), threads, /*replicate=*/1);
}

SwizzleAttr mlir::tile::getLdmatrixSwizzle(MemRefType type) {
  int64_t rowElements = type.getShape().back();
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  if (bytes == 0 || 16 % bytes || !llvm::isPowerOf2_64(rowElements))
    return {};
  unsigned base = llvm::Log2_64(16 / bytes);
  unsigned rowBits = llvm::Log2_64(rowElements);
  if (rowBits <= base)
    return {};
  unsigned bits = std::min(3u, rowBits - base);
  unsigned source = std::max(rowBits, llvm::Log2_64(128 / bytes));
  return SwizzleAttr::get(type.getContext(), bits, base, source - base);
}
