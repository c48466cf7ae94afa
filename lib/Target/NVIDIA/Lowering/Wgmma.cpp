//===- Wgmma.cpp - tile.gemm on sm_90 warpgroup tensor cores -------------===//
//
// Part of TileLang-MLIR.
//
// tile.gemm stamped `wgmma` (tile-select-instructions), inside a gpu.launch,
// lowered to wgmma.mma_async m64nNk16 (f16, bf16) or m64nNk32 (FP8 e4m3 and
// e5m2, both operands K-major in shared memory): C in registers in wgmma's
// accumulator order, A from registers or through a shared-memory matrix
// descriptor, B through one; the fills of such accumulators and
// tile.gemm_wait (wgmma.wait_group).
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
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvidia;

namespace {

struct GemmOnWgmma : OpRewritePattern<GemmOp> {
  GemmOnWgmma(MLIRContext *ctx, const RegisterFragments &fragments)
      : OpRewritePattern<GemmOp>(ctx, /*benefit=*/4), fragments(fragments) {}
  const RegisterFragments &fragments;

  /// A wgmma as inline PTX, for what MLIR's NVVM op does not take: A in
  /// registers (`aRegs`: four 32-bit registers of two 16-bit elements
  /// each; else A through `descriptorA`), or a scale-d known only at run
  /// time (`clear`: an i1, true where the product overwrites the
  /// accumulators instead of adding to them). The accumulators are tied in
  /// and out.
  static Value createInlineWgmma(OpBuilder &b, Location loc,
                                 LLVM::LLVMStructType structType, Value acc,
                                 ArrayRef<Value> aRegs, Value descriptorA,
                                 Value descriptorB, int64_t n, int64_t k,
                                 StringRef typeA, StringRef typeB,
                                 bool transposeB, Value clear) {
    int64_t count = structType.getBody().size();
    int64_t aCount = aRegs.empty() ? 1 : 4;
    std::string ptx, constraints;
    llvm::raw_string_ostream os(ptx);
    // scale-d: accumulate unless `clear` (the operand after A and B).
    os << "{\n.reg .pred p;\n";
    if (clear)
      os << "setp.eq.u32 p, $" << count + aCount + 1 << ", 0;\n";
    else
      os << "setp.ne.b32 p, 1, 0;\n";
    os << "wgmma.mma_async.sync.aligned.m64n" << n << "k" << k << ".f32."
       << typeA << "." << typeB << " {";
    for (int64_t i = 0; i < count; ++i)
      os << (i ? ", " : "") << "$" << i;
    os << "}, ";
    if (aRegs.empty()) {
      os << "$" << count;
    } else {
      os << "{";
      for (int64_t i = 0; i < 4; ++i)
        os << (i ? ", " : "") << "$" << count + i;
      os << "}";
    }
    // scale-a/b 1; for 16-bit types A K-major (descriptor form) and B
    // transposed when MN-major (FP8 forms have no transposes).
    os << ", $" << count + aCount << ", p, 1, 1";
    if (k == 16)
      os << ", " << (aRegs.empty() ? "0, " : "") << (transposeB ? 1 : 0);
    os << ";\n}";
    for (int64_t i = 0; i < count; ++i)
      constraints += (i ? ",=f" : "=f");
    constraints += aRegs.empty() ? ",l,l" : ",r,r,r,r,l";
    if (clear)
      constraints += ",r";
    for (int64_t i = 0; i < count; ++i)
      constraints += "," + std::to_string(i);
    SmallVector<Value> operands(aRegs);
    if (aRegs.empty())
      operands.push_back(descriptorA);
    operands.push_back(descriptorB);
    if (clear)
      operands.push_back(arith::ExtUIOp::create(b, loc, b.getI32Type(), clear));
    for (int64_t i = 0; i < count; ++i)
      operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, structType, operands, ptx, constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None,
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
    asmOp->setAttr(TileDialect::getRegisterOnlyAsmAttrName(), b.getUnitAttr());
    return asmOp.getResult(0);
  }

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (!selectedFor(op, GemmInstructionKind::Wgmma))
      return rewriter.notifyMatchFailure(op, "not selected for wgmma");
    // (getWgmmaLoweringMismatch checks the shapes, FP8 ones included.)
    std::optional<int64_t> threads = getStaticBlockThreads(op);
    if (!threads)
      return rewriter.notifyMatchFailure(op, "no static block size");
    if (std::optional<StringRef> why =
            getWgmmaLoweringMismatch(op, *threads))
      return rewriter.notifyMatchFailure(op, *why);
    int64_t tileK = getWgmmaTileK(op);
    Value cArray = fragments.getArray(op.getC());
    Value aArray = fragments.getArray(op.getA());
    bool registerA = isInSpace(op.getA().getType(), MemorySpace::Fragment);
    Type element = op.getA().getType().getElementType();
    // The warpgroups split N into column groups of one wgmma of n columns
    // each (one group: all N), and M into the rest.
    int64_t columnGroups =
        getWgmmaColumnGroups(op, op.getInstructionAttr());
    int64_t n = op.getN() / columnGroups;
    // m64 blocks per warpgroup; C's registers are in the layout
    // getWgmmaAccumulatorLayout gives (the slots wgmma reads and writes).
    int64_t blocks =
        op.getM() * columnGroups / (kTileM * (*threads / kWarpSize));
    // A in registers is in getWgmmaOperandALayout's layout (the selection
    // kept it there for this gemm only so): per m64 block, K / 2 slots.
    bool transposeB = !op.getTransposeB();
    int64_t aRowBytes = registerA ? 0 : getWgmmaRowBytes(op.getA());
    int64_t bRowBytes = getWgmmaRowBytes(op.getB());

    Location loc = op.getLoc();
    FailureOr<bool> barrierAfter = emitBarrierBefore(op, rewriter, fragments);
    if (failed(barrierAfter))
      return failure();
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    auto i64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, v, 64);
    };
    // Matrix descriptor of `tile` (rows of `rowBytes`) from row `row` (a
    // multiple of 8) and byte `offset` along it: start address >> 4, the
    // leading byte offset (the distance between swizzle atoms along a row:
    // 1024 bytes in a blocked layout, used by MN-major operands wider than
    // one atom; unused otherwise), the stride byte offset (8 rows) >> 4 and
    // the swizzle mode (1: 128 B, 2: 64 B, 3: 32 B). In a blocked layout a
    // row's 128-byte pieces lie 1024 bytes apart.
    // In column panels (the blocked layout's other order), 8-row groups lie
    // 1 KiB apart, the 128-byte pieces of a row one panel (rows x 128
    // bytes) apart, and a row moves 128 bytes.
    // `blockOffset` (optional) adds that many 128-byte blocks along the
    // rows of a blocked tile (a column group's start in an MN-major B).
    auto descriptor = [&](Value tile, int64_t rowBytes, Value row,
                          int64_t offset, Value blockOffset = {}) -> Value {
      bool blocked = rowBytes > 128;
      SwizzleAttr swizzle = getTileSwizzle(tile);
      bool panels = blocked && swizzle && swizzle.getPanels();
      auto tileType = cast<MemRefType>(tile.getType());
      // A panel holds 128 bytes of every row of the page (a window's
      // page: the wider tile it is part of).
      std::optional<SwizzleWindow> window = getSwizzleWindow(tile);
      int64_t panelBytes =
          (window ? window->pageRows
                  : tileType.getNumElements() / tileType.getShape().back()) *
          128;
      int64_t mode = rowBytes >= 128 ? 1 : rowBytes == 64 ? 2 : 3;
      int64_t lbo = panels ? panelBytes / 16 : blocked ? 1024 / 16 : 1;
      int64_t sbo = panels ? 1024 / 16 : 8 * rowBytes / 16;
      int64_t constantBits = (lbo << 16) | (sbo << 32) | (mode << 62);
      if (panels)
        offset = offset / 128 * panelBytes + offset % 128;
      else if (blocked)
        offset = offset / 128 * 1024 + offset % 128;
      int64_t rowStride = panels ? 128 : rowBytes;
      auto metadata = memref::ExtractStridedMetadataOp::create(rewriter, loc,
                                                               tile);
      Value base = memref::ExtractAlignedPointerAsIndexOp::create(rewriter,
                                                                  loc, tile);
      int64_t bytes = cast<MemRefType>(tile.getType())
                          .getElementTypeBitWidth() / 8;
      // (A window's first element lies where the page's layout puts it.)
      Value start = addIndex(
          rewriter, loc,
          arith::AddIOp::create(
              rewriter, loc, base,
              arith::MulIOp::create(rewriter, loc, metadata.getOffset(),
                                    index(bytes))),
          getWgmmaWindowCorrection(tile));
      // In 32-bit halves: the low one holds the address field and the
      // leading byte offset, the high one (the stride byte offset and the
      // swizzle mode) is a constant, which ptxas moves into the uniform
      // registers wgmma reads without computing it.
      auto i32 = [&](int64_t v) -> Value {
        return arith::ConstantIntOp::create(rewriter, loc, v, 32);
      };
      Value startField = arith::ShRUIOp::create(
          rewriter, loc,
          arith::AndIOp::create(
              rewriter, loc,
              arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                         start),
              i32(0x3FFFF)),
          i32(4));
      // The tile's descriptor plus the 16-byte units to the row and offset:
      // shared addresses stay below 2^18 bytes, so the address field never
      // carries into the others, and every wgmma of a tile adds a constant
      // to one descriptor (instead of masking and shifting its own
      // address).
      assert(rowStride % 16 == 0 && offset % 16 == 0 &&
             "wgmma operands start on 16-byte boundaries");
      Value units = addIndex(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, row, index(rowStride / 16)),
          offset / 16);
      if (blockOffset) {
        assert(blocked && "column blocks of a blocked tile");
        units = arith::AddIOp::create(
            rewriter, loc, units,
            arith::MulIOp::create(rewriter, loc, blockOffset,
                                  index((panels ? panelBytes : 1024) / 16)));
      }
      Value low = arith::AddIOp::create(
          rewriter, loc,
          arith::OrIOp::create(rewriter, loc, startField,
                               i32(constantBits & 0xFFFFFFFF)),
          arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                     units));
      return arith::OrIOp::create(
          rewriter, loc,
          arith::ExtUIOp::create(rewriter, loc, rewriter.getI64Type(), low),
          i64(constantBits & ~int64_t(0xFFFFFFFF)));
    };

    // The accumulators of each m64 block, in wgmma order (= the fragment's
    // slots, block after block).
    Type f32 = rewriter.getF32Type();
    int64_t count = n / 2;
    auto structType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(count, f32));
    Value zero = arith::ConstantOp::create(rewriter, loc, f32,
                                           rewriter.getZeroAttr(f32));
    SmallVector<Value> accs;
    for (int64_t blk = 0; blk < blocks; ++blk) {
      Value acc = LLVM::PoisonOp::create(rewriter, loc, structType);
      for (int64_t s = 0; s < count; ++s) {
        Value v = op.getClearAccum()
                      ? zero
                      : memref::LoadOp::create(rewriter, loc, cArray,
                                               index(blk * count + s))
                            .getResult();
        acc = LLVM::InsertValueOp::create(rewriter, loc, acc, v, s);
      }
      accs.push_back(acc);
    }
    // A registers: per m64 block and 16 of K, eight 16-bit slots (a0..a7)
    // packed in pairs, read before the fence (which orders these register
    // writes before the asynchronous reads).
    SmallVector<SmallVector<Value, 4>> aRegs; // [block * K / 16 + k0 / 16]
    if (registerA) {
      auto pair = VectorType::get({2}, element);
      for (int64_t blk = 0; blk < blocks; ++blk)
      for (int64_t k0 = 0; k0 < op.getK(); k0 += 16) {
        SmallVector<Value, 4> regs;
        for (int64_t r = 0; r < 4; ++r) {
          auto slot = [&](int64_t e) -> Value {
            return memref::LoadOp::create(
                rewriter, loc, aArray,
                index(blk * op.getK() / 2 + k0 / 2 + 2 * r + e));
          };
          Value v = vector::FromElementsOp::create(
              rewriter, loc, pair, ValueRange{slot(0), slot(1)});
          regs.push_back(vector::BitCastOp::create(
                             rewriter, loc,
                             VectorType::get({1}, rewriter.getI32Type()), v)
                             .getResult());
          regs.back() = vector::ExtractOp::create(rewriter, loc, regs.back(),
                                                  ArrayRef<int64_t>{0});
        }
        aRegs.push_back(regs);
      }
    }

    NVVM::FenceProxyOp::create(
        rewriter, loc,
        NVVM::ProxyKindAttr::get(rewriter.getContext(),
                                 NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    // Warpgroup g (row group g / column groups) reads rows 64 blocks g..
    // of a shared A, block b 64 rows further; its column group
    // (g mod column groups) the n columns of B from n times that.
    Value aRow, columnGroup;
    Value warpgroup;
    if (!registerA || columnGroups > 1)
      warpgroup = arith::DivUIOp::create(
          rewriter, loc, getBlockThreads(rewriter, op).threadId,
          index(4 * kWarpSize));
    if (!registerA)
      aRow = arith::MulIOp::create(
          rewriter, loc,
          columnGroups > 1
              ? arith::DivUIOp::create(rewriter, loc, warpgroup,
                                       index(columnGroups))
                    .getResult()
              : warpgroup,
          index(64 * blocks));
    if (columnGroups > 1)
      columnGroup = arith::RemUIOp::create(rewriter, loc, warpgroup,
                                           index(columnGroups));
    auto wgmmaType = [](Type t) {
      return t.isF16()                   ? NVVM::WGMMATypes::f16
             : t.isBF16()                ? NVVM::WGMMATypes::bf16
             : isa<Float8E4M3FNType>(t) ? NVVM::WGMMATypes::e4m3
                                         : NVVM::WGMMATypes::e5m2;
    };
    Type bElement = op.getB().getType().getElementType();
    NVVM::WGMMATypes typeA = wgmmaType(element), typeB = wgmmaType(bElement);
    StringRef nameA = NVVM::stringifyWGMMATypes(typeA);
    StringRef nameB = NVVM::stringifyWGMMATypes(typeB);
    int64_t bytes = element.getIntOrFloatBitWidth() / 8;
    for (int64_t k0 = 0; k0 < op.getK(); k0 += tileK) {
      // K-major B moves 16 elements along its rows, MN-major B 16 rows; a
      // column group starts n rows (K-major) or n columns, whole 128-byte
      // blocks (MN-major), further per group.
      Value descriptorB;
      if (transposeB)
        descriptorB = descriptor(
            op.getB(), bRowBytes, index(k0), 0,
            columnGroup ? arith::MulIOp::create(rewriter, loc, columnGroup,
                                                index(n * bytes / 128))
                              .getResult()
                        : Value());
      else
        descriptorB = descriptor(
            op.getB(), bRowBytes,
            columnGroup
                ? arith::MulIOp::create(rewriter, loc, columnGroup, index(n))
                      .getResult()
                : index(0),
            k0 * bytes);
      // With clear_if, the first k step's scale-d comes at run time.
      Value clear = k0 == 0 ? op.getClearIf() : Value();
      if (registerA) {
        for (int64_t blk = 0; blk < blocks; ++blk)
          accs[blk] = createInlineWgmma(
              rewriter, loc, structType, accs[blk],
              aRegs[blk * op.getK() / 16 + k0 / 16], Value(), descriptorB, n,
              tileK, nameA, nameB, transposeB, clear);
        continue;
      }
      for (int64_t blk = 0; blk < blocks; ++blk) {
        Value descriptorA = descriptor(
            op.getA(), aRowBytes,
            blk ? addIndex(rewriter, loc, aRow, 64 * blk) : aRow, k0 * bytes);
        if (clear) {
          accs[blk] = createInlineWgmma(rewriter, loc, structType, accs[blk],
                                        {}, descriptorA, descriptorB, n,
                                        tileK, nameA, nameB, transposeB,
                                        clear);
          continue;
        }
        accs[blk] = NVVM::WgmmaMmaAsyncOp::create(
            rewriter, loc, structType, accs[blk], descriptorA, descriptorB,
            NVVM::MMAShapeAttr::get(rewriter.getContext(), 64, n, tileK),
            typeA, typeB, NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
            NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
            NVVM::MMALayout::row,
            transposeB ? NVVM::MMALayout::row : NVVM::MMALayout::col,
            /*satfinite=*/NVVM::MMAIntOverflowAttr());
      }
    }
    // With wg_wait = n, up to n groups stay in flight (a tile.gemm_wait
    // completes them), with -1 all: the accumulators flow on to the next
    // wgmma in the same registers, read by nothing else meanwhile.
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    if (op.getWgWaitAttr().getInt() >= 0)
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, op.getWgWaitAttr());
    for (int64_t blk = 0; blk < blocks; ++blk)
      for (int64_t s = 0; s < count; ++s)
        memref::StoreOp::create(
            rewriter, loc,
            LLVM::ExtractValueOp::create(rewriter, loc, accs[blk], s), cArray,
            index(blk * count + s));
    if (*barrierAfter)
      gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// A fill of the register accumulators of a gemm that keeps wgmma work in
/// flight (wg_wait != 0), as one inline-asm definition of every slot. ptxas
/// serializes all of a kernel's wgmmas (C7515) when ordinary instructions
/// define accumulator registers while a wgmma group may be pending; with
/// constant fills, LLVM rematerializes the constants on the path that skips
/// a zero-trip k loop, right into the registers the loop's wgmmas write.
/// Opaque, distinct values leave nothing to rematerialize: the loop and the
/// skip path share the registers defined here, before the loop.
struct FillWgmmaAccumulators : OpRewritePattern<FillOp> {
  FillWgmmaAccumulators(MLIRContext *ctx, const RegisterFragments &fragments)
      : OpRewritePattern<FillOp>(ctx, /*benefit=*/11), fragments(fragments) {}
  const RegisterFragments &fragments;

  LogicalResult matchAndRewrite(FillOp op,
                                PatternRewriter &rewriter) const override {
    Value dst = op.getDst();
    Value array = fragments.getArray(dst);
    if (!array || !op.getValue().getType().isF32())
      return failure();
    bool overlapped = llvm::any_of(dst.getUsers(), [&](Operation *user) {
      auto gemm = dyn_cast<GemmOp>(user);
      return gemm && gemm.getC() == dst &&
             selectedFor(gemm, GemmInstructionKind::Wgmma) &&
             gemm.getWgWaitAttr() && gemm.getWgWaitAttr().getInt() != 0;
    });
    if (!overlapped)
      return failure();
    Location loc = op.getLoc();
    int64_t count = fragments.getTable(dst)->getNumSlots();
    std::string ptx, constraints;
    llvm::raw_string_ostream os(ptx);
    for (int64_t i = 0; i < count; ++i) {
      os << "mov.b32 $" << i << ", $" << count << ";\n";
      constraints += "=f,";
    }
    constraints += "f";
    auto structType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(),
        SmallVector<Type>(count, rewriter.getF32Type()));
    auto asmOp = LLVM::InlineAsmOp::create(
        rewriter, loc, structType, ValueRange{op.getValue()}, ptx, constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None,
        LLVM::AsmDialectAttr::get(rewriter.getContext(),
                                  LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
    asmOp->setAttr(TileDialect::getRegisterOnlyAsmAttrName(),
                   rewriter.getUnitAttr());
    for (int64_t s = 0; s < count; ++s)
      memref::StoreOp::create(
          rewriter, loc,
          LLVM::ExtractValueOp::create(rewriter, loc, asmOp.getResult(0), s),
          array, ValueRange{arith::ConstantIndexOp::create(rewriter, loc, s)});
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.gemm_wait as wgmma.wait_group: the gemms that left work in flight
/// are on wgmma (the others compute synchronously, and then no group is
/// pending).
struct GemmWaitToWgmma : OpRewritePattern<GemmWaitOp> {
  GemmWaitToWgmma(MLIRContext *ctx)
      : OpRewritePattern<GemmWaitOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(GemmWaitOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::WgmmaWaitGroupSyncOp>(
        op, op.getPendingAttr());
    return success();
  }
};

} // namespace

void nvidia::populateWgmmaPatterns(RewritePatternSet &patterns,
                                   const RegisterFragments &fragments) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<GemmOnWgmma>(ctx, fragments);
  patterns.add<FillWgmmaAccumulators>(ctx, fragments);
  patterns.add<GemmWaitToWgmma>(ctx);
}
