//===- PrefetchCopies.cpp - Early asynchronous one-off copies -------------===//
//
// Part of TileLang-MLIR.
//
// tile-prefetch-copies: a kernel's copies from global memory into whole
// shared tiles that run once per block are issued as early as they may be,
// asynchronously, and waited for where they were (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Transforms/Passes.h"

#include "ProducerOperands.h"

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "TileLang/Transforms/InstructionSelection.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEPREFETCHCOPIES
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

/// True when `copy` fills a whole shared allocation of `kernel`'s body from
/// global memory, synchronously, directly in `body` (the kernel's, or that
/// of its loop over persistent tiles).
bool isPrefetchable(CopyOp copy, KernelOp kernel, Block *body) {
  auto alloc = copy.getDst().getDefiningOp<AllocSharedOp>();
  return copy->getBlock() == body && !copy.getAsync() &&
         !copy.getBarriers() && isGlobalBuffer(copy.getSrc()) &&
         copy.getDstOffsets().empty() && alloc &&
         alloc->getParentOp() == kernel &&
         copy.getSrc().getType().getElementType() ==
             copy.getDst().getType().getElementType();
}

/// A shared array of one arrival barrier.
Value allocateBarrier(OpBuilder &b, Location loc) {
  auto type = MemRefType::get(
      {1}, b.getI64Type(), MemRefLayoutAttrInterface(),
      MemorySpaceAttr::get(b.getContext(), MemorySpace::Shared));
  return AllocSharedOp::create(b, loc, type, Attribute()).getResult();
}

/// True when `op` or anything nested in it uses `value`, or the same
/// bytes as another element type: the shared tile a tile.view of it views,
/// or a tile.view of it.
bool usesValue(Operation *op, Value value) {
  SmallVector<Value> aliases = {value};
  if (auto view = value.getDefiningOp<ViewOp>())
    aliases.push_back(view.getSource());
  for (size_t i = 0; i < aliases.size(); ++i)
    for (Operation *user : aliases[i].getUsers()) {
      if (op->isAncestor(user))
        return true;
      if (auto view = dyn_cast<ViewOp>(user);
          view && !llvm::is_contained(aliases, view.getResult()))
        aliases.push_back(view.getResult());
    }
  return false;
}

/// Where `copy` may be issued: right before the earliest of the body's ops
/// above it that neither uses its tile, nor may write global memory, nor is
/// the producer or an allocation (the kernel's allocations stay first),
/// nor defines one of its operands (unless side-effect free: such an op
/// moves up with the copy, into `operands`, in order).
Operation *findIssuePoint(CopyOp copy, SmallVectorImpl<Operation *> &operands,
                          bool ignoreTileUses = false) {
  Operation *point = copy;
  llvm::SmallPtrSet<Operation *, 8> moving = {copy};
  auto feedsMoving = [&](Operation *op) {
    return llvm::any_of(op->getUsers(),
                        [&](Operation *user) { return moving.contains(user); });
  };
  for (Operation *prev = copy->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    if (feedsMoving(prev)) {
      if (prev->getNumRegions() || !isMemoryEffectFree(prev))
        break;
      moving.insert(prev);
      operands.push_back(prev);
      point = prev;
      continue;
    }
    if (isa<ProducerOp, TileAllocationOpInterface>(prev) ||
        (!ignoreTileUses && usesValue(prev, copy.getDst())) ||
        mayWriteGlobalMemory(prev, /*barriersOnlyOrder=*/true))
      break;
    point = prev;
  }
  std::reverse(operands.begin(), operands.end());
  return point;
}

/// True when an op in [from, to) is or holds a loop: moving a copy above
/// it gives the copy something to hide behind.
bool crossesLoop(Operation *from, Operation *to) {
  for (Operation *op = from; op != to; op = op->getNextNode()) {
    bool loop = false;
    op->walk([&](Operation *inner) {
      if (isa<LoopLikeOpInterface, PipelinedOp>(inner))
        loop = true;
    });
    if (loop)
      return true;
  }
  return false;
}

struct PrefetchCopiesPass
    : public tile::impl::TilePrefetchCopiesBase<PrefetchCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](KernelOp kernel) { prefetch(kernel); });
    // The copies made asynchronous take their engine again.
    stampAsyncCopyEngines(getOperation());
  }

  void prefetch(KernelOp kernel) {
    Block &body = kernel.getBody().front();
    auto producers = body.getOps<ProducerOp>();
    Operation *producer =
        producers.empty() ? nullptr : (*producers.begin()).getOperation();
    // A producer runs beside everything after it: its writes to global
    // memory would be unordered with an earlier read.
    if (producer && mayWriteGlobalMemory(producer, /*barriersOnlyOrder=*/true))
      return;
    if (producer && useProducer)
      produceCopies(kernel, cast<ProducerOp>(producer));
    SmallVector<CopyOp> copies;
    for (auto copy : body.getOps<CopyOp>())
      if (isPrefetchable(copy, kernel, &body))
        copies.push_back(copy);
    for (CopyOp copy : copies) {
      SmallVector<Operation *> operands;
      Operation *point = findIssuePoint(copy, operands);
      if (point == copy || !crossesLoop(point, copy))
        continue;
      Location loc = copy.getLoc();
      OpBuilder b(&body, body.begin());
      // A barrier of its own, initialized where every thread runs (before
      // the producer splits them).
      Value barrier = allocateBarrier(b, loc);
      b.setInsertionPoint(producer ? producer : point);
      BarrierInitOp::create(b, loc, barrier, 1);
      b.setInsertionPoint(point);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      auto early = cast<CopyOp>(b.clone(*copy));
      // Its operands, computed right before the copy, move up with it.
      for (Operation *op : operands)
        op->moveBefore(early);
      early.setAsync(true);
      early.getBarriersMutable().assign(barrier);
      early.getBarrierIndexMutable().assign(zero);
      early.removeEngineAttr();
      b.setInsertionPoint(copy);
      BarrierWaitOp::create(b, loc, barrier, zero, zero, UnitAttr());
      copy.erase();
    }
  }

  /// Where the producer's copies behind its fills go in `body`: before the
  /// hand-off of the next tile index (which may wait for the consumers to
  /// read the previous one), else at the end.
  static Operation *getCopiesEnd(Block *body) {
    for (auto next : body->getOps<NextTileOp>())
      return next;
    return body->getTerminator();
  }

  /// The producer issues the one-off copies of the kernel body, or of the
  /// body of the persistent kernel's loop over tiles that it mirrors (once
  /// per tile, after the consumers released the tile the tile before
  /// filled), that may be issued from the top of that body: those before
  /// the pipelined loop ahead of its fills, those after it behind them.
  void produceCopies(KernelOp kernel, ProducerOp producer) {
    Block &kernelBody = kernel.getBody().front();
    Operation *producerTiles = getProducerTiles(producer);
    Operation *tiles = nullptr;
    if (producerTiles) {
      for (Operation &op : kernelBody)
        if (op.hasAttr(TileDialect::getPersistentTilesAttrName()))
          tiles = &op;
      if (!tiles)
        return;
    }
    Block *body = tiles ? getTilesBody(tiles) : &kernelBody;
    Block *producerBody = producerTiles ? getTilesBody(producerTiles)
                                        : &producer.getBody().front();
    // The pipelined loop the producer fills, and its loop of fills.
    Operation *pipelined = nullptr;
    for (Operation &op : *body) {
      op.walk([&](PipelinedOp) { pipelined = &op; });
      if (pipelined)
        break;
    }
    scf::ForOp fills;
    for (auto loop : producerBody->getOps<scf::ForOp>())
      fills = loop;
    if (!pipelined || !fills)
      return;
    // The copies by tile, in body order.
    llvm::MapVector<Value, SmallVector<CopyOp>> byTile;
    for (auto copy : body->getOps<CopyOp>())
      if (isPrefetchable(copy, kernel, body))
        byTile[copy.getDst()].push_back(copy);
    auto index = [](OpBuilder &b, Location loc, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    for (auto &entry : byTile) {
      Value tile = entry.first;
      SmallVector<CopyOp> &group = entry.second;
      // A tile filled more than once per tile (the last V in K_0's tile):
      // each fill waits for the release of the one before, over persistent
      // tiles only.
      size_t count = group.size();
      if (count > 1 && !tiles)
        continue;
      bool issuable = llvm::all_of(group, [&](CopyOp copy) {
        SmallVector<Operation *> operands;
        Operation *point = findIssuePoint(copy, operands, count > 1);
        bool fromTop = tiles ? point == &body->front()
                             : point->getPrevNode() == producer.getOperation();
        return fromTop && copy->getBlock() == pipelined->getBlock();
      });
      // Each fill's uses come after it, up to the next fill; the last one's
      // end releases the tile.
      SmallVector<Operation *> lastUses(count, nullptr);
      SmallVector<bool> readByGemm(count, false);
      for (Operation *user : tile.getUsers()) {
        if (!issuable)
          break;
        if (llvm::any_of(group, [&](CopyOp copy) { return copy == user; }))
          continue;
        Operation *top = body->findAncestorOpInBlock(*user);
        if (!top || !group.front()->isBeforeInBlock(top)) {
          issuable = false;
          break;
        }
        size_t i = count - 1;
        while (top->isBeforeInBlock(group[i]))
          --i;
        if (!lastUses[i] || lastUses[i]->isBeforeInBlock(top))
          lastUses[i] = top;
        readByGemm[i] = readByGemm[i] || isa<GemmOp>(user);
      }
      if (!issuable || (tiles && llvm::is_contained(lastUses, nullptr)))
        continue;

      Location loc = group.front().getLoc();
      OpBuilder b(&kernelBody, kernelBody.begin());
      SmallVector<Value> full, released;
      for (size_t i = 0; i < count; ++i) {
        full.push_back(allocateBarrier(b, loc));
        if (tiles)
          released.push_back(allocateBarrier(b, loc));
      }
      // The producer's side: each fill before its fills or after them (the
      // ops it creates recorded, to be undone if the producer cannot
      // compute the copies' operands).
      struct Recorder : OpBuilder::Listener {
        SmallVector<Operation *> ops;
        void notifyOperationInserted(Operation *op,
                                     OpBuilder::InsertPoint) override {
          ops.push_back(op);
        }
      } recorder;
      OpBuilder p(b.getContext(), &recorder);
      for (auto [i, copy] : llvm::enumerate(group)) {
        if (copy->isBeforeInBlock(pipelined))
          p.setInsertionPoint(fills);
        else
          p.setInsertionPoint(getCopiesEnd(producerBody));
        if (tiles) {
          // Fill i of tile n waits for the release of fill i - 1 of tile n
          // (phase n: parity n mod 2), the first for that of the last fill
          // of tile n - 1 (phase n - 1; parity 1 of a fresh barrier counts
          // as completed: tile 0 does not wait).
          Value n = getTileIteration(p, loc, producerTiles);
          if (i == 0)
            n = arith::AddIOp::create(p, loc, n, index(p, loc, 1));
          Value parity = arith::RemUIOp::create(p, loc, n, index(p, loc, 2));
          BarrierWaitOp::create(p, loc, released[(i + count - 1) % count],
                                index(p, loc, 0), parity)
              .setIssuer(true);
        }
        Value zero = index(p, loc, 0);
        auto issued = cast<CopyOp>(p.clone(*copy));
        issued.setAsync(true);
        issued.getBarriersMutable().assign(full[i]);
        issued.getBarrierIndexMutable().assign(zero);
        issued.removeEngineAttr();
      }
      if (failed(recomputeProducerOperands(producer, tiles))) {
        for (Operation *op : llvm::reverse(recorder.ops))
          op->erase();
        for (Value barrier : llvm::concat<Value>(full, released))
          barrier.getDefiningOp()->erase();
        continue;
      }
      b.setInsertionPoint(producer);
      for (size_t i = 0; i < count; ++i) {
        BarrierInitOp::create(b, loc, full[i], 1);
        if (tiles)
          BarrierInitOp::create(b, loc, released[i],
                                kernel.getNumThreads() /
                                    getWarpSize(TargetKind::CUDA, ""));
      }

      // The consumers' side: the wait where each copy was; with tiles, the
      // release once its last use is done (and gemms reading the tile).
      for (auto [i, copy] : llvm::enumerate(group)) {
        b.setInsertionPoint(copy);
        Value zero = index(b, loc, 0);
        Value parity = tiles ? arith::RemUIOp::create(
                                   b, loc, getTileIteration(b, loc, tiles),
                                   index(b, loc, 2))
                                   .getResult()
                             : zero;
        BarrierWaitOp::create(b, loc, full[i], zero, parity, UnitAttr());
        if (tiles) {
          b.setInsertionPointAfter(lastUses[i]);
          if (readByGemm[i])
            GemmWaitOp::create(b, loc, 0);
          BarrierArriveOp::create(b, loc, released[i], index(b, loc, 0));
        }
        copy.erase();
      }
    }
  }
};

} // namespace
