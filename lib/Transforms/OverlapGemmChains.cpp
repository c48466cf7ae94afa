//===- OverlapGemmChains.cpp - Softmax under the previous tile's P V ------===//
//
// Part of TileLang-MLIR.
//
// tile-overlap-gemm-chains: a pipelined loop whose body chains two wgmma
// gemms (S = Q K^T, then O += P V with P from registers) is rotated so that
// each iteration issues its S together with the previous iteration's P V and
// computes its softmax while the tensor cores work (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEOVERLAPGEMMCHAINS
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The tiles an op reads and writes (at any depth), by allocation: the
/// value under every view. `unknown` when an effect names no value or the
/// op says nothing of its effects.
struct Accesses {
  llvm::SmallPtrSet<Value, 8> reads, writes;
  bool unknown = false;
  bool inFlightWork = false; // Touches the tensor cores' async work.

  bool touches(Value tile) const {
    return reads.contains(tile) || writes.contains(tile);
  }
  /// Whether running this and `other` in the other order may change what
  /// either computes.
  bool conflictsWith(const Accesses &other) const {
    if (unknown || other.unknown)
      return true;
    auto meets = [](const llvm::SmallPtrSet<Value, 8> &a,
                    const llvm::SmallPtrSet<Value, 8> &b) {
      return llvm::any_of(a, [&](Value v) { return b.contains(v); });
    };
    return meets(writes, other.reads) || meets(writes, other.writes) ||
           meets(reads, other.writes);
  }
};

Value getAllocation(Value memref) {
  return memref::skipViewLikeOps(cast<TypedValue<MemRefType>>(memref));
}

Accesses collectAccesses(Operation *top) {
  Accesses accesses;
  top->walk([&](Operation *op) {
    if (op->hasTrait<mlir::OpTrait::HasRecursiveMemoryEffects>())
      return; // Its nested ops are walked too.
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface) {
      accesses.unknown = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      SideEffects::Resource *resource = effect.getResource();
      if (isa<HintResource>(resource))
        continue; // Layout annotations.
      if (isa<TensorCoreResource>(resource)) {
        accesses.inFlightWork = true;
        continue;
      }
      Value value = effect.getValue();
      if (!value || !isa<MemRefType>(value.getType())) {
        if (!isa<MemoryEffects::Allocate, MemoryEffects::Free>(
                effect.getEffect()))
          accesses.unknown = true;
        continue;
      }
      Value tile = getAllocation(value);
      if (isa<MemoryEffects::Read>(effect.getEffect()))
        accesses.reads.insert(tile);
      else if (isa<MemoryEffects::Write>(effect.getEffect()))
        accesses.writes.insert(tile);
    }
  });
  return accesses;
}

bool isOnChip(Value tile) {
  Operation *def = tile.getDefiningOp();
  return def && isa<AllocSharedOp, AllocFragmentOp, AllocLocalOp>(def);
}

/// The shared tile that `op` fills whole from global memory, if it is such
/// a copy (the copies tile-plan-pipelines stages).
Value getFilledSharedTile(Operation *op) {
  auto copy = dyn_cast<CopyOp>(op);
  if (!copy || !copy.getDstOffsets().empty() ||
      isOnChip(getAllocation(copy.getSrc())))
    return {};
  Value tile = getAllocation(copy.getDst());
  return isa_and_nonnull<AllocSharedOp>(tile.getDefiningOp()) ? tile : Value();
}

bool isWgmma(GemmOp gemm) {
  GemmInstructionAttr instruction = gemm.getInstructionAttr();
  return instruction &&
         instruction.getKind() == GemmInstructionKind::Wgmma &&
         gemm.getWgWait() == 0;
}

/// 32-bit registers per thread that a fragment of `threads` threads takes.
int64_t registersPerThread(Value fragment, int64_t threads) {
  auto type = cast<MemRefType>(fragment.getType());
  int64_t bits = type.getNumElements() * type.getElementTypeBitWidth();
  return llvm::divideCeil(bits, 32 * threads);
}

/// One loop's rotation: what the checks found, then the rewrite.
class Rotation {
public:
  Rotation(PipelinedOp loop, bool remarks) : loop(loop), remarks(remarks) {}

  /// Whether the loop has the shape and the freedoms the rotation needs;
  /// why not in a remark with `remarks`.
  bool analyze(int64_t maxRegisters);
  void rewrite();

private:
  bool refuse(const Twine &why) {
    if (remarks)
      loop.emitRemark("gemm chain not overlapped: ") << why;
    return false;
  }
  bool fitsSharedMemory();
  Value cloneCopyOfV(OpBuilder &b, Value iv, Value tile);

  PipelinedOp loop;
  bool remarks;
  GemmOp first, second;
  CopyOp copyOfV;
  Value tileS, tileP, tileO, tileV, tileK;
  /// Side-effect-free top-level ops, in order (they move to the front).
  SmallVector<Operation *> pure;
  /// The other top-level ops before the first gemm, between the gemms
  /// (without the copy of V) and after the second, in order.
  SmallVector<Operation *> pre, mid, post;
  /// `mid` split: the ops that touch O or P, and the rest.
  SmallVector<Operation *> deferred, kept;
};

bool Rotation::analyze(int64_t maxRegisters) {
  if (loop.getOrder() || loop.getStage())
    return refuse("its schedule is fixed by hand");
  if (!matchPattern(loop.getStep(), m_One()))
    return refuse("its step is not 1");
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  if (!lb || *lb < 0)
    return refuse("its lower bound is not a constant >= 0 (the first "
                  "iteration's copies run before its guard)");
  Block &body = loop.getBody().front();
  SmallVector<GemmOp> gemms;
  loop.walk([&](GemmOp gemm) { gemms.push_back(gemm); });
  if (gemms.size() != 2)
    return refuse("it has " + Twine(gemms.size()) + " gemms, not 2");
  first = gemms[0];
  second = gemms[1];
  if (first->getBlock() != &body || second->getBlock() != &body)
    return refuse("a gemm is nested in another op");
  if (!isWgmma(first) || !isWgmma(second))
    return refuse("a gemm is not a synchronous wgmma");
  if (!second.getInstructionAttr().getRegisterA())
    return refuse("the second gemm reads A from shared memory");
  tileS = getAllocation(first.getC());
  tileP = getAllocation(second.getA());
  tileO = getAllocation(second.getC());
  tileV = getAllocation(second.getB());
  tileK = getAllocation(first.getB());
  for (Value tile : {tileS, tileP, tileO, tileV, tileK})
    if (!isOnChip(tile) || loop->isAncestor(tile.getDefiningOp()))
      return refuse("a gemm operand is not a tile allocated before the loop");
  if (llvm::SmallPtrSet<Value, 4>({tileS, tileP, tileO, tileV}).size() != 4)
    return refuse("S, P, O and V are not four distinct tiles");

  // Sort the body; record each op's accesses.
  llvm::DenseMap<Operation *, Accesses> accesses;
  SmallVector<Operation *> *part = &pre;
  for (Operation &op : body.without_terminator()) {
    if (&op == first) {
      part = &mid;
      continue;
    }
    if (&op == second) {
      part = &post;
      continue;
    }
    if (isPure(&op) && op.getNumRegions() == 0) {
      for (Value operand : op.getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && def->getBlock() == &body && !llvm::is_contained(pure, def))
          return refuse("a side-effect-free op uses a value the body's "
                        "other ops compute");
      }
      pure.push_back(&op);
      continue;
    }
    if (llvm::any_of(op.getResults(),
                     [](Value result) { return !result.use_empty(); }))
      return refuse("an op with effects has results that are used");
    Accesses found = collectAccesses(&op);
    if (found.unknown)
      return refuse("an op has effects on unknown memory");
    if (found.inFlightWork)
      return refuse("the body waits for tensor-core work itself");
    if (llvm::any_of(found.writes, [](Value tile) { return !isOnChip(tile); }))
      return refuse("the body writes global memory");
    if (found.writes.contains(tileV)) {
      if (copyOfV || getFilledSharedTile(&op) != tileV)
        return refuse("V is written by more than one whole-tile copy from "
                      "global memory");
      copyOfV = cast<CopyOp>(op);
      continue;
    }
    accesses[&op] = std::move(found);
    part->push_back(&op);
  }
  if (!copyOfV)
    return refuse("no copy fills the second gemm's B");
  if (!copyOfV->isBeforeInBlock(second))
    return refuse("V is filled after the second gemm");
  for (OpOperand &use : tileV.getUses())
    if (loop->isAncestor(use.getOwner()) && use.getOwner() != copyOfV &&
        use.getOwner() != second)
      return refuse("V has other uses in the loop");
  // The copy of V moves to the next iteration: its offsets may depend on the
  // induction variable only through side-effect-free ops.
  for (Value operand : copyOfV->getOperands()) {
    Operation *def = operand.getDefiningOp();
    if (def && def->getBlock() == &body && !llvm::is_contained(pure, def))
      return refuse("the copy of V uses a value the body's ops compute");
  }

  // pre, the first gemm and post run while P V of another iteration is in
  // flight or before it: they must leave O and P alone; the first gemm must
  // not read what the second writes.
  Accesses firstAccesses = collectAccesses(first);
  for (Value tile : {tileO, tileP})
    if (firstAccesses.touches(tile))
      return refuse("the first gemm touches O or P");
  for (Operation *op : llvm::concat<Operation *>(pre, post))
    if (accesses[op].touches(tileO) || accesses[op].touches(tileP))
      return refuse("an op before the first gemm or after the second touches "
                    "O or P");
  for (Operation *op : mid)
    (accesses[op].touches(tileO) || accesses[op].touches(tileP) ? deferred
                                                                 : kept)
        .push_back(op);
  // kept and post move above the deferred ops that came before them.
  for (Operation *d : deferred)
    for (Operation *r : llvm::concat<Operation *>(kept, post))
      if (d->isBeforeInBlock(r) && accesses[d].conflictsWith(accesses[r]))
        return refuse("an op that touches O or P conflicts with a later op");
  // S is read by the softmax while P V of the previous tile is in flight;
  // its registers, P's and O's are live together.
  int64_t threads = loop->getParentOfType<KernelOp>().getNumThreads();
  int64_t registers = registersPerThread(tileS, threads) +
                      registersPerThread(tileP, threads) +
                      registersPerThread(tileO, threads);
  if (registers > maxRegisters)
    return refuse("S, P and O take " + Twine(registers) +
                  " registers per thread, over " + Twine(maxRegisters));
  return fitsSharedMemory();
}

bool Rotation::fitsSharedMemory() {
  int64_t limit = getMaxSharedMemoryPerBlock(getTargetAttr(loop));
  if (!limit)
    return true;
  // The kernel's shared tiles as if none shared bytes (an upper bound), the
  // loop's copied tiles with a buffer per stage (the planner's), K's own
  // tile besides (the first iteration's K and the last V keep it), and room
  // for barriers.
  llvm::SmallPtrSet<Value, 4> staged;
  for (Operation &op : loop.getBody().front())
    if (Value tile = getFilledSharedTile(&op))
      staged.insert(tile);
  int64_t total = 1024;
  auto kernel = loop->getParentOfType<KernelOp>();
  kernel.walk([&](AllocSharedOp alloc) {
    int64_t bytes = getTileSizeInBytes(alloc.getType());
    total += bytes * (staged.contains(alloc) ? loop.getNumStages() : 1);
    if (alloc.getResult() == tileK)
      total += bytes;
  });
  if (total > limit)
    return refuse("the shared tiles would need up to " + Twine(total) +
                  " bytes, over the " + Twine(limit) + " a block may use");
  return true;
}

/// A clone of the copy of V for iteration `iv`, into `tile`, with the
/// side-effect-free ops computing its offsets.
Value Rotation::cloneCopyOfV(OpBuilder &b, Value iv, Value tile) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  llvm::SmallPtrSet<Operation *, 8> slice = {copyOfV};
  for (Operation *op : llvm::reverse(pure))
    if (llvm::any_of(op->getUsers(),
                     [&](Operation *user) { return slice.contains(user); }))
      slice.insert(op);
  for (Operation *op : pure)
    if (slice.contains(op))
      b.clone(*op, mapping);
  auto copy = cast<CopyOp>(b.clone(*copyOfV, mapping));
  copy.getDstMutable().assign(tile);
  return copy.getDst();
}

void Rotation::rewrite() {
  Location loc = loop.getLoc();
  Block &body = loop.getBody().front();
  Value iv = loop.getInductionVar();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  OpBuilder b(loop);

  // Whether the loop runs at least once: known for constant bounds, else a
  // guard around the first iteration and the last P V. (Their copies run
  // regardless: lb >= 0, and reads past a global edge read zeros.)
  std::optional<int64_t> ubConst = getConstantIntValue(ub);
  bool runs = ubConst && *getConstantIntValue(lb) < *ubConst;
  Value nonEmpty;
  if (!runs)
    nonEmpty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub);
  auto guarded = [&](OpBuilder &outer, auto build) {
    if (runs) {
      build(outer);
      return;
    }
    auto ifOp = scf::IfOp::create(outer, loc, nonEmpty, /*withElse=*/false);
    OpBuilder inner(ifOp.thenBlock()->getTerminator());
    build(inner);
  };

  // Iteration lb, without its P V: its copies into shared tiles first,
  // outside the guard, then the rest in order.
  IRMapping firstIteration;
  firstIteration.map(iv, lb);
  for (Operation *op : pure)
    b.clone(*op, firstIteration);
  SmallVector<Operation *> firstOps;
  for (Operation &op : body.without_terminator())
    if (&op != second && &op != copyOfV && !llvm::is_contained(pure, &op))
      firstOps.push_back(&op);
  // (A copy goes first only when no op before it touches its tile.)
  llvm::SmallPtrSet<Operation *, 4> early;
  for (auto [i, op] : llvm::enumerate(firstOps)) {
    Value tile = getFilledSharedTile(op);
    if (!tile)
      continue;
    if (llvm::none_of(ArrayRef(firstOps).take_front(i), [&](Operation *other) {
          return collectAccesses(other).touches(tile);
        }))
      early.insert(op);
  }
  for (Operation *op : firstOps)
    if (early.contains(op))
      b.clone(*op, firstIteration);
  guarded(b, [&](OpBuilder &inner) {
    for (Operation *op : firstOps)
      if (!early.contains(op))
        inner.clone(*op, firstIteration);
  });

  // The loop from lb + 1: pure ops, pre, the copy of V_{k-1}, both gemms in
  // flight, the softmax, then what touches O or P.
  OpBuilder atLoop(loop);
  Value one = arith::ConstantIndexOp::create(atLoop, loc, 1);
  loop.getLowerBoundMutable().assign(
      atLoop.createOrFold<arith::AddIOp>(loc, lb, one));
  Operation *terminator = body.getTerminator();
  for (Operation *op : pure)
    op->moveBefore(terminator);
  for (Operation *op : pre)
    op->moveBefore(terminator);
  OpBuilder inBody(terminator);
  Value previous = arith::SubIOp::create(inBody, loc, iv, one);
  cloneCopyOfV(inBody, previous, copyOfV.getDst());
  first->moveBefore(terminator);
  second->moveBefore(terminator);
  first.setWgWait(-1);
  second.setWgWait(-1);
  GemmWaitOp::create(inBody, loc, /*pending=*/1);
  for (Operation *op : llvm::concat<Operation *>(kept, post))
    op->moveBefore(terminator);
  GemmWaitOp::create(inBody, loc, /*pending=*/0);
  for (Operation *op : deferred)
    op->moveBefore(terminator);

  // The last P V after the loop, its V in the first gemm's B tile when the
  // types agree (that tile is dead by then).
  OpBuilder after(loop->getContext());
  after.setInsertionPointAfter(loop);
  Value last = after.createOrFold<arith::SubIOp>(loc, ub, one);
  if (!runs)
    last = arith::MaxSIOp::create(after, loc, last, lb);
  Value lastTile = second.getB();
  if (first.getB().getType() == lastTile.getType() &&
      getAllocation(first.getB()) == first.getB())
    lastTile = first.getB();
  Value lastV = cloneCopyOfV(after, last, lastTile);
  guarded(after, [&](OpBuilder &inner) {
    auto gemm = cast<GemmOp>(inner.clone(*second));
    gemm.setWgWait(0);
    gemm.getBMutable().assign(lastV);
  });
  copyOfV->erase();
}

struct TileOverlapGemmChainsPass
    : public tile::impl::TileOverlapGemmChainsBase<TileOverlapGemmChainsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<PipelinedOp> loops;
    getOperation().walk([&](PipelinedOp loop) { loops.push_back(loop); });
    for (PipelinedOp loop : loops) {
      Rotation rotation(loop, remarks);
      if (rotation.analyze(maxRegisters))
        rotation.rewrite();
    }
  }
};

} // namespace
