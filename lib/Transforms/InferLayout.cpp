//===- InferLayout.cpp - Choose the register layout of fragments ---------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//
//
// Every fragment of a kernel gets a #tile.fragment layout. The fragments are
// grouped into classes that must share one layout (the fragments a
// tile.parallel accesses at its own coordinates, both sides of a
// fragment-to-fragment copy); a class takes the layout the user gave or the
// one a tensor-core gemm forces on one of its members, else a row-major,
// vector-friendly default. Two different forced layouts in one class are an
// error that names both ops.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Dialect/Tile/IR/FragmentTable.h"
#include "TileLang/Transforms/InstructionSelection.h"
#include "TileLang/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/Support/MathExtras.h"
#include <numeric>
#include <set>

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEINFERLAYOUT
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether two layouts place every element (and its replicas) on the same
/// threads at the same register positions, however their maps are written.
bool sameLayout(FragmentLayoutAttr a, FragmentLayoutAttr b) {
  if (a == b)
    return true;
  if (a.getShape() != b.getShape() || a.getThreads() != b.getThreads() ||
      a.getReplicate() != b.getReplicate())
    return false;
  int64_t elements = 1;
  for (int64_t extent : a.getShape()) {
    elements *= extent;
    if (elements > (1 << 16))
      return false; // Too large to compare: treated as different.
  }
  ArrayRef<int64_t> shape = a.getShape();
  SmallVector<int64_t> coords(shape.size(), 0);
  for (int64_t linear = 0; linear < elements; ++linear) {
    for (int64_t d = shape.size() - 1, rem = linear; d >= 0; --d) {
      coords[d] = rem % shape[d];
      rem /= shape[d];
    }
    SmallVector<int64_t> ta = a.getThreadsOf(coords),
                         tb = b.getThreadsOf(coords);
    llvm::sort(ta);
    llvm::sort(tb);
    if (ta != tb || a.getIndexOf(coords) != b.getIndexOf(coords))
      return false;
  }
  return true;
}

/// Fragments that must share a layout, as equivalence classes of the
/// allocations' results; each class remembers (at its leader) its forced
/// layout and the op that forced it.
class LayoutClasses {
public:
  /// With `lenient`, a conflict marks the class instead of failing.
  explicit LayoutClasses(bool lenient) : lenient(lenient) {}

  void add(Value fragment) { classes.insert(fragment); }
  /// Whether the class of `fragment` met a conflict (lenient mode).
  bool isConflicted(Value fragment) const {
    return llvm::any_of(conflicted,
                        [&](Value v) { return find(v) == find(fragment); });
  }
  bool contains(Value v) const { return classes.contains(v); }
  Value find(Value v) const { return classes.getLeaderValue(v); }

  /// Forces `layout` on the class of `fragment` because of `op`.
  LogicalResult force(Value fragment, FragmentLayoutAttr layout,
                      Operation *op) {
    Value root = find(fragment);
    auto [it, inserted] = forced.try_emplace(root, layout, op);
    if (inserted || sameLayout(it->second.first, layout))
      return success();
    if (lenient) {
      conflicted.push_back(root);
      return success();
    }
    InFlightDiagnostic diag =
        op->emitError("conflicting fragment layouts: this op requires ")
        << layout;
    diag.attachNote(it->second.second->getLoc())
        << "which differs from the layout forced here: " << it->second.first;
    return diag;
  }

  /// Puts `a` and `b` in one class because of `op`.
  LogicalResult join(Value a, Value b, Operation *op) {
    Value ra = find(a), rb = find(b);
    if (ra == rb)
      return success();
    auto fa = forced.find(ra), fb = forced.find(rb);
    if (fa != forced.end() && fb != forced.end() &&
        !sameLayout(fa->second.first, fb->second.first)) {
      if (lenient) {
        conflicted.push_back(ra);
        (void)classes.unionSets(ra, rb);
        return success();
      }
      InFlightDiagnostic diag =
          op->emitError("conflicting fragment layouts: this op needs one "
                        "layout for fragments whose layouts differ");
      diag.attachNote(fa->second.second->getLoc())
          << "one layout forced here: " << fa->second.first;
      diag.attachNote(fb->second.second->getLoc())
          << "and this other layout here: " << fb->second.first;
      return diag;
    }
    // The merged class keeps whichever forced layout there is, at its new
    // leader.
    std::optional<std::pair<FragmentLayoutAttr, Operation *>> kept;
    if (fa != forced.end())
      kept = fa->second;
    else if (fb != forced.end())
      kept = fb->second;
    forced.erase(ra);
    forced.erase(rb);
    Value leader = *classes.unionSets(ra, rb);
    if (kept)
      forced.try_emplace(leader, *kept);
    return success();
  }

  FragmentLayoutAttr getForced(Value fragment) {
    auto it = forced.find(find(fragment));
    return it == forced.end() ? FragmentLayoutAttr() : it->second.first;
  }

private:
  bool lenient;
  SmallVector<Value> conflicted;
  llvm::EquivalenceClasses<Value> classes;
  llvm::DenseMap<Value, std::pair<FragmentLayoutAttr, Operation *>> forced;
};

/// Row-major over `threads` threads, each holding runs of up to 16
/// contiguous bytes along the innermost dimension.
FragmentLayoutAttr getDefaultLayout(MemRefType type, int64_t threads) {
  MLIRContext *ctx = type.getContext();
  ArrayRef<int64_t> shape = type.getShape();
  int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  int64_t vector = std::max<int64_t>(1, 16 / bytes);
  while (vector > 1 && shape.back() % vector)
    vector /= 2;
  AffineExpr linear = getAffineConstantExpr(0, ctx);
  for (auto [d, extent] : llvm::enumerate(shape))
    linear = linear * extent + getAffineDimExpr(d, ctx);
  AffineExpr chunk = linear.floorDiv(vector);
  AffineExpr thread = chunk % threads;
  AffineExpr slot = chunk.floorDiv(threads) * vector +
                    getAffineDimExpr(shape.size() - 1, ctx) % vector;
  return FragmentLayoutAttr::get(ctx, shape,
                                 AffineMap::get(shape.size(), 0, thread),
                                 AffineMap::get(shape.size(), 0, slot),
                                 threads, /*replicate=*/1);
}

/// The layout of the result of reducing a fragment of layout `src` along
/// `dim` into a tile of shape `dstShape`: each result element on every
/// thread that held part of its row (a replica dimension), in the same
/// register position in each. Null when the pattern is not affine (the
/// caller falls back to the default layout).
FragmentLayoutAttr getReducedLayout(FragmentLayoutAttr src, int64_t dim,
                                    MemRefType dstType) {
  ArrayRef<int64_t> srcShape = src.getShape();
  ArrayRef<int64_t> dstShape = dstType.getShape();
  int64_t rank = srcShape.size(), dstRank = dstShape.size();
  // The fit is checked on every source element: keep that bounded, as the
  // attribute's own verifier does.
  constexpr int64_t kMaxChecked = 1 << 16;
  if (src.getReplicate() != 1 || dstType.getNumElements() > kMaxChecked ||
      srcShape[dim] > kMaxChecked ||
      dstType.getNumElements() * srcShape[dim] > kMaxChecked)
    return {};
  // The source coordinates of element `x` of the row of `dstCoords`.
  auto rowCoords = [&](ArrayRef<int64_t> dstCoords, int64_t x) {
    SmallVector<int64_t> coords;
    for (int64_t k = 0, j = 0; k < rank; ++k) {
      if (k == dim) {
        coords.push_back(x);
        j += dstRank == rank; // The kept extent-1 dimension.
      } else {
        coords.push_back(dstCoords[j++]);
      }
    }
    return coords;
  };
  auto rowThreads = [&](ArrayRef<int64_t> dstCoords,
                        SmallVectorImpl<int64_t> *firstX) {
    SmallVector<int64_t> threads;
    for (int64_t x = 0; x < srcShape[dim]; ++x) {
      int64_t t = src.getThreadOf(rowCoords(dstCoords, x));
      if (!llvm::is_contained(threads, t)) {
        threads.push_back(t);
        if (firstX)
          firstX->push_back(x);
      }
    }
    return threads;
  };

  MLIRContext *ctx = src.getContext();
  SmallVector<int64_t> origin(dstRank, 0), xs;
  rowThreads(origin, &xs);
  AffineExpr replica = getAffineDimExpr(dstRank, ctx);
  AffineExpr x = fitMixedRadix(xs, replica);
  if (!x)
    return {};
  // Source coordinates as expressions of the result's and the replica.
  SmallVector<AffineExpr> coordExprs;
  for (int64_t k = 0, j = 0; k < rank; ++k) {
    if (k == dim) {
      coordExprs.push_back(x);
      j += dstRank == rank;
    } else {
      coordExprs.push_back(getAffineDimExpr(j++, ctx));
    }
  }
  auto substitute = [&](AffineMap map, unsigned dims) {
    return simplifyAffineMap(
        map.compose(AffineMap::get(dims, 0, coordExprs, ctx)));
  };
  AffineMap thread = substitute(src.getThread(), dstRank + 1);
  // Register positions from the row's first element, compacted by their
  // common factor.
  coordExprs[dim] = getAffineConstantExpr(0, ctx);
  AffineMap index = substitute(src.getIndex(), dstRank);
  int64_t replicas = xs.size();

  // Check the result against the source on every row: the same threads,
  // and no register slot of a thread taken twice.
  std::set<std::pair<int64_t, SmallVector<int64_t>>> taken;
  SmallVector<int64_t> coords(dstRank, 0);
  int64_t factor = 0;
  for (int64_t linear = 0; linear < dstType.getNumElements(); ++linear) {
    for (int64_t d = dstRank - 1, rem = linear; d >= 0; --d) {
      coords[d] = rem % dstShape[d];
      rem /= dstShape[d];
    }
    SmallVector<int64_t> expected = rowThreads(coords, nullptr);
    if (static_cast<int64_t>(expected.size()) != replicas)
      return {};
    SmallVector<int64_t> slot =
        llvm::to_vector(evaluateAffineMap(index, coords));
    for (int64_t v : slot)
      factor = std::gcd(factor, v);
    SmallVector<int64_t> point(coords);
    point.push_back(0);
    for (int64_t r = 0; r < replicas; ++r) {
      point.back() = r;
      int64_t t = evaluateAffineMap(thread, point).front();
      if (!llvm::is_contained(expected, t) || !taken.insert({t, slot}).second)
        return {};
    }
  }
  if (factor > 1)
    index = AffineMap::get(
        dstRank, 0,
        llvm::map_to_vector(index.getResults(),
                            [&](AffineExpr e) { return e.floorDiv(factor); }),
        ctx);
  return FragmentLayoutAttr::get(ctx, dstShape, thread, simplifyAffineMap(index),
                                 src.getThreads(), replicas);
}

struct InferLayoutPass
    : public tile::impl::TileInferLayoutBase<InferLayoutPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto target =
        module->getAttrOfType<TargetAttr>(TileDialect::getTargetAttrName());
    // The warp partition is the policy's choice on mma.sync; wgmma has its
    // own (each warpgroup all columns of 64 rows), and the policy, a hint
    // for the partition, gives way to it.
    module.walk([&](GemmOp gemm) {
      if (getGemmInstruction(gemm).getKind() == GemmInstructionKind::Wgmma)
        gemm.setPolicy(GemmPolicy::FullRow);
    });
    WalkResult result = module.walk([&](KernelOp kernel) {
      return failed(inferKernel(kernel, target)) ? WalkResult::interrupt()
                                                 : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // A swizzle some access of its tile would not apply (the user's, the
    // planner's, one given here) is dropped, so that the layouts after
    // this pass are the ones the lowering applies. (The conversions drop
    // them too, for inputs that did not come through this pass.)
    dropUnappliedSwizzles(module);
  }

  LogicalResult inferKernel(KernelOp kernel, TargetAttr target) {
    // A gemm in a range of the block's threads (TileLang's `T.ws(0)`, `if
    // tx < 128:`) runs on that range's, and a fragment every use of which
    // is in one range is laid out over its threads.
    auto threadsOf = [](Operation *op) { return getThreadsOf(op); };
    const TargetInfo &info = getTargetInfo(kernel->getContext(), target);
    // The user's annotations move onto the allocations they name (as the
    // canonicalizer would move them).
    SmallVector<AnnotateLayoutOp> annotations;
    kernel.getBody().walk(
        [&](AnnotateLayoutOp op) { annotations.push_back(op); });
    IRRewriter rewriter(kernel->getContext());
    for (AnnotateLayoutOp op : annotations)
      (void)op.moveToAllocation(rewriter);
    LayoutClasses classes(keepConflictsInMemory);
    SmallVector<AllocFragmentOp> allocs(
        kernel.getBody().front().getOps<AllocFragmentOp>());
    for (AllocFragmentOp alloc : allocs) {
      classes.add(alloc.getResult());
      if (auto given = dyn_cast_or_null<FragmentLayoutAttr>(
              alloc.getLayoutAttr()))
        (void)classes.force(alloc.getResult(), given, alloc);
    }
    // A layout places coordinates, whatever the element type: an f32
    // accumulator and its f16 copy share one.
    auto sameFragments = [&](Value a, Value b) {
      return classes.contains(a) && classes.contains(b) &&
             cast<MemRefType>(a.getType()).getShape() ==
                 cast<MemRefType>(b.getType()).getShape();
    };

    SmallVector<ReduceOp> reductions;
    WalkResult walk = kernel.getBody().walk([&](Operation *op) {
      LogicalResult ok = success();
      if (auto reduce = dyn_cast<ReduceOp>(op);
          reduce && classes.contains(reduce.getSrc()) &&
          classes.contains(reduce.getDst()))
        reductions.push_back(reduce);
      GemmOp gemm = dyn_cast<GemmOp>(op);
      GemmInstructionAttr instruction =
          gemm ? getGemmInstruction(gemm) : GemmInstructionAttr();
      if (gemm) {
        // The layouts the lowering of the gemm's instruction holds its
        // accumulators and register operand in.
        int64_t threads = threadsOf(gemm);
        if (FragmentLayoutAttr acc = info.getAccumulatorLayout(
                gemm, instruction, threads, target);
            acc && classes.contains(gemm.getC()))
          ok = classes.force(gemm.getC(), acc, gemm);
        if (FragmentLayoutAttr operand = info.getOperandALayout(
                gemm, instruction, threads, target);
            succeeded(ok) && operand && classes.contains(gemm.getA()))
          ok = classes.force(gemm.getA(), operand, gemm);
        // Shared operands get the swizzle its instruction reads them in
        // best, unless the user chose one; through views (a stage of a
        // tile the kernel buffers by hand), the allocation does, where
        // every access of it can apply the swizzle.
        for (Value operand : {gemm.getA(), gemm.getB()}) {
          Value root = operand;
          while (auto view = root.getDefiningOp<memref::SubViewOp>())
            root = view.getSource();
          auto shared = root.getDefiningOp<AllocSharedOp>();
          if (!shared || shared.getLayoutAttr() ||
              !isa<MemRefType>(operand.getType()))
            continue;
          // (A window of a wider tile, `Q_shared[:, :512]`: the swizzle
          // of its page.)
          SwizzleAttr swizzle = info.getOperandSwizzle(
              gemm, instruction, threads, getWindowPage(operand), target);
          if (swizzle && (root == operand || appliesSwizzle(root, swizzle)))
            shared.setLayoutAttr(swizzle);
        }
      } else if (auto copy = dyn_cast<CopyOp>(op);
                 copy && sameFragments(copy.getSrc(), copy.getDst())) {
        ok = classes.join(copy.getSrc(), copy.getDst(), copy);
      } else if (auto parallel = dyn_cast<ParallelOp>(op)) {
        ok = joinParallelAccesses(parallel, classes);
      }
      return failed(ok) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();

    // The first member of a class to need a layout and have none fixes the
    // default for the whole class.
    auto layoutOf = [&](Value fragment) {
      FragmentLayoutAttr layout = classes.getForced(fragment);
      if (!layout) {
        layout = getDefaultLayout(cast<MemRefType>(fragment.getType()),
                                  getFragmentThreads(fragment));
        (void)classes.force(fragment, layout, fragment.getDefiningOp());
      }
      return layout;
    };
    // A reduction's result lives on the threads that held its rows, in
    // program order so that chains of reductions see their sources' layouts.
    for (ReduceOp reduce : reductions) {
      if (classes.isConflicted(reduce.getSrc()))
        continue;
      FragmentLayoutAttr reduced = getReducedLayout(
          layoutOf(reduce.getSrc()), reduce.getDim(), reduce.getDst().getType());
      if (reduced && failed(classes.force(reduce.getDst(), reduced, reduce)))
        return failure();
    }
    for (AllocFragmentOp alloc : allocs)
      if (!classes.isConflicted(alloc.getResult()))
        alloc.setLayoutAttr(layoutOf(alloc.getResult()));
    // The staging tiles of epilogues, where the target has a swizzle for
    // them.
    swizzleStagingTiles(kernel, info, target, classes);
    return success();
  }

  /// The fragment `tile` (a shared allocation) stages on its way to global
  /// memory, if it only does that: every use is a whole-tile copy, some
  /// from a fragment into it (the last one's source is returned) and some
  /// from it into a global buffer; null otherwise.
  static Value getStagedFragment(AllocSharedOp tile) {
    Value written;
    bool stored = false;
    for (Operation *user : tile->getUsers()) {
      auto copy = dyn_cast<CopyOp>(user);
      if (!copy || copy.getBarriers() || copy.getAsync())
        return {};
      if (copy.getDst() == tile.getResult() && copy.getDstOffsets().empty() &&
          isInSpace(cast<MemRefType>(copy.getSrc().getType()),
                    MemorySpace::Fragment)) {
        written = copy.getSrc();
        continue;
      }
      if (copy.getSrc() == tile.getResult() && copy.getSrcOffsets().empty() &&
          !cast<MemRefType>(copy.getDst().getType()).getMemorySpace()) {
        stored = true;
        continue;
      }
      return {};
    }
    return stored ? written : Value();
  }

  /// A shared tile without a layout that stages a fragment on its way to
  /// global memory (a staged epilogue) takes the target's staging swizzle
  /// (NVIDIA sm_80+: the swizzle of tensor-core operands, so that the
  /// fragments' stores hit distinct banks and TMA stores read its rows),
  /// with wider 16-bit rows laid out as the instruction of the gemm whose
  /// accumulators the fragment holds (its layout class) says: blocked, in
  /// column panels.
  void swizzleStagingTiles(KernelOp kernel, const TargetInfo &info,
                           TargetAttr target, const LayoutClasses &classes) {
    kernel.getBody().walk([&](AllocSharedOp tile) {
      if (tile.getLayoutAttr())
        return;
      Value fragment = getStagedFragment(tile);
      if (!fragment)
        return;
      GemmInstructionAttr instruction;
      if (classes.contains(fragment))
        kernel.getBody().walk([&](GemmOp gemm) {
          if (!instruction && classes.contains(gemm.getC()) &&
              classes.find(gemm.getC()) == classes.find(fragment))
            instruction = getGemmInstruction(gemm);
        });
      MemRefType type = tile.getType();
      if (SwizzleAttr swizzle = info.getStagingTileSwizzle(
              MemRefType::get(type.getShape(), type.getElementType()),
              getSharedTileOptions(instruction), target);
          swizzle && appliesSwizzle(tile.getResult(), swizzle))
        tile.setLayoutAttr(swizzle);
    });
  }

  /// Fragments loaded or stored at exactly the parallel's coordinates, with
  /// the parallel's shape, are one class.
  static LogicalResult joinParallelAccesses(ParallelOp parallel,
                                            LayoutClasses &classes) {
    Block &body = parallel.getBody().front();
    ValueRange coords = body.getArguments();
    ArrayRef<int64_t> extents = parallel.getExtents();
    Value first;
    WalkResult walk = parallel.getBody().walk([&](Operation *op) {
      Value memref;
      ValueRange indices;
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        memref = load.getMemRef();
        indices = load.getIndices();
      } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
        memref = store.getMemRef();
        indices = store.getIndices();
      }
      if (!memref || !classes.contains(memref) ||
          !llvm::equal(indices, coords) ||
          cast<MemRefType>(memref.getType()).getShape() != extents)
        return WalkResult::advance();
      if (!first) {
        first = memref;
        return WalkResult::advance();
      }
      return failed(classes.join(first, memref, op)) ? WalkResult::interrupt()
                                                     : WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }
};

} // namespace
