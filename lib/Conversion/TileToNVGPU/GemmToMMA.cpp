//===- GemmToMMA.cpp - tile.gemm on tensor cores with mma.sync -----------===//
//
// Part of TileLang-MLIR.
//
// tile.gemm inside a gpu.launch, lowered to warp-level mma.sync m16n8k16:
// each warp takes 16x8 tiles of C (warp w: tiles w, w + W, ...), holds the
// tile's accumulator in registers (the mma.sync layout: lane = 4 * g + t
// owns rows g and g + 8, columns 2t and 2t + 1) across the whole k loop,
// and feeds mma.sync with A and B fragments loaded from the on-chip tiles by
// ldmatrix (x4 for A, x2 for B; .trans where the stored orientation is the
// transpose of the fragment's), each lane giving the address of one 16-byte
// row of an 8x8 matrix.
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
    // ldmatrix reads 16-byte rows: the tiles' rows must be whole vectors.
    for (Value operand : {op.getA(), op.getB()})
      if (cast<MemRefType>(operand.getType()).getDimSize(1) % 8)
        return rewriter.notifyMatchFailure(op, "rows not 16-byte multiples");

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
    // ldmatrix row addresses: lane L points at row L % 8 of matrix L / 8.
    Value laneMod8 = arith::RemUIOp::create(rewriter, loc, lane, c(8));
    Value laneMod16 = arith::RemUIOp::create(rewriter, loc, lane, c(16));
    Value laneDiv16x8 = arith::MulIOp::create(
        rewriter, loc, arith::DivUIOp::create(rewriter, loc, lane, c(16)), c(8));
    Value laneDiv8Mod2x8 = arith::MulIOp::create(
        rewriter, loc,
        arith::RemUIOp::create(rewriter, loc,
                               arith::DivUIOp::create(rewriter, loc, lane, c(8)),
                               c(2)),
        c(8));
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
                auto sum = [&](Value x, Value y) -> Value {
                  return arith::AddIOp::create(bld, loc, x, y);
                };
                // A (16x16 at row0, k0): matrices (rows 0-7 | 8-15) x
                // (k 0-7 | 8-15) in register order [0] r0k0, [1] r8k0,
                // [2] r0k8, [3] r8k8.
                Value va =
                    transA
                        ? nvgpu::LdMatrixOp::create(
                              bld, loc, fragA, a,
                              ValueRange{sum(sum(k0, laneMod8), laneDiv16x8),
                                         sum(row0, laneDiv8Mod2x8)},
                              bld.getBoolAttr(true), bld.getI32IntegerAttr(4))
                              .getResult()
                        : nvgpu::LdMatrixOp::create(
                              bld, loc, fragA, a,
                              ValueRange{sum(row0, laneMod16),
                                         sum(k0, laneDiv16x8)},
                              bld.getBoolAttr(false), bld.getI32IntegerAttr(4))
                              .getResult();
                // B (16x8 at k0, col0): matrices k 0-7 and k 8-15; lanes
                // 16-31 repeat 0-15 (ldmatrix .x2 ignores them).
                Value vb =
                    transB
                        ? nvgpu::LdMatrixOp::create(
                              bld, loc, fragB, b,
                              ValueRange{sum(col0, laneMod8),
                                         sum(k0, laneDiv8Mod2x8)},
                              bld.getBoolAttr(false), bld.getI32IntegerAttr(2))
                              .getResult()
                        : nvgpu::LdMatrixOp::create(
                              bld, loc, fragB, b,
                              ValueRange{sum(k0, laneMod16), col0},
                              bld.getBoolAttr(true), bld.getI32IntegerAttr(2))
                              .getResult();
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
