//===- RegisterFragments.cpp - Fragments in per-thread registers ---------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/RegisterFragments.h"

#include "TileLang/Conversion/TileLowering.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Bytes of registers one fragment may take in each thread.
constexpr int64_t kMaxRegisterBytes = 512;
/// Lanes that xor shuffles reach.
constexpr int64_t kShuffleLanes = 32;

using TableOf = function_ref<const FragmentTable *(Value)>;

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

bool isOnChip(Value buffer) {
  std::optional<MemorySpace> space =
      getMemorySpace(cast<MemRefType>(buffer.getType()));
  return space && *space != MemorySpace::Local;
}

/// Emits `expr`, a mixed-radix expression of dimension 0 (fitMixedRadix:
/// sums of products by constants, floordiv and mod by positive constants),
/// of the non-negative `value` with unsigned arithmetic.
Value emitMixedRadix(OpBuilder &b, Location loc, AffineExpr expr,
                     Value value) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return indexConstant(b, loc, constant.getValue());
  if (isa<AffineDimExpr>(expr))
    return value;
  auto binary = cast<AffineBinaryOpExpr>(expr);
  Value lhs = emitMixedRadix(b, loc, binary.getLHS(), value);
  Value rhs = emitMixedRadix(b, loc, binary.getRHS(), value);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return b.createOrFold<arith::AddIOp>(loc, lhs, rhs);
  case AffineExprKind::Mul:
    return b.createOrFold<arith::MulIOp>(loc, lhs, rhs);
  case AffineExprKind::FloorDiv:
    return b.createOrFold<arith::DivUIOp>(loc, lhs, rhs);
  case AffineExprKind::Mod:
    return b.createOrFold<arith::RemUIOp>(loc, lhs, rhs);
  default:
    llvm_unreachable("not a binary affine expression");
  }
}

/// The slots of a copy between two register fragments: for each slot of
/// `dst`, the slot of `src` that holds the same element in the same thread;
/// failure when some thread does not hold it or the slot depends on the
/// thread.
FailureOr<SmallVector<int64_t>> getCopySlots(const FragmentTable &src,
                                             const FragmentTable &dst) {
  if (src.getShape() != dst.getShape() ||
      src.getNumThreads() != dst.getNumThreads())
    return failure();
  SmallVector<int64_t> slots;
  for (int64_t s = 0; s < dst.getNumSlots(); ++s) {
    int64_t from = src.getSlot(dst.getElement(0, s));
    for (int64_t t = 0; t < dst.getNumThreads(); ++t) {
      int64_t e = dst.getElement(t, s);
      if (!src.holds(t, e) || src.getSlot(e) != from)
        return failure();
    }
    slots.push_back(from);
  }
  return slots;
}

/// The thread parts of `table`'s coordinates for thread `tid`.
SmallVector<Value> emitThreadParts(OpBuilder &b, Location loc,
                                   const FragmentTable &table, Value tid) {
  SmallVector<Value> parts;
  for (int64_t d = 0, e = table.getShape().size(); d < e; ++d)
    parts.push_back(emitMixedRadix(b, loc, table.getThreadPart(d), tid));
  return parts;
}

/// The coordinates of slot `s` from the thread parts.
SmallVector<Value> emitCoords(OpBuilder &b, Location loc,
                              const FragmentTable &table, ValueRange parts,
                              int64_t s) {
  SmallVector<Value> coords;
  for (auto [d, part] : llvm::enumerate(parts))
    coords.push_back(b.createOrFold<arith::AddIOp>(
        loc, part, indexConstant(b, loc, table.getSlotPart(d, s))));
  return coords;
}

/// Elements per vector access when a thread's slots come in runs of that
/// many consecutive innermost coordinates (slots s to s + V - 1 for s a
/// multiple of V), each run starting on a multiple of V in every thread, and
/// V elements of `memory` fit in 16 bytes that its swizzle moves as a unit;
/// 1 when there is no such V > 1.
int64_t getRegisterVectorWidth(const FragmentTable &table, Value memory) {
  auto type = cast<MemRefType>(memory.getType());
  int64_t bits = type.getElementTypeBitWidth();
  if (bits % 8)
    return 1;
  int64_t last = table.getShape().size() - 1;
  SwizzleAttr swizzle = getTileSwizzle(memory);
  for (int64_t width = 16 / (bits / 8); width > 1; width /= 2) {
    if (table.getNumSlots() % width ||
        (swizzle && (int64_t(1) << swizzle.getBase()) % width))
      continue;
    bool runs = true;
    for (int64_t s = 0; s < table.getNumSlots() && runs; s += width) {
      for (int64_t k = 1; k < width && runs; ++k)
        for (int64_t d = 0; d <= last && runs; ++d)
          runs = table.getSlotPart(d, s + k) ==
                 table.getSlotPart(d, s) + (d == last ? k : 0);
      for (int64_t t = 0; t < table.getNumThreads() && runs; ++t)
        runs = table.getCoords(table.getElement(t, s))[last] % width == 0;
    }
    if (runs)
      return width;
  }
  return 1;
}

/// The thread id bits in which the replicas of `table`'s elements differ,
/// when every element's holders are its lowest holder with any combination
/// of those bits set (so thread t holds only first replicas iff
/// (t & mask) == 0); 0 when nothing is replicated or the replicas follow
/// another pattern.
int64_t getReplicaMask(const FragmentTable &table) {
  SmallVector<int64_t> first(table.getNumElements(), -1);
  int64_t mask = 0;
  for (int64_t t = 0; t < table.getNumThreads(); ++t)
    for (int64_t s = 0; s < table.getNumSlots(); ++s) {
      int64_t &holder = first[table.getElement(t, s)];
      if (holder < 0)
        holder = t;
      mask |= t ^ holder;
    }
  for (int64_t t = 0; t < table.getNumThreads(); ++t)
    for (int64_t s = 0; s < table.getNumSlots(); ++s)
      if (first[table.getElement(t, s)] != (t & ~mask))
        return 0;
  return mask;
}

//===----------------------------------------------------------------------===//
// Plans: the slots each op reads and writes, or why it cannot
//===----------------------------------------------------------------------===//

/// A tile.parallel on register fragments: it runs once per slot of its
/// loop fragment (the first fragment it accesses at exactly its own
/// coordinates; failing that, one it accesses at its coordinates plus
/// constants, as `acc[i + 32, j]`), and every access to a register fragment
/// reads or writes a slot fixed at compile time.
struct ParallelPlan {
  Value loop;
  /// Per loop dimension, what the loop fragment's coordinates add to the
  /// loop's: the element at `q` stands for the loop point `q - shift`.
  SmallVector<int64_t> shift;
  /// Per slot of the loop fragment, whether every thread's element there
  /// stands for a point of the loop (Every), some do (Some: the others are
  /// skipped at run time) or none (None: the slot is not emitted).
  enum class Runs { Every, Some, None };
  SmallVector<Runs> runs;
  /// Per access op, its slot for each slot of the loop fragment.
  llvm::MapVector<Operation *, SmallVector<int64_t>> slots;
  /// Register fragments with an access that cannot be planned.
  llvm::DenseSet<Value> failed;
};

/// The fragment a memref.load / memref.store accesses, or null.
Value getAccessed(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return load.getMemRef();
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return store.getMemRef();
  return {};
}

ValueRange getAccessIndices(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return load.getIndices();
  return cast<memref::StoreOp>(op).getIndices();
}

/// An access index that is loop coordinate `position` plus `offset`.
struct ShiftedCoord {
  int64_t position;
  int64_t offset;
};

/// `index` as a loop coordinate plus a constant (`i`, `i + c`, `c + i`,
/// `i - c`), or nothing.
std::optional<ShiftedCoord> matchShiftedCoord(Value index, ValueRange coords) {
  auto position = [&](Value v) -> std::optional<int64_t> {
    auto it = llvm::find(coords, v);
    if (it == coords.end())
      return std::nullopt;
    return it - coords.begin();
  };
  if (std::optional<int64_t> p = position(index))
    return ShiftedCoord{*p, 0};
  Operation *def = index.getDefiningOp();
  if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def))
    return std::nullopt;
  Value lhs = def->getOperand(0), rhs = def->getOperand(1);
  std::optional<int64_t> p = position(lhs), c = getConstantIntValue(rhs);
  if (isa<arith::AddIOp>(def) && !(p && c)) {
    p = position(rhs);
    c = getConstantIntValue(lhs);
  }
  if (!p || !c)
    return std::nullopt;
  return ShiftedCoord{*p, isa<arith::SubIOp>(def) ? -*c : *c};
}

/// Every index of `access` as matchShiftedCoord, or nothing.
std::optional<SmallVector<ShiftedCoord>> matchAccess(Operation *access,
                                                     ValueRange coords) {
  SmallVector<ShiftedCoord> at;
  for (Value index : getAccessIndices(access)) {
    std::optional<ShiftedCoord> coord = matchShiftedCoord(index, coords);
    if (!coord)
      return std::nullopt;
    at.push_back(*coord);
  }
  return at;
}

bool isInside(ArrayRef<int64_t> point, ArrayRef<int64_t> shape) {
  for (auto [x, extent] : llvm::zip_equal(point, shape))
    if (x < 0 || x >= extent)
      return false;
  return true;
}

/// The loop point that element `e` of the loop fragment `loop` stands for.
SmallVector<int64_t> getLoopPoint(const FragmentTable &loop, int64_t e,
                                  ArrayRef<int64_t> shift) {
  SmallVector<int64_t> point = loop.getCoords(e);
  for (auto [x, d] : llvm::zip_equal(point, shift))
    x -= d;
  return point;
}

/// The slots of `access` (of fragment `table`) per slot of `loop`, when
/// every thread visiting a point of the loop (`extents`; the loop
/// fragment's element at q stands for the point q - `shift`) holds the
/// accessed element at one slot fixed per loop slot (and, for a store,
/// every thread holding it visits it).
FailureOr<SmallVector<int64_t>>
planAccess(Operation *access, ValueRange coords, const FragmentTable &loop,
           ArrayRef<int64_t> shift, ArrayRef<int64_t> extents,
           const FragmentTable &table) {
  std::optional<SmallVector<ShiftedCoord>> at = matchAccess(access, coords);
  if (!at)
    return failure();
  bool store = isa<memref::StoreOp>(access);
  if (store && at->size() != coords.size())
    return failure();
  SmallVector<int64_t> slots;
  for (int64_t s = 0; s < loop.getNumSlots(); ++s) {
    int64_t slot = -1;
    for (int64_t t = 0; t < loop.getNumThreads(); ++t) {
      int64_t visited = loop.getElement(t, s);
      SmallVector<int64_t> point = getLoopPoint(loop, visited, shift);
      if (!isInside(point, extents))
        continue; // Skipped: it stands for no point of the loop.
      SmallVector<int64_t> coordsOfAccess;
      for (ShiftedCoord coord : *at)
        coordsOfAccess.push_back(point[coord.position] + coord.offset);
      if (!isInside(coordsOfAccess, table.getShape()))
        return failure();
      int64_t e = table.getLinear(coordsOfAccess);
      if (!table.holds(t, e) || (slot >= 0 && table.getSlot(e) != slot) ||
          (store && table.getNumHolders(e) != loop.getNumHolders(visited)))
        return failure();
      slot = table.getSlot(e);
    }
    slots.push_back(std::max<int64_t>(slot, 0)); // A slot no thread runs.
  }
  return slots;
}

/// Folds the memory-effect-free ops `slice` (in order) at the constant
/// values `known` holds for the values they read from elsewhere (adding
/// each op's); the attribute of `result`, or null when some op does not
/// fold to one.
Attribute evaluate(ArrayRef<Operation *> slice,
                   DenseMap<Value, Attribute> &known, Value result) {
  auto valueOf = [&](Value v) -> Attribute {
    if (Attribute attr = known.lookup(v))
      return attr;
    Attribute attr;
    return matchPattern(v, m_Constant(&attr)) ? attr : Attribute();
  };
  for (Operation *op : slice) {
    SmallVector<Attribute> operands;
    for (Value operand : op->getOperands()) {
      operands.push_back(valueOf(operand));
      if (!operands.back())
        return {};
    }
    SmallVector<OpFoldResult> results;
    if (op->getNumResults() != 1 || failed(op->fold(operands, results)) ||
        results.size() != 1)
      return {};
    Attribute folded = dyn_cast<Attribute>(results.front());
    if (!folded)
      folded = valueOf(cast<Value>(results.front()));
    if (!folded)
      return {};
    known[op->getResult(0)] = folded;
  }
  return valueOf(result);
}

/// The scf.if without results or else that ends `body` (a tile.parallel's),
/// when only loads and ops without regions or memory effects come before
/// it: it holds every write of the body. Null otherwise.
scf::IfOp getFinalGuard(Block &body) {
  auto guard = dyn_cast_or_null<scf::IfOp>(body.getTerminator()->getPrevNode());
  if (!guard || guard.getNumResults() || !guard.getElseRegion().empty())
    return {};
  for (Operation &inner : body.without_terminator())
    if (&inner != guard && !isa<memref::LoadOp>(inner) &&
        (inner.getNumRegions() || !isMemoryEffectFree(&inner)))
      return {};
  return guard;
}

/// Points of the parallel loop examined at most when proving that those a
/// shifted loop fragment does not cover do nothing.
constexpr int64_t kMaxProvedPoints = int64_t(1) << 16;

/// Whether the body of `op` does nothing at every loop point p for which
/// p + `shift` is outside `shape` (the loop fragment's elements cover the
/// others): trivially when there is no such point; otherwise the body must
/// end in an scf.if without else that holds every write, before which only
/// loads and memory-effect-free ops run, and whose condition, a function of
/// the loop coordinates and constants, is false at each such point (checked
/// point by point over the coordinates the condition reads; TileLang's
/// `if i < BS // 2: ... acc[i + s * (BS // 2), j]`).
bool skipsUncovered(ParallelOp op, ArrayRef<int64_t> shift,
                    ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> extents = op.getExtents();
  SmallVector<int64_t> uncovered;
  for (int64_t d = 0, e = extents.size(); d < e; ++d)
    if (shift[d] < 0 || extents[d] + shift[d] > shape[d])
      uncovered.push_back(d);
  if (uncovered.empty())
    return true;
  Block &body = op.getBody().front();
  scf::IfOp guard = getFinalGuard(body);
  if (!guard)
    return false;
  // The condition's ops in the body, and the coordinates it reads.
  llvm::SetVector<Operation *> slice;
  llvm::SmallSetVector<int64_t, 4> dims;
  SmallVector<Value> worklist = {guard.getCondition()};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() != &body)
        return false;
      dims.insert(arg.getArgNumber());
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (def->getBlock() != &body) {
      if (!matchPattern(value, m_Constant()))
        return false; // A value of the run time.
      continue;
    }
    if (def->getNumRegions() || !isMemoryEffectFree(def))
      return false;
    if (slice.insert(def))
      llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered = slice.takeVector();
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  int64_t points = 1;
  for (int64_t d : dims)
    points *= extents[d];
  if (points > kMaxProvedPoints ||
      llvm::any_of(uncovered, [&](int64_t d) { return !dims.contains(d); }))
    return false;
  Builder b(op.getContext());
  SmallVector<int64_t> point(dims.size(), 0);
  for (int64_t n = 0; n < points; ++n) {
    DenseMap<Value, Attribute> known;
    for (auto [k, d] : llvm::enumerate(dims)) {
      BlockArgument arg = body.getArgument(d);
      known[arg] = b.getIntegerAttr(arg.getType(), point[k]);
    }
    auto taken = dyn_cast_or_null<IntegerAttr>(
        evaluate(ordered, known, guard.getCondition()));
    if (!taken)
      return false;
    if (!taken.getValue().isZero())
      for (auto [k, d] : llvm::enumerate(dims))
        if (point[k] + shift[d] < 0 || point[k] + shift[d] >= shape[d])
          return false;
    // The next point, the last coordinate fastest.
    for (int64_t k = dims.size() - 1; k >= 0; --k) {
      if (++point[k] < extents[dims[k]])
        break;
      point[k] = 0;
    }
  }
  return true;
}

ParallelPlan planParallel(ParallelOp op, TableOf tableOf) {
  ParallelPlan plan;
  ValueRange coords = op.getBody().front().getArguments();
  ArrayRef<int64_t> extents = op.getExtents();
  SmallVector<Operation *> accesses;
  bool nestedTileOps = false;
  op.getBody().walk([&](Operation *inner) {
    if (isa<TileDialect>(inner->getDialect()) && !isa<YieldOp>(inner))
      nestedTileOps = true;
    for (OpOperand &operand : inner->getOpOperands()) {
      if (!tableOf(operand.get()))
        continue;
      bool isAccess = getAccessed(inner) == operand.get() &&
                      inner->getParentOfType<ParallelOp>() == op;
      if (isAccess)
        accesses.push_back(inner);
      else
        plan.failed.insert(operand.get());
    }
  });
  plan.shift.assign(coords.size(), 0);
  for (Operation *access : accesses) {
    Value fragment = getAccessed(access);
    if (!plan.loop && !nestedTileOps &&
        llvm::equal(getAccessIndices(access), coords) &&
        cast<MemRefType>(fragment.getType()).getShape() == extents)
      plan.loop = fragment;
  }
  // Else a fragment read or written at the loop's coordinates in order
  // plus constants, whose elements cover every point of the loop that does
  // something.
  if (!plan.loop && !nestedTileOps &&
      !llvm::any_of(extents, ShapedType::isDynamic)) {
    for (Operation *access : accesses) {
      Value fragment = getAccessed(access);
      std::optional<SmallVector<ShiftedCoord>> at = matchAccess(access, coords);
      if (!at || at->size() != coords.size())
        continue;
      SmallVector<int64_t> shift;
      for (auto [d, coord] : llvm::enumerate(*at))
        if (coord.position == static_cast<int64_t>(d))
          shift.push_back(coord.offset);
      if (shift.size() != coords.size() ||
          !skipsUncovered(op, shift,
                          cast<MemRefType>(fragment.getType()).getShape()))
        continue;
      plan.loop = fragment;
      plan.shift = std::move(shift);
      break;
    }
  }
  if (plan.loop) {
    const FragmentTable &loop = *tableOf(plan.loop);
    for (int64_t s = 0; s < loop.getNumSlots(); ++s) {
      int64_t inside = 0;
      for (int64_t t = 0; t < loop.getNumThreads(); ++t)
        inside += isInside(
            getLoopPoint(loop, loop.getElement(t, s), plan.shift), extents);
      plan.runs.push_back(inside == loop.getNumThreads() ? ParallelPlan::Runs::Every
                          : inside                     ? ParallelPlan::Runs::Some
                                                       : ParallelPlan::Runs::None);
    }
  }
  for (Operation *access : accesses) {
    Value fragment = getAccessed(access);
    FailureOr<SmallVector<int64_t>> slots = failure();
    if (plan.loop)
      slots = planAccess(access, coords, *tableOf(plan.loop), plan.shift,
                         extents, *tableOf(fragment));
    if (failed(slots))
      plan.failed.insert(fragment);
    else
      plan.slots.insert({access, std::move(*slots)});
  }
  return plan;
}

/// A reduction between register fragments: each thread folds the source
/// slots of each result slot, then the lanes that share a result combine
/// their partial results with xor shuffles (offsets below the warp size),
/// then, when a result's threads span several warps, the warps exchange
/// their partial results through shared memory (`warpOffsets`: the thread
/// id bits from the warp size up that the span flips).
struct ReducePlan {
  SmallVector<SmallVector<int64_t>> sourceSlots; // per result slot
  SmallVector<int64_t> offsets;
  SmallVector<int64_t> warpOffsets;
};

FailureOr<ReducePlan> planReduce(ReduceOp op, const FragmentTable &src,
                                 const FragmentTable &dst) {
  int64_t threads = src.getNumThreads(), dim = op.getDim();
  int64_t srcRank = src.getShape().size(), dstRank = dst.getShape().size();
  if (dst.getNumThreads() != threads ||
      (dstRank != srcRank && dstRank != srcRank - 1 &&
       dst.getNumElements() != 1))
    return failure();
  // The result element that source element `e` goes into (as the
  // Block-mode lowering indexes the destination).
  auto rowOf = [&](int64_t e) -> int64_t {
    SmallVector<int64_t> coords = src.getCoords(e);
    if (dstRank == srcRank)
      coords[dim] = 0;
    else if (dstRank == srcRank - 1)
      coords.erase(coords.begin() + dim);
    else
      return 0;
    return dst.getLinear(coords);
  };
  // Each source element counted once.
  for (int64_t e = 0; e < src.getNumElements(); ++e)
    if (src.getNumHolders(e) != 1)
      return failure();
  SmallVector<SmallVector<int64_t>> rowThreads(dst.getNumElements());
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t s = 0; s < src.getNumSlots(); ++s)
      rowThreads[rowOf(src.getElement(t, s))].push_back(t);
  for (SmallVector<int64_t> &row : rowThreads) {
    llvm::sort(row);
    row.erase(llvm::unique(row), row.end());
  }

  ReducePlan plan;
  std::optional<SmallVector<int64_t>> masks;
  for (int64_t t = 0; t < threads; ++t) {
    for (int64_t sd = 0; sd < dst.getNumSlots(); ++sd) {
      int64_t row = dst.getElement(t, sd);
      SmallVector<int64_t> slots;
      for (int64_t s = 0; s < src.getNumSlots(); ++s)
        if (rowOf(src.getElement(t, s)) == row)
          slots.push_back(s);
      if (t == 0)
        plan.sourceSlots.push_back(slots);
      else if (plan.sourceSlots[sd] != slots)
        return failure();
      SmallVector<int64_t> group;
      for (int64_t other : rowThreads[row])
        group.push_back(other ^ t);
      llvm::sort(group);
      if (!masks)
        masks = group;
      else if (*masks != group)
        return failure();
    }
  }
  // The group must be the span of some thread id bits: lanes shuffle, warps
  // exchange through shared memory.
  SmallVector<int64_t> span = {0};
  for (int64_t m : *masks)
    if (llvm::isPowerOf2_64(m)) {
      (m < kShuffleLanes ? plan.offsets : plan.warpOffsets).push_back(m);
      for (int64_t i = 0, e = span.size(); i < e; ++i)
        span.push_back(span[i] ^ m);
    }
  llvm::sort(span);
  if (span != *masks ||
      plan.sourceSlots.front().size() * span.size() !=
          static_cast<size_t>(src.getShape()[dim]))
    return failure();
  // Every thread of a group reduces the same result at the same slot (the
  // shuffles and the exchange pair slot sd of one thread with slot sd of
  // the others).
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t sd = 0; sd < dst.getNumSlots(); ++sd)
      for (int64_t m : span)
        if ((t ^ m) >= threads ||
            dst.getElement(t ^ m, sd) != dst.getElement(t, sd))
          return failure();
  if (!plan.offsets.empty() &&
      op.getSrc().getType().getElementTypeBitWidth() != 32)
    return failure(); // gpu.shuffle moves 32-bit values.
  return plan;
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

template <typename Op>
struct RegisterPattern : OpRewritePattern<Op> {
  RegisterPattern(MLIRContext *ctx, const RegisterFragments &fragments)
      : OpRewritePattern<Op>(ctx, /*benefit=*/10), fragments(fragments) {}
  const RegisterFragments &fragments;
};

struct FillRegisters : RegisterPattern<FillOp> {
  using RegisterPattern::RegisterPattern;

  LogicalResult matchAndRewrite(FillOp op,
                                PatternRewriter &rewriter) const override {
    Value array = fragments.getArray(op.getDst());
    if (!array)
      return failure();
    Location loc = op.getLoc();
    for (int64_t s = 0; s < fragments.getTable(op.getDst())->getNumSlots();
         ++s)
      memref::StoreOp::create(rewriter, loc, op.getValue(), array,
                              indexConstant(rewriter, loc, s));
    rewriter.eraseOp(op);
    return success();
  }
};

/// Copies with a register fragment on one side or both: slot to slot
/// between registers; otherwise each thread moves its own elements, at the
/// layout's coordinates, with the usual edge rules of global memory.
struct CopyRegisters : RegisterPattern<CopyOp> {
  using RegisterPattern::RegisterPattern;

  /// Each thread's elements one by one, with the usual edge rules.
  static void moveElements(OpBuilder &b, Location loc, CopyOp op,
                           const FragmentTable &table, ValueRange parts,
                           Value array, const TileRegion &region);
  /// Runs of `width` slots as single vector accesses to `memory`; a run at
  /// the edge of a global side moves element by element.
  static void moveVectors(OpBuilder &b, Location loc, CopyOp op,
                          const FragmentTable &table, ValueRange parts,
                          Value array, const TileRegion &region,
                          int64_t width);

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    Value src = op.getSrc(), dst = op.getDst();
    Value srcArray = fragments.getArray(src), dstArray = fragments.getArray(dst);
    if (!srcArray && !dstArray)
      return failure();
    Location loc = op.getLoc();
    Type dstElement = op.getDst().getType().getElementType();
    auto slot = [&](int64_t s) { return indexConstant(rewriter, loc, s); };
    // canLiveInRegisters keeps fragments copied in part out of registers.
    assert((srcArray ? op.getSrcOffsets() : op.getDstOffsets()).empty() &&
           (!srcArray || !dstArray || op.getDstOffsets().empty()) &&
           "a part of a register fragment");
    if (srcArray && dstArray) {
      FailureOr<SmallVector<int64_t>> slots =
          getCopySlots(*fragments.getTable(src), *fragments.getTable(dst));
      if (failed(slots))
        return rewriter.notifyMatchFailure(op, "threads do not match");
      for (auto [s, from] : llvm::enumerate(*slots)) {
        Value v = memref::LoadOp::create(rewriter, loc, srcArray, slot(from));
        memref::StoreOp::create(rewriter, loc,
                                convertScalar(rewriter, loc, v, dstElement),
                                dstArray, slot(s));
      }
      rewriter.eraseOp(op);
      return success();
    }

    Value registers = srcArray ? src : dst;
    Value memory = srcArray ? dst : src;
    TileRegion region = srcArray ? op.getDstRegion() : op.getSrcRegion();
    const FragmentTable &table = *fragments.getTable(registers);
    bool barriers = isOnChip(memory);
    if (barriers)
      gpu::BarrierOp::create(rewriter, loc);
    Value tid = getBlockThreads(rewriter, op).threadId;
    SmallVector<Value> parts = emitThreadParts(rewriter, loc, table, tid);
    Value array = srcArray ? srcArray : dstArray;
    // Replicated registers: only the first replica of each element writes.
    std::optional<OpBuilder::InsertionGuard> firstReplicaOnly;
    if (int64_t mask = srcArray ? getReplicaMask(table) : 0) {
      Value first = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq,
          arith::AndIOp::create(rewriter, loc, tid,
                                indexConstant(rewriter, loc, mask)),
          indexConstant(rewriter, loc, 0));
      auto ifOp = scf::IfOp::create(rewriter, loc, first, /*withElse=*/false);
      firstReplicaOnly.emplace(rewriter);
      rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
    // Vectors run along the memory's last dimension: only where the
    // tile's rows do.
    int64_t width =
        isAlongLastDim(region) ? getRegisterVectorWidth(table, memory) : 1;
    if (width == 1) {
      moveElements(rewriter, loc, op, table, parts, array, region);
    } else {
      // Whole vectors where the memory side is aligned, elements otherwise.
      auto ifOp = scf::IfOp::create(
          rewriter, loc, canAccessVectors(rewriter, loc, region, width),
          /*withElse=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
      moveVectors(rewriter, loc, op, table, parts, array, region, width);
      rewriter.setInsertionPointToStart(&ifOp.getElseRegion().front());
      moveElements(rewriter, loc, op, table, parts, array, region);
    }
    firstReplicaOnly.reset();
    if (barriers)
      gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The indices in the region's memory of the element at `coords` of the
/// copied tile.
static SmallVector<Value> memoryIndices(OpBuilder &b, Location loc,
                                        const TileRegion &region,
                                        ValueRange coords) {
  return swizzleIndices(b, loc, region.buffer,
                        tileIndices(b, loc, region, coords));
}

void CopyRegisters::moveElements(OpBuilder &b, Location loc, CopyOp op,
                                 const FragmentTable &table, ValueRange parts,
                                 Value array, const TileRegion &region) {
  Value memory = region.buffer;
  bool toMemory = memory == op.getDst();
  Type dstElement = op.getDst().getType().getElementType();
  for (int64_t s = 0; s < table.getNumSlots(); ++s) {
    SmallVector<Value> indices =
        memoryIndices(b, loc, region, emitCoords(b, loc, table, parts, s));
    Value slot = indexConstant(b, loc, s);
    if (toMemory) {
      Value v = convertScalar(b, loc, memref::LoadOp::create(b, loc, array, slot),
                              dstElement);
      guardedWrite(b, loc, memory, indices, [&](OpBuilder &b, Location loc) {
        memref::StoreOp::create(b, loc, v, memory, indices);
      });
    } else {
      Value v = guardedLoad(b, loc, memory, indices);
      memref::StoreOp::create(b, loc, convertScalar(b, loc, v, dstElement),
                              array, slot);
    }
  }
}

void CopyRegisters::moveVectors(OpBuilder &b, Location loc, CopyOp op,
                                const FragmentTable &table, ValueRange parts,
                                Value array, const TileRegion &region,
                                int64_t width) {
  Value memory = region.buffer;
  bool toMemory = memory == op.getDst();
  Type dstElement = op.getDst().getType().getElementType();
  auto memoryType = cast<MemRefType>(memory.getType());
  auto vectorType = VectorType::get({width}, memoryType.getElementType());
  // The run-time check made the memory side's vectors aligned: say so.
  llvm::Align align(width * memoryType.getElementTypeBitWidth() / 8);
  bool global = !getMemorySpace(memoryType);
  for (int64_t s = 0; s < table.getNumSlots(); s += width) {
    SmallVector<Value> coords = emitCoords(b, loc, table, parts, s);
    auto indices = [&] { return memoryIndices(b, loc, region, coords); };
    if (toMemory) {
      SmallVector<Value> elements;
      for (int64_t k = 0; k < width; ++k)
        elements.push_back(memref::LoadOp::create(
            b, loc, array, indexConstant(b, loc, s + k)));
      Value vector = convertScalar(
          b, loc,
          vector::FromElementsOp::create(
              b, loc,
              VectorType::get({width}, cast<MemRefType>(array.getType())
                                           .getElementType()),
              elements),
          dstElement);
      if (global)
        storeClippedVector(b, loc, region, coords, vector, align);
      else
        vector::StoreOp::create(b, loc, vector, memory, indices(),
                                /*nontemporal=*/false, align);
      continue;
    }
    Value vector =
        global ? loadZeroPaddedVector(b, loc, region, coords, width, align)
               : vector::LoadOp::create(b, loc, vectorType, memory, indices(),
                                        /*nontemporal=*/false, align)
                     .getResult();
    for (int64_t k = 0; k < width; ++k)
      memref::StoreOp::create(
          b, loc,
          convertScalar(b, loc, vector::ExtractOp::create(b, loc, vector, k),
                        dstElement),
          array, indexConstant(b, loc, s + k));
  }
}

struct ReduceRegisters : RegisterPattern<ReduceOp> {
  using RegisterPattern::RegisterPattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    Value srcArray = fragments.getArray(op.getSrc());
    Value dstArray = fragments.getArray(op.getDst());
    if (!srcArray || !dstArray)
      return failure();
    FailureOr<ReducePlan> plan = planReduce(
        op, *fragments.getTable(op.getSrc()), *fragments.getTable(op.getDst()));
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, "no register reduction");
    Location loc = op.getLoc();
    ReduceKind kind = op.getKind(), merge = getMergeKind(kind);
    bool nan = op.getNanPropagate();
    Type type = op.getSrc().getType().getElementType();
    // Each thread's partial result of each result slot, its lanes combined.
    SmallVector<Value> partials;
    for (ArrayRef<int64_t> sources : plan->sourceSlots) {
      Value acc = reductionIdentity(rewriter, loc, kind, type);
      for (int64_t s : sources)
        acc = combineReduction(
            rewriter, loc, kind, nan, acc,
            memref::LoadOp::create(rewriter, loc, srcArray,
                                   indexConstant(rewriter, loc, s)));
      for (int64_t offset : plan->offsets) {
        Value other = gpu::ShuffleOp::create(rewriter, loc, acc, offset,
                                             /*width=*/kShuffleLanes,
                                             gpu::ShuffleMode::XOR)
                          .getShuffleResult();
        acc = combineReduction(rewriter, loc, merge, nan, acc, other);
      }
      partials.push_back(acc);
    }
    if (!plan->warpOffsets.empty())
      partials = exchangeAcrossWarps(rewriter, op, *plan, partials);
    for (auto [sd, acc] : llvm::enumerate(partials)) {
      Value at = indexConstant(rewriter, loc, sd);
      if (!op.getClear())
        acc = combineReduction(
            rewriter, loc, merge, nan,
            memref::LoadOp::create(rewriter, loc, dstArray, at), acc);
      memref::StoreOp::create(rewriter, loc, acc, dstArray, at);
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// `value` with the bits set in the constant `bits` removed and the bits
  /// above them shifted down (x86's pext with the complement of `bits`).
  static Value dropBits(OpBuilder &b, Location loc, Value value,
                        int64_t bits) {
    if (!bits)
      return value;
    Value result;
    int64_t dropped = 0;
    // Each run of kept bits [low, high), shifted down by the bits dropped
    // below it.
    for (int64_t low = 0; low < 63;) {
      if (bits >> low & 1) {
        ++dropped;
        ++low;
        continue;
      }
      int64_t high = low;
      while (high < 63 && !(bits >> high & 1))
        ++high;
      Value run = value;
      if (high < 63)
        run = arith::AndIOp::create(
            b, loc, run,
            indexConstant(b, loc, ((int64_t(1) << high) - 1) &
                                      ~((int64_t(1) << low) - 1)));
      else if (low != dropped) // (Otherwise the shift clears the bits.)
        run = arith::AndIOp::create(
            b, loc, run, indexConstant(b, loc, ~((int64_t(1) << low) - 1)));
      if (dropped)
        run = arith::ShRUIOp::create(b, loc, run,
                                     indexConstant(b, loc, dropped));
      result = result ? arith::OrIOp::create(b, loc, result, run).getResult()
                      : run;
      low = high;
    }
    return result;
  }

  /// The results from the warps' partial results: the shuffles left every
  /// lane of a shuffle group with the same partials, so one lane of each
  /// group publishes them in a shared scratch tile (result slot x group,
  /// the thread id without the shuffled bits), and every thread combines
  /// those of its warps' groups, in one order for the whole group (so that
  /// every replica of a result is the same value). The scratch is the
  /// block's threads divided by the shuffle group's size: 2 KiB for eight
  /// row slots in 256 threads reduced over quads, not 8 KiB.
  static SmallVector<Value> exchangeAcrossWarps(PatternRewriter &rewriter,
                                                ReduceOp op,
                                                const ReducePlan &plan,
                                                ArrayRef<Value> partials) {
    Location loc = op.getLoc();
    Type type = op.getSrc().getType().getElementType();
    std::optional<int64_t> threads = getStaticBlockThreads(op);
    auto launch = op->getParentOfType<gpu::LaunchOp>();
    // One scratch tile per shape for the whole kernel: reductions never
    // use theirs at the same time (each starts with a block barrier).
    int64_t laneBits = 0;
    for (int64_t m : plan.offsets)
      laneBits |= m;
    auto scratchType = MemRefType::get(
        {static_cast<int64_t>(partials.size()),
         *threads >> llvm::popcount(static_cast<uint64_t>(laneBits))},
        type, AffineMap(),
        MemorySpaceAttr::get(op.getContext(), MemorySpace::Shared));
    StringRef marker = TileDialect::getReduceScratchAttrName();
    Value scratch;
    for (auto alloc : launch.getBody().front().getOps<AllocSharedOp>())
      if (alloc->hasAttr(marker) && alloc.getType() == scratchType) {
        scratch = alloc;
        break;
      }
    if (!scratch) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&launch.getBody().front());
      auto alloc =
          AllocSharedOp::create(rewriter, loc, scratchType, Attribute());
      alloc->setAttr(marker, rewriter.getUnitAttr());
      scratch = alloc;
    }
    Value tid = getBlockThreads(rewriter, op).threadId;
    // A later reduction (or loop iteration) may reuse the scratch bytes.
    gpu::BarrierOp::create(rewriter, loc);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      if (laneBits) {
        Value lead = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq,
            arith::AndIOp::create(rewriter, loc, tid,
                                  indexConstant(rewriter, loc, laneBits)),
            indexConstant(rewriter, loc, 0));
        auto ifOp = scf::IfOp::create(rewriter, loc, lead);
        rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      Value group = dropBits(rewriter, loc, tid, laneBits);
      for (auto [sd, partial] : llvm::enumerate(partials))
        memref::StoreOp::create(
            rewriter, loc, partial, scratch,
            ValueRange{indexConstant(rewriter, loc, sd), group});
    }
    gpu::BarrierOp::create(rewriter, loc);
    int64_t warpBits = 0;
    for (int64_t m : plan.warpOffsets)
      warpBits |= m;
    Value base = arith::AndIOp::create(
        rewriter, loc, tid, indexConstant(rewriter, loc, ~warpBits));
    // The scratch column of thread base | member: the members' bits are
    // warp bits, never shuffled ones, so that is base's column | member's.
    Value baseGroup = dropBits(rewriter, loc, base, laneBits);
    auto memberGroup = [&](int64_t member) {
      int64_t group = 0;
      for (int64_t bit = 0, to = 0; bit < 63; ++bit) {
        if (laneBits >> bit & 1)
          continue;
        group |= (member >> bit & 1) << to++;
      }
      return group;
    };
    SmallVector<int64_t> members = {0};
    for (int64_t m : plan.warpOffsets)
      for (int64_t i = 0, e = members.size(); i < e; ++i)
        members.push_back(members[i] | m);
    llvm::sort(members);
    ReduceKind merge = getMergeKind(op.getKind());
    bool nan = op.getNanPropagate();
    SmallVector<Value> results;
    for (int64_t sd = 0, e = partials.size(); sd < e; ++sd) {
      Value acc;
      for (int64_t member : members) {
        Value from =
            member ? arith::OrIOp::create(
                         rewriter, loc, baseGroup,
                         indexConstant(rewriter, loc, memberGroup(member)))
                         .getResult()
                   : baseGroup;
        Value v = memref::LoadOp::create(
            rewriter, loc, scratch,
            ValueRange{indexConstant(rewriter, loc, sd), from});
        acc = acc ? combineReduction(rewriter, loc, merge, nan, acc, v) : v;
      }
      results.push_back(acc);
    }
    return results;
  }
};

/// The scf.if that ends a tile.parallel body and guards all of its writes,
/// when its condition depends on the body's first coordinate alone (through
/// ops of the body without regions, reading nothing the branch writes) and
/// the rest of the body only reads: the slots of a thread that share that
/// coordinate (a row) then share one branch, and a row whose condition
/// fails costs one branch instead of its elements' work (FlashAttention-4's
/// conditional rescale of O). Null otherwise.
static scf::IfOp getRowGuard(Block &body) {
  scf::IfOp guard = getFinalGuard(body);
  if (!guard)
    return {};
  SmallVector<Value> worklist = {guard.getCondition()};
  llvm::DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == &body && arg.getArgNumber() != 0)
        return {};
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (def->getBlock() != &body)
      continue; // Defined above the loop.
    llvm::append_range(worklist, def->getOperands());
  }
  // A condition that reads what the branch writes could change from one
  // element of the row to the next.
  WalkResult writes = guard.getThenRegion().walk([&](Operation *inner) {
    if (isa<memref::LoadOp>(inner))
      return WalkResult::advance();
    for (Value operand : inner->getOperands())
      if (isa<MemRefType>(operand.getType()) && seen.contains(operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (writes.wasInterrupted())
    return {};
  return guard;
}

/// tile.parallel over the slots of its loop fragment: the body once per
/// slot, at the coordinates the layout gives this thread there, with its
/// register fragment accesses turned into constant-slot accesses. A body
/// whose writes a row's condition guards (getRowGuard) gets one branch per
/// row of the thread, holding the body of each of the row's slots.
struct ParallelRegisters : RegisterPattern<ParallelOp> {
  using RegisterPattern::RegisterPattern;

  LogicalResult matchAndRewrite(ParallelOp op,
                                PatternRewriter &rewriter) const override {
    auto tableOf = [&](Value v) { return fragments.getTable(v); };
    ParallelPlan plan = planParallel(op, tableOf);
    if (!plan.loop)
      return rewriter.notifyMatchFailure(op, "no register loop fragment");
    if (!plan.failed.empty())
      return rewriter.notifyMatchFailure(op, "unplanned register access");
    Location loc = op.getLoc();
    Block &body = op.getBody().front();
    // Other threads' writes to on-chip memory must be visible, and ours to
    // them.
    WalkResult onChip = body.walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (isa<MemRefType>(operand.getType()) && !tableOf(operand) &&
            isOnChip(operand))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    bool barriers = onChip.wasInterrupted();
    if (barriers)
      gpu::BarrierOp::create(rewriter, loc);
    const FragmentTable &loop = *tableOf(plan.loop);
    Value tid = getBlockThreads(rewriter, op).threadId;
    SmallVector<Value> parts = emitThreadParts(rewriter, loc, loop, tid);
    ArrayRef<int64_t> extents = op.getExtents();
    // The loop point of slot `s`: the loop fragment's coordinates there
    // less the shift.
    auto emitPoint = [&](int64_t s) {
      SmallVector<Value> point = emitCoords(rewriter, loc, loop, parts, s);
      for (auto [x, d] : llvm::zip_equal(point, plan.shift))
        if (d)
          x = rewriter.createOrFold<arith::SubIOp>(
              loc, x, indexConstant(rewriter, loc, d));
      return point;
    };
    // Whether `point` is inside the loop's extents, in the dimensions where
    // the loop fragment's coordinates can leave them.
    SmallVector<int64_t> checked;
    for (int64_t d = 0, e = extents.size(); d < e; ++d)
      if (plan.shift[d] > 0 || loop.getShape()[d] - plan.shift[d] > extents[d])
        checked.push_back(d);
    auto emitInLoop = [&](ValueRange point) {
      Value inside;
      for (int64_t d : checked) {
        Value x = point[d];
        Value lower = arith::CmpIOp::create(rewriter, loc,
                                            arith::CmpIPredicate::sge, x,
                                            indexConstant(rewriter, loc, 0));
        Value upper = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::slt, x,
            indexConstant(rewriter, loc, extents[d]));
        Value both = arith::AndIOp::create(rewriter, loc, lower, upper);
        inside = inside ? arith::AndIOp::create(rewriter, loc, inside, both)
                        : both;
      }
      return inside;
    };
    // Clones `ops` for slot `s` at `point` at the rewriter's insertion
    // point; returns the mapping.
    auto emitSlot = [&](int64_t s, ValueRange point,
                        ArrayRef<Operation *> ops) {
      IRMapping mapping;
      mapping.map(body.getArguments(), point);
      SmallVector<Value> at;
      for (auto &access : plan.slots)
        at.push_back(indexConstant(rewriter, loc, access.second[s]));
      for (Operation *inner : ops)
        rewriter.clone(*inner, mapping);
      for (auto [index, access] : llvm::enumerate(plan.slots)) {
        Operation *clone = mapping.lookupOrNull(access.first);
        if (!clone)
          continue;
        Value array = fragments.getArray(getAccessed(access.first));
        Value slot = at[index];
        rewriter.modifyOpInPlace(clone, [&] {
          if (auto store = dyn_cast<memref::StoreOp>(clone))
            clone->setOperands({store.getValueToStore(), array, slot});
          else
            clone->setOperands({array, slot});
        });
      }
      return mapping;
    };
    // Opens, for a slot that only some threads run, the branch of those
    // that do; `point` is the slot's.
    auto enterIfSome = [&](int64_t s, ValueRange point) {
      if (plan.runs[s] != ParallelPlan::Runs::Some)
        return;
      auto branch = scf::IfOp::create(rewriter, loc, emitInLoop(point),
                                      /*withElseRegion=*/false);
      rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
    };
    SmallVector<Operation *> ops;
    for (Operation &inner : body.without_terminator())
      ops.push_back(&inner);
    // Slots share a branch per row (the same slot part of coordinate 0:
    // the same row in every thread) where what decides it depends on the
    // row alone: a guard of the row (getRowGuard), whether the row is one
    // of the loop's (a shift of rows).
    bool some = llvm::is_contained(plan.runs, ParallelPlan::Runs::Some);
    bool byRows = loop.isSeparable() &&
                  llvm::all_of(checked, [](int64_t d) { return d == 0; });
    scf::IfOp guard = byRows ? getRowGuard(body) : scf::IfOp();
    if (!guard && !(byRows && some)) {
      for (int64_t s = 0; s < loop.getNumSlots(); ++s) {
        if (plan.runs[s] == ParallelPlan::Runs::None)
          continue;
        OpBuilder::InsertionGuard insertion(rewriter);
        SmallVector<Value> point = emitPoint(s);
        enterIfSome(s, point);
        emitSlot(s, point, ops);
      }
    } else {
      // The slots of each row, in order of first appearance.
      llvm::MapVector<int64_t, SmallVector<int64_t>> rows;
      for (int64_t s = 0; s < loop.getNumSlots(); ++s)
        if (plan.runs[s] != ParallelPlan::Runs::None)
          rows[loop.getSlotPart(0, s)].push_back(s);
      ArrayRef<Operation *> reads = ArrayRef(ops).drop_back();
      SmallVector<Operation *> guarded(reads);
      if (guard)
        for (Operation &inner :
             guard.getThenRegion().front().without_terminator())
          guarded.push_back(&inner);
      for (auto &row : rows) {
        OpBuilder::InsertionGuard insertion(rewriter);
        int64_t front = row.second.front();
        SmallVector<Value> point = emitPoint(front);
        enterIfSome(front, point);
        if (guard) {
          IRMapping first = emitSlot(front, point, reads);
          auto branch = scf::IfOp::create(
              rewriter, loc, first.lookupOrDefault(guard.getCondition()),
              /*withElseRegion=*/false);
          rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
        }
        for (int64_t s : row.second) {
          ArrayRef<Operation *> slotOps = guard ? ArrayRef(guarded) : ops;
          if (s == front)
            emitSlot(s, point, slotOps);
          else
            emitSlot(s, emitPoint(s), slotOps);
        }
      }
    }
    if (barriers)
      gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// RegisterFragments
//===----------------------------------------------------------------------===//

/// Whether every use of `fragment` can be lowered with it in registers,
/// given the other fragments `tableOf` puts there.
static bool canLiveInRegisters(Value fragment, TableOf tableOf,
                               const RegisterFragments::GemmSupport &gemm,
                               llvm::DenseMap<Operation *, ParallelPlan> &plans) {
  const FragmentTable &table = *tableOf(fragment);
  for (OpOperand &use : fragment.getUses()) {
    Operation *user = use.getOwner();
    if (isa<FillOp, ClearOp>(user))
      continue;
    if (auto copy = dyn_cast<CopyOp>(user)) {
      bool isSrc = copy.getSrc() == fragment;
      Value other = isSrc ? copy.getDst() : copy.getSrc();
      // A part of a fragment (offsets on its side, or on the other
      // fragment's) is copied where it lives in memory: the slot-to-slot
      // and per-thread copies here move whole fragments.
      if (copy.getAsync() || other == fragment ||
          !(isSrc ? copy.getSrcOffsets() : copy.getDstOffsets()).empty())
        return false;
      if (const FragmentTable *otherTable = tableOf(other)) {
        if (!copy.getSrcOffsets().empty() || !copy.getDstOffsets().empty())
          return false;
        if (failed(isSrc ? getCopySlots(table, *otherTable)
                         : getCopySlots(*otherTable, table)))
          return false;
        continue;
      }
      if (isInSpace(cast<MemRefType>(other.getType()), MemorySpace::Local) ||
          ArrayRef<int64_t>(copy.getTileShape()) != table.getShape())
        return false;
      continue;
    }
    if (auto reduce = dyn_cast<ReduceOp>(user)) {
      const FragmentTable *src = tableOf(reduce.getSrc());
      const FragmentTable *dst = tableOf(reduce.getDst());
      if (!src || !dst || failed(planReduce(reduce, *src, *dst)))
        return false;
      continue;
    }
    if (auto gemmOp = dyn_cast<GemmOp>(user)) {
      if (fragment == gemmOp.getB() ||
          (fragment == gemmOp.getA()) == (fragment == gemmOp.getC()) ||
          !gemm || !gemm(gemmOp, fragment, table))
        return false;
      continue;
    }
    if (getAccessed(user) == fragment) {
      auto parallel = user->getParentOfType<ParallelOp>();
      if (!parallel)
        return false;
      auto [it, inserted] = plans.try_emplace(parallel.getOperation());
      if (inserted)
        it->second = planParallel(parallel, tableOf);
      if (!it->second.loop || it->second.failed.contains(fragment))
        return false;
      continue;
    }
    return false;
  }
  return true;
}

/// Bytes of registers the fragment `alloc` may take in each thread:
/// kMaxRegisterBytes, or no limit when the fragment cannot live in shared
/// memory either, its bytes and the kernel's shared tiles' together being
/// more than a block may use on the module's target (TileLang's 256x256
/// f32 accumulator of 128 threads): registers then, which the device
/// compiler spills to local memory, rather than a kernel that cannot launch.
static int64_t getRegisterBudget(AllocFragmentOp alloc) {
  auto module = alloc->getParentOfType<ModuleOp>();
  auto kernel = alloc->getParentOfType<KernelOp>();
  TargetAttr target =
      module ? module->getAttrOfType<TargetAttr>(TileDialect::getTargetAttrName())
             : TargetAttr();
  int64_t limit = getMaxSharedMemoryPerBlock(target);
  if (!kernel || limit <= 0 || !alloc.getType().hasStaticShape())
    return kMaxRegisterBytes;
  int64_t shared = getTileSizeInBytes(alloc.getType());
  for (AllocSharedOp tile : kernel.getBody().front().getOps<AllocSharedOp>())
    if (tile.getType().hasStaticShape())
      shared += getTileSizeInBytes(tile.getType());
  return shared > limit ? std::numeric_limits<int32_t>::max()
                        : kMaxRegisterBytes;
}

/// The layout table with which the fragment `alloc` allocates may live in
/// the registers of a block of `threads` threads, or null with the reason
/// in `why`: a statically shaped fragment of scalars whose
/// `#tile.fragment` layout covers its shape over exactly those threads,
/// separably, within its register budget per thread (getRegisterBudget).
static const FragmentTable *getRegisterTable(AllocFragmentOp alloc,
                                             int64_t threads,
                                             std::string &why) {
  auto layout = dyn_cast_or_null<FragmentLayoutAttr>(alloc.getLayoutAttr());
  MemRefType type = alloc.getType();
  if (!layout) {
    why = "it has no #tile.fragment layout";
    return nullptr;
  }
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat() ||
      layout.getShape() != type.getShape()) {
    why = "its layout does not cover a static tile of scalars";
    return nullptr;
  }
  const FragmentTable *table = FragmentTable::lookup(layout);
  if (!table || table->getNumThreads() != threads) {
    why = (Twine("its layout does not place it over the kernel's ") +
           Twine(threads) + " threads")
              .str();
    return nullptr;
  }
  if (!table->isSeparable()) {
    why = "its layout is not separable into thread and slot coordinates";
    return nullptr;
  }
  if (table->getNumSlots() * type.getElementTypeBitWidth() >
      8 * getRegisterBudget(alloc)) {
    why = (Twine("it needs more than ") + Twine(kMaxRegisterBytes) +
           " bytes of registers per thread")
              .str();
    return nullptr;
  }
  return table;
}

/// Iterations of a loop unrolled at most so that the fragment slots its
/// induction variable picks become constants.
constexpr int64_t kMaxUnrolledTrips = 8;

/// Folds the arith ops from `begin` to `end` (exclusive; nested ones too)
/// that fold to a constant or to one of their operands, constants
/// materialized in place (an unrolled body's `iv * 32` and `i + 0`; an
/// OperationFolder would hoist them out of the tile.kernel).
static void foldUnrolled(Block::iterator begin, Block::iterator end) {
  for (Operation &top : llvm::make_early_inc_range(llvm::make_range(begin, end)))
    top.walk([](Operation *op) {
      if (!isa<arith::ArithDialect>(op->getDialect()) ||
          isa<arith::ConstantOp>(op))
        return;
      OpBuilder b(op);
      SmallVector<Value> results;
      if (failed(b.tryFold(op, results)) || results.empty())
        return; // Not folded, or folded in place.
      op->replaceAllUsesWith(results);
      op->erase();
    });
}

/// Unrolls the scf.for loops of `kernel` with constant bounds and at most
/// kMaxUnrolledTrips iterations whose induction variable reaches an index
/// of a `tile.parallel`'s access to a fragment `isCandidate` accepts
/// (TileLang's `for s in range(2): ... acc[i + s * 32, j]`): the slot of
/// each access must be known at compile time for the fragment to stay in
/// registers. Inner loops first.
static void unrollFragmentIndexLoops(KernelOp kernel,
                                     function_ref<bool(Value)> isCandidate) {
  llvm::SetVector<scf::ForOp> loops;
  kernel.getBody().walk([&](Operation *access) {
    Value fragment = getAccessed(access);
    if (!fragment || !isCandidate(fragment) ||
        !access->getParentOfType<ParallelOp>())
      return;
    SmallVector<Value> worklist(getAccessIndices(access));
    llvm::DenseSet<Value> seen;
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (!seen.insert(value).second)
        continue;
      if (auto arg = dyn_cast<BlockArgument>(value)) {
        auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
        if (loop && arg == loop.getInductionVar())
          loops.insert(loop);
        continue;
      }
      Operation *def = value.getDefiningOp();
      if (!def->getNumRegions() && isMemoryEffectFree(def))
        llvm::append_range(worklist, def->getOperands());
    }
  });
  // Inner loops before the loops around them.
  auto depth = [](Operation *op) {
    int64_t d = 0;
    while ((op = op->getParentOp()))
      ++d;
    return d;
  };
  SmallVector<scf::ForOp> inner = loops.takeVector();
  llvm::sort(inner, [&](scf::ForOp a, scf::ForOp b) {
    return depth(a) > depth(b);
  });
  for (scf::ForOp loop : inner) {
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    int64_t span;
    if (!lower || !upper || !step || *step <= 0 || loop.getNumResults() ||
        llvm::SubOverflow(*upper, *lower, span))
      continue;
    int64_t trips = span <= 0 ? 0 : (span - 1) / *step + 1;
    if (trips > kMaxUnrolledTrips)
      continue;
    // The body once per iteration in place of the loop, the induction
    // variable a constant in each (upstream's loopUnrollFull is declared
    // in SCF/Utils/Utils.h next to a function mlir::tile, which clashes
    // with this project's namespace).
    Block *block = loop->getBlock();
    Operation *before = loop->getPrevNode();
    OpBuilder b(loop);
    for (int64_t k = 0; k < trips; ++k) {
      int64_t iv = *lower + k * *step; // below upper: no overflow
      IRMapping mapping;
      mapping.map(loop.getInductionVar(),
                  arith::ConstantOp::create(
                      b, loop.getLoc(),
                      b.getIntegerAttr(loop.getInductionVar().getType(), iv)));
      for (Operation &op : loop.getBody()->without_terminator())
        b.clone(op, mapping);
    }
    Block::iterator end = loop->getIterator();
    foldUnrolled(before ? std::next(before->getIterator()) : block->begin(),
                 end);
    loop.erase();
  }
}

void RegisterFragments::select(Operation *root, const GemmSupport &gemm) {
  root->walk([&](KernelOp kernel) {
    llvm::MapVector<Value, const FragmentTable *> candidates;
    for (AllocFragmentOp alloc :
         kernel.getBody().front().getOps<AllocFragmentOp>()) {
      alloc->removeAttr(TileDialect::getInRegistersAttrName());
      std::string why;
      if (const FragmentTable *table = getRegisterTable(
              alloc, getFragmentThreads(alloc.getResult()), why))
        candidates.insert({alloc.getResult(), table});
    }
    unrollFragmentIndexLoops(
        kernel, [&](Value fragment) { return candidates.contains(fragment); });
    auto tableOf = [&](Value v) -> const FragmentTable * {
      auto it = candidates.find(v);
      return it == candidates.end() ? nullptr : it->second;
    };
    // Drop what cannot stay in registers until the rest agrees.
    while (true) {
      llvm::DenseMap<Operation *, ParallelPlan> plans;
      SmallVector<Value> rejected;
      for (auto &candidate : candidates)
        if (!canLiveInRegisters(candidate.first, tableOf, gemm, plans))
          rejected.push_back(candidate.first);
      if (rejected.empty())
        break;
      for (Value fragment : rejected)
        candidates.erase(fragment);
    }
    for (auto &candidate : candidates)
      candidate.first.getDefiningOp()->setAttr(
          TileDialect::getInRegistersAttrName(),
          UnitAttr::get(kernel.getContext()));
  });
}

const FragmentTable *RegisterFragments::getMarkedTable(Value fragment) {
  auto alloc = fragment.getDefiningOp<AllocFragmentOp>();
  if (!alloc || !alloc->hasAttr(TileDialect::getInRegistersAttrName()))
    return nullptr;
  auto layout = dyn_cast_or_null<FragmentLayoutAttr>(alloc.getLayoutAttr());
  return layout ? FragmentTable::lookup(layout) : nullptr;
}

LogicalResult RegisterFragments::materialize(Operation *root) {
  WalkResult result = root->walk([&](KernelOp kernel) {
    // The arrays open the kernel body, whatever the passes before moved
    // above the allocations: in the kernel's entry block LLVM keeps them
    // in registers (it promotes only entry-block allocas; elsewhere every
    // access would go through local memory).
    OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
    for (AllocFragmentOp alloc :
         kernel.getBody().front().getOps<AllocFragmentOp>()) {
      if (!alloc->hasAttr(TileDialect::getInRegistersAttrName()))
        continue;
      std::string why;
      const FragmentTable *table =
          getRegisterTable(alloc, getFragmentThreads(alloc.getResult()), why);
      if (!table) {
        alloc.emitOpError("is marked '")
            << TileDialect::getInRegistersAttrName()
            << "' but cannot live in registers: " << why;
        return WalkResult::interrupt();
      }
      auto type = MemRefType::get({table->getNumSlots()},
                                  alloc.getType().getElementType());
      Value array = memref::AllocaOp::create(b, alloc.getLoc(), type);
      entries[alloc.getResult()] = Entry{table, array};
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

const FragmentTable *RegisterFragments::getTable(Value fragment) const {
  auto it = entries.find(fragment);
  return it == entries.end() ? nullptr : it->second.table;
}

Value RegisterFragments::getArray(Value fragment) const {
  auto it = entries.find(fragment);
  return it == entries.end() ? Value() : it->second.array;
}

LogicalResult RegisterFragments::eraseAllocations() {
  LogicalResult result = success();
  for (auto &[fragment, entry] : entries) {
    Operation *alloc = fragment.getDefiningOp();
    if (!fragment.use_empty()) {
      InFlightDiagnostic diag = alloc->emitError(
          "fragment chosen for registers is still used in memory");
      diag.attachNote(fragment.getUsers().begin()->getLoc()) << "by this op";
      result = failure();
      continue;
    }
    alloc->erase();
  }
  entries.clear();
  return result;
}

SmallVector<Value> mlir::tile::emitFragmentCoords(OpBuilder &b, Location loc,
                                                  const FragmentTable &table,
                                                  Value tid, int64_t slot) {
  return emitCoords(b, loc, table, emitThreadParts(b, loc, table, tid), slot);
}

void mlir::tile::populateRegisterFragmentPatterns(
    RewritePatternSet &patterns, const RegisterFragments &fragments) {
  patterns.add<FillRegisters, CopyRegisters, ReduceRegisters,
               ParallelRegisters>(patterns.getContext(), fragments);
}
