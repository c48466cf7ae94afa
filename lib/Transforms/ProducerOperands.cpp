//===- ProducerOperands.cpp - Values a producer warpgroup recomputes ------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "ProducerOperands.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tile;

scf::ForOp mlir::tile::getProducerTiles(ProducerOp producer) {
  for (auto loop : producer.getBody().front().getOps<scf::ForOp>())
    if (loop->hasAttr(TileDialect::getPersistentTilesAttrName()))
      return loop;
  return {};
}

LogicalResult mlir::tile::recomputeProducerOperands(ProducerOp producer,
                                                    scf::ForOp tiles) {
  scf::ForOp producerTiles = tiles ? getProducerTiles(producer) : scf::ForOp();
  if (tiles && !producerTiles)
    return failure();
  llvm::SetVector<Operation *> outside, perTile;
  SmallVector<Value> worklist;
  producer.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      worklist.push_back(operand);
  });
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    Operation *def = value.getDefiningOp();
    if (tiles && !def && value.getParentBlock() == tiles.getBody() &&
        value != tiles.getInductionVar())
      return failure();
    if (!def || producer->isAncestor(def))
      continue;
    bool inTile = tiles && def->getBlock() == tiles.getBody();
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
    mapping.map(tiles.getInductionVar(), producerTiles.getInductionVar());
    b.setInsertionPointToStart(producerTiles.getBody());
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
