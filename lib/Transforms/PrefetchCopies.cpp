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

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

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
/// global memory, synchronously, directly in that body.
bool isPrefetchable(CopyOp copy, KernelOp kernel) {
  auto alloc = copy.getDst().getDefiningOp<AllocSharedOp>();
  return copy->getParentOp() == kernel && !copy.getAsync() &&
         !copy.getBarriers() && isGlobalBuffer(copy.getSrc()) &&
         copy.getDstOffsets().empty() && alloc &&
         alloc->getParentOp() == kernel &&
         copy.getSrc().getType().getElementType() ==
             copy.getDst().getType().getElementType();
}

/// True when `op` or anything nested in it uses `value`.
bool usesValue(Operation *op, Value value) {
  return llvm::any_of(value.getUsers(),
                      [&](Operation *user) { return op->isAncestor(user); });
}

/// Where `copy` may be issued: right before the earliest of the body's ops
/// above it that neither uses its tile, nor may write global memory, nor is
/// the producer or an allocation (the kernel's allocations stay first),
/// nor defines one of its operands (unless side-effect free: such an op
/// moves up with the copy, into `operands`, in order).
Operation *findIssuePoint(CopyOp copy, SmallVectorImpl<Operation *> &operands) {
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
        usesValue(prev, copy.getDst()) ||
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
  }

  void prefetch(KernelOp kernel) {
    Block &body = kernel.getBody().front();
    SmallVector<CopyOp> copies;
    for (auto copy : body.getOps<CopyOp>())
      if (isPrefetchable(copy, kernel))
        copies.push_back(copy);
    auto producers = body.getOps<ProducerOp>();
    Operation *producer =
        producers.empty() ? nullptr : (*producers.begin()).getOperation();
    // A producer runs beside everything after it: its writes to global
    // memory would be unordered with an earlier read.
    if (producer && mayWriteGlobalMemory(producer, /*barriersOnlyOrder=*/true))
      return;
    for (CopyOp copy : copies) {
      SmallVector<Operation *> operands;
      Operation *point = findIssuePoint(copy, operands);
      if (point == copy || !crossesLoop(point, copy))
        continue;
      Location loc = copy.getLoc();
      OpBuilder b(&body, body.begin());
      // A barrier of its own, initialized where every thread runs (before
      // the producer splits them).
      auto barrierType = MemRefType::get(
          {1}, b.getI64Type(), MemRefLayoutAttrInterface(),
          MemorySpaceAttr::get(b.getContext(), MemorySpace::Shared));
      Value barrier =
          AllocSharedOp::create(b, loc, barrierType, Attribute()).getResult();
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
      b.setInsertionPoint(copy);
      BarrierWaitOp::create(b, loc, barrier, zero, zero, UnitAttr());
      copy.erase();
    }
  }
};

} // namespace
