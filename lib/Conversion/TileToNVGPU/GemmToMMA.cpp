//===- GemmToMMA.cpp - tile.gemm on tensor cores with mma.sync -----------===//
//
// Part of TileLang-MLIR.
//
// tile.gemm inside a gpu.launch, lowered to warp-level mma.sync m16n8k16:
// each warp takes 16x8 tiles of C (warp w: tiles w, w + W, ...), holds the
// tile's accumulator in registers (the mma.sync layout: lane = 4 * g + t
// owns rows g and g + 8, columns 2t and 2t + 1) across the whole k loop,
// and feeds mma.sync with A and B fragments gathered from the on-chip tiles.
// Supports f16 x f16 -> f32 or f16 when M, N, K are multiples of 16, 8, 16
// and the block has whole warps; other gemms keep the generic lowering
// (bf16 too: nvgpu.mma.sync of MLIR 22 cannot type bf16 operands).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/TileToNVGPU.h"

#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr int64_t kWarpSize = 32;
constexpr int64_t kTileM = 16, kTileN = 8, kTileK = 16;

struct GemmToMmaSync : OpRewritePattern<GemmOp> {
  GemmToMmaSync(MLIRContext *ctx)
      : OpRewritePattern<GemmOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    Type aType = op.getA().getType().getElementType();
    Type bType = op.getB().getType().getElementType();
    Type cType = op.getC().getType().getElementType();
    bool supported =
        aType == bType && aType.isF16() && (cType.isF32() || cType.isF16());
    if (!supported)
      return rewriter.notifyMatchFailure(op, "no m16n8k16 mma for the types");
    int64_t m = op.getM(), n = op.getN(), k = op.getK();
    if (m % kTileM || n % kTileN || k % kTileK)
      return rewriter.notifyMatchFailure(op, "not a multiple of 16x8x16");
    auto launch = op->getParentOfType<gpu::LaunchOp>();
    if (!launch)
      return failure();
    int64_t threads = 1;
    for (Value size : {launch.getBlockSizeX(), launch.getBlockSizeY(),
                       launch.getBlockSizeZ()}) {
      std::optional<int64_t> extent = getConstantIntValue(size);
      if (!extent)
        return rewriter.notifyMatchFailure(op, "dynamic block size");
      threads *= *extent;
    }
    if (threads % kWarpSize)
      return rewriter.notifyMatchFailure(op, "partial warps");

    Location loc = op.getLoc();
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value a = op.getA(), b = op.getB(), acc = op.getC();
    bool transA = op.getTransposeA(), transB = op.getTransposeB();
    auto fragA = VectorType::get({4, 2}, aType);
    auto fragB = VectorType::get({2, 2}, bType);
    auto fragC = VectorType::get({2, 2}, cType);

    gpu::BarrierOp::create(rewriter, loc);
    BlockThreads block = getBlockThreads(rewriter, op);
    Value warp = arith::DivUIOp::create(rewriter, loc, block.threadId,
                                        c(kWarpSize));
    Value lane = arith::RemUIOp::create(rewriter, loc, block.threadId,
                                        c(kWarpSize));
    Value group = arith::DivUIOp::create(rewriter, loc, lane, c(4));
    Value inGroup = arith::RemUIOp::create(rewriter, loc, lane, c(4));
    Value twoT = arith::MulIOp::create(rewriter, loc, inGroup, c(2));
    int64_t tilesN = n / kTileN;
    int64_t numTiles = (m / kTileM) * tilesN;

    auto add = [&](OpBuilder &bld, Value x, int64_t y) -> Value {
      return y == 0 ? x
                    : arith::AddIOp::create(bld, loc, x,
                                            arith::ConstantIndexOp::create(
                                                bld, loc, y))
                          .getResult();
    };

    scf::ForOp::create(
        rewriter, loc, warp, c(numTiles), c(threads / kWarpSize),
        ValueRange{},
        [&](OpBuilder &bld, Location loc, Value tile, ValueRange) {
          Value tileRow = arith::DivUIOp::create(
              bld, loc, tile, arith::ConstantIndexOp::create(bld, loc, tilesN));
          Value tileCol = arith::RemUIOp::create(
              bld, loc, tile, arith::ConstantIndexOp::create(bld, loc, tilesN));
          Value row0 = arith::MulIOp::create(
              bld, loc, tileRow, arith::ConstantIndexOp::create(bld, loc, kTileM));
          Value col0 = arith::MulIOp::create(
              bld, loc, tileCol, arith::ConstantIndexOp::create(bld, loc, kTileN));
          // This lane's accumulator rows and columns.
          Value rowLo = arith::AddIOp::create(bld, loc, row0, group);
          Value colLo = arith::AddIOp::create(bld, loc, col0, twoT);
          auto accIndex = [&](int64_t r, int64_t e) {
            return SmallVector<Value>{add(bld, rowLo, 8 * r), add(bld, colLo, e)};
          };

          Value init;
          if (op.getClearAccum()) {
            init = arith::ConstantOp::create(
                bld, loc, fragC, cast<TypedAttr>(bld.getZeroAttr(fragC)));
          } else {
            SmallVector<Value> values;
            for (int64_t r = 0; r < 2; ++r)
              for (int64_t e = 0; e < 2; ++e)
                values.push_back(
                    memref::LoadOp::create(bld, loc, acc, accIndex(r, e)));
            init = vector::FromElementsOp::create(bld, loc, fragC, values);
          }

          auto kLoop = scf::ForOp::create(
              bld, loc, arith::ConstantIndexOp::create(bld, loc, 0),
              arith::ConstantIndexOp::create(bld, loc, k),
              arith::ConstantIndexOp::create(bld, loc, kTileK),
              ValueRange{init},
              [&](OpBuilder &bld, Location loc, Value k0, ValueRange iter) {
                Value kLo = arith::AddIOp::create(bld, loc, k0, twoT);
                // A: element [j][e] is (row g + 8 (j % 2), col 2t + e + 8 (j / 2)).
                SmallVector<Value> aValues;
                for (int64_t j = 0; j < 4; ++j)
                  for (int64_t e = 0; e < 2; ++e) {
                    Value row = add(bld, rowLo, 8 * (j % 2));
                    Value col = add(bld, kLo, e + 8 * (j / 2));
                    aValues.push_back(memref::LoadOp::create(
                        bld, loc, a,
                        transA ? ValueRange{col, row} : ValueRange{row, col}));
                  }
                // B: element [j][e] is (k 2t + e + 8 j, n g).
                Value nIdx = arith::AddIOp::create(bld, loc, col0, group);
                SmallVector<Value> bValues;
                for (int64_t j = 0; j < 2; ++j)
                  for (int64_t e = 0; e < 2; ++e) {
                    Value kk = add(bld, kLo, e + 8 * j);
                    bValues.push_back(memref::LoadOp::create(
                        bld, loc, b,
                        transB ? ValueRange{nIdx, kk} : ValueRange{kk, nIdx}));
                  }
                Value va = vector::FromElementsOp::create(bld, loc, fragA,
                                                          aValues);
                Value vb = vector::FromElementsOp::create(bld, loc, fragB,
                                                          bValues);
                Value next = nvgpu::MmaSyncOp::create(
                    bld, loc, va, vb, iter[0],
                    ArrayRef<int64_t>{kTileM, kTileN, kTileK});
                scf::YieldOp::create(bld, loc, next);
              });

          for (int64_t r = 0; r < 2; ++r)
            for (int64_t e = 0; e < 2; ++e) {
              Value v = vector::ExtractOp::create(
                  bld, loc, kLoop.getResult(0), ArrayRef<int64_t>{r, e});
              memref::StoreOp::create(bld, loc, v, acc, accIndex(r, e));
            }
          scf::YieldOp::create(bld, loc);
        });
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileToNVGPUPatterns(RewritePatternSet &patterns,
                                             int64_t smVersion) {
  if (smVersion >= 80)
    patterns.add<GemmToMmaSync>(patterns.getContext());
}
