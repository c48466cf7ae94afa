//===- GemmToMFMA.cpp - tile.gemm on AMD matrix cores --------------------===//
//
// Part of TileLang-MLIR.
//
// tile.gemm inside a gpu.launch on chips with MFMA (wave64: gfx90a, gfx94x,
// gfx950), f16 or bf16 operands with f32 accumulation, M, N, K multiples of
// 16: `amdgpu.mfma` 16x16x16 (v_mfma_f32_16x16x16_f16 / _bf16). Wave w takes
// 16x16 C tiles w, w + W, ... and keeps each tile's four accumulators per
// lane in registers across its k loop. The operand layouts of the
// instruction, lane l = 16 q + r (q in 0..3, r in 0..15):
//
//   A  (16x16, 4 per lane): A[r][4q + v], v = 0..3
//   B  (16x16, 4 per lane): B[4q + v][r]
//   C/D (16x16 f32):        C[4q + v][r]
//
// Operands are read element by element from the on-chip tiles (through
// their swizzle, if any); anything else (other types, shapes that are not
// multiples of 16, chips without MFMA, partial waves) keeps the generic
// lowering, so no unsupported MFMA shape reaches the backend.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/TileToAMDGPU.h"

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

constexpr int64_t kTile = 16, kWave = 64, kPerLane = 4;

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}

/// Loads the four elements `at(v)`, v = 0..3, of `tile` into a vector.
Value loadFour(OpBuilder &b, Location loc, Value tile,
               function_ref<SmallVector<Value>(int64_t)> at) {
  auto type = VectorType::get({kPerLane},
                              cast<MemRefType>(tile.getType()).getElementType());
  SmallVector<Value> values;
  for (int64_t v = 0; v < kPerLane; ++v)
    values.push_back(memref::LoadOp::create(
        b, loc, tile, swizzleIndices(b, loc, tile, at(v))));
  return vector::FromElementsOp::create(b, loc, type, values);
}

struct GemmToMFMA : OpRewritePattern<GemmOp> {
  GemmToMFMA(MLIRContext *ctx) : OpRewritePattern<GemmOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    Type aType = op.getA().getType().getElementType();
    if (aType != op.getB().getType().getElementType() ||
        !(aType.isF16() || aType.isBF16()) ||
        !op.getC().getType().getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "no 16x16x16 MFMA for the types");
    if (op.getM() % kTile || op.getN() % kTile || op.getK() % kTile)
      return rewriter.notifyMatchFailure(op, "not a multiple of 16x16x16");
    std::optional<int64_t> threads = getStaticBlockThreads(op);
    if (!threads || *threads % kWave)
      return rewriter.notifyMatchFailure(op, "not whole waves");

    Location loc = op.getLoc();
    Value a = op.getA(), b = op.getB(), c = op.getC();
    bool transA = op.getTransposeA(), transB = op.getTransposeB();
    int64_t tilesN = op.getN() / kTile;
    int64_t numTiles = (op.getM() / kTile) * tilesN;

    gpu::BarrierOp::create(rewriter, loc);
    Value tid = getBlockThreads(rewriter, op).threadId;
    Value wave =
        arith::DivUIOp::create(rewriter, loc, tid, index(rewriter, loc, kWave));
    Value lane =
        arith::RemUIOp::create(rewriter, loc, tid, index(rewriter, loc, kWave));
    Value r =
        arith::RemUIOp::create(rewriter, loc, lane, index(rewriter, loc, kTile));
    Value q4 = arith::MulIOp::create(
        rewriter, loc,
        arith::DivUIOp::create(rewriter, loc, lane,
                               index(rewriter, loc, kTile)),
        index(rewriter, loc, kPerLane));
    auto accType = VectorType::get({kPerLane}, rewriter.getF32Type());

    scf::ForOp::create(
        rewriter, loc, wave, index(rewriter, loc, numTiles),
        index(rewriter, loc, *threads / kWave), ValueRange{},
        [&](OpBuilder &bld, Location loc, Value tile, ValueRange) {
          Value row0 = arith::MulIOp::create(
              bld, loc,
              arith::DivUIOp::create(bld, loc, tile, index(bld, loc, tilesN)),
              index(bld, loc, kTile));
          Value col0 = arith::MulIOp::create(
              bld, loc,
              arith::RemUIOp::create(bld, loc, tile, index(bld, loc, tilesN)),
              index(bld, loc, kTile));
          Value col = add(bld, loc, col0, r);
          Value rowBase = add(bld, loc, row0, q4);
          // C[4q + v][r] of this tile.
          auto cIndex = [&](OpBuilder &bld, int64_t v) -> SmallVector<Value> {
            return {add(bld, loc, rowBase, index(bld, loc, v)), col};
          };
          Value init;
          if (op.getClearAccum()) {
            init = arith::ConstantOp::create(
                bld, loc, accType,
                cast<TypedAttr>(bld.getZeroAttr(accType)));
          } else {
            init = loadFour(bld, loc, c, [&](int64_t v) {
              return cIndex(bld, v);
            });
          }
          auto kLoop = scf::ForOp::create(
              bld, loc, index(bld, loc, 0), index(bld, loc, op.getK()),
              index(bld, loc, kTile), ValueRange{init},
              [&](OpBuilder &bld, Location loc, Value k0, ValueRange acc) {
                Value kBase = add(bld, loc, k0, q4);
                Value aRow = add(bld, loc, row0, r);
                Value aFrag = loadFour(bld, loc, a, [&](int64_t v) {
                  Value k = add(bld, loc, kBase, index(bld, loc, v));
                  return transA ? SmallVector<Value>{k, aRow}
                                : SmallVector<Value>{aRow, k};
                });
                Value bFrag = loadFour(bld, loc, b, [&](int64_t v) {
                  Value k = add(bld, loc, kBase, index(bld, loc, v));
                  return transB ? SmallVector<Value>{col, k}
                                : SmallVector<Value>{k, col};
                });
                Value next = amdgpu::MFMAOp::create(
                    bld, loc, accType, /*m=*/kTile, /*n=*/kTile, /*k=*/kTile,
                    /*blocks=*/1, aFrag, bFrag, acc[0]);
                scf::YieldOp::create(bld, loc, next);
              });
          for (int64_t v = 0; v < kPerLane; ++v) {
            Value element = vector::ExtractOp::create(
                bld, loc, kLoop.getResult(0), ArrayRef<int64_t>{v});
            memref::StoreOp::create(bld, loc, element, c, cIndex(bld, v));
          }
          scf::YieldOp::create(bld, loc);
        });
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

bool mlir::tile::hasMFMA(StringRef chip) {
  return chip == "gfx908" || chip == "gfx90a" || chip.starts_with("gfx94") ||
         chip == "gfx950";
}

void mlir::tile::populateTileToAMDGPUPatterns(RewritePatternSet &patterns,
                                              StringRef chip) {
  // gfx908's 16x16x16 bf16 form is the older one; f16 and bf16_1k need
  // gfx90a or newer.
  if (hasMFMA(chip) && chip != "gfx908")
    patterns.add<GemmToMFMA>(patterns.getContext());
}
