//===- MmaSync.cpp - tile.gemm on tensor cores with mma.sync -------------===//
//
// Part of TileLang-MLIR.
//
// tile.gemm inside a gpu.launch, lowered to warp-level mma.sync m16n8k16 on
// f16 operands (f32 or f16 accumulation) when M, N, K are multiples of
// 16, 8, 16 and the block has whole warps. The accumulator of a 16x8 C tile
// lives in registers in the mma.sync layout (lane = 4 * g + t owns rows g and
// g + 8, columns 2t and 2t + 1); A and B fragments come from the on-chip
// tiles through ldmatrix (x4 for A, x2 for B, .trans where the stored
// orientation is the transpose of the fragment's), each lane giving the
// address of one 16-byte row of an 8x8 matrix.
//
// Two patterns:
//  * a gemm in the body of a tile.pipelined loop whose C tile nothing else in
//    the loop touches keeps C in registers for the whole loop: loaded once
//    before it, carried as loop values, stored once after it. The warps split
//    C in a 2-D grid chosen by the gemm's policy, and each warp loads every
//    A and B fragment once per k step for all its tiles;
//  * any other gemm loads and stores its C tiles around its own k loop (warp
//    w takes 16x8 tiles w, w + W, ...).
// bf16 (f32 accumulation) takes the same path but emits nvvm.mma.sync
// itself: nvgpu.mma.sync of MLIR 22 cannot type bf16 operands.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Lowering.h"

#include "GemmCommon.h"

#include "TileLang/Conversion/RegisterFragments.h"
#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvidia;

namespace {


/// The warp id and the per-lane offsets of the mma.sync and ldmatrix
/// layouts, computed once at the builder's insertion point.
struct WarpLanes {
  Value warp;
  Value group, twoT;             // mma layout: lane = 4 * group + t
  Value mod8, mod16, div16x8, div8mod2x8; // ldmatrix row addresses
  // Column offsets of the second 16-byte matrix column, in elements.
  Value div16xV, div8mod2xV;

  WarpLanes(OpBuilder &b, Location loc, GemmOp op) {
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value tid = getBlockThreads(b, op).threadId;
    warp = arith::DivUIOp::create(b, loc, tid, c(kWarpSize));
    Value lane = arith::RemUIOp::create(b, loc, tid, c(kWarpSize));
    group = arith::DivUIOp::create(b, loc, lane, c(4));
    twoT = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, lane, c(4)), c(2));
    mod8 = arith::RemUIOp::create(b, loc, lane, c(8));
    mod16 = arith::RemUIOp::create(b, loc, lane, c(16));
    div16x8 = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, lane, c(16)), c(8));
    div8mod2x8 = arith::MulIOp::create(
        b, loc,
        arith::RemUIOp::create(b, loc,
                               arith::DivUIOp::create(b, loc, lane, c(8)),
                               c(2)),
        c(8));
    int64_t v = 128 / op.getA().getType().getElementTypeBitWidth();
    div16xV = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, lane, c(16)), c(v));
    div8mod2xV = arith::MulIOp::create(
        b, loc,
        arith::RemUIOp::create(b, loc,
                               arith::DivUIOp::create(b, loc, lane, c(8)),
                               c(2)),
        c(v));
  }
};



/// The 32-bit registers per lane of an ldmatrix of `tiles` 8x8 matrices of
/// `element`s, as nvgpu.ldmatrix types them.
VectorType getLdmatrixType(int64_t tiles, Type element) {
  return VectorType::get({tiles, 32 / element.getIntOrFloatBitWidth()},
                         element);
}

/// The A fragment of the 16xK block at (row0, k0): matrices (rows 0-7 |
/// 8-15) x (first | second 16 bytes of k) in register order r0k0, r8k0,
/// r0k1, r8k1.
Value loadA(OpBuilder &b, Location loc, GemmOp op, const WarpLanes &l,
            Value row0, Value k0) {
  VectorType type = getLdmatrixType(4, op.getA().getType().getElementType());
  bool trans = op.getTransposeA();
  SmallVector<Value> indices =
      trans ? SmallVector<Value>{addIndex(b, loc, addIndex(b, loc, k0, l.mod8),
                                          l.div16x8),
                                 addIndex(b, loc, row0, l.div8mod2x8)}
            : SmallVector<Value>{addIndex(b, loc, row0, l.mod16),
                                 addIndex(b, loc, k0, l.div16xV)};
  return nvgpu::LdMatrixOp::create(
      b, loc, type, op.getA(), swizzleIndices(b, loc, op.getA(), indices),
      b.getBoolAttr(trans), b.getI32IntegerAttr(4));
}

/// The B fragment of the Kx8 block at (k0, col0): matrices over the first
/// and the second half of k (lanes 16-31 repeat 0-15: ldmatrix .x2 ignores
/// them).
Value loadB(OpBuilder &b, Location loc, GemmOp op, const WarpLanes &l,
            Value k0, Value col0) {
  VectorType type = getLdmatrixType(2, op.getB().getType().getElementType());
  bool trans = op.getTransposeB();
  SmallVector<Value> indices =
      trans ? SmallVector<Value>{addIndex(b, loc, col0, l.mod8),
                                 addIndex(b, loc, k0, l.div8mod2xV)}
            : SmallVector<Value>{addIndex(b, loc, k0, l.mod16), col0};
  return nvgpu::LdMatrixOp::create(
      b, loc, type, op.getB(), swizzleIndices(b, loc, op.getB(), indices),
      b.getBoolAttr(!trans), b.getI32IntegerAttr(2));
}

/// The B fragments of the Kx8 blocks at (k0, col0) and (k0, col0 + 8) with
/// one ldmatrix .x4: matrices (first | second half of k) x (first | second
/// block), lanes 16-31 addressing the second block's rows.
std::pair<Value, Value> loadBPair(OpBuilder &b, Location loc, GemmOp op,
                                  const WarpLanes &l, Value k0, Value col0) {
  Type element = op.getB().getType().getElementType();
  bool trans = op.getTransposeB();
  SmallVector<Value> indices =
      trans ? SmallVector<Value>{addIndex(b, loc, addIndex(b, loc, col0,
                                                           l.mod8),
                                          l.div16x8),
                                 addIndex(b, loc, k0, l.div8mod2xV)}
            : SmallVector<Value>{addIndex(b, loc, k0, l.mod16),
                                 addIndex(b, loc, col0, l.div16x8)};
  Value both = nvgpu::LdMatrixOp::create(
      b, loc, getLdmatrixType(4, element), op.getB(),
      swizzleIndices(b, loc, op.getB(), indices), b.getBoolAttr(!trans),
      b.getI32IntegerAttr(4));
  // Rows (registers) 0-1 and 2-3, as the x2 fragments nvgpu.mma.sync
  // takes (row by row: 2-D slices do not lower to LLVM).
  VectorType halfType = getLdmatrixType(2, element);
  auto half = [&](int64_t first) -> Value {
    Value result = arith::ConstantOp::create(
        b, loc, halfType, cast<TypedAttr>(b.getZeroAttr(halfType)));
    for (int64_t r = 0; r < 2; ++r)
      result = vector::InsertOp::create(
          b, loc, vector::ExtractOp::create(b, loc, both, first + r), result,
          r);
    return result;
  };
  return {half(0), half(2)};
}

/// This lane's (row, column) of element [r][e] of the accumulator of the C
/// tile at (row0, col0).
SmallVector<Value> accumulatorIndex(OpBuilder &b, Location loc,
                                    const WarpLanes &l, Value row0,
                                    Value col0, int64_t r, int64_t e) {
  return {addIndex(b, loc, addIndex(b, loc, row0, l.group), 8 * r),
          addIndex(b, loc, addIndex(b, loc, col0, l.twoT), e)};
}

Value loadAccumulator(OpBuilder &b, Location loc, GemmOp op,
                      const WarpLanes &l, Value row0, Value col0) {
  MemRefType cType = op.getC().getType();
  auto type = VectorType::get({2, 2}, cType.getElementType());
  if (op.getClearAccum())
    return arith::ConstantOp::create(b, loc, type,
                                     cast<TypedAttr>(b.getZeroAttr(type)));
  SmallVector<Value> values;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t e = 0; e < 2; ++e)
      values.push_back(memref::LoadOp::create(
          b, loc, op.getC(), accumulatorIndex(b, loc, l, row0, col0, r, e)));
  return vector::FromElementsOp::create(b, loc, type, values);
}

void storeAccumulator(OpBuilder &b, Location loc, GemmOp op,
                      const WarpLanes &l, Value row0, Value col0, Value acc) {
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t e = 0; e < 2; ++e) {
      Value v = vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, e});
      memref::StoreOp::create(b, loc, v, op.getC(),
                              accumulatorIndex(b, loc, l, row0, col0, r, e));
    }
}

/// The rows of a fragment (vector<Rx2xbf16>) as the 32-bit registers
/// nvvm.mma.sync takes.
SmallVector<Value> packRows(OpBuilder &b, Location loc, Value fragment) {
  auto type = cast<VectorType>(fragment.getType());
  SmallVector<Value> registers;
  for (int64_t r = 0; r < type.getDimSize(0); ++r) {
    Value row = vector::ExtractOp::create(b, loc, fragment, r);
    registers.push_back(
        LLVM::BitcastOp::create(b, loc, b.getI32Type(), row));
  }
  return registers;
}

/// C += A * B on one 16x8 tile. f16 goes through nvgpu.mma.sync; bf16,
/// which nvgpu.mma.sync does not type, straight to nvvm.mma.sync with
/// packed operands and the accumulators as four f32 registers.
Value mma(OpBuilder &b, Location loc, Value a, Value bFragment, Value acc) {
  Type element = cast<VectorType>(a.getType()).getElementType();
  int64_t tileK = 256 / element.getIntOrFloatBitWidth();
  if (!element.isBF16())
    return nvgpu::MmaSyncOp::create(b, loc, a, bFragment, acc,
                                    ArrayRef<int64_t>{kTileM, kTileN, tileK});
  auto accType = cast<VectorType>(acc.getType());
  SmallVector<Value> c;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t e = 0; e < 2; ++e)
      c.push_back(
          vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, e}));
  Type f32 = b.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                     {f32, f32, f32, f32});
  Value d = NVVM::MmaOp::create(
      b, loc, resultType, packRows(b, loc, a), packRows(b, loc, bFragment), c,
      ArrayRef<int64_t>{kTileM, kTileN, tileK}, /*b1Op=*/std::nullopt,
      /*intOverflow=*/std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                    NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> elements;
  for (int64_t i = 0; i < 4; ++i)
    elements.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
  return vector::FromElementsOp::create(b, loc, accType, elements);
}

/// Any gemm: warp w takes 16x8 tiles w, w + W, ... and runs each tile's k
/// loop with its accumulator in registers.
struct GemmToMmaSync : OpRewritePattern<GemmOp> {
  GemmToMmaSync(MLIRContext *ctx)
      : OpRewritePattern<GemmOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (!selectedFor(op, GemmInstructionKind::MmaSync))
      return rewriter.notifyMatchFailure(op, "not selected for mma.sync");
    if (op.getClearIf())
      return rewriter.notifyMatchFailure(op, "clear_if (expanded first)");
    FailureOr<int64_t> threads = matchMmaGemm(op, rewriter);
    if (failed(threads))
      return failure();
    Location loc = op.getLoc();
    auto c = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    int64_t tilesN = op.getN() / kTileN;
    int64_t numTiles = (op.getM() / kTileM) * tilesN;

    gpu::BarrierOp::create(rewriter, loc);
    WarpLanes lanes(rewriter, loc, op);
    scf::ForOp::create(
        rewriter, loc, lanes.warp, c(rewriter, numTiles),
        c(rewriter, *threads / kWarpSize), ValueRange{},
        [&](OpBuilder &b, Location loc, Value tile, ValueRange) {
          Value row0 = arith::MulIOp::create(
              b, loc, arith::DivUIOp::create(b, loc, tile, c(b, tilesN)),
              c(b, kTileM));
          Value col0 = arith::MulIOp::create(
              b, loc, arith::RemUIOp::create(b, loc, tile, c(b, tilesN)),
              c(b, kTileN));
          Value init = loadAccumulator(b, loc, op, lanes, row0, col0);
          auto kLoop = scf::ForOp::create(
              b, loc, c(b, 0), c(b, op.getK()), c(b, getMmaSyncTileK(op)),
              ValueRange{init},
              [&](OpBuilder &b, Location loc, Value k0, ValueRange acc) {
                Value next = mma(b, loc, loadA(b, loc, op, lanes, row0, k0),
                                 loadB(b, loc, op, lanes, k0, col0), acc[0]);
                scf::YieldOp::create(b, loc, next);
              });
          storeAccumulator(b, loc, op, lanes, row0, col0, kLoop.getResult(0));
          scf::YieldOp::create(b, loc);
        });
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};


/// This warp's 16x8 C tiles on the warp grid of the gemm's policy: warp
/// (r, c) of the wm x wn grid takes tm x tn tiles from row r * tm * 16 and
/// column c * tn * 8, as getMmaAccumulatorLayout describes.
struct WarpTiles {
  int64_t wm = 0, wn = 0, tm = 0, tn = 0;
  std::optional<WarpLanes> lanes;
  SmallVector<Value> rows, cols; // Origins of this warp's tiles.

  static FailureOr<WarpTiles> get(GemmOp op, int64_t threads) {
    int64_t tilesM = op.getM() / kTileM, tilesN = op.getN() / kTileN;
    FailureOr<std::pair<int64_t, int64_t>> grid =
        chooseWarpGrid(op.getPolicy(), threads / kWarpSize, tilesM, tilesN);
    if (failed(grid))
      return failure();
    WarpTiles tiles;
    std::tie(tiles.wm, tiles.wn) = *grid;
    tiles.tm = tilesM / tiles.wm;
    tiles.tn = tilesN / tiles.wn;
    return tiles;
  }

  /// The whole k extent on this warp's accumulators `acc` (tile (i, j) at
  /// i * tn + j): each k step loads this warp's A fragments (`loadA(i, k0)`
  /// for its tile row i) and B fragments once and updates every
  /// accumulator.
  void emitKSteps(OpBuilder &b, Location loc, GemmOp op,
                  MutableArrayRef<Value> acc,
                  function_ref<Value(int64_t, int64_t)> loadAFragment) const {
    for (int64_t k0 = 0; k0 < op.getK(); k0 += getMmaSyncTileK(op)) {
      Value kk = arith::ConstantIndexOp::create(b, loc, k0);
      SmallVector<Value> aFragments, bFragments;
      for (int64_t i = 0; i < tm; ++i)
        aFragments.push_back(loadAFragment(i, k0));
      // Two blocks per ldmatrix where they come in pairs.
      for (int64_t j = 0; j < tn; ++j) {
        if (j + 1 < tn) {
          auto [first, second] = loadBPair(b, loc, op, *lanes, kk, cols[j]);
          bFragments.append({first, second});
          ++j;
          continue;
        }
        bFragments.push_back(loadB(b, loc, op, *lanes, kk, cols[j]));
      }
      for (int64_t i = 0; i < tm; ++i)
        for (int64_t j = 0; j < tn; ++j)
          acc[i * tn + j] =
              mma(b, loc, aFragments[i], bFragments[j], acc[i * tn + j]);
    }
  }

  /// Computes the lanes and this warp's tile origins at the insertion point.
  void emit(OpBuilder &b, Location loc, GemmOp op) {
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    lanes.emplace(b, loc, op);
    Value warpRow = arith::DivUIOp::create(b, loc, lanes->warp, c(wn));
    Value warpCol = arith::RemUIOp::create(b, loc, lanes->warp, c(wn));
    Value rowBase = arith::MulIOp::create(b, loc, warpRow, c(tm * kTileM));
    Value colBase = arith::MulIOp::create(b, loc, warpCol, c(tn * kTileN));
    for (int64_t i = 0; i < tm; ++i)
      rows.push_back(addIndex(b, loc, rowBase, i * kTileM));
    for (int64_t j = 0; j < tn; ++j)
      cols.push_back(addIndex(b, loc, colBase, j * kTileN));
  }
};

/// True when `op` (or an op nested in it) may write on-chip memory
/// synchronously. Asynchronous copies do not count: what they write is
/// visible only after a tile.async_wait, which synchronizes the block.
bool writesOnChipSynchronously(Operation *op,
                               const RegisterFragments *fragments,
                               function_ref<bool(Value)> mayBeTo = nullptr) {
  auto classify = [](Operation *inner) {
    // Asynchronous copies, before and after their lowering (whose
    // misaligned fallback writes synchronously, but before the wait).
    if (auto copy = dyn_cast<CopyOp>(inner); copy && copy.getAsync())
      return EffectCheck::Skip;
    if (auto gather = dyn_cast<ParallelOp>(inner); gather && gather.getAsync())
      return EffectCheck::Skip;
    if (isa<AsyncCopyElementsOp>(inner))
      return EffectCheck::Skip;
    if (inner->hasAttr(TileDialect::getLoweredAsyncCopyAttrName()) ||
        isa<nvgpu::DeviceAsyncCopyOp>(inner))
      return EffectCheck::Skip;
    // Barrier waits touch only their barrier words, named barriers (the
    // turns of tile.take_turns) none; tensor-core work on wgmma (and its
    // fences, commits and waits) writes only registers.
    if (isa<AsyncCommitOp, scf::YieldOp, nvgpu::DeviceAsyncCreateGroupOp,
            NVVM::CpAsyncCommitGroupOp, NVVM::CpAsyncWaitGroupOp,
            BarrierWaitOp, BarrierArriveOp, NVVM::MBarrierTryWaitParityOp,
            NVVM::MBarrierArriveOp, NVVM::SyncWarpOp, GemmWaitOp,
            NVVM::FenceProxyOp, NVVM::WgmmaFenceAlignedOp,
            NVVM::WgmmaMmaAsyncOp, NVVM::WgmmaGroupSyncAlignedOp,
            NVVM::WgmmaWaitGroupSyncOp, NVVM::BarrierOp,
            NVVM::BarrierArriveOp>(inner) ||
        inner->hasAttr(TileDialect::getRegisterOnlyAsmAttrName()))
      return EffectCheck::Ignore;
    return EffectCheck::Check;
  };
  // An effect on a tile-memory buffer (not a fragment kept in registers;
  // one `mayBeTo` accepts, when given), or on no value.
  return mayWriteMemory(
      op, classify, [&](const MemoryEffects::EffectInstance &effect) {
        Value value = effect.getValue();
        return !value || (getMemorySpace(cast<MemRefType>(value.getType())) &&
                          !(fragments && fragments->getArray(value)) &&
                          (!mayBeTo || mayBeTo(value)));
      });
}

/// The allocation `value` is a view of (through subviews, casts and other
/// views), or null when it is not one the block allocates (an argument, a
/// value of unknown origin).
static Operation *getTileAllocation(Value value) {
  auto memref = dyn_cast<TypedValue<MemRefType>>(value);
  if (!memref)
    return nullptr;
  Operation *def = memref::skipViewLikeOps(memref).getDefiningOp();
  return isa_and_nonnull<AllocSharedOp, AllocFragmentOp>(def) ? def : nullptr;
}

/// The on-chip tiles the gemm `op` (or every gemm of the tile.take_turns
/// `op`) reads as A and B, by their allocations; false when one is not a
/// tile of known allocation (then every on-chip write may be to it).
static bool getOperandTiles(Operation *op,
                            SmallPtrSetImpl<Operation *> &tiles) {
  bool known = true;
  auto add = [&](GemmOp gemm) {
    for (Value operand : {gemm.getA(), gemm.getB()}) {
      if (Operation *alloc = getTileAllocation(operand))
        tiles.insert(alloc);
      else
        known = false;
    }
  };
  if (auto gemm = dyn_cast<GemmOp>(op))
    add(gemm);
  else
    op->walk(add);
  return known;
}

/// The barriers a gemm in a pipelined body needs: before it, unless the
/// body waited for its asynchronous copies (a block barrier) since the last
/// synchronous on-chip write to its A or B tiles; after it, unless nothing
/// after it in the body writes those tiles synchronously and the body
/// starts with such a wait (so the next iteration's writes come after a
/// barrier). Writes to other tiles do not concern the gemm: each op that
/// makes them fences its own accesses (withBarriers; the copies' and
/// reductions' lowerings).
std::pair<bool, bool> getGemmBarriers(Operation *op, Block &body,
                                      const RegisterFragments *fragments) {
  SmallPtrSet<Operation *, 4> tiles;
  bool known = getOperandTiles(op, tiles);
  // A write to a tile of unknown allocation may be to the operands.
  auto mayBeOperand = [&](Value value) {
    Operation *alloc = getTileAllocation(value);
    return !alloc || tiles.contains(alloc);
  };
  auto writesOperands = [&](Operation *inner) {
    return writesOnChipSynchronously(
        inner, fragments,
        known ? function_ref<bool(Value)>(mayBeOperand) : nullptr);
  };
  // Nothing in the body writes the operands synchronously (its copies
  // arrive on barriers, which synchronize the block before they write):
  // nothing to fence.
  if (llvm::none_of(body, [&](Operation &inner) {
        return writesOperands(&inner);
      }))
    return {false, false};
  // A wait is a block barrier, lowered (gpu.barrier) or not.
  auto isWait = [](Operation *inner) {
    return isa<AsyncWaitOp, gpu::BarrierOp>(inner);
  };
  bool before = true;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (isWait(prev)) {
      before = false;
      break;
    }
    if (writesOperands(prev))
      break;
  }
  bool after = true;
  auto firstWait = llvm::find_if(body, [&](Operation &inner) {
    return isWait(&inner) || writesOperands(&inner);
  });
  if (firstWait != body.end() && isWait(&*firstWait)) {
    after = false;
    for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
      if (writesOperands(next))
        after = true;
  }
  return {before, after};
}

/// A gemm in the body of a tile.pipelined loop whose C tile nothing else in
/// the loop touches: C stays in registers for the whole loop.
struct PipelinedGemmInRegisters : OpRewritePattern<PipelinedOp> {
  PipelinedGemmInRegisters(MLIRContext *ctx,
                           const RegisterFragments *fragments)
      : OpRewritePattern<PipelinedOp>(ctx, /*benefit=*/2),
        fragments(fragments) {}
  const RegisterFragments *fragments;

  LogicalResult matchAndRewrite(PipelinedOp loop,
                                PatternRewriter &rewriter) const override {
    SmallVector<GemmOp> gemms(loop.getBody().front().getOps<GemmOp>());
    if (gemms.size() != 1)
      return rewriter.notifyMatchFailure(loop, "not exactly one gemm");
    GemmOp op = gemms.front();
    if (!selectedFor(op, GemmInstructionKind::MmaSync))
      return rewriter.notifyMatchFailure(loop, "not selected for mma.sync");
    FailureOr<int64_t> threads = matchMmaGemm(op, rewriter);
    if (failed(threads))
      return failure();
    if (op.getClearAccum() || op.getClearIf())
      return rewriter.notifyMatchFailure(loop, "C is reset every iteration");
    if (fragments && (fragments->getArray(op.getA()) ||
                      fragments->getArray(op.getC())))
      return rewriter.notifyMatchFailure(loop, "operands in registers");
    Value cTile = op.getC();
    WalkResult other = loop.getBody().walk([&](Operation *inner) {
      return inner != op && llvm::is_contained(inner->getOperands(), cTile)
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (other.wasInterrupted())
      return rewriter.notifyMatchFailure(loop, "C is used in the loop");

    FailureOr<WarpTiles> tiles = WarpTiles::get(op, *threads);
    if (failed(tiles))
      return rewriter.notifyMatchFailure(loop, "no warp grid for the policy");
    int64_t tm = tiles->tm, tn = tiles->tn;
    int64_t registers =
        tm * tn * 4 * op.getC().getType().getElementTypeBitWidth() / 32;
    if (registers > kMaxAccumulatorRegisters)
      return rewriter.notifyMatchFailure(loop, "too many accumulators");

    Location loc = op.getLoc();
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    gpu::BarrierOp::create(rewriter, loc);
    tiles->emit(rewriter, loc, op);
    const WarpLanes &lanes = *tiles->lanes;
    ArrayRef<Value> rows = tiles->rows, cols = tiles->cols;

    auto [barrierBefore, barrierAfter] =
        getGemmBarriers(op, loop.getBody().front(), fragments);
    SmallVector<Value> init;
    for (int64_t i = 0; i < tm; ++i)
      for (int64_t j = 0; j < tn; ++j)
        init.push_back(
            loadAccumulator(rewriter, loc, op, lanes, rows[i], cols[j]));

    auto forOp = scf::ForOp::create(
        rewriter, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(),
        loop.getStep(), init,
        [&](OpBuilder &b, Location loc, Value, ValueRange acc) {
          scf::YieldOp::create(b, loc, acc);
        });
    inlineTileBody(rewriter, loop.getBody(), forOp.getBody(),
                   forOp.getInductionVar());

    // The gemm itself: each k step loads this warp's A and B fragments once
    // and updates every accumulator.
    rewriter.setInsertionPoint(op);
    if (barrierBefore)
      gpu::BarrierOp::create(rewriter, loc);
    SmallVector<Value> acc(forOp.getRegionIterArgs());
    tiles->emitKSteps(rewriter, loc, op, acc,
                      [&](int64_t i, int64_t k0) {
                        return loadA(rewriter, loc, op, lanes, rows[i], c(k0));
                      });
    if (barrierAfter)
      gpu::BarrierOp::create(rewriter, loc);
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    rewriter.modifyOpInPlace(yield, [&] { yield->setOperands(acc); });

    // C leaves the registers once, after the loop.
    rewriter.setInsertionPointAfter(forOp);
    for (int64_t i = 0; i < tm; ++i)
      for (int64_t j = 0; j < tn; ++j)
        storeAccumulator(rewriter, loc, op, lanes, rows[i], cols[j],
                         forOp.getResult(i * tn + j));
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    rewriter.eraseOp(loop);
    return success();
  }
};


/// The barriers a gemm on register fragments needs, once its loop is an
/// scf.for: in a loop body they follow the body's waits; elsewhere the
/// shared operands are fenced on both sides.
std::pair<bool, bool> getBarriersAround(GemmOp op,
                                        const RegisterFragments &fragments) {
  if (op->hasAttr(TileDialect::getArrivedOperandsAttrName()))
    return {false, false};
  // Taking turns: the barriers the loop body needs around the whole turn
  // (the lowering refuses them: a warpgroup waiting for its turn would
  // never reach a block barrier inside it).
  // (Once the turn is inlined, the gemm is where the turn was, next to
  // the turn's other gemms, which write no on-chip memory.)
  Operation *position = op;
  if (isa<TakeTurnsOp>(op->getParentOp()))
    position = op->getParentOp();
  if (isa<scf::ForOp>(position->getParentOp()))
    return getGemmBarriers(position, *position->getBlock(), &fragments);
  return {true, true};
}


/// A gemm whose C tile, A tile or both are register fragments (in the
/// layouts getMmaAccumulatorLayout and getMmaOperandALayout give): the
/// accumulators come from and go back to C's registers, the A fragments are
/// read from A's registers, what is in shared memory goes through ldmatrix
/// as usual.
struct GemmOnRegisterFragments : OpRewritePattern<GemmOp> {
  GemmOnRegisterFragments(MLIRContext *ctx, const RegisterFragments &fragments)
      : OpRewritePattern<GemmOp>(ctx, /*benefit=*/3), fragments(fragments) {}
  const RegisterFragments &fragments;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (!selectedFor(op, GemmInstructionKind::MmaSync))
      return rewriter.notifyMatchFailure(op, "not selected for mma.sync");
    if (op.getClearIf())
      return rewriter.notifyMatchFailure(op, "clear_if (expanded first)");
    Value aArray = fragments.getArray(op.getA());
    Value cArray = fragments.getArray(op.getC());
    if (!aArray && !cArray)
      return failure();
    FailureOr<int64_t> threads = matchMmaGemm(op, rewriter);
    if (failed(threads))
      return failure();
    FailureOr<WarpTiles> tiles = WarpTiles::get(op, *threads);
    if (failed(tiles))
      return rewriter.notifyMatchFailure(op, "no warp grid for the policy");
    // C's registers must be in the mma.sync layout of this warp grid (the
    // register selection also admits wgmma's m64-block layout, which only
    // the wgmma lowering reads).
    if (cArray && !holdsLayout(fragments, op.getC(),
                               getMmaAccumulatorLayout(op, *threads)))
      return rewriter.notifyMatchFailure(op, "C's registers are not in the "
                                             "mma.sync accumulator layout");
    Location loc = op.getLoc();
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    FailureOr<bool> barrierAfter = emitBarrierBefore(op, rewriter, fragments);
    if (failed(barrierAfter))
      return failure();
    tiles->emit(rewriter, loc, op);
    const WarpLanes &lanes = *tiles->lanes;
    int64_t tn = tiles->tn;

    // Accumulator tile (i, j) holds slots 4 (i tn + j) + 2 r + e: rows g
    // and g + 8 (r), columns 2t and 2t + 1 (e).
    MemRefType cType = op.getC().getType();
    auto accType = VectorType::get({2, 2}, cType.getElementType());
    SmallVector<Value> acc;
    for (auto [i, row0] : llvm::enumerate(tiles->rows))
      for (auto [j, col0] : llvm::enumerate(tiles->cols)) {
        if (!cArray || op.getClearAccum()) {
          acc.push_back(loadAccumulator(rewriter, loc, op, lanes, row0, col0));
          continue;
        }
        SmallVector<Value> elements;
        for (int64_t slot = 0; slot < 4; ++slot)
          elements.push_back(memref::LoadOp::create(
              rewriter, loc, cArray, c(4 * (i * tn + j) + slot)));
        acc.push_back(
            vector::FromElementsOp::create(rewriter, loc, accType, elements));
      }

    // The A fragment of row tile i and k step k0 holds slots
    // 8 (i tilesK + k0 / 16) + 2 q + e, q in ldmatrix register order.
    int64_t tilesK = op.getK() / getMmaSyncTileK(op);
    VectorType aType = getLdmatrixType(4, op.getA().getType().getElementType());
    tiles->emitKSteps(
        rewriter, loc, op, acc, [&](int64_t i, int64_t k0) -> Value {
          if (!aArray)
            return loadA(rewriter, loc, op, lanes, tiles->rows[i], c(k0));
          int64_t piece = i * tilesK + k0 / getMmaSyncTileK(op);
          SmallVector<Value> elements;
          for (int64_t slot = 0; slot < 8; ++slot)
            elements.push_back(memref::LoadOp::create(
                rewriter, loc, aArray, c(8 * piece + slot)));
          return vector::FromElementsOp::create(rewriter, loc, aType,
                                                elements);
        });

    for (auto [i, row0] : llvm::enumerate(tiles->rows))
      for (auto [j, col0] : llvm::enumerate(tiles->cols)) {
        Value tile = acc[i * tn + j];
        if (!cArray) {
          storeAccumulator(rewriter, loc, op, lanes, row0, col0, tile);
          continue;
        }
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t e = 0; e < 2; ++e)
            memref::StoreOp::create(
                rewriter, loc,
                vector::ExtractOp::create(rewriter, loc, tile,
                                          ArrayRef<int64_t>{r, e}),
                cArray, c(4 * (i * tn + j) + 2 * r + e));
      }
    if (*barrierAfter)
      gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// A gemm on sm_90a's warpgroup MMA (wgmma.mma_async m64nNk16) when its C
/// tile is a register fragment in the full-row accumulator layout (16 rows
/// per warp, one column block of all N: the wgmma accumulator order, so
/// warpgroup g owns rows 64g.. of C). A is a K-major shared tile (M x K) or
/// a register fragment in the mma.sync operand layout (which is wgmma's
/// register-A layout); B is a shared tile, K-major (stored N x K) or
/// MN-major (stored K x N with all of N in one row), each shared operand
/// with the 128-, 64- or 32-byte swizzle of its row length and placed on
/// whole swizzle periods. Each warpgroup issues one wgmma per 16 of K on
/// descriptors of its 64 rows of A and of all of B, between the proxy fence
/// that makes the generic-proxy writes (cp.async, stores) visible to the
/// async proxy and the commit/wait of the group.

} // namespace

/// Whether `op` was selected for `kind` (tile-select-instructions, or
/// convert-tile-to-gpu's default for gemms that carry none).
bool nvidia::selectedFor(GemmOp op, GemmInstructionKind kind) {
  GemmInstructionAttr instruction = op.getInstructionAttr();
  return instruction && instruction.getKind() == kind;
}

/// The number of threads of the block around `op` when `op` is a gemm that
/// mma.sync m16n8k16 can run, else failure.
FailureOr<int64_t> nvidia::matchMmaGemm(GemmOp op, PatternRewriter &rewriter) {
  if (std::optional<StringRef> why = getMmaSyncMismatch(op))
    return rewriter.notifyMatchFailure(op, *why);
  std::optional<int64_t> threads = getStaticBlockThreads(op);
  if (!threads)
    return rewriter.notifyMatchFailure(op, "no static block size");
  if (*threads % kWarpSize)
    return rewriter.notifyMatchFailure(op, "partial warps");
  return *threads;
}

Value nvidia::addIndex(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}

Value nvidia::addIndex(OpBuilder &b, Location loc, Value x, int64_t y) {
  if (y == 0)
    return x;
  return arith::AddIOp::create(b, loc, x,
                               arith::ConstantIndexOp::create(b, loc, y));
}

/// The warp grid (rows, columns) that splits tilesM x tilesN tiles over
/// `warps` warps for `policy`, or failure.
FailureOr<std::pair<int64_t, int64_t>>
nvidia::chooseWarpGrid(GemmPolicy policy, int64_t warps, int64_t tilesM,
               int64_t tilesN) {
  std::optional<std::pair<int64_t, int64_t>> best;
  double bestShape = 0;
  for (int64_t wm = 1; wm <= warps; ++wm) {
    if (warps % wm || tilesM % wm || tilesN % (warps / wm))
      continue;
    int64_t wn = warps / wm;
    if (policy == GemmPolicy::FullRow && wn != 1)
      continue;
    if (policy == GemmPolicy::FullCol && wm != 1)
      continue;
    // Square warp tiles share the most fragments.
    double rows = double(tilesM / wm) * kTileM;
    double cols = double(tilesN / wn) * kTileN;
    double shape = std::min(rows, cols) / std::max(rows, cols);
    if (!best || shape > bestShape) {
      best = {wm, wn};
      bestShape = shape;
    }
  }
  if (!best)
    return failure();
  return *best;
}

/// Emits the block barrier a gemm on register fragments needs before it
/// (getBarriersAround) and returns whether one must follow it; a located
/// error inside tile.take_turns, whose warpgroups never reach a block
/// barrier together.
FailureOr<bool> nvidia::emitBarrierBefore(GemmOp op, PatternRewriter &rewriter,
                                         const RegisterFragments &fragments) {
  auto [barrierBefore, barrierAfter] = getBarriersAround(op, fragments);
  if ((barrierBefore || barrierAfter) &&
      (isa<TakeTurnsOp>(op->getParentOp()) ||
       op->hasAttr(TileDialect::getInTurnAttrName())))
    return op.emitOpError(
        "needs a block barrier, which warpgroups taking turns never reach "
        "together (tile.take_turns)");
  if (barrierBefore)
    gpu::BarrierOp::create(rewriter, op.getLoc());
  return barrierAfter;
}


/// True when the register fragment `fragment` holds its elements where
/// `layout` (null: none) places them.
bool nvidia::holdsLayout(const RegisterFragments &fragments, Value fragment,
                 FragmentLayoutAttr layout) {
  if (!layout)
    return false;
  const FragmentTable *expected = FragmentTable::lookup(layout);
  return expected && expected->placesLike(*fragments.getTable(fragment));
}

void mlir::tile::populateTileToNVGPUPatterns(
    RewritePatternSet &patterns, int64_t smVersion,
    const RegisterFragments *fragments, bool wgmma) {
  if (smVersion < 80)
    return;
  MLIRContext *ctx = patterns.getContext();
  patterns.add<GemmToMmaSync>(ctx);
  patterns.add<PipelinedGemmInRegisters>(ctx, fragments);
  if (fragments)
    patterns.add<GemmOnRegisterFragments>(ctx, *fragments);
  if (fragments && wgmma && smVersion >= 90)
    populateWgmmaPatterns(patterns, *fragments);
  populateCpAsyncPatterns(patterns, /*mbarriers=*/smVersion >= 90);
}

/// The warp grid of `op` on mma.sync over a block of `threads` threads, or
/// failure when the gemm does not take that path.

void mlir::tile::markGemmsOnArrivedTiles(Operation *root) {
  // Only copies that arrive on barriers write `tile`; the rest only read it
  // (copies from it, gemm operands).
  auto onlyArrivedWrites = [](Value tile) {
    if (!tile.getDefiningOp<AllocSharedOp>())
      return false;
    return llvm::all_of(tile.getUses(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      if (auto copy = dyn_cast<CopyOp>(user))
        return copy.getSrc() == tile ||
               (copy.getBarriers() && copy.getDst() == tile);
      if (auto gemm = dyn_cast<GemmOp>(user))
        return gemm.getC() != tile;
      return false;
    });
  };
  root->walk([&](GemmOp gemm) {
    // (Pipelined bodies and turns place their barriers themselves; a gemm
    // that leaves work in flight keeps its conservative barriers.)
    if (isa<PipelinedOp, TakeTurnsOp>(gemm->getParentOp()) ||
        gemm.getWgWaitAttr().getInt() != 0 ||
        !RegisterFragments::getMarkedTable(gemm.getC()))
      return;
    bool registerA =
        static_cast<bool>(RegisterFragments::getMarkedTable(gemm.getA()));
    if ((registerA || onlyArrivedWrites(gemm.getA())) &&
        onlyArrivedWrites(gemm.getB()))
      gemm->setAttr(TileDialect::getArrivedOperandsAttrName(),
                    UnitAttr::get(gemm.getContext()));
  });
}
