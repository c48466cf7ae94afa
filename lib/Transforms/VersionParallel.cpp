//===- VersionParallel.cpp - Version tile.parallel on uniform conditions -===//
//
// Part of TileLang-MLIR.
//
// tile-version-parallel: a tile.parallel whose selects test conditions
// affine in its indices gets copies for the tiles where the condition holds
// everywhere or nowhere (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEVERSIONPARALLEL
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

/// An index expression over the indices of one tile.parallel:
/// `constant + sum(coefficients[d] * index_d) + sum(m * value)`, the values
/// the same at every point of the iteration space.
struct LinearForm {
  SmallVector<int64_t> coefficients;
  llvm::MapVector<Value, int64_t> terms;
  int64_t constant = 0;

  explicit LinearForm(size_t rank) : coefficients(rank, 0) {}

  /// this += scale * other; false on overflow.
  bool add(const LinearForm &other, int64_t scale) {
    auto mulAdd = [&](int64_t &into, int64_t value) {
      int64_t product;
      return !llvm::MulOverflow(value, scale, product) &&
             !llvm::AddOverflow(into, product, into);
    };
    for (auto [mine, theirs] : llvm::zip(coefficients, other.coefficients))
      if (!mulAdd(mine, theirs))
        return false;
    for (auto [value, multiplier] : other.terms)
      if (!mulAdd(terms[value], multiplier))
        return false;
    return mulAdd(constant, other.constant);
  }

  bool isConstant() const {
    return llvm::all_of(coefficients, [](int64_t c) { return c == 0; }) &&
           llvm::all_of(terms, [](auto term) { return term.second == 0; });
  }
};

/// The block-wide outcome of an i1 condition over the iteration space:
/// values that are true when it holds at every point (`all`) or at none
/// (`none`); null where that cannot be told (taken as false).
struct Outcome {
  Value all, none;
};

/// Analyzes the conditions of one tile.parallel and builds their
/// block-wide outcomes before it.
class Versioner {
public:
  Versioner(ParallelOp op, OpBuilder &builder)
      : op(op), b(builder), loc(op.getLoc()) {}

  /// The outcome of `cond` (built before the op).
  Outcome outcome(Value cond);
  /// x and y; null (unknown) if either is.
  Value andOf(Value x, Value y) {
    return x && y ? b.createOrFold<arith::AndIOp>(loc, x, y) : Value();
  }

private:
  bool isIndex(Value v) {
    return isa<BlockArgument>(v) &&
           v.getParentBlock() == &op.getBody().front();
  }
  bool isInvariant(Value v);
  std::optional<LinearForm> linearize(Value v);
  Value materialize(Value v);
  Value build(const LinearForm &form);
  Value constantIndex(int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  Value orOf(Value x, Value y) {
    if (!x || !y)
      return x ? x : y;
    return b.createOrFold<arith::OrIOp>(loc, x, y);
  }
  Value notOf(Value x) {
    Value one = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    return b.createOrFold<arith::XOrIOp>(loc, x, one);
  }
  Outcome compare(arith::CmpIOp cmp);

  ParallelOp op;
  OpBuilder &b;
  Location loc;
  DenseMap<Value, bool> invariant;
  IRMapping hoisted;
};

} // namespace

/// Whether `v` has the same value at every point of the iteration space:
/// defined outside the op, or by side-effect-free ops of its body from
/// such values.
bool Versioner::isInvariant(Value v) {
  if (!op.getBody().isAncestor(v.getParentRegion()))
    return true;
  auto it = invariant.find(v);
  if (it != invariant.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  bool result = def && def->getNumRegions() == 0 && isPure(def) &&
                llvm::all_of(def->getOperands(), [&](Value operand) {
                  return isInvariant(operand);
                });
  invariant[v] = result;
  return result;
}

std::optional<LinearForm> Versioner::linearize(Value v) {
  if (!v.getType().isIndex())
    return std::nullopt;
  LinearForm form(op.getExtents().size());
  if (isIndex(v)) {
    form.coefficients[cast<BlockArgument>(v).getArgNumber()] = 1;
    return form;
  }
  if (auto constant = v.getDefiningOp<arith::ConstantIndexOp>()) {
    form.constant = constant.value();
    return form;
  }
  Operation *def = v.getDefiningOp();
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def)) {
    std::optional<LinearForm> lhs = linearize(def->getOperand(0));
    std::optional<LinearForm> rhs = linearize(def->getOperand(1));
    if (lhs && rhs) {
      if (isa<arith::AddIOp>(def) && form.add(*lhs, 1) && form.add(*rhs, 1))
        return form;
      if (isa<arith::SubIOp>(def) && form.add(*lhs, 1) && form.add(*rhs, -1))
        return form;
      if (isa<arith::MulIOp>(def)) {
        if (rhs->isConstant() && form.add(*lhs, rhs->constant))
          return form;
        if (lhs->isConstant() && form.add(*rhs, lhs->constant))
          return form;
      }
    }
  }
  if (!isInvariant(v))
    return std::nullopt;
  form = LinearForm(op.getExtents().size());
  form.terms[v] = 1;
  return form;
}

/// `v` (invariant) before the op: its side-effect-free definitions inside
/// the op are cloned there.
Value Versioner::materialize(Value v) {
  if (!op.getBody().isAncestor(v.getParentRegion()))
    return v;
  if (Value done = hoisted.lookupOrNull(v))
    return done;
  Operation *def = v.getDefiningOp();
  for (Value operand : def->getOperands())
    hoisted.map(operand, materialize(operand));
  Operation *copy = b.clone(*def, hoisted);
  return copy->getResult(cast<OpResult>(v).getResultNumber());
}

/// The sum of the invariant terms of `form` (its constant left out).
Value Versioner::build(const LinearForm &form) {
  Value sum;
  for (auto [value, multiplier] : form.terms) {
    if (multiplier == 0)
      continue;
    Value term = materialize(value);
    if (multiplier != 1)
      term = arith::MulIOp::create(b, loc, term, constantIndex(multiplier));
    sum = sum ? arith::AddIOp::create(b, loc, sum, term).getResult() : term;
  }
  return sum ? sum : constantIndex(0);
}

/// lhs - rhs ranges over [inv + low, inv + high] on the iteration box; a
/// signed comparison with 0 holds everywhere or nowhere from those ends.
Outcome Versioner::compare(arith::CmpIOp cmp) {
  using P = arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  if (pred != P::slt && pred != P::sle && pred != P::sgt && pred != P::sge)
    return {};
  std::optional<LinearForm> lhs = linearize(cmp.getLhs());
  std::optional<LinearForm> rhs = linearize(cmp.getRhs());
  if (!lhs || !rhs)
    return {};
  LinearForm diff(op.getExtents().size());
  if (!diff.add(*lhs, 1) || !diff.add(*rhs, -1))
    return {};
  int64_t low = diff.constant, high = diff.constant;
  for (auto [coefficient, extent] :
       llvm::zip(diff.coefficients, op.getExtents())) {
    int64_t reach;
    if (llvm::MulOverflow(coefficient, extent - 1, reach))
      return {};
    if (llvm::AddOverflow(reach < 0 ? low : high, reach,
                          reach < 0 ? low : high))
      return {};
  }
  if (low == std::numeric_limits<int64_t>::min() ||
      high == std::numeric_limits<int64_t>::min())
    return {};
  Value inv = build(diff);
  auto test = [&](P p, int64_t bound) -> Value {
    return b.createOrFold<arith::CmpIOp>(loc, p, inv, constantIndex(bound));
  };
  // inv + low > 0 everywhere <=> inv > -low, and so on.
  switch (pred) {
  case P::sgt:
    return {test(P::sgt, -low), test(P::sle, -high)};
  case P::sge:
    return {test(P::sge, -low), test(P::slt, -high)};
  case P::slt:
    return {test(P::slt, -high), test(P::sge, -low)};
  case P::sle:
    return {test(P::sle, -high), test(P::sgt, -low)};
  default:
    return {};
  }
}

Outcome Versioner::outcome(Value cond) {
  if (isInvariant(cond)) {
    Value value = materialize(cond);
    return {value, notOf(value)};
  }
  Operation *def = cond.getDefiningOp();
  if (auto cmp = dyn_cast_or_null<arith::CmpIOp>(def))
    return compare(cmp);
  if (isa_and_nonnull<arith::AndIOp, arith::OrIOp>(def)) {
    Outcome x = outcome(def->getOperand(0));
    Outcome y = outcome(def->getOperand(1));
    if (isa<arith::AndIOp>(def))
      return {andOf(x.all, y.all), orOf(x.none, y.none)};
    return {orOf(x.all, y.all), andOf(x.none, y.none)};
  }
  if (auto xorOp = dyn_cast_or_null<arith::XOrIOp>(def)) {
    for (unsigned side = 0; side < 2; ++side) {
      APInt bits;
      if (matchPattern(xorOp->getOperand(1 - side), m_ConstantInt(&bits)) &&
          bits.isAllOnes()) {
        Outcome x = outcome(xorOp->getOperand(side));
        return {x.none, x.all};
      }
    }
  }
  return {};
}

/// Whether `op` stores +0.0 to every element of a fragment with the shape
/// of its iteration space, and does nothing else with memory: the value
/// that fragment has when `gemm` runs next, if the gemm accumulates into it.
static bool zeroesAccumulatorOf(ParallelOp op, GemmOp gemm) {
  Block &body = op.getBody().front();
  auto stores = body.getOps<memref::StoreOp>();
  if (!llvm::hasSingleElement(stores) || gemm.getClearAccum() ||
      gemm.getClearIf())
    return false;
  memref::StoreOp store = *stores.begin();
  FloatAttr value;
  auto type = store.getMemRefType();
  return store.getMemRef() == gemm.getC() &&
         isInSpace(type, MemorySpace::Fragment) &&
         type.getShape() == op.getExtents() &&
         llvm::equal(store.getIndices(), body.getArguments()) &&
         matchPattern(store.getValueToStore(), m_Constant(&value)) &&
         value.getValue().isPosZero() &&
         llvm::all_of(body.without_terminator(), [](Operation &inner) {
           return isa<memref::StoreOp>(inner) || isMemoryEffectFree(&inner);
         });
}

namespace {

/// Records the ops a builder creates (to take them back).
struct Recorder : public OpBuilder::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    created.push_back(op);
  }
  SmallVector<Operation *> created;
};

struct VersionParallelPass
    : public tile::impl::TileVersionParallelBase<VersionParallelPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<ParallelOp> candidates;
    getOperation().walk([&](ParallelOp op) {
      if (!op->getParentOfType<ParallelOp>())
        candidates.push_back(op);
    });
    RewritePatternSet patterns(&getContext());
    arith::SelectOp::getCanonicalizationPatterns(patterns, &getContext());
    scf::IfOp::getCanonicalizationPatterns(patterns, &getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (ParallelOp op : candidates)
      version(op, frozen);
  }

  /// The conditions the body selects on, in order.
  static SmallVector<Value> conditionsOf(ParallelOp op) {
    llvm::SetVector<Value> conditions;
    op.getBody().walk([&](Operation *inner) {
      if (auto select = dyn_cast<arith::SelectOp>(inner)) {
        if (select.getCondition().getType().isInteger(1))
          conditions.insert(select.getCondition());
      } else if (auto ifOp = dyn_cast<scf::IfOp>(inner)) {
        conditions.insert(ifOp.getCondition());
      }
    });
    return conditions.takeVector();
  }

  void version(ParallelOp op, const FrozenRewritePatternSet &patterns) {
    SmallVector<Value> conditions = conditionsOf(op);
    if (conditions.empty())
      return;
    Recorder recorder;
    OpBuilder b(op);
    b.setListener(&recorder);
    Versioner versioner(op, b);
    // Every condition true everywhere; with one condition, also false
    // everywhere.
    Value all, none;
    for (auto [i, cond] : llvm::enumerate(conditions)) {
      Outcome outcome = versioner.outcome(cond);
      all = i == 0 ? outcome.all : versioner.andOf(all, outcome.all);
      if (conditions.size() == 1)
        none = outcome.none;
    }
    b.setListener(nullptr);
    // A test the builder folded to a constant (a condition of the indices
    // alone, `i < 32`): false drops its version, true leaves the op that
    // version alone.
    auto known = [](Value test) -> std::optional<bool> {
      APInt bits;
      if (test && matchPattern(test, m_ConstantInt(&bits)))
        return !bits.isZero();
      return std::nullopt;
    };
    std::optional<bool> allKnown = known(all), noneKnown = known(none);
    std::optional<bool> only;
    if (allKnown == true || noneKnown == true)
      only = allKnown == true;
    if (allKnown || only)
      all = {};
    if (noneKnown || only)
      none = {};
    // What no test uses (all of it when there is nothing to version) goes.
    auto isTest = [](Operation *created, Value test) {
      return test && test.getDefiningOp() == created;
    };
    for (Operation *created : llvm::reverse(recorder.created))
      if (created->use_empty() && !isTest(created, all) &&
          !isTest(created, none))
        created->erase();
    if (!all && !none && !only)
      return;
    Location loc = op.getLoc();
    // Clones the op at `b`'s insertion point with every condition replaced
    // by `value`, and simplifies the copy.
    auto specialize = [&](bool value) {
      IRMapping mapping;
      Operation *copy = b.clone(*op, mapping);
      OpBuilder inside = OpBuilder::atBlockBegin(&copy->getRegion(0).front());
      Value constant =
          arith::ConstantIntOp::create(inside, loc, inside.getI1Type(), value);
      for (Value cond : conditions)
        mapping.lookupOrDefault(cond).replaceUsesWithIf(
            constant, [&](OpOperand &use) {
              return copy->isAncestor(use.getOwner()) &&
                     isa<arith::SelectOp, scf::IfOp>(use.getOwner());
            });
      // Constants stay where they are (no hoisting out of the kernel).
      (void)applyPatternsGreedily(copy, patterns,
                                  GreedyRewriteConfig()
                                      .enableConstantCSE(false)
                                      .setRegionSimplificationLevel(
                                          GreedySimplifyRegionLevel::Disabled));
      return cast<ParallelOp>(copy);
    };
    if (only) {
      b.setInsertionPoint(op);
      specialize(*only);
      op->erase();
      return;
    }
    auto outer = scf::IfOp::create(b, loc, all ? all : none,
                                   /*withElseRegion=*/true);
    b.setInsertionPoint(outer.thenBlock()->getTerminator());
    ParallelOp first = specialize(/*value=*/static_cast<bool>(all));
    Block *rest = outer.elseBlock();
    if (all && none) {
      b.setInsertionPoint(rest->getTerminator());
      auto inner = scf::IfOp::create(b, loc, none, /*withElseRegion=*/true);
      b.setInsertionPoint(inner.thenBlock()->getTerminator());
      specialize(false);
      rest = inner.elseBlock();
    }
    op->moveBefore(rest->getTerminator());
    // A mask that initializes a gemm's accumulators (FlashAttention's
    // `S = mask; S += Q K^T`) stores zeros on the tiles it does not cut:
    // there the gemm overwrites instead (clear_if: wgmma's scale-d), and the
    // accumulators need no zeros. ptxas otherwise moves the zeros into the
    // accumulators in every iteration of a loop that also holds cut tiles
    // (the causal attention: 64 moves per iteration, -3.4 % with clear_if
    // on the H200, run 79), though where it gives the uncut path a copy of
    // the gemm's first step with the zeros folded in (the non-causal one),
    // the run-time scale-d costs 1.6 %.
    auto gemm = dyn_cast_or_null<GemmOp>(outer->getNextNode());
    if (all && gemm && zeroesAccumulatorOf(first, gemm)) {
      first->erase();
      gemm.getClearIfMutable().assign(all);
    }
  }
};

} // namespace
