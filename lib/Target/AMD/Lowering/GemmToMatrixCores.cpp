//===- GemmToMatrixCores.cpp - tile.gemm on AMD matrix cores -------------===//
//
// Part of TileLang-MLIR.
//
// tile.gemm inside a gpu.launch on AMD matrix cores, f16 or bf16 operands
// with f32 accumulation, M, N, K multiples of 16:
//
//  * MFMA (wave64: gfx90a, gfx94x, gfx950): `amdgpu.mfma` 16x16x16
//    (v_mfma_f32_16x16x16_f16 / _bf16). Lane l = 16 h + r (h in 0..3,
//    r in 0..15) holds A[r][4h + v], B[4h + v][r] and C[4h + v][r],
//    v = 0..3.
//  * WMMA (wave32: gfx11): `amdgpu.wmma` 16x16x16 (v_wmma_f32_16x16x16_f16
//    / _bf16). Lane l = 16 h + r (h in 0..1) holds all of row r of A and
//    column r of B (the two half-waves hold the same operands) and
//    C[2v + h][r], v = 0..7.
//
// Wave w takes 16x16 C tiles w, w + W, ... and keeps each tile's
// accumulators in registers across its k loop. When C is a register
// fragment (in getMatrixCoreAccumulatorLayout's layout), the accumulators
// come from and go back to its slots and the wave's tiles are unrolled. Operands are read element by
// element from the on-chip tiles (through their swizzle, if any). Anything
// else (other types, shapes that are not multiples of 16, other chips)
// keeps the generic lowering, so no unsupported matrix shape reaches the
// backend.
//
// These lowerings are compiled and their ISA checked; no AMD GPU has run
// them (the layouts follow the instructions' documented operand layouts).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/AMD/Lowering.h"

#include "TileLang/Conversion/RegisterFragments.h"
#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr int64_t kTile = 16;

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}

Value add(OpBuilder &b, Location loc, Value x, int64_t y) {
  return y == 0 ? x : add(b, loc, x, index(b, loc, y));
}

/// Loads elements `at(v)`, v = 0..count-1, of `tile` into a vector. With
/// `alongRow`, element v lies v elements along a row from element 0, which
/// starts a run of `count` aligned elements: the elements then load as
/// vectors of up to 16 bytes that the tile's swizzle keeps together (one
/// ds_read_b64 / b128 instead of one read per element).
Value loadVector(OpBuilder &b, Location loc, Value tile, int64_t count,
                 function_ref<SmallVector<Value>(int64_t)> at,
                 bool alongRow = false) {
  auto tileType = cast<MemRefType>(tile.getType());
  Type element = tileType.getElementType();
  auto type = VectorType::get({count}, element);
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t chunk = std::min<int64_t>(count, 16 / bytes);
  if (SwizzleAttr swizzle = getTileSwizzle(tile))
    chunk = std::min<int64_t>(chunk, int64_t(1) << swizzle.getBase());
  if (alongRow && chunk > 1 && count % chunk == 0 &&
      tileType.getShape().back() % chunk == 0) {
    auto piece = VectorType::get({chunk}, element);
    Value result;
    for (int64_t v = 0; v < count; v += chunk) {
      Value part = vector::LoadOp::create(
          b, loc, piece, tile, swizzleIndices(b, loc, tile, at(v)),
          /*nontemporal=*/false, llvm::Align(chunk * bytes));
      if (!result) {
        result = part;
        continue;
      }
      // Appended by a shuffle of the two (lowered everywhere).
      SmallVector<int64_t> lanes(v + chunk);
      for (int64_t i = 0; i < v + chunk; ++i)
        lanes[i] = i;
      result = vector::ShuffleOp::create(b, loc, result, part, lanes);
    }
    return result;
  }
  SmallVector<Value> values;
  for (int64_t v = 0; v < count; ++v)
    values.push_back(memref::LoadOp::create(
        b, loc, tile, swizzleIndices(b, loc, tile, at(v))));
  return vector::FromElementsOp::create(b, loc, type, values);
}

/// How one matrix-core instruction lays its 16x16x16 operands over a wave:
/// lane = 16 h + r; A element v of the lane is A[r][aK(h, v)], B element v
/// is B[aK(h, v)][r], accumulator v is C[cRow(h, v)][r].
struct MatrixCore {
  int64_t waveSize, operandCount, accCount;
  /// k of operand element v (multiplier of h, plus v).
  int64_t kPerHalf;
  /// Row of accumulator v: rowStride * v + rowPerHalf * h.
  int64_t rowStride, rowPerHalf;
};

constexpr MatrixCore kMFMA = {64, 4, 4, /*kPerHalf=*/4, /*rowStride=*/1,
                              /*rowPerHalf=*/4};
constexpr MatrixCore kWMMA = {32, 16, 8, /*kPerHalf=*/0, /*rowStride=*/2,
                              /*rowPerHalf=*/1};

/// Why `op` cannot run on 16x16x16 matrix cores with `waveSize`-lane waves
/// over `threads` threads, if it cannot.
std::optional<StringRef> matrixCoreMismatch(GemmOp op, int64_t waveSize,
                                            std::optional<int64_t> threads) {
  Type aType = op.getA().getType().getElementType();
  if (aType != op.getB().getType().getElementType() ||
      !(aType.isF16() || aType.isBF16()) ||
      !op.getC().getType().getElementType().isF32())
    return StringRef("no 16x16x16 matrix core for the types");
  if (op.getM() % kTile || op.getN() % kTile || op.getK() % kTile)
    return StringRef("not a multiple of 16x16x16");
  if (!threads || *threads % waveSize)
    return StringRef("not whole waves");
  return std::nullopt;
}

struct GemmToMatrixCore : OpRewritePattern<GemmOp> {
  GemmToMatrixCore(MLIRContext *ctx, MatrixCore core,
                   const RegisterFragments *fragments)
      : OpRewritePattern<GemmOp>(ctx, /*benefit=*/2), core(core),
        fragments(fragments) {}

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    GemmInstructionAttr instruction = op.getInstructionAttr();
    if (!instruction ||
        instruction.getKind() != (core.waveSize == 64
                                      ? GemmInstructionKind::MFMA
                                      : GemmInstructionKind::WMMA))
      return rewriter.notifyMatchFailure(op, "not selected for this chip's "
                                             "matrix cores");
    if (op.getClearIf())
      return rewriter.notifyMatchFailure(op, "clear_if (expanded first)");
    std::optional<int64_t> threads = getStaticBlockThreads(op);
    if (std::optional<StringRef> why =
            matrixCoreMismatch(op, core.waveSize, threads))
      return rewriter.notifyMatchFailure(op, *why);
    if (fragments && fragments->getArray(op.getA()))
      return rewriter.notifyMatchFailure(op, "A in registers");

    Location loc = op.getLoc();
    Value a = op.getA(), b = op.getB(), c = op.getC();
    bool transA = op.getTransposeA(), transB = op.getTransposeB();
    int64_t tilesN = op.getN() / kTile;
    int64_t numTiles = (op.getM() / kTile) * tilesN;
    auto accType = VectorType::get({core.accCount}, rewriter.getF32Type());

    gpu::BarrierOp::create(rewriter, loc);
    Value tid = getBlockThreads(rewriter, op).threadId;
    Value wave = arith::DivUIOp::create(rewriter, loc, tid,
                                        index(rewriter, loc, core.waveSize));
    Value lane = arith::RemUIOp::create(rewriter, loc, tid,
                                        index(rewriter, loc, core.waveSize));
    Value r =
        arith::RemUIOp::create(rewriter, loc, lane, index(rewriter, loc, kTile));
    Value h =
        arith::DivUIOp::create(rewriter, loc, lane, index(rewriter, loc, kTile));
    auto scaled = [&](OpBuilder &bld, int64_t factor) -> Value {
      return arith::MulIOp::create(bld, loc, h, index(bld, loc, factor));
    };

    Value cArray = fragments ? fragments->getArray(c) : Value();
    int64_t waves = *threads / core.waveSize;
    // The lane's A fragment of rows aRow.. and B fragment of column col at
    // k step k0, and one matrix-core instruction.
    // The fragment of operand `tile` at k step `kBase` and row or column
    // `other`; `kInner`: k is the tile's second index (A stored M x K, B
    // stored N x K), so the fragment's k run lies along a row.
    auto loadOperand = [&](OpBuilder &bld, Value tile, bool kInner,
                           Value kBase, Value other) {
      return loadVector(
          bld, loc, tile, core.operandCount,
          [&](int64_t v) {
            Value k = add(bld, loc, kBase, v);
            return kInner ? SmallVector<Value>{other, k}
                          : SmallVector<Value>{k, other};
          },
          /*alongRow=*/kInner);
    };
    auto loadA = [&](OpBuilder &bld, Value kBase, Value aRow) {
      return loadOperand(bld, a, /*kInner=*/!transA, kBase, aRow);
    };
    auto loadB = [&](OpBuilder &bld, Value kBase, Value col) {
      return loadOperand(bld, b, /*kInner=*/transB, kBase, col);
    };
    auto multiply = [&](OpBuilder &bld, Value aFrag, Value bFrag,
                        Value acc) -> Value {
      if (core.waveSize == 64)
        return amdgpu::MFMAOp::create(bld, loc, accType, kTile, kTile, kTile,
                                      /*blocks=*/1, aFrag, bFrag, acc);
      return amdgpu::WMMAOp::create(bld, loc, accType,
                                    bld.getI32IntegerAttr(kTile),
                                    bld.getI32IntegerAttr(kTile),
                                    bld.getI32IntegerAttr(kTile), aFrag,
                                    bFrag, acc);
    };
    // One 16x16 C tile: its accumulators from C (memory, or the register
    // slots from `slot0` on), the k loop, back to C.
    auto emitTile = [&](OpBuilder &bld, Value tile, int64_t slot0) {
          Value row0 = arith::MulIOp::create(
              bld, loc,
              arith::DivUIOp::create(bld, loc, tile, index(bld, loc, tilesN)),
              index(bld, loc, kTile));
          Value col0 = arith::MulIOp::create(
              bld, loc,
              arith::RemUIOp::create(bld, loc, tile, index(bld, loc, tilesN)),
              index(bld, loc, kTile));
          Value col = add(bld, loc, col0, r);
          Value aRow = add(bld, loc, row0, r);
          Value cRowBase = add(bld, loc, row0, scaled(bld, core.rowPerHalf));
          auto cIndex = [&](OpBuilder &bld, int64_t v) -> SmallVector<Value> {
            return {add(bld, loc, cRowBase, core.rowStride * v), col};
          };
          Value init;
          if (op.getClearAccum()) {
            init = arith::ConstantOp::create(
                bld, loc, accType,
                cast<TypedAttr>(bld.getZeroAttr(accType)));
          } else if (cArray) {
            SmallVector<Value> values;
            for (int64_t v = 0; v < core.accCount; ++v)
              values.push_back(memref::LoadOp::create(
                  bld, loc, cArray, index(bld, loc, slot0 + v)));
            init = vector::FromElementsOp::create(bld, loc, accType, values);
          } else {
            init = loadVector(bld, loc, c, core.accCount,
                              [&](int64_t v) { return cIndex(bld, v); });
          }
          auto kLoop = scf::ForOp::create(
              bld, loc, index(bld, loc, 0), index(bld, loc, op.getK()),
              index(bld, loc, kTile), ValueRange{init},
              [&](OpBuilder &bld, Location loc, Value k0, ValueRange acc) {
                Value kBase = add(bld, loc, k0, scaled(bld, core.kPerHalf));
                scf::YieldOp::create(bld, loc,
                                     multiply(bld, loadA(bld, kBase, aRow),
                                              loadB(bld, kBase, col),
                                              acc[0]));
              });
          for (int64_t v = 0; v < core.accCount; ++v) {
            Value element = vector::ExtractOp::create(
                bld, loc, kLoop.getResult(0), ArrayRef<int64_t>{v});
            if (cArray)
              memref::StoreOp::create(bld, loc, element, cArray,
                                      index(bld, loc, slot0 + v));
            else
              memref::StoreOp::create(bld, loc, element, c, cIndex(bld, v));
          }
    };
    if (cArray && tilesN % waves == 0) {
      // C in registers and the waves dealt whole rows of tiles in turn: the
      // wave's tile q (tile w + qW) lies in tile row qW / tilesN (the same
      // for every wave) and tile column w + qW mod tilesN. One k loop
      // carries all the wave's accumulators; per k step each distinct B
      // column fragment and each distinct A row fragment is loaded once and
      // feeds every tile that shares it.
      int64_t perWave = numTiles / waves;
      SmallVector<Value> inits;
      for (int64_t q = 0; q < perWave; ++q) {
        if (op.getClearAccum()) {
          inits.push_back(arith::ConstantOp::create(
              rewriter, loc, accType,
              cast<TypedAttr>(rewriter.getZeroAttr(accType))));
          continue;
        }
        SmallVector<Value> values;
        for (int64_t v = 0; v < core.accCount; ++v)
          values.push_back(memref::LoadOp::create(
              rewriter, loc, cArray,
              index(rewriter, loc, q * core.accCount + v)));
        inits.push_back(
            vector::FromElementsOp::create(rewriter, loc, accType, values));
      }
      Value colBase = arith::MulIOp::create(rewriter, loc, wave,
                                            index(rewriter, loc, kTile));
      auto kLoop = scf::ForOp::create(
          rewriter, loc, index(rewriter, loc, 0),
          index(rewriter, loc, op.getK()), index(rewriter, loc, kTile),
          inits,
          [&](OpBuilder &bld, Location loc, Value k0, ValueRange accs) {
            Value kBase = add(bld, loc, k0, scaled(bld, core.kPerHalf));
            // B fragments by the static part of their tile column.
            llvm::SmallDenseMap<int64_t, Value> bFrags;
            for (int64_t q = 0; q < perWave; ++q) {
              int64_t column = (q * waves) % tilesN;
              if (!bFrags.count(column))
                bFrags[column] = loadB(
                    bld, kBase,
                    add(bld, loc, add(bld, loc, colBase, column * kTile), r));
            }
            SmallVector<Value> next(accs.begin(), accs.end());
            for (int64_t q = 0; q < perWave;) {
              int64_t tileRow = (q * waves) / tilesN;
              Value aFrag =
                  loadA(bld, kBase, add(bld, loc, r, tileRow * kTile));
              for (; q < perWave && (q * waves) / tilesN == tileRow; ++q)
                next[q] = multiply(bld, aFrag,
                                   bFrags[(q * waves) % tilesN], next[q]);
            }
            scf::YieldOp::create(bld, loc, next);
          });
      for (int64_t q = 0; q < perWave; ++q)
        for (int64_t v = 0; v < core.accCount; ++v)
          memref::StoreOp::create(
              rewriter, loc,
              vector::ExtractOp::create(rewriter, loc, kLoop.getResult(q),
                                        ArrayRef<int64_t>{v}),
              cArray, index(rewriter, loc, q * core.accCount + v));
    } else if (cArray) {
      // The wave's tiles w, w + W, ... one after another, tile q of the
      // wave in slots q * accCount on.
      for (int64_t q = 0; q < numTiles / waves; ++q)
        emitTile(rewriter,
                 add(rewriter, loc, wave, q * waves), q * core.accCount);
    } else {
      scf::ForOp::create(
          rewriter, loc, wave, index(rewriter, loc, numTiles),
          index(rewriter, loc, waves), ValueRange{},
          [&](OpBuilder &bld, Location, Value tile, ValueRange) {
            emitTile(bld, tile, /*slot0=*/-1);
            scf::YieldOp::create(bld, loc);
          });
    }
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }

private:
  MatrixCore core;
  const RegisterFragments *fragments;
};

} // namespace

bool mlir::tile::hasMFMA(StringRef chip) {
  return chip == "gfx90a" || chip.starts_with("gfx94") || chip == "gfx950";
}

bool mlir::tile::hasWMMA(StringRef chip) { return chip.starts_with("gfx11"); }

std::optional<StringRef>
mlir::tile::getMatrixCoreMismatch(GemmOp op, StringRef chip,
                                  std::optional<int64_t> threads) {
  if (hasMFMA(chip))
    return matrixCoreMismatch(op, kMFMA.waveSize, threads);
  if (hasWMMA(chip))
    return matrixCoreMismatch(op, kWMMA.waveSize, threads);
  return StringRef("the chip has no matrix cores the lowering uses");
}

void mlir::tile::populateTileToAMDGPUPatterns(
    RewritePatternSet &patterns, StringRef chip,
    const RegisterFragments *fragments) {
  populateBufferLoadCopyPatterns(patterns);
  if (hasMFMA(chip))
    patterns.add<GemmToMatrixCore>(patterns.getContext(), kMFMA, fragments);
  else if (hasWMMA(chip))
    patterns.add<GemmToMatrixCore>(patterns.getContext(), kWMMA, fragments);
}

FragmentLayoutAttr mlir::tile::getMatrixCoreAccumulatorLayout(GemmOp op,
                                                              int64_t threads,
                                                              StringRef chip) {
  const MatrixCore *core =
      hasMFMA(chip) ? &kMFMA : hasWMMA(chip) ? &kWMMA : nullptr;
  if (!core || matrixCoreMismatch(op, core->waveSize, threads))
    return {};
  int64_t waves = threads / core->waveSize;
  int64_t tilesN = op.getN() / kTile;
  int64_t numTiles = (op.getM() / kTile) * tilesN;
  if (numTiles % waves)
    return {};
  MLIRContext *ctx = op.getContext();
  AffineExpr i = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx);
  AffineExpr tile = i.floorDiv(kTile) * tilesN + j.floorDiv(kTile);
  // Row i of the tile is accumulator v of half h: i = rowStride v +
  // rowPerHalf h (MFMA: v + 4h; WMMA: 2v + h); lane = 16 h + column.
  AffineExpr row = i % kTile;
  AffineExpr h = core->rowStride == 1 ? row.floorDiv(core->rowPerHalf)
                                      : row % 2;
  AffineExpr v = core->rowStride == 1 ? row % core->rowPerHalf
                                      : row.floorDiv(2);
  AffineExpr thread =
      (tile % waves) * core->waveSize + h * kTile + j % kTile;
  AffineExpr slot = tile.floorDiv(waves) * core->accCount + v;
  return FragmentLayoutAttr::get(
      ctx, op.getC().getType().getShape(), AffineMap::get(2, 0, thread),
      AffineMap::get(2, 0, slot), threads, /*replicate=*/1);
}
