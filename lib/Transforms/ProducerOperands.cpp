//===- ProducerOperands.cpp - Values a producer warpgroup recomputes ------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "ProducerOperands.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tile;

bool mlir::tile::isPersistentTiles(Operation *op) {
  if (!op || !op->hasAttr(TileDialect::getPersistentTilesAttrName()))
    return false;
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return loop.getInitArgs().empty();
  auto loop = dyn_cast<scf::WhileOp>(op);
  return loop && loop.getInits().size() == 2 &&
         loop.getAfterArguments().size() == 2;
}

Block *mlir::tile::getTilesBody(Operation *tiles) {
  if (auto loop = dyn_cast<scf::ForOp>(tiles))
    return loop.getBody();
  return cast<scf::WhileOp>(tiles).getAfterBody();
}

SmallVector<Value> mlir::tile::getTileArguments(Operation *tiles) {
  if (auto loop = dyn_cast<scf::ForOp>(tiles))
    return {loop.getInductionVar()};
  auto loop = cast<scf::WhileOp>(tiles);
  return {loop.getAfterArguments()[0], loop.getAfterArguments()[1]};
}

Value mlir::tile::getTileIteration(OpBuilder &b, Location loc,
                                   Operation *tiles) {
  if (auto loop = dyn_cast<scf::WhileOp>(tiles))
    return loop.getAfterArguments()[1];
  auto loop = cast<scf::ForOp>(tiles);
  return arith::DivUIOp::create(b, loc,
                                arith::SubIOp::create(b, loc,
                                                      loop.getInductionVar(),
                                                      loop.getLowerBound()),
                                loop.getStep());
}

FailureOr<std::pair<Operation *, Value>> mlir::tile::addTilesCarried(
    Operation *tiles, Value init,
    function_ref<Value(OpBuilder &, Location, Value)> next) {
  Location loc = tiles->getLoc();
  IRRewriter rewriter(tiles->getContext());
  rewriter.setInsertionPoint(tiles);
  if (auto loop = dyn_cast<scf::ForOp>(tiles)) {
    FailureOr<LoopLikeOpInterface> counted = loop.replaceWithAdditionalYields(
        rewriter, ValueRange{init}, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &b, Location, ArrayRef<BlockArgument> args)
            -> SmallVector<Value> { return {next(b, loc, args[0])}; });
    if (failed(counted))
      return failure();
    auto grown = cast<scf::ForOp>(counted->getOperation());
    return std::make_pair(grown.getOperation(),
                          Value(grown.getRegionIterArgs().back()));
  }
  // scf.while: a new loop with one more value through both regions.
  auto loop = cast<scf::WhileOp>(tiles);
  SmallVector<Value> inits(loop.getInits());
  inits.push_back(init);
  SmallVector<Type> types(loop.getResultTypes());
  types.push_back(init.getType());
  auto grown = scf::WhileOp::create(rewriter, loc, types, inits);
  grown->setAttrs(loop->getAttrs());
  rewriter.inlineRegionBefore(loop.getBefore(), grown.getBefore(),
                              grown.getBefore().end());
  rewriter.inlineRegionBefore(loop.getAfter(), grown.getAfter(),
                              grown.getAfter().end());
  Value before = grown.getBeforeBody()->addArgument(init.getType(), loc);
  Value after = grown.getAfterBody()->addArgument(init.getType(), loc);
  scf::ConditionOp condition = grown.getConditionOp();
  condition.getArgsMutable().append(before);
  scf::YieldOp yield = grown.getYieldOp();
  rewriter.setInsertionPoint(yield);
  Value nextValue = next(rewriter, loc, after);
  yield.getResultsMutable().append(nextValue);
  rewriter.replaceOp(loop, grown.getResults().drop_back());
  return std::make_pair(grown.getOperation(), after);
}

Operation *mlir::tile::getProducerTiles(ProducerOp producer) {
  for (Operation &op : producer.getBody().front())
    if (op.hasAttr(TileDialect::getPersistentTilesAttrName()))
      return &op;
  return nullptr;
}

LogicalResult mlir::tile::recomputeProducerOperands(ProducerOp producer,
                                                    Operation *tiles) {
  Operation *producerTiles = tiles ? getProducerTiles(producer) : nullptr;
  if (tiles && !producerTiles)
    return failure();
  Block *body = tiles ? getTilesBody(tiles) : nullptr;
  SmallVector<Value> arguments =
      tiles ? getTileArguments(tiles) : SmallVector<Value>();
  llvm::SetVector<Operation *> outside, perTile;
  SmallVector<Value> worklist;
  producer.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      worklist.push_back(operand);
  });
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    Operation *def = value.getDefiningOp();
    if (tiles && !def && value.getParentBlock() == body &&
        !llvm::is_contained(arguments, value))
      return failure();
    if (!def || producer->isAncestor(def))
      continue;
    bool inTile = tiles && def->getBlock() == body;
    if (!inTile && (def->getBlock() != producer->getBlock() ||
                    def->isBeforeInBlock(producer)))
      continue;
    if (outside.contains(def) || perTile.contains(def))
      continue;
    // Free of memory effects is enough (divisions are not speculatable,
    // but each clone runs wherever its original runs unconditionally).
    if (!isMemoryEffectFree(def) || def->getNumRegions())
      return failure();
    (inTile ? perTile : outside).insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
  auto inOrder = [](const llvm::SetVector<Operation *> &defs) {
    SmallVector<Operation *> ordered(defs.begin(), defs.end());
    llvm::sort(ordered, [](Operation *x, Operation *y) {
      return x->isBeforeInBlock(y);
    });
    return ordered;
  };
  IRMapping mapping;
  OpBuilder b = OpBuilder::atBlockBegin(&producer.getBody().front());
  for (Operation *def : inOrder(outside))
    b.clone(*def, mapping);
  if (tiles) {
    for (auto [consumer, produced] :
         llvm::zip(arguments, getTileArguments(producerTiles)))
      mapping.map(consumer, produced);
    b.setInsertionPointToStart(getTilesBody(producerTiles));
    for (Operation *def : inOrder(perTile))
      b.clone(*def, mapping);
  }
  producer.walk([&](Operation *op) {
    for (OpOperand &use : op->getOpOperands())
      if (Value inner = mapping.lookupOrNull(use.get()))
        use.set(inner);
  });
  return success();
}
