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

#include "TileLang/Conversion/TileToNVGPU.h"
#include "TileLang/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEINFERLAYOUT
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Fragments that must share a layout, as a union-find over the
/// allocations' results; each class remembers its forced layout and the op
/// that forced it.
class LayoutClasses {
public:
  void add(Value fragment) { parent.try_emplace(fragment, fragment); }
  bool contains(Value v) const { return parent.contains(v); }

  Value find(Value v) {
    Value &p = parent[v];
    if (p != v)
      p = find(p);
    return p;
  }

  /// Forces `layout` on the class of `fragment` because of `op`.
  LogicalResult force(Value fragment, FragmentLayoutAttr layout,
                      Operation *op) {
    Value root = find(fragment);
    auto [it, inserted] = forced.try_emplace(root, layout, op);
    if (inserted || it->second.first == layout)
      return success();
    return conflict(op, it->second);
  }

  /// Puts `a` and `b` in one class because of `op`.
  LogicalResult join(Value a, Value b, Operation *op) {
    Value ra = find(a), rb = find(b);
    if (ra == rb)
      return success();
    auto fa = forced.find(ra), fb = forced.find(rb);
    if (fa != forced.end() && fb != forced.end() &&
        fa->second.first != fb->second.first) {
      InFlightDiagnostic diag = conflict(op, fa->second);
      diag.attachNote(fb->second.second->getLoc())
          << "which must have the layout this op forces";
      return diag;
    }
    parent[rb] = ra;
    if (fb != forced.end()) {
      std::pair<FragmentLayoutAttr, Operation *> moved = fb->second;
      forced.erase(rb);
      forced.try_emplace(ra, moved);
    }
    return success();
  }

  FragmentLayoutAttr getForced(Value fragment) {
    auto it = forced.find(find(fragment));
    return it == forced.end() ? FragmentLayoutAttr() : it->second.first;
  }

private:
  InFlightDiagnostic conflict(Operation *op,
                              std::pair<FragmentLayoutAttr, Operation *> &by) {
    InFlightDiagnostic diag =
        op->emitError("conflicting fragment layouts: this op requires a "
                      "layout other than the one forced by the op noted");
    diag.attachNote(by.second->getLoc()) << "layout forced here: " << by.first;
    return diag;
  }

  llvm::DenseMap<Value, Value> parent;
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

struct InferLayoutPass
    : public tile::impl::TileInferLayoutBase<InferLayoutPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto target =
        module->getAttrOfType<TargetAttr>(TileDialect::getTargetAttrName());
    bool tensorCores = target && target.getKind() == TargetKind::CUDA &&
                       target.getSmVersion() >= 80;
    WalkResult result = module.walk([&](KernelOp kernel) {
      return failed(inferKernel(kernel, tensorCores)) ? WalkResult::interrupt()
                                                      : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult inferKernel(KernelOp kernel, bool tensorCores) {
    int64_t threads = kernel.getNumThreads();
    LayoutClasses classes;
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

    WalkResult walk = kernel.getBody().walk([&](Operation *op) {
      LogicalResult ok = success();
      if (auto gemm = dyn_cast<GemmOp>(op); gemm && tensorCores &&
                                            classes.contains(gemm.getC())) {
        if (FragmentLayoutAttr mma = getMmaAccumulatorLayout(gemm, threads))
          ok = classes.force(gemm.getC(), mma, gemm);
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

    for (AllocFragmentOp alloc : allocs) {
      FragmentLayoutAttr layout = classes.getForced(alloc.getResult());
      if (!layout) {
        // The first member of the class to get a default fixes it for all.
        layout = getDefaultLayout(alloc.getType(), threads);
        (void)classes.force(alloc.getResult(), layout, alloc);
      }
      alloc.setLayoutAttr(layout);
    }
    return success();
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
