//===- TileDialect.h - The tile dialect -------------------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// Declares the tile dialect, its attributes and its operations.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_IR_TILEDIALECT_H
#define TILELANG_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <memory>

namespace mlir {
namespace tile {

class FragmentLayoutAttr;
class FragmentTable;
class TargetInfo;

/// The resource written by layout and scheduling hints, so that they are not
/// erased as dead code before the passes that consume them run.
struct HintResource : public SideEffects::Resource::Base<HintResource> {
  StringRef getName() final { return "TileHint"; }
};

/// The asynchronous tensor-core work of a warpgroup (wgmma groups): what
/// tile.gemm_wait reads and writes. Distinct from memory, so that a wait is
/// neither erased nor taken for a write of global or shared memory.
struct TensorCoreResource
    : public SideEffects::Resource::Base<TensorCoreResource> {
  StringRef getName() final { return "TileTensorCore"; }
};

/// The counters of a persistent kernel's dynamic tile schedule (what
/// tile.next_tile and tile.finish_tiles read and write): global memory that
/// no other op of a kernel reads or writes, so their atomics are not taken
/// for writes of the kernel's buffers (which would pin copies below them).
struct TileScheduleResource
    : public SideEffects::Resource::Base<TileScheduleResource> {
  StringRef getName() final { return "TileSchedule"; }
};

namespace OpTrait {
/// The op must be nested, at any depth, inside a `tile.kernel`.
template <typename ConcreteType>
class InKernel : public ::mlir::OpTrait::TraitBase<ConcreteType, InKernel> {
public:
  static LogicalResult verifyTrait(Operation *op);
};
} // namespace OpTrait

} // namespace tile
} // namespace mlir

#include "TileLang/Dialect/Tile/IR/TileOpsDialect.h.inc"

#include "TileLang/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "TileLang/Dialect/Tile/IR/TileAttrs.h.inc"

namespace mlir {
namespace scf {
class IfOp;
} // namespace scf
namespace tile {

/// Returns the tile memory space of `type`, or std::nullopt for a global
/// buffer (no tile memory space).
std::optional<MemorySpace> getMemorySpace(MemRefType type);

/// True when `type` lives in the given tile memory space.
inline bool isInSpace(MemRefType type, MemorySpace space) {
  return getMemorySpace(type) == space;
}

/// True when `value` is a memref in global memory (no tile memory space).
bool isGlobalBuffer(Value value);

/// How mayWriteMemory treats an op it walks to.
enum class EffectCheck {
  /// Its write effects count (unknown effects count as writing).
  Check,
  /// It writes nothing that counts (its nested ops are still walked).
  Ignore,
  /// Neither it nor anything nested in it counts.
  Skip
};

/// True when `root` or an op nested in it may write memory that `counts`
/// accepts (a write effect; one without a value is on `getResource()`), or
/// has memory effects that cannot be told (no MemoryEffectOpInterface, not
/// recursive). `classify` tells which ops to look at.
bool mayWriteMemory(
    Operation *root, function_ref<EffectCheck(Operation *)> classify,
    function_ref<bool(const MemoryEffects::EffectInstance &)> counts);

/// True when `op` (or anything nested in it) may write global memory, or
/// has effects that cannot be told. With `barriersOnlyOrder`, arrival
/// barrier waits and arrives (which order memory, declared as writing it
/// all) do not count.
bool mayWriteGlobalMemory(Operation *op, bool barriersOnlyOrder = false);

/// The results of `map` at the integer point `dims` (no symbols), computed
/// on integers: AffineMap::compose(ArrayRef<int64_t>) builds and uniques an
/// expression per node, which evaluating a layout at each of a tile's
/// thousands of elements cannot afford. Divisors (mod, floordiv, ceildiv)
/// must be positive.
SmallVector<int64_t, 4> evaluateAffineMap(AffineMap map,
                                          ArrayRef<int64_t> dims);

/// The compute capability in a CUDA chip name ("sm_90a" -> 90), 0 if none.
int64_t parseSmVersion(StringRef chip);

/// Threads per warp (wavefront) of a chip: 32 on NVIDIA and on AMD gfx10+,
/// 64 on AMD gfx9 (CDNA), 1 on the CPU.
int64_t getWarpSize(TargetKind kind, StringRef chip);

/// The bytes of an on-chip tile of `type` (static shape; sub-byte element
/// types round the total up), as placed in shared memory.
int64_t getTileSizeInBytes(MemRefType type);

/// The most shared memory (LDS) one block may use on `target`, in bytes; 0
/// when the chip is not known (no limit is checked).
int64_t getMaxSharedMemoryPerBlock(TargetAttr target);

/// Returns the `tile.target` of the module that encloses `op`, if any.
TargetAttr getTargetAttr(Operation *op);

/// Where the tile of a tile.copy or tile.atomic_add lies in one of its
/// sides. Element `ivs` of the tile is element `getIndex(ivs)` of `buffer`:
/// along buffer dimension `tileDims[t]` the offset plus `ivs[t]`, along every
/// other (indexed-away) dimension its offset alone (0 without offsets).
struct TileRegion {
  /// The buffer the tile lies in.
  Value buffer;
  /// One offset per dimension of `buffer`; empty when the tile covers the
  /// buffer from index 0.
  SmallVector<Value> offsets;
  /// For each tile dimension, the buffer dimension it runs along; -1 for a
  /// leading unit dimension of the tile that the buffer does not have.
  SmallVector<int64_t> tileDims;

  int64_t getBufferRank() const {
    return cast<MemRefType>(buffer.getType()).getRank();
  }
  /// The buffer dimension the innermost tile dimension runs along (-1 for a
  /// tile of rank 0 or one whose innermost dimension the buffer lacks).
  int64_t getInnerDim() const {
    return tileDims.empty() ? -1 : tileDims.back();
  }
  /// True when the tile lies along the buffer's trailing dimensions, in
  /// order (the head-address form): what lowerings that only know that
  /// form may take.
  bool isTrailing() const;
};

/// The region of a tile of rank `tileRank` in `buffer` at `offsets` (none:
/// the whole buffer) with `sizes` (null: the head-address form, aligned to
/// the trailing dimensions; else an extent per buffer dimension, 0 where it
/// is indexed away), as tile.copy and tile.atomic_add define it.
TileRegion getTileRegion(Value buffer, ValueRange offsets,
                         DenseI64ArrayAttr sizes, int64_t tileRank);

/// Shared verifier of the InKernel trait.
LogicalResult verifyInKernel(Operation *op);

/// The threads [first, first + count) of a one-dimensional block of
/// `threads` for which `cond` holds, when it is `tid < c`, `tid >= c` (or
/// `<=`, `>`) of tile.thread_id 0 and a constant, or two of them joined by
/// `and` (TileLang's `if tx < 128:`, `T.ws(1)`).
std::optional<std::pair<int64_t, int64_t>> matchThreadRange(Value cond,
                                                            int64_t threads);

/// The range of threads [first, first + count) that runs `op` when it lies
/// in a branch on a range of threads of its kernel's one-dimensional block
/// (the then branch of an scf.if on matchThreadRange's condition, or its
/// else branch: getElseThreadRange), the innermost such branch, or in an op
/// marked `tile.thread_range`; std::nullopt when the whole block runs it.
std::optional<std::pair<int64_t, int64_t>> getThreadRangeOf(Operation *op);

/// The threads that run the else branch of `branch`, an scf.if on a range
/// of threads (matchThreadRange): of those that reach the if (the range
/// around it, or the block), the ones outside its condition's range, when
/// they are one range (TileLang's `if tx < 128: ... elif tx < 256: ...
/// else: ...`); std::nullopt otherwise.
std::optional<std::pair<int64_t, int64_t>> getElseThreadRange(scf::IfOp branch);

/// The threads that run `op`: those of the thread range it lies in, else
/// its kernel's.
int64_t getThreadsOf(Operation *op);

/// The threads a fragment is laid out over: when every op that uses it
/// (through views too) lies in one thread range, that range's count (a
/// warp-specialized side's accumulators), else the kernel's.
int64_t getFragmentThreads(Value fragment);

namespace OpTrait {
template <typename ConcreteType>
LogicalResult InKernel<ConcreteType>::verifyTrait(Operation *op) {
  return verifyInKernel(op);
}
} // namespace OpTrait

} // namespace tile
} // namespace mlir

#include "TileLang/Dialect/Tile/IR/TileInterfaces.h.inc"

#define GET_OP_CLASSES
#include "TileLang/Dialect/Tile/IR/TileOps.h.inc"

#endif // TILELANG_DIALECT_TILE_IR_TILEDIALECT_H
