//===- CopyToCpAsync.cpp - Asynchronous tile copies on cp.async ----------===//
//
// Part of TileLang-MLIR.
//
// tile.copy {async} from global to shared memory inside a gpu.launch, as
// cp.async transfers of 16 bytes per thread (8 or 4 when the rows are
// shorter), one vector after another over the block's threads; the commit
// and wait of their groups as cp.async.commit_group and cp.async.wait_group
// followed by a block barrier.
//
// Edge tiles: a vector that starts outside the global buffer reads nothing
// (source size 0: the transfer fills zeros and touches no global memory) and one that crosses the end of
// a row reads only the elements inside it, so edges cost no separate path.
//
// tile.parallel {async} (a gather of global elements into a shared tile)
// likewise: its aligned vectors as cp.async transfers.
// The vectors must be aligned: whether the global tile is (base address,
// row strides, column offset) is only known at run time, so the block
// checks it once per copy and takes the element-wise synchronous copy when
// it is not.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Lowering.h"

#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// tile.copy {async}, global (with offsets) to a whole shared tile.
struct AsyncCopyToCpAsync : OpRewritePattern<CopyOp> {
  AsyncCopyToCpAsync(MLIRContext *ctx)
      : OpRewritePattern<CopyOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    // (The verifier made a cp_async copy an async one, without barriers,
    // of a global region into a whole shared tile.)
    if (!op.hasEngine(CopyEngineKind::CpAsync))
      return rewriter.notifyMatchFailure(op, "engine is not cp_async");
    FailureOr<CopyVectors> vectors = matchCopyVectors(op, rewriter);
    if (failed(vectors))
      return failure();

    Location loc = op.getLoc();
    Value ok = canCopyVectors(rewriter, loc, op, vectors->getVectorElements());
    auto ifOp = scf::IfOp::create(rewriter, loc, ok, /*withElse=*/true);
    ifOp->setAttr(TileDialect::getLoweredAsyncCopyAttrName(), rewriter.getUnitAttr());
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
      emitVectors(rewriter, loc, op, *vectors);
      // Misaligned: the same copy, synchronously and element by element.
      rewriter.setInsertionPointToStart(&ifOp.getElseRegion().front());
      createFallbackCopy(rewriter, op);
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  static void emitVectors(OpBuilder &b, Location loc, CopyOp op,
                          const CopyVectors &vectors) {
    forEachThreadVector(b, loc, op, vectors.threads,
                        vectors.getVectorElements(),
                        [&](OpBuilder &b, Value vector) {
                          emitVector(b, loc, op, vector,
                                     vectors.getVectorElements(),
                                     vectors.vectorBytes);
                        });
  }

  /// One cp.async of the vector number `vector` (row-major over the tile).
  static void emitVector(OpBuilder &b, Location loc, CopyOp op, Value vector,
                         int64_t vectorElements, int64_t vectorBytes) {
    Value src = op.getSrc(), dst = op.getDst();
    SmallVector<Value> coords =
        getVectorCoords(b, loc, op.getTileShape(), vector, vectorElements);

    // How many elements of the vector lie inside the source: none when a
    // leading index is out of bounds, else what is left of the row.
    // matchCopyVectors made sure the rows run along the source's last
    // dimension.
    TileRegion srcRegion = op.getSrcRegion();
    SmallVector<Value> srcIdx = tileIndices(b, loc, srcRegion, coords);
    Value inside;
    for (auto [d, index] : llvm::enumerate(srcIdx)) {
      Value size = b.createOrFold<memref::DimOp>(loc, src, d);
      Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       index, size);
      inside = inside ? arith::AndIOp::create(b, loc, inside, ok).getResult()
                      : ok;
    }
    Value rowSize =
        b.createOrFold<memref::DimOp>(loc, src, srcIdx.size() - 1);
    Value left = arith::MinUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, rowSize, srcIdx.back()),
        indexConst(b, loc, vectorElements));
    Value zero = indexConst(b, loc, 0);
    Value count = arith::SelectOp::create(b, loc, inside, left, zero);
    // A vector that reads nothing keeps its (out-of-bounds) address: a
    // source size of 0 reads no byte. Leaving the address unclamped keeps
    // it an affine function of the loop, which the device compiler
    // strength-reduces.

    SmallVector<Value> dstIdx =
        swizzleIndices(b, loc, dst, tileIndices(b, loc, op.getDstRegion(), coords));
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), dst, dstIdx,
        src, srcIdx, b.getIndexAttr(vectorElements), count,
        vectorBytes == 16 ? b.getUnitAttr() : UnitAttr());
  }
};

/// One cp.async of `elements` whole elements (4, 8 or 16 bytes; false for
/// other sizes) from `src` at `srcIndices` to `dst` at `dstIndices` (its
/// place, swizzle applied), bypassing L1 where it moves 16 bytes.
static bool emitWholeCpAsync(OpBuilder &b, Location loc, Value src,
                             ValueRange srcIndices, Value dst,
                             ValueRange dstIndices, int64_t elements,
                             Value srcElements = Value()) {
  int64_t bytes =
      elements * cast<MemRefType>(src.getType()).getElementTypeBitWidth() / 8;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return false;
  nvgpu::DeviceAsyncCopyOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), dst,
      dstIndices, src, srcIndices, b.getIndexAttr(elements), srcElements,
      bytes == 16 ? b.getUnitAttr() : UnitAttr());
  return true;
}

/// tile.parallel {async} (a gather the pipeline stages): each aligned
/// vector of 4, 8 or 16 bytes it stores as loaded is one cp.async (in
/// bounds: the body loaded every element); the rest is the generic
/// lowering's (plain stores, visible by the same wait).
struct AsyncGatherToCpAsync : OpRewritePattern<ParallelOp> {
  AsyncGatherToCpAsync(MLIRContext *ctx)
      : OpRewritePattern<ParallelOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(ParallelOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getAsync())
      return rewriter.notifyMatchFailure(op, "not asynchronous");
    lowerParallel(rewriter, op, TileLoweringMode::Block,
                  [](OpBuilder &b, Location loc, Value src,
                     ValueRange srcIndices, Value dst, ValueRange dstIndices,
                     int64_t elements) {
                    return emitWholeCpAsync(b, loc, src, srcIndices, dst,
                                            dstIndices, elements);
                  });
    return success();
  }
};

/// A thread's few elements (TileLang's T.ptx_cp_async): one cp.async (the
/// verifier made them 4, 8 or 16 bytes).
struct AsyncCopyElementsToCpAsync : OpRewritePattern<AsyncCopyElementsOp> {
  AsyncCopyElementsToCpAsync(MLIRContext *ctx)
      : OpRewritePattern<AsyncCopyElementsOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(AsyncCopyElementsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // A false predicate reads no byte of the source and zero-fills
    // (cp.async's source size).
    Value srcElements;
    if (Value predicate = op.getPredicate())
      srcElements = arith::SelectOp::create(
          rewriter, loc, predicate,
          arith::ConstantIndexOp::create(rewriter, loc, op.getCount()),
          arith::ConstantIndexOp::create(rewriter, loc, 0));
    emitWholeCpAsync(
        rewriter, loc, op.getSrc(), op.getSrcIndices(), op.getDst(),
        swizzleIndices(rewriter, loc, op.getDst(), op.getDstIndices()),
        op.getCount(), srcElements);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Where arrival barriers are not lowered (they order nothing: before
/// sm_90), the arrival after a thread's copies waits for all of them, so
/// that they are complete where the barrier would have said so.
struct AsyncCopiesArrivalToWait : OpRewritePattern<BarrierArriveOp> {
  AsyncCopiesArrivalToWait(MLIRContext *ctx)
      : OpRewritePattern<BarrierArriveOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(BarrierArriveOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getAsyncCopies())
      return rewriter.notifyMatchFailure(op, "not after async copies");
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(),
                                     rewriter.getI32IntegerAttr(0));
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCommitToCpAsync : OpRewritePattern<AsyncCommitOp> {
  AsyncCommitToCpAsync(MLIRContext *ctx)
      : OpRewritePattern<AsyncCommitOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(AsyncCommitOp op,
                                PatternRewriter &rewriter) const override {
    NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The wait covers this thread's copies; the barrier makes every thread's
/// copies visible to the block (and orders earlier reads of the buffers
/// before later copies into them). A `per_thread` wait has no barrier.
struct AsyncWaitToCpAsync : OpRewritePattern<AsyncWaitOp> {
  AsyncWaitToCpAsync(MLIRContext *ctx)
      : OpRewritePattern<AsyncWaitOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(AsyncWaitOp op,
                                PatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(
        rewriter, op.getLoc(),
        rewriter.getI32IntegerAttr(static_cast<int32_t>(op.getPending())));
    if (!op.getPerThread())
      gpu::BarrierOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateCpAsyncPatterns(RewritePatternSet &patterns,
                                         bool mbarriers) {
  patterns.add<AsyncCopyToCpAsync, AsyncGatherToCpAsync,
               AsyncCopyElementsToCpAsync, AsyncCommitToCpAsync,
               AsyncWaitToCpAsync>(patterns.getContext());
  if (!mbarriers)
    patterns.add<AsyncCopiesArrivalToWait>(patterns.getContext());
}
