//===- TileToSCF.cpp - Sequential lowering of tile kernels --------------===//
//
// Part of TileLang-MLIR.
//
// The CPU reference lowering: every tile op becomes plain loops over memrefs
// with the op's sequential meaning, edge handling included. GPU results are
// checked against what this lowering computes.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_CONVERTTILETOSCF
#include "TileLang/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static Value indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Builds a loop nest over [0, extents) and calls `body` with the induction
/// variables. A rank-0 extent calls `body` once with no indices.
static void buildTileLoops(
    OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t extent : extents) {
    lbs.push_back(indexConst(b, loc, 0));
    ubs.push_back(indexConst(b, loc, extent));
    steps.push_back(indexConst(b, loc, 1));
  }
  scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
}

/// Converts a scalar between float types or between integer types, as
/// tile.copy and tile.gemm do (integers are signed).
static Value convertScalar(OpBuilder &b, Location loc, Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  if (auto fromFloat = dyn_cast<FloatType>(from)) {
    auto toFloat = cast<FloatType>(to);
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, to, value);
    if (fromFloat.getWidth() > toFloat.getWidth())
      return arith::TruncFOp::create(b, loc, to, value);
    // Same width, different format (f16 <-> bf16): go through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth < toWidth)
    return arith::ExtSIOp::create(b, loc, to, value);
  return arith::TruncIOp::create(b, loc, to, value);
}

static Value zeroOf(OpBuilder &b, Location loc, Type type) {
  return arith::ConstantOp::create(b, loc, type,
                                   cast<TypedAttr>(b.getZeroAttr(type)));
}

static Value add(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::AddFOp::create(b, loc, lhs, rhs);
  return arith::AddIOp::create(b, loc, lhs, rhs);
}

static bool isGlobal(Value buffer) {
  return !getMemorySpace(cast<MemRefType>(buffer.getType()));
}

/// Indices into `buffer` of the tile element at `ivs`: the tile sits at
/// `offsets` (one per buffer dimension) aligned to the trailing dimensions,
/// or, without offsets, covers the buffer (unit dimensions that only one
/// side has are index 0).
static SmallVector<Value> tileIndices(OpBuilder &b, Location loc, Value buffer,
                                      ValueRange offsets, ValueRange ivs) {
  int64_t rank = cast<MemRefType>(buffer.getType()).getRank();
  int64_t tileRank = ivs.size();
  SmallVector<Value> indices;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t t = d - (rank - tileRank);
    if (!offsets.empty())
      indices.push_back(t < 0 ? offsets[d]
                              : arith::AddIOp::create(b, loc, offsets[d],
                                                      ivs[t])
                                    .getResult());
    else
      indices.push_back(t < 0 ? indexConst(b, loc, 0) : ivs[t]);
  }
  return indices;
}

/// `indices` lie inside `buffer` (unsigned compare: negative indices are
/// out of bounds too).
static Value inBounds(OpBuilder &b, Location loc, Value buffer,
                      ValueRange indices) {
  Value all;
  for (auto [d, index] : llvm::enumerate(indices)) {
    Value size = b.createOrFold<memref::DimOp>(loc, buffer, d);
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     index, size);
    all = all ? arith::AndIOp::create(b, loc, all, ok).getResult() : ok;
  }
  return all ? all : arith::ConstantIntOp::create(b, loc, 1, 1).getResult();
}

/// Loads `buffer[indices]`; for a global buffer, out-of-bounds reads give
/// zero.
static Value guardedLoad(OpBuilder &b, Location loc, Value buffer,
                         ValueRange indices) {
  if (!isGlobal(buffer))
    return memref::LoadOp::create(b, loc, buffer, indices);
  Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
  auto ifOp = scf::IfOp::create(
      b, loc, inBounds(b, loc, buffer, indices),
      [&](OpBuilder &b, Location loc) {
        Value v = memref::LoadOp::create(b, loc, buffer, indices);
        scf::YieldOp::create(b, loc, v);
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, zeroOf(b, loc, elementType));
      });
  return ifOp.getResult(0);
}

/// Calls `write` when `indices` are inside `buffer`; for an on-chip buffer
/// unconditionally.
static void guardedWrite(OpBuilder &b, Location loc, Value buffer,
                         ValueRange indices,
                         function_ref<void(OpBuilder &, Location)> write) {
  if (!isGlobal(buffer))
    return write(b, loc);
  scf::IfOp::create(b, loc, inBounds(b, loc, buffer, indices),
                    [&](OpBuilder &b, Location loc) {
                      write(b, loc);
                      scf::YieldOp::create(b, loc);
                    });
}

/// Moves the ops of `region` (a tile op body) in front of `dest`'s
/// terminator, with `args` for the block arguments; drops the tile.yield.
static void inlineBody(RewriterBase &rewriter, Region &region, Block *dest,
                       ValueRange args) {
  Block &body = region.front();
  rewriter.eraseOp(body.getTerminator());
  rewriter.inlineBlockBefore(&body, dest->getTerminator(), args);
}

//===----------------------------------------------------------------------===//
// Structural ops
//===----------------------------------------------------------------------===//

namespace {

/// tile.kernel -> allocations + a loop nest over the grid (z outermost).
struct KernelLowering : OpRewritePattern<KernelOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(KernelOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> buffers;
    for (Operation &inner :
         llvm::make_early_inc_range(op.getBody().front())) {
      auto alloc = dyn_cast<TileAllocationOpInterface>(inner);
      if (!alloc)
        continue;
      Value buffer =
          memref::AllocOp::create(rewriter, inner.getLoc(),
                                  alloc.getTile().getType(),
                                  rewriter.getI64IntegerAttr(64));
      rewriter.replaceOp(alloc, buffer);
      buffers.push_back(buffer);
    }

    SmallVector<Value> lbs, ubs, steps;
    for (Value extent : llvm::reverse(op.getGrid())) {
      lbs.push_back(indexConst(rewriter, loc, 0));
      ubs.push_back(extent);
      steps.push_back(indexConst(rewriter, loc, 1));
    }
    scf::LoopNest nest = scf::buildLoopNest(rewriter, loc, lbs, ubs, steps);
    SmallVector<Value> blockIds;
    for (scf::ForOp loop : llvm::reverse(nest.loops))
      blockIds.push_back(loop.getInductionVar());
    inlineBody(rewriter, op.getBody(), nest.loops.back().getBody(), blockIds);

    rewriter.setInsertionPointAfter(op);
    for (Value buffer : buffers)
      memref::DeallocOp::create(rewriter, loc, buffer);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.parallel -> a sequential loop nest (iterations are independent).
struct ParallelLowering : OpRewritePattern<ParallelOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ParallelOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t extent : op.getExtents()) {
      lbs.push_back(indexConst(rewriter, loc, 0));
      ubs.push_back(indexConst(rewriter, loc, extent));
      steps.push_back(indexConst(rewriter, loc, 1));
    }
    scf::LoopNest nest = scf::buildLoopNest(rewriter, loc, lbs, ubs, steps);
    SmallVector<Value> ivs = llvm::map_to_vector(
        nest.loops, [](scf::ForOp loop) { return loop.getInductionVar(); });
    inlineBody(rewriter, op.getBody(), nest.loops.back().getBody(), ivs);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.pipelined -> scf.for: pipelining never changes the result.
struct PipelinedLowering : OpRewritePattern<PipelinedOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PipelinedOp op,
                                PatternRewriter &rewriter) const override {
    auto loop = scf::ForOp::create(rewriter, op.getLoc(), op.getLowerBound(),
                                   op.getUpperBound(), op.getStep());
    inlineBody(rewriter, op.getBody(), loop.getBody(),
               loop.getInductionVar());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Hints have no sequential meaning.
template <typename HintOp>
struct EraseHint : OpRewritePattern<HintOp> {
  using OpRewritePattern<HintOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(HintOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

struct CopyLowering : OpRewritePattern<CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    Value src = op.getSrc(), dst = op.getDst();
    Type dstElement = op.getDst().getType().getElementType();
    buildTileLoops(
        rewriter, op.getLoc(), op.getTileShape(),
        [&](OpBuilder &b, Location loc, ValueRange ivs) {
          SmallVector<Value> srcIdx =
              tileIndices(b, loc, src, op.getSrcOffsets(), ivs);
          SmallVector<Value> dstIdx =
              tileIndices(b, loc, dst, op.getDstOffsets(), ivs);
          Value value = convertScalar(
              b, loc, guardedLoad(b, loc, src, srcIdx), dstElement);
          guardedWrite(b, loc, dst, dstIdx, [&](OpBuilder &b, Location loc) {
            memref::StoreOp::create(b, loc, value, dst, dstIdx);
          });
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct AtomicAddLowering : OpRewritePattern<AtomicAddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AtomicAddOp op,
                                PatternRewriter &rewriter) const override {
    Value dst = op.getDst();
    Type dstElement = op.getDst().getType().getElementType();
    // dst[indices] += value, dropped outside a global dst.
    auto accumulate = [&](OpBuilder &b, Location loc, Value value,
                          ValueRange indices) {
      guardedWrite(b, loc, dst, indices, [&](OpBuilder &b, Location loc) {
        Value old = memref::LoadOp::create(b, loc, dst, indices);
        memref::StoreOp::create(b, loc, add(b, loc, old, value), dst,
                                indices);
      });
    };
    if (!op.isTileForm()) {
      accumulate(rewriter, op.getLoc(), op.getValue(), op.getDstOffsets());
    } else {
      Value tile = op.getValue();
      buildTileLoops(rewriter, op.getLoc(),
                     cast<MemRefType>(tile.getType()).getShape(),
                     [&](OpBuilder &b, Location loc, ValueRange ivs) {
                       Value v = memref::LoadOp::create(b, loc, tile, ivs);
                       accumulate(b, loc, convertScalar(b, loc, v, dstElement),
                                  tileIndices(b, loc, dst,
                                              op.getDstOffsets(), ivs));
                     });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct FillLowering : OpRewritePattern<FillOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FillOp op,
                                PatternRewriter &rewriter) const override {
    buildTileLoops(rewriter, op.getLoc(), op.getDst().getType().getShape(),
                   [&](OpBuilder &b, Location loc, ValueRange ivs) {
                     memref::StoreOp::create(b, loc, op.getValue(),
                                             op.getDst(), ivs);
                   });
    rewriter.eraseOp(op);
    return success();
  }
};

struct ClearLowering : OpRewritePattern<ClearOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ClearOp op,
                                PatternRewriter &rewriter) const override {
    MemRefType type = op.getDst().getType();
    Value zero = zeroOf(rewriter, op.getLoc(), type.getElementType());
    rewriter.replaceOpWithNewOp<FillOp>(op, op.getDst(), zero);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

struct GemmLowering : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    Value a = op.getA(), b = op.getB(), c = op.getC();
    Type accType = op.getC().getType().getElementType();
    bool transA = op.getTransposeA(), transB = op.getTransposeB();
    bool clear = op.getClearAccum();
    int64_t k = op.getK();
    buildTileLoops(
        rewriter, op.getLoc(), {op.getM(), op.getN()},
        [&](OpBuilder &builder, Location loc, ValueRange ij) {
          Value i = ij[0], j = ij[1];
          Value init = clear ? zeroOf(builder, loc, accType)
                             : memref::LoadOp::create(builder, loc, c, ij)
                                   .getResult();
          auto kLoop = scf::ForOp::create(
              builder, loc, indexConst(builder, loc, 0),
              indexConst(builder, loc, k), indexConst(builder, loc, 1),
              ValueRange{init},
              [&](OpBuilder &builder, Location loc, Value kk,
                  ValueRange acc) {
                Value av = memref::LoadOp::create(
                    builder, loc, a,
                    transA ? ValueRange{kk, i} : ValueRange{i, kk});
                Value bv = memref::LoadOp::create(
                    builder, loc, b,
                    transB ? ValueRange{j, kk} : ValueRange{kk, j});
                av = convertScalar(builder, loc, av, accType);
                bv = convertScalar(builder, loc, bv, accType);
                Value prod =
                    isa<FloatType>(accType)
                        ? arith::MulFOp::create(builder, loc, av, bv)
                              .getResult()
                        : arith::MulIOp::create(builder, loc, av, bv)
                              .getResult();
                scf::YieldOp::create(builder, loc,
                                     add(builder, loc, acc[0], prod));
              });
          memref::StoreOp::create(builder, loc, kLoop.getResult(0), c, ij);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// The value that does not change a reduction of `kind`.
static Value reductionIdentity(OpBuilder &b, Location loc, ReduceKind kind,
                               Type type) {
  if (kind != ReduceKind::Max && kind != ReduceKind::Min)
    return zeroOf(b, loc, type);
  bool max = kind == ReduceKind::Max;
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc, type,
        b.getFloatAttr(floatType, APFloat::getInf(floatType.getFloatSemantics(),
                                                  /*Negative=*/max)));
  unsigned width = type.getIntOrFloatBitWidth();
  APInt value = max ? APInt::getSignedMinValue(width)
                    : APInt::getSignedMaxValue(width);
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, value));
}

static Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value acc,
                     Value value) {
  bool isFloat = isa<FloatType>(value.getType());
  if (kind == ReduceKind::AbsSum || kind == ReduceKind::AbsMax)
    value = isFloat ? math::AbsFOp::create(b, loc, value).getResult()
                    : math::AbsIOp::create(b, loc, value).getResult();
  switch (kind) {
  case ReduceKind::Max:
  case ReduceKind::AbsMax:
    return isFloat ? arith::MaximumFOp::create(b, loc, acc, value).getResult()
                   : arith::MaxSIOp::create(b, loc, acc, value).getResult();
  case ReduceKind::Min:
    return isFloat ? arith::MinimumFOp::create(b, loc, acc, value).getResult()
                   : arith::MinSIOp::create(b, loc, acc, value).getResult();
  case ReduceKind::Sum:
  case ReduceKind::AbsSum:
    return add(b, loc, acc, value);
  }
  llvm_unreachable("unknown reduction kind");
}

/// Loops over every dimension of `shape` but `dim`, then sequentially along
/// `dim` (backwards with `reverse`), carrying an accumulator:
/// `step(b, loc, outerIvs, r, acc) -> new acc`.
static void buildAlongDim(
    OpBuilder &rewriter, Location loc, ArrayRef<int64_t> shape, int64_t dim,
    bool reverse,
    function_ref<Value(OpBuilder &, Location, ValueRange)> init,
    function_ref<Value(OpBuilder &, Location, ValueRange, Value, Value)> step,
    function_ref<void(OpBuilder &, Location, ValueRange, Value)> finish) {
  SmallVector<int64_t> outer(shape);
  outer.erase(outer.begin() + dim);
  int64_t size = shape[dim];
  buildTileLoops(
      rewriter, loc, outer, [&](OpBuilder &b, Location loc, ValueRange ivs) {
        auto loop = scf::ForOp::create(
            b, loc, indexConst(b, loc, 0), indexConst(b, loc, size),
            indexConst(b, loc, 1), ValueRange{init(b, loc, ivs)},
            [&](OpBuilder &b, Location loc, Value r, ValueRange acc) {
              Value pos = r;
              if (reverse)
                pos = arith::SubIOp::create(b, loc,
                                            indexConst(b, loc, size - 1), r);
              scf::YieldOp::create(b, loc, step(b, loc, ivs, pos, acc[0]));
            });
        if (finish)
          finish(b, loc, ivs, loop.getResult(0));
      });
}

/// `outer` with `index` inserted at `dim`.
static SmallVector<Value> insertAt(ValueRange outer, int64_t dim,
                                   Value index) {
  SmallVector<Value> indices(outer);
  indices.insert(indices.begin() + dim, index);
  return indices;
}

struct ReduceLowering : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    Value src = op.getSrc(), dst = op.getDst();
    MemRefType srcType = op.getSrc().getType();
    int64_t srcRank = srcType.getRank();
    int64_t dstRank = op.getDst().getType().getRank();
    int64_t dim = op.getDim();
    ReduceKind kind = op.getKind();
    Type type = srcType.getElementType();
    // Where the result for `outer` goes: without `dim`, with `dim` kept as
    // extent 1, or the single element of a [1] tile.
    auto dstIndices = [&](OpBuilder &b, Location loc, ValueRange outer) {
      if (dstRank == srcRank)
        return insertAt(outer, dim, indexConst(b, loc, 0));
      if (dstRank == srcRank - 1)
        return SmallVector<Value>(outer);
      return SmallVector<Value>{indexConst(b, loc, 0)};
    };
    buildAlongDim(
        rewriter, op.getLoc(), srcType.getShape(), dim, /*reverse=*/false,
        [&](OpBuilder &b, Location loc, ValueRange outer) -> Value {
          if (op.getClear())
            return reductionIdentity(b, loc, kind, type);
          return memref::LoadOp::create(b, loc, dst,
                                        dstIndices(b, loc, outer));
        },
        [&](OpBuilder &b, Location loc, ValueRange outer, Value r,
            Value acc) -> Value {
          Value v = memref::LoadOp::create(b, loc, src, insertAt(outer, dim, r));
          return combine(b, loc, kind, acc, v);
        },
        [&](OpBuilder &b, Location loc, ValueRange outer, Value result) {
          memref::StoreOp::create(b, loc, result, dst,
                                  dstIndices(b, loc, outer));
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct CumsumLowering : OpRewritePattern<CumsumOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CumsumOp op,
                                PatternRewriter &rewriter) const override {
    Value src = op.getSrc(), dst = op.getDst();
    MemRefType type = op.getSrc().getType();
    int64_t dim = op.getDim();
    buildAlongDim(
        rewriter, op.getLoc(), type.getShape(), dim, op.getReverse(),
        [&](OpBuilder &b, Location loc, ValueRange) {
          return zeroOf(b, loc, type.getElementType());
        },
        [&](OpBuilder &b, Location loc, ValueRange outer, Value r,
            Value acc) -> Value {
          SmallVector<Value> indices = insertAt(outer, dim, r);
          // Read before writing: dst may be src.
          Value sum = add(b, loc, acc,
                          memref::LoadOp::create(b, loc, src, indices));
          memref::StoreOp::create(b, loc, sum, dst, indices);
          return sum;
        },
        /*finish=*/nullptr);
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertTileToSCFPass
    : public tile::impl::ConvertTileToSCFBase<ConvertTileToSCFPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });

    RewritePatternSet patterns(ctx);
    patterns.add<KernelLowering, ParallelLowering, PipelinedLowering,
                 CopyLowering, AtomicAddLowering, FillLowering, ClearLowering,
                 GemmLowering, ReduceLowering, CumsumLowering,
                 EraseHint<AnnotateLayoutOp>, EraseHint<UseSwizzleOp>>(ctx);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // Tiles are plain host memory now: drop the tile memory spaces from every
    // memref type in the module.
    AttrTypeReplacer replacer;
    replacer.addReplacement([](MemRefType type) -> std::optional<Type> {
      if (!isa_and_nonnull<MemorySpaceAttr>(type.getMemorySpace()))
        return std::nullopt;
      return MemRefType::get(type.getShape(), type.getElementType(),
                             type.getLayout());
    });
    replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
  }
};

} // namespace
