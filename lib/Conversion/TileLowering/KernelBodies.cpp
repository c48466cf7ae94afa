//===- KernelBodies.cpp - Kernel bodies and memory spaces ----------------===//
//
// Part of TileLang-MLIR.
//
// What the conversions do to a kernel as a whole: the element atomics of
// parallel bodies, the body inlined into its launch or loops, rasterized
// block ids, tile memory spaces replaced.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/TileLowering.h"

#include "LoweringCommon.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AttrTypeSubElements.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

DenseSet<Value> mlir::tile::getThreadDependentValues(Operation *root) {
  DenseSet<Value> values;
  SmallVector<Value> worklist;
  root->walk([&](ThreadIdOp op) { worklist.push_back(op.getResult()); });
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!values.insert(value).second)
      continue;
    for (Operation *user : value.getUsers()) {
      llvm::append_range(worklist, user->getResults());
      if (user->hasTrait<::mlir::OpTrait::IsTerminator>())
        llvm::append_range(worklist, user->getParentOp()->getResults());
    }
  }
  return values;
}

/// Whether the element atomic `op` (outside tile.parallel) is per-thread
/// code: its operands computed from a thread index, or under control flow
/// whose operands are (`if tx < 128:` too: each of those threads adds).
static bool isPerThread(AtomicAddOp op, const DenseSet<Value> &fromThreadId) {
  auto dependent = [&](Operation *of) {
    return llvm::any_of(of->getOperands(),
                        [&](Value v) { return fromThreadId.contains(v); });
  };
  if (dependent(op))
    return true;
  for (Operation *parent = op->getParentOp(); parent && !isa<KernelOp>(parent);
       parent = parent->getParentOp())
    if (dependent(parent))
      return true;
  return false;
}

void mlir::tile::lowerParallelElementAtomics(Operation *root,
                                             TileLoweringMode mode) {
  SmallVector<AtomicAddOp> atomics;
  DenseSet<Value> fromThreadId = getThreadDependentValues(root);
  root->walk([&](AtomicAddOp op) {
    if (!op.isTileForm() && (op->getParentOfType<ParallelOp>() ||
                             isPerThread(op, fromThreadId)))
      atomics.push_back(op);
  });
  for (AtomicAddOp op : atomics) {
    OpBuilder b(op);
    Value dst = op.getDst();
    guardedWrite(b, op.getLoc(), dst, op.getDstOffsets(),
                 [&](OpBuilder &b, Location loc) {
                   accumulate(b, loc, mode, dst, op.getDstOffsets(),
                              op.getValue());
                 });
    op.erase();
  }
}

void mlir::tile::inlineTileBody(RewriterBase &rewriter, Region &region,
                                Block *dest, ValueRange args) {
  Block &body = region.front();
  rewriter.eraseOp(body.getTerminator());
  rewriter.inlineBlockBefore(&body, dest->getTerminator(), args);
}

void mlir::tile::markGemmsInTurn(TakeTurnsOp op, RewriterBase &rewriter) {
  for (GemmOp gemm : op.getBody().front().getOps<GemmOp>())
    rewriter.modifyOpInPlace(gemm, [&] {
      gemm->setAttr(TileDialect::getInTurnAttrName(),
                    UnitAttr::get(gemm.getContext()));
    });
}

/// (tile.use_swizzle) Replaces the first two block ids with their rasterized order: the
/// launch's blocks, numbered x fastest, walk the grid in panels of
/// `panel` rows (columns for the column order), down one column of the
/// panel before the next, every other panel right to left; a last,
/// shorter panel is walked the same way. Blocks that run together then
/// share rows of A and columns of B in L2.
void mlir::tile::rasterizeBlockIds(OpBuilder &b, Location loc,
                                   KernelOp kernel, Value gridX, Value gridY,
                                   SmallVectorImpl<Value> &blockIds) {
  auto swizzles = kernel.getBody().front().getOps<UseSwizzleOp>();
  if (swizzles.empty())
    return;
  UseSwizzleOp swizzle = *swizzles.begin();
  bool rows = swizzle.getOrder() == RasterOrder::Row;
  // `outer` is the dimension the panels split, `inner` the one a panel
  // spans whole.
  Value inner = rows ? gridX : gridY;
  Value outer = rows ? gridY : gridX;
  Value innerId = rows ? blockIds[0] : blockIds[1];
  Value outerId = rows ? blockIds[1] : blockIds[0];
  Value panel = arith::ConstantIndexOp::create(b, loc,
                                               swizzle.getPanelSize());
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value linear = arith::AddIOp::create(
      b, loc, innerId, arith::MulIOp::create(b, loc, outerId, inner));
  Value panelBlocks = arith::MulIOp::create(b, loc, panel, inner);
  Value index = arith::DivUIOp::create(b, loc, linear, panelBlocks);
  Value offset = arith::RemUIOp::create(b, loc, linear, panelBlocks);
  Value first = arith::MulIOp::create(b, loc, index, panel);
  Value height = arith::MinUIOp::create(
      b, loc, panel, arith::SubIOp::create(b, loc, outer, first));
  Value along = arith::DivUIOp::create(b, loc, offset, height);
  Value across = arith::AddIOp::create(
      b, loc, first, arith::RemUIOp::create(b, loc, offset, height));
  Value odd = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne,
      arith::AndIOp::create(b, loc, index, one),
      arith::ConstantIndexOp::create(b, loc, 0));
  Value reversed = arith::SubIOp::create(
      b, loc, arith::SubIOp::create(b, loc, inner, one), along);
  along = arith::SelectOp::create(b, loc, odd, reversed, along);
  blockIds[rows ? 0 : 1] = along;
  blockIds[rows ? 1 : 0] = across;
}

void mlir::tile::replaceTileMemorySpaces(Operation *root,
                                         Attribute sharedSpace,
                                         Attribute localSpace) {
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](MemRefType type) -> std::optional<Type> {
    auto space = dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace());
    if (!space)
      return std::nullopt;
    Attribute target = space.getValue() == MemorySpace::Local ? localSpace
                                                              : sharedSpace;
    return MemRefType::get(type.getShape(), type.getElementType(),
                           type.getLayout(), target);
  });
  replacer.recursivelyReplaceElementsIn(root, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
}

/// The alignment in bytes the start of `buffer` is known to have: the
/// `llvm.align` attribute of the function argument it is (through casts),
/// which the JIT's specialization sets; 1 if unknown.
