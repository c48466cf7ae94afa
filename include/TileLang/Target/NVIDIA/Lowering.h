//===- Lowering.h - NVIDIA lowering of tile ops -----------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TARGET_NVIDIA_LOWERING_H
#define TILELANG_TARGET_NVIDIA_LOWERING_H

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace mlir {
namespace tile {

class RegisterFragments;

/// Marks (TileDialect::getArrivedOperandsAttrName) the synchronous gemms of
/// `root` outside pipelined loops that need no block barrier around them:
/// C, and A unless it is a shared tile, are fragments marked in registers
/// (RegisterFragments::getMarkedTable), and only tile.copy ops that arrive
/// on barriers write their shared operands (tile-nvvm-arrived-operands).
/// Runs before the conversion, while every write is still a tile op.
void markGemmsOnArrivedTiles(Operation *root);

/// NVIDIA lowerings inside a gpu.launch, each of the gemms whose
/// `instruction` names it: mma_sync on tensor cores (nvgpu.mma.sync
/// m16n8k16) from sm_80 on, reading and writing the register fragments of
/// `fragments` (when given) in place; with `wgmma` (some gemm was selected
/// for it) on sm_90, wgmma gemms on wgmma.mma_async, their accumulator
/// fills and tile.gemm_wait as wgmma waits.
void populateTileToNVGPUPatterns(RewritePatternSet &patterns,
                                 int64_t smVersion,
                                 const RegisterFragments *fragments = nullptr,
                                 bool wgmma = false);

/// Why `op` cannot run on mma.sync m16n8kK whatever the block (types,
/// transposes, shapes, operand rows and swizzles), if it cannot.
std::optional<StringRef> getMmaSyncMismatch(GemmOp op);

/// The k extent of one mma.sync of `op`: 16 for 16-bit operands, 32 for
/// 8-bit ones.
int64_t getMmaSyncTileK(GemmOp op);

/// The k extent of one wgmma of `op`: 16 for 16-bit operands, 32 for 8-bit
/// (FP8) ones.
int64_t getWgmmaTileK(GemmOp op);

/// Why `op`'s operands do not divide into wgmma's pieces whatever the
/// block, if they do not: for 16-bit operands mma.sync's conditions (the
/// pieces and the register layouts are shared), for FP8 ones (which
/// mma.sync here does not take) the m16n8k32 pieces and 16-byte rows.
std::optional<StringRef> getWgmmaShapeMismatch(GemmOp op);

/// Why the wgmma lowering cannot emit `op`, selected for wgmma, in a block
/// of `threads` threads with the fragments marked in registers
/// (RegisterFragments::getMarkedTable), if it cannot: C (and A when it is a
/// fragment) must be in registers, C in
/// getWgmmaAccumulatorLayout's layout, the shared operands in the swizzles
/// wgmma reads.
std::optional<StringRef>
getWgmmaLoweringMismatch(GemmOp op, int64_t threads);

/// Whether `swizzle` (null: none) is one wgmma reads a shared operand tile
/// of `type` in through descriptors: the 128-, 64- or 32-byte swizzle of
/// its rows, or for rows wider than 128 bytes the blocked 128-byte layout
/// (either order of its blocks).
bool isWgmmaOperandSwizzle(MemRefType type, SwizzleAttr swizzle);

/// Bytes of one row of the shared operand tile `tile` when wgmma can read
/// it through a descriptor (rows of 32, 64 or 128 bytes with the matching
/// swizzle, or wider rows in the blocked 128-byte layout), else 0. A window
/// of a wider page (SwizzleWindow) is read in the page's layout: whole
/// 8-row groups and, in column panels, whole panels (its rows are then
/// its panels' bytes), or, in any other layout, whole rows of the page.
int64_t getWgmmaRowBytes(Value tile);
/// The same for `tile` placed by `swizzle` (its allocation's, or the one
/// it will get).
int64_t getWgmmaRowBytes(Value tile, SwizzleAttr swizzle);

/// The bytes from the start of the window `tile` is (if it is one) to its
/// first element in its page's layout, less the row-major distance its
/// view adds (memref.extract_strided_metadata's offset): what a wgmma
/// descriptor adds to the view's address. 0 for anything but a window.
int64_t getWgmmaWindowCorrection(Value tile);

/// tile.take_turns on named barriers: warpgroup w waits on barrier 3 + w
/// (its own 128 threads and the previous warpgroup's 128 arrivals), runs
/// the body, then arrives on the next warpgroup's barrier; before the loop
/// (or whatever op of the kernel body holds it), the last warpgroup arrives
/// on warpgroup 0's barrier, which gives it the first turn.
void populateTakeTurnsPatterns(RewritePatternSet &patterns);

/// tile.copy {async} from global to shared memory as cp.async (16, 8 or 4
/// bytes per transfer, zero-filled at the edges, with a run-time alignment
/// check that falls back to the element-wise copy), tile.async_commit and
/// tile.async_wait as cp.async.commit_group and cp.async.wait_group plus a
/// block barrier (sm_80 and newer).
/// Without `mbarriers` (before sm_90, where arrival barriers are not
/// lowered), an arrival after a thread's cp.async copies
/// (`tile.barrier_arrive {async_copies}`) waits for them instead.
void populateCpAsyncPatterns(RewritePatternSet &patterns, bool mbarriers);

/// tile.cluster_arrive, tile.cluster_wait, tile.block_rank_in_cluster and
/// tile.cluster_barrier_arrive as barrier.cluster.arrive/wait,
/// %cluster_ctarank and mapa + a cluster-scope mbarrier arrival (sm_90 and
/// newer).
void populateClusterPatterns(RewritePatternSet &patterns);

/// tile.grid_wait and tile.grid_launch_dependents as griddepcontrol.wait
/// and griddepcontrol.launch_dependents (sm_90 and newer).
void populateGridDependencyPatterns(RewritePatternSet &patterns);

/// tile.set_max_registers as setmaxnreg.inc / setmaxnreg.dec (sm_90a).
void populateWarpgroupRegisterPatterns(RewritePatternSet &patterns);

/// How TMA writes a shared tile: boxes of `rows` x `cols` elements with
/// the tensor map's swizzle mode `swizzle` (0 none, 1/2/3 for 32/64/128-byte
/// swizzles, as CUtensorMapSwizzle numbers them), `rowBoxes` x `colBoxes`
/// of them, each box's bytes right after the previous one's (row-box
/// major).
struct TmaBox {
  int64_t rows, cols, swizzle, rowBoxes, colBoxes;
};

/// The boxes that write a 2-D shared tile of `shape` and `elementType` laid
/// out with `swizzle` (null: row-major), or nullopt when TMA cannot: one
/// box of at most 256 x 256 elements whose rows are a multiple of 16 bytes
/// (a multiple of 128 bytes in all: TMA destinations are 128-byte aligned),
/// with a swizzle only when the rows are exactly its span (16 << bits
/// bytes, the XOR of 16-byte units by the row bits); or, for the blocked
/// 128-byte swizzle of 16-bit elements, one 8 x 64 box per block.
std::optional<TmaBox> getTmaBox(ArrayRef<int64_t> shape, Type elementType,
                                SwizzleAttr swizzle);

/// Why no tensor map can describe the global buffer of type `type`, as far
/// as its type tells, or nullopt: a static stride other than the innermost
/// that is not a multiple of 16 bytes (a 700-column f16 matrix's rows are
/// 1400 bytes apart), or a static innermost stride other than 1. Dynamic
/// strides are checked when the map is encoded, at run time.
std::optional<std::string> getTensorMapStrideMismatch(MemRefType type);

/// Why TMA cannot move `copy` (the `tma` engine), or nullopt: a copy that
/// arrives on a barrier from a global region into a whole shared tile, or
/// a synchronous copy of a whole row-major or swizzled shared tile into a
/// global region, of one element type a tensor map takes; the global
/// buffer of rank 2 to 5, addressed in all its dimensions, a kernel
/// argument whose static strides a tensor map takes
/// (getTensorMapStrideMismatch); the tile 2-D with its rows along the buffer's last dimension
/// and, with `checkBox`, moved by boxes of getTmaBox in its current layout.
std::optional<std::string> getTmaCopyMismatch(CopyOp copy, bool checkBox);

/// Whether `target` (null: none) is NVIDIA's with TMA (sm_90 or newer).
bool hasTensorMemoryAccelerator(TargetAttr target);

/// Gives the copies of the kernels under `root` whose engine is `tma`
/// (#tile.copy_engine) and that TMA can move in their final layout
/// (getTmaCopyMismatch) their tensor map (tile.copy's `tensor_map`): each is
/// created on the host right before its kernel (one runtime call,
/// tileTensorMapEncode, per distinct global buffer and box), as a device
/// pointer that is null when the buffer does not allow TMA at run time.
/// Copies that do not qualify, or already have one, are left alone
/// (tile-nvvm-tensor-maps).
void createTensorMaps(Operation *root);

/// sm_90: tile.barrier_init / tile.barrier_wait as mbarrier init and
/// parity waits, tile.copy with `arrive` as one TMA transfer issued by
/// thread 0 (expect_tx, cp.async.bulk.tensor) with its `tensor_map`, or,
/// when it has none or it is null at run time, as the block's synchronous
/// copy followed by one arrival.
void populateTmaPatterns(RewritePatternSet &patterns);

/// An !llvm.ptr<3> to byte `byteOffset` (null: 0) of the shared tile
/// `tile` (a view, whose offset counts).
Value getSharedPointer(OpBuilder &b, Location loc, Value tile,
                       Value byteOffset = Value());

/// An !llvm.ptr<3> to barrier `index` of the shared barrier array
/// `barriers` (8 bytes each).
Value getBarrierPointer(OpBuilder &b, Location loc, Value barriers,
                        Value index);

/// sm_90: a tile.copy of a whole register fragment into a 16-bit shared
/// tile whose every group of eight slots is stmatrix's order (four 8x8
/// matrices, a lane's two consecutive elements of row lane / 4 of each: the
/// mma/wgmma accumulator layout) as stmatrix.sync.aligned.m8n8.x4 stores.
void populateStmatrixPatterns(RewritePatternSet &patterns,
                              const RegisterFragments &fragments);

/// sm_90: a TMA store of a shared tile in a loop body (the loop over a
/// persistent kernel's tiles) whose every other use comes before it in the
/// body need not wait for TMA to read the tile before the next iteration:
/// the wait (cp.async.bulk.wait_group.read 0, which only the issuing
/// thread has groups for) and a block barrier go before the tile's first
/// use in the body instead (the next tile's epilogue), one more wait after
/// the loop, and the store is marked to skip its own
/// (TileDialect::getDeferredStoreWaitAttrName). The stores are the
/// synchronous copies with a tensor map; runs before the conversion
/// (tile-nvvm-defer-tma-store-waits).
void deferTmaStoreReadWaits(Operation *root);

/// sm_90: a synchronous tile.copy of a whole shared tile into global memory
/// with a `tensor_map`, as a TMA store: every thread fences
/// its shared-memory writes for the asynchronous proxy, a block barrier,
/// then thread 0 issues one cp.async.bulk.tensor per box (TMA clips what
/// falls outside the buffer), commits and waits until they have read the
/// tile (and, when the kernel may read the destination afterwards, until
/// they have written global memory); unless nothing follows in the
/// kernel, a block barrier then releases the tile. A null map at run time
/// takes the block's synchronous copy instead.
void populateTmaStorePatterns(RewritePatternSet &patterns);

/// The layout of `op`'s C tile when the gemm runs on mma.sync m16n8k16 with
/// its accumulators in registers over a block of `threads` threads: 16x8
/// pieces over the warp grid its policy chooses, as the tensor-core
/// lowering holds them. Null when the gemm does not take that path.
FragmentLayoutAttr getMmaAccumulatorLayout(GemmOp op, int64_t threads);

/// The layout an A tile held in registers must have for that gemm: each
/// warp holds the m16k16 operand fragments of its rows, for every k (so a
/// warp grid with several columns replicates A over them). Null when the
/// gemm does not run on mma.sync or A is transposed.
FragmentLayoutAttr getMmaOperandALayout(GemmOp op, int64_t threads);

/// True when the shapes, types and transposes of `op` in a block of
/// `threads` threads fit sm_90's wgmma lowering: f16/bf16 operands with f32
/// accumulation, A (M x K) and B (N x K) K-major shared tiles whose rows are
/// 32, 64 or 128 bytes, 64 rows of C per warpgroup, N a multiple of 8 up to
/// 256. With `blockedRows`, shared rows of any multiple of 128 bytes fit too
/// (16-bit elements, stored in the blocked layout). The layouts (C in the
/// full_row accumulator layout, the operands' swizzles) are checked where
/// the gemm is lowered. With `tallRows`, C may have 128 rows per
/// warpgroup too (two m64 blocks, N <= 128; A in shared memory or 16-bit
/// registers). With
/// `columnGroups` > 1 the warpgroups split N into that many column groups
/// too (C's 64-row blocks of N / columnGroups columns, A in shared memory,
/// each group's columns of B at a whole 8-row group of a K-major B or a
/// whole 128-byte block of a blocked MN-major one).
bool fitsWgmma(GemmOp op, int64_t threads, bool blockedRows = false,
               bool tallRows = false, int64_t columnGroups = 1);

/// The layout of C for a gemm on wgmma over `threads` threads, one wgmma
/// covering `instructionN` columns (0: all N): the warpgroups split C into
/// N / instructionN column groups and the rest of them into row groups;
/// warpgroup g = row group * column groups + column group owns its row
/// group's consecutive rows as m64 blocks of its columns; in each block
/// warp w of the group holds rows 16w.. as an m16n8 accumulator piece per
/// 8 columns (slots block after block, four per piece). With one block and
/// one column group per warpgroup this is getMmaAccumulatorLayout's
/// full_row layout. Null when C does not split so.
FragmentLayoutAttr getWgmmaAccumulatorLayout(GemmOp op, int64_t threads,
                                             int64_t instructionN = 0);

/// The layout an A tile held in registers must have for a gemm on wgmma
/// whose warpgroups each own `blocks` m64 blocks of rows (all N, no column
/// groups): warpgroup g holds its 64 * blocks consecutive rows, warp w of
/// it rows 16w.. of each block, as the m64k16 register operand (slots
/// block after block, four per 8 columns: the accumulator layout of the
/// same shape, so a C copied into A keeps its registers). Null for other
/// shapes, transposed or non-16-bit A.
FragmentLayoutAttr getWgmmaOperandALayout(GemmOp op, int64_t threads,
                                          int64_t blocks);

/// The column groups of a gemm on `instruction` (wgmma): N / its N.
int64_t getWgmmaColumnGroups(GemmOp op, GemmInstructionAttr instruction);

/// The swizzle of a shared gemm operand tile of `type`: with `blocked`, the
/// blocked 128-byte swizzle for rows wider than 128 bytes of 16-bit
/// elements (a multiple of 8 rows and of 128 bytes: what wgmma reads
/// through descriptors), with `panels` stored in column panels (what one TMA
/// box per panel writes); otherwise getLdmatrixSwizzle.
SwizzleAttr getWgmmaOperandSwizzle(MemRefType type, bool blocked,
                                   bool panels = false);

/// The swizzle that makes ldmatrix reads of a shared tile of `type`
/// conflict-free: the 16-byte vectors of a row (up to eight of them) are
/// XOR-permuted by the offset bits just above the first 128 bytes (the row
/// bits for rows of 128 bytes or more), so the eight rows one ldmatrix reads
/// at the same column fall into eight different 16-byte bank groups. Null
/// when the rows are not a power-of-two number of at least two vectors.
SwizzleAttr getLdmatrixSwizzle(MemRefType type);

} // namespace tile
} // namespace mlir

#endif // TILELANG_TARGET_NVIDIA_LOWERING_H
