//===- CopyToBufferLoads.cpp - Global-to-LDS copies on buffer loads -------===//
//
// Part of TileLang-MLIR.
//
// tile.copy from a global buffer (with offsets) to a whole LDS tile inside
// a gpu.launch on AMD GPUs, one vector of 16, 8 or 4 bytes per buffer load
// (amdgpu.raw_buffer_load with bounds checking: a load past the end of the
// buffer returns zeros instead of faulting) followed by a select that zeroes
// the elements outside the global view: rows past the end of a leading
// dimension (which the linear bounds check does not see but for the first
// dimension) and columns past the end of a row (which read the next row).
// No thread branches per vector, so the loads of a thread issue back to
// back, without the wait for each that a per-vector whole/edge branch
// forces (its join needs the loaded value).
//
// The block checks once per copy, at run time, that the vectors are aligned
// (base, row strides, column offset), that the view starts at its buffer's
// base (the buffer resource's size does not count the view's offset) and
// that it spans less than 2 GiB (32-bit buffer offsets); the generic copy
// runs otherwise. A vector never straddles the end of the buffer: aligned
// vectors of aligned rows end where a row ends at the latest.
//
// Asynchronous copies (tile.copy {async}: a pipeline's prefetch, for which
// the next tile.async_wait is a block barrier on these targets) need no
// barrier of their own; synchronous ones keep the generic lowering's
// barriers before and after.
//
// Compiled and ISA-checked; no AMD GPU has run it.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/AMD/Lowering.h"

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

struct GlobalToLDSOnBufferLoads : OpRewritePattern<CopyOp> {
  GlobalToLDSOnBufferLoads(MLIRContext *ctx)
      : OpRewritePattern<CopyOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    // (The verifier made a buffer_load copy one without barriers of a
    // global region into a whole LDS tile of its element type.)
    if (!op.hasEngine(CopyEngineKind::BufferLoad))
      return rewriter.notifyMatchFailure(op, "engine is not buffer_load");
    FailureOr<CopyVectors> vectors = matchCopyVectors(op, rewriter);
    if (failed(vectors))
      return failure();
    int64_t width = vectors->getVectorElements();

    Location loc = op.getLoc();
    bool async = op.getAsync();
    if (!async)
      gpu::BarrierOp::create(rewriter, loc);
    auto ifOp = scf::IfOp::create(rewriter, loc,
                                  canUseBufferLoads(rewriter, loc, op, width),
                                  /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
      forEachThreadVector(rewriter, loc, op, vectors->threads, width,
                          [&](OpBuilder &b, Value vector) {
                            emitVector(b, loc, op, vector, width);
                          });
      // Otherwise the generic copy (with its own barriers).
      rewriter.setInsertionPointToStart(&ifOp.getElseRegion().front());
      createFallbackCopy(rewriter, op);
    }
    if (!async)
      gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// Aligned vectors on both sides, the source view at its buffer's base,
  /// and its extent (max over dimensions of size times stride) under 2 GiB.
  static Value canUseBufferLoads(OpBuilder &b, Location loc, CopyOp op,
                                 int64_t width) {
    Value src = op.getSrc();
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, src);
    Value ok = canCopyVectors(b, loc, op, width);
    ok = arith::AndIOp::create(
        b, loc, ok,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              metadata.getOffset(), indexConst(b, loc, 0)));
    int64_t elementBytes =
        op.getSrc().getType().getElementTypeBitWidth() / 8;
    Value extent = indexConst(b, loc, 0);
    for (auto [size, stride] :
         llvm::zip(metadata.getSizes(), metadata.getStrides()))
      extent = arith::MaxUIOp::create(
          b, loc, extent, arith::MulIOp::create(b, loc, size, stride));
    return arith::AndIOp::create(
        b, loc, ok,
        arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult, extent,
            indexConst(b, loc, (int64_t(1) << 31) / elementBytes)));
  }

  /// The buffer load of vector `vector` (row-major over the tile), its
  /// elements outside the view zeroed, stored to the LDS tile.
  static void emitVector(OpBuilder &b, Location loc, CopyOp op, Value vector,
                         int64_t width) {
    Value src = op.getSrc(), dst = op.getDst();
    Type element = op.getSrc().getType().getElementType();
    SmallVector<Value> coords =
        getVectorCoords(b, loc, op.getTileShape(), vector, width);
    // matchCopyVectors made sure the rows run along the source's last
    // dimension.
    SmallVector<Value> srcIdx = tileIndices(b, loc, op.getSrcRegion(), coords);

    // Elements of the vector inside the view: none when a leading index is
    // out of bounds, else what is left of the row (at most `width`).
    Value rows = inBounds(b, loc, src, ArrayRef(srcIdx).drop_back());
    Value rowSize = b.createOrFold<memref::DimOp>(loc, src, srcIdx.size() - 1);
    Value left = arith::MinSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, rowSize, srcIdx.back()),
        indexConst(b, loc, width));
    left = arith::SelectOp::create(b, loc, rows, left, indexConst(b, loc, 0));
    Type i32 = b.getI32Type();
    auto maskType = VectorType::get({width}, i32);
    Value leftSplat = vector::BroadcastOp::create(
        b, loc, maskType, arith::IndexCastOp::create(b, loc, i32, left));
    SmallVector<int32_t> lanes(width);
    for (int64_t e = 0; e < width; ++e)
      lanes[e] = e;
    Value lane = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(maskType, ArrayRef(lanes)));
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                         leftSplat, lane);

    SmallVector<Value> offsets32;
    for (Value index : srcIdx)
      offsets32.push_back(arith::IndexCastOp::create(b, loc, i32, index));
    auto vectorType = VectorType::get({width}, element);
    Value loaded = amdgpu::RawBufferLoadOp::create(
        b, loc, vectorType, src, offsets32, /*boundsCheck=*/true,
        /*indexOffset=*/IntegerAttr(), /*sgprOffset=*/Value());
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(vectorType));
    Value value = arith::SelectOp::create(b, loc, inside, loaded, zero);
    SmallVector<Value> dstIdx =
        swizzleIndices(b, loc, dst, tileIndices(b, loc, op.getDstRegion(), coords));
    vector::StoreOp::create(b, loc, value, dst, dstIdx, /*nontemporal=*/false,
                            llvm::Align(width * element.getIntOrFloatBitWidth() /
                                        8));
  }
};

} // namespace

void mlir::tile::populateBufferLoadCopyPatterns(RewritePatternSet &patterns) {
  patterns.add<GlobalToLDSOnBufferLoads>(patterns.getContext());
}
