//===- Threads.cpp - Work distribution over the block --------------------===//
//
// Part of TileLang-MLIR.
//
// How the loop lowering of tile ops spreads their iterations over the
// threads of the block (or of a warp-specialized side) and the barriers
// around them.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/TileLowering.h"

#include "LoweringCommon.h"
#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

//===----------------------------------------------------------------------===//
// Work distribution
//===----------------------------------------------------------------------===//


/// The distribution of an op in `mode`; `perThread` forces one thread (an op
/// that writes only its thread's local tiles).
Distribution lowering::getDistribution(OpBuilder &b, Operation *op,
                                    TileLoweringMode mode, bool perThread) {
  if (mode == TileLoweringMode::Sequential || perThread)
    return {};
  BlockThreads threads = getBlockThreads(b, op);
  return {threads.threadId, threads.numThreads};
}

/// The innermost thread range `op` lies in, below its gpu.launch.
static DenseI64ArrayAttr getThreadRange(Operation *op) {
  for (Operation *parent = op->getParentOp();
       parent && !isa<gpu::LaunchOp>(parent); parent = parent->getParentOp())
    if (auto range = parent->getAttrOfType<DenseI64ArrayAttr>(
            TileDialect::getThreadRangeAttrName()))
      return range;
  return {};
}

BlockThreads mlir::tile::getBlockThreads(OpBuilder &b, Operation *op) {
  auto launch = op->getParentOfType<gpu::LaunchOp>();
  assert(launch && "block-mode tile ops must be inside a gpu.launch");
  Location loc = op->getLoc();
  if (DenseI64ArrayAttr range = getThreadRange(op)) {
    // Warp specialization's threads are one-dimensional.
    Value tid = arith::SubIOp::create(b, loc, launch.getThreadIds().x,
                                      indexConst(b, loc, range[0]));
    return {tid, indexConst(b, loc, range[1])};
  }
  gpu::KernelDim3 tid = launch.getThreadIds();
  gpu::KernelDim3 size = launch.getBlockSizeOperandValues();
  // tid.x + size.x * (tid.y + size.y * tid.z)
  Value yz = arith::AddIOp::create(
      b, loc, tid.y, arith::MulIOp::create(b, loc, size.y, tid.z));
  Value linear = arith::AddIOp::create(
      b, loc, tid.x, arith::MulIOp::create(b, loc, size.x, yz));
  Value count = arith::MulIOp::create(
      b, loc, size.x, arith::MulIOp::create(b, loc, size.y, size.z));
  return {linear, count};
}

Value mlir::tile::getThreadIndex(OpBuilder &b, Operation *op, int64_t dim) {
  auto launch = op->getParentOfType<gpu::LaunchOp>();
  assert(launch && "thread indices exist inside a gpu.launch");
  gpu::KernelDim3 tid = launch.getThreadIds();
  return dim == 0 ? tid.x : dim == 1 ? tid.y : tid.z;
}

std::optional<int64_t> mlir::tile::getStaticBlockThreads(Operation *op) {
  auto launch = op->getParentOfType<gpu::LaunchOp>();
  if (!launch)
    return std::nullopt;
  if (DenseI64ArrayAttr range = getThreadRange(op))
    return range[1];
  int64_t threads = 1;
  for (Value size : {launch.getBlockSizeX(), launch.getBlockSizeY(),
                     launch.getBlockSizeZ()}) {
    APInt extent;
    if (!matchPattern(size, m_ConstantInt(&extent)))
      return std::nullopt;
    threads *= extent.getSExtValue();
  }
  return threads;
}

/// The coordinates of row-major position `linear` in [0, extents).
SmallVector<Value> lowering::delinearize(OpBuilder &b, Location loc,
                                      ArrayRef<int64_t> extents, Value linear) {
  SmallVector<Value> coords(extents.size());
  Value rest = linear;
  for (int64_t d = extents.size() - 1; d >= 0; --d) {
    if (d == 0) {
      coords[d] = rest;
      break;
    }
    Value extent = indexConst(b, loc, extents[d]);
    coords[d] = arith::RemUIOp::create(b, loc, rest, extent);
    rest = arith::DivUIOp::create(b, loc, rest, extent);
  }
  return coords;
}

std::optional<int64_t> mlir::tile::getThreadRegisters(Operation *op) {
  DenseI64ArrayAttr range = getThreadRange(op);
  if (!range || range.size() < 3)
    return std::nullopt;
  return range[2];
}

/// Iterates over [0, extents): a loop nest on one thread, or one loop over
/// the linearized space from `threadId` by `numThreads` when split. `body`
/// gets the coordinates.
void lowering::buildTileLoops(
    OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
    const Distribution &dist,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  if (!dist.isSplit()) {
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t extent : extents) {
      lbs.push_back(indexConst(b, loc, 0));
      ubs.push_back(indexConst(b, loc, extent));
      steps.push_back(indexConst(b, loc, 1));
    }
    scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
    return;
  }
  scf::ForOp::create(b, loc, dist.threadId,
                     indexConst(b, loc, ShapedType::getNumElements(extents)),
                     dist.numThreads, ValueRange{},
                     [&](OpBuilder &b, Location loc, Value linear, ValueRange) {
                       body(b, loc, delinearize(b, loc, extents, linear));
                       scf::YieldOp::create(b, loc);
                     });
}

/// Emits `lower` between barriers in Block mode (the op's reads see every
/// earlier write of the block, and later ops see its writes).
void lowering::withBarriers(OpBuilder &b, Location loc, TileLoweringMode mode,
                         function_ref<void()> lower) {
  if (mode == TileLoweringMode::Block)
    gpu::BarrierOp::create(b, loc);
  lower();
  if (mode == TileLoweringMode::Block)
    gpu::BarrierOp::create(b, loc);
}
