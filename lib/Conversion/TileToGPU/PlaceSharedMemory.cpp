//===- PlaceSharedMemory.cpp - Tiles in dynamic shared memory -----------===//
//
// Part of TileLang-MLIR.
//
// tile-place-shared-memory: the on-chip tiles left in each gpu.launch by
// convert-tile-to-gpu become views of its dynamic shared memory (or
// per-thread allocas), at offsets that reuse the bytes of dead tiles (see
// Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/Passes.h"

#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Target/TargetInfo.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SetVector.h"

#include <limits>
#include <numeric>

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEPLACESHAREDMEMORY
#include "TileLang/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

/// The alignment TMA needs of a shared destination.
static constexpr int64_t kBulkCopyAlignment = 128;

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
  memref::AllocOp alloc;
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
static int64_t getTileAlignment(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  int64_t alignment = kSharedTileAlignment;
  if (getTileSizeInBytes(alloc.getType()) % kBulkCopyAlignment == 0)
    alignment = kBulkCopyAlignment;
  if (auto swizzle = alloc->getAttrOfType<SwizzleAttr>(
          TileDialect::getUnplacedTileAttrName()))
    alignment = std::max<int64_t>(
        alignment, swizzle.getPeriod() * type.getElementTypeBitWidth() / 8);
  return alignment;
}

/// Offsets of the shared tiles of `body` in dynamic shared memory: one after
/// another, or, with `reuse`, first fit among the tiles whose lifetimes
/// overlap. Tiles are placed by decreasing alignment, then decreasing size
/// (first fit decreasing): the small 16-byte-aligned ones (barriers,
/// reduction scratch) go after the swizzled and TMA tiles instead of
/// pushing the next one to its swizzle period, and a large tile that lives
/// after a loop finds the bytes of the loop's large tiles free. Returns the
/// bytes needed.
static int64_t assignOffsets(const Timeline &timeline,
                             MutableArrayRef<Placement> tiles, bool reuse) {
  SmallVector<int64_t> alignments;
  for (Placement &tile : tiles) {
    tile.size = getTileSizeInBytes(tile.alloc.getType());
    tile.life = timeline.getLiveRange(tile.alloc.getResult());
    alignments.push_back(getTileAlignment(tile.alloc));
  }
  SmallVector<int64_t> order(tiles.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::sort(order, [&](int64_t a, int64_t b) {
    return std::make_tuple(alignments[a], tiles[a].size, -a) >
           std::make_tuple(alignments[b], tiles[b].size, -b);
  });
  int64_t total = 0;
  for (auto [i, index] : llvm::enumerate(order)) {
    Placement &tile = tiles[index];
    int64_t alignment = alignments[index];
    int64_t offset = 0;
    if (reuse) {
      // Lowest aligned offset clear of every tile placed before that is
      // alive at the same time; retry after each collision.
      bool moved = true;
      while (moved) {
        moved = false;
        for (int64_t placed : ArrayRef(order).take_front(i)) {
          const Placement &other = tiles[placed];
          if (tile.overlapsInTime(other) &&
              offset < other.offset + other.size &&
              other.offset < offset + tile.size) {
            offset = llvm::alignTo(other.offset + other.size, alignment);
            moved = true;
          }
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

/// Places the tiles convert-tile-to-gpu left in every gpu.launch (marked
/// memref.allocs in workgroup memory) as views of its dynamic shared
/// memory. A kernel whose
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
      if (auto alloc = dyn_cast<memref::AllocOp>(inner);
          alloc && alloc->hasAttr(TileDialect::getUnplacedTileAttrName()))
        shared.push_back({alloc});
    Timeline timeline(body);
    int64_t total = assignOffsets(timeline, shared, reuse);
    if (limit && total > limit) {
      InFlightDiagnostic error =
          launch.emitError()
          << "the kernel's shared tiles need " << total
          << " bytes of shared memory" << (reuse ? " (with reuse)" : "")
          << ", more than the " << limit << " bytes a block may use on "
          << target.getChip() << "; use smaller tiles or fewer pipeline stages";
      // Which tiles take the bytes, largest first (a pipeline's stages are
      // one tile each, at the user's allocation).
      SmallVector<Placement *> bySize;
      for (Placement &tile : shared)
        bySize.push_back(&tile);
      llvm::stable_sort(bySize, [](const Placement *a, const Placement *b) {
        return a->size > b->size;
      });
      for (Placement *tile : bySize)
        error.attachNote(tile->alloc.getLoc())
            << "a tile of " << tile->size << " bytes ("
            << tile->alloc.getType() << ") at offset " << tile->offset
            << ", live in ops " << tile->life.first << " to "
            << tile->life.last << " of the kernel body";
      return error;
    }

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
    for (Placement &placement : shared) {
      memref::AllocOp alloc = placement.alloc;
      MemRefType type = alloc.getType();
      // In place of the allocation, which dominates every use of the tile.
      builder.setInsertionPoint(alloc);
      if (!dynamicShared) {
        auto bytes = MemRefType::get({ShapedType::kDynamic},
                                     builder.getI8Type(), AffineMap(),
                                     type.getMemorySpace());
        dynamicShared = gpu::DynamicSharedMemoryOp::create(builder, loc, bytes);
      }
      Value shift =
          arith::ConstantIndexOp::create(builder, loc, placement.offset);
      Value view = memref::ViewOp::create(builder, alloc.getLoc(), type,
                                          dynamicShared, shift, ValueRange{});
      // The tile's views as other element types: the same bytes.
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers())) {
        auto typed = dyn_cast<ViewOp>(user);
        if (!typed)
          continue;
        builder.setInsertionPoint(typed);
        typed.getResult().replaceAllUsesWith(memref::ViewOp::create(
            builder, typed.getLoc(), typed.getType(), dynamicShared, shift,
            ValueRange{}));
        typed.erase();
      }
      alloc.getResult().replaceAllUsesWith(view);
      alloc.erase();
    }
  }
  // A view of anything but a placed tile has no bytes to take.
  WalkResult views = module.walk([](ViewOp view) {
    if (!isa_and_nonnull<gpu::AddressSpaceAttr>(
            cast<MemRefType>(view.getSource().getType()).getMemorySpace()))
      return WalkResult::advance();
    view.emitOpError("views workgroup memory that is not a tile of its "
                     "kernel; a whole shared tile allocated in the kernel "
                     "body can be viewed as another element type");
    return WalkResult::interrupt();
  });
  return failure(views.wasInterrupted());
}


namespace {
struct PlaceSharedMemoryPass
    : public tile::impl::TilePlaceSharedMemoryBase<PlaceSharedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto target =
        module->getAttrOfType<TargetAttr>(TileDialect::getTargetAttrName());
    if (failed(placeAllocations(module, reuseSharedMemory, target)))
      return signalPassFailure();
  }
};
} // namespace
