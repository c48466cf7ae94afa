//===- PipelinePlanning.cpp - Multi-buffered asynchronous copies ---------===//
//
// Part of TileLang-MLIR.
//
// tile-plan-pipelines: software-pipelines the global-to-shared copies of
// tile.pipelined loops over num_stages buffers (see Passes.td for the
// schedule and the conditions).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Support/CheckedSize.h"
#include "TileLang/Transforms/Passes.h"

#include "ProducerOperands.h"

#include "TileLang/Transforms/InstructionSelection.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <numeric>

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEPLANPIPELINES
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A copy the planner pipelines: a tile.copy, or a tile.parallel that
/// copies global elements into the tile (a gather,
/// ParallelOp::getGatherDestination).
struct StagedCopy {
  Operation *copy;
  AllocSharedOp alloc;
  MemRefType stagedType;
  SwizzleAttr swizzle;
  Value buffer; // The multi-buffered allocation, once created.
  /// The pure ops of the body that compute its offsets, in body order.
  SmallVector<Operation *> slice;
  /// One stage: the body's top-level ops holding the first read of the
  /// tile and its last (or the tile.gemm_wait that completes it).
  Operation *firstUse = nullptr;
  Operation *lastUse = nullptr;
};

/// True when `user`, at any depth of `body`, only reads `tile` and comes
/// after `copy`.
bool onlyReadsAfter(Operation *user, Value tile, Operation *copy,
                    Block &body) {
  Operation *top = body.findAncestorOpInBlock(*user);
  if (!top || top == copy || !copy->isBeforeInBlock(top))
    return false;
  if (llvm::any_of(user->getResults(),
                   [](Value r) { return isa<BaseMemRefType>(r.getType()); }))
    return false; // Views would need following.
  auto effects = dyn_cast<MemoryEffectOpInterface>(user);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffectsOnValue(tile, instances);
  return llvm::all_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read>(e.getEffect());
  });
}

/// Whether a pipelined `loop` may fill buffers of its own for `tile`, which
/// ops outside it use too (they keep the tile): in the loop's block, the
/// first op to touch the tile on either side of the loop writes it whole
/// (a tile.copy into it), so nothing outside reads what the loop's copies
/// wrote, also when an enclosing loop runs it again. (The loop's own uses
/// follow its copy: it reads nothing written outside.)
bool overwrittenAroundLoop(Value tile, Operation *loop) {
  Block *block = loop->getBlock();
  Operation *firstBefore = nullptr, *firstAfter = nullptr;
  for (Operation *user : tile.getUsers()) {
    if (loop->isAncestor(user))
      continue;
    Operation *top = block->findAncestorOpInBlock(*user);
    if (!top || llvm::any_of(user->getResults(), [](Value r) {
          return isa<BaseMemRefType>(r.getType());
        }))
      return false; // Elsewhere, or a view (would need following).
    Operation *&first =
        top->isBeforeInBlock(loop) ? firstBefore : firstAfter;
    if (!first || top->isBeforeInBlock(first))
      first = top;
  }
  auto writesWhole = [&](Operation *first) {
    auto copy = dyn_cast_or_null<CopyOp>(first);
    return !first || (copy && copy.getDst() == tile &&
                      copy.getDstOffsets().empty() && copy.getSrc() != tile);
  };
  return writesWhole(firstBefore) && writesWhole(firstAfter);
}

/// Adds to `slice` the operations of `body` that compute `value`, when they
/// are free of side effects; false otherwise.
bool collectSlice(Value value, Block &body,
                  llvm::SetVector<Operation *> &slice) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return true; // The induction variable or a block argument outside.
  if (def->getBlock() != &body)
    return !body.getParentOp()->isAncestor(def); // Defined before the loop.
  if (slice.contains(def))
    return true;
  if (!isPure(def) || def->getNumRegions() != 0)
    return false;
  for (Value operand : def->getOperands())
    if (!collectSlice(operand, body, slice))
      return false;
  slice.insert(def);
  return true;
}

/// The stage `stage` of a multi-buffered tile: a view of one slice.
Value getStageView(OpBuilder &b, Location loc, Value buffer, Value stage) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  offsets[0] = stage;
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
  for (int64_t extent : type.getShape().drop_front())
    sizes.push_back(b.getIndexAttr(extent));
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(), type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, viewType, buffer, offsets, sizes,
                                   strides);
}

/// True when the body of `op` stores, unconditionally, each element of a
/// tile of its own shape at its coordinates (a stage buffer it fills holds
/// nothing else).
bool writesWholeTile(ParallelOp op) {
  Value tile = op.getGatherDestination();
  if (!tile || ArrayRef<int64_t>(op.getExtents()) !=
                   cast<MemRefType>(tile.getType()).getShape())
    return false;
  Block &body = op.getBody().front();
  return llvm::all_of(body.getOps<memref::StoreOp>(), [&](memref::StoreOp store) {
    return ValueRange(store.getIndices()) == ValueRange(body.getArguments());
  });
}

/// Clones the copy `copy` (a tile.copy or a gather tile.parallel) with
/// `mapping` at `b`, asynchronous; with `barriers`, arriving on barrier
/// `index` (tile.copy only: the planner stages gathers in cp.async groups).
void cloneAsync(OpBuilder &b, Operation *copy, IRMapping &mapping,
                Value barriers, Value index) {
  Operation *clone = b.clone(*copy, mapping);
  if (auto parallel = dyn_cast<ParallelOp>(clone)) {
    assert(!barriers && "gathers do not arrive on barriers");
    parallel.setAsync(true);
    return;
  }
  auto tileCopy = cast<CopyOp>(clone);
  tileCopy.setAsync(true);
  if (barriers) {
    tileCopy.getBarriersMutable().assign(barriers);
    tileCopy.getBarrierIndexMutable().assign(index);
  }
  // An asynchronous copy now: its engine is chosen again once it is in
  // place (stampAsyncCopyEngines).
  tileCopy.removeEngineAttr();
}

class Planner {
public:
  Planner(PipelinedOp loop, const TargetInfo &info, TargetAttr target,
          bool overlapGemms, bool tma,
          bool tmaBlocked, bool releaseBarriers, int64_t releaseMinWarpgroups,
          int64_t releaseMaxStages, bool warpSpecialize, bool pingpong,
          bool prefetchFirst, bool singleStage, bool singleStageProducer)
      : loop(loop), info(info), target(target), overlapGemms(overlapGemms), tma(tma), tmaBlocked(tmaBlocked),
        releaseBarriers(releaseBarriers),
        releaseMinWarpgroups(releaseMinWarpgroups),
        releaseMaxStages(releaseMaxStages), warpSpecialize(warpSpecialize),
        pingpong(pingpong), prefetchFirst(prefetchFirst),
        singleStage(singleStage), singleStageProducer(singleStageProducer) {}

  /// Finds the copies to pipeline; false when there are none.
  bool analyze();
  /// Fails with a diagnostic at the loop when the staged tiles alone need
  /// more shared memory than a block may use on `target` (or overflow).
  LogicalResult checkSharedMemory(TargetAttr target);
  /// Whether every shared tile of the kernel, the staged ones with one
  /// more stage, fits the block's shared memory.
  /// Whether the kernel's shared tiles fit with `moreStages` more stages of
  /// the staged tiles and second buffers for the version candidates.
  bool fitsWith(int64_t moreStages);
  /// The bytes those tiles take (an upper bound: no reuse, and room for
  /// barriers and scratch tiles), or none when one is not static.
  std::optional<int64_t> getSharedBytesWith(int64_t moreStages);
  void rewrite();

private:
  /// num_stages = 1: each copy refills its own tile as soon as the
  /// iteration's last read of it is done (see Passes.td).
  void rewriteSingleStage();
  /// The top-level ops of the body that read `s`'s tile first and last;
  /// false when a read is tensor-core work that no tile.gemm_wait
  /// pending(0) of the body completes.
  bool findUses(StagedCopy &s);
  /// One stage with a producer warpgroup that issues every iteration's
  /// copies, each after the consumers released its tile; false (nothing
  /// changed) where no producer can be built.
  bool rewriteSingleStageWithProducer(Operation *lastAlloc);
  /// Clones the copies of iteration `iv` into buffer `stage`; with
  /// `barriers`, each arrives on barrier `stage`.
  void emitCopies(OpBuilder &b, Location loc, Value iv, Value stage,
                  Value barriers);
  /// Where a producer and the barrier inits go: after the kernel's leading
  /// allocations and side-effect-free ops, when the loop belongs to the
  /// kernel body and nothing else there needs threads before it; null
  /// otherwise.
  Operation *findProducerPoint();
  /// Builds the producer that issues every iteration's copies (after the
  /// release of the stage's previous fill), with clones of the pure
  /// definitions it uses from the kernel body; false (nothing built) when
  /// one of them is not pure.
  bool buildProducer(Operation *point, Value barriers, Value lb, Value ub,
                     Value step);
  /// The gemms of the body that may keep work in flight across iterations.
  SmallVector<GemmOp> findOverlappableGemms();

  /// True when the body rewrites shared tile `tile` whole in each
  /// iteration before `gemm` reads it and nothing else touches it: one
  /// tile.parallel of the body, before the gemm and over the tile's own
  /// shape, stores every element at its coordinates unconditionally
  /// (TileLang's dequantize loops decoding into a gemm operand); the
  /// tile's other uses are gemms that read it.
  bool isRewrittenEachIteration(Value tile, GemmOp gemm);

  PipelinedOp loop;
  /// Shared tiles of the rewritten-each-iteration kind that overlapped
  /// gemms read: each gets two buffers, iteration i writing buffer i mod 2
  /// while the tensor cores may still read the other (candidates found
  /// with the overlappable gemms, kept when those are overlapped).
  SmallVector<AllocSharedOp> versionCandidates, versioned;
  /// With a producer beside a persistent kernel's loop over tiles (the
  /// scf.for or scf.while of tile-make-persistent that holds the pipelined
  /// loop): both sides loop over the tiles and count fills across them.
  Operation *tiles = nullptr;
  /// The target's answers: the staged operands' swizzle, TMA's boxes.
  const TargetInfo &info;
  TargetAttr target;
  bool overlapGemms;
  bool tma;
  bool tmaBlocked;
  /// With tma: the warps release each stage on a second barrier array and
  /// the thread that issues the next copies into it waits for that, instead
  /// of a block barrier before each stage's copies.
  bool releaseBarriers;
  /// Release barriers only in blocks of at least this many warpgroups.
  int64_t releaseMinWarpgroups;
  /// ... and pipelines of at most this many stages (0: any).
  int64_t releaseMaxStages;
  /// With release barriers, a tile.producer warpgroup issues the copies.
  bool warpSpecialize;
  /// With a producer, the kernel's warpgroups take turns issuing the
  /// body's first gemms.
  bool pingpong;
  /// Without work crossing iterations, issue the prefetch right after the
  /// stage wait instead of after the compute.
  bool prefetchFirst;
  /// Plan loops of num_stages = 1 too (one buffer, refilled early).
  bool singleStage;
  /// With TMA, a producer warpgroup refills the one-stage tiles.
  bool singleStageProducer;
  SmallVector<StagedCopy> staged;
  SmallVector<GemmOp> overlapped;
  llvm::SetVector<Operation *> slice;
  /// The body's last gemm the kernel leaves in flight when a
  /// tile.gemm_wait pending(0) follows it in the body.
  Operation *lastInFlight = nullptr;
  /// Gemms of the kernel that do not wait at all (wg_wait = -1) while work
  /// crosses iterations: they wait for all but one group.
  SmallVector<GemmOp> waitAcrossIterations;
  /// The release barriers (with releaseBarriers and TMA), once created.
  Value released;
};

LogicalResult Planner::checkSharedMemory(TargetAttr target) {
  int64_t limit = getMaxSharedMemoryPerBlock(target);
  std::optional<int64_t> total = 0;
  for (const StagedCopy &s : staged) {
    MemRefType type = s.stagedType;
    std::optional<int64_t> bytes = getCheckedByteSize(
        type.getShape(), (type.getElementTypeBitWidth() + 7) / 8);
    total = bytes && total ? llvm::checkedAdd(*total, *bytes) : std::nullopt;
  }
  if (total && (!limit || *total <= limit))
    return success();
  InFlightDiagnostic diag = loop.emitError()
                            << "num_stages = " << loop.getNumStages()
                            << ": the staged shared tiles need ";
  if (total)
    diag << *total << " bytes of shared memory, more than the " << limit
         << " bytes a block may use on " << target.getChip();
  else
    diag << "more than 2^63 bytes of shared memory";
  return diag << "; use fewer stages or smaller tiles";
}

/// The staged type `staged` ([stages, tile...]) with `stages` stages.
static MemRefType withStages(MemRefType staged, int64_t stages) {
  SmallVector<int64_t> shape(staged.getShape());
  shape[0] = stages;
  return MemRefType::get(shape, staged.getElementType(), AffineMap(),
                         staged.getMemorySpace());
}

/// `stages` buffers of the tile type `tile`: [stages, tile...].
static MemRefType getStagedType(MemRefType tile, int64_t stages) {
  SmallVector<int64_t> shape = {stages};
  llvm::append_range(shape, tile.getShape());
  return MemRefType::get(shape, tile.getElementType(), AffineMap(),
                         tile.getMemorySpace());
}

/// `swizzle`, or null where one buffer of `tile` is not a whole number of
/// its periods (each stage must be swizzled as the tile alone would be).
static SwizzleAttr getStageSwizzle(SwizzleAttr swizzle, MemRefType tile) {
  if (swizzle && tile.getNumElements() % swizzle.getPeriod())
    return {};
  return swizzle;
}

bool Planner::analyze() {
  int64_t stages = loop.getNumStages();
  if (stages < 1 || (stages == 1 && !singleStage) || loop.getOrder() ||
      loop.getStage())
    return false;
  auto kernel = loop->getParentOfType<KernelOp>();
  if (!kernel || mayWriteGlobalMemory(loop))
    return false;
  // A loop the user synchronizes with barriers of their own (TileLang's
  // T.tma_copy, T.barrier_arrive, T.barrier_wait) runs as written: its
  // phases name the barriers of one buffer per tile, which more stages
  // would have to multiply along with the tiles. So does one with copy
  // groups of its own (T.ptx_cp_async, its commits and waits), which the
  // stages' groups would shift.
  if (loop.getBody()
          .walk([](Operation *op) {
            auto copy = dyn_cast<CopyOp>(op);
            return isa<BarrierWaitOp, BarrierArriveOp, AsyncCopyElementsOp,
                       AsyncCommitOp, AsyncWaitOp>(op) ||
                           (copy && copy.getBarriers())
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted())
    return false;
  Block &body = loop.getBody().front();
  for (Operation &op : body) {
    // What the copy writes and the values of the body it needs.
    Value tile;
    SmallVector<Value> needs;
    if (auto copy = dyn_cast<CopyOp>(op)) {
      if (copy.getAsync() || !isGlobalBuffer(copy.getSrc()) ||
          copy.getSrcOffsets().empty() || !copy.getDstOffsets().empty() ||
          copy.getSrc().getType().getElementType() !=
              copy.getDst().getType().getElementType())
        continue;
      tile = copy.getDst();
      llvm::append_range(needs, copy.getSrcOffsets());
    } else if (auto parallel = dyn_cast<ParallelOp>(op)) {
      if (parallel.getAsync() || !writesWholeTile(parallel))
        continue;
      tile = parallel.getGatherDestination();
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(parallel.getBody(), above);
      llvm::append_range(needs, above);
    } else {
      continue;
    }
    auto alloc = tile.getDefiningOp<AllocSharedOp>();
    if (!alloc || alloc->getParentOp() != kernel)
      continue;
    Operation *copy = &op;
    bool readByGemm = false;
    // How the instructions of the gemms that read it lay out wide rows.
    SharedTileOptions sharedTiles;
    bool usedOutside = false;
    bool ok = llvm::all_of(tile.getUsers(), [&](Operation *user) {
      if (copy->isAncestor(user))
        return true;
      if (!loop->isAncestor(user)) {
        usedOutside = true;
        return true;
      }
      if (auto gemm = dyn_cast<GemmOp>(user);
          gemm && (gemm.getA() == tile || gemm.getB() == tile)) {
        readByGemm = true;
        sharedTiles.merge(getSharedTileOptions(getGemmInstruction(gemm)));
      }
      return onlyReadsAfter(user, tile, copy, body);
    });
    // Used outside too (FlashAttention's first K tile before the loop, its
    // last V tile after it): the loop gets buffers of its own. (One stage
    // keeps the tile: every copy the loop issues is waited for in it.)
    ok = ok && (!usedOutside || stages == 1 ||
                overwrittenAroundLoop(tile, loop));
    llvm::SetVector<Operation *> copySlice;
    for (Value value : needs)
      ok = ok && collectSlice(value, body, copySlice);
    if (!ok)
      continue;
    slice.insert(copySlice.begin(), copySlice.end());
    SmallVector<Operation *> ownSlice(copySlice.begin(), copySlice.end());
    llvm::sort(ownSlice, [](Operation *x, Operation *y) {
      return x->isBeforeInBlock(y);
    });

    MemRefType type = alloc.getType();
    MemRefType stagedType = getStagedType(type, loop.getNumStages());
    auto swizzle = dyn_cast_or_null<SwizzleAttr>(alloc.getLayoutAttr());
    if (!swizzle && readByGemm)
      swizzle = info.getStagedOperandSwizzle(type, sharedTiles, target);
    swizzle = getStageSwizzle(swizzle, type);
    StagedCopy candidate{copy, alloc, stagedType, swizzle, Value(),
                         std::move(ownSlice)};
    if (stages == 1 && !findUses(candidate))
      continue;
    staged.push_back(std::move(candidate));
  }
  if (staged.empty())
    return false;
  // Barriers count the stages when TMA can do every copy in one box.
  tma = tma && llvm::all_of(staged, [&](StagedCopy &s) {
    auto copy = dyn_cast<CopyOp>(s.copy);
    if (!copy)
      return false; // A gather: cp.async groups.
    std::optional<int64_t> boxes = info.getBulkCopyBoxes(
        copy, s.alloc.getType(), s.swizzle, target);
    // Blocked tiles take many small boxes: only with tma-blocked; in column
    // panels, one box per panel.
    return boxes && (*boxes == 1 || tmaBlocked ||
                     (s.swizzle && s.swizzle.getPanels()));
  });
  if (stages == 1)
    return true;
  // Gemms the kernel itself leaves in flight (wg_wait != 0): when a
  // tile.gemm_wait pending(0) follows the last of them in the body, the
  // prefetch goes right after that gemm, while the tensor cores work.
  // Otherwise work crosses iterations, and the prefetch at the end of
  // iteration i overwrites what iteration i - 1 read: its gemms must be done,
  // so those that do not wait at all (-1) wait for all but one group.
  bool waitedInBody = false;
  for (Operation &op : body) {
    if (auto gemm = dyn_cast<GemmOp>(op); gemm && gemm.getWgWait() != 0) {
      lastInFlight = gemm;
      waitedInBody = false;
    }
    if (auto wait = dyn_cast<GemmWaitOp>(op); wait && wait.getPending() == 0)
      waitedInBody = true;
  }
  if (lastInFlight && !waitedInBody) {
    lastInFlight = nullptr;
    for (auto gemm : body.getOps<GemmOp>())
      if (gemm.getWgWaitAttr().getInt() < 0)
        waitAcrossIterations.push_back(gemm);
  }
  // With three buffers, copies would run only one iteration ahead of
  // overlapped gemms (S - 2): a 3-stage loop whose gemms can stay in flight
  // gets a fourth buffer where the kernel's shared memory has room, so
  // that its copies keep the two iterations ahead its num_stages asks for
  // (TileLang's Hopper NN GEMM config, 3 stages: 0.80x TileLang waiting
  // for every k tile; its 4-stage TN config overlapped: 1.00-1.05x).
  // Deeper pipelines get the buffer back too where it costs no block per
  // multiprocessor (the shared memory already holds one block, or as many
  // blocks fit with it): FP8 GEMMs of 128 x 128 x 128 tiles, 4 stages, kept
  // two copies in flight where real TileLang's producer keeps three
  // (0.81x TileLang at 8192^3 on the H100, lower L2 and DRAM throughput).
  if (!lastInFlight && overlapGemms && loop.getNumStages() >= 3) {
    SmallVector<GemmOp> gemms = findOverlappableGemms();
    int64_t stages = loop.getNumStages();
    int64_t limit = getMaxSharedMemoryPerBlock(target);
    std::optional<int64_t> now = getSharedBytesWith(0),
                           after = getSharedBytesWith(1);
    // (Both include 4 KB of room: never zero.)
    bool more = !gemms.empty() && limit && now && after && *after <= limit &&
                (stages == 3 || limit / *now == limit / *after);
    if (more) {
      loop.setNumStages(stages + 1);
      for (StagedCopy &s : staged)
        s.stagedType = withStages(s.stagedType, stages + 1);
    }
    // (Three buffers stay synchronous even for a dequantize loop's
    // rewritten operand: overlapped with copies one iteration ahead, the
    // block_K 128 int4 GEMM ran 0.99x / 0.94x its synchronous time on the
    // H100, bench/results/2026-12-07-h100/peer-dequant-3stage.json.)
    if (loop.getNumStages() >= 4 &&
        (versionCandidates.empty() || fitsWith(0))) {
      overlapped = std::move(gemms);
      versioned = versionCandidates;
    }
  }
  return true;
}

bool Planner::findUses(StagedCopy &s) {
  Block &body = loop.getBody().front();
  bool inFlight = false;
  for (Operation *user : s.alloc.getResult().getUsers()) {
    if (s.copy->isAncestor(user) || !loop->isAncestor(user))
      continue;
    Operation *top = body.findAncestorOpInBlock(*user);
    if (!s.firstUse || top->isBeforeInBlock(s.firstUse))
      s.firstUse = top;
    if (!s.lastUse || s.lastUse->isBeforeInBlock(top))
      s.lastUse = top;
    if (auto gemm = dyn_cast<GemmOp>(user))
      inFlight |= gemm.getWgWait() != 0;
  }
  if (!s.lastUse)
    return false; // Nothing reads it: no use in refilling it early.
  if (!inFlight)
    return true;
  // A gemm may still read the tile after the op: it is free once a
  // tile.gemm_wait pending(0) of the body follows.
  for (Operation *op = s.lastUse->getNextNode(); op; op = op->getNextNode())
    if (auto wait = dyn_cast<GemmWaitOp>(op); wait && wait.getPending() == 0) {
      s.lastUse = op;
      return true;
    }
  return false;
}

bool Planner::fitsWith(int64_t moreStages) {
  int64_t limit = getMaxSharedMemoryPerBlock(target);
  std::optional<int64_t> total = getSharedBytesWith(moreStages);
  return limit && total && *total <= limit;
}

std::optional<int64_t> Planner::getSharedBytesWith(int64_t moreStages) {
  // Every shared tile of the kernel as if none shared bytes (the planner
  // of tile-place-shared-memory may reuse some: an upper bound), the
  // staged ones with one more stage, and room for the barriers and the
  // scratch tiles later passes add.
  auto kernel = loop->getParentOfType<KernelOp>();
  int64_t total = 4096;
  bool known = true;
  auto add = [&](MemRefType type) {
    std::optional<int64_t> bytes = getCheckedByteSize(
        type.getShape(), (type.getElementTypeBitWidth() + 7) / 8);
    if (!bytes || !type.hasStaticShape())
      known = false;
    else
      total += *bytes;
  };
  kernel.walk([&](AllocSharedOp alloc) {
    bool isStaged = llvm::any_of(
        staged, [&](StagedCopy &s) { return s.alloc == alloc; });
    if (!isStaged)
      add(alloc.getType());
  });
  for (StagedCopy &s : staged)
    add(withStages(s.stagedType, s.stagedType.getDimSize(0) + moreStages));
  // The second buffers of the tiles the overlapped gemms would version.
  for (AllocSharedOp alloc : versionCandidates)
    add(alloc.getType());
  return known ? std::optional<int64_t>(total) : std::nullopt;
}

bool Planner::isRewrittenEachIteration(Value tile, GemmOp gemm) {
  auto alloc = tile.getDefiningOp<AllocSharedOp>();
  auto kernel = loop->getParentOfType<KernelOp>();
  if (!alloc || alloc->getParentOp() != kernel || alloc.getLayoutAttr() ||
      !alloc.getType().hasStaticShape())
    return false;
  Block &body = loop.getBody().front();
  ParallelOp writer;
  for (Operation *user : tile.getUsers()) {
    if (!loop->isAncestor(user))
      return false;
    if (auto reader = dyn_cast<GemmOp>(user)) {
      if (reader.getC() == tile)
        return false;
      continue;
    }
    auto store = dyn_cast<memref::StoreOp>(user);
    auto parallel = store ? dyn_cast<ParallelOp>(store->getParentOp())
                          : ParallelOp();
    if (!store || writer || !parallel || parallel->getBlock() != &body ||
        !parallel->isBeforeInBlock(gemm) ||
        parallel.getExtents() != alloc.getType().getShape() ||
        ValueRange(store.getIndices()) !=
            ValueRange(parallel.getBody().front().getArguments()))
      return false;
    writer = parallel;
  }
  return static_cast<bool>(writer);
}

SmallVector<GemmOp> Planner::findOverlappableGemms() {
  Block &body = loop.getBody().front();
  auto isStaged = [&](Value tile) {
    return llvm::any_of(staged, [&](StagedCopy &s) {
      return s.alloc.getResult() == tile;
    });
  };
  SmallVector<GemmOp> gemms;
  versionCandidates.clear();
  // An operand the pipeline's copies fill, or one the body rewrites whole
  // each iteration (versioned then: two buffers).
  auto isKept = [&](Value tile, GemmOp gemm) {
    if (isStaged(tile))
      return true;
    if (!isRewrittenEachIteration(tile, gemm))
      return false;
    auto alloc = tile.getDefiningOp<AllocSharedOp>();
    if (!llvm::is_contained(versionCandidates, alloc))
      versionCandidates.push_back(alloc);
    return true;
  };
  for (auto gemm : body.getOps<GemmOp>()) {
    // It runs on wgmma (else nothing stays in flight and the shorter
    // prefetch would be for nothing); its operands change only through the
    // pipeline's copies, which the schedule keeps off buffers still read,
    // or are rewritten whole by each iteration (two buffers); its
    // accumulators are read and written by nothing else in the loop (they
    // stay in the tensor cores' registers), and live beyond one iteration.
    Value c = gemm.getC();
    if (getGemmInstruction(gemm).getKind() != GemmInstructionKind::Wgmma ||
        !isKept(gemm.getA(), gemm) || !isKept(gemm.getB(), gemm) ||
        gemm.getClearAccum() || gemm.getClearIf() ||
        !c.getDefiningOp<AllocFragmentOp>() ||
        loop->isAncestor(c.getDefiningOp()))
      return {};
    bool alone = llvm::all_of(c.getUsers(), [&](Operation *user) {
      return user == gemm || !loop->isAncestor(user);
    });
    if (!alone)
      return {};
    gemms.push_back(gemm);
  }
  return gemms;
}

void Planner::emitCopies(OpBuilder &b, Location loc, Value iv, Value stage,
                         Value barriers) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  // The offsets' operations, in body order, once for all copies.
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  for (Operation *op : ordered)
    b.clone(*op, mapping);
  for (StagedCopy &s : staged) {
    mapping.map(s.alloc.getResult(),
                getStageView(b, loc, s.buffer, stage));
    cloneAsync(b, s.copy, mapping, barriers, stage);
  }
}

Operation *Planner::findProducerPoint() {
  // The op of the kernel body that holds the loop: the loop, or the loop
  // over tiles of a persistent kernel whose body holds it.
  Operation *top = loop;
  if (isPersistentTiles(loop->getParentOp()))
    top = loop->getParentOp();
  auto kernel = dyn_cast<KernelOp>(top->getParentOp());
  if (!kernel || kernel.getThreads().size() != 1 ||
      kernel.getNumThreads() % ProducerOp::kThreads != 0 ||
      !kernel.getBody().front().getOps<ProducerOp>().empty())
    return nullptr;
  // After the last allocation (the stages' buffers and barriers are among
  // them) and layout annotation; everything before must need no threads.
  Operation *point = nullptr;
  for (Operation &op : kernel.getBody().front()) {
    if (&op == top)
      break;
    if (isa<TileAllocationOpInterface, AnnotateLayoutOp>(op))
      point = op.getNextNode();
  }
  if (!point)
    return nullptr;
  for (Operation *op = &kernel.getBody().front().front(); op != point;
       op = op->getNextNode())
    if (!ProducerOp::mayPrecede(op))
      return nullptr;
  if (top != loop.getOperation())
    tiles = top;
  return point;
}

/// An empty tile.producer at `b`'s insertion point, with `b` at the start
/// of its body.
static ProducerOp createProducer(OpBuilder &b, Location loc) {
  auto producer = ProducerOp::create(b, loc);
  Block *block = b.createBlock(&producer.getBody());
  b.setInsertionPointToEnd(block);
  YieldOp::create(b, loc);
  b.setInsertionPointToStart(block);
  return producer;
}

/// The number of iterations of `loop`: max(0, ceildiv(ub - lb, step)).
static Value getTripCount(OpBuilder &b, Location loc, Value lb, Value ub,
                          Value step) {
  return arith::MaxSIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, 0),
      arith::CeilDivSIOp::create(b, loc, arith::SubIOp::create(b, loc, ub, lb),
                                 step));
}

bool Planner::buildProducer(Operation *point, Value barriers, Value lb,
                            Value ub, Value step) {
  Location loc = loop.getLoc();
  int64_t stages = loop.getNumStages();
  OpBuilder b(point);
  ProducerOp producer = createProducer(b, loc);
  auto index = [&](OpBuilder &bld, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bld, loc, v);
  };
  // Fill i of buffer i mod S waits for the release of fill i - S: phase
  // (i floordiv S) - 1 of the buffer's release barrier (parity 1 of a
  // fresh barrier counts as completed: the first S fills do not wait).
  // Over the tiles of a persistent kernel, fills count on from the tiles
  // before (`base`), as the consumers' waits do.
  auto emitFills = [&](OpBuilder &outer, Value base) {
    scf::ForOp::create(
        outer, loc, lb, ub, step, ValueRange{},
        [&](OpBuilder &bld, Location, Value iv, ValueRange) {
          Value i = arith::DivUIOp::create(
              bld, loc, arith::SubIOp::create(bld, loc, iv, lb), step);
          if (base)
            i = arith::AddIOp::create(bld, loc, i, base);
          Value stage = arith::RemUIOp::create(bld, loc, i, index(bld, stages));
          Value parity = arith::RemUIOp::create(
              bld, loc,
              arith::AddIOp::create(
                  bld, loc,
                  arith::DivUIOp::create(bld, loc, i, index(bld, stages)),
                  index(bld, 1)),
              index(bld, 2));
          BarrierWaitOp::create(bld, loc, released, stage, parity)
              .setIssuer(true);
          emitCopies(bld, loc, iv, stage, barriers);
          scf::YieldOp::create(bld, loc);
        });
  };
  // The dynamic schedule's hand-off of each next tile index (below).
  NextTileOp next;
  FinishTilesOp finish;
  Value full, freed;
  if (!tiles) {
    emitFills(b, Value());
  } else if (auto forTiles = dyn_cast<scf::ForOp>(tiles)) {
    auto producerTiles = scf::ForOp::create(
        b, loc, forTiles.getLowerBound(), forTiles.getUpperBound(),
        forTiles.getStep(), ValueRange{index(b, 0)},
        [&](OpBuilder &bld, Location, Value, ValueRange counted) {
          emitFills(bld, counted[0]);
          scf::YieldOp::create(
              bld, loc,
              ValueRange{arith::AddIOp::create(
                  bld, loc, counted[0], getTripCount(bld, loc, lb, ub, step))});
        });
    producerTiles->setAttr(TileDialect::getPersistentTilesAttrName(),
                           b.getUnitAttr());
  } else {
    // The dynamic schedule: the producer takes each next tile and hands it
    // to the consumers through the slot (full: its one arrival; released:
    // every warp of the block, producer included, read it).
    auto whileTiles = cast<scf::WhileOp>(tiles);
    for (Operation &op : *whileTiles.getAfterBody())
      if (auto candidate = dyn_cast<NextTileOp>(op);
          candidate && !candidate.getFull())
        next = candidate;
    if (!next) {
      producer.erase();
      return false;
    }
    OpBuilder outer(producer);
    auto barrierType = MemRefType::get(
        {1}, outer.getI64Type(), AffineMap(),
        MemorySpaceAttr::get(outer.getContext(), MemorySpace::Shared));
    full = AllocSharedOp::create(outer, loc, barrierType, Attribute());
    freed = AllocSharedOp::create(outer, loc, barrierType, Attribute());
    auto producerTiles = scf::WhileOp::create(
        b, loc, TypeRange{b.getIndexType(), b.getIndexType(), b.getIndexType()},
        ValueRange{whileTiles.getInits()[0], whileTiles.getInits()[1],
                   index(b, 0)},
        [&](OpBuilder &bld, Location, ValueRange args) {
          IRMapping mapping;
          mapping.map(whileTiles.getBeforeArguments(), args.take_front(2));
          for (Operation &op : whileTiles.getBeforeBody()->without_terminator())
            bld.clone(op, mapping);
          scf::ConditionOp condition = whileTiles.getConditionOp();
          scf::ConditionOp::create(
              bld, loc, mapping.lookup(condition.getCondition()),
              ValueRange{mapping.lookup(condition.getArgs()[0]),
                         mapping.lookup(condition.getArgs()[1]), args[2]});
        },
        [&](OpBuilder &bld, Location, ValueRange args) {
          emitFills(bld, args[2]);
          Value taken = NextTileOp::create(bld, loc, bld.getIndexType(),
                                           next.getCounters(), next.getOffset(),
                                           next.getSlot(), full, freed, args[1],
                                           UnitAttr());
          scf::YieldOp::create(
              bld, loc,
              ValueRange{
                  taken,
                  arith::AddIOp::create(bld, loc, args[1], index(bld, 1)),
                  arith::AddIOp::create(bld, loc, args[2],
                                        getTripCount(bld, loc, lb, ub, step))});
        });
    producerTiles->setAttr(TileDialect::getPersistentTilesAttrName(),
                           b.getUnitAttr());
    // The producer, which takes the last index (past the tiles), ends the
    // block's share.
    for (Operation *op = tiles->getNextNode(); op && !finish;
         op = op->getNextNode())
      finish = dyn_cast<FinishTilesOp>(op);
    if (finish)
      b.clone(*finish);
  }
  // Its ops take values from the kernel body (and the consumers' loop over
  // tiles): recomputed inside.
  if (failed(recomputeProducerOperands(producer, tiles))) {
    producer.erase();
    for (Value barrier : {full, freed})
      if (barrier)
        barrier.getDefiningOp()->erase();
    return false;
  }
  if (next) {
    // The consumers receive each index.
    OpBuilder init(producer);
    BarrierInitOp::create(init, loc, full, 1);
    auto kernel = producer->getParentOfType<KernelOp>();
    BarrierInitOp::create(init, loc, freed,
                          (kernel.getNumThreads() + ProducerOp::kThreads) /
                              getWarpSize(TargetKind::CUDA, ""));
    next.getFullMutable().assign(full);
    next.getReleasedMutable().assign(freed);
    next.getCountMutable().assign(
        cast<scf::WhileOp>(tiles).getAfterArguments()[1]);
    next.setReceive(true);
    if (finish)
      finish.erase();
  }
  return true;
}

void Planner::rewriteSingleStage() {
  Location loc = loop.getLoc();
  Block &body = loop.getBody().front();
  Operation *lastAlloc = staged.front().alloc;
  for (StagedCopy &s : staged) {
    // The tile read by a gemm gets the stages' swizzle (TMA writes it).
    if (s.swizzle && !s.alloc.getLayoutAttr())
      s.alloc.setLayoutAttr(s.swizzle);
    if (lastAlloc->isBeforeInBlock(s.alloc))
      lastAlloc = s.alloc;
  }
  if (singleStageProducer && tma && rewriteSingleStageWithProducer(lastAlloc))
    return;
  // With TMA, one barrier per copy (one arrival: its transfer).
  Value barriers;
  OpBuilder b(loop);
  auto index = [&](OpBuilder &at, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(at, loc, v);
  };
  if (tma) {
    OpBuilder after(lastAlloc->getContext());
    after.setInsertionPointAfter(lastAlloc);
    auto type = MemRefType::get(
        {static_cast<int64_t>(staged.size())}, b.getI64Type(), AffineMap(),
        MemorySpaceAttr::get(b.getContext(), MemorySpace::Shared));
    barriers = AllocSharedOp::create(after, loc, type, Attribute());
    BarrierInitOp::create(b, loc, barriers, 1);
  }

  // The refills, in groups: the copies whose tiles the same op reads last
  // are issued together right after it, in body order of those ops.
  SmallVector<Operation *> points;
  for (StagedCopy &s : staged)
    if (!llvm::is_contained(points, s.lastUse))
      points.push_back(s.lastUse);
  llvm::sort(points,
             [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  auto groupOf = [&](StagedCopy &s) {
    return llvm::find(points, s.lastUse) - points.begin();
  };
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  // Issues the copies of group `g` for iteration `iv` when `iv` is inside
  // the loop, each into its own tile (on its own barrier); without
  // barriers, after a block barrier (threads may still read the tiles: TMA's
  // lowering has its own) and committed as one group, always (the waits
  // count groups).
  auto issue = [&](OpBuilder &at, Value iv, size_t g) {
    if (!barriers)
      SyncThreadsOp::create(at, loc, IntegerAttr());
    Value inside =
        arith::CmpIOp::create(at, loc, arith::CmpIPredicate::slt, iv, ub);
    scf::IfOp::create(at, loc, inside, [&](OpBuilder &then, Location) {
      for (auto [c, s] : llvm::enumerate(staged)) {
        if (groupOf(s) != static_cast<ptrdiff_t>(g))
          continue;
        IRMapping mapping;
        mapping.map(loop.getInductionVar(), iv);
        for (Operation *op : s.slice)
          then.clone(*op, mapping);
        Value barrier = barriers ? index(then, c) : Value();
        cloneAsync(then, s.copy, mapping, barriers, barrier);
      }
      scf::YieldOp::create(then, loc);
    });
    if (!barriers)
      AsyncCommitOp::create(at, loc);
  };
  // Prologue: the first iteration's copies.
  for (size_t g = 0; g < points.size(); ++g)
    issue(b, lb, g);

  // Each tile is waited for before the iteration's first read of it: its
  // barrier's phase i mod 2 (the i-th fill), or the group wait that
  // leaves in flight only the groups committed after its own (those of
  // later points in the iteration before, and of this iteration so far).
  b.setInsertionPointToStart(&body);
  Value next = arith::AddIOp::create(b, loc, loop.getInductionVar(),
                                     loop.getStep());
  Value parity;
  if (barriers)
    parity = arith::RemUIOp::create(
        b, loc,
        arith::DivUIOp::create(
            b, loc, arith::SubIOp::create(b, loc, loop.getInductionVar(), lb),
            loop.getStep()),
        index(b, 2));
  llvm::DenseMap<Operation *, int64_t> groupWaits;
  for (auto [c, s] : llvm::enumerate(staged)) {
    if (barriers) {
      b.setInsertionPoint(s.firstUse);
      BarrierWaitOp::create(b, loc, barriers, index(b, c), parity);
      continue;
    }
    int64_t pending = points.size() - 1 - groupOf(s);
    for (Operation *point : points)
      pending += point->isBeforeInBlock(s.firstUse);
    auto [it, inserted] = groupWaits.try_emplace(s.firstUse, pending);
    if (!inserted)
      it->second = std::min(it->second, pending);
  }
  for (auto [firstUse, pending] : groupWaits) {
    b.setInsertionPoint(firstUse);
    AsyncWaitOp::create(b, loc, pending);
  }
  // The refills of the next iteration, after the waits (inserted right
  // after each point, they come before a wait that follows it).
  for (auto [g, point] : llvm::enumerate(points)) {
    b.setInsertionPointAfter(point);
    issue(b, next, g);
  }
  for (StagedCopy &s : staged)
    s.copy->erase();
  // Every copy was waited for in the loop; the last groups are empty.
  if (!barriers) {
    b.setInsertionPointAfter(loop);
    AsyncWaitOp::create(b, loc, 0);
  }
}

bool Planner::rewriteSingleStageWithProducer(Operation *lastAlloc) {
  auto kernel = loop->getParentOfType<KernelOp>();
  // The producer fills the tiles from the kernel's start: nothing may use
  // them before the loop.
  Block *kernelBody = loop->getBlock();
  for (StagedCopy &s : staged)
    for (Operation *user : s.alloc.getResult().getUsers()) {
      Operation *top = kernelBody->findAncestorOpInBlock(*user);
      if (!top || top->isBeforeInBlock(loop))
        return false;
    }
  Operation *point = findProducerPoint();
  if (!point || tiles) {
    tiles = nullptr;
    return false;
  }
  Location loc = loop.getLoc();
  OpBuilder after(lastAlloc->getContext());
  after.setInsertionPointAfter(lastAlloc);
  auto type = MemRefType::get(
      {static_cast<int64_t>(staged.size())}, after.getI64Type(), AffineMap(),
      MemorySpaceAttr::get(after.getContext(), MemorySpace::Shared));
  Value full = AllocSharedOp::create(after, loc, type, Attribute());
  Value freed = AllocSharedOp::create(after, loc, type, Attribute());
  auto index = [&](OpBuilder &at, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(at, loc, v);
  };
  // The producer: iteration i issues each copy (in the order of the body's
  // refill points) once the consumers released the tile's fill i - 1
  // (phase (i + 1) mod 2 of its release barrier: a fresh barrier's phase
  // of parity 1 counts as completed).
  SmallVector<size_t> order(staged.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::stable_sort(order, [&](size_t x, size_t y) {
    return staged[x].lastUse->isBeforeInBlock(staged[y].lastUse);
  });
  OpBuilder b(point);
  ProducerOp producer = createProducer(b, loc);
  Value lb = loop.getLowerBound(), step = loop.getStep();
  scf::ForOp::create(
      b, loc, lb, loop.getUpperBound(), step, ValueRange{},
      [&](OpBuilder &bld, Location, Value iv, ValueRange) {
        Value i = arith::DivUIOp::create(
            bld, loc, arith::SubIOp::create(bld, loc, iv, lb), step);
        Value parity = arith::RemUIOp::create(
            bld, loc, arith::AddIOp::create(bld, loc, i, index(bld, 1)),
            index(bld, 2));
        for (size_t c : order) {
          StagedCopy &s = staged[c];
          Value barrier = index(bld, c);
          BarrierWaitOp::create(bld, loc, freed, barrier, parity)
              .setIssuer(true);
          IRMapping mapping;
          mapping.map(loop.getInductionVar(), iv);
          for (Operation *op : s.slice)
            bld.clone(*op, mapping);
          cloneAsync(bld, s.copy, mapping, full, barrier);
        }
        scf::YieldOp::create(bld, loc);
      });
  if (failed(recomputeProducerOperands(producer, nullptr))) {
    producer.erase();
    full.getDefiningOp()->erase();
    freed.getDefiningOp()->erase();
    return false;
  }
  OpBuilder init(producer);
  BarrierInitOp::create(init, loc, full, 1);
  // Every consumer warp releases each tile.
  BarrierInitOp::create(init, loc, freed,
                        kernel.getNumThreads() /
                            getWarpSize(TargetKind::CUDA, ""));
  // The consumers wait for fill i of each tile before its first read and
  // release it after its last (the tiles' swizzles are set by the caller).
  Block &body = loop.getBody().front();
  b.setInsertionPointToStart(&body);
  Value parity = arith::RemUIOp::create(
      b, loc,
      arith::DivUIOp::create(
          b, loc, arith::SubIOp::create(b, loc, loop.getInductionVar(), lb),
          step),
      index(b, 2));
  for (auto [c, s] : llvm::enumerate(staged)) {
    b.setInsertionPoint(s.firstUse);
    BarrierWaitOp::create(b, loc, full, index(b, c), parity);
    b.setInsertionPointAfter(s.lastUse);
    BarrierArriveOp::create(b, loc, freed, index(b, c));
  }
  for (StagedCopy &s : staged)
    s.copy->erase();
  return true;
}

void Planner::rewrite() {
  Location loc = loop.getLoc();
  int64_t stages = loop.getNumStages();
  if (stages == 1)
    return rewriteSingleStage();
  for (StagedCopy &s : staged) {
    OpBuilder b(s.alloc);
    s.buffer = AllocSharedOp::create(b, s.alloc.getLoc(), s.stagedType,
                                     s.swizzle ? Attribute(s.swizzle)
                                               : Attribute());
  }

  // With TMA, one arrival barrier per buffer, after the buffers (placed
  // after them, the 16 bytes pad nothing in front of swizzled buffers).
  Value barriers;
  if (tma) {
    Operation *last = staged.front().buffer.getDefiningOp();
    for (StagedCopy &s : staged)
      if (last->isBeforeInBlock(s.buffer.getDefiningOp()))
        last = s.buffer.getDefiningOp();
    OpBuilder b(last->getContext());
    b.setInsertionPointAfter(last);
    auto type = MemRefType::get(
        {stages}, b.getI64Type(), AffineMap(),
        MemorySpaceAttr::get(b.getContext(), MemorySpace::Shared));
    barriers = AllocSharedOp::create(b, loc, type, Attribute());
    // One warpgroup runs its wgmma gemms in lockstep anyway: a block
    // barrier costs it less than the arrive/wait round trip (H200: the
    // 128-thread d128 attention 6% slower with release barriers, the
    // 256-thread one 8% faster). With more stages the buffer refilled was
    // consumed long before, so the block barrier rarely waits (the 4-stage
    // NN GEMM 7-10% slower with release barriers, the 2-stage attention
    // faster).
    int64_t warpgroups =
        loop->getParentOfType<KernelOp>().getNumThreads() / 128;
    if (releaseBarriers && warpgroups >= releaseMinWarpgroups &&
        (releaseMaxStages <= 0 || stages <= releaseMaxStages))
      released = AllocSharedOp::create(b, loc, type, Attribute());
  }

  // Warp specialization: the inits and a producer at the top of the kernel.
  Operation *producerPoint =
      warpSpecialize && released ? findProducerPoint() : nullptr;
  OpBuilder b(loop);
  if (producerPoint)
    b.setInsertionPoint(producerPoint);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  if (barriers)
    BarrierInitOp::create(b, loc, barriers, staged.size());
  // Every warp of the block releases each stage.
  if (released)
    BarrierInitOp::create(
        b, loc, released,
        loop->getParentOfType<KernelOp>().getNumThreads() /
            getWarpSize(TargetKind::CUDA, ""));
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  Value step = loop.getStep();
  bool produced = producerPoint && buildProducer(producerPoint, barriers, lb,
                                                 ub, step);
  // Over a persistent kernel's tiles, the consumers count fills on from
  // the tiles before too: the loop over tiles carries that count.
  Value base;
  if (produced && tiles) {
    OpBuilder before(tiles);
    FailureOr<std::pair<Operation *, Value>> counted = addTilesCarried(
        tiles, arith::ConstantIndexOp::create(before, loc, 0),
        [&](OpBuilder &yb, Location, Value count) -> Value {
          return arith::AddIOp::create(yb, loc, count,
                                       getTripCount(yb, loc, lb, ub, step));
        });
    if (failed(counted)) {
      loop.emitError("cannot count pipeline fills across persistent tiles");
      return;
    }
    std::tie(tiles, base) = *counted;
  }
  // Ping-pong: the warpgroups take turns issuing the body's first run of
  // consecutive gemms, so that one's softmax runs under the other's gemms.
  // Only gemms on wgmma can: the others need block barriers, which a
  // warpgroup waiting for its turn never reaches.
  auto kernel = loop->getParentOfType<KernelOp>();
  if (produced && pingpong &&
      kernel.getNumThreads() >= 2 * ProducerOp::kThreads) {
    SmallVector<GemmOp> run;
    for (Operation &op : loop.getBody().front()) {
      if (auto gemm = dyn_cast<GemmOp>(op))
        run.push_back(gemm);
      else if (!run.empty())
        break;
    }
    bool wgmma = llvm::all_of(run, [](GemmOp gemm) {
      return getGemmInstruction(gemm).getKind() == GemmInstructionKind::Wgmma;
    });
    if (!run.empty() && wgmma) {
      OpBuilder turns(run.front());
      auto takeTurns = TakeTurnsOp::create(turns, loc);
      Block *block = turns.createBlock(&takeTurns.getBody());
      turns.setInsertionPointToEnd(block);
      YieldOp::create(turns, loc);
      for (GemmOp gemm : run)
        gemm->moveBefore(block->getTerminator());
    }
  }
  b.setInsertionPoint(loop);
  // Issues the copies of iteration `iv` into buffer `stage` when `iv` is
  // inside the loop, then commits (always: the waits count stages; with
  // barriers each stage counts on its own).
  // With release barriers, the issuing thread first waits until the warps
  // released the buffer's previous contents (phase `releaseParity`; a
  // fresh barrier's phase of parity 1 counts as completed, so the first
  // fill of each buffer does not wait).
  auto issue = [&](Value iv, Value stage, Value releaseParity) {
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, ub);
    scf::IfOp::create(b, loc, inside, [&](OpBuilder &then, Location) {
      if (released && releaseParity)
        BarrierWaitOp::create(then, loc, released, stage, releaseParity)
            .setIssuer(true);
      emitCopies(then, loc, iv, stage, barriers);
      scf::YieldOp::create(then, loc);
    });
    if (!barriers)
      AsyncCommitOp::create(b, loc);
  };

  // How far ahead the copies run: S - 1 iterations, or S - 2 when gemms
  // keep the previous iteration's tensor-core work in flight (its buffer is
  // still being read).
  int64_t ahead = overlapped.empty() ? stages - 1 : stages - 2;
  for (GemmOp gemm : overlapped)
    gemm.setWgWait(1);
  for (GemmOp gemm : waitAcrossIterations)
    gemm.setWgWait(1);

  // Prologue: stages 0 .. ahead - 1 (the producer's, when there is one).
  for (int64_t s = 0; s < ahead && !produced; ++s)
    issue(arith::AddIOp::create(
              b, loc, lb, arith::MulIOp::create(b, loc, step, index(s))),
          index(s), Value());

  // Each iteration: wait for its own tiles, compute on buffer i mod S, then
  // prefetch `ahead` iterations ahead into the buffer iteration
  // i + ahead - S read (every thread is past it: the group wait
  // synchronized the block, a copy that arrives on a barrier synchronizes
  // it before it writes, and with overlapped gemms each thread had waited
  // for the tensor-core work of iteration i - 2 before). Issuing after the
  // compute lets the address arithmetic of the copies overlap the tensor
  // core work already in flight: the planner's (overlapped gemms) or the
  // kernel's (right after its last gemm that leaves work in flight; it
  // waits for that work within the iteration).
  Block &body = loop.getBody().front();
  b.setInsertionPointToStart(&body);
  if (!barriers)
    AsyncWaitOp::create(b, loc, ahead - 1);
  Value iv = loop.getInductionVar();
  Value i = arith::DivUIOp::create(b, loc,
                                   arith::SubIOp::create(b, loc, iv, lb), step);
  // The fill this iteration reads: i, or over persistent tiles i + base.
  Value fill = base ? arith::AddIOp::create(b, loc, i, base).getResult() : i;
  Value current = arith::RemUIOp::create(b, loc, fill, index(stages));
  // Buffer i mod S is filled for the (i floordiv S)-th time: that phase of
  // its barrier.
  if (barriers)
    BarrierWaitOp::create(
        b, loc, barriers, current,
        arith::RemUIOp::create(
            b, loc, arith::DivUIOp::create(b, loc, fill, index(stages)),
            index(2)));
  // The prefetch clones the original copies: issue it before they go
  // (unless the producer issues every iteration's copies).
  if (!produced) {
    if (lastInFlight)
      b.setInsertionPointAfter(lastInFlight);
    else if (!prefetchFirst || !overlapped.empty() ||
             !waitAcrossIterations.empty() || released)
      b.setInsertionPoint(body.getTerminator());
    Value distance = index(ahead);
    Value filled = arith::AddIOp::create(b, loc, i, distance);
    // The (j floordiv S)-th fill of buffer j mod S waits for the release of
    // the one before: phase (j floordiv S) - 1 of its release barrier.
    Value releaseParity;
    if (released)
      releaseParity = arith::RemUIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc, arith::DivUIOp::create(b, loc, filled, index(stages)),
              index(1)),
          index(2));
    issue(arith::AddIOp::create(b, loc, iv,
                                arith::MulIOp::create(b, loc, step, distance)),
          arith::RemUIOp::create(b, loc, filled, index(stages)),
          releaseParity);
  }
  // Each warp releases the buffer whose reads are done at the end of the
  // iteration: its own, or with tensor-core work left in flight across
  // iterations the previous iteration's (from the second iteration on).
  if (released) {
    b.setInsertionPoint(body.getTerminator());
    if (overlapped.empty() && waitAcrossIterations.empty()) {
      BarrierArriveOp::create(b, loc, released, current);
    } else {
      Value notFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                             i, index(1));
      scf::IfOp::create(b, loc, notFirst, [&](OpBuilder &then, Location) {
        BarrierArriveOp::create(
            then, loc, released,
            arith::RemUIOp::create(
                then, loc,
                arith::AddIOp::create(then, loc, fill, index(stages - 1)),
                index(stages)));
        scf::YieldOp::create(then, loc);
      });
    }
  }
  b.setInsertionPointAfterValue(current);
  for (StagedCopy &s : staged) {
    Value view = getStageView(b, loc, s.buffer, current);
    s.alloc.getResult().replaceUsesWithIf(view, [&](OpOperand &use) {
      return loop->isAncestor(use.getOwner());
    });
  }
  // Tiles the body rewrites whole for gemms left in flight: iteration i
  // writes buffer i mod 2 while the tensor cores may still read the other
  // (each thread waited for the work of iteration i - 2 in iteration
  // i - 1, and the block barrier before the rewrite orders that for all
  // of them); swizzled as the staged operands are.
  if (!versioned.empty()) {
    Value parity = arith::RemUIOp::create(b, loc, i, index(2));
    for (AllocSharedOp alloc : versioned) {
      MemRefType type = alloc.getType();
      SharedTileOptions sharedTiles;
      for (Operation *user : alloc.getResult().getUsers())
        if (auto gemm = dyn_cast<GemmOp>(user))
          sharedTiles.merge(getSharedTileOptions(getGemmInstruction(gemm)));
      SwizzleAttr swizzle = getStageSwizzle(
          info.getStagedOperandSwizzle(type, sharedTiles, target), type);
      OpBuilder at(alloc);
      Value buffer = AllocSharedOp::create(
          at, alloc.getLoc(), getStagedType(type, 2),
          swizzle ? Attribute(swizzle) : Attribute());
      alloc.getResult().replaceAllUsesWith(
          getStageView(b, loc, buffer, parity));
      alloc.erase();
    }
  }
  // Only now: the builder inserts before what follows `current`. A tile
  // also used outside the loop stays for those uses.
  for (StagedCopy &s : staged) {
    s.copy->erase();
    if (s.alloc->use_empty())
      s.alloc.erase();
  }

  // Nothing may still be in flight once the loop is done.
  b.setInsertionPointAfter(loop);
  bool lastUnreleased =
      released && (!overlapped.empty() || !waitAcrossIterations.empty());
  if (!overlapped.empty() || (base && lastUnreleased))
    GemmWaitOp::create(b, loc, 0);
  // The next tile's fills reuse the last iteration's buffer, which work in
  // flight kept from being released in the loop: release it now.
  if (base && lastUnreleased) {
    Value count = getTripCount(b, loc, lb, ub, step);
    Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, count,
                                      index(0));
    scf::IfOp::create(b, loc, any, [&](OpBuilder &then, Location) {
      Value last = arith::SubIOp::create(
          then, loc, arith::AddIOp::create(then, loc, base, count),
          arith::ConstantIndexOp::create(then, loc, 1));
      BarrierArriveOp::create(
          then, loc, released,
          arith::RemUIOp::create(
              then, loc, last,
              arith::ConstantIndexOp::create(then, loc, stages)));
      scf::YieldOp::create(then, loc);
    });
  }
  // With barriers nothing is in flight: every issued stage was waited for.
  if (!barriers)
    AsyncWaitOp::create(b, loc, 0);
}

struct PlanPipelinesPass
    : public tile::impl::TilePlanPipelinesBase<PlanPipelinesPass> {
  using TilePlanPipelinesBase::TilePlanPipelinesBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto target =
        module->getAttrOfType<TargetAttr>(TileDialect::getTargetAttrName());
    const TargetInfo &info = getTargetInfo(module->getContext(), target);
    bool overlap = overlapGemms && info.hasAsynchronousGemms(target);
    SmallVector<PipelinedOp> loops;
    module.walk([&](PipelinedOp loop) { loops.push_back(loop); });
    for (PipelinedOp loop : loops) {
      Planner planner(loop, info, target, overlap,
                      tma && info.hasBulkTensorCopies(target), tmaBlocked,
                      releaseBarriers, releaseMinWarpgroups, releaseMaxStages,
                      warpSpecialize, pingpong, prefetchFirst, singleStage,
                      singleStageProducer);
      if (!planner.analyze())
        continue;
      // What the stages would take, before any of them is materialized
      // (a num_stages in the thousands would otherwise build the whole
      // prologue first and only then fail on shared memory).
      if (failed(planner.checkSharedMemory(target)))
        return signalPassFailure();
      planner.rewrite();
    }
    stampAsyncCopyEngines(module);
  }
};

} // namespace
