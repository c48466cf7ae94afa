//===- GemmToMMA.cpp - tile.gemm on tensor cores with mma.sync -----------===//
//
// Part of TileLang-MLIR.
//
// tile.gemm inside a gpu.launch, lowered to warp-level mma.sync m16n8k16 on
// f16 operands (f32 or f16 accumulation) when M, N, K are multiples of
// 16, 8, 16 and the block has whole warps. The accumulator of a 16x8 C tile
// lives in registers in the mma.sync layout (lane = 4 * g + t owns rows g and
// g + 8, columns 2t and 2t + 1); A and B fragments come from the on-chip
// tiles through ldmatrix (x4 for A, x2 for B, .trans where the stored
// orientation is the transpose of the fragment's), each lane giving the
// address of one 16-byte row of an 8x8 matrix.
//
// Two patterns:
//  * a gemm in the body of a tile.pipelined loop whose C tile nothing else in
//    the loop touches keeps C in registers for the whole loop: loaded once
//    before it, carried as loop values, stored once after it. The warps split
//    C in a 2-D grid chosen by the gemm's policy, and each warp loads every
//    A and B fragment once per k step for all its tiles;
//  * any other gemm loads and stores its C tiles around its own k loop (warp
//    w takes 16x8 tiles w, w + W, ...).
// bf16 (f32 accumulation) takes the same path but emits nvvm.mma.sync
// itself: nvgpu.mma.sync of MLIR 22 cannot type bf16 operands.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Lowering.h"

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

namespace {

// The m16n8kK mma.sync shape (the warp size, kWarpSize, is NVGPU's): K is
// 16 for 16-bit operands, 32 for 8-bit ones (getMmaSyncTileK).
constexpr int64_t kTileM = 16, kTileN = 8;
/// Accumulator registers per lane (f32) a warp may hold across a loop.
constexpr int64_t kMaxAccumulatorRegisters = 128;

/// Whether `op` was selected for `kind` (tile-select-instructions, or
/// convert-tile-to-gpu's default for gemms that carry none).
bool selectedFor(GemmOp op, GemmInstructionKind kind) {
  GemmInstructionAttr instruction = op.getInstructionAttr();
  return instruction && instruction.getKind() == kind;
}

} // namespace

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

namespace {

/// The number of threads of the block around `op` when `op` is a gemm that
/// mma.sync m16n8k16 can run, else failure.
FailureOr<int64_t> matchMmaGemm(GemmOp op, PatternRewriter &rewriter) {
  if (std::optional<StringRef> why = getMmaSyncMismatch(op))
    return rewriter.notifyMatchFailure(op, *why);
  std::optional<int64_t> threads = getStaticBlockThreads(op);
  if (!threads)
    return rewriter.notifyMatchFailure(op, "no static block size");
  if (*threads % kWarpSize)
    return rewriter.notifyMatchFailure(op, "partial warps");
  return *threads;
}

/// The warp id and the per-lane offsets of the mma.sync and ldmatrix
/// layouts, computed once at the builder's insertion point.
struct WarpLanes {
  Value warp;
  Value group, twoT;             // mma layout: lane = 4 * group + t
  Value mod8, mod16, div16x8, div8mod2x8; // ldmatrix row addresses
  // Column offsets of the second 16-byte matrix column, in elements.
  Value div16xV, div8mod2xV;

  WarpLanes(OpBuilder &b, Location loc, GemmOp op) {
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value tid = getBlockThreads(b, op).threadId;
    warp = arith::DivUIOp::create(b, loc, tid, c(kWarpSize));
    Value lane = arith::RemUIOp::create(b, loc, tid, c(kWarpSize));
    group = arith::DivUIOp::create(b, loc, lane, c(4));
    twoT = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, lane, c(4)), c(2));
    mod8 = arith::RemUIOp::create(b, loc, lane, c(8));
    mod16 = arith::RemUIOp::create(b, loc, lane, c(16));
    div16x8 = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, lane, c(16)), c(8));
    div8mod2x8 = arith::MulIOp::create(
        b, loc,
        arith::RemUIOp::create(b, loc,
                               arith::DivUIOp::create(b, loc, lane, c(8)),
                               c(2)),
        c(8));
    int64_t v = 128 / op.getA().getType().getElementTypeBitWidth();
    div16xV = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, lane, c(16)), c(v));
    div8mod2xV = arith::MulIOp::create(
        b, loc,
        arith::RemUIOp::create(b, loc,
                               arith::DivUIOp::create(b, loc, lane, c(8)),
                               c(2)),
        c(v));
  }
};

Value addIndex(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}

Value addIndex(OpBuilder &b, Location loc, Value x, int64_t y) {
  if (y == 0)
    return x;
  return arith::AddIOp::create(b, loc, x,
                               arith::ConstantIndexOp::create(b, loc, y));
}

/// The 32-bit registers per lane of an ldmatrix of `tiles` 8x8 matrices of
/// `element`s, as nvgpu.ldmatrix types them.
VectorType getLdmatrixType(int64_t tiles, Type element) {
  return VectorType::get({tiles, 32 / element.getIntOrFloatBitWidth()},
                         element);
}

/// The A fragment of the 16xK block at (row0, k0): matrices (rows 0-7 |
/// 8-15) x (first | second 16 bytes of k) in register order r0k0, r8k0,
/// r0k1, r8k1.
Value loadA(OpBuilder &b, Location loc, GemmOp op, const WarpLanes &l,
            Value row0, Value k0) {
  VectorType type = getLdmatrixType(4, op.getA().getType().getElementType());
  bool trans = op.getTransposeA();
  SmallVector<Value> indices =
      trans ? SmallVector<Value>{addIndex(b, loc, addIndex(b, loc, k0, l.mod8),
                                          l.div16x8),
                                 addIndex(b, loc, row0, l.div8mod2x8)}
            : SmallVector<Value>{addIndex(b, loc, row0, l.mod16),
                                 addIndex(b, loc, k0, l.div16xV)};
  return nvgpu::LdMatrixOp::create(
      b, loc, type, op.getA(), swizzleIndices(b, loc, op.getA(), indices),
      b.getBoolAttr(trans), b.getI32IntegerAttr(4));
}

/// The B fragment of the Kx8 block at (k0, col0): matrices over the first
/// and the second half of k (lanes 16-31 repeat 0-15: ldmatrix .x2 ignores
/// them).
Value loadB(OpBuilder &b, Location loc, GemmOp op, const WarpLanes &l,
            Value k0, Value col0) {
  VectorType type = getLdmatrixType(2, op.getB().getType().getElementType());
  bool trans = op.getTransposeB();
  SmallVector<Value> indices =
      trans ? SmallVector<Value>{addIndex(b, loc, col0, l.mod8),
                                 addIndex(b, loc, k0, l.div8mod2xV)}
            : SmallVector<Value>{addIndex(b, loc, k0, l.mod16), col0};
  return nvgpu::LdMatrixOp::create(
      b, loc, type, op.getB(), swizzleIndices(b, loc, op.getB(), indices),
      b.getBoolAttr(!trans), b.getI32IntegerAttr(2));
}

/// The B fragments of the Kx8 blocks at (k0, col0) and (k0, col0 + 8) with
/// one ldmatrix .x4: matrices (first | second half of k) x (first | second
/// block), lanes 16-31 addressing the second block's rows.
std::pair<Value, Value> loadBPair(OpBuilder &b, Location loc, GemmOp op,
                                  const WarpLanes &l, Value k0, Value col0) {
  Type element = op.getB().getType().getElementType();
  bool trans = op.getTransposeB();
  SmallVector<Value> indices =
      trans ? SmallVector<Value>{addIndex(b, loc, addIndex(b, loc, col0,
                                                           l.mod8),
                                          l.div16x8),
                                 addIndex(b, loc, k0, l.div8mod2xV)}
            : SmallVector<Value>{addIndex(b, loc, k0, l.mod16),
                                 addIndex(b, loc, col0, l.div16x8)};
  Value both = nvgpu::LdMatrixOp::create(
      b, loc, getLdmatrixType(4, element), op.getB(),
      swizzleIndices(b, loc, op.getB(), indices), b.getBoolAttr(!trans),
      b.getI32IntegerAttr(4));
  // Rows (registers) 0-1 and 2-3, as the x2 fragments nvgpu.mma.sync
  // takes (row by row: 2-D slices do not lower to LLVM).
  VectorType halfType = getLdmatrixType(2, element);
  auto half = [&](int64_t first) -> Value {
    Value result = arith::ConstantOp::create(
        b, loc, halfType, cast<TypedAttr>(b.getZeroAttr(halfType)));
    for (int64_t r = 0; r < 2; ++r)
      result = vector::InsertOp::create(
          b, loc, vector::ExtractOp::create(b, loc, both, first + r), result,
          r);
    return result;
  };
  return {half(0), half(2)};
}

/// This lane's (row, column) of element [r][e] of the accumulator of the C
/// tile at (row0, col0).
SmallVector<Value> accumulatorIndex(OpBuilder &b, Location loc,
                                    const WarpLanes &l, Value row0,
                                    Value col0, int64_t r, int64_t e) {
  return {addIndex(b, loc, addIndex(b, loc, row0, l.group), 8 * r),
          addIndex(b, loc, addIndex(b, loc, col0, l.twoT), e)};
}

Value loadAccumulator(OpBuilder &b, Location loc, GemmOp op,
                      const WarpLanes &l, Value row0, Value col0) {
  MemRefType cType = op.getC().getType();
  auto type = VectorType::get({2, 2}, cType.getElementType());
  if (op.getClearAccum())
    return arith::ConstantOp::create(b, loc, type,
                                     cast<TypedAttr>(b.getZeroAttr(type)));
  SmallVector<Value> values;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t e = 0; e < 2; ++e)
      values.push_back(memref::LoadOp::create(
          b, loc, op.getC(), accumulatorIndex(b, loc, l, row0, col0, r, e)));
  return vector::FromElementsOp::create(b, loc, type, values);
}

void storeAccumulator(OpBuilder &b, Location loc, GemmOp op,
                      const WarpLanes &l, Value row0, Value col0, Value acc) {
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t e = 0; e < 2; ++e) {
      Value v = vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, e});
      memref::StoreOp::create(b, loc, v, op.getC(),
                              accumulatorIndex(b, loc, l, row0, col0, r, e));
    }
}

/// The rows of a fragment (vector<Rx2xbf16>) as the 32-bit registers
/// nvvm.mma.sync takes.
SmallVector<Value> packRows(OpBuilder &b, Location loc, Value fragment) {
  auto type = cast<VectorType>(fragment.getType());
  SmallVector<Value> registers;
  for (int64_t r = 0; r < type.getDimSize(0); ++r) {
    Value row = vector::ExtractOp::create(b, loc, fragment, r);
    registers.push_back(
        LLVM::BitcastOp::create(b, loc, b.getI32Type(), row));
  }
  return registers;
}

/// C += A * B on one 16x8 tile. f16 goes through nvgpu.mma.sync; bf16,
/// which nvgpu.mma.sync does not type, straight to nvvm.mma.sync with
/// packed operands and the accumulators as four f32 registers.
Value mma(OpBuilder &b, Location loc, Value a, Value bFragment, Value acc) {
  Type element = cast<VectorType>(a.getType()).getElementType();
  int64_t tileK = 256 / element.getIntOrFloatBitWidth();
  if (!element.isBF16())
    return nvgpu::MmaSyncOp::create(b, loc, a, bFragment, acc,
                                    ArrayRef<int64_t>{kTileM, kTileN, tileK});
  auto accType = cast<VectorType>(acc.getType());
  SmallVector<Value> c;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t e = 0; e < 2; ++e)
      c.push_back(
          vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, e}));
  Type f32 = b.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                     {f32, f32, f32, f32});
  Value d = NVVM::MmaOp::create(
      b, loc, resultType, packRows(b, loc, a), packRows(b, loc, bFragment), c,
      ArrayRef<int64_t>{kTileM, kTileN, tileK}, /*b1Op=*/std::nullopt,
      /*intOverflow=*/std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                    NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> elements;
  for (int64_t i = 0; i < 4; ++i)
    elements.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
  return vector::FromElementsOp::create(b, loc, accType, elements);
}

/// Any gemm: warp w takes 16x8 tiles w, w + W, ... and runs each tile's k
/// loop with its accumulator in registers.
struct GemmToMmaSync : OpRewritePattern<GemmOp> {
  GemmToMmaSync(MLIRContext *ctx)
      : OpRewritePattern<GemmOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (!selectedFor(op, GemmInstructionKind::MmaSync))
      return rewriter.notifyMatchFailure(op, "not selected for mma.sync");
    if (op.getClearIf())
      return rewriter.notifyMatchFailure(op, "clear_if (expanded first)");
    FailureOr<int64_t> threads = matchMmaGemm(op, rewriter);
    if (failed(threads))
      return failure();
    Location loc = op.getLoc();
    auto c = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    int64_t tilesN = op.getN() / kTileN;
    int64_t numTiles = (op.getM() / kTileM) * tilesN;

    gpu::BarrierOp::create(rewriter, loc);
    WarpLanes lanes(rewriter, loc, op);
    scf::ForOp::create(
        rewriter, loc, lanes.warp, c(rewriter, numTiles),
        c(rewriter, *threads / kWarpSize), ValueRange{},
        [&](OpBuilder &b, Location loc, Value tile, ValueRange) {
          Value row0 = arith::MulIOp::create(
              b, loc, arith::DivUIOp::create(b, loc, tile, c(b, tilesN)),
              c(b, kTileM));
          Value col0 = arith::MulIOp::create(
              b, loc, arith::RemUIOp::create(b, loc, tile, c(b, tilesN)),
              c(b, kTileN));
          Value init = loadAccumulator(b, loc, op, lanes, row0, col0);
          auto kLoop = scf::ForOp::create(
              b, loc, c(b, 0), c(b, op.getK()), c(b, getMmaSyncTileK(op)),
              ValueRange{init},
              [&](OpBuilder &b, Location loc, Value k0, ValueRange acc) {
                Value next = mma(b, loc, loadA(b, loc, op, lanes, row0, k0),
                                 loadB(b, loc, op, lanes, k0, col0), acc[0]);
                scf::YieldOp::create(b, loc, next);
              });
          storeAccumulator(b, loc, op, lanes, row0, col0, kLoop.getResult(0));
          scf::YieldOp::create(b, loc);
        });
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The warp grid (rows, columns) that splits tilesM x tilesN tiles over
/// `warps` warps for `policy`, or failure.
FailureOr<std::pair<int64_t, int64_t>>
chooseWarpGrid(GemmPolicy policy, int64_t warps, int64_t tilesM,
               int64_t tilesN) {
  std::optional<std::pair<int64_t, int64_t>> best;
  double bestShape = 0;
  for (int64_t wm = 1; wm <= warps; ++wm) {
    if (warps % wm || tilesM % wm || tilesN % (warps / wm))
      continue;
    int64_t wn = warps / wm;
    if (policy == GemmPolicy::FullRow && wn != 1)
      continue;
    if (policy == GemmPolicy::FullCol && wm != 1)
      continue;
    // Square warp tiles share the most fragments.
    double rows = double(tilesM / wm) * kTileM;
    double cols = double(tilesN / wn) * kTileN;
    double shape = std::min(rows, cols) / std::max(rows, cols);
    if (!best || shape > bestShape) {
      best = {wm, wn};
      bestShape = shape;
    }
  }
  if (!best)
    return failure();
  return *best;
}

/// This warp's 16x8 C tiles on the warp grid of the gemm's policy: warp
/// (r, c) of the wm x wn grid takes tm x tn tiles from row r * tm * 16 and
/// column c * tn * 8, as getMmaAccumulatorLayout describes.
struct WarpTiles {
  int64_t wm = 0, wn = 0, tm = 0, tn = 0;
  std::optional<WarpLanes> lanes;
  SmallVector<Value> rows, cols; // Origins of this warp's tiles.

  static FailureOr<WarpTiles> get(GemmOp op, int64_t threads) {
    int64_t tilesM = op.getM() / kTileM, tilesN = op.getN() / kTileN;
    FailureOr<std::pair<int64_t, int64_t>> grid =
        chooseWarpGrid(op.getPolicy(), threads / kWarpSize, tilesM, tilesN);
    if (failed(grid))
      return failure();
    WarpTiles tiles;
    std::tie(tiles.wm, tiles.wn) = *grid;
    tiles.tm = tilesM / tiles.wm;
    tiles.tn = tilesN / tiles.wn;
    return tiles;
  }

  /// The whole k extent on this warp's accumulators `acc` (tile (i, j) at
  /// i * tn + j): each k step loads this warp's A fragments (`loadA(i, k0)`
  /// for its tile row i) and B fragments once and updates every
  /// accumulator.
  void emitKSteps(OpBuilder &b, Location loc, GemmOp op,
                  MutableArrayRef<Value> acc,
                  function_ref<Value(int64_t, int64_t)> loadAFragment) const {
    for (int64_t k0 = 0; k0 < op.getK(); k0 += getMmaSyncTileK(op)) {
      Value kk = arith::ConstantIndexOp::create(b, loc, k0);
      SmallVector<Value> aFragments, bFragments;
      for (int64_t i = 0; i < tm; ++i)
        aFragments.push_back(loadAFragment(i, k0));
      // Two blocks per ldmatrix where they come in pairs.
      for (int64_t j = 0; j < tn; ++j) {
        if (j + 1 < tn) {
          auto [first, second] = loadBPair(b, loc, op, *lanes, kk, cols[j]);
          bFragments.append({first, second});
          ++j;
          continue;
        }
        bFragments.push_back(loadB(b, loc, op, *lanes, kk, cols[j]));
      }
      for (int64_t i = 0; i < tm; ++i)
        for (int64_t j = 0; j < tn; ++j)
          acc[i * tn + j] =
              mma(b, loc, aFragments[i], bFragments[j], acc[i * tn + j]);
    }
  }

  /// Computes the lanes and this warp's tile origins at the insertion point.
  void emit(OpBuilder &b, Location loc, GemmOp op) {
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    lanes.emplace(b, loc, op);
    Value warpRow = arith::DivUIOp::create(b, loc, lanes->warp, c(wn));
    Value warpCol = arith::RemUIOp::create(b, loc, lanes->warp, c(wn));
    Value rowBase = arith::MulIOp::create(b, loc, warpRow, c(tm * kTileM));
    Value colBase = arith::MulIOp::create(b, loc, warpCol, c(tn * kTileN));
    for (int64_t i = 0; i < tm; ++i)
      rows.push_back(addIndex(b, loc, rowBase, i * kTileM));
    for (int64_t j = 0; j < tn; ++j)
      cols.push_back(addIndex(b, loc, colBase, j * kTileN));
  }
};

/// True when `op` (or an op nested in it) may write on-chip memory
/// synchronously. Asynchronous copies do not count: what they write is
/// visible only after a tile.async_wait, which synchronizes the block.
bool writesOnChipSynchronously(Operation *op,
                               const RegisterFragments *fragments) {
  auto classify = [](Operation *inner) {
    // Asynchronous copies, before and after their lowering (whose
    // misaligned fallback writes synchronously, but before the wait).
    if (auto copy = dyn_cast<CopyOp>(inner); copy && copy.getAsync())
      return EffectCheck::Skip;
    if (inner->hasAttr(TileDialect::getLoweredAsyncCopyAttrName()) ||
        isa<nvgpu::DeviceAsyncCopyOp>(inner))
      return EffectCheck::Skip;
    // Barrier waits touch only their barrier words, named barriers (the
    // turns of tile.take_turns) none; tensor-core work on wgmma (and its
    // fences, commits and waits) writes only registers.
    if (isa<AsyncCommitOp, scf::YieldOp, nvgpu::DeviceAsyncCreateGroupOp,
            NVVM::CpAsyncCommitGroupOp, NVVM::CpAsyncWaitGroupOp,
            BarrierWaitOp, BarrierArriveOp, NVVM::MBarrierTryWaitParityOp,
            NVVM::MBarrierArriveOp, NVVM::SyncWarpOp, GemmWaitOp,
            NVVM::FenceProxyOp, NVVM::WgmmaFenceAlignedOp,
            NVVM::WgmmaMmaAsyncOp, NVVM::WgmmaGroupSyncAlignedOp,
            NVVM::WgmmaWaitGroupSyncOp, NVVM::BarrierOp,
            NVVM::BarrierArriveOp>(inner) ||
        inner->hasAttr(TileDialect::getRegisterOnlyAsmAttrName()))
      return EffectCheck::Ignore;
    return EffectCheck::Check;
  };
  // An effect on a tile-memory buffer (not a fragment kept in registers),
  // or on no value.
  return mayWriteMemory(
      op, classify, [&](const MemoryEffects::EffectInstance &effect) {
        Value value = effect.getValue();
        return !value || (getMemorySpace(cast<MemRefType>(value.getType())) &&
                          !(fragments && fragments->getArray(value)));
      });
}

/// The barriers a gemm in a pipelined body needs: before it, unless the
/// body waited for its asynchronous copies (a block barrier) since the last
/// synchronous on-chip write; after it, unless nothing after it in the body
/// writes on-chip memory synchronously and the body starts with such a wait
/// (so the next iteration's writes come after a barrier).
std::pair<bool, bool> getGemmBarriers(Operation *op, Block &body,
                                      const RegisterFragments *fragments) {
  // Nothing in the body writes on-chip memory synchronously (its copies
  // arrive on barriers, which synchronize the block before they write):
  // nothing to fence.
  if (llvm::none_of(body, [&](Operation &inner) {
        return writesOnChipSynchronously(&inner, fragments);
      }))
    return {false, false};
  // A wait is a block barrier, lowered (gpu.barrier) or not.
  auto isWait = [](Operation *inner) {
    return isa<AsyncWaitOp, gpu::BarrierOp>(inner);
  };
  bool before = true;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (isWait(prev)) {
      before = false;
      break;
    }
    if (writesOnChipSynchronously(prev, fragments))
      break;
  }
  bool after = true;
  auto firstWait = llvm::find_if(body, [&](Operation &inner) {
    return isWait(&inner) || writesOnChipSynchronously(&inner, fragments);
  });
  if (firstWait != body.end() && isWait(&*firstWait)) {
    after = false;
    for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
      if (writesOnChipSynchronously(next, fragments))
        after = true;
  }
  return {before, after};
}

/// A gemm in the body of a tile.pipelined loop whose C tile nothing else in
/// the loop touches: C stays in registers for the whole loop.
struct PipelinedGemmInRegisters : OpRewritePattern<PipelinedOp> {
  PipelinedGemmInRegisters(MLIRContext *ctx,
                           const RegisterFragments *fragments)
      : OpRewritePattern<PipelinedOp>(ctx, /*benefit=*/2),
        fragments(fragments) {}
  const RegisterFragments *fragments;

  LogicalResult matchAndRewrite(PipelinedOp loop,
                                PatternRewriter &rewriter) const override {
    SmallVector<GemmOp> gemms(loop.getBody().front().getOps<GemmOp>());
    if (gemms.size() != 1)
      return rewriter.notifyMatchFailure(loop, "not exactly one gemm");
    GemmOp op = gemms.front();
    if (!selectedFor(op, GemmInstructionKind::MmaSync))
      return rewriter.notifyMatchFailure(loop, "not selected for mma.sync");
    FailureOr<int64_t> threads = matchMmaGemm(op, rewriter);
    if (failed(threads))
      return failure();
    if (op.getClearAccum() || op.getClearIf())
      return rewriter.notifyMatchFailure(loop, "C is reset every iteration");
    if (fragments && (fragments->getArray(op.getA()) ||
                      fragments->getArray(op.getC())))
      return rewriter.notifyMatchFailure(loop, "operands in registers");
    Value cTile = op.getC();
    WalkResult other = loop.getBody().walk([&](Operation *inner) {
      return inner != op && llvm::is_contained(inner->getOperands(), cTile)
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (other.wasInterrupted())
      return rewriter.notifyMatchFailure(loop, "C is used in the loop");

    FailureOr<WarpTiles> tiles = WarpTiles::get(op, *threads);
    if (failed(tiles))
      return rewriter.notifyMatchFailure(loop, "no warp grid for the policy");
    int64_t tm = tiles->tm, tn = tiles->tn;
    int64_t registers =
        tm * tn * 4 * op.getC().getType().getElementTypeBitWidth() / 32;
    if (registers > kMaxAccumulatorRegisters)
      return rewriter.notifyMatchFailure(loop, "too many accumulators");

    Location loc = op.getLoc();
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    gpu::BarrierOp::create(rewriter, loc);
    tiles->emit(rewriter, loc, op);
    const WarpLanes &lanes = *tiles->lanes;
    ArrayRef<Value> rows = tiles->rows, cols = tiles->cols;

    auto [barrierBefore, barrierAfter] =
        getGemmBarriers(op, loop.getBody().front(), fragments);
    SmallVector<Value> init;
    for (int64_t i = 0; i < tm; ++i)
      for (int64_t j = 0; j < tn; ++j)
        init.push_back(
            loadAccumulator(rewriter, loc, op, lanes, rows[i], cols[j]));

    auto forOp = scf::ForOp::create(
        rewriter, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(),
        loop.getStep(), init,
        [&](OpBuilder &b, Location loc, Value, ValueRange acc) {
          scf::YieldOp::create(b, loc, acc);
        });
    inlineTileBody(rewriter, loop.getBody(), forOp.getBody(),
                   forOp.getInductionVar());

    // The gemm itself: each k step loads this warp's A and B fragments once
    // and updates every accumulator.
    rewriter.setInsertionPoint(op);
    if (barrierBefore)
      gpu::BarrierOp::create(rewriter, loc);
    SmallVector<Value> acc(forOp.getRegionIterArgs());
    tiles->emitKSteps(rewriter, loc, op, acc,
                      [&](int64_t i, int64_t k0) {
                        return loadA(rewriter, loc, op, lanes, rows[i], c(k0));
                      });
    if (barrierAfter)
      gpu::BarrierOp::create(rewriter, loc);
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    rewriter.modifyOpInPlace(yield, [&] { yield->setOperands(acc); });

    // C leaves the registers once, after the loop.
    rewriter.setInsertionPointAfter(forOp);
    for (int64_t i = 0; i < tm; ++i)
      for (int64_t j = 0; j < tn; ++j)
        storeAccumulator(rewriter, loc, op, lanes, rows[i], cols[j],
                         forOp.getResult(i * tn + j));
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    rewriter.eraseOp(loop);
    return success();
  }
};

/// True when the register fragment `fragment` holds its elements where
/// `layout` (null: none) places them.
bool holdsLayout(const RegisterFragments &fragments, Value fragment,
                 FragmentLayoutAttr layout) {
  if (!layout)
    return false;
  const FragmentTable *expected = FragmentTable::lookup(layout);
  return expected && expected->placesLike(*fragments.getTable(fragment));
}

/// The barriers a gemm on register fragments needs, once its loop is an
/// scf.for: in a loop body they follow the body's waits; elsewhere the
/// shared operands are fenced on both sides.
std::pair<bool, bool> getBarriersAround(GemmOp op,
                                        const RegisterFragments &fragments) {
  if (op->hasAttr(TileDialect::getArrivedOperandsAttrName()))
    return {false, false};
  // Taking turns: the barriers the loop body needs around the whole turn
  // (the lowering refuses them: a warpgroup waiting for its turn would
  // never reach a block barrier inside it).
  Operation *position = op;
  if (isa<TakeTurnsOp>(op->getParentOp()))
    position = op->getParentOp();
  if (isa<scf::ForOp>(position->getParentOp()))
    return getGemmBarriers(position, *position->getBlock(), &fragments);
  return {true, true};
}

/// Emits the block barrier a gemm on register fragments needs before it
/// (getBarriersAround) and returns whether one must follow it; a located
/// error inside tile.take_turns, whose warpgroups never reach a block
/// barrier together.
static FailureOr<bool> emitBarrierBefore(GemmOp op, PatternRewriter &rewriter,
                                         const RegisterFragments &fragments) {
  auto [barrierBefore, barrierAfter] = getBarriersAround(op, fragments);
  if ((barrierBefore || barrierAfter) && isa<TakeTurnsOp>(op->getParentOp()))
    return op.emitOpError(
        "needs a block barrier, which warpgroups taking turns never reach "
        "together (tile.take_turns)");
  if (barrierBefore)
    gpu::BarrierOp::create(rewriter, op.getLoc());
  return barrierAfter;
}

/// A gemm whose C tile, A tile or both are register fragments (in the
/// layouts getMmaAccumulatorLayout and getMmaOperandALayout give): the
/// accumulators come from and go back to C's registers, the A fragments are
/// read from A's registers, what is in shared memory goes through ldmatrix
/// as usual.
struct GemmOnRegisterFragments : OpRewritePattern<GemmOp> {
  GemmOnRegisterFragments(MLIRContext *ctx, const RegisterFragments &fragments)
      : OpRewritePattern<GemmOp>(ctx, /*benefit=*/3), fragments(fragments) {}
  const RegisterFragments &fragments;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (!selectedFor(op, GemmInstructionKind::MmaSync))
      return rewriter.notifyMatchFailure(op, "not selected for mma.sync");
    if (op.getClearIf())
      return rewriter.notifyMatchFailure(op, "clear_if (expanded first)");
    Value aArray = fragments.getArray(op.getA());
    Value cArray = fragments.getArray(op.getC());
    if (!aArray && !cArray)
      return failure();
    FailureOr<int64_t> threads = matchMmaGemm(op, rewriter);
    if (failed(threads))
      return failure();
    FailureOr<WarpTiles> tiles = WarpTiles::get(op, *threads);
    if (failed(tiles))
      return rewriter.notifyMatchFailure(op, "no warp grid for the policy");
    // C's registers must be in the mma.sync layout of this warp grid (the
    // register selection also admits wgmma's m64-block layout, which only
    // the wgmma lowering reads).
    if (cArray && !holdsLayout(fragments, op.getC(),
                               getMmaAccumulatorLayout(op, *threads)))
      return rewriter.notifyMatchFailure(op, "C's registers are not in the "
                                             "mma.sync accumulator layout");
    Location loc = op.getLoc();
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    FailureOr<bool> barrierAfter = emitBarrierBefore(op, rewriter, fragments);
    if (failed(barrierAfter))
      return failure();
    tiles->emit(rewriter, loc, op);
    const WarpLanes &lanes = *tiles->lanes;
    int64_t tn = tiles->tn;

    // Accumulator tile (i, j) holds slots 4 (i tn + j) + 2 r + e: rows g
    // and g + 8 (r), columns 2t and 2t + 1 (e).
    MemRefType cType = op.getC().getType();
    auto accType = VectorType::get({2, 2}, cType.getElementType());
    SmallVector<Value> acc;
    for (auto [i, row0] : llvm::enumerate(tiles->rows))
      for (auto [j, col0] : llvm::enumerate(tiles->cols)) {
        if (!cArray || op.getClearAccum()) {
          acc.push_back(loadAccumulator(rewriter, loc, op, lanes, row0, col0));
          continue;
        }
        SmallVector<Value> elements;
        for (int64_t slot = 0; slot < 4; ++slot)
          elements.push_back(memref::LoadOp::create(
              rewriter, loc, cArray, c(4 * (i * tn + j) + slot)));
        acc.push_back(
            vector::FromElementsOp::create(rewriter, loc, accType, elements));
      }

    // The A fragment of row tile i and k step k0 holds slots
    // 8 (i tilesK + k0 / 16) + 2 q + e, q in ldmatrix register order.
    int64_t tilesK = op.getK() / getMmaSyncTileK(op);
    VectorType aType = getLdmatrixType(4, op.getA().getType().getElementType());
    tiles->emitKSteps(
        rewriter, loc, op, acc, [&](int64_t i, int64_t k0) -> Value {
          if (!aArray)
            return loadA(rewriter, loc, op, lanes, tiles->rows[i], c(k0));
          int64_t piece = i * tilesK + k0 / getMmaSyncTileK(op);
          SmallVector<Value> elements;
          for (int64_t slot = 0; slot < 8; ++slot)
            elements.push_back(memref::LoadOp::create(
                rewriter, loc, aArray, c(8 * piece + slot)));
          return vector::FromElementsOp::create(rewriter, loc, aType,
                                                elements);
        });

    for (auto [i, row0] : llvm::enumerate(tiles->rows))
      for (auto [j, col0] : llvm::enumerate(tiles->cols)) {
        Value tile = acc[i * tn + j];
        if (!cArray) {
          storeAccumulator(rewriter, loc, op, lanes, row0, col0, tile);
          continue;
        }
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t e = 0; e < 2; ++e)
            memref::StoreOp::create(
                rewriter, loc,
                vector::ExtractOp::create(rewriter, loc, tile,
                                          ArrayRef<int64_t>{r, e}),
                cArray, c(4 * (i * tn + j) + 2 * r + e));
      }
    if (*barrierAfter)
      gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// A gemm on sm_90a's warpgroup MMA (wgmma.mma_async m64nNk16) when its C
/// tile is a register fragment in the full-row accumulator layout (16 rows
/// per warp, one column block of all N: the wgmma accumulator order, so
/// warpgroup g owns rows 64g.. of C). A is a K-major shared tile (M x K) or
/// a register fragment in the mma.sync operand layout (which is wgmma's
/// register-A layout); B is a shared tile, K-major (stored N x K) or
/// MN-major (stored K x N with all of N in one row), each shared operand
/// with the 128-, 64- or 32-byte swizzle of its row length and placed on
/// whole swizzle periods. Each warpgroup issues one wgmma per 16 of K on
/// descriptors of its 64 rows of A and of all of B, between the proxy fence
/// that makes the generic-proxy writes (cp.async, stores) visible to the
/// async proxy and the commit/wait of the group.
struct GemmOnWgmma : OpRewritePattern<GemmOp> {
  GemmOnWgmma(MLIRContext *ctx, const RegisterFragments &fragments)
      : OpRewritePattern<GemmOp>(ctx, /*benefit=*/4), fragments(fragments) {}
  const RegisterFragments &fragments;

  /// A wgmma as inline PTX, for what MLIR's NVVM op does not take: A in
  /// registers (`aRegs`: four 32-bit registers of two 16-bit elements
  /// each; else A through `descriptorA`), or a scale-d known only at run
  /// time (`clear`: an i1, true where the product overwrites the
  /// accumulators instead of adding to them). The accumulators are tied in
  /// and out.
  static Value createInlineWgmma(OpBuilder &b, Location loc,
                                 LLVM::LLVMStructType structType, Value acc,
                                 ArrayRef<Value> aRegs, Value descriptorA,
                                 Value descriptorB, int64_t n, StringRef type,
                                 bool transposeB, Value clear) {
    int64_t count = structType.getBody().size();
    int64_t aCount = aRegs.empty() ? 1 : 4;
    std::string ptx, constraints;
    llvm::raw_string_ostream os(ptx);
    // scale-d: accumulate unless `clear` (the operand after A and B).
    os << "{\n.reg .pred p;\n";
    if (clear)
      os << "setp.eq.u32 p, $" << count + aCount + 1 << ", 0;\n";
    else
      os << "setp.ne.b32 p, 1, 0;\n";
    os << "wgmma.mma_async.sync.aligned.m64n" << n << "k16.f32." << type << "."
       << type << " {";
    for (int64_t i = 0; i < count; ++i)
      os << (i ? ", " : "") << "$" << i;
    os << "}, ";
    if (aRegs.empty()) {
      os << "$" << count;
    } else {
      os << "{";
      for (int64_t i = 0; i < 4; ++i)
        os << (i ? ", " : "") << "$" << count + i;
      os << "}";
    }
    // scale-a/b 1, A K-major (descriptor form), B transposed when MN-major.
    os << ", $" << count + aCount << ", p, 1, 1, "
       << (aRegs.empty() ? "0, " : "") << (transposeB ? 1 : 0) << ";\n}";
    for (int64_t i = 0; i < count; ++i)
      constraints += (i ? ",=f" : "=f");
    constraints += aRegs.empty() ? ",l,l" : ",r,r,r,r,l";
    if (clear)
      constraints += ",r";
    for (int64_t i = 0; i < count; ++i)
      constraints += "," + std::to_string(i);
    SmallVector<Value> operands(aRegs);
    if (aRegs.empty())
      operands.push_back(descriptorA);
    operands.push_back(descriptorB);
    if (clear)
      operands.push_back(arith::ExtUIOp::create(b, loc, b.getI32Type(), clear));
    for (int64_t i = 0; i < count; ++i)
      operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, structType, operands, ptx, constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None,
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
    asmOp->setAttr(TileDialect::getRegisterOnlyAsmAttrName(), b.getUnitAttr());
    return asmOp.getResult(0);
  }

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (!selectedFor(op, GemmInstructionKind::Wgmma))
      return rewriter.notifyMatchFailure(op, "not selected for wgmma");
    FailureOr<int64_t> threads = matchMmaGemm(op, rewriter);
    if (failed(threads))
      return failure();
    if (std::optional<StringRef> why =
            getWgmmaLoweringMismatch(op, fragments, *threads))
      return rewriter.notifyMatchFailure(op, *why);
    Value cArray = fragments.getArray(op.getC());
    Value aArray = fragments.getArray(op.getA());
    bool registerA = isInSpace(op.getA().getType(), MemorySpace::Fragment);
    Type element = op.getA().getType().getElementType();
    int64_t n = op.getN();
    // m64 blocks per warpgroup; C's registers are in the layout
    // getWgmmaAccumulatorLayout gives (the slots wgmma reads and writes).
    int64_t blocks = op.getM() / (kTileM * (*threads / kWarpSize));
    // A in registers is in the mma operand layout (the selection kept it
    // there for this gemm only so), which is wgmma's register-A layout
    // with one warp per 16 rows.
    bool transposeB = !op.getTransposeB();
    int64_t aRowBytes = registerA ? 0 : getWgmmaRowBytes(op.getA());
    int64_t bRowBytes = getWgmmaRowBytes(op.getB());

    Location loc = op.getLoc();
    FailureOr<bool> barrierAfter = emitBarrierBefore(op, rewriter, fragments);
    if (failed(barrierAfter))
      return failure();
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    auto i64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, v, 64);
    };
    // Matrix descriptor of `tile` (rows of `rowBytes`) from row `row` (a
    // multiple of 8) and byte `offset` along it: start address >> 4, the
    // leading byte offset (the distance between swizzle atoms along a row:
    // 1024 bytes in a blocked layout, used by MN-major operands wider than
    // one atom; unused otherwise), the stride byte offset (8 rows) >> 4 and
    // the swizzle mode (1: 128 B, 2: 64 B, 3: 32 B). In a blocked layout a
    // row's 128-byte pieces lie 1024 bytes apart.
    // In column panels (the blocked layout's other order), 8-row groups lie
    // 1 KiB apart, the 128-byte pieces of a row one panel (rows x 128
    // bytes) apart, and a row moves 128 bytes.
    auto descriptor = [&](Value tile, int64_t rowBytes, Value row,
                          int64_t offset) -> Value {
      bool blocked = rowBytes > 128;
      SwizzleAttr swizzle = getTileSwizzle(tile);
      bool panels = blocked && swizzle && swizzle.getPanels();
      auto tileType = cast<MemRefType>(tile.getType());
      int64_t panelBytes =
          tileType.getNumElements() / tileType.getShape().back() * 128;
      int64_t mode = rowBytes >= 128 ? 1 : rowBytes == 64 ? 2 : 3;
      int64_t lbo = panels ? panelBytes / 16 : blocked ? 1024 / 16 : 1;
      int64_t sbo = panels ? 1024 / 16 : 8 * rowBytes / 16;
      int64_t constantBits = (lbo << 16) | (sbo << 32) | (mode << 62);
      if (panels)
        offset = offset / 128 * panelBytes + offset % 128;
      else if (blocked)
        offset = offset / 128 * 1024 + offset % 128;
      int64_t rowStride = panels ? 128 : rowBytes;
      auto metadata = memref::ExtractStridedMetadataOp::create(rewriter, loc,
                                                               tile);
      Value base = memref::ExtractAlignedPointerAsIndexOp::create(rewriter,
                                                                  loc, tile);
      int64_t bytes = cast<MemRefType>(tile.getType())
                          .getElementTypeBitWidth() / 8;
      Value start = arith::AddIOp::create(
          rewriter, loc, base,
          arith::MulIOp::create(rewriter, loc, metadata.getOffset(),
                                index(bytes)));
      // In 32-bit halves: the low one holds the address field and the
      // leading byte offset, the high one (the stride byte offset and the
      // swizzle mode) is a constant, which ptxas moves into the uniform
      // registers wgmma reads without computing it.
      auto i32 = [&](int64_t v) -> Value {
        return arith::ConstantIntOp::create(rewriter, loc, v, 32);
      };
      Value startField = arith::ShRUIOp::create(
          rewriter, loc,
          arith::AndIOp::create(
              rewriter, loc,
              arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                         start),
              i32(0x3FFFF)),
          i32(4));
      // The tile's descriptor plus the 16-byte units to the row and offset:
      // shared addresses stay below 2^18 bytes, so the address field never
      // carries into the others, and every wgmma of a tile adds a constant
      // to one descriptor (instead of masking and shifting its own
      // address).
      assert(rowStride % 16 == 0 && offset % 16 == 0 &&
             "wgmma operands start on 16-byte boundaries");
      Value units = addIndex(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, row, index(rowStride / 16)),
          offset / 16);
      Value low = arith::AddIOp::create(
          rewriter, loc,
          arith::OrIOp::create(rewriter, loc, startField,
                               i32(constantBits & 0xFFFFFFFF)),
          arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                     units));
      return arith::OrIOp::create(
          rewriter, loc,
          arith::ExtUIOp::create(rewriter, loc, rewriter.getI64Type(), low),
          i64(constantBits & ~int64_t(0xFFFFFFFF)));
    };

    // The accumulators of each m64 block, in wgmma order (= the fragment's
    // slots, block after block).
    Type f32 = rewriter.getF32Type();
    int64_t count = n / 2;
    auto structType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(count, f32));
    Value zero = arith::ConstantOp::create(rewriter, loc, f32,
                                           rewriter.getZeroAttr(f32));
    SmallVector<Value> accs;
    for (int64_t blk = 0; blk < blocks; ++blk) {
      Value acc = LLVM::PoisonOp::create(rewriter, loc, structType);
      for (int64_t s = 0; s < count; ++s) {
        Value v = op.getClearAccum()
                      ? zero
                      : memref::LoadOp::create(rewriter, loc, cArray,
                                               index(blk * count + s))
                            .getResult();
        acc = LLVM::InsertValueOp::create(rewriter, loc, acc, v, s);
      }
      accs.push_back(acc);
    }
    // A registers: per 16 of K, eight 16-bit slots (a0..a7) packed in
    // pairs, read before the fence (which orders these register writes
    // before the asynchronous reads).
    SmallVector<SmallVector<Value, 4>> aRegs;
    if (registerA) {
      auto pair = VectorType::get({2}, element);
      for (int64_t k0 = 0; k0 < op.getK(); k0 += 16) {
        SmallVector<Value, 4> regs;
        for (int64_t r = 0; r < 4; ++r) {
          auto slot = [&](int64_t e) -> Value {
            return memref::LoadOp::create(rewriter, loc, aArray,
                                          index(k0 / 2 + 2 * r + e));
          };
          Value v = vector::FromElementsOp::create(
              rewriter, loc, pair, ValueRange{slot(0), slot(1)});
          regs.push_back(vector::BitCastOp::create(
                             rewriter, loc,
                             VectorType::get({1}, rewriter.getI32Type()), v)
                             .getResult());
          regs.back() = vector::ExtractOp::create(rewriter, loc, regs.back(),
                                                  ArrayRef<int64_t>{0});
        }
        aRegs.push_back(regs);
      }
    }

    NVVM::FenceProxyOp::create(
        rewriter, loc,
        NVVM::ProxyKindAttr::get(rewriter.getContext(),
                                 NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    // Warpgroup g reads rows 64 blocks g.. of a shared A, block b 64 rows
    // further.
    Value aRow;
    if (!registerA)
      aRow = arith::MulIOp::create(
          rewriter, loc,
          arith::DivUIOp::create(rewriter, loc,
                                 getBlockThreads(rewriter, op).threadId,
                                 index(4 * kWarpSize)),
          index(64 * blocks));
    NVVM::WGMMATypes type =
        element.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
    int64_t bytes = element.getIntOrFloatBitWidth() / 8;
    for (int64_t k0 = 0; k0 < op.getK(); k0 += 16) {
      // K-major B moves 16 elements along its rows, MN-major B 16 rows.
      Value descriptorB =
          transposeB ? descriptor(op.getB(), bRowBytes, index(k0), 0)
                     : descriptor(op.getB(), bRowBytes, index(0), k0 * bytes);
      StringRef typeName = element.isF16() ? "f16" : "bf16";
      // With clear_if, the first k step's scale-d comes at run time.
      Value clear = k0 == 0 ? op.getClearIf() : Value();
      if (registerA) {
        accs[0] = createInlineWgmma(rewriter, loc, structType, accs[0],
                                    aRegs[k0 / 16], Value(), descriptorB, n,
                                    typeName, transposeB, clear);
        continue;
      }
      for (int64_t blk = 0; blk < blocks; ++blk) {
        Value descriptorA = descriptor(
            op.getA(), aRowBytes,
            blk ? addIndex(rewriter, loc, aRow, 64 * blk) : aRow, k0 * bytes);
        if (clear) {
          accs[blk] = createInlineWgmma(rewriter, loc, structType, accs[blk],
                                        {}, descriptorA, descriptorB, n,
                                        typeName, transposeB, clear);
          continue;
        }
        accs[blk] = NVVM::WgmmaMmaAsyncOp::create(
            rewriter, loc, structType, accs[blk], descriptorA, descriptorB,
            NVVM::MMAShapeAttr::get(rewriter.getContext(), 64, n, 16), type,
            type, NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
            NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
            NVVM::MMALayout::row,
            transposeB ? NVVM::MMALayout::row : NVVM::MMALayout::col,
            /*satfinite=*/NVVM::MMAIntOverflowAttr());
      }
    }
    // With wg_wait = n, up to n groups stay in flight (a tile.gemm_wait
    // completes them), with -1 all: the accumulators flow on to the next
    // wgmma in the same registers, read by nothing else meanwhile.
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    if (op.getWgWaitAttr().getInt() >= 0)
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, op.getWgWaitAttr());
    for (int64_t blk = 0; blk < blocks; ++blk)
      for (int64_t s = 0; s < count; ++s)
        memref::StoreOp::create(
            rewriter, loc,
            LLVM::ExtractValueOp::create(rewriter, loc, accs[blk], s), cArray,
            index(blk * count + s));
    if (*barrierAfter)
      gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// A fill of the register accumulators of a gemm that keeps wgmma work in
/// flight (wg_wait != 0), as one inline-asm definition of every slot. ptxas
/// serializes all of a kernel's wgmmas (C7515) when ordinary instructions
/// define accumulator registers while a wgmma group may be pending; with
/// constant fills, LLVM rematerializes the constants on the path that skips
/// a zero-trip k loop, right into the registers the loop's wgmmas write.
/// Opaque, distinct values leave nothing to rematerialize: the loop and the
/// skip path share the registers defined here, before the loop.
struct FillWgmmaAccumulators : OpRewritePattern<FillOp> {
  FillWgmmaAccumulators(MLIRContext *ctx, const RegisterFragments &fragments)
      : OpRewritePattern<FillOp>(ctx, /*benefit=*/11), fragments(fragments) {}
  const RegisterFragments &fragments;

  LogicalResult matchAndRewrite(FillOp op,
                                PatternRewriter &rewriter) const override {
    Value dst = op.getDst();
    Value array = fragments.getArray(dst);
    if (!array || !op.getValue().getType().isF32())
      return failure();
    bool overlapped = llvm::any_of(dst.getUsers(), [&](Operation *user) {
      auto gemm = dyn_cast<GemmOp>(user);
      return gemm && gemm.getC() == dst &&
             selectedFor(gemm, GemmInstructionKind::Wgmma) &&
             gemm.getWgWaitAttr() && gemm.getWgWaitAttr().getInt() != 0;
    });
    if (!overlapped)
      return failure();
    Location loc = op.getLoc();
    int64_t count = fragments.getTable(dst)->getNumSlots();
    std::string ptx, constraints;
    llvm::raw_string_ostream os(ptx);
    for (int64_t i = 0; i < count; ++i) {
      os << "mov.b32 $" << i << ", $" << count << ";\n";
      constraints += "=f,";
    }
    constraints += "f";
    auto structType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(),
        SmallVector<Type>(count, rewriter.getF32Type()));
    auto asmOp = LLVM::InlineAsmOp::create(
        rewriter, loc, structType, ValueRange{op.getValue()}, ptx, constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None,
        LLVM::AsmDialectAttr::get(rewriter.getContext(),
                                  LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
    asmOp->setAttr(TileDialect::getRegisterOnlyAsmAttrName(),
                   rewriter.getUnitAttr());
    for (int64_t s = 0; s < count; ++s)
      memref::StoreOp::create(
          rewriter, loc,
          LLVM::ExtractValueOp::create(rewriter, loc, asmOp.getResult(0), s),
          array, ValueRange{arith::ConstantIndexOp::create(rewriter, loc, s)});
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.gemm_wait as wgmma.wait_group: the gemms that left work in flight
/// are on wgmma (the others compute synchronously, and then no group is
/// pending).
struct GemmWaitToWgmma : OpRewritePattern<GemmWaitOp> {
  GemmWaitToWgmma(MLIRContext *ctx)
      : OpRewritePattern<GemmWaitOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(GemmWaitOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::WgmmaWaitGroupSyncOp>(
        op, op.getPendingAttr());
    return success();
  }
};

} // namespace

void mlir::tile::populateTileToNVGPUPatterns(
    RewritePatternSet &patterns, int64_t smVersion,
    const RegisterFragments *fragments, bool wgmma) {
  if (smVersion < 80)
    return;
  MLIRContext *ctx = patterns.getContext();
  patterns.add<GemmToMmaSync>(ctx);
  patterns.add<PipelinedGemmInRegisters>(ctx, fragments);
  if (fragments)
    patterns.add<GemmOnRegisterFragments>(ctx, *fragments);
  if (fragments && wgmma && smVersion >= 90) {
    patterns.add<GemmOnWgmma>(ctx, *fragments);
    patterns.add<FillWgmmaAccumulators>(ctx, *fragments);
    patterns.add<GemmWaitToWgmma>(ctx);
  }
  populateCpAsyncPatterns(patterns);
}

/// The warp grid of `op` on mma.sync over a block of `threads` threads, or
/// failure when the gemm does not take that path.
static FailureOr<std::pair<int64_t, int64_t>> getMmaWarpGrid(GemmOp op,
                                                             int64_t threads) {
  if (getMmaSyncMismatch(op) || threads % kWarpSize)
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

bool mlir::tile::fitsWgmma(GemmOp op, int64_t threads, bool blockedRows,
                           bool tallRows) {
  MemRefType aType = op.getA().getType(), bType = op.getB().getType();
  Type element = aType.getElementType();
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  auto descriptorRow = [&](int64_t rowBytes) {
    return rowBytes == 32 || rowBytes == 64 || rowBytes == 128 ||
           (blockedRows && rowBytes % 128 == 0);
  };
  if (!(element.isF16() || element.isBF16()) ||
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
  int64_t n = op.getN();
  if (!descriptorRow(op.getTransposeB() ? op.getK() * bytes : n * bytes))
    return false;
  if (threads % (4 * kWarpSize) || n % 8 || n > 256 || op.getK() % 16)
    return false;
  // 64 rows per warpgroup; with tallRows 128 (two m64 blocks) when A is
  // shared and both blocks' accumulators fit (2 N <= 256 registers).
  int64_t rows = kTileM * (threads / kWarpSize);
  return op.getM() == rows ||
         (tallRows && op.getM() == 2 * rows && 2 * n <= 256 &&
          getMemorySpace(aType) == MemorySpace::Shared);
}

bool mlir::tile::isWgmmaOperandSwizzle(MemRefType type, SwizzleAttr swizzle) {
  int64_t rowBytes =
      type.getShape().back() * type.getElementTypeBitWidth() / 8;
  // Rows wider than 128 bytes: the blocked 128-byte layout (in either
  // order of its blocks).
  return swizzle &&
         swizzle == getWgmmaOperandSwizzle(type, /*blocked=*/rowBytes > 128,
                                           swizzle.getPanels()) &&
         swizzle.getBase() == 3 && swizzle.getShift() == 3 &&
         (rowBytes <= 128 || swizzle.getBlocked());
}

int64_t mlir::tile::getWgmmaRowBytes(Value tile) {
  auto type = cast<MemRefType>(tile.getType());
  if (!isWgmmaOperandSwizzle(type, getTileSwizzle(tile)))
    return 0;
  return type.getDimSize(1) * type.getElementTypeBitWidth() / 8;
}

std::optional<StringRef>
mlir::tile::getWgmmaLoweringMismatch(GemmOp op,
                                     const RegisterFragments &fragments,
                                     int64_t threads) {
  if (!fragments.getArray(op.getC()))
    return StringRef("C not in registers");
  bool registerA = isInSpace(op.getA().getType(), MemorySpace::Fragment);
  if (registerA && !fragments.getArray(op.getA()))
    return StringRef("A is a fragment in memory");
  if (getMmaSyncMismatch(op) || threads % kWarpSize)
    return StringRef("no mma shape or whole warps");
  auto isBlocked = [](Value tile) {
    SwizzleAttr swizzle = getTileSwizzle(tile);
    return swizzle && swizzle.getBlocked();
  };
  GemmInstructionAttr instruction = op.getInstructionAttr();
  bool tallRows = instruction && instruction.getBlocks() > 1;
  if (!fitsWgmma(op, threads,
                 /*blockedRows=*/isBlocked(op.getA()) || isBlocked(op.getB()),
                 tallRows))
    return StringRef("shapes, types or transposes that wgmma does not take");
  if (!holdsLayout(fragments, op.getC(),
                   getWgmmaAccumulatorLayout(op, threads)))
    return StringRef("C's registers are not in wgmma's accumulator layout");
  if ((!registerA && !getWgmmaRowBytes(op.getA())) ||
      !getWgmmaRowBytes(op.getB()))
    return StringRef("operands not wgmma-swizzled");
  return std::nullopt;
}

FragmentLayoutAttr mlir::tile::getWgmmaAccumulatorLayout(GemmOp op,
                                                         int64_t threads) {
  int64_t groups = threads / (4 * kWarpSize);
  int64_t m = op.getM(), n = op.getN();
  if (threads % (4 * kWarpSize) || groups == 0 || m % (64 * groups) ||
      n % 8)
    return {};
  int64_t rows = m / groups; // per warpgroup: rows / 64 blocks of m64
  MLIRContext *ctx = op.getContext();
  AffineExpr i = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx);
  // Warp 4g + w holds rows 16w.. of every m64 block of warpgroup g; the
  // lane and the four registers per 8 columns as in the m16n8 piece.
  AffineExpr warp = i.floorDiv(rows) * 4 + (i % 64).floorDiv(kTileM);
  AffineExpr thread = warp * kWarpSize + (i % 8) * 4 + (j % 8).floorDiv(2);
  AffineExpr slot = (i % rows).floorDiv(64) * (n / 2) + j.floorDiv(8) * 4 +
                    (i % kTileM).floorDiv(8) * 2 + j % 2;
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

void mlir::tile::markGemmsOnArrivedTiles(Operation *root,
                                         const RegisterFragments &fragments) {
  // Only copies that arrive on barriers write `tile`; the rest only read it
  // (copies from it, gemm operands).
  auto onlyArrivedWrites = [](Value tile) {
    if (!tile.getDefiningOp<AllocSharedOp>())
      return false;
    return llvm::all_of(tile.getUses(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      if (auto copy = dyn_cast<CopyOp>(user))
        return copy.getSrc() == tile ||
               (copy.getBarriers() && copy.getDst() == tile);
      if (auto gemm = dyn_cast<GemmOp>(user))
        return gemm.getC() != tile;
      return false;
    });
  };
  root->walk([&](GemmOp gemm) {
    // (Pipelined bodies and turns place their barriers themselves; a gemm
    // that leaves work in flight keeps its conservative barriers.)
    if (isa<PipelinedOp, TakeTurnsOp>(gemm->getParentOp()) ||
        gemm.getWgWaitAttr().getInt() != 0 || !fragments.getArray(gemm.getC()))
      return;
    bool registerA = static_cast<bool>(fragments.getArray(gemm.getA()));
    if ((registerA || onlyArrivedWrites(gemm.getA())) &&
        onlyArrivedWrites(gemm.getB()))
      gemm->setAttr(TileDialect::getArrivedOperandsAttrName(),
                    UnitAttr::get(gemm.getContext()));
  });
}
