//===- TileOpLowering.cpp - Loop lowering of tile ops -------------------===//
//
// Part of TileLang-MLIR.
//
// Every tile op but the kernel, as loops over memrefs. In Sequential mode
// (the CPU reference) one thread runs each op whole. In Block mode (inside a
// gpu.launch) the block's threads split the iterations of each op on shared
// or fragment tiles (thread t takes iterations t, t + T, t + 2T, ...), with a
// barrier before and after it; ops that write only local tiles run whole on
// every thread, which owns a private copy.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/TileLowering.h"

#include "LoweringCommon.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// A pattern that knows the lowering mode.
template <typename Op>
struct TilePattern : OpRewritePattern<Op> {
  TilePattern(MLIRContext *ctx, TileLoweringMode mode)
      : OpRewritePattern<Op>(ctx), mode(mode) {}
  TileLoweringMode mode;
};

/// True when the body of `op` writes local tiles and nothing else: it then
/// runs whole on every thread (each owns its copy; a per-thread array
/// filled over the loop's range is whole in every thread). A body that
/// also writes global, shared or fragment memory (or memory it does not
/// name) is split over the threads as TileLang partitions every parallel
/// loop: each thread's local tile is then the scratch of its iterations,
/// and the other writes happen once per iteration, not once per thread
/// (`B[i] = B[i] + t` would otherwise add every thread's t).
static bool writesOnlyLocalTiles(Operation *op) {
  bool local = false, other = false;
  op->walk([&](Operation *inner) {
    if (inner == op)
      return;
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!effects)
      return;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (auto &effect : instances) {
      if (!isa<MemoryEffects::Write>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (value && isa<MemRefType>(value.getType()) && isLocal(value))
        local = true;
      else
        other = true;
    }
  });
  return local && !other;
}

/// How a tile.parallel runs `width` consecutive innermost iterations as
/// one: its global accesses whose last index is the innermost coordinate
/// plus a value the same for all of them (and whose other indices do not
/// depend on it) become vector loads and stores.
struct ParallelVectors {
  int64_t width = 0;
  /// The body's loads and stores that become vectors.
  SmallVector<Operation *> accesses;
};

/// `op`'s vector plan in Block mode, or width 0: a body of straight-line
/// code (no regions) whose only effects are memref loads and stores, with
/// at least one vectorizable global or shared access and no load of a
/// buffer after a store to it (the vector path reads before the group's
/// writes); the width is 16 bytes of the widest vectorizable element that
/// divides the innermost extent, and no wider than the contiguous unit of
/// a swizzled shared tile it accesses (2^base elements).
///
/// The accesses of swizzled shared tiles are taken while their indices are
/// still the elements' (`marking`: before swizzleElementAccesses, which
/// leaves the ones marked kSwizzleLaterAttrName alone), or when so marked.
static ParallelVectors planParallelVectors(ParallelOp op,
                                           bool marking = false) {
  ParallelVectors plan;
  Block &body = op.getBody().front();
  Value inner = body.getArguments().back();
  // Values that depend on the innermost coordinate, and those that are it
  // plus an independent value.
  DenseSet<Value> dependent{inner}, unit{inner};
  DenseSet<Value> stored;
  int64_t widest = 0, limit = 16;
  for (Operation &inst : body.without_terminator()) {
    if (inst.getNumRegions())
      return {};
    bool load = isa<memref::LoadOp>(inst), store = isa<memref::StoreOp>(inst);
    if (!load && !store && !isMemoryEffectFree(&inst))
      return {};
    for (Value operand : inst.getOperands())
      if (dependent.contains(operand))
        dependent.insert(inst.result_begin(), inst.result_end());
    if (auto add = dyn_cast<arith::AddIOp>(inst))
      if ((unit.contains(add.getLhs()) && !dependent.contains(add.getRhs())) ||
          (unit.contains(add.getRhs()) && !dependent.contains(add.getLhs())))
        unit.insert(add.getResult());
    if (!load && !store)
      continue;
    Value buffer = load ? cast<memref::LoadOp>(inst).getMemRef()
                        : cast<memref::StoreOp>(inst).getMemRef();
    ValueRange indices = load ? cast<memref::LoadOp>(inst).getIndices()
                              : cast<memref::StoreOp>(inst).getIndices();
    if (load && stored.contains(buffer))
      return {};
    if (store)
      stored.insert(buffer);
    auto type = cast<MemRefType>(buffer.getType());
    unsigned bits = type.getElementTypeBitWidth();
    bool shared = isInSpace(type, MemorySpace::Shared);
    if ((!isGlobalBuffer(buffer) && !shared) || indices.empty() || bits % 8 ||
        bits > 64 || !unit.contains(indices.back()) ||
        llvm::any_of(indices.drop_back(),
                     [&](Value i) { return dependent.contains(i); }))
      continue;
    if (shared) {
      if (SwizzleAttr swizzle = getTileSwizzle(buffer)) {
        if (!marking && !inst.hasAttr(kSwizzleLaterAttrName))
          continue; // Its indices are the swizzled ones.
        limit = std::min<int64_t>(limit, int64_t(1) << swizzle.getBase());
      }
    }
    // The indices must be computable before the group (pure operations of
    // the body, or values from outside it).
    plan.accesses.push_back(&inst);
    widest = std::max<int64_t>(widest, bits / 8);
  }
  if (plan.accesses.empty())
    return {};
  int64_t extent = op.getExtents().back();
  for (int64_t width = std::min(16 / widest, limit); width >= 2; width /= 2)
    if (extent % width == 0)
      return plan.width = width, plan;
  return {};
}

/// The loads and stores of `access`.
static Value getAccessBuffer(Operation *access) {
  if (auto load = dyn_cast<memref::LoadOp>(access))
    return load.getMemRef();
  return cast<memref::StoreOp>(access).getMemRef();
}
static ValueRange getAccessIndexValues(Operation *access) {
  if (auto load = dyn_cast<memref::LoadOp>(access))
    return load.getIndices();
  return cast<memref::StoreOp>(access).getIndices();
}

/// One group of `plan.width` consecutive innermost iterations of `op`, at
/// coordinates `coords` (the innermost one the group's first): when every
/// vectorizable access is aligned for whole vectors (checked at run time,
/// canAccessVectors), the body `width` times with those accesses merged
/// into one vector load (where the first iteration loaded) or store (where
/// the last stored); otherwise the body `width` times as it is.
///
/// In an asynchronous tile.parallel, `asyncCopy` is offered each vector a
/// vector store writes straight from a vector load of a global buffer (the
/// stored values are the loaded ones, which nothing else uses).
static void emitParallelVectorGroup(RewriterBase &rewriter, Location loc,
                                    ParallelOp op, const ParallelVectors &plan,
                                    ValueRange coords,
                                    AsyncVectorCopy asyncCopy) {
  Block &body = op.getBody().front();
  int64_t width = plan.width;
  auto mappingAt = [&](int64_t e) {
    IRMapping mapping;
    SmallVector<Value> at(coords);
    if (e)
      at.back() = arith::AddIOp::create(rewriter, loc, coords.back(),
                                        indexConst(rewriter, loc, e));
    mapping.map(body.getArguments(), at);
    return mapping;
  };
  // The accesses' indices at the group's first iteration: the pure ops of
  // the body they are computed from, cloned before the check.
  IRMapping first = mappingAt(0);
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist;
  for (Operation *access : plan.accesses)
    llvm::append_range(worklist, getAccessIndexValues(access));
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != &body || !slice.insert(def))
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  for (Operation &inst : body.without_terminator())
    if (slice.contains(&inst))
      rewriter.clone(inst, first);
  Value ok;
  for (Operation *access : plan.accesses) {
    TileRegion region;
    region.buffer = first.lookupOrDefault(getAccessBuffer(access));
    for (Value index : getAccessIndexValues(access))
      region.offsets.push_back(first.lookupOrDefault(index));
    region.tileDims = {region.getBufferRank() - 1};
    Value aligned = canAccessVectors(rewriter, loc, region, width);
    ok = ok ? arith::AndIOp::create(rewriter, loc, ok, aligned) : aligned;
  }
  auto ifOp = scf::IfOp::create(rewriter, loc, ok, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(rewriter);
  // Misaligned: the iterations one by one.
  rewriter.setInsertionPoint(ifOp.elseBlock()->getTerminator());
  for (int64_t e = 0; e < width; ++e) {
    IRMapping mapping = mappingAt(e);
    for (Operation &inst : body.without_terminator())
      rewriter.clone(inst, mapping);
  }
  // Aligned: the iterations with their vectorizable accesses merged.
  rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  SmallVector<SmallVector<Operation *>> clones(plan.accesses.size());
  for (int64_t e = 0; e < width; ++e) {
    IRMapping mapping = mappingAt(e);
    for (Operation &inst : body.without_terminator())
      rewriter.clone(inst, mapping);
    for (auto [i, access] : llvm::enumerate(plan.accesses))
      clones[i].push_back(mapping.lookup(access));
  }
  // A swizzled shared tile keeps each aligned vector of at most 2^base
  // elements whole: the vector's place is its first element's.
  auto placed = [&](Operation *first, Value buffer, ValueRange indices) {
    if (!first->hasAttr(kSwizzleLaterAttrName))
      return SmallVector<Value>(indices);
    return swizzleIndices(rewriter, loc, buffer, indices);
  };
  // Asynchronous copies of vectors: each store of a loaded value.
  llvm::SmallDenseSet<size_t> moved;
  if (asyncCopy && op.getAsync()) {
    for (auto [s, store] : llvm::enumerate(plan.accesses)) {
      auto storeOp = dyn_cast<memref::StoreOp>(store);
      if (!storeOp)
        continue;
      auto *load =
          llvm::find(plan.accesses, storeOp.getValueToStore().getDefiningOp());
      if (load == plan.accesses.end() || !(*load)->hasOneUse())
        continue;
      size_t l = load - plan.accesses.begin();
      auto firstLoad = cast<memref::LoadOp>(clones[l].front());
      auto firstStore = cast<memref::StoreOp>(clones[s].front());
      rewriter.setInsertionPoint(clones[s].back());
      if (!asyncCopy(rewriter, loc, firstLoad.getMemRef(),
                     firstLoad.getIndices(), firstStore.getMemRef(),
                     placed(firstStore, firstStore.getMemRef(),
                            firstStore.getIndices()),
                     width))
        continue;
      for (Operation *clone : clones[s])
        rewriter.eraseOp(clone);
      for (Operation *clone : clones[l])
        rewriter.eraseOp(clone);
      moved.insert(s);
      moved.insert(l);
    }
  }
  for (auto [i, access] : llvm::enumerate(plan.accesses)) {
    if (moved.contains(i))
      continue;
    ArrayRef<Operation *> group = clones[i];
    auto type = cast<MemRefType>(getAccessBuffer(access).getType());
    auto vectorType = VectorType::get({width}, type.getElementType());
    llvm::Align alignment(width * type.getElementTypeBitWidth() / 8);
    if (auto load = dyn_cast<memref::LoadOp>(group.front())) {
      rewriter.setInsertionPoint(load);
      Value vector = vector::LoadOp::create(
          rewriter, loc, vectorType, load.getMemRef(),
          placed(load, load.getMemRef(), load.getIndices()),
          /*nontemporal=*/false, alignment);
      for (auto [e, clone] : llvm::enumerate(group)) {
        rewriter.setInsertionPoint(clone);
        rewriter.replaceOp(clone, vector::ExtractOp::create(
                                      rewriter, loc, vector, int64_t(e)));
      }
      continue;
    }
    auto firstStore = cast<memref::StoreOp>(group.front());
    rewriter.setInsertionPoint(group.back());
    SmallVector<Value> values;
    for (Operation *clone : group)
      values.push_back(cast<memref::StoreOp>(clone).getValueToStore());
    Value vector =
        vector::FromElementsOp::create(rewriter, loc, vectorType, values);
    vector::StoreOp::create(
        rewriter, loc, vector, firstStore.getMemRef(),
        placed(firstStore, firstStore.getMemRef(), firstStore.getIndices()),
        /*nontemporal=*/false, alignment);
    for (Operation *clone : group)
      rewriter.eraseOp(clone);
  }
}

/// tile.parallel -> a loop nest over its iterations (lowerParallel).
struct ParallelLowering : TilePattern<ParallelOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(ParallelOp op,
                                PatternRewriter &rewriter) const override {
    lowerParallel(rewriter, op, mode);
    return success();
  }
};
} // namespace

void mlir::tile::lowerParallel(RewriterBase &rewriter, ParallelOp op,
                               TileLoweringMode mode,
                               AsyncVectorCopy asyncCopy) {
  Location loc = op.getLoc();
  // An asynchronous one needs no barriers: it reads only global memory,
  // and its tile is read after a tile.async_wait (a block barrier).
  bool async = op.getAsync();
  Operation *before = op->getPrevNode();
  auto lower = [&] {
    Distribution dist =
        getDistribution(rewriter, op, mode, writesOnlyLocalTiles(op));
    ParallelVectors plan;
    if (dist.isSplit())
      plan = planParallelVectors(op);
    if (plan.width) {
      SmallVector<int64_t> groups(op.getExtents());
      groups.back() /= plan.width;
      auto emitGroup = [&](ValueRange at) {
        SmallVector<Value> coords(at);
        coords.back() =
            arith::MulIOp::create(rewriter, loc, coords.back(),
                                  indexConst(rewriter, loc, plan.width));
        emitParallelVectorGroup(rewriter, loc, op, plan, coords, asyncCopy);
      };
      int64_t total = ShapedType::getNumElements(groups);
      std::optional<int64_t> threads = getStaticBlockThreads(op);
      if (threads && total % *threads == 0) {
        auto loop =
            scf::ForOp::create(rewriter, loc, indexConst(rewriter, loc, 0),
                               indexConst(rewriter, loc, total / *threads),
                               indexConst(rewriter, loc, 1));
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(loop.getBody()->getTerminator());
        Value linear = arith::AddIOp::create(
            rewriter, loc,
            arith::MulIOp::create(rewriter, loc, loop.getInductionVar(),
                                  indexConst(rewriter, loc, *threads)),
            dist.threadId);
        emitGroup(delinearize(rewriter, loc, groups, linear));
      } else {
        buildTileLoops(rewriter, loc, groups, dist,
                       [&](OpBuilder &b, Location, ValueRange at) {
                         OpBuilder::InsertionGuard guard(rewriter);
                         rewriter.setInsertionPoint(b.getInsertionBlock(),
                                                    b.getInsertionPoint());
                         emitGroup(at);
                       });
      }
      return;
    }
    // Build an empty nest, then move the body into it.
    Block *inner = nullptr;
    SmallVector<Value> ivs;
    buildTileLoops(rewriter, loc, op.getExtents(), dist,
                   [&](OpBuilder &b, Location, ValueRange coords) {
                     inner = b.getInsertionBlock();
                     ivs.assign(coords.begin(), coords.end());
                   });
    // buildLoopNest ends the innermost block with a yield; a split loop
    // gets one from buildTileLoops.
    inlineTileBody(rewriter, op.getBody(), inner, ivs);
  };
  if (!async) {
    withBarriers(rewriter, loc, mode, lower);
  } else {
    lower();
    // What it wrote is an asynchronous copy's (visible after the wait).
    Block *block = op->getBlock();
    for (Operation *at = before ? before->getNextNode() : &block->front();
         at != op; at = at->getNextNode())
      if (at->getNumRegions() || !isMemoryEffectFree(at))
        at->setAttr(TileDialect::getLoweredAsyncCopyAttrName(),
                    rewriter.getUnitAttr());
  }
  rewriter.eraseOp(op);
}

namespace {

/// tile.pipelined -> scf.for: pipelining never changes the result.
struct PipelinedLowering : TilePattern<PipelinedOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(PipelinedOp op,
                                PatternRewriter &rewriter) const override {
    auto loop = scf::ForOp::create(rewriter, op.getLoc(), op.getLowerBound(),
                                   op.getUpperBound(), op.getStep());
    inlineTileBody(rewriter, op.getBody(), loop.getBody(),
                   loop.getInductionVar());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Taking turns orders the warpgroups' issue, not what they compute: the
/// body as it is (NVIDIA's lowering orders the turns with named barriers).
struct TakeTurnsLowering : TilePattern<TakeTurnsOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(TakeTurnsOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    markGemmsInTurn(op, rewriter);
    rewriter.eraseOp(body.getTerminator());
    rewriter.inlineBlockBefore(&body, op);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Hints have no meaning for these lowerings.
template <typename HintOp>
struct EraseHint : TilePattern<HintOp> {
  using TilePattern<HintOp>::TilePattern;

  LogicalResult matchAndRewrite(HintOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::markParallelVectorAccesses(Operation *root) {
  root->walk([](ParallelOp op) {
    ParallelVectors plan = planParallelVectors(op, /*marking=*/true);
    if (!plan.width)
      return;
    for (Operation *access : plan.accesses)
      if (getTileSwizzle(getAccessBuffer(access)))
        access->setAttr(kSwizzleLaterAttrName, UnitAttr::get(op.getContext()));
  });
}

int64_t mlir::tile::getCopyVectorWidth(CopyOp op) {
  Value src = op.getSrc(), dst = op.getDst();
  if (isLocal(src) || isLocal(dst))
    return 0;
  if (!isAlongLastDim(op.getSrcRegion()) || !isAlongLastDim(op.getDstRegion()))
    return 0;
  int64_t inner = op.getTileShape().back();
  int64_t bytes = std::max(op.getSrc().getType().getElementTypeBitWidth(),
                           op.getDst().getType().getElementTypeBitWidth()) /
                  8;
  if (bytes == 0)
    return 0;
  for (int64_t width = 16 / bytes; width >= 2; width /= 2) {
    if (inner % width)
      continue;
    bool ok = true;
    for (Value side : {src, dst}) {
      auto type = cast<MemRefType>(side.getType());
      SwizzleAttr swizzle = getTileSwizzle(side);
      if (swizzle && (int64_t(1) << swizzle.getBase()) < width)
        ok = false;
      if (isGlobalBuffer(side))
        continue;
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(type.getStridesAndOffset(strides, offset)) ||
          strides.back() != 1 ||
          llvm::any_of(ArrayRef(strides).drop_back(), [&](int64_t s) {
            return ShapedType::isDynamic(s) || s % width;
          }))
        ok = false;
    }
    if (ok)
      return width;
  }
  return 0;
}

CopyEngineAttr mlir::tile::getGenericCopyEngine(CopyOp op) {
  return CopyEngineAttr::get(op.getContext(), getCopyVectorWidth(op)
                                                  ? CopyEngineKind::Vector
                                                  : CopyEngineKind::Elements);
}

CopyOp mlir::tile::createFallbackCopy(OpBuilder &b, CopyOp op) {
  auto fallback = cast<CopyOp>(b.clone(*op));
  fallback.getBarriersMutable().clear();
  fallback.getBarrierIndexMutable().clear();
  fallback.getTensorMapMutable().clear();
  fallback.setAsync(false);
  fallback.setTxOnly(false);
  fallback.setEngineAttr(getGenericCopyEngine(fallback));
  fallback->setAttr(TileDialect::getFallbackCopyAttrName(), b.getUnitAttr());
  return fallback;
}

namespace {

/// The generic copy: the `vector` and `elements` engines, and every copy a
/// target's lowering did not take.
struct CopyLowering : TilePattern<CopyOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    CopyEngineAttr engine = op.getEngineAttr();
    bool elements = engine && engine.getKind() == CopyEngineKind::Elements;
    withBarriers(rewriter, loc, mode, [&] {
      Distribution dist =
          getDistribution(rewriter, op, mode, isLocal(op.getDst()));
      int64_t width = elements ? 0 : getCopyVectorWidth(op);
      if (width == 0)
        return lowerElements(rewriter, op, dist,
                             !op->hasAttr(TileDialect::getFallbackCopyAttrName()));
      lowerVectorsOrNarrower(
          rewriter, op, dist, width,
          /*compact=*/op->hasAttr(TileDialect::getFallbackCopyAttrName()));
    });
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// Whole vectors of `width` elements where the buffers' addresses and
  /// strides allow them at run time, else (from a global buffer into an
  /// on-chip tile) vectors of half the width, down to single elements: the
  /// rows of a matrix of 1002 f16 columns are 4-byte aligned, those of 1001
  /// columns only element-aligned, and each still moves in the widest
  /// accesses its alignment allows, all of a thread's loads in flight at
  /// once. Other copies, those of one thread (the sequential lowering) and
  /// `compact` ones (a fallback copy) go from `width` straight to elements,
  /// a compact one's one by one.
  static void lowerVectorsOrNarrower(OpBuilder &b, CopyOp op,
                                     const Distribution &dist, int64_t width,
                                     bool compact) {
    if (width < 2)
      return lowerElements(b, op, dist, /*batched=*/!compact);
    Location loc = op.getLoc();
    auto ifOp = scf::IfOp::create(b, loc, canCopyVectors(b, loc, op, width),
                                  /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    lowerVectors(b, op, dist, width);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    bool narrower = !compact && dist.isSplit() &&
                    isGlobalBuffer(op.getSrc()) && !isGlobalBuffer(op.getDst());
    lowerVectorsOrNarrower(b, op, dist, narrower ? width / 2 : 0, compact);
  }

  /// The copy as vectors of `width` elements (row-major over the tile; in
  /// Block mode vector v goes to thread v mod T). A vector that lies
  /// whole inside the global side moves as one load and one store; one at
  /// its edge loads zeros past it (loadZeroPaddedVector) or stores only
  /// what lies inside (storeClippedVector).
  static void lowerVectors(OpBuilder &b, CopyOp op, const Distribution &dist,
                           int64_t width) {
    Location loc = op.getLoc();
    Value src = op.getSrc(), dst = op.getDst();
    SmallVector<int64_t> shape = op.getTileShape();
    SmallVector<int64_t> vectorShape(shape);
    vectorShape.back() /= width;
    auto srcVector =
        VectorType::get({width}, op.getSrc().getType().getElementType());
    Type dstElement = op.getDst().getType().getElementType();
    bool global = isGlobalBuffer(src) || isGlobalBuffer(dst);
    TileRegion srcRegion = op.getSrcRegion(), dstRegion = op.getDstRegion();
    if (isGlobalBuffer(src) && !isGlobalBuffer(dst) && dist.isSplit() &&
        lowerBatchedLoads(b, op, dist, vectorShape, width))
      return;
    buildTileLoops(
        b, loc, vectorShape, dist,
        [&](OpBuilder &b, Location loc, ValueRange vectorIvs) {
          SmallVector<Value> ivs(vectorIvs);
          ivs.back() = arith::MulIOp::create(b, loc, ivs.back(),
                                             indexConst(b, loc, width));
          auto indices = [&](OpBuilder &b, const TileRegion &region,
                             ValueRange at) {
            return swizzleIndices(b, loc, region.buffer,
                                  tileIndices(b, loc, region, at));
          };
          // The run-time check made both sides' vectors aligned: say so,
          // or the device compiler splits them into scalar accesses.
          auto alignment = [&](Value side) {
            return llvm::Align(
                width *
                cast<MemRefType>(side.getType()).getElementTypeBitWidth() / 8);
          };
          auto moveVector = [&](OpBuilder &b, Location loc) {
            Value v = vector::LoadOp::create(
                b, loc, srcVector, src,
                indices(b, srcRegion, ivs),
                /*nontemporal=*/false, alignment(src));
            vector::StoreOp::create(b, loc,
                                    convertScalar(b, loc, v, dstElement), dst,
                                    indices(b, dstRegion, ivs),
                                    /*nontemporal=*/false, alignment(dst));
          };
          if (!global)
            return moveVector(b, loc);
          // From global memory: zeros past its edge.
          if (!isGlobalBuffer(dst)) {
            Value v = loadZeroPaddedVector(b, loc, srcRegion, ivs, width,
                                           alignment(src));
            vector::StoreOp::create(b, loc,
                                    convertScalar(b, loc, v, dstElement), dst,
                                    indices(b, dstRegion, ivs),
                                    /*nontemporal=*/false, alignment(dst));
            return;
          }
          // Into global memory: nothing past its edge.
          if (!isGlobalBuffer(src)) {
            Value v = vector::LoadOp::create(b, loc, srcVector, src,
                                             indices(b, srcRegion, ivs),
                                             /*nontemporal=*/false,
                                             alignment(src));
            storeClippedVector(b, loc, dstRegion, ivs,
                               convertScalar(b, loc, v, dstElement),
                               alignment(dst));
            return;
          }
          // Between global buffers: whole when whole inside both, element
          // by element otherwise.
          Value whole = arith::AndIOp::create(
              b, loc, isWholeVectorInBounds(b, loc, srcRegion, ivs, width),
              isWholeVectorInBounds(b, loc, dstRegion, ivs, width));
          scf::IfOp::create(
              b, loc, whole,
              [&](OpBuilder &b, Location loc) {
                moveVector(b, loc);
                scf::YieldOp::create(b, loc);
              },
              [&](OpBuilder &b, Location loc) {
                for (int64_t e = 0; e < width; ++e) {
                  SmallVector<Value> at(ivs);
                  at.back() = arith::AddIOp::create(b, loc, ivs.back(),
                                                    indexConst(b, loc, e));
                  copyElement(b, loc, op, at);
                }
                scf::YieldOp::create(b, loc);
              });
        });
  }

  /// The block's threads and how many of `units` units of `unitBits` bits
  /// each thread of it moves in a batch of loads, when they split evenly
  /// over a static block, more than one per thread, within 64 32-bit
  /// registers (a quarter of its registers in a thread range with fewer: a
  /// warp-specialized producer's 24 hold none); std::nullopt otherwise.
  static std::optional<std::pair<int64_t, int64_t>>
  getLoadBatch(CopyOp op, int64_t units, int64_t unitBits) {
    int64_t maxRegisters =
        std::min<int64_t>(64, getThreadRegisters(op).value_or(256) / 4);
    std::optional<int64_t> threads = getStaticBlockThreads(op);
    if (!threads || units % *threads || units == *threads)
      return std::nullopt;
    int64_t perThread = units / *threads;
    if (perThread * static_cast<int64_t>(llvm::divideCeil(unitBits, 32)) >
        maxRegisters)
      return std::nullopt;
    return std::make_pair(*threads, perThread);
  }

  /// The linear index of this thread's `j`-th unit of a batch: its index in
  /// the block plus j times the block's threads.
  static Value getBatchUnit(OpBuilder &b, Location loc,
                            const Distribution &dist, int64_t j,
                            int64_t threads) {
    if (j == 0)
      return dist.threadId;
    return arith::AddIOp::create(b, loc, dist.threadId,
                                 indexConst(b, loc, j * threads));
  }

  /// A global-to-on-chip copy whose threads move a few vectors each, with
  /// every load issued before the first store: a loop of load-store pairs
  /// waits one memory latency per vector (the store needs its load), here
  /// the thread has all its loads in flight at once. Vectors at the edge of
  /// the global buffer gather their elements (zero outside). False where
  /// getLoadBatch finds no batch.
  static bool lowerBatchedLoads(OpBuilder &b, CopyOp op,
                                const Distribution &dist,
                                ArrayRef<int64_t> vectorShape, int64_t width) {
    Value src = op.getSrc(), dst = op.getDst();
    std::optional<std::pair<int64_t, int64_t>> batch = getLoadBatch(
        op, ShapedType::getNumElements(vectorShape),
        width * op.getSrc().getType().getElementTypeBitWidth());
    if (!batch)
      return false;
    auto [threads, perThread] = *batch;
    TileRegion srcRegion = op.getSrcRegion(), dstRegion = op.getDstRegion();
    Location loc = op.getLoc();
    Type dstElement = op.getDst().getType().getElementType();
    auto alignment = [&](Value side) {
      return llvm::Align(
          width * cast<MemRefType>(side.getType()).getElementTypeBitWidth() /
          8);
    };
    SmallVector<SmallVector<Value>> ivs;
    SmallVector<Value> values;
    for (int64_t j = 0; j < perThread; ++j) {
      SmallVector<Value> at =
          getVectorCoords(b, loc, op.getTileShape(),
                          getBatchUnit(b, loc, dist, j, threads), width);
      Value load = loadZeroPaddedVector(b, loc, srcRegion, at, width,
                                        alignment(src));
      ivs.push_back(std::move(at));
      values.push_back(load);
    }
    for (auto [at, v] : llvm::zip(ivs, values))
      vector::StoreOp::create(
          b, loc, convertScalar(b, loc, v, dstElement), dst,
          swizzleIndices(b, loc, dst, tileIndices(b, loc, dstRegion, at)),
          /*nontemporal=*/false, alignment(dst));
    return true;
  }

  static void lowerElements(OpBuilder &b, CopyOp op, const Distribution &dist,
                            bool batched = true) {
    if (batched && isGlobalBuffer(op.getSrc()) && !isGlobalBuffer(op.getDst()) &&
        dist.isSplit() && lowerBatchedElements(b, op, dist))
      return;
    buildTileLoops(b, op.getLoc(), op.getTileShape(), dist,
                   [&](OpBuilder &b, Location loc, ValueRange ivs) {
                     copyElement(b, loc, op, ivs);
                   });
  }

  /// lowerBatchedLoads for single elements (rows whose alignment allows no
  /// vectors, or that do not run along the buffers' last dimension): every
  /// load of the thread, zero past the global buffer's edge, before its
  /// first store, under the same register bound.
  static bool lowerBatchedElements(OpBuilder &b, CopyOp op,
                                   const Distribution &dist) {
    SmallVector<int64_t> shape = op.getTileShape();
    std::optional<std::pair<int64_t, int64_t>> batch =
        getLoadBatch(op, ShapedType::getNumElements(shape),
                     op.getSrc().getType().getElementTypeBitWidth());
    if (!batch)
      return false;
    auto [threads, perThread] = *batch;
    Value src = op.getSrc(), dst = op.getDst();
    Location loc = op.getLoc();
    Type dstElement = op.getDst().getType().getElementType();
    SmallVector<SmallVector<Value>> dstIndices;
    SmallVector<Value> values;
    for (int64_t j = 0; j < perThread; ++j) {
      SmallVector<Value> ivs = delinearize(
          b, loc, shape, getBatchUnit(b, loc, dist, j, threads));
      SmallVector<Value> srcIdx = swizzleIndices(
          b, loc, src, tileIndices(b, loc, op.getSrcRegion(), ivs));
      values.push_back(convertScalar(b, loc, guardedLoad(b, loc, src, srcIdx),
                                     dstElement));
      dstIndices.push_back(swizzleIndices(
          b, loc, dst, tileIndices(b, loc, op.getDstRegion(), ivs)));
    }
    for (int64_t j = 0; j < perThread; ++j)
      guardedWrite(b, loc, dst, dstIndices[j], [&](OpBuilder &b, Location loc) {
        memref::StoreOp::create(b, loc, values[j], dst, dstIndices[j]);
      });
    return true;
  }

  /// One element at tile coordinates `ivs`, with the edge rules of the op.
  static void copyElement(OpBuilder &b, Location loc, CopyOp op,
                          ValueRange ivs) {
    Value src = op.getSrc(), dst = op.getDst();
    Type dstElement = op.getDst().getType().getElementType();
    SmallVector<Value> srcIdx =
        swizzleIndices(b, loc, src, tileIndices(b, loc, op.getSrcRegion(), ivs));
    SmallVector<Value> dstIdx =
        swizzleIndices(b, loc, dst, tileIndices(b, loc, op.getDstRegion(), ivs));
    Value value =
        convertScalar(b, loc, guardedLoad(b, loc, src, srcIdx), dstElement);
    guardedWrite(b, loc, dst, dstIdx, [&](OpBuilder &b, Location loc) {
      memref::StoreOp::create(b, loc, value, dst, dstIdx);
    });
  }
};

/// Without asynchronous copies (tile.copy {async} ran as a plain copy),
/// committing does nothing and waiting is a block barrier: the wait still
/// orders the block's accesses to the staged buffers.
struct AsyncCommitLowering : TilePattern<AsyncCommitOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(AsyncCommitOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncWaitLowering : TilePattern<AsyncWaitOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(AsyncWaitOp op,
                                PatternRewriter &rewriter) const override {
    // A thread's own wait: its copies completed when they were made.
    if (mode == TileLoweringMode::Block && !op.getPerThread())
      gpu::BarrierOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Without asynchronous copies, a thread's few elements as plain loads
/// and stores (complete at once; the destination through its swizzle).
struct AsyncCopyElementsLowering : TilePattern<AsyncCopyElementsOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(AsyncCopyElementsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> src(op.getSrcIndices()), dst(op.getDstIndices());
    Value srcColumn = src.back(), dstColumn = dst.back();
    for (int64_t e = 0; e < static_cast<int64_t>(op.getCount()); ++e) {
      if (e) {
        Value offset = indexConst(rewriter, loc, e);
        src.back() = arith::AddIOp::create(rewriter, loc, srcColumn, offset);
        dst.back() = arith::AddIOp::create(rewriter, loc, dstColumn, offset);
      }
      Value value;
      if (Value predicate = op.getPredicate()) {
        // Zeros where the predicate is false, without reading the source.
        Type element = op.getDst().getType().getElementType();
        auto branch = scf::IfOp::create(rewriter, loc, TypeRange{element},
                                        predicate, /*withElseRegion=*/true);
        OpBuilder::InsertionGuard insertion(rewriter);
        rewriter.setInsertionPointToStart(branch.thenBlock());
        scf::YieldOp::create(
            rewriter, loc,
            ValueRange{memref::LoadOp::create(rewriter, loc, op.getSrc(), src)});
        rewriter.setInsertionPointToStart(branch.elseBlock());
        scf::YieldOp::create(
            rewriter, loc,
            ValueRange{arith::ConstantOp::create(
                rewriter, loc, element, rewriter.getZeroAttr(element))});
        value = branch.getResult(0);
      } else {
        value = memref::LoadOp::create(rewriter, loc, op.getSrc(), src);
      }
      memref::StoreOp::create(rewriter, loc, value, op.getDst(),
                              swizzleIndices(rewriter, loc, op.getDst(), dst));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct AtomicAddLowering : TilePattern<AtomicAddOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(AtomicAddOp op,
                                PatternRewriter &rewriter) const override {
    Value dst = op.getDst();
    Type dstElement = op.getDst().getType().getElementType();
    Location loc = op.getLoc();
    withBarriers(rewriter, loc, mode, [&] {
      if (!op.isTileForm()) {
        // The block adds the value once.
        auto add = [&](OpBuilder &b, Location loc) {
          guardedWrite(b, loc, dst, op.getDstOffsets(),
                       [&](OpBuilder &b, Location loc) {
                         accumulate(b, loc, mode, dst, op.getDstOffsets(),
                                    op.getValue());
                       });
        };
        Distribution dist = getDistribution(rewriter, op, mode, false);
        if (!dist.isSplit())
          return add(rewriter, loc);
        Value first = arith::CmpIOp::create(rewriter, loc,
                                            arith::CmpIPredicate::eq,
                                            dist.threadId,
                                            indexConst(rewriter, loc, 0));
        scf::IfOp::create(rewriter, loc, first,
                          [&](OpBuilder &b, Location loc) {
                            add(b, loc);
                            scf::YieldOp::create(b, loc);
                          });
        return;
      }
      Value tile = op.getValue();
      Distribution dist = getDistribution(rewriter, op, mode, false);
      buildTileLoops(
          rewriter, loc, cast<MemRefType>(tile.getType()).getShape(), dist,
          [&](OpBuilder &b, Location loc, ValueRange ivs) {
            Value v = convertScalar(
                b, loc, memref::LoadOp::create(b, loc, tile, ivs), dstElement);
            SmallVector<Value> indices =
                tileIndices(b, loc, op.getDstRegion(), ivs);
            guardedWrite(b, loc, dst, indices,
                         [&](OpBuilder &b, Location loc) {
                           accumulate(b, loc, mode, dst, indices, v);
                         });
          });
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct FillLowering : TilePattern<FillOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(FillOp op,
                                PatternRewriter &rewriter) const override {
    withBarriers(rewriter, op.getLoc(), mode, [&] {
      Distribution dist =
          getDistribution(rewriter, op, mode, isLocal(op.getDst()));
      buildTileLoops(rewriter, op.getLoc(), op.getDst().getType().getShape(),
                     dist, [&](OpBuilder &b, Location loc, ValueRange ivs) {
                       memref::StoreOp::create(b, loc, op.getValue(),
                                               op.getDst(), ivs);
                     });
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct ClearLowering : TilePattern<ClearOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(ClearOp op,
                                PatternRewriter &rewriter) const override {
    MemRefType type = op.getDst().getType();
    Value zero = zeroOf(rewriter, op.getLoc(), type.getElementType());
    rewriter.replaceOpWithNewOp<FillOp>(op, op.getDst(), zero);
    return success();
  }
};

/// A gemm that clears C at run time (`clear_if`), where no lowering takes
/// the condition itself (wgmma's scale-d does): C is filled with zeros
/// under the condition, then accumulated into. Ahead of the generic
/// lowering, after the tensor-core ones (which refuse clear_if but wgmma).
struct ExpandGemmClearIf : OpRewritePattern<GemmOp> {
  ExpandGemmClearIf(MLIRContext *ctx)
      : OpRewritePattern<GemmOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    Value clearIf = op.getClearIf();
    if (!clearIf)
      return failure();
    if (GemmInstructionAttr instruction = op.getInstructionAttr();
        instruction && instruction.getKind() == GemmInstructionKind::Wgmma)
      return rewriter.notifyMatchFailure(op, "wgmma takes clear_if itself");
    Location loc = op.getLoc();
    scf::IfOp::create(rewriter, loc, clearIf, [&](OpBuilder &b, Location) {
      FillOp::create(b, loc, op.getC(),
                     zeroOf(b, loc, op.getC().getType().getElementType()));
      scf::YieldOp::create(b, loc);
    });
    rewriter.modifyOpInPlace(op, [&] { op.getClearIfMutable().clear(); });
    return success();
  }
};

/// The SIMT gemm: in Block mode only for the gemms selected for it (or
/// carrying no instruction); the others are their instruction's lowering's.
struct GemmLowering : TilePattern<GemmOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (GemmInstructionAttr instruction = op.getInstructionAttr();
        mode == TileLoweringMode::Block && instruction &&
        instruction.getKind() != GemmInstructionKind::SIMT)
      return rewriter.notifyMatchFailure(op, "selected for another "
                                             "instruction");
    Value a = op.getA(), b = op.getB(), c = op.getC();
    Type accType = op.getC().getType().getElementType();
    bool transA = op.getTransposeA(), transB = op.getTransposeB();
    bool clear = op.getClearAccum();
    int64_t k = op.getK();
    Location loc = op.getLoc();
    withBarriers(rewriter, loc, mode, [&] {
      // Every C element belongs to one thread, which runs its k loop.
      Distribution dist = getDistribution(rewriter, op, mode, false);
      buildTileLoops(
          rewriter, loc, {op.getM(), op.getN()}, dist,
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
                      swizzleIndices(builder, loc, a,
                                     transA ? ValueRange{kk, i}
                                            : ValueRange{i, kk}));
                  Value bv = memref::LoadOp::create(
                      builder, loc, b,
                      swizzleIndices(builder, loc, b,
                                     transB ? ValueRange{j, kk}
                                            : ValueRange{kk, j}));
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
    });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

/// The value that does not change a reduction of `kind`.
Value mlir::tile::reductionIdentity(OpBuilder &b, Location loc,
                                    ReduceKind kind, Type type) {
  if (kind == ReduceKind::BitAnd)
    return arith::ConstantOp::create(
        b, loc, type,
        b.getIntegerAttr(type,
                         APInt::getAllOnes(type.getIntOrFloatBitWidth())));
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

Value mlir::tile::combineReduction(OpBuilder &b, Location loc,
                                   ReduceKind kind, bool propagateNaN,
                                   Value acc, Value value) {
  bool isFloat = isa<FloatType>(value.getType());
  if (kind == ReduceKind::AbsSum || kind == ReduceKind::AbsMax)
    value = isFloat ? math::AbsFOp::create(b, loc, value).getResult()
                    : math::AbsIOp::create(b, loc, value).getResult();
  switch (kind) {
  case ReduceKind::Max:
  case ReduceKind::AbsMax:
    if (!isFloat)
      return arith::MaxSIOp::create(b, loc, acc, value);
    return propagateNaN
               ? arith::MaximumFOp::create(b, loc, acc, value).getResult()
               : arith::MaxNumFOp::create(b, loc, acc, value).getResult();
  case ReduceKind::Min:
    if (!isFloat)
      return arith::MinSIOp::create(b, loc, acc, value);
    return propagateNaN
               ? arith::MinimumFOp::create(b, loc, acc, value).getResult()
               : arith::MinNumFOp::create(b, loc, acc, value).getResult();
  case ReduceKind::Sum:
  case ReduceKind::AbsSum:
    return add(b, loc, acc, value);
  case ReduceKind::BitAnd:
    return arith::AndIOp::create(b, loc, acc, value);
  case ReduceKind::BitOr:
    return arith::OrIOp::create(b, loc, acc, value);
  case ReduceKind::BitXor:
    return arith::XOrIOp::create(b, loc, acc, value);
  }
  llvm_unreachable("unknown reduction kind");
}

namespace {

/// Loops over every dimension of `shape` but `dim` (split by `dist`), then
/// sequentially along `dim` (backwards with `reverse`), carrying an
/// accumulator: `step(b, loc, outerIvs, r, acc) -> new acc`.
static void buildAlongDim(
    OpBuilder &rewriter, Location loc, ArrayRef<int64_t> shape, int64_t dim,
    bool reverse, const Distribution &dist,
    function_ref<Value(OpBuilder &, Location, ValueRange)> init,
    function_ref<Value(OpBuilder &, Location, ValueRange, Value, Value)> step,
    function_ref<void(OpBuilder &, Location, ValueRange, Value)> finish) {
  SmallVector<int64_t> outer(shape);
  outer.erase(outer.begin() + dim);
  int64_t size = shape[dim];
  buildTileLoops(
      rewriter, loc, outer, dist,
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
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

} // namespace

/// The kind that merges two partial results of a `kind` reduction (the
/// absolute value applies to elements, not to partial results).
ReduceKind mlir::tile::getMergeKind(ReduceKind kind) {
  if (kind == ReduceKind::AbsSum)
    return ReduceKind::Sum;
  if (kind == ReduceKind::AbsMax)
    return ReduceKind::Max;
  return kind;
}

namespace {

/// Lanes per reduced line when a Block-mode reduction of `lines` lines
/// runs on groups of lanes that combine their partial results with warp
/// shuffles: the largest power of two up to 32 that leaves every line a
/// group, or 1 when lines alone already occupy the block (or the element
/// type does not shuffle).
static int64_t getLanesPerLine(ReduceOp op, int64_t lines) {
  Type type = op.getSrc().getType().getElementType();
  std::optional<int64_t> threads = getStaticBlockThreads(op);
  if (!threads || type.getIntOrFloatBitWidth() != 32)
    return 1;
  int64_t lanes = 1;
  while (lanes < 32 && lanes * 2 * lines <= *threads &&
         *threads % (lanes * 2) == 0)
    lanes *= 2;
  return lanes;
}

struct ReduceLowering : TilePattern<ReduceOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    Value src = op.getSrc(), dst = op.getDst();
    MemRefType srcType = op.getSrc().getType();
    int64_t srcRank = srcType.getRank();
    int64_t dstRank = op.getDst().getType().getRank();
    int64_t dim = op.getDim();
    ReduceKind kind = op.getKind();
    bool nan = op.getNanPropagate();
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
    withBarriers(rewriter, op.getLoc(), mode, [&] {
      Distribution dist = getDistribution(rewriter, op, mode, isLocal(dst));
      SmallVector<int64_t> outer(srcType.getShape());
      outer.erase(outer.begin() + dim);
      int64_t lines = 1;
      for (int64_t extent : outer)
        lines *= extent;
      if (dist.isSplit()) {
        if (int64_t lanes = getLanesPerLine(op, lines); lanes > 1)
          return lowerWithShuffles(rewriter, op, dist, outer, lines, lanes,
                                   dstIndices);
      }
      // Every output element belongs to one thread, which reduces its row.
      buildAlongDim(
          rewriter, op.getLoc(), srcType.getShape(), dim, /*reverse=*/false,
          dist,
          [&](OpBuilder &b, Location loc, ValueRange outer) -> Value {
            if (op.getClear())
              return reductionIdentity(b, loc, kind, type);
            return memref::LoadOp::create(b, loc, dst,
                                          dstIndices(b, loc, outer));
          },
          [&](OpBuilder &b, Location loc, ValueRange outer, Value r,
              Value acc) -> Value {
            Value v =
                memref::LoadOp::create(b, loc, src, insertAt(outer, dim, r));
            return combineReduction(b, loc, kind, nan, acc, v);
          },
          [&](OpBuilder &b, Location loc, ValueRange outer, Value result) {
            memref::StoreOp::create(b, loc, result, dst,
                                    dstIndices(b, loc, outer));
          });
    });
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// Each line (output element) is reduced by a group of `lanes` adjacent
  /// lanes of one warp: lane q of the group folds elements q, q + lanes,
  /// ... of the line, then the group combines its partial results with
  /// `lanes - 1` xor shuffles, and its first lane writes the result. Groups
  /// take lines g, g + groups, ...; every lane runs the same number of
  /// rounds (past the last line with the identity), so the shuffles are
  /// never divergent.
  static void lowerWithShuffles(
      OpBuilder &b, ReduceOp op, const Distribution &dist,
      ArrayRef<int64_t> outer, int64_t lines, int64_t lanes,
      function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
          dstIndices) {
    Location loc = op.getLoc();
    Value src = op.getSrc(), dst = op.getDst();
    MemRefType srcType = op.getSrc().getType();
    int64_t dim = op.getDim();
    ReduceKind kind = op.getKind(), merge = getMergeKind(kind);
    bool nan = op.getNanPropagate();
    Type type = srcType.getElementType();
    int64_t size = srcType.getDimSize(dim);
    int64_t groups = *getStaticBlockThreads(op) / lanes;
    Value lane = arith::RemUIOp::create(b, loc, dist.threadId,
                                        indexConst(b, loc, lanes));
    Value group = arith::DivUIOp::create(b, loc, dist.threadId,
                                         indexConst(b, loc, lanes));
    scf::ForOp::create(
        b, loc, indexConst(b, loc, 0), indexConst(b, loc, lines),
        indexConst(b, loc, groups), ValueRange{},
        [&](OpBuilder &b, Location loc, Value base, ValueRange) {
          Value line = arith::AddIOp::create(b, loc, base, group);
          Value active = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult, line,
              indexConst(b, loc, lines));
          // The line's coordinates (clamped into the tile when inactive).
          Value at = arith::SelectOp::create(b, loc, active, line,
                                             indexConst(b, loc, 0));
          SmallVector<Value> coords(outer.size());
          for (int64_t d = outer.size() - 1; d >= 0; --d) {
            coords[d] = d == 0 ? at
                               : arith::RemUIOp::create(
                                     b, loc, at, indexConst(b, loc, outer[d]))
                                     .getResult();
            if (d > 0)
              at = arith::DivUIOp::create(b, loc, at,
                                          indexConst(b, loc, outer[d]));
          }
          Value identity = reductionIdentity(b, loc, kind, type);
          auto partial = scf::IfOp::create(
              b, loc, active,
              [&](OpBuilder &b, Location loc) {
                auto loop = scf::ForOp::create(
                    b, loc, lane, indexConst(b, loc, size),
                    indexConst(b, loc, lanes), ValueRange{identity},
                    [&](OpBuilder &b, Location loc, Value r, ValueRange acc) {
                      Value v = memref::LoadOp::create(
                          b, loc, src, insertAt(coords, dim, r));
                      Value next =
                          combineReduction(b, loc, kind, nan, acc[0], v);
                      scf::YieldOp::create(b, loc, next);
                    });
                scf::YieldOp::create(b, loc, loop.getResult(0));
              },
              [&](OpBuilder &b, Location loc) {
                scf::YieldOp::create(b, loc, identity);
              });
          Value result = partial.getResult(0);
          for (int64_t offset = lanes / 2; offset > 0; offset /= 2) {
            Value other =
                gpu::ShuffleOp::create(b, loc, result, offset, /*width=*/32,
                                       gpu::ShuffleMode::XOR)
                    .getShuffleResult();
            result = combineReduction(b, loc, merge, nan, result, other);
          }
          Value first = arith::AndIOp::create(
              b, loc, active,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                    indexConst(b, loc, 0)));
          scf::IfOp::create(b, loc, first, [&](OpBuilder &b, Location loc) {
            SmallVector<Value> indices = dstIndices(b, loc, coords);
            Value value = result;
            if (!op.getClear())
              value = combineReduction(
                  b, loc, merge, nan,
                  memref::LoadOp::create(b, loc, dst, indices), value);
            memref::StoreOp::create(b, loc, value, dst, indices);
            scf::YieldOp::create(b, loc);
          });
          scf::YieldOp::create(b, loc);
        });
  }
};

struct CumsumLowering : TilePattern<CumsumOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(CumsumOp op,
                                PatternRewriter &rewriter) const override {
    Value src = op.getSrc(), dst = op.getDst();
    MemRefType type = op.getSrc().getType();
    int64_t dim = op.getDim();
    withBarriers(rewriter, op.getLoc(), mode, [&] {
      // Every line along `dim` belongs to one thread.
      Distribution dist = getDistribution(rewriter, op, mode, isLocal(dst));
      buildAlongDim(
          rewriter, op.getLoc(), type.getShape(), dim, op.getReverse(), dist,
          [&](OpBuilder &b, Location loc, ValueRange) {
            return reductionIdentity(b, loc, op.getKind(),
                                     type.getElementType());
          },
          [&](OpBuilder &b, Location loc, ValueRange outer, Value r,
              Value acc) -> Value {
            SmallVector<Value> indices = insertAt(outer, dim, r);
            // Read before writing: dst may be src.
            Value next = combineReduction(
                b, loc, op.getKind(), /*propagateNaN=*/false, acc,
                memref::LoadOp::create(b, loc, src, indices));
            memref::StoreOp::create(b, loc, next, dst, indices);
            return next;
          },
          /*finish=*/nullptr);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

scf::IfOp mlir::tile::onThreadZero(OpBuilder &b, Location loc, Operation *op,
                                   function_ref<void(OpBuilder &)> body,
                                   int64_t every) {
  Value tid = getBlockThreads(b, op).threadId;
  if (every)
    tid = arith::RemUIOp::create(b, loc, tid, indexConst(b, loc, every));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      indexConst(b, loc, 0));
  return scf::IfOp::create(b, loc, first, [&](OpBuilder &then, Location) {
    body(then);
    scf::YieldOp::create(then, loc);
  });
}

Value mlir::tile::takeTileCount(OpBuilder &b, Location loc, Value counters,
                                int64_t counter) {
  return memref::AtomicRMWOp::create(
      b, loc, arith::AtomicRMWKind::addi,
      arith::ConstantIntOp::create(b, loc, 1, 32), counters,
      ValueRange{indexConst(b, loc, counter)});
}

Value mlir::tile::getTileIndexOfCount(OpBuilder &b, Location loc, Value offset,
                                      Value count) {
  return arith::AddIOp::create(
      b, loc, offset,
      arith::IndexCastUIOp::create(b, loc, b.getIndexType(), count));
}

namespace {

/// tile.next_tile in its block form: sequentially the atomic increment; in
/// a block, thread 0's, published through the slot between block barriers.
/// (The hand-off between a producer and the consumers is NVIDIA's.)
struct NextTileLowering : TilePattern<NextTileOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(NextTileOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getFull())
      return op.emitOpError(kNextTileHandoffNVIDIAOnly);
    Location loc = op.getLoc();
    Value count;
    if (mode == TileLoweringMode::Sequential) {
      count = takeTileCount(rewriter, loc, op.getCounters());
    } else {
      Value zero = indexConst(rewriter, loc, 0);
      withBarriers(rewriter, loc, mode, [&] {
        onThreadZero(rewriter, loc, op, [&](OpBuilder &b) {
          memref::StoreOp::create(b, loc,
                                  takeTileCount(b, loc, op.getCounters()),
                                  op.getSlot(), ValueRange{zero});
        });
      });
      count =
          memref::LoadOp::create(rewriter, loc, op.getSlot(), ValueRange{zero});
    }
    rewriter.replaceOp(
        op, getTileIndexOfCount(rewriter, loc, op.getOffset(), count));
    return success();
  }
};

/// tile.finish_tiles: thread 0 counts the block done; the last one resets
/// the counters.
struct FinishTilesLowering : TilePattern<FinishTilesOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(FinishTilesOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value counters = op.getCounters();
    // On a GPU, fences order the block's takes before its count and the
    // other blocks' before the reset (the atomics themselves are relaxed).
    bool fence = mode != TileLoweringMode::Sequential;
    auto finish = [&](OpBuilder &b) {
      if (fence)
        LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acq_rel);
      Value done = takeTileCount(b, loc, counters, /*counter=*/1);
      Value last = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::AddIOp::create(
              b, loc,
              arith::IndexCastUIOp::create(b, loc, b.getIndexType(), done),
              indexConst(b, loc, 1)),
          op.getBlocks());
      scf::IfOp::create(b, loc, last, [&](OpBuilder &then, Location loc) {
        if (fence)
          LLVM::FenceOp::create(then, loc, LLVM::AtomicOrdering::acq_rel);
        Value zero = arith::ConstantIntOp::create(then, loc, 0, 32);
        for (int64_t i : {0, 1})
          memref::AtomicRMWOp::create(then, loc, arith::AtomicRMWKind::assign,
                                      zero, counters,
                                      ValueRange{indexConst(then, loc, i)});
        scf::YieldOp::create(then, loc);
      });
    };
    if (mode == TileLoweringMode::Sequential)
      finish(rewriter);
    else
      onThreadZero(rewriter, loc, op, finish);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.thread_id -> the launch's thread index (Block mode only: the CPU
/// target refuses the op before its conversion).
struct ThreadIdLowering : TilePattern<ThreadIdOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(ThreadIdOp op,
                                PatternRewriter &rewriter) const override {
    if (mode != TileLoweringMode::Block)
      return rewriter.notifyMatchFailure(op,
                                         "no threads on a sequential target");
    rewriter.replaceOp(op, getThreadIndex(rewriter, op, op.getDim()));
    return success();
  }
};

/// The memref of `type` (global, identity layout) whose first element is at
/// `address` (an i64), with `dynamicSizes` for its dynamic dimensions: the
/// LLVM struct the memref lowering reads (pointer, offset 0, sizes and
/// row-major strides), cast to the memref. The later conversions take the
/// descriptor through the cast, and reconcile-unrealized-casts removes the
/// pair.
static Value buildTensorAt(PatternRewriter &rewriter, Location loc,
                           MemRefType type, Value address,
                           ValueRange dynamicSizes) {
  LLVMTypeConverter converter(rewriter.getContext());
  Type descriptorType = converter.convertType(type);
  Type i64 = rewriter.getI64Type();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, value, 64);
  };
  Value pointer = LLVM::IntToPtrOp::create(
      rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()),
      address);
  auto descriptor = MemRefDescriptor::poison(rewriter, loc, descriptorType);
  descriptor.setAllocatedPtr(rewriter, loc, pointer);
  descriptor.setAlignedPtr(rewriter, loc, pointer);
  descriptor.setOffset(rewriter, loc, constant(0));
  SmallVector<Value> sizes;
  auto dynamic = dynamicSizes.begin();
  for (int64_t extent : type.getShape())
    sizes.push_back(ShapedType::isDynamic(extent)
                        ? arith::IndexCastOp::create(rewriter, loc, i64,
                                                     *dynamic++)
                              .getResult()
                        : constant(extent));
  Value stride = constant(1);
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    descriptor.setSize(rewriter, loc, d, sizes[d]);
    descriptor.setStride(rewriter, loc, d, stride);
    if (d > 0)
      stride = arith::MulIOp::create(rewriter, loc, stride, sizes[d]);
  }
  return UnrealizedConversionCastOp::create(rewriter, loc, type,
                                            static_cast<Value>(descriptor))
      .getResult(0);
}

/// tile.make_tensor -> the tensor at its address (buildTensorAt).
struct MakeTensorLowering : TilePattern<MakeTensorOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(MakeTensorOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildTensorAt(rewriter, op.getLoc(),
                                         cast<MemRefType>(op.getType()),
                                         op.getAddress(), op.getSizes()));
    return success();
  }
};

/// tile.view -> the tensor at the source's first element (its aligned
/// pointer plus its offset in bytes). A view of a shared tile in a block
/// stays for tile-place-shared-memory, which places it at the tile's bytes;
/// where one thread runs the block, the tile is host memory like the rest.
struct ViewLowering : TilePattern<ViewOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(ViewOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value source = op.getSource();
    auto type = cast<MemRefType>(op.getType());
    if (mode == TileLoweringMode::Block &&
        isInSpace(cast<MemRefType>(source.getType()), MemorySpace::Shared))
      return rewriter.notifyMatchFailure(op, "placed with the tile");
    // The host descriptor; a shared tile's view (host memory once the tile
    // spaces are gone) is cast to its tile type, which the space
    // replacement then rewrites.
    auto plain = MemRefType::get(type.getShape(), type.getElementType());
    Value view = buildTensorAt(rewriter, loc, plain,
                               getSourceAddress(rewriter, loc, source),
                               ValueRange());
    if (plain != type)
      view = UnrealizedConversionCastOp::create(rewriter, loc, type, view)
                 .getResult(0);
    rewriter.replaceOp(op, view);
    return success();
  }

  /// The address of the first element of `source` as an i64: its aligned
  /// pointer plus its offset in bytes.
  static Value getSourceAddress(PatternRewriter &rewriter, Location loc,
                                Value source) {
    auto sourceType = cast<MemRefType>(source.getType());
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, source);
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, source);
    Value offset = arith::MulIOp::create(
        rewriter, loc, metadata.getOffset(),
        arith::ConstantIndexOp::create(
            rewriter, loc, sourceType.getElementTypeBitWidth() / 8));
    return arith::IndexCastOp::create(
        rewriter, loc, rewriter.getI64Type(),
        arith::AddIOp::create(rewriter, loc, base, offset));
  }
};

/// tile.sync_threads -> gpu.barrier (on a warp-specialized side, that
/// side's named barrier: tile-nvvm-named-barriers); nothing where one
/// thread runs the block.
struct SyncThreadsLowering : TilePattern<SyncThreadsOp> {
  using TilePattern::TilePattern;

  LogicalResult matchAndRewrite(SyncThreadsOp op,
                                PatternRewriter &rewriter) const override {
    if (mode == TileLoweringMode::Block)
      gpu::BarrierOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::lowerAssumes(ModuleOp module) {
  SmallVector<AssumeOp> assumes;
  module.walk([&](AssumeOp op) { assumes.push_back(op); });
  if (assumes.empty())
    return;
  MLIRContext *ctx = module.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(kAssumeFailedFunction);
  if (!callee) {
    auto builder = OpBuilder::atBlockEnd(module.getBody());
    callee = LLVM::LLVMFuncOp::create(
        builder, module.getLoc(), kAssumeFailedFunction,
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptrType}));
  }
  unsigned count = 0;
  for (AssumeOp op : assumes) {
    Location loc = op.getLoc();
    // The ops after the assume go on in a block of their own.
    Block *before = op->getBlock();
    Block *rest = before->splitBlock(std::next(op->getIterator()));
    Region *body = before->getParent();
    Block *fail = new Block();
    body->getBlocks().insertAfter(before->getIterator(), fail);
    OpBuilder b = OpBuilder::atBlockEnd(fail);
    std::string name;
    do
      name = ("__tile_assume_" + llvm::Twine(count++)).str();
    while (module.lookupSymbol(name));
    std::string text = op.getMessage().str();
    text.push_back('\0'); // a C string
    Value message = LLVM::createGlobalString(loc, b, name, text,
                                             LLVM::Linkage::Internal);
    LLVM::CallOp::create(b, loc, callee, ValueRange{message});
    func::ReturnOp::create(b, loc);
    b.setInsertionPointToEnd(before);
    cf::CondBranchOp::create(b, loc, op.getCondition(), rest, ValueRange(),
                             fail, ValueRange());
    op.erase();
  }
}

LogicalResult mlir::tile::lowerClusterOps(ModuleOp module,
                                          bool hardwareClusters,
                                          StringRef target) {
  if (hardwareClusters)
    return success();
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<ClusterArriveOp, ClusterWaitOp, BlockRankInClusterOp,
            ClusterBarrierArriveOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    auto kernel = op->getParentOfType<KernelOp>();
    int64_t size = kernel ? kernel.getClusterSize() : 1;
    if (size > 1)
      return op->emitOpError(
                 "synchronizes or addresses the blocks of a thread block "
                 "cluster: only NVIDIA sm_90 and newer run a cluster's blocks "
                 "together, and this kernel's clusters have ")
             << size << " blocks (target: " << target << ")";
    OpBuilder b(op);
    if (auto rank = dyn_cast<BlockRankInClusterOp>(op))
      rank.replaceAllUsesWith(indexConst(b, op->getLoc(), 0));
    else if (auto arrive = dyn_cast<ClusterBarrierArriveOp>(op))
      // The verifier holds the rank to 0 where it is a constant.
      BarrierArriveOp::create(b, op->getLoc(), arrive.getBarriers(),
                              arrive.getIndex(), /*per_thread=*/true);
    op->erase();
  }
  return success();
}

void mlir::tile::populateTileOpLoweringPatterns(RewritePatternSet &patterns,
                                                TileLoweringMode mode) {
  patterns
      .add<ParallelLowering, PipelinedLowering, TakeTurnsLowering, CopyLowering,
           AsyncCommitLowering, AsyncWaitLowering, AsyncCopyElementsLowering,
           AtomicAddLowering,
           FillLowering, ClearLowering, GemmLowering, ReduceLowering,
           CumsumLowering, NextTileLowering, FinishTilesLowering,
           ThreadIdLowering, SyncThreadsLowering, MakeTensorLowering, ViewLowering,
           EraseHint<AnnotateLayoutOp>, EraseHint<UseSwizzleOp>,
           // Synchronous gemms leave nothing to wait for, and
           // synchronous copies nothing to count.
           EraseHint<GemmWaitOp>, EraseHint<BarrierInitOp>,
           // Grids launched in stream order: nothing to wait for or
           // signal (NVIDIA sm_90 emits griddepcontrol instead).
           EraseHint<GridWaitOp>, EraseHint<GridLaunchDependentsOp>,
           // Registers are the compiler's where setmaxnreg does not exist
           // (NVIDIA sm_90a emits it).
           EraseHint<SetMaxRegistersOp>,
           EraseHint<BarrierWaitOp>, EraseHint<BarrierArriveOp>>(
          patterns.getContext(), mode);
  patterns.add<ExpandGemmClearIf>(patterns.getContext());
}
