//===- TileLowering.h - Loop lowering of tile ops shared by backends -*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// The lowering of every tile op except the kernel itself into loops over
// memrefs, shared by the CPU backend (sequential) and the SIMT GPU backend
// (the block's threads share the work).
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_CONVERSION_TILELOWERING_H
#define TILELANG_CONVERSION_TILELOWERING_H

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Alignment.h"

#include <optional>
#include <string>

namespace mlir {
namespace tile {

/// An index constant at the builder's insertion point.
Value indexConst(OpBuilder &b, Location loc, int64_t value);

enum class TileLoweringMode {
  /// One thread does everything: the CPU reference.
  Sequential,
  /// Inside a gpu.launch: the threads of the block split every tile op on
  /// shared or fragment tiles, with a gpu.barrier before and after it; ops
  /// that only write local (per-thread) tiles run whole on every thread.
  Block,
};

/// The linear thread id (x fastest) and the thread count of the gpu.launch
/// that encloses `op`, computed at the builder's insertion point; inside an
/// op with a thread range (`TileDialect::getThreadRangeAttrName`), the
/// range's threads, numbered from 0.
struct BlockThreads {
  Value threadId, numThreads;
};
BlockThreads getBlockThreads(OpBuilder &b, Operation *op);

/// The index of the executing thread along `dim` of the block that encloses
/// `op` (tile.thread_id), in a thread range too.
Value getThreadIndex(OpBuilder &b, Operation *op, int64_t dim);

/// The number of threads of the gpu.launch (or thread range) that encloses
/// `op` when it is known at compile time.
std::optional<int64_t> getStaticBlockThreads(Operation *op);

/// The registers each thread of the thread range that encloses `op` may use
/// (its setmaxnreg budget), when the range says.
std::optional<int64_t> getThreadRegisters(Operation *op);

/// Builds `body` under `if (thread id mod every == 0)` at `b`'s point in
/// the thread range of `op` (getBlockThreads): its thread 0, or with
/// `every` = 32 lane 0 of each warp.
scf::IfOp onThreadZero(OpBuilder &b, Location loc, Operation *op,
                       function_ref<void(OpBuilder &)> body, int64_t every = 0);

/// Adds 1 to counter `counter` of a dynamic tile schedule's `counters` (the
/// global memref<2xi32>; 0 counts the tiles taken, 1 the blocks done),
/// atomically: the count before, an i32.
Value takeTileCount(OpBuilder &b, Location loc, Value counters,
                    int64_t counter = 0);

/// The tile index a taken count (i32) stands for: `offset` (the blocks,
/// which start at their own ids) plus the count.
Value getTileIndexOfCount(OpBuilder &b, Location loc, Value offset,
                          Value count);

/// The error of a tile.next_tile hand-off where only the NVIDIA sm_90
/// lowering has one.
inline constexpr llvm::StringLiteral kNextTileHandoffNVIDIAOnly =
    "hands the tile index over between a producer and the consumers: "
    "lowered for NVIDIA sm_90 only";

/// The name of the runtime function a failed tile.assume calls with its
/// message (a C string); the call reports it as the call's error.
inline constexpr llvm::StringLiteral kAssumeFailedFunction = "tileAssumeFailed";

/// Lowers every tile.assume of `module`: its block branches on the
/// condition to the rest of the function or to a block that calls
/// kAssumeFailedFunction with the message and returns.
void lowerAssumes(ModuleOp module);

/// On targets that do not launch thread block clusters
/// (`hardwareClusters` false): the cluster ops of kernels whose cluster is a
/// single block become what they mean there (barriers nothing, the rank 0,
/// an arrival on block 0's barrier a per-thread arrival on the block's
/// own); in a kernel whose cluster has several blocks they are a located
/// error naming `target` (failure). With `hardwareClusters`, nothing (the
/// target lowers them).
LogicalResult lowerClusterOps(ModuleOp module, bool hardwareClusters,
                              StringRef target);

/// Patterns for tile.copy, gemm, fill, clear, reduce, cumsum, atomic_add,
/// parallel, pipelined and the hints.
void populateTileOpLoweringPatterns(RewritePatternSet &patterns,
                                    TileLoweringMode mode);

/// Moves the `elements` consecutive elements of the global buffer `src` at
/// `srcIndices` into the shared tile `dst` at `dstIndices` (the vector's
/// place, swizzle applied) asynchronously, visible after the next
/// tile.async_wait; false where it cannot (the caller then moves them with
/// a vector load and store).
using AsyncVectorCopy = function_ref<bool(
    OpBuilder &b, Location loc, Value src, ValueRange srcIndices, Value dst,
    ValueRange dstIndices, int64_t elements)>;

/// tile.parallel `op` -> a loop nest over its iterations at the rewriter's
/// insertion point (split over the block in Block mode unless it writes
/// only local tiles), replacing it. In Block mode, a body whose global
/// accesses run along the innermost coordinate takes groups of consecutive
/// iterations per thread, with vector accesses where they are aligned at
/// run time; the groups' loop has a constant trip count when the block's
/// threads divide them, which the device compiler unrolls. Block barriers
/// surround it, except around an asynchronous one (`async`: a gather,
/// whose tile is read only after a tile.async_wait), whose lowered ops are
/// marked TileDialect::getLoweredAsyncCopyAttrName; there `asyncCopy`, when
/// given, moves each aligned vector that is stored as it was loaded.
void lowerParallel(RewriterBase &rewriter, ParallelOp op, TileLoweringMode mode,
                   AsyncVectorCopy asyncCopy = nullptr);

/// Marks (TileDialect::getInTurnAttrName) the gemms of the tile.take_turns
/// `op`, whose body its lowering inlines: their lowerings then know they are
/// in a turn (no block barrier may be placed there).
void markGemmsInTurn(TakeTurnsOp op, RewriterBase &rewriter);

/// Moves the ops of a tile region (kernel, parallel, pipelined body) in
/// front of `dest`'s terminator with `args` for its block arguments, and
/// drops its tile.yield.
void inlineTileBody(RewriterBase &rewriter, Region &region, Block *dest,
                    ValueRange args);

/// With a tile.use_swizzle in `kernel`, replaces `blockIds[0..1]` by the
/// block coordinates the rasterized order assigns (see the op); `gridX` and
/// `gridY` are the grid's extents. Builds at `b`'s insertion point.
void rasterizeBlockIds(OpBuilder &b, Location loc, KernelOp kernel,
                       Value gridX, Value gridY,
                       SmallVectorImpl<Value> &blockIds);

/// The alignment of every on-chip tile in dynamic shared memory (a 16-byte
/// vector), which the launch's size estimate and tile-place-shared-memory
/// use.
constexpr int64_t kSharedTileAlignment = 16;

/// Rewrites every memref type under `root`: shared and fragment tiles go to
/// `sharedSpace`, local tiles to `localSpace` (null: the default space).
void replaceTileMemorySpaces(Operation *root, Attribute sharedSpace,
                             Attribute localSpace);

/// Indices into `region.buffer` of the tile element at `ivs` (one per tile
/// dimension): the offset plus the tile coordinate along each tile
/// dimension of the region, the offset alone (0 without offsets) along the
/// dimensions it indexes away.
SmallVector<Value> tileIndices(OpBuilder &b, Location loc,
                               const TileRegion &region, ValueRange ivs);

/// True at run time when every `width`-element vector of `op` starts
/// aligned on both sides: bases on whole vectors, rows contiguous with
/// strides of whole vectors, the tile's column offset on a vector. (Static
/// facts of on-chip sides fold away.)
Value canCopyVectors(OpBuilder &b, Location loc, CopyOp op, int64_t width);

/// True when the innermost dimension of the tile at `region` runs along the
/// buffer's last dimension: what vector loads and stores (and cp.async,
/// buffer loads, TMA boxes) need, since they move consecutive elements of
/// that dimension.
bool isAlongLastDim(const TileRegion &region);

/// The same for one side of a copy, the tile at `region`: the buffer
/// dimension the tile's innermost dimension runs along is contiguous and
/// its offset a whole vector, every other stride a whole vector.
Value canAccessVectors(OpBuilder &b, Location loc, const TileRegion &region,
                       int64_t width);

/// True at run time when `indices` lie inside `buffer` (unsigned compare:
/// negative indices are out of bounds too).
Value inBounds(OpBuilder &b, Location loc, Value buffer, ValueRange indices);

/// True at run time when the `width` elements from tile coordinates `ivs`
/// along the tile's innermost dimension all lie inside the region's buffer
/// (placed as tileIndices places them): the vector's last element is in
/// bounds.
Value isWholeVectorInBounds(OpBuilder &b, Location loc,
                            const TileRegion &region, ValueRange ivs,
                            int64_t width);

/// The swizzle (`#tile.swizzle` layout of its allocation) that places the
/// elements of the on-chip tile `tile`, seen directly, through a
/// memref.subview that selects one of its leading slices, or through a
/// window of one of its pages (getSwizzleWindow); null otherwise.
SwizzleAttr getTileSwizzle(Value tile);

/// A window of a swizzled page: a memref.subview of rows [row, row + rows)
/// and columns [col, col + cols) of the trailing two dimensions (the page,
/// pageRows x pageCols) of one leading slice of a swizzled shared tile,
/// with unit strides and static offsets along the page, the column offset
/// a whole unit of the swizzle (TileLang's `Q_shared[:, :512]`, a gemm
/// operand that is part of a wider tile). The page's swizzle places its
/// elements: swizzleIndices maps them through the page.
struct SwizzleWindow {
  SwizzleAttr swizzle;
  int64_t pageRows = 0, pageCols = 0;
  int64_t row = 0, col = 0, rows = 0, cols = 0;
};

/// The window `tile` is (a memref.subview as SwizzleWindow describes, not
/// a leading slice), if it is one.
std::optional<SwizzleWindow> getSwizzleWindow(Value tile);
/// The same with its page placed by `swizzle` (the one its allocation
/// will get).
std::optional<SwizzleWindow> getSwizzleWindow(Value tile, SwizzleAttr swizzle);

/// The type (shape and element type, no memory space) whose swizzle places
/// `tile`: its page's when it is a window of one (by its geometry, before
/// any swizzle is chosen), its own otherwise.
MemRefType getWindowPage(Value tile);

/// The indices at which element `indices` of `tile` is stored: the
/// innermost index XOR-permuted by the tile's swizzle, applied to the
/// row-major offset within `tile` (unchanged when it has none).
SmallVector<Value> swizzleIndices(OpBuilder &b, Location loc, Value tile,
                                  ValueRange indices);

/// The indices at which element `indices` of a tile of shape `shape`
/// placed by `swizzle` is stored.
SmallVector<Value> swizzleIndices(OpBuilder &b, Location loc,
                                  SwizzleAttr swizzle, ArrayRef<int64_t> shape,
                                  ValueRange indices);

/// `value` (a scalar or a vector of them) converted element-wise to the


Value convertScalar(OpBuilder &b, Location loc, Value value, Type to);

/// The `width` elements of the tile at the global `region` from tile
/// coordinates `ivs` along its innermost dimension (which runs along the
/// buffer's last dimension), as one vector with zeros where they lie outside
/// the buffer: one vector load with alignment `align` when the vector lies
/// whole inside; at the edge, element loads at indices clamped to the first
/// element with selects, no branch per element; zeros when even the first
/// lies outside. Three branches per vector, whatever `width`.
Value loadZeroPaddedVector(OpBuilder &b, Location loc,
                           const TileRegion &region, ValueRange ivs,
                           int64_t width, llvm::Align align);

/// Stores `vector` (of the buffer's element type) at tile coordinates `ivs`
/// of the global `region`, along its innermost dimension, dropping the
/// elements outside the buffer: one vector store with alignment `align`
/// when it lies whole inside; at the edge, each element under one compare
/// with the count of elements inside (they are a prefix of the vector).
void storeClippedVector(OpBuilder &b, Location loc, const TileRegion &region,
                        ValueRange ivs, Value vector, llvm::Align align);

/// Loads `buffer[indices]`; for a global buffer, out-of-bounds reads give
/// zero.
Value guardedLoad(OpBuilder &b, Location loc, Value buffer,
                  ValueRange indices);

/// Calls `write` when `indices` are inside `buffer`; for an on-chip buffer
/// unconditionally.
void guardedWrite(OpBuilder &b, Location loc, Value buffer,
                  ValueRange indices,
                  function_ref<void(OpBuilder &, Location)> write);

/// Lowers the element-form tile.atomic_add ops inside tile.parallel bodies
/// under `root` to a bounds-guarded add of each thread's own element
/// (atomic in Block mode). Done before the parallels are distributed: the
/// element form elsewhere is a block-level op (the block adds once, between
/// barriers), which inside a parallel would add only thread 0's elements
/// and put barriers under the body's conditions.
void lowerParallelElementAtomics(Operation *root, TileLoweringMode mode);

/// The value that does not change a reduction of `kind`.
Value reductionIdentity(OpBuilder &b, Location loc, ReduceKind kind,
                        Type type);

/// One step of a `kind` reduction: `acc` combined with the element
/// `value` (whose absolute value AbsSum and AbsMax take); float max/min
/// ignore a NaN operand unless `propagateNaN`.
Value combineReduction(OpBuilder &b, Location loc, ReduceKind kind,
                       bool propagateNaN, Value acc, Value value);

/// The kind that merges two partial results of a `kind` reduction (the
/// absolute value applies to elements, not to partial results).
ReduceKind getMergeKind(ReduceKind kind);

/// Drops the swizzle of every shared allocation under `root` that some
/// access would not apply. The lowerings of tile.copy and tile.gemm apply
/// swizzles, and so do element loads and stores (swizzleElementAccesses),
/// to the tile itself or to leading-slice views of it whose slices are
/// whole periods of the swizzle; a tile that other tile ops (reductions,
/// atomics) or other views touch keeps the row-major placement.
void dropUnappliedSwizzles(Operation *root);

/// Rewrites the indices of every memref.load and memref.store under `root`
/// of a swizzled shared tile (or a leading-slice view of one) into the
/// element's place in the swizzle (swizzleIndices): the element accesses a
/// kernel writes (tile.parallel bodies, single elements) read and write
/// what tile.copy and tile.gemm place there. Runs once, after
/// dropUnappliedSwizzles and before the tile ops are lowered (whose own
/// accesses apply the swizzle as they are made); skips the accesses marked
/// by markParallelVectorAccesses.
void swizzleElementAccesses(Operation *root);

/// Marks the loads and stores of swizzled shared tiles that the Block-mode
/// lowering of their tile.parallel will make vector accesses of (aligned
/// groups of consecutive innermost iterations): swizzleElementAccesses
/// leaves them alone, and the lowering places each vector by its first
/// element. Runs before swizzleElementAccesses.
void markParallelVectorAccesses(Operation *root);

/// The unit attribute markParallelVectorAccesses puts on those accesses.
inline constexpr llvm::StringLiteral kSwizzleLaterAttrName =
    "tile.swizzle_later";

/// Swizzles the indices of the accesses still marked by
/// markParallelVectorAccesses (those the lowering kept as element accesses:
/// the misaligned path of a vector group, a loop it did not split) and
/// drops the marks. Runs after the tile ops are lowered.
void swizzleMarkedAccesses(Operation *root);

/// How a global-to-shared copy moves its tile in vectors: the block's
/// static thread count, the element size and the widest vector (16, 8 or 4
/// bytes) that splits the tile's rows into whole vectors and keeps every
/// destination vector aligned and inside one unit of the destination's
/// swizzle. A match failure (with its reason) when there is none.
struct CopyVectors {
  int64_t threads;
  int64_t elementBytes;
  int64_t vectorBytes;
  int64_t getVectorElements() const { return vectorBytes / elementBytes; }
};
FailureOr<CopyVectors> matchCopyVectors(CopyOp op, RewriterBase &rewriter);

/// Why matchCopyVectors would find no vector for `op` whatever the block
/// (sub-byte elements, rows across the buffers' last dimension, ...), or
/// nullopt.
std::optional<std::string> getCopyVectorsMismatch(CopyOp op);

/// Elements per vector of the generic vectorized copy (the `vector`
/// engine): the largest power of two V >= 2 with V elements of either side
/// in 16 bytes that divides the tile's rows, when each side's rows are
/// contiguous (or may be: global strides are checked at run time), other
/// on-chip strides are whole vectors and swizzles move whole vectors; 0 for
/// none. Copies of local (per-thread) tiles stay scalar.
int64_t getCopyVectorWidth(CopyOp op);

/// The engine of the generic lowering for `op`: `vector` when
/// getCopyVectorWidth finds vectors, else `elements`. A vendor lowering
/// hands the copy it falls back on (misaligned at run time, no tensor map)
/// to the generic one with this engine.
CopyEngineAttr getGenericCopyEngine(CopyOp op);

/// The copy a vendor lowering of `op` falls back on where its engine cannot
/// move the buffers at run time: a clone at `b`'s insertion point with the
/// generic engine, synchronous, without barriers or tensor map, marked as a
/// fallback (compact lowering).
CopyOp createFallbackCopy(OpBuilder &b, CopyOp op);

/// Calls `emit` with the number of each vector of `vectorElements`
/// elements (row-major over `op`'s tile) this thread moves: vector v goes
/// to thread v mod threads, so the threads of a warp take consecutive
/// vectors; unrolled up to 32 vectors per thread.
void forEachThreadVector(OpBuilder &b, Location loc, CopyOp op,
                         int64_t threads, int64_t vectorElements,
                         function_ref<void(OpBuilder &, Value)> emit);

/// The tile coordinates of the first element of vector `vector` (row-major
/// over `shape`, `vectorElements` elements each).
SmallVector<Value> getVectorCoords(OpBuilder &b, Location loc,
                                   ArrayRef<int64_t> shape, Value vector,
                                   int64_t vectorElements);

/// The values computed from a tile.thread_id under `root`: through
/// operands, and through what a region yields to its op's results (not
/// through memory).
DenseSet<Value> getThreadDependentValues(Operation *root);

/// True when every access to the shared tile `tile` would apply `swizzle`
/// (what dropUnappliedSwizzles keeps).
bool appliesSwizzle(Value tile, SwizzleAttr swizzle);

} // namespace tile
} // namespace mlir

#endif // TILELANG_CONVERSION_TILELOWERING_H
