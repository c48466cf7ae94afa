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
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "TileLang/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

/// Alignment of every tile in dynamic shared memory: a 16-byte vector.
static constexpr int64_t kSharedAlignment = 16;
/// The alignment TMA needs of a shared destination.
static constexpr int64_t kBulkCopyAlignment = 128;

namespace {

/// tile.kernel -> gpu.launch with the kernel's body; its allocations stay
/// (they are placed once the tile ops are lowered).
/// Thread block clusters are launched where the target says
/// (TargetInfo::launchesClusters: NVIDIA from sm_90 on, and when no target
/// is attached); AMD GPUs have none, and since the dialect exposes no
/// cluster-scoped memory or synchronization, blocks that run unclustered
/// compute the same result there.
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
        sharedBytes = llvm::alignTo(sharedBytes, kSharedAlignment) +
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

namespace {
/// The order in which a kernel body's ops bound the lifetimes of its
/// tiles: its top-level ops, each followed, when it is a thread range (a
/// side of a warp-specialized kernel, scf.if with
/// `TileDialect::getThreadRangeAttrName`), by that side's own top-level ops.
/// The sides of a kernel run concurrently: what one side does is not
/// ordered with the other's.
struct Timeline {
  explicit Timeline(Block &body) : body(body) {
    for (Operation &op : body) {
      position[&op] = ops.size();
      ops.push_back(&op);
      if (!isThreadRange(&op))
        continue;
      splitBegin = std::min<int64_t>(splitBegin, position[&op]);
      for (Operation &inner : op.getRegion(0).front()) {
        position[&inner] = ops.size();
        ops.push_back(&inner);
      }
      splitEnd = ops.size() - 1;
    }
  }

  static bool isThreadRange(Operation *op) {
    return op->hasAttr(TileDialect::getThreadRangeAttrName());
  }

  /// Where a tile lives: from the first to the last position that touches
  /// it; `side`, when every use is in one thread range.
  struct LiveRange {
    int64_t first, last;
    Operation *side;
  };

  /// The live range of `tile`, used directly or through memrefs derived
  /// from it. A tile confined to one side lives from its first to its last
  /// top-level op of that side; one that any side and anything else touch
  /// lives across every side (the others run meanwhile).
  LiveRange getLiveRange(Value tile) const {
    int64_t first = std::numeric_limits<int64_t>::max(), last = -1;
    llvm::SmallPtrSet<Operation *, 2> sides;
    bool outside = false;
    SmallVector<Value> worklist = {tile};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (Operation *user : value.getUsers()) {
        Operation *top = body.findAncestorOpInBlock(*user);
        if (!top)
          continue;
        if (isThreadRange(top) && top != user) {
          sides.insert(top);
          top = top->getRegion(0).front().findAncestorOpInBlock(*user);
        } else {
          outside = true;
        }
        int64_t at = position.lookup(top);
        first = std::min(first, at);
        last = std::max(last, at);
        for (Value result : user->getResults())
          if (isa<BaseMemRefType>(result.getType()))
            worklist.push_back(result);
      }
    }
    if (last < 0) { // Never used: a point lifetime where it stands.
      first = last = position.lookup(tile.getDefiningOp());
      return {first, last, nullptr};
    }
    if (sides.size() == 1 && !outside)
      return {first, last, *sides.begin()};
    if (!sides.empty()) {
      first = std::min(first, splitBegin);
      last = std::max(last, splitEnd);
    }
    return {first, last, nullptr};
  }

  /// Where a barrier goes that keeps every thread of `side` (null: of the
  /// block) from the op at `at` until all are done with what came before:
  /// at that op within its side; for the whole block, at that op when it
  /// is a top-level one, before the first side when it is a side or in one
  /// (a block barrier inside a side would wait for threads that never reach
  /// it).
  Operation *getBarrierPoint(int64_t at, Operation *side) const {
    Operation *op = ops[at];
    if (!side && (op->getBlock() != &body || isThreadRange(op)))
      return ops[splitBegin];
    return op;
  }

  Block &body;
  llvm::DenseMap<Operation *, int64_t> position;
  SmallVector<Operation *> ops;
  int64_t splitBegin = std::numeric_limits<int64_t>::max(), splitEnd = -1;
};

/// Where one on-chip tile goes in dynamic shared memory.
struct Placement {
  TileAllocationOpInterface alloc;
  int64_t offset = 0, size = 0;
  Timeline::LiveRange life = {};

  /// Whether this tile and `other` may be in use at the same time.
  bool overlapsInTime(const Placement &other) const {
    if (life.side && other.life.side && life.side != other.life.side)
      return true; // Concurrent sides.
    return life.first <= other.life.last && other.life.first <= life.last;
  }
};
} // namespace

/// The alignment of a tile in dynamic shared memory: a 16-byte vector; 128
/// bytes for tiles of a multiple of 128 bytes (what TMA writes into: its
/// destinations are 128-byte aligned); for a swizzled tile, at least one
/// period of its swizzle, so that the pattern applied relative to the tile
/// is the one hardware that swizzles by absolute address (wgmma, TMA)
/// expects.
static int64_t getTileAlignment(TileAllocationOpInterface alloc) {
  MemRefType type = alloc.getTile().getType();
  int64_t alignment = kSharedAlignment;
  if (alloc.getTileSizeInBytes() % kBulkCopyAlignment == 0)
    alignment = kBulkCopyAlignment;
  if (auto swizzle = dyn_cast_or_null<SwizzleAttr>(alloc.getTileLayout()))
    alignment = std::max<int64_t>(
        alignment, swizzle.getPeriod() * type.getElementTypeBitWidth() / 8);
  return alignment;
}

/// Offsets of the shared tiles of `body` in dynamic shared memory: one after
/// another, or, with `reuse`, first fit among the tiles whose lifetimes
/// overlap. Returns the bytes needed.
static int64_t assignOffsets(const Timeline &timeline,
                             MutableArrayRef<Placement> tiles, bool reuse) {
  int64_t total = 0;
  for (auto [i, tile] : llvm::enumerate(tiles)) {
    tile.size = tile.alloc.getTileSizeInBytes();
    int64_t alignment = getTileAlignment(tile.alloc);
    tile.life = timeline.getLiveRange(tile.alloc.getTile());
    int64_t offset = 0;
    if (reuse) {
      // Lowest aligned offset clear of every earlier tile alive at the
      // same time; retry after each collision.
      bool moved = true;
      while (moved) {
        moved = false;
        for (const Placement &other : tiles.take_front(i))
          if (tile.overlapsInTime(other) &&
              offset < other.offset + other.size &&
              other.offset < offset + tile.size) {
            offset = llvm::alignTo(other.offset + other.size, alignment);
            moved = true;
          }
      }
    } else {
      offset = llvm::alignTo(total, alignment);
    }
    tile.offset = offset;
    total = std::max(total, offset + tile.size);
  }
  return total;
}


/// Places the (now workgroup or private) allocations of every gpu.launch:
/// views of dynamic shared memory, or per-thread allocas. A kernel whose
/// tiles need more shared memory than a block of `target` may have is an
/// error (it could not be launched).
static LogicalResult placeAllocations(ModuleOp module, bool reuse,
                                      TargetAttr target) {
  int64_t limit = getMaxSharedMemoryPerBlock(target);
  SmallVector<gpu::LaunchOp> launches;
  module.walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
  for (gpu::LaunchOp launch : launches) {
    Block &body = launch.getBody().front();
    OpBuilder builder(launch.getContext());
    Location loc = launch.getLoc();

    SmallVector<Placement> shared;
    for (Operation &inner : body)
      if (auto alloc = dyn_cast<TileAllocationOpInterface>(inner);
          alloc && alloc.getTile().getType().getMemorySpace())
        shared.push_back({alloc});
    Timeline timeline(body);
    int64_t total = assignOffsets(timeline, shared, reuse);
    if (limit && total > limit)
      return launch.emitError()
             << "the kernel's shared tiles need " << total
             << " bytes of shared memory" << (reuse ? " (with reuse)" : "")
             << ", more than the " << limit << " bytes a block may use on "
             << target.getChip()
             << "; use smaller tiles or fewer pipeline stages";

    if (reuse && !shared.empty()) {
      // A tile that takes over bytes of a dead one waits until every thread
      // is done with the old tile: the threads of their side when both are
      // confined to one (a barrier there is that side's named barrier).
      llvm::SmallSetVector<Operation *, 4> barriers;
      for (const Placement &a : shared)
        for (const Placement &b : shared)
          if (a.life.first < b.life.first && a.life.last < b.life.first &&
              a.offset < b.offset + b.size && b.offset < a.offset + a.size)
            barriers.insert(timeline.getBarrierPoint(
                b.life.first,
                a.life.side == b.life.side ? b.life.side : nullptr));
      for (Operation *before : barriers) {
        builder.setInsertionPoint(before);
        gpu::BarrierOp::create(builder, loc);
      }
    }
    // The launch asks for what the tiles now need (less than the kernel's
    // allocations when some share bytes or live in registers; more when the
    // lowering added scratch tiles).
    Value before = launch.getDynamicSharedMemorySize();
    if (before || total > 0) {
      builder.setInsertionPoint(launch);
      launch.getDynamicSharedMemorySizeMutable().assign(
          arith::ConstantIntOp::create(builder, loc, total, /*width=*/32));
      if (Operation *old = before ? before.getDefiningOp() : nullptr;
          old && old->use_empty())
        old->erase();
    }

    Value dynamicShared;
    auto placement = shared.begin();
    for (Operation &inner : llvm::make_early_inc_range(body)) {
      auto alloc = dyn_cast<TileAllocationOpInterface>(inner);
      if (!alloc)
        continue;
      MemRefType type = alloc.getTile().getType();
      // In place of the allocation, which dominates every use of the tile.
      builder.setInsertionPoint(alloc);
      Value replacement;
      if (!type.getMemorySpace()) {
        replacement = memref::AllocaOp::create(builder, alloc.getLoc(), type);
      } else {
        if (!dynamicShared) {
          auto bytes = MemRefType::get({ShapedType::kDynamic},
                                       builder.getI8Type(), AffineMap(),
                                       type.getMemorySpace());
          dynamicShared =
              gpu::DynamicSharedMemoryOp::create(builder, loc, bytes);
        }
        assert(placement != shared.end() && placement->alloc == alloc);
        Value shift =
            arith::ConstantIndexOp::create(builder, loc, placement->offset);
        ++placement;
        replacement = memref::ViewOp::create(builder, alloc.getLoc(), type,
                                             dynamicShared, shift,
                                             ValueRange{});
      }
      alloc.getTile().replaceAllUsesWith(replacement);
      inner.erase();
    }
  }
  return success();
}

namespace {
/// Whether a gemm lowering's expected layout places elements like a
/// fragment's table.
class LayoutMatcher {
public:
  LayoutMatcher(const TargetInfo &info, TargetAttr target)
      : info(info), target(target) {}

  /// Whether `layout` (null: none) puts every element where `table` does.
  bool placesLike(FragmentLayoutAttr layout, const FragmentTable &table) {
    if (!layout)
      return false;
    const FragmentTable *expected = FragmentTable::lookup(layout);
    return expected && expected->placesLike(table);
  }

  /// Whether the lowering of `gemm`'s instruction takes `fragment`, its A
  /// or C tile, in registers laid out as `table`: exactly the layout the
  /// target's lowering holds it in (TargetInfo::getAccumulatorLayout,
  /// getOperandALayout).
  bool keepsInRegisters(GemmOp gemm, Value fragment,
                        const FragmentTable &table) {
    int64_t threads = table.getNumThreads();
    GemmInstructionAttr instruction = gemm.getInstructionAttr();
    if (fragment == gemm.getC())
      return placesLike(
          info.getAccumulatorLayout(gemm, instruction, threads, target),
          table);
    return placesLike(
        info.getOperandALayout(gemm, instruction, threads, target), table);
  }

private:
  const TargetInfo &info;
  TargetAttr target;
};
} // namespace

struct ConvertTileToGPUPass
    : public tile::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    dropUnappliedSwizzles(module);

    // 1. Kernels and tile ops, with the tiles still in tile memory spaces
    //    (the lowering tells global from on-chip buffers by them).
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    target.addLegalOp<AllocSharedOp, AllocFragmentOp, AllocLocalOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    auto targetAttr =
        module->getAttrOfType<TargetAttr>(TileDialect::getTargetAttrName());
    if (failed(checkTargetRegistered(module)))
      return signalPassFailure();
    const TargetInfo &info = getTargetInfo(ctx, targetAttr);
    KernelLoweringOptions options;
    options.registerFragments = registerFragments;
    options.stmatrix = stmatrix;
    std::unique_ptr<KernelLowering> vendor =
        info.createKernelLowering(targetAttr, options);
    // Each thread adds its own elements of a parallel body.
    lowerParallelElementAtomics(module, TileLoweringMode::Block);
    // Every gemm runs on its instruction and every copy on its engine;
    // those without one take the default choice.
    stampDefaultGemmInstructions(module);
    stampDefaultCopyEngines(module);
    RegisterFragments fragments;
    LayoutMatcher matcher(info, targetAttr);
    if (registerFragments)
      fragments.select(module, [&](GemmOp gemm, Value fragment,
                                   const FragmentTable &table) {
        return matcher.keepsInRegisters(gemm, fragment, table);
      });
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

    // 2. Shared and fragment tiles live in workgroup memory, local tiles in
    //    each thread's private memory; then the allocations are placed.
    replaceTileMemorySpaces(
        module, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup),
        /*localSpace=*/nullptr);
    if (failed(placeAllocations(module, reuseSharedMemory, targetAttr)))
      return signalPassFailure();
    // The barriers that follow others go in tile-drop-redundant-barriers;
    // the block barriers inside a side of a warp-specialized kernel become
    // that side's named barriers in the vendor's pass after it (NVIDIA:
    // tile-nvvm-named-barriers).
  }
};

} // namespace
