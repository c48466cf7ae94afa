//===- TileToGPU.cpp - Tile kernels to gpu.launch ------------------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/Passes.h"

#include "TileLang/Conversion/RegisterFragments.h"
#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Target/TargetInfo.h"
#include "TileLang/Transforms/InstructionSelection.h"
#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <algorithm>
#include <limits>

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "TileLang/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

/// tile.kernel -> gpu.launch with the kernel's body; its allocations stay
/// (they are placed once the tile ops are lowered).
/// Thread block clusters are launched where the target says
/// (TargetInfo::launchesClusters: NVIDIA from sm_90 on, and when no target
/// is attached); AMD GPUs have none, and blocks that run unclustered compute
/// the same result there: the cluster-scoped synchronization ops are refused
/// in such kernels before this pattern runs (lowerClusterOps).
struct KernelToLaunch : OpRewritePattern<KernelOp> {
  KernelToLaunch(MLIRContext *ctx, TargetAttr target)
      : OpRewritePattern(ctx), target(target),
        info(getTargetInfo(ctx, target)) {}

  LogicalResult matchAndRewrite(KernelOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool launchClusters = false;
    if (op.getCluster()) {
      FailureOr<bool> clusters = info.launchesClusters(op, target);
      if (failed(clusters))
        return failure();
      launchClusters = *clusters;
    }
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    // A grid size no launch can have is an error here: upstream's
    // gpu.launch canonicalization crashes on the size of a dimension that
    // does not exist (memref.dim at -1), and a negative constant is no grid.
    for (auto [i, size] : llvm::enumerate(op.getGrid())) {
      if (auto dim = size.getDefiningOp<memref::DimOp>()) {
        auto type = dyn_cast<MemRefType>(dim.getSource().getType());
        std::optional<int64_t> index = dim.getConstantIndex();
        if (type && index && (*index < 0 || *index >= type.getRank())) {
          op.emitOpError("grid size #")
              << i << " is the size of dimension " << *index << " of "
              << type << ", which has no such dimension";
          return failure();
        }
      }
      if (std::optional<int64_t> value = getConstantIntValue(size);
          value && *value < 0) {
        op.emitOpError("grid size #") << i << " is negative (" << *value
                                      << ")";
        return failure();
      }
    }
    SmallVector<Value, 3> grid(op.getGrid());
    while (grid.size() < 3)
      grid.push_back(constant(1));
    SmallVector<Value, 3> block;
    for (int64_t t : op.getThreads())
      block.push_back(constant(t));
    // A producer warpgroup's threads come after the kernel's own.
    if (auto extra = op->getAttrOfType<IntegerAttr>(
            TileDialect::getProducerThreadsAttrName()))
      block[0] = constant(op.getThreads()[0] + extra.getInt());
    while (block.size() < 3)
      block.push_back(constant(1));
    SmallVector<Value, 3> cluster;
    if (std::optional<ArrayRef<int64_t>> dims = op.getCluster();
        dims && launchClusters) {
      for (int64_t c : *dims)
        cluster.push_back(constant(c));
      while (cluster.size() < 3)
        cluster.push_back(constant(1));
    }

    int64_t sharedBytes = 0;
    for (Operation &inner : op.getBody().front())
      if (auto alloc = dyn_cast<TileAllocationOpInterface>(inner);
          alloc && alloc.getTileMemorySpace() != MemorySpace::Local)
        sharedBytes = llvm::alignTo(sharedBytes, kSharedTileAlignment) +
                      alloc.getTileSizeInBytes();
    if (sharedBytes > std::numeric_limits<int32_t>::max()) {
      op.emitOpError("the kernel's shared tiles need ")
          << sharedBytes << " bytes, more than a launch can ask for (2^31 - 1)";
      return failure();
    }
    Value dynamicShared;
    if (sharedBytes > 0)
      dynamicShared = arith::ConstantIntOp::create(rewriter, loc, sharedBytes,
                                                   /*width=*/32);

    auto launch = gpu::LaunchOp::create(
        rewriter, loc, grid[0], grid[1], grid[2], block[0], block[1],
        block[2], dynamicShared, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/{}, /*workgroupAttributions=*/{},
        /*privateAttributions=*/{},
        cluster.empty() ? Value() : cluster[0],
        cluster.empty() ? Value() : cluster[1],
        cluster.empty() ? Value() : cluster[2]);
    Block &body = launch.getBody().front();
    // The builder gives the body the twelve block/thread id and size
    // arguments only; a launch with clusters also carries the six cluster id
    // and size arguments right after them, as the parser creates them.
    for (unsigned i = body.getNumArguments(),
                  e = launch.getNumConfigRegionAttributes();
         i < e; ++i)
      body.insertArgument(i, rewriter.getIndexType(), loc);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToEnd(&body);
      gpu::TerminatorOp::create(rewriter, loc);
    }
    gpu::KernelDim3 ids = launch.getBlockIds();
    SmallVector<Value> blockIds = {ids.x, ids.y, ids.z};
    blockIds.resize(op.getGrid().size());
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&body);
      rasterizeBlockIds(rewriter, loc, op, launch.getGridSize().x,
                        launch.getGridSize().y, blockIds);
    }
    inlineTileBody(rewriter, op.getBody(), &body, blockIds);
    rewriter.eraseOp(op);
    return success();
  }

private:
  TargetAttr target;
  const TargetInfo &info;
};

/// Replaces the on-chip tile allocations left in each launch (their types
/// already in workgroup or private memory) by plain ones: `memref.alloc`s
/// marked for tile-place-shared-memory, or per-thread `memref.alloca`s.
static void materializeTileAllocations(ModuleOp module) {
  SmallVector<TileAllocationOpInterface> allocs;
  module.walk([&](gpu::LaunchOp launch) {
    for (Operation &op : launch.getBody().front())
      if (auto alloc = dyn_cast<TileAllocationOpInterface>(op))
        allocs.push_back(alloc);
  });
  for (TileAllocationOpInterface alloc : allocs) {
    OpBuilder b(alloc);
    MemRefType type = alloc.getTile().getType();
    Value replacement;
    if (type.getMemorySpace()) {
      auto shared = memref::AllocOp::create(b, alloc.getLoc(), type);
      Attribute layout = alloc.getTileLayout();
      shared->setAttr(TileDialect::getUnplacedTileAttrName(),
                      layout ? layout : b.getUnitAttr());
      replacement = shared;
    } else {
      replacement = memref::AllocaOp::create(b, alloc.getLoc(), type);
    }
    alloc.getTile().replaceAllUsesWith(replacement);
    alloc->erase();
  }
}

/// Whether `region` holds tile ops (their yields aside).
static bool holdsTileOps(Region &region) {
  WalkResult found = region.walk([](Operation *op) {
    return isa<TileDialect>(op->getDialect()) && !isa<YieldOp>(op)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// Why the tile ops under `branch` cannot run on the threads its condition
/// selects, or the range of those threads.
static FailureOr<std::pair<int64_t, int64_t>>
getNarrowedRange(scf::IfOp branch, TargetAttr target, std::string &why) {
  auto kernel = branch->getParentOfType<KernelOp>();
  if (!target || target.getKind() != TargetKind::CUDA) {
    why = "tile ops run on part of the block only on NVIDIA targets";
    return failure();
  }
  if (!kernel || kernel.getThreads().size() != 1) {
    why = "tile ops run on part of the block only in one-dimensional blocks";
    return failure();
  }
  int64_t threads = kernel.getThreads()[0];
  auto range = matchThreadRange(branch.getCondition(), threads);
  if (!range) {
    why = "the condition is not a range of threads (tid < c, tid >= c, or "
          "both)";
    return failure();
  }
  if (range->second == 0 || range->first % 32 || range->second % 32) {
    why = "the threads [" + std::to_string(range->first) + ", " +
          std::to_string(range->first + range->second) +
          ") are not whole warps";
    return failure();
  }
  if (holdsTileOps(branch.getElseRegion())) {
    why = "the else branch holds tile ops too";
    return failure();
  }
  // A fragment the branch uses must be laid out over the range's threads
  // (tile-infer-layout does so for one every use of which is in the range).
  Value stray;
  branch.getThenRegion().walk([&](Operation *op) {
    // (Ops in a range nested in this one are that range's to check.)
    if (getThreadRangeOf(op) != range)
      return;
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type || getMemorySpace(type) != MemorySpace::Fragment)
        continue;
      Value root = operand;
      while (auto view = root.getDefiningOp<ViewLikeOpInterface>())
        root = view.getViewSource();
      auto alloc = root.getDefiningOp<AllocFragmentOp>();
      auto layout = alloc ? dyn_cast_or_null<FragmentLayoutAttr>(
                                alloc.getLayoutAttr())
                          : FragmentLayoutAttr();
      if (!layout || layout.getThreads() != range->second)
        stray = root;
    }
  });
  if (stray) {
    why = "a fragment it uses is laid out over " +
          std::to_string(getFragmentThreads(stray)) +
          " threads, not the range's " + std::to_string(range->second) +
          " (a fragment that a range of threads uses must be used only in "
          "that range)";
    return failure();
  }
  return *range;
}

/// Tile ops synchronize the threads that run them, so none may depend on a
/// tile.thread_id through control flow (an `if T.get_thread_binding() ==
/// 0:` around a copy would hang), but for an scf.if on a range of whole
/// warps of a one-dimensional block on NVIDIA (TileLang's `if tx < 128:
/// T.copy(...)`): it gets that range as its `tile.thread_range`, and the
/// tile ops inside are spread over those threads, their barriers named
/// barriers of that many threads.
/// A tile.sync_threads that names how many threads arrive (TileLang's
/// named barrier) must be in a range of that many threads, or outside
/// ranges in a block of that many: its barrier is that range's.
static LogicalResult checkBarrierThreads(ModuleOp module) {
  WalkResult result = module.walk([](SyncThreadsOp op) {
    std::optional<uint64_t> stated = op.getThreads();
    if (!stated)
      return WalkResult::advance();
    int64_t actual = op->getParentOfType<KernelOp>().getNumThreads();
    StringRef where = "the block";
    for (Operation *parent = op->getParentOp(); !isa<KernelOp>(parent);
         parent = parent->getParentOp())
      if (auto range = parent->getAttrOfType<DenseI64ArrayAttr>(
              TileDialect::getThreadRangeAttrName())) {
        actual = range[1]; // [first, count]
        where = "the range of threads it is in";
        break;
      }
    if (static_cast<int64_t>(*stated) == actual)
      return WalkResult::advance();
    op.emitOpError() << "synchronizes " << *stated << " threads, but "
                     << where << " has " << actual
                     << " (a named barrier is the barrier of the whole warps "
                        "that run it: if tx < n, n of them)";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// `if <range> {A} else {B}` with tile ops in B (TileLang's `if tx < 128:
/// ... else: ...`, and `elif` chains over warpgroups): B moves into a second
/// if, right after, on the range of the threads that reach the first and
/// are outside its condition (getElseThreadRange), so that each branch is a
/// range of threads of its own. Only result-less ifs whose else is one
/// range; outer ifs first, so that an elif nested in an else is split
/// inside the range it moved to.
static void splitThreadRangeElses(ModuleOp module) {
  SmallVector<scf::IfOp> branches;
  module.walk<WalkOrder::PreOrder>([&](scf::IfOp branch) {
    if (!branch.getNumResults() && !branch.getElseRegion().empty() &&
        holdsTileOps(branch.getElseRegion()) &&
        getElseThreadRange(branch))
      branches.push_back(branch);
  });
  for (scf::IfOp branch : branches) {
    std::optional<std::pair<int64_t, int64_t>> rest =
        getElseThreadRange(branch);
    if (!rest)
      continue;
    auto kernel = branch->getParentOfType<KernelOp>();
    int64_t threads = kernel.getThreads()[0];
    Location loc = branch.getLoc();
    OpBuilder b(branch->getContext());
    b.setInsertionPointAfter(branch);
    Value tid = ThreadIdOp::create(b, loc, b.getIndexType(), uint64_t(0));
    auto bound = [&](arith::CmpIPredicate predicate, int64_t c) -> Value {
      return arith::CmpIOp::create(
          b, loc, predicate, tid,
          arith::ConstantIndexOp::create(b, loc, c));
    };
    Value cond;
    if (rest->first > 0)
      cond = bound(arith::CmpIPredicate::sge, rest->first);
    if (rest->first + rest->second < threads) {
      Value below =
          bound(arith::CmpIPredicate::slt, rest->first + rest->second);
      cond = cond ? arith::AndIOp::create(b, loc, cond, below).getResult()
                  : below;
    }
    if (!cond)
      cond = arith::ConstantIntOp::create(b, loc, 1, 1);
    auto second = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    // The else block's ops (its yield too) replace the new then block's.
    Block &from = branch.getElseRegion().front();
    Block &to = second.getThenRegion().front();
    to.getOperations().clear();
    to.getOperations().splice(to.end(), from.getOperations());
    branch.getElseRegion().getBlocks().clear();
  }
}

static LogicalResult narrowOrRefuse(ModuleOp module, TargetAttr target) {
  splitThreadRangeElses(module);
  SetVector<Operation *> perThread;
  module.walk([&](ThreadIdOp op) {
    getForwardSlice(op.getOperation(), &perThread);
  });
  DenseSet<Value> fromThreadId = getThreadDependentValues(module);
  auto perThreadValue = [&](Value value) {
    return fromThreadId.contains(value);
  };
  for (Operation *control : perThread) {
    if (control->getNumRegions() == 0 ||
        isa<TileDialect>(control->getDialect()) ||
        control->hasAttr(TileDialect::getThreadRangeAttrName()))
      continue;
    // A loop is in the slice when its body uses the thread index; every
    // thread runs it the same number of times unless its bounds use it.
    if (auto loop = dyn_cast<scf::ForOp>(control);
        loop && !perThreadValue(loop.getLowerBound()) &&
        !perThreadValue(loop.getUpperBound()) &&
        !perThreadValue(loop.getStep()))
      continue;
    // The slice holds every op nested in one that depends on the thread
    // index; a branch on a value every thread computes alike is there only
    // for its enclosing op (checked by itself): the threads of a range take
    // it together (TileLang's `if tid < 128: ... if n != 0: T.copy(...)`).
    if (auto branch = dyn_cast<scf::IfOp>(control);
        branch && !perThreadValue(branch.getCondition()))
      continue;
    // Ops each thread runs by itself (a thread's copy of a few elements,
    // its arrival or wait) do not synchronize the threads.
    auto isThreadsOwn = [](Operation *inner) {
      if (isa<ThreadIdOp, YieldOp, AsyncCopyElementsOp>(inner))
        return true;
      if (auto arrive = dyn_cast<BarrierArriveOp>(inner))
        return arrive.getAsyncCopies();
      if (auto wait = dyn_cast<AsyncWaitOp>(inner))
        return wait.getPerThread();
      return false;
    };
    Operation *tileOp = nullptr;
    control->walk([&](Operation *inner) {
      if (inner != control && isa<TileDialect>(inner->getDialect()) &&
          !isThreadsOwn(inner) && !tileOp)
        tileOp = inner;
    });
    if (!tileOp)
      continue;
    std::string why = "control flow that is not a plain if";
    if (auto branch = dyn_cast<scf::IfOp>(control)) {
      FailureOr<std::pair<int64_t, int64_t>> range =
          getNarrowedRange(branch, target, why);
      if (succeeded(range)) {
        branch->setAttr(TileDialect::getThreadRangeAttrName(),
                        DenseI64ArrayAttr::get(module.getContext(),
                                               {range->first, range->second}));
        continue;
      }
    }
    InFlightDiagnostic diag = tileOp->emitOpError(
        "synchronizes the threads that run it, but runs under control flow "
        "that depends on the thread index: ")
        << why;
    diag.attachNote(control->getLoc()) << "the thread-dependent control flow";
    return failure();
  }
  return success();
}

struct ConvertTileToGPUPass
    : public tile::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    dropUnappliedSwizzles(module);
    markParallelVectorAccesses(module);
    swizzleElementAccesses(module);
    lowerAssumes(module);

    // Kernels and tile ops, with the tiles still in tile memory spaces
    // (the lowering tells global from on-chip buffers by them).
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    target.addLegalOp<AllocSharedOp, AllocFragmentOp, AllocLocalOp>();
    // Views of shared tiles are placed with them (tile-place-shared-memory).
    target.addDynamicallyLegalOp<ViewOp>([](ViewOp op) {
      return isInSpace(cast<MemRefType>(op.getSource().getType()),
                       MemorySpace::Shared);
    });
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    auto targetAttr =
        module->getAttrOfType<TargetAttr>(TileDialect::getTargetAttrName());
    if (failed(checkTargetRegistered(module)))
      return signalPassFailure();
    if (failed(lowerClusterOps(
            module,
            /*hardwareClusters=*/targetAttr && targetAttr.getSmVersion() >= 90,
            targetAttr ? targetAttr.getChip() : StringRef("none attached"))))
      return signalPassFailure();
    const TargetInfo &info = getTargetInfo(ctx, targetAttr);
    KernelLoweringOptions options;
    options.stmatrix = stmatrix;
    std::unique_ptr<KernelLowering> vendor =
        info.createKernelLowering(targetAttr, options);
    // Each thread adds its own elements of a parallel body: what
    // tile-lower-parallel-atomics does first. Left here, the block would
    // add them once.
    WalkResult atomics = module.walk([](AtomicAddOp op) {
      if (op.isTileForm() || !op->getParentOfType<ParallelOp>())
        return WalkResult::advance();
      op.emitOpError("of one element inside a tile.parallel body adds per "
                     "thread: run tile-lower-parallel-atomics before "
                     "convert-tile-to-gpu (the GPU pipelines do)");
      return WalkResult::interrupt();
    });
    if (atomics.wasInterrupted())
      return signalPassFailure();
    if (failed(narrowOrRefuse(module, targetAttr)) ||
        failed(checkBarrierThreads(module)))
      return signalPassFailure();
    // Every gemm runs on its instruction and every copy on its engine;
    // those without one take the default choice.
    stampDefaultGemmInstructions(module);
    stampDefaultCopyEngines(module);
    // The fragments tile-select-register-fragments marked get their
    // per-thread arrays.
    RegisterFragments fragments;
    if (failed(fragments.materialize(module)))
      return signalPassFailure();
    // The target's own checks and preparations (NVIDIA: wgmma gemms its
    // lowering cannot emit with these registers restamped, tensor maps,
    // warp specialization).
    if (failed(vendor->prepare(module, fragments)))
      return signalPassFailure();
    RewritePatternSet patterns(ctx);
    patterns.add<KernelToLaunch>(ctx, targetAttr);
    populateTileOpLoweringPatterns(patterns, TileLoweringMode::Block);
    populateRegisterFragmentPatterns(patterns, fragments);
    // Target-specific lowerings win over the generic ones where they apply.
    vendor->populatePatterns(patterns, fragments);
    if (failed(applyPartialConversion(module, target, std::move(patterns))) ||
        failed(fragments.eraseAllocations()))
      return signalPassFailure();
    swizzleMarkedAccesses(module);
    replaceTileMemorySpaces(
        module, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup),
        /*localSpace=*/nullptr);
    materializeTileAllocations(module);

    // Shared and fragment tiles live in workgroup memory, local tiles in
    // each thread's private memory: the shared ones as allocations that
    // tile-place-shared-memory places (their layouts on them), the local
    // ones as allocas. The barriers that follow others go in
    // tile-drop-redundant-barriers; the block barriers inside a side of a
    // warp-specialized kernel become that side's named barriers in the
    // vendor's pass after it (NVIDIA: tile-nvvm-named-barriers).
  }
};

} // namespace
