//===- Accesses.cpp - Guarded and vector accesses ------------------------===//
//
// Part of TileLang-MLIR.
//
// Scalars, tile placement in buffers, bounds-checked element and vector
// accesses (zero-filled loads, clipped stores), and the vectorized copies
// of the block.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/TileLowering.h"

#include "LoweringCommon.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

Value mlir::tile::indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Converts a scalar between float types or between integer types, as
/// tile.copy and tile.gemm do (integers are signed; booleans are 0 and 1,
/// and an integer converts to true where it is nonzero).
/// `value` (a scalar or a vector of them) converted element-wise to the
/// element type `to`.
Value mlir::tile::convertScalar(OpBuilder &b, Location loc, Value value,
                                Type to) {
  Type from = getElementTypeOrSelf(value.getType());
  if (from == to)
    return value;
  auto like = [&](Type element) -> Type {
    if (auto vector = dyn_cast<VectorType>(value.getType()))
      return VectorType::get(vector.getShape(), element);
    return element;
  };
  if (auto fromFloat = dyn_cast<FloatType>(from)) {
    auto toFloat = cast<FloatType>(to);
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, like(to), value);
    if (fromFloat.getWidth() > toFloat.getWidth())
      return arith::TruncFOp::create(b, loc, like(to), value);
    // Same width, different format (f16 <-> bf16): go through f32.
    Value wide = arith::ExtFOp::create(b, loc, like(b.getF32Type()), value);
    return arith::TruncFOp::create(b, loc, like(to), wide);
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  // Booleans are 0 or 1, not a 1-bit signed integer (true is 1, not -1),
  // and an integer is true where it is nonzero (2 is true, not its low bit).
  if (fromWidth == 1)
    return arith::ExtUIOp::create(b, loc, like(to), value);
  if (toWidth == 1) {
    Value zero = arith::ConstantOp::create(b, loc, value.getType(),
                                           b.getZeroAttr(value.getType()));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 zero);
  }
  if (fromWidth < toWidth)
    return arith::ExtSIOp::create(b, loc, like(to), value);
  return arith::TruncIOp::create(b, loc, like(to), value);
}

Value lowering::zeroOf(OpBuilder &b, Location loc, Type type) {
  return arith::ConstantOp::create(b, loc, type,
                                   cast<TypedAttr>(b.getZeroAttr(type)));
}

Value lowering::add(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::AddFOp::create(b, loc, lhs, rhs);
  return arith::AddIOp::create(b, loc, lhs, rhs);
}

bool lowering::isLocal(Value buffer) {
  return getMemorySpace(cast<MemRefType>(buffer.getType())) ==
         MemorySpace::Local;
}

//===----------------------------------------------------------------------===//
// Tile placement and edges
//===----------------------------------------------------------------------===//

SmallVector<Value> mlir::tile::tileIndices(OpBuilder &b, Location loc,
                                           const TileRegion &region,
                                           ValueRange ivs) {
  assert(ivs.size() == region.tileDims.size() &&
         "one coordinate per tile dimension");
  int64_t rank = region.getBufferRank();
  // The tile coordinate along each buffer dimension, if it is the tile's
  // (a leading unit dimension of the tile that the buffer lacks is none).
  SmallVector<Value> along(rank);
  for (auto [t, d] : llvm::enumerate(region.tileDims))
    if (d >= 0)
      along[d] = ivs[t];
  SmallVector<Value> indices;
  for (int64_t d = 0; d < rank; ++d) {
    if (region.offsets.empty())
      indices.push_back(along[d] ? along[d] : indexConst(b, loc, 0));
    else
      indices.push_back(along[d] ? arith::AddIOp::create(
                                       b, loc, region.offsets[d], along[d])
                                       .getResult()
                                 : region.offsets[d]);
  }
  return indices;
}

/// `indices` lie inside `buffer` (unsigned compare: negative indices are
/// out of bounds too).
Value mlir::tile::inBounds(OpBuilder &b, Location loc, Value buffer,
                           ValueRange indices) {
  Value all;
  for (auto [d, index] : llvm::enumerate(indices)) {
    Value size = b.createOrFold<memref::DimOp>(loc, buffer, d);
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     index, size);
    all = all ? arith::AndIOp::create(b, loc, all, ok).getResult() : ok;
  }
  return all ? all : arith::ConstantIntOp::create(b, loc, 1, 1).getResult();
}

Value mlir::tile::isWholeVectorInBounds(OpBuilder &b, Location loc,
                                        const TileRegion &region,
                                        ValueRange ivs, int64_t width) {
  SmallVector<Value> last(ivs);
  last.back() = arith::AddIOp::create(b, loc, ivs.back(),
                                      indexConst(b, loc, width - 1));
  return inBounds(b, loc, region.buffer, tileIndices(b, loc, region, last));
}

/// isWholeVectorInBounds for the vector at buffer indices `indices`, along
/// the buffer's last dimension.
static Value isWholeVectorAt(OpBuilder &b, Location loc, Value buffer,
                                   ValueRange indices, int64_t width) {
  SmallVector<Value> last(indices);
  last.back() = arith::AddIOp::create(b, loc, indices.back(),
                                      indexConst(b, loc, width - 1));
  return inBounds(b, loc, buffer, last);
}

Value mlir::tile::loadZeroPaddedVector(OpBuilder &b, Location loc,
                                       const TileRegion &region,
                                       ValueRange ivs, int64_t width,
                                       llvm::Align align) {
  Value buffer = region.buffer;
  auto type = cast<MemRefType>(buffer.getType());
  auto vectorType = VectorType::get({width}, type.getElementType());
  SmallVector<Value> indices = tileIndices(b, loc, region, ivs);
  Value zero =
      arith::ConstantOp::create(b, loc, vectorType, b.getZeroAttr(vectorType));
  auto gather = [&](OpBuilder &b, Location loc) {
    // The first element is inside: clamping each element's index to it
    // keeps every address inside the buffer, and the elements past the
    // buffer's end are selected away.
    Value first = indices.back();
    Value end = b.createOrFold<memref::DimOp>(loc, buffer, indices.size() - 1);
    Value zeroElement = zeroOf(b, loc, type.getElementType());
    Value v = zero;
    v = vector::InsertOp::create(
        b, loc, memref::LoadOp::create(b, loc, buffer, indices), v, 0);
    for (int64_t e = 1; e < width; ++e) {
      Value at = arith::AddIOp::create(b, loc, first, indexConst(b, loc, e));
      Value inside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, at, end);
      SmallVector<Value> element(indices);
      element.back() = arith::SelectOp::create(b, loc, inside, at, first);
      Value x = memref::LoadOp::create(b, loc, buffer, element);
      v = vector::InsertOp::create(
          b, loc, arith::SelectOp::create(b, loc, inside, x, zeroElement), v,
          e);
    }
    scf::YieldOp::create(b, loc, v);
  };
  return scf::IfOp::create(
             b, loc, isWholeVectorAt(b, loc, buffer, indices, width),
             [&](OpBuilder &b, Location loc) {
               scf::YieldOp::create(
                   b, loc,
                   vector::LoadOp::create(b, loc, vectorType, buffer, indices,
                                          /*nontemporal=*/false, align)
                       .getResult());
             },
             [&](OpBuilder &b, Location loc) {
               auto edge = scf::IfOp::create(
                   b, loc, inBounds(b, loc, buffer, indices), gather,
                   [&](OpBuilder &b, Location loc) {
                     scf::YieldOp::create(b, loc, zero);
                   });
               scf::YieldOp::create(b, loc, edge.getResult(0));
             })
      .getResult(0);
}

void mlir::tile::storeClippedVector(OpBuilder &b, Location loc,
                                    const TileRegion &region, ValueRange ivs,
                                    Value vector, llvm::Align align) {
  Value buffer = region.buffer;
  int64_t width = cast<VectorType>(vector.getType()).getNumElements();
  SmallVector<Value> indices = tileIndices(b, loc, region, ivs);
  scf::IfOp::create(
      b, loc, isWholeVectorAt(b, loc, buffer, indices, width),
      [&](OpBuilder &b, Location loc) {
        vector::StoreOp::create(b, loc, vector, buffer, indices,
                                /*nontemporal=*/false, align);
        scf::YieldOp::create(b, loc);
      },
      [&](OpBuilder &b, Location loc) {
        // The elements inside are a prefix of the vector (none when its
        // first lies outside): element k is stored when k < count. (A loop
        // over the prefix, its element picked by selects, made ptxas spill
        // a GEMM epilogue's accumulators.)
        Value first = indices.back();
        Value end =
            b.createOrFold<memref::DimOp>(loc, buffer, indices.size() - 1);
        Value left = arith::MinUIOp::create(
            b, loc, arith::SubIOp::create(b, loc, end, first),
            indexConst(b, loc, width));
        Value count =
            arith::SelectOp::create(b, loc, inBounds(b, loc, buffer, indices),
                                    left, indexConst(b, loc, 0));
        for (int64_t e = 0; e < width; ++e) {
          Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                               indexConst(b, loc, e), count);
          scf::IfOp::create(b, loc, inside, [&](OpBuilder &b, Location loc) {
            SmallVector<Value> at(indices);
            at.back() = arith::AddIOp::create(b, loc, first,
                                              indexConst(b, loc, e));
            memref::StoreOp::create(
                b, loc, vector::ExtractOp::create(b, loc, vector, e), buffer,
                at);
            scf::YieldOp::create(b, loc);
          });
        }
        scf::YieldOp::create(b, loc);
      });
}

/// Loads `buffer[indices]`; for a global buffer, out-of-bounds reads give
/// zero.
Value mlir::tile::guardedLoad(OpBuilder &b, Location loc, Value buffer,
                              ValueRange indices) {
  if (!isGlobalBuffer(buffer))
    return memref::LoadOp::create(b, loc, buffer, indices);
  Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
  auto ifOp = scf::IfOp::create(
      b, loc, inBounds(b, loc, buffer, indices),
      [&](OpBuilder &b, Location loc) {
        Value v = memref::LoadOp::create(b, loc, buffer, indices);
        scf::YieldOp::create(b, loc, v);
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, zeroOf(b, loc, elementType));
      });
  return ifOp.getResult(0);
}

/// Calls `write` when `indices` are inside `buffer`; for an on-chip buffer
/// unconditionally.
void mlir::tile::guardedWrite(
    OpBuilder &b, Location loc, Value buffer, ValueRange indices,
    function_ref<void(OpBuilder &, Location)> write) {
  if (!isGlobalBuffer(buffer))
    return write(b, loc);
  scf::IfOp::create(b, loc, inBounds(b, loc, buffer, indices),
                    [&](OpBuilder &b, Location loc) {
                      write(b, loc);
                      scf::YieldOp::create(b, loc);
                    });
}

/// buffer[indices] += value: atomically when threads share the buffer
/// (Block mode, shared or global memory), as a plain read-modify-write on a
/// single thread.
void lowering::accumulate(OpBuilder &b, Location loc, TileLoweringMode mode,
                       Value buffer, ValueRange indices, Value value) {
  if (mode == TileLoweringMode::Block && !isLocal(buffer)) {
    arith::AtomicRMWKind kind = isa<FloatType>(value.getType())
                                    ? arith::AtomicRMWKind::addf
                                    : arith::AtomicRMWKind::addi;
    memref::AtomicRMWOp::create(b, loc, kind, value, buffer, indices);
    return;
  }
  Value old = memref::LoadOp::create(b, loc, buffer, indices);
  memref::StoreOp::create(b, loc, add(b, loc, old, value), buffer, indices);
}
static int64_t getKnownAlignment(Value buffer) {
  while (auto cast = buffer.getDefiningOp<memref::CastOp>())
    buffer = cast.getSource();
  auto arg = dyn_cast<BlockArgument>(buffer);
  if (!arg)
    return 1;
  auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!func || arg.getOwner() != &func.getFunctionBody().front())
    return 1;
  auto align = func.getArgAttrOfType<IntegerAttr>(
      arg.getArgNumber(), LLVM::LLVMDialect::getAlignAttrName());
  return align ? align.getInt() : 1;
}

bool mlir::tile::isAlongLastDim(const TileRegion &region) {
  return region.getBufferRank() > 0 &&
         region.getInnerDim() == region.getBufferRank() - 1;
}

Value mlir::tile::canAccessVectors(OpBuilder &b, Location loc,
                                   const TileRegion &region, int64_t width) {
  Value side = region.buffer;
  Value ok = arith::ConstantIntOp::create(b, loc, 1, 1);
  auto all = [&](Value condition) {
    ok = arith::AndIOp::create(b, loc, ok, condition);
  };
  auto isMultiple = [&](Value x, int64_t of) -> Value {
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, x, indexConst(b, loc, of)),
        indexConst(b, loc, 0));
  };
  auto type = cast<MemRefType>(side.getType());
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, side);
  // A buffer known to start on a vector boundary needs only its offset
  // checked (a static offset folds).
  if (getKnownAlignment(side) % (width * bytes) == 0) {
    all(isMultiple(metadata.getOffset(), width));
  } else {
    Value pointer =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, side);
    all(isMultiple(arith::AddIOp::create(
                       b, loc, pointer,
                       arith::MulIOp::create(b, loc, metadata.getOffset(),
                                             indexConst(b, loc, bytes))),
                   width * bytes));
  }
  // Vector accesses run along the buffer's last dimension: the tile's
  // innermost dimension must run along it, contiguous, with whole vectors
  // between the rows of every other dimension.
  if (!isAlongLastDim(region))
    return arith::ConstantIntOp::create(b, loc, 0, 1);
  ValueRange strides = metadata.getStrides();
  for (Value stride : strides.drop_back())
    all(isMultiple(stride, width));
  all(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, strides.back(),
                            indexConst(b, loc, 1)));
  if (!region.offsets.empty())
    all(isMultiple(region.offsets.back(), width));
  return ok;
}

Value mlir::tile::canCopyVectors(OpBuilder &b, Location loc, CopyOp op,
                                 int64_t width) {
  return arith::AndIOp::create(
      b, loc, canAccessVectors(b, loc, op.getSrcRegion(), width),
      canAccessVectors(b, loc, op.getDstRegion(), width));
}

/// The widest vector (16, 8 or 4 bytes) `op` moves its rows in, or why
/// there is none.
static FailureOr<int64_t> getCopyVectorBytes(CopyOp op, std::string &why) {
  MemRefType dstType = op.getDst().getType();
  unsigned bits = dstType.getElementTypeBitWidth();
  if (bits % 8) {
    why = "sub-byte elements";
    return failure();
  }
  if (!isAlongLastDim(op.getSrcRegion()) ||
      !isAlongLastDim(op.getDstRegion())) {
    why = "the tile's rows do not run along the buffers' last dimension";
    return failure();
  }
  int64_t elementBytes = bits / 8;
  int64_t rowBytes = op.getTileShape().back() * elementBytes;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(dstType.getStridesAndOffset(strides, offset)) ||
      strides.empty() || strides.back() != 1) {
    why = "destination rows not contiguous";
    return failure();
  }
  // The source's strides and offset where its type fixes them (a static
  // global matrix of 700 f16 columns has rows 1400 bytes apart: 8-byte
  // vectors); dynamic ones are checked at run time (canCopyVectors).
  SmallVector<int64_t> srcStrides;
  int64_t srcOffset = 0;
  if (failed(op.getSrc().getType().getStridesAndOffset(srcStrides, srcOffset)))
    srcStrides.clear();
  SwizzleAttr swizzle = getTileSwizzle(op.getDst());
  for (int64_t bytes : {16, 8, 4}) {
    if (bytes < elementBytes || rowBytes % bytes)
      continue;
    bool aligned = llvm::all_of(ArrayRef(strides).drop_back(), [&](int64_t s) {
      return ShapedType::isStatic(s) && (s * elementBytes) % bytes == 0;
    });
    auto fits = [&](int64_t s) {
      return ShapedType::isDynamic(s) || (s * elementBytes) % bytes == 0;
    };
    if (!srcStrides.empty() &&
        (!llvm::all_of(ArrayRef(srcStrides).drop_back(), fits) ||
         !fits(srcOffset)))
      aligned = false;
    if (swizzle && (int64_t(1) << swizzle.getBase()) * elementBytes < bytes)
      aligned = false;
    if (aligned)
      return bytes;
  }
  why = "no aligned vector width";
  return failure();
}

std::optional<std::string> mlir::tile::getCopyVectorsMismatch(CopyOp op) {
  std::string why;
  if (failed(getCopyVectorBytes(op, why)))
    return why;
  return std::nullopt;
}

FailureOr<CopyVectors> mlir::tile::matchCopyVectors(CopyOp op,
                                                     RewriterBase &rewriter) {
  std::optional<int64_t> threads = getStaticBlockThreads(op);
  if (!threads)
    return rewriter.notifyMatchFailure(op, "no static block size");
  std::string why;
  FailureOr<int64_t> bytes = getCopyVectorBytes(op, why);
  if (failed(bytes))
    return rewriter.notifyMatchFailure(op, why);
  return CopyVectors{*threads, op.getDst().getType().getElementTypeBitWidth() / 8,
                     *bytes};
}

void mlir::tile::forEachThreadVector(
    OpBuilder &b, Location loc, CopyOp op, int64_t threads,
    int64_t vectorElements, function_ref<void(OpBuilder &, Value)> emit) {
  constexpr int64_t kMaxUnrolledVectors = 32;
  SmallVector<int64_t> shape = op.getTileShape();
  int64_t total = shape.back() / vectorElements;
  for (int64_t extent : ArrayRef(shape).drop_back())
    total *= extent;
  Value tid = getBlockThreads(b, op).threadId;
  auto emitGuarded = [&](OpBuilder &b, Value vector) {
    if (total % threads == 0)
      return emit(b, vector);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         vector, indexConst(b, loc, total));
    scf::IfOp::create(b, loc, inside, [&](OpBuilder &b, Location) {
      emit(b, vector);
      scf::YieldOp::create(b, loc);
    });
  };
  int64_t perThread = llvm::divideCeil(total, threads);
  if (perThread <= kMaxUnrolledVectors) {
    for (int64_t j = 0; j < perThread; ++j)
      emitGuarded(b, j == 0 ? tid
                            : arith::AddIOp::create(
                                  b, loc, tid, indexConst(b, loc, j * threads))
                                  .getResult());
    return;
  }
  scf::ForOp::create(b, loc, tid, indexConst(b, loc, total),
                     indexConst(b, loc, threads), ValueRange{},
                     [&](OpBuilder &b, Location, Value v, ValueRange) {
                       emit(b, v);
                       scf::YieldOp::create(b, loc);
                     });
}

SmallVector<Value> mlir::tile::getVectorCoords(OpBuilder &b, Location loc,
                                               ArrayRef<int64_t> shape,
                                               Value vector,
                                               int64_t vectorElements) {
  SmallVector<int64_t> vectorShape(shape);
  vectorShape.back() /= vectorElements;
  SmallVector<Value> coords = delinearize(b, loc, vectorShape, vector);
  coords.back() = arith::MulIOp::create(b, loc, coords.back(),
                                        indexConst(b, loc, vectorElements));
  return coords;
}
