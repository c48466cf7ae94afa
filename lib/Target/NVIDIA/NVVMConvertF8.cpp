//===- NVVMConvertF8.cpp - 8-bit float conversions by cvt.rn.satfinite ---===//
//
// Part of TileLang-MLIR.
//
// tile-nvvm-convert-f8: arith.truncf to f8E4M3FN / f8E5M2 as
// nvvm.convert.f32x2.to.f8x2 (cvt.rn.satfinite) on sm_89 and newer (see
// Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "TileLang/Target/NVIDIA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILENVVMCONVERTF8
#include "TileLang/Target/NVIDIA/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

/// arith.truncf to an 8-bit float, two elements per cvt.rn.satfinite.
struct TruncFToCvtF8x2 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type resultElement = getElementTypeOrSelf(op.getType());
    if (!isa<Float8E4M3FNType, Float8E5M2Type>(resultElement))
      return failure();
    Type sourceElement = getElementTypeOrSelf(op.getIn().getType());
    if (!isa<Float32Type, Float16Type, BFloat16Type>(sourceElement))
      return failure();
    auto vector = dyn_cast<VectorType>(op.getType());
    if (vector && (vector.getRank() != 1 || vector.isScalable()))
      return failure();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type(), i8 = rewriter.getI8Type();
    auto pairType = VectorType::get({2}, i8);
    Value source = op.getIn();
    // f16 and bf16 widen exactly: the same rounding from f32.
    if (!sourceElement.isF32())
      source = arith::ExtFOp::create(
          rewriter, loc,
          vector ? Type(VectorType::get(vector.getShape(), f32)) : f32,
          source);
    auto convert = [&](Value a, Value b) {
      // The pair's bytes in order: element 0 is b's, element 1 a's.
      return NVVM::ConvertF32x2ToF8x2Op::create(
          rewriter, loc, pairType, a, b, NVVM::FPRoundingMode::RN,
          NVVM::SaturationMode::SATFINITE, /*relu=*/false,
          resultElement);
    };
    if (!vector) {
      Value pair = convert(source, source);
      Value byte = vector::ExtractOp::create(rewriter, loc, pair, 0);
      rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), byte);
      return success();
    }
    int64_t n = vector.getNumElements();
    Value bytes = arith::ConstantOp::create(
        rewriter, loc, VectorType::get({n}, i8),
        DenseElementsAttr::get(VectorType::get({n}, i8),
                               rewriter.getI8IntegerAttr(0)));
    for (int64_t k = 0; k < n; k += 2) {
      Value lo = vector::ExtractOp::create(rewriter, loc, source, k);
      Value hi = k + 1 < n ? Value(vector::ExtractOp::create(rewriter, loc,
                                                             source, k + 1))
                           : lo;
      Value pair = convert(hi, lo);
      for (int64_t j = 0; j < 2 && k + j < n; ++j)
        bytes = vector::InsertOp::create(
            rewriter, loc, vector::ExtractOp::create(rewriter, loc, pair, j),
            bytes, k + j);
    }
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), bytes);
    return success();
  }
};

struct NVVMConvertF8Pass
    : public tile::impl::TileNVVMConvertF8Base<NVVMConvertF8Pass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    ArrayAttr targets = module.getTargetsAttr();
    if (!targets)
      return;
    // Every NVVM target of the module must have the instruction.
    bool any = false;
    for (Attribute target : targets) {
      auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target);
      if (!nvvm || parseSmVersion(nvvm.getChip()) < 89)
        return;
      any = true;
    }
    if (!any)
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<TruncFToCvtF8x2>(&getContext());
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
