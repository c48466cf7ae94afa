//===- ExpandF8.cpp - 8-bit float conversions as integer arithmetic -----===//
//
// Part of TileLang-MLIR.
//
// tile-expand-f8: rewrites arith.extf from f8E4M3FN / f8E5M2 into integer
// operations that every backend lowers (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEEXPANDF8
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

static bool isF8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(type));
}

/// The OCP MX scale factor: 2^(bits - 127), bits 255 NaN (no sign, no zero,
/// no infinity).
static bool isE8M0(Type type) {
  return isa<Float8E8M0FNUType>(getElementTypeOrSelf(type));
}

/// The floats this pass handles: the 8-bit ones and f4E2M1FN (whose
/// conversions to and from f32 are MLIR's arith expansions).
static bool isNarrowFloat(Type type) {
  return isF8(type) || isE8M0(type) ||
         isa<Float4E2M1FNType>(getElementTypeOrSelf(type));
}

/// `element` in the shape of `shaped` (a vector of it when `shaped` is a
/// vector: the patterns below are elementwise).
static Type withElement(Type shaped, Type element) {
  if (auto vector = dyn_cast<VectorType>(shaped))
    return VectorType::get(vector.getShape(), element,
                           vector.getScalableDims());
  return element;
}

/// Whether the patterns below (elementwise) take a value of `type`: a
/// scalar or a vector, not another shaped type.
static bool isScalarOrVector(Type type) {
  return isa<VectorType>(type) || !isa<ShapedType>(type);
}

/// A constant of `type` (a scalar, or a vector every element of which is
/// `value`).
static Value splat(OpBuilder &b, Location loc, Type type, TypedAttr value) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    value = SplatElementsAttr::get(shaped, value);
  return arith::ConstantOp::create(b, loc, type, value);
}

namespace {
/// arith.extf from an 8-bit float: decode the byte.
struct ExpandF8ExtF : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Type source = op.getIn().getType();
    if (!isF8(source))
      return failure();
    // Scalars and vectors alike: every op below is elementwise.
    if (!isScalarOrVector(source))
      return failure();
    bool vector = isa<VectorType>(source);
    auto like = [&](Type element) { return withElement(source, element); };
    Location loc = op.getLoc();
    Type i8 = like(rewriter.getI8Type()), i32 = like(rewriter.getI32Type());
    auto constant = [&](Type type, int64_t value) {
      return splat(rewriter, loc, type,
                   rewriter.getIntegerAttr(getElementTypeOrSelf(type), value));
    };
    Value byte = arith::BitcastOp::create(rewriter, loc, i8, op.getIn());
    // Both formats: 1 sign bit, E exponent bits (bias B), M mantissa bits.
    // The f32 bit pattern is rebuilt in integers, so that every backend
    // gives the same bits (a detour through f16 would let the GPU's
    // f16 -> f32 conversion canonicalize NaNs and drop their sign).
    bool e5m2 = isa<Float8E5M2Type>(getElementTypeOrSelf(source));
    int64_t mantissaBits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
    int64_t exponentMask = e5m2 ? 0x1F : 0xF;
    Value x = arith::ExtUIOp::create(rewriter, loc, i32, byte);
    Value sign = arith::ShLIOp::create(
        rewriter, loc,
        arith::AndIOp::create(rewriter, loc, x, constant(i32, 0x80)),
        constant(i32, 24));
    Value exponent = arith::AndIOp::create(
        rewriter, loc,
        arith::ShRUIOp::create(rewriter, loc, x, constant(i32, mantissaBits)),
        constant(i32, exponentMask));
    Value mantissa = arith::AndIOp::create(
        rewriter, loc, x, constant(i32, (1 << mantissaBits) - 1));
    // Normal: exponent + (127 - bias), mantissa in the top bits of 23.
    Value normal = arith::OrIOp::create(
        rewriter, loc,
        arith::ShLIOp::create(
            rewriter, loc,
            arith::AddIOp::create(rewriter, loc, exponent,
                                  constant(i32, 127 - bias)),
            constant(i32, 23)),
        arith::ShLIOp::create(rewriter, loc, mantissa,
                              constant(i32, 23 - mantissaBits)));
    // Subnormal (exponent 0): mantissa * 2^(1 - bias - M), exact in f32.
    Type f32 = like(rewriter.getF32Type());
    TypedAttr scale = rewriter.getF32FloatAttr(
        std::ldexp(1.0f, static_cast<int>(1 - bias - mantissaBits)));
    if (vector)
      scale = SplatElementsAttr::get(cast<ShapedType>(f32), scale);
    Value scaled = arith::MulFOp::create(
        rewriter, loc, arith::UIToFPOp::create(rewriter, loc, f32, mantissa),
        arith::ConstantOp::create(rewriter, loc, f32, scale));
    Value subnormal = arith::BitcastOp::create(rewriter, loc, i32, scaled);
    Value isSubnormal = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, exponent, constant(i32, 0));
    Value magnitude =
        arith::SelectOp::create(rewriter, loc, isSubnormal, subnormal, normal);
    Value quietNaN = constant(i32, 0x7FC00000);
    if (e5m2) {
      // Exponent all ones: infinity (mantissa 0) or NaN.
      Value special = arith::CmpIOp::create(rewriter, loc,
                                            arith::CmpIPredicate::eq, exponent,
                                            constant(i32, exponentMask));
      Value isInf = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, mantissa, constant(i32, 0));
      Value value = arith::SelectOp::create(
          rewriter, loc, isInf, constant(i32, 0x7F800000), quietNaN);
      magnitude =
          arith::SelectOp::create(rewriter, loc, special, value, magnitude);
    } else {
      // No infinities; NaN is S.1111.111.
      Value isNaN = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq,
          arith::AndIOp::create(rewriter, loc, x, constant(i32, 0x7F)),
          constant(i32, 0x7F));
      magnitude =
          arith::SelectOp::create(rewriter, loc, isNaN, quietNaN, magnitude);
    }
    Value bits = arith::OrIOp::create(rewriter, loc, sign, magnitude);
    Value decoded = arith::BitcastOp::create(rewriter, loc, f32, bits);
    Type target = op.getType();
    Value result = decoded;
    unsigned from = getElementTypeOrSelf(decoded.getType()).getIntOrFloatBitWidth();
    unsigned to = getElementTypeOrSelf(target).getIntOrFloatBitWidth();
    if (target != decoded.getType()) {
      // Every f8 value is exact in f16, bf16, f32 and f64: a wider type
      // extends, a narrower or other 16-bit one truncates without rounding.
      if (to > from)
        result = arith::ExtFOp::create(rewriter, loc, target, decoded);
      else
        result = arith::TruncFOp::create(rewriter, loc, target, decoded);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// arith.truncf to f4E2M1FN: the code of the nearest value, ties to the
/// even code (IEEE round to nearest even, as the hardware's cvt.rn does),
/// magnitudes above 6 (and infinities) saturating at 6, the sign kept
/// (-0.2 gives -0); a NaN gives +6. By comparisons against the midpoints
/// between consecutive values, exact in every source float type.
struct ExpandF4TruncF : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type result = op.getType();
    if (!isa<Float4E2M1FNType>(getElementTypeOrSelf(result)))
      return failure();
    Value x = op.getIn();
    Type source = x.getType();
    if (!isScalarOrVector(source))
      return failure();
    auto like = [&](Type element) { return withElement(source, element); };
    Location loc = op.getLoc();
    auto floatType = cast<FloatType>(getElementTypeOrSelf(source));
    Type i4 = like(rewriter.getIntegerType(4));
    auto constant = [&](Type type, Attribute element) {
      return splat(rewriter, loc, type, cast<TypedAttr>(element));
    };
    auto integer = [&](Type type, int64_t value) {
      return constant(type, rewriter.getIntegerAttr(getElementTypeOrSelf(type),
                                                    value));
    };
    unsigned width = floatType.getWidth();
    Type bitsType = like(rewriter.getIntegerType(width));
    Value bits = arith::BitcastOp::create(rewriter, loc, bitsType, x);
    // |x|: the bits without the sign.
    Value magnitude = arith::BitcastOp::create(
        rewriter, loc, source,
        arith::AndIOp::create(
            rewriter, loc, bits,
            integer(bitsType, (int64_t)(llvm::maxUIntN(width) >> 1))));
    // Midpoints between the codes' magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6;
    // a tie goes up where the upper code is even. Unordered compares: a
    // NaN passes every one (code 7).
    struct Step {
      double midpoint;
      bool tieUp;
    } steps[] = {{0.25, false}, {0.75, true}, {1.25, false}, {1.75, true},
                 {2.5, false},  {3.5, true},  {5.0, false}};
    Value code = integer(i4, 0);
    for (Step step : steps) {
      Value bound =
          constant(source, rewriter.getFloatAttr(floatType, step.midpoint));
      Value above = arith::CmpFOp::create(
          rewriter, loc,
          step.tieUp ? arith::CmpFPredicate::UGE : arith::CmpFPredicate::UGT,
          magnitude, bound);
      code = arith::AddIOp::create(
          rewriter, loc, code, arith::ExtUIOp::create(rewriter, loc, i4, above));
    }
    // The sign bit, from the bits (-0 is negative), where x is a number.
    Value negative = arith::CmpIOp::create(rewriter, loc,
                                           arith::CmpIPredicate::slt, bits,
                                           integer(bitsType, 0));
    Value isNumber =
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::ORD, x, x);
    Value signed_ = arith::AndIOp::create(rewriter, loc, negative, isNumber);
    Value sign = arith::SelectOp::create(rewriter, loc, signed_,
                                         integer(i4, 8), integer(i4, 0));
    code = arith::OrIOp::create(rewriter, loc, code, sign);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, result, code);
    return success();
  }
};

/// arith.truncf to f8E4M3FN or f8E5M2 from f16, bf16, f32 or f64: the
/// code of the nearest value, ties to the even code, as CUDA's
/// __nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...) and PTX's
/// cvt.rn.satfinite do (TileLang's T.cast): magnitudes past the largest
/// finite value (448, 57344) and infinities saturate to it, the sign is
/// kept (also on values that round to zero), a NaN gives 0x7F. Integer
/// arithmetic on the source's bits, exact for every input.
struct ExpandF8TruncF : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type result = op.getType();
    if (!isF8(result))
      return failure();
    Value x = op.getIn();
    Type source = x.getType();
    if (!isScalarOrVector(source))
      return failure();
    auto floatType = cast<FloatType>(getElementTypeOrSelf(source));
    if (!isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(floatType))
      return failure();
    auto like = [&](Type element) { return withElement(source, element); };
    Location loc = op.getLoc();
    // Source: W bits, Ms mantissa bits, bias Bs. Destination: M mantissa
    // bits, bias Bd, largest finite code.
    unsigned width = floatType.getWidth();
    int64_t sourceMantissa = floatType.getFPMantissaWidth() - 1;
    int64_t sourceBias = 1 - llvm::APFloat::semanticsMinExponent(
                                 floatType.getFloatSemantics());
    bool e5m2 = isa<Float8E5M2Type>(getElementTypeOrSelf(result));
    int64_t mantissa = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
    int64_t maxCode = e5m2 ? 0x7B : 0x7E;
    int64_t drop = sourceMantissa - mantissa;
    Type intType = like(rewriter.getIntegerType(width));
    auto constant = [&](int64_t value) {
      return splat(rewriter, loc, intType,
                   rewriter.getIntegerAttr(rewriter.getIntegerType(width),
                                           value));
    };
    auto shl = [&](Value a, Value b) {
      return arith::ShLIOp::create(rewriter, loc, a, b);
    };
    auto shr = [&](Value a, Value b) {
      return arith::ShRUIOp::create(rewriter, loc, a, b);
    };
    auto and_ = [&](Value a, Value b) {
      return arith::AndIOp::create(rewriter, loc, a, b);
    };
    auto add = [&](Value a, Value b) {
      return arith::AddIOp::create(rewriter, loc, a, b);
    };
    auto sub = [&](Value a, Value b) {
      return arith::SubIOp::create(rewriter, loc, a, b);
    };
    auto cmp = [&](arith::CmpIPredicate predicate, Value a, Value b) {
      return arith::CmpIOp::create(rewriter, loc, predicate, a, b);
    };
    auto select = [&](Value c, Value a, Value b) {
      return arith::SelectOp::create(rewriter, loc, c, a, b);
    };
    Value one = constant(1);
    Value bits = arith::BitcastOp::create(rewriter, loc, intType, x);
    Value magnitude =
        and_(bits, constant((int64_t)(llvm::maxUIntN(width) >> 1)));
    Value exponent = shr(magnitude, constant(sourceMantissa));
    // Normal in the destination (exponent + Bd - Bs >= 1): rebias the
    // exponent field in place, then round off `drop` mantissa bits to
    // nearest even (a carry out of the mantissa steps the exponent up,
    // which is the right rounding).
    Value rebiased =
        sub(magnitude, constant((sourceBias - bias) << sourceMantissa));
    Value lsb = and_(shr(rebiased, constant(drop)), one);
    Value normal =
        shr(add(add(rebiased, constant((int64_t(1) << (drop - 1)) - 1)), lsb),
            constant(drop));
    // Subnormal in the destination: the significand (implicit bit where
    // the source is normal) shifted right by drop + 1 - (exponent + Bd -
    // Bs), clamped to Ms + 2 (which leaves nothing), rounded to nearest
    // even by the round bit, the bits below it and the result's low bit.
    Value isSourceNormal = cmp(arith::CmpIPredicate::ne, exponent, constant(0));
    Value significand = arith::OrIOp::create(
        rewriter, loc,
        and_(magnitude, constant((int64_t(1) << sourceMantissa) - 1)),
        select(isSourceNormal, constant(int64_t(1) << sourceMantissa),
               constant(0)));
    Value effectiveExponent =
        arith::MaxUIOp::create(rewriter, loc, exponent, constant(1));
    // shift = drop + 1 + Bs - Bd - exponent, in [drop + 1, ...) here.
    Value shift = sub(constant(drop + 1 + sourceBias - bias), effectiveExponent);
    // (Clamped below at 1 too: the normal path's inputs, which do not use
    // this value, would shift by a negative amount.)
    shift = arith::MinSIOp::create(
        rewriter, loc,
        arith::MaxSIOp::create(rewriter, loc, shift, one),
        constant(sourceMantissa + 2));
    Value truncated = shr(significand, shift);
    Value roundBit = and_(shr(significand, sub(shift, one)), one);
    Value below = and_(significand, sub(shl(one, sub(shift, one)), one));
    Value sticky = arith::ExtUIOp::create(
        rewriter, loc, intType,
        arith::OrIOp::create(
            rewriter, loc, cmp(arith::CmpIPredicate::ne, below, constant(0)),
            cmp(arith::CmpIPredicate::ne, and_(truncated, one), constant(0))));
    Value subnormal = add(truncated, and_(roundBit, sticky));
    Value isNormal = cmp(arith::CmpIPredicate::uge, exponent,
                         constant(sourceBias - bias + 1));
    Value code = select(isNormal, normal, subnormal);
    // Saturate (also infinities), then NaN, then the sign.
    code = arith::MinUIOp::create(rewriter, loc, code, constant(maxCode));
    Value isNaN =
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::UNO, x, x);
    Value negative =
        cmp(arith::CmpIPredicate::slt, bits, constant(0));
    code = arith::OrIOp::create(
        rewriter, loc, code,
        select(negative, constant(0x80), constant(0)));
    code = select(isNaN, constant(0x7F), code);
    Value byte = arith::TruncIOp::create(rewriter, loc,
                                         like(rewriter.getI8Type()), code);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, result, byte);
    return success();
  }
};

/// arith.extf from f8E8M0FNU: byte b is 2^(b - 127) as f32 bits b << 23,
/// except b = 0 (2^-127, the f32 subnormal 0x00400000) and b = 255 (NaN);
/// then the f32 to the result type (exact to f64; rounded to f16/bf16).
/// (MLIR's expansion makes b = 0 a zero.)
struct ExpandE8M0ExtF : OpRewritePattern<arith::ExtFOp> {
  ExpandE8M0ExtF(MLIRContext *ctx)
      : OpRewritePattern<arith::ExtFOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Type source = op.getIn().getType();
    if (!isE8M0(source) || !isScalarOrVector(source))
      return failure();
    Location loc = op.getLoc();
    auto like = [&](Type element) { return withElement(source, element); };
    Type i8 = like(rewriter.getI8Type()), i32 = like(rewriter.getI32Type());
    auto constant = [&](int64_t value) {
      return splat(rewriter, loc, i32, rewriter.getI32IntegerAttr(value));
    };
    Value byte = arith::ExtUIOp::create(
        rewriter, loc, i32, arith::BitcastOp::create(rewriter, loc, i8, op.getIn()));
    Value bits = arith::ShLIOp::create(rewriter, loc, byte, constant(23));
    auto is = [&](int64_t value) {
      return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                   byte, constant(value));
    };
    bits = arith::SelectOp::create(rewriter, loc, is(0), constant(0x00400000),
                                   bits);
    bits = arith::SelectOp::create(rewriter, loc, is(255), constant(0x7FC00000),
                                   bits);
    Type f32 = like(rewriter.getF32Type());
    Value wide = arith::BitcastOp::create(rewriter, loc, f32, bits);
    unsigned width = getElementTypeOrSelf(op.getType()).getIntOrFloatBitWidth();
    if (width == 32)
      rewriter.replaceOp(op, wide);
    else if (width > 32)
      rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), wide);
    else
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), wide);
    return success();
  }
};

/// arith.truncf to f8E8M0FNU, as torch converts: from the value's f32 (f16
/// and bf16 widened exactly, f64 rounded to f32 first), the exponent byte
/// e, plus one where the dropped significand bits are past one half, or
/// exactly one half of a normal number (round to nearest, ties up: the
/// implicit bit is the odd last bit); e = 255 (an infinity or NaN) and a
/// value rounding past 2^127 are NaN (255); the sign is dropped; zero and
/// values below 2^-127 are 2^-127 (0) or round up to 2^-126.
/// (MLIR's expansion truncates toward zero.)
struct ExpandE8M0TruncF : OpRewritePattern<arith::TruncFOp> {
  ExpandE8M0TruncF(MLIRContext *ctx)
      : OpRewritePattern<arith::TruncFOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getIn();
    Type source = x.getType();
    if (!isE8M0(op.getType()) || !isScalarOrVector(source))
      return failure();
    auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(source));
    if (!isa_and_nonnull<Float16Type, BFloat16Type, Float32Type, Float64Type>(
            floatType))
      return failure();
    Location loc = op.getLoc();
    auto like = [&](Type element) { return withElement(source, element); };
    Type f32 = like(rewriter.getF32Type()), i32 = like(rewriter.getI32Type());
    if (floatType.getWidth() < 32)
      x = arith::ExtFOp::create(rewriter, loc, f32, x);
    else if (floatType.getWidth() > 32)
      x = arith::TruncFOp::create(rewriter, loc, f32, x);
    auto constant = [&](int64_t value) {
      return splat(rewriter, loc, i32, rewriter.getI32IntegerAttr(value));
    };
    Value bits = arith::BitcastOp::create(rewriter, loc, i32, x);
    Value exponent = arith::AndIOp::create(
        rewriter, loc, arith::ShRUIOp::create(rewriter, loc, bits, constant(23)),
        constant(0xFF));
    auto nonzero = [&](Value v) {
      return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne, v,
                                   constant(0));
    };
    Value guard = nonzero(arith::AndIOp::create(rewriter, loc, bits,
                                                constant(0x400000)));
    Value rest = nonzero(arith::AndIOp::create(rewriter, loc, bits,
                                               constant(0x3FFFFF)));
    Value normal = nonzero(exponent);
    Value finite = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::ne, exponent,
                                         constant(0xFF));
    Value up = arith::AndIOp::create(
        rewriter, loc, guard, arith::OrIOp::create(rewriter, loc, rest, normal));
    up = arith::AndIOp::create(rewriter, loc, up, finite);
    Value rounded = arith::AddIOp::create(
        rewriter, loc, exponent,
        arith::ExtUIOp::create(rewriter, loc, i32, up));
    Value byte = arith::TruncIOp::create(rewriter, loc,
                                         like(rewriter.getI8Type()), rounded);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), byte);
    return success();
  }
};

/// arith.sitofp / uitofp to an 8-bit float: the integer clamped to
/// +-2^17 (past every format's largest value, so the result saturates the
/// same), converted exactly to f32, then arith.truncf (ExpandF8TruncF).
template <typename Op, bool Signed>
struct ExpandIntToF8 : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    bool scale = isE8M0(op.getType());
    if (!isF8(op.getType()) && !scale)
      return failure();
    Value x = op.getIn();
    Type source = x.getType();
    if (!isScalarOrVector(source))
      return failure();
    Location loc = op.getLoc();
    unsigned width = getElementTypeOrSelf(source).getIntOrFloatBitWidth();
    // (f8E8M0FNU reaches 2^127: no clamp, f32 holds every integer's
    // magnitude.)
    if (width > 18 && !scale) {
      auto bound = [&](int64_t value) {
        return splat(rewriter, loc, source,
                     rewriter.getIntegerAttr(getElementTypeOrSelf(source),
                                             value));
      };
      if (Signed)
        x = arith::MaxSIOp::create(
            rewriter, loc,
            arith::MinSIOp::create(rewriter, loc, x, bound(1 << 17)),
            bound(-(1 << 17)));
      else
        x = arith::MinUIOp::create(rewriter, loc, x, bound(1 << 17));
    }
    Type f32 = withElement(source, rewriter.getF32Type());
    Value wide = Op::create(rewriter, loc, f32, x);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), wide);
    return success();
  }
};

/// arith.fptosi / fptoui from an 8-bit float: from its exact f32 value.
template <typename Op>
struct ExpandF8ToInt : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    Type source = op.getIn().getType();
    if (!isF8(source) && !isE8M0(source))
      return failure();
    Value wide = arith::ExtFOp::create(
        rewriter, op.getLoc(), withElement(source, rewriter.getF32Type()),
        op.getIn());
    rewriter.replaceOpWithNewOp<Op>(op, op.getType(), wide);
    return success();
  }
};

/// Both operands of an 8-bit float binary op, widened exactly to f32
/// (arith.extf, which ExpandF8ExtF then decodes).
static std::pair<Value, Value> widenToF32(PatternRewriter &rewriter,
                                          Location loc, Value lhs, Value rhs) {
  Type f32 = rewriter.getF32Type();
  if (auto vector = dyn_cast<VectorType>(lhs.getType()))
    f32 = VectorType::get(vector.getShape(), f32, vector.getScalableDims());
  return {arith::ExtFOp::create(rewriter, loc, f32, lhs),
          arith::ExtFOp::create(rewriter, loc, f32, rhs)};
}

/// arith.cmpf of 8-bit floats: the same comparison of their exact f32
/// values.
struct ExpandF8CmpF : OpRewritePattern<arith::CmpFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::CmpFOp op,
                                PatternRewriter &rewriter) const override {
    if (!isNarrowFloat(op.getLhs().getType()))
      return failure();
    auto [lhs, rhs] =
        widenToF32(rewriter, op.getLoc(), op.getLhs(), op.getRhs());
    rewriter.replaceOpWithNewOp<arith::CmpFOp>(op, op.getPredicate(), lhs,
                                               rhs);
    return success();
  }
};

/// arith.maximumf / minimumf / maxnumf / minnumf of 8-bit floats: the op on
/// the exact f32 values picks one of them (or a NaN); the result is the
/// operand it picked, chosen by bits so that +0/-0 and NaNs come out as the
/// f32 op decided, with no rounding back to 8 bits.
template <typename Op, bool PropagatesNaN>
struct ExpandF8MinMax : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    if (!isNarrowFloat(op.getType()))
      return failure();
    Location loc = op.getLoc();
    Value a = op.getLhs(), b = op.getRhs();
    auto [wideA, wideB] = widenToF32(rewriter, loc, a, b);
    Value picked = Op::create(rewriter, loc, wideA, wideB);
    Type i32 = rewriter.getI32Type();
    if (auto vector = dyn_cast<VectorType>(a.getType()))
      i32 = VectorType::get(vector.getShape(), i32, vector.getScalableDims());
    Value pickA = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq,
        arith::BitcastOp::create(rewriter, loc, i32, picked),
        arith::BitcastOp::create(rewriter, loc, i32, wideA));
    if (PropagatesNaN) {
      // A NaN result: a's when a is NaN (b's otherwise, as below).
      Value aIsNaN = arith::CmpFOp::create(rewriter, loc,
                                           arith::CmpFPredicate::UNO, wideA,
                                           wideA);
      pickA = arith::OrIOp::create(rewriter, loc, pickA, aIsNaN);
    }
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, pickA, a, b);
    return success();
  }
};

struct ExpandF8Pass : public tile::impl::TileExpandF8Base<ExpandF8Pass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandF8ExtF, ExpandF8TruncF, ExpandF8CmpF,
                 ExpandF8MinMax<arith::MaximumFOp, true>,
                 ExpandF8MinMax<arith::MinimumFOp, true>,
                 ExpandF8MinMax<arith::MaxNumFOp, false>,
                 ExpandF8MinMax<arith::MinNumFOp, false>,
                 ExpandIntToF8<arith::SIToFPOp, true>,
                 ExpandIntToF8<arith::UIToFPOp, false>,
                 ExpandF8ToInt<arith::FPToSIOp>,
                 ExpandF8ToInt<arith::FPToUIOp>>(&getContext());
    // f4E2M1FN: extf to and truncf from f32 (round to nearest even,
    // saturating at +-6).
    // (MLIR's truncf expansion rounds ties away from zero and drops the
    // sign of values that round to zero: ExpandF4TruncF comes first.)
    patterns.add<ExpandF4TruncF>(&getContext(), /*benefit=*/2);
    // f8E8M0FNU: to and from f32 as torch converts (ahead of MLIR's, which
    // truncate and make byte 0 a zero).
    patterns.add<ExpandE8M0ExtF, ExpandE8M0TruncF>(&getContext());
    arith::populateExpandF4E2M1Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // What is left on 8-bit floats cannot be lowered: say so here, at the
    // operation, not as a translation failure later.
    WalkResult result = getOperation()->walk([](Operation *op) {
      // Moving bytes around is fine: memory, views, bitcasts, constants,
      // choosing one of two values (a copy's zero past the edge).
      // (By the op's name: an unregistered op has no dialect object.)
      StringRef dialect = op->getName().getDialectNamespace();
      if (isa<arith::BitcastOp, arith::ConstantOp, arith::SelectOp>(op) ||
          llvm::is_contained({"memref", "vector", "builtin", "llvm", "tile",
                              "func", "gpu", "scf", "cf"},
                             dialect))
        return WalkResult::advance();
      auto onF8 = [](Value v) {
        return isF8(v.getType()) || isE8M0(v.getType());
      };
      auto onF4 = [](Value v) {
        return isa<Float4E2M1FNType>(getElementTypeOrSelf(v.getType()));
      };
      if (llvm::any_of(op->getOperands(), onF4) ||
          llvm::any_of(op->getResults(), onF4)) {
        op->emitOpError("on 4-bit floats (f4E2M1FN) cannot be lowered: "
                        "only conversions to and from f32 (arith.extf, "
                        "arith.truncf), comparisons, min/max and bitcasts of "
                        "them are supported; extend to f32 first");
        return WalkResult::interrupt();
      }
      if (llvm::any_of(op->getOperands(), onF8) ||
          llvm::any_of(op->getResults(), onF8)) {
        op->emitOpError("on 8-bit floats (f8E4M3FN, f8E5M2, f8E8M0FNU) "
                        "cannot be "
                        "lowered: only loads, stores, copies, conversions "
                        "(to and from other floats and integers), "
                        "comparisons and min/max of them are supported; "
                        "compute in f32 and convert");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
