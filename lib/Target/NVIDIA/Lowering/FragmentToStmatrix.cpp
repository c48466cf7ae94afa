//===- FragmentToStmatrix.cpp - Register fragments stored by stmatrix -----===//
//
// Part of TileLang-MLIR.
//
// sm_90: a tile.copy of a whole register fragment into a 16-bit shared tile
// (a staged epilogue's accumulators going to their shared tile) as
// stmatrix.sync.aligned.m8n8.x4: each warp stores four 8x8 matrices per
// instruction, lane l holding two consecutive elements of row l / 4 of each
// (the mma/wgmma accumulator order) and giving the address of row l mod 8
// of matrix l / 8. The fragment's table must hold exactly that pattern in
// every group of eight slots; otherwise the generic register lowering
// stores element pairs one by one.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Lowering.h"

#include "TileLang/Conversion/RegisterFragments.h"
#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr int64_t kWarp = 32;
/// Slots per x4 store: four matrices, two elements each.
constexpr int64_t kGroupSlots = 8;

/// Whether every group of eight slots of `table` (a 2-D fragment over whole
/// warps, each element in one thread) is four 8x8 matrices in stmatrix's
/// order: slots 2r and 2r + 1 of lane l are row l / 4, columns 2 (l mod 4)
/// and + 1 of matrix r, whose first column is a multiple of 8 (its rows'
/// eight elements are one aligned 16-byte unit).
bool holdsStmatrixGroups(const FragmentTable &table) {
  if (table.getShape().size() != 2 || table.getNumThreads() % kWarp ||
      table.getNumSlots() % kGroupSlots)
    return false;
  for (int64_t e = 0; e < table.getNumElements(); ++e)
    if (table.getNumHolders(e) != 1)
      return false;
  auto coords = [&](int64_t t, int64_t s) {
    return table.getCoords(table.getElement(t, s));
  };
  for (int64_t s0 = 0; s0 < table.getNumSlots(); s0 += kGroupSlots)
    for (int64_t t = 0; t < table.getNumThreads(); ++t) {
      int64_t lane = t % kWarp, warp = t - lane;
      for (int64_t r = 0; r < 4; ++r) {
        SmallVector<int64_t> origin = coords(warp, s0 + 2 * r);
        if (origin[1] % 8)
          return false;
        for (int64_t j = 0; j < 2; ++j) {
          SmallVector<int64_t> at = coords(t, s0 + 2 * r + j);
          if (at[0] != origin[0] + lane / 4 ||
              at[1] != origin[1] + 2 * (lane % 4) + j)
            return false;
        }
      }
    }
  return true;
}

struct FragmentToStmatrix : OpRewritePattern<CopyOp> {
  FragmentToStmatrix(MLIRContext *ctx, const RegisterFragments &fragments)
      // Ahead of the generic register-fragment copy (benefit 10).
      : OpRewritePattern<CopyOp>(ctx, /*benefit=*/11), fragments(fragments) {}
  const RegisterFragments &fragments;

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    Value array = fragments.getArray(op.getSrc());
    const FragmentTable *table = fragments.getTable(op.getSrc());
    MemRefType dstType = op.getDst().getType();
    Type element = dstType.getElementType();
    if (!array || !table || !op.getDstOffsets().empty() ||
        !isInSpace(dstType, MemorySpace::Shared) ||
        !dstType.getLayout().isIdentity() ||
        !(element.isF16() || element.isBF16()) ||
        !holdsStmatrixGroups(*table))
      return failure();
    // The swizzle must move 16-byte units (eight elements) whole.
    if (SwizzleAttr swizzle = getTileSwizzle(op.getDst());
        swizzle && (int64_t(1) << swizzle.getBase()) % 8)
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    gpu::BarrierOp::create(rewriter, loc);
    Value tid = getBlockThreads(rewriter, op).threadId;
    Value lane = arith::RemUIOp::create(rewriter, loc, tid, index(kWarp));
    Value warp = arith::SubIOp::create(rewriter, loc, tid, lane);
    Value matrix = arith::DivUIOp::create(rewriter, loc, lane, index(8));
    Value rowInMatrix = arith::RemUIOp::create(rewriter, loc, lane, index(8));
    // The shared tile's strides (elements), for each lane's row address.
    Value dst = op.getDst();
    auto metadata = memref::ExtractStridedMetadataOp::create(rewriter, loc, dst);
    int64_t bytes = dstType.getElementTypeBitWidth() / 8;
    auto i32 = rewriter.getI32Type();
    auto pair = VectorType::get({2}, element);
    for (int64_t s0 = 0; s0 < table->getNumSlots(); s0 += kGroupSlots) {
      // Lane l addresses row l mod 8 of matrix l / 8 of its warp.
      SmallVector<Value> origin = emitFragmentCoords(rewriter, loc, *table,
                                                     warp, s0);
      for (int64_t r = 1; r < 4; ++r) {
        SmallVector<Value> other =
            emitFragmentCoords(rewriter, loc, *table, warp, s0 + 2 * r);
        Value isR = arith::CmpIOp::create(rewriter, loc,
                                          arith::CmpIPredicate::eq, matrix,
                                          index(r));
        for (int64_t d = 0; d < 2; ++d)
          origin[d] = arith::SelectOp::create(rewriter, loc, isR, other[d],
                                              origin[d]);
      }
      origin[0] = arith::AddIOp::create(rewriter, loc, origin[0], rowInMatrix);
      SmallVector<Value> at = swizzleIndices(rewriter, loc, dst, origin);
      Value linear = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, at[0], metadata.getStrides()[0]),
          arith::MulIOp::create(rewriter, loc, at[1], metadata.getStrides()[1]));
      Value pointer = getSharedPointer(
          rewriter, loc, dst,
          arith::MulIOp::create(rewriter, loc, linear, index(bytes)));
      // Each register: the thread's two elements of one matrix row.
      SmallVector<Value> registers;
      for (int64_t r = 0; r < 4; ++r) {
        SmallVector<Value> elements;
        for (int64_t j = 0; j < 2; ++j)
          elements.push_back(convertScalar(
              rewriter, loc,
              memref::LoadOp::create(rewriter, loc, array,
                                     index(s0 + 2 * r + j)),
              element));
        Value packed = vector::BitCastOp::create(
            rewriter, loc, VectorType::get({1}, i32),
            vector::FromElementsOp::create(rewriter, loc, pair, elements));
        registers.push_back(vector::ExtractOp::create(rewriter, loc, packed,
                                                      ArrayRef<int64_t>{0}));
      }
      NVVM::StMatrixOp::create(
          rewriter, loc, pointer, registers, NVVM::MMALayout::row,
          NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
          NVVM::LdStMatrixEltType::B16);
    }
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateStmatrixPatterns(RewritePatternSet &patterns,
                                          const RegisterFragments &fragments) {
  patterns.add<FragmentToStmatrix>(patterns.getContext(), fragments);
}
