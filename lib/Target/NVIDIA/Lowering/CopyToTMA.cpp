//===- CopyToTMA.cpp - Barrier-counted copies on TMA and mbarriers --------===//
//
// Part of TileLang-MLIR.
//
// sm_90: the arrival barriers of tile.barrier_init / tile.barrier_wait as
// mbarrier objects, and tile.copy {async} arrive(...) as one TMA transfer
// (cp.async.bulk.tensor) that thread 0 issues after announcing its bytes
// on the barrier (mbarrier.arrive.expect_tx).
//
// The tensor map of a copy is created on the host right before the kernel
// (createTensorMaps: tile-nvvm-tensor-maps) by the runtime's
// tileTensorMapEncode (rank 2 to 5: the
// tile's columns are the box's innermost extent, its rows the extent along
// the dimension its region gives them, every other extent 1), which returns a null pointer
// when the global buffer does not allow TMA (start or strides not a
// multiple of 16 bytes, a strided innermost dimension): the
// block then copies synchronously and thread 0 arrives, so the barrier
// counts the same arrivals either way. The box covers the whole tile;
// elements outside the global buffer read as zero (TMA's out-of-bounds
// fill), and the transaction count is always the whole box.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Lowering.h"

#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::tile;

/// The runtime function that encodes a 2-D tensor map (CUDARuntime.cpp).
static constexpr llvm::StringLiteral kEncodeFunction = "tileTensorMapEncode";
/// The most dimensions a tensor map has.
static constexpr int64_t kMaxTensorMapRank = 5;

/// Time hint (ns) of each mbarrier.try_wait.parity before it retries.
static constexpr int32_t kWaitTicks = 10000000;

std::optional<TmaBox> mlir::tile::getTmaBox(ArrayRef<int64_t> shape,
                                            Type elementType,
                                            SwizzleAttr swizzle) {
  unsigned bits = elementType.getIntOrFloatBitWidth();
  if (shape.size() != 2 || bits % 8 || bits > 64)
    return std::nullopt;
  int64_t bytes = bits / 8;
  int64_t rows = shape[0], cols = shape[1], rowBytes = cols * bytes;
  // Whole 128-byte units, so that every stage of a multi-buffered tile
  // starts 128-byte aligned (as TMA destinations must).
  if (rows < 1 || cols < 1 || rowBytes % 16 || (rows * rowBytes) % 128)
    return std::nullopt;
  // Blocked: 8 x 128-byte blocks, each a 1 KiB piece of the 128-byte
  // swizzle, in row-group-major order: one 8-row box per block; in column
  // panels, one box per panel (all rows, up to 256).
  if (swizzle && swizzle.getBlocked()) {
    int64_t width = swizzle.getBlockWidth();
    if (swizzle.getBits() != 3 || swizzle.getShift() != 3 ||
        (int64_t(1) << swizzle.getBase()) * bytes != 16 ||
        width * bytes != 128 || rows % 8 || cols % width)
      return std::nullopt;
    if (swizzle.getPanels())
      return rows > 256 ? std::nullopt
                        : std::optional<TmaBox>(
                              TmaBox{rows, width, 3, 1, cols / width});
    return TmaBox{8, width, 3, rows / 8, cols / width};
  }
  if (rows > 256 || cols > 256)
    return std::nullopt;
  if (!swizzle)
    return TmaBox{rows, cols, 0, 1, 1};
  // The XOR of 16-byte units by the row bits: 16 << bits bytes per row.
  if (swizzle.getShift() != 3 || swizzle.getBits() < 1 ||
      swizzle.getBits() > 3 ||
      (int64_t(1) << swizzle.getBase()) * bytes != 16 ||
      rowBytes != (int64_t(16) << swizzle.getBits()))
    return std::nullopt;
  return TmaBox{rows, cols, swizzle.getBits(), 1, 1};
}

/// CUtensorMapDataType of `type`: integers by width (their bits are only
/// moved), floats by kind; nullopt for the others.
static std::optional<int64_t> getTensorMapDataType(Type type) {
  if (type.isF16())
    return 6;
  if (type.isBF16())
    return 9;
  if (type.isF32())
    return 7;
  if (type.isF64())
    return 8;
  switch (type.getIntOrFloatBitWidth()) {
  case 8:
    return 0; // uint8 (also the 8-bit floats)
  case 16:
    return 1; // uint16
  case 32:
    return 3; // int32
  case 64:
    return 5; // int64
  default:
    return std::nullopt;
  }
}

static Value toI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

/// The declaration of the encoding function in `module`: i64 in (the start
/// address, data type, rank, then five sizes, five strides in elements and
/// five box extents, outermost first, then the swizzle mode); the map's
/// device address or 0 out.
static func::FuncOp getEncodeFunction(ModuleOp module) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(kEncodeFunction))
    return fn;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type i64 = b.getI64Type();
  auto fn = func::FuncOp::create(
      b, module.getLoc(), kEncodeFunction,
      b.getFunctionType(SmallVector<Type>(4 + 3 * kMaxTensorMapRank, i64),
                        {i64}));
  fn.setPrivate();
  return fn;
}

/// The global side of a copy TMA could do (the tile's region in it) and
/// the shared tile on the other side.
struct TmaCopy {
  TileRegion global;
  Value tile;
};

/// The sides of `copy` as a TMA load (one that arrives on a barrier, from
/// global memory into a whole shared tile) or a TMA store (synchronous, from a whole shared tile of
/// the same element type to global memory); nullopt for other copies.
static std::optional<TmaCopy> getTmaCopy(CopyOp copy) {
  if (copy.getBarriers()) {
    if (!copy.getDstOffsets().empty())
      return std::nullopt;
    return TmaCopy{copy.getSrcRegion(), copy.getDst()};
  }
  auto tile = cast<MemRefType>(copy.getSrc().getType());
  if (copy.getAsync() || !copy.getSrcOffsets().empty() ||
      !isInSpace(tile, MemorySpace::Shared) ||
      !tile.getLayout().isIdentity() ||
      getMemorySpace(copy.getDst().getType()) ||
      tile.getElementType() != copy.getDst().getType().getElementType())
    return std::nullopt;
  return TmaCopy{copy.getDstRegion(), copy.getSrc()};
}

/// The boxes of `copy`, a copy getTmaCopyMismatch accepts but for its box:
/// those of its shared tile in its current layout (getTmaBox).
static std::optional<TmaBox> getCopyBox(CopyOp copy) {
  std::optional<TmaCopy> sides = getTmaCopy(copy);
  if (!sides)
    return std::nullopt;
  auto tile = cast<MemRefType>(sides->tile.getType());
  return getTmaBox(tile.getShape(), tile.getElementType(),
                   getTileSwizzle(sides->tile));
}

/// The address (an index) of the first element of the memref `buffer`: its
/// aligned pointer plus its offset in bytes.
static Value getStartAddress(OpBuilder &b, Location loc, Value buffer) {
  int64_t bytes =
      cast<MemRefType>(buffer.getType()).getElementTypeBitWidth() / 8;
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  return arith::AddIOp::create(
      b, loc, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer),
      arith::MulIOp::create(b, loc, metadata.getOffset(),
                            indexConst(b, loc, bytes)));
}

Value mlir::tile::getSharedPointer(OpBuilder &b, Location loc, Value tile,
                                   Value byteOffset) {
  Value address = getStartAddress(b, loc, tile);
  if (byteOffset)
    address = arith::AddIOp::create(b, loc, address, byteOffset);
  return LLVM::IntToPtrOp::create(b, loc,
                                  LLVM::LLVMPointerType::get(b.getContext(), 3),
                                  toI64(b, loc, address));
}

std::optional<std::string>
mlir::tile::getTensorMapStrideMismatch(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty())
    return std::string("a tensor map needs a strided global buffer");
  if (ShapedType::isStatic(strides.back()) && strides.back() != 1)
    return std::string("a tensor map needs the buffer's last dimension "
                       "contiguous");
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  for (int64_t stride : ArrayRef(strides).drop_back())
    if (ShapedType::isStatic(stride) && (stride * bytes) % 16)
      return ("a tensor map needs strides of 16-byte multiples; this "
              "buffer's rows are " +
              Twine(stride * bytes) + " bytes apart")
          .str();
  return std::nullopt;
}

std::optional<std::string> mlir::tile::getTmaCopyMismatch(CopyOp copy,
                                                          bool checkBox) {
  std::optional<TmaCopy> sides = getTmaCopy(copy);
  if (!sides)
    return std::string("TMA loads arrive on a barrier; TMA stores are "
                       "synchronous copies of a whole row-major or swizzled "
                       "shared tile of the global buffer's element type");
  const TileRegion &region = sides->global;
  auto globalType = cast<MemRefType>(region.buffer.getType());
  if (globalType.getRank() < 2 || globalType.getRank() > kMaxTensorMapRank ||
      region.offsets.size() != static_cast<size_t>(globalType.getRank()))
    return std::string("a tensor map describes a global buffer of rank 2 "
                       "to 5 addressed in all its dimensions");
  if (region.tileDims.size() != 2 || region.tileDims[0] < 0 ||
      !isAlongLastDim(region))
    return std::string("TMA moves 2-D tiles whose rows run along the "
                       "global buffer's last dimension");
  if (!getTensorMapDataType(globalType.getElementType()))
    return std::string("tensor maps do not take this element type");
  if (std::optional<std::string> why = getTensorMapStrideMismatch(globalType))
    return why;
  auto kernel = copy->getParentOfType<KernelOp>();
  Value buffer = region.buffer;
  Operation *owner = buffer.getParentBlock()->getParentOp();
  if (!kernel || owner == kernel || kernel->isProperAncestor(owner))
    return std::string("the host encodes tensor maps of kernel arguments, "
                       "not of buffers the kernel defines");
  if (checkBox && !getCopyBox(copy))
    return std::string("no TMA box moves this tile (rows of 16-byte "
                       "multiples, at most 256 x 256 elements, 128-byte "
                       "multiples in all, a swizzle whose span is the row)");
  return std::nullopt;
}

bool mlir::tile::hasTensorMemoryAccelerator(TargetAttr target) {
  return target && target.getKind() == TargetKind::CUDA &&
         target.getSmVersion() >= 90;
}

void mlir::tile::createTensorMaps(Operation *root) {
  root->walk([&](KernelOp kernel) {
    auto module = kernel->getParentOfType<ModuleOp>();
    // One map per global buffer, box and swizzle of the kernel.
    llvm::DenseMap<std::tuple<Value, int64_t, int64_t, int64_t, int64_t>,
                   Value>
        made;
    kernel.walk([&](CopyOp copy) {
      // (The box depends on the tile's final layout: a copy selected for
      // TMA before its tile had one may have none, and takes the block's
      // copy.)
      CopyEngineAttr engine = copy.getEngineAttr();
      if (copy.getTensorMap() || !engine ||
          engine.getKind() != CopyEngineKind::TMA ||
          getTmaCopyMismatch(copy, /*checkBox=*/true))
        return;
      std::optional<TmaCopy> sides = getTmaCopy(copy);
      Value src = sides->global.buffer;
      int64_t rowDim = sides->global.tileDims[0];
      auto srcType = cast<MemRefType>(src.getType());
      TmaBox box = *getCopyBox(copy);
      auto key = std::make_tuple(src, rowDim, box.rows, box.cols, box.swizzle);
      Value &descriptor = made[key];
      if (!descriptor) {
        OpBuilder b(kernel);
        Location loc = copy.getLoc();
        int64_t rank = srcType.getRank();
        auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, src);
        Value start = getStartAddress(b, loc, src);
        auto i64 = [&](int64_t v) -> Value {
          return arith::ConstantIntOp::create(b, loc, v, 64);
        };
        // Sizes, strides and box, each padded to five; the box is the tile
        // along its two dimensions (the rows along `rowDim`, the columns
        // along the innermost), 1 along the others.
        SmallVector<Value> sizes, strides, boxes;
        for (int64_t d = 0; d < kMaxTensorMapRank; ++d) {
          bool used = d < rank;
          sizes.push_back(used ? toI64(b, loc, metadata.getSizes()[d])
                               : i64(1));
          strides.push_back(used ? toI64(b, loc, metadata.getStrides()[d])
                                 : i64(1));
          boxes.push_back(i64(!used           ? 1
                              : d == rowDim   ? box.rows
                              : d == rank - 1 ? box.cols
                                              : 1));
        }
        SmallVector<Value> args = {toI64(b, loc, start),
                                   i64(*getTensorMapDataType(
                                       srcType.getElementType())),
                                   i64(rank)};
        llvm::append_range(args, sizes);
        llvm::append_range(args, strides);
        llvm::append_range(args, boxes);
        args.push_back(i64(box.swizzle));
        descriptor =
            func::CallOp::create(b, loc, getEncodeFunction(module), args)
                .getResult(0);
      }
      copy.getTensorMapMutable().assign(descriptor);
    });
  });
}

Value mlir::tile::getBarrierPointer(OpBuilder &b, Location loc,
                                   Value barriers, Value index) {
  return getSharedPointer(
      b, loc, barriers,
      arith::MulIOp::create(b, loc, index, indexConst(b, loc, 8)));
}

namespace {

NVVM::MemScopeKindAttr ctaScope(OpBuilder &b) {
  return NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA);
}

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

/// Calls `each` for every box of `box` (blocked tiles: per 8-row group and
/// block, 1 KiB apart in that order) with its coordinates in the global
/// buffer (i32, innermost first, from the offsets of the copy's `region`,
/// whose tile rows run along its first tile dimension and columns along
/// the last buffer dimension) and its byte offset in the shared tile (null
/// for the first).
void forEachBox(OpBuilder &b, Location loc, const TmaBox &box,
                const TileRegion &region, int64_t elementBits,
                function_ref<void(ValueRange, Value)> each) {
  int64_t boxBytes = box.rows * box.cols * elementBits / 8;
  int64_t rank = region.getBufferRank();
  int64_t rowDim = region.tileDims[0];
  for (int64_t g = 0; g < box.rowBoxes; ++g)
    for (int64_t p = 0; p < box.colBoxes; ++p) {
      SmallVector<Value> coordinates;
      for (int64_t d = rank - 1; d >= 0; --d) {
        Value offset = region.offsets[d];
        int64_t shift = d == rank - 1 ? p * box.cols
                        : d == rowDim ? g * box.rows
                                      : 0;
        Value at = shift ? arith::AddIOp::create(b, loc, offset,
                                                 indexConst(b, loc, shift))
                               .getResult()
                         : offset;
        coordinates.push_back(
            arith::IndexCastOp::create(b, loc, b.getI32Type(), at));
      }
      int64_t byteOffset = (g * box.colBoxes + p) * boxBytes;
      each(coordinates, byteOffset ? indexConst(b, loc, byteOffset) : Value());
    }
}

/// True at run time when a TMA transfer of the tile at `region` may be
/// issued with the map `descriptor`: the host made the map (nonzero), and
/// the box starts at coordinates in [0, 2^31) with its innermost one on a
/// 16-byte boundary. The H200 traps ("illegal instruction") on a box whose
/// innermost start is not 16-byte aligned, and on 8-byte elements at a
/// negative coordinate (the copy fuzzer found both); such tiles, which the
/// edge rules allow, take the copy without TMA.
Value isTmaUsable(OpBuilder &b, Location loc, Value descriptor,
                  const TileRegion &region) {
  Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                   descriptor,
                                   arith::ConstantIntOp::create(b, loc, 0, 64));
  auto all = [&](Value condition) {
    ok = arith::AndIOp::create(b, loc, ok, condition);
  };
  // Coordinates are signed 32-bit: an offset past 2^31 would wrap around
  // to another element (one unsigned compare covers both bounds).
  constexpr int64_t kCoordinateLimit = int64_t(1) << 31;
  Value zero = indexConst(b, loc, 0);
  for (Value offset : region.offsets)
    if (std::optional<int64_t> c = getConstantIntValue(offset);
        !c || *c < 0 || *c >= kCoordinateLimit)
      all(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, offset,
                                indexConst(b, loc, kCoordinateLimit)));
  int64_t bytes =
      cast<MemRefType>(region.buffer.getType()).getElementTypeBitWidth() / 8;
  int64_t perUnit = std::max<int64_t>(16 / bytes, 1);
  Value inner = region.offsets.back();
  if (std::optional<int64_t> c = getConstantIntValue(inner);
      !c || *c % perUnit)
    all(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemSIOp::create(b, loc, inner, indexConst(b, loc, perUnit)),
        zero));
  return ok;
}

/// Thread 0 initializes every barrier; the block barrier publishes them.
/// A block barrier first: no thread still waits on the barriers' previous
/// use (a persistent kernel initializes them again for each of its tiles).
struct BarrierInitToMBarrier : OpRewritePattern<BarrierInitOp> {
  BarrierInitToMBarrier(MLIRContext *ctx)
      : OpRewritePattern<BarrierInitOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(BarrierInitOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TypedValue<MemRefType> barriers = op.getBarriers();
    int64_t count = barriers.getType().getDimSize(0);
    gpu::BarrierOp::create(rewriter, loc);
    onThreadZero(rewriter, loc, op, [&](OpBuilder &b) {
      Value arrivals = i32Const(b, loc, op.getArrivals());
      for (int64_t i = 0; i < count; ++i)
        NVVM::MBarrierInitOp::create(
            b, loc, getBarrierPointer(b, loc, barriers, indexConst(b, loc, i)),
            arrivals, /*predicate=*/Value());
      // Visible to the asynchronous proxy (TMA's completions) too.
      NVVM::FenceMbarrierInitOp::create(b, loc);
    });
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Every thread waits; with `issuer` only thread 0, the one that issues
/// the TMA transfers that follow (the op it becomes says so, for them).
struct BarrierWaitToMBarrier : OpRewritePattern<BarrierWaitOp> {
  BarrierWaitToMBarrier(MLIRContext *ctx)
      : OpRewritePattern<BarrierWaitOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(BarrierWaitOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto wait = [&](OpBuilder &b) {
      Value parity = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                                op.getParity());
      NVVM::MBarrierTryWaitParityOp::create(
          b, loc, getBarrierPointer(b, loc, op.getBarriers(), op.getIndex()),
          parity, i32Const(b, loc, kWaitTicks));
    };
    if (!op.getIssuer()) {
      wait(rewriter);
      rewriter.eraseOp(op);
      return success();
    }
    onThreadZero(rewriter, loc, op, wait)
        ->setAttr(TileDialect::getIssuerWaitAttrName(),
                  rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Each warp converges, then its lane 0 arrives (the barrier counts warps);
/// `per_thread`, every thread arrives; `async_copies`, once its cp.async
/// copies landed.
struct BarrierArriveToMBarrier : OpRewritePattern<BarrierArriveOp> {
  BarrierArriveToMBarrier(MLIRContext *ctx)
      : OpRewritePattern<BarrierArriveOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(BarrierArriveOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The arrival once the thread's cp.async copies landed (noinc: the
    // barrier's count already holds it).
    if (op.getAsyncCopies()) {
      NVVM::CpAsyncMBarrierArriveOp::create(
          rewriter, loc,
          getBarrierPointer(rewriter, loc, op.getBarriers(), op.getIndex()),
          /*noinc=*/true);
      rewriter.eraseOp(op);
      return success();
    }
    if (op.getPerThread()) {
      NVVM::MBarrierArriveOp::create(
          rewriter, loc, Type(),
          getBarrierPointer(rewriter, loc, op.getBarriers(), op.getIndex()),
          /*count=*/Value(), ctaScope(rewriter));
      rewriter.eraseOp(op);
      return success();
    }
    NVVM::SyncWarpOp::create(rewriter, loc, i32Const(rewriter, loc, -1));
    onThreadZero(
        rewriter, loc, op,
        [&](OpBuilder &b) {
          NVVM::MBarrierArriveOp::create(
              b, loc, Type(),
              getBarrierPointer(b, loc, op.getBarriers(), op.getIndex()),
              /*count=*/Value(), ctaScope(b));
        },
        /*every=*/32);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.next_tile between a producer and the consumers: in the producer,
/// thread 0 waits until every warp read the previous index, takes the next
/// count, writes it into the slot and arrives on `full` (the arrival
/// releases the write); then, on either side, every thread waits for
/// `full`, reads the slot, and each warp arrives on `released`.
struct NextTileHandoff : OpRewritePattern<NextTileOp> {
  NextTileHandoff(MLIRContext *ctx)
      : OpRewritePattern<NextTileOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(NextTileOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getFull())
      return failure();
    Location loc = op.getLoc();
    Value zero = indexConst(rewriter, loc, 0);
    auto parityOf = [&](OpBuilder &b, Value phase) -> Value {
      return arith::IndexCastOp::create(
          b, loc, b.getI32Type(),
          arith::RemUIOp::create(b, loc, phase, indexConst(b, loc, 2)));
    };
    Value count = op.getCount();
    if (!op.getReceive()) {
      // Thread 0 takes the count at the start of the op's block when the
      // counters are defined outside it (once per iteration of the
      // producer's loop over tiles, as the op): the atomic's latency then
      // overlaps the fills in between instead of delaying the next tile's
      // first copies, whose addresses need the index.
      auto take = [&](OpBuilder &b) {
        return takeTileCount(b, loc, op.getCounters());
      };
      Value early;
      Block *block = op->getBlock();
      if (op.getCounters().getParentRegion()->isProperAncestor(
              block->getParent())) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(block);
        Value first =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                  getBlockThreads(rewriter, op).threadId,
                                  indexConst(rewriter, loc, 0));
        early = scf::IfOp::create(
                    rewriter, loc, first,
                    [&](OpBuilder &then, Location) {
                      scf::YieldOp::create(then, loc, take(then));
                    },
                    [&](OpBuilder &otherwise, Location) {
                      scf::YieldOp::create(otherwise, loc,
                                           i32Const(otherwise, loc, 0));
                    })
                    .getResult(0);
      }
      onThreadZero(rewriter, loc, op, [&](OpBuilder &b) {
        // Phase count - 1 (a fresh barrier's parity 1 counts as done).
        Value previous =
            arith::AddIOp::create(b, loc, count, indexConst(b, loc, 1));
        NVVM::MBarrierTryWaitParityOp::create(
            b, loc, getBarrierPointer(b, loc, op.getReleased(), zero),
            parityOf(b, previous), i32Const(b, loc, kWaitTicks));
        Value taken = early ? early : take(b);
        memref::StoreOp::create(b, loc, taken, op.getSlot(), ValueRange{zero});
        NVVM::MBarrierArriveOp::create(
            b, loc, Type(), getBarrierPointer(b, loc, op.getFull(), zero),
            /*count=*/Value(), ctaScope(b));
      });
    }
    NVVM::MBarrierTryWaitParityOp::create(
        rewriter, loc, getBarrierPointer(rewriter, loc, op.getFull(), zero),
        parityOf(rewriter, count), i32Const(rewriter, loc, kWaitTicks));
    Value taken =
        memref::LoadOp::create(rewriter, loc, op.getSlot(), ValueRange{zero});
    NVVM::SyncWarpOp::create(rewriter, loc, i32Const(rewriter, loc, -1));
    onThreadZero(
        rewriter, loc, op,
        [&](OpBuilder &b) {
          NVVM::MBarrierArriveOp::create(
              b, loc, Type(), getBarrierPointer(b, loc, op.getReleased(), zero),
              /*count=*/Value(), ctaScope(b));
        },
        /*every=*/32);
    rewriter.replaceOp(
        op, getTileIndexOfCount(rewriter, loc, op.getOffset(), taken));
    return success();
  }
};

/// tile.copy {async} arrive(...): after a block barrier (no thread still
/// reads the destination's previous contents), one TMA transfer from thread
/// 0 when the tensor map exists, else the block's synchronous copy and one
/// arrival (`tx_only`: the transfer's bytes expected without an arrival,
/// and nothing after the synchronous copy).
struct CopyWithArriveToTMA : OpRewritePattern<CopyOp> {
  CopyWithArriveToTMA(MLIRContext *ctx)
      : OpRewritePattern<CopyOp>(ctx, /*benefit=*/3) {}

  /// True when a block barrier already separates `op` from every read of
  /// shared memory before it: walking back over side-effect-free ops, a
  /// gpu.barrier or another copy that arrives on a barrier (which begins
  /// with one, or follows one, and reads no shared memory itself), as when
  /// a stage issues several copies; or a `tile.barrier_wait {issuer}`: the
  /// issuing thread waited until every warp released the destinations (a
  /// synchronous fallback copy begins with a block barrier after that wait).
  static bool followsBarrier(Operation *op) {
    for (Operation *prev = op->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      // A copy that arrives on a barrier and is still to be lowered will
      // begin with a block barrier or follow one.
      auto copy = dyn_cast<CopyOp>(prev);
      auto wait = dyn_cast<BarrierWaitOp>(prev);
      if (isa<gpu::BarrierOp>(prev) ||
          prev->hasAttr(TileDialect::getLoweredTmaCopyAttrName()) ||
          prev->hasAttr(TileDialect::getIssuerWaitAttrName()) ||
          (wait && wait.getIssuer()) || (copy && copy.getBarriers()))
        return true;
      if (!isPure(prev))
        return false;
    }
    return false;
  }

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getBarriers())
      return failure();
    Location loc = op.getLoc();
    if (!followsBarrier(op))
      gpu::BarrierOp::create(rewriter, loc);
    Value barrier = getBarrierPointer(rewriter, loc, op.getBarriers(),
                                   op.getBarrierIndex());
    // The synchronous copy, then thread 0 arrives (its block barrier after
    // the copy orders every thread's writes before the arrival).
    auto emitFallback = [&](OpBuilder &b) {
      createFallbackCopy(b, op);
      // A tx_only copy expected no bytes here: the threads' arrivals
      // after it publish what the block wrote.
      if (op.getTxOnly())
        return;
      onThreadZero(b, loc, op, [&](OpBuilder &then) {
        NVVM::MBarrierArriveOp::create(then, loc, Type(), barrier,
                                       /*count=*/Value(), ctaScope(then));
      });
    };
    Value descriptor = op.getTensorMap();
    if (!descriptor) {
      emitFallback(rewriter);
      rewriter.eraseOp(op);
      return success();
    }
    MemRefType tile = op.getDst().getType();
    int64_t boxBytes =
        tile.getNumElements() * tile.getElementTypeBitWidth() / 8;
    std::optional<TmaBox> maybeBox = getCopyBox(op);
    if (!maybeBox)
      return rewriter.notifyMatchFailure(op, "no TMA box writes this tile");
    TmaBox box = *maybeBox;
    Value usable = isTmaUsable(rewriter, loc, descriptor, op.getSrcRegion());
    auto ifOp = scf::IfOp::create(rewriter, loc, usable, /*withElse=*/true);
    // Like a lowered cp.async copy: its writes are seen through the wait.
    ifOp->setAttr(TileDialect::getLoweredAsyncCopyAttrName(),
                  rewriter.getUnitAttr());
    ifOp->setAttr(TileDialect::getLoweredTmaCopyAttrName(),
                  rewriter.getUnitAttr());
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
      onThreadZero(rewriter, loc, op, [&](OpBuilder &b) {
        if (op.getTxOnly())
          NVVM::MBarrierExpectTxOp::create(b, loc, barrier,
                                           i32Const(b, loc, boxBytes),
                                           NVVM::MemScopeKind::CTA);
        else
          NVVM::MBarrierArriveExpectTxOp::create(
              b, loc, Type(), barrier, i32Const(b, loc, boxBytes),
              ctaScope(b), b.getBoolAttr(false), /*predicate=*/Value());
        Value map = LLVM::IntToPtrOp::create(
            b, loc, LLVM::LLVMPointerType::get(b.getContext()), descriptor);
        // One transfer per box.
        forEachBox(
            b, loc, box, op.getSrcRegion(), tile.getElementTypeBitWidth(),
            [&](ValueRange coordinates, Value byteOffset) {
              // The destination as a shared::cluster address (this CTA's own
              // shared memory is part of its cluster's window).
              Value dst = LLVM::AddrSpaceCastOp::create(
                  b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7),
                  getSharedPointer(b, loc, op.getDst(), byteOffset));
              NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
                  b, loc, dst, map, coordinates, barrier,
                  /*im2colOffsets=*/ValueRange(),
                  /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
                  NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
                  /*group=*/NVVM::CTAGroupKindAttr(), /*predicate=*/Value());
            });
      });
      rewriter.setInsertionPointToStart(&ifOp.getElseRegion().front());
      emitFallback(rewriter);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Whether nothing after `op` in its kernel touches memory: every op that
/// follows it, in its block and in those of its ancestors up to the kernel
/// (or the launch it is becoming), is pure (or a terminator), and no loop
/// around it runs it again.
bool isLastMemoryAccess(Operation *op) {
  for (Operation *at = op; !isa<KernelOp, gpu::LaunchOp>(at);
       at = at->getParentOp()) {
    if (isa<LoopLikeOpInterface>(at) || !at->getParentOp())
      return false;
    for (Operation *next = at->getNextNode(); next; next = next->getNextNode())
      if (!isPure(next) && !next->hasTrait<mlir::OpTrait::IsTerminator>())
        return false;
  }
  return true;
}

/// Whether the kernel (or launch) around `op` may read `buffer` through
/// that value: any use but writes (tile.copy into it, stores) and its
/// metadata, followed through views and casts.
bool mayReadInKernel(Operation *op, Value buffer) {
  Operation *kernel = op->getParentOp();
  while (kernel && !isa<KernelOp, gpu::LaunchOp>(kernel))
    kernel = kernel->getParentOp();
  if (!kernel)
    return true;
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (!kernel->isAncestor(user))
        continue;
      if (auto copy = dyn_cast<CopyOp>(user); copy && copy.getDst() == value)
        continue;
      if (isa<memref::StoreOp, vector::StoreOp, memref::DimOp,
              memref::ExtractStridedMetadataOp,
              memref::ExtractAlignedPointerAsIndexOp>(user))
        continue;
      if (isa<memref::CastOp, memref::SubViewOp, memref::ReinterpretCastOp>(
              user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      return true;
    }
  }
  return false;
}

/// A synchronous copy of a whole shared tile into global memory with a
/// tensor map: a TMA store (see populateTmaStorePatterns).
struct CopyToTMAStore : OpRewritePattern<CopyOp> {
  CopyToTMAStore(MLIRContext *ctx)
      : OpRewritePattern<CopyOp>(ctx, /*benefit=*/3) {}

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    Value descriptor = op.getTensorMap();
    if (op.getBarriers() || !descriptor)
      return failure();
    std::optional<TmaBox> maybeBox = getCopyBox(op);
    if (!maybeBox)
      return rewriter.notifyMatchFailure(op, "no TMA box reads this tile");
    TmaBox box = *maybeBox;
    Location loc = op.getLoc();
    auto tile = cast<MemRefType>(op.getSrc().getType());
    // The threads' writes of the tile (generic proxy) become visible to
    // TMA (the asynchronous proxy), and all of them precede the store.
    NVVM::FenceProxyOp::create(
        rewriter, loc,
        NVVM::ProxyKindAttr::get(getContext(), NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(getContext(),
                                   NVVM::SharedSpace::shared_cta));
    gpu::BarrierOp::create(rewriter, loc);
    // The issuing thread waits until TMA has read the tile, and, when the
    // kernel may read the destination afterwards, until global memory is
    // written (as after a synchronous copy); unless the copy is the
    // kernel's last memory access, a block barrier then releases the tile.
    bool last = isLastMemoryAccess(op);
    bool readAfter = !last && mayReadInKernel(op, op.getDst());
    // deferTmaStoreReadWaits placed the wait before the tile's next write.
    bool deferred = op->hasAttr(TileDialect::getDeferredStoreWaitAttrName());
    Value usable = isTmaUsable(rewriter, loc, descriptor, op.getDstRegion());
    auto ifOp = scf::IfOp::create(rewriter, loc, usable, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
      onThreadZero(rewriter, loc, op, [&](OpBuilder &b) {
        Value map = LLVM::IntToPtrOp::create(
            b, loc, LLVM::LLVMPointerType::get(b.getContext()), descriptor);
        forEachBox(
            b, loc, box, op.getDstRegion(), tile.getElementTypeBitWidth(),
            [&](ValueRange coordinates, Value byteOffset) {
              NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
                  b, loc, map, getSharedPointer(b, loc, op.getSrc(), byteOffset),
                  coordinates, /*l2CacheHint=*/Value(),
                  NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
            });
        NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
        if (!deferred)
          NVVM::CpAsyncBulkWaitGroupOp::create(
              b, loc, /*group=*/0, readAfter ? UnitAttr() : b.getUnitAttr());
      });
      if (!last && !deferred)
        gpu::BarrierOp::create(rewriter, loc);
      rewriter.setInsertionPointToStart(&ifOp.getElseRegion().front());
      // No map: the generic lowering takes the copy.
      createFallbackCopy(rewriter, op);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

/// The first and the last op of `block` that hold a use of `value` (other
/// than by `except`), in block order; std::nullopt when a use is not in
/// `block` or there is none.
static std::optional<std::pair<Operation *, Operation *>>
getUseSpanInBlock(Value value, Block *block, Operation *except) {
  Operation *first = nullptr, *last = nullptr;
  for (Operation *user : value.getUsers()) {
    if (user == except)
      continue;
    Operation *top = block->findAncestorOpInBlock(*user);
    if (!top)
      return std::nullopt;
    if (!first || top->isBeforeInBlock(first))
      first = top;
    if (!last || last->isBeforeInBlock(top))
      last = top;
  }
  if (!first)
    return std::nullopt;
  return std::make_pair(first, last);
}

void mlir::tile::deferTmaStoreReadWaits(Operation *root) {
  SmallVector<CopyOp> stores;
  root->walk([&](CopyOp copy) {
    if (!copy.getBarriers() && copy.getTensorMap() &&
        copy.getSrc().getDefiningOp<AllocSharedOp>() &&
        isGlobalBuffer(copy.getDst()))
      stores.push_back(copy);
  });
  for (CopyOp copy : stores) {
    Operation *loop = copy->getParentOp();
    if (!isa<scf::ForOp, scf::WhileOp>(loop) || isLastMemoryAccess(copy) ||
        mayReadInKernel(copy, copy.getDst()))
      continue;
    // The tile's first use in the body (the write that refills it), with
    // every use before the store in the same body.
    auto uses = getUseSpanInBlock(copy.getSrc(), copy->getBlock(), copy);
    if (!uses || !uses->second->isBeforeInBlock(copy))
      continue;
    Operation *first = uses->first;
    // Every thread waits (only the issuing one has bulk groups to wait
    // for), then the block barrier lets the others overwrite the tile.
    Location loc = copy.getLoc();
    OpBuilder b(first);
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, /*group=*/0, b.getUnitAttr());
    gpu::BarrierOp::create(b, loc);
    // The tile stays allocated until the last store read it.
    b.setInsertionPointAfter(loop);
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, /*group=*/0, b.getUnitAttr());
    copy->setAttr(TileDialect::getDeferredStoreWaitAttrName(), b.getUnitAttr());
  }
}

void mlir::tile::populateTmaStorePatterns(RewritePatternSet &patterns) {
  patterns.add<CopyToTMAStore>(patterns.getContext());
}

void mlir::tile::populateTmaPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<BarrierInitToMBarrier, BarrierWaitToMBarrier,
               BarrierArriveToMBarrier, NextTileHandoff>(ctx);
  patterns.add<CopyWithArriveToTMA>(ctx);
}
