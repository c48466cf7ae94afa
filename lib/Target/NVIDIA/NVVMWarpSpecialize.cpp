//===- NVVMWarpSpecialize.cpp - Producer warpgroups on NVIDIA ------------===//
//
// Part of TileLang-MLIR.
//
// tile-nvvm-warp-specialize: a tile.kernel with a tile.producer runs one
// more warpgroup than its `threads`: that warpgroup runs the producer's
// body (it issues a pipeline's TMA copies), the kernel's own threads run
// what follows the producer (they compute). Each side is an scf.if on the
// thread id that carries its thread range, so the tile-op lowerings spread
// each side's ops over its own threads; block barriers inside a side
// become named barriers over its threads (tile-nvvm-named-barriers).
// setmaxnreg moves registers from the producer (which needs few) to the
// consumers. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Target/NVIDIA/Passes.h"

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "TileLang/Target/TargetInfo.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILENVVMWARPSPECIALIZE
#include "TileLang/Target/NVIDIA/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

/// Registers per thread of one block on an sm_90 multiprocessor.
static constexpr int64_t kRegisterFile = 65536;
/// setmaxnreg takes multiples of 8 up to 256; the consumers stay below the
/// 255 a thread can address.
static constexpr int64_t kMaxConsumerRegisters = 240;

/// Splits each kernel under `root` with a tile.producer (see Passes.td).
static LogicalResult splitProducers(Operation *root, int64_t smVersion) {
  SmallVector<ProducerOp> producers;
  root->walk([&](ProducerOp op) { producers.push_back(op); });
  for (ProducerOp producer : producers) {
    if (smVersion < 90)
      return producer.emitOpError(
          "needs NVIDIA sm_90 or newer (a warpgroup's setmaxnreg)");
    auto kernel = cast<KernelOp>(producer->getParentOp());
    int64_t consumers = kernel.getNumThreads();
    int64_t threads = ProducerOp::kThreads;
    int64_t producerRegisters = producer.getProducerRegisters();
    int64_t consumerRegisters = std::min<int64_t>(
        kMaxConsumerRegisters,
        (kRegisterFile - threads * producerRegisters) / consumers / 8 * 8);
    if (consumerRegisters < 24)
      return producer.emitOpError("leaves the kernel's ")
             << consumers << " threads fewer than 24 registers each";

    Location loc = producer.getLoc();
    OpBuilder b(producer);
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value isProducer =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, tid,
                              arith::ConstantIndexOp::create(b, loc, consumers));
    Value isConsumer = arith::XOrIOp::create(
        b, loc, isProducer, arith::ConstantIntOp::create(b, loc, 1, 1));
    // One side: setmaxnreg, then `ops` moved in, under `cond`.
    auto side = [&](Value cond, NVVM::SetMaxRegisterAction action,
                    int64_t registers, int64_t first, int64_t count,
                    ArrayRef<Operation *> ops) {
      auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
      ifOp->setAttr(TileDialect::getThreadRangeAttrName(),
                    b.getDenseI64ArrayAttr({first, count, registers}));
      Block *then = ifOp.thenBlock();
      OpBuilder inner = OpBuilder::atBlockBegin(then);
      NVVM::SetMaxRegisterOp::create(inner, loc, registers, action);
      for (Operation *op : ops)
        op->moveBefore(then->getTerminator());
    };
    SmallVector<Operation *> produce, consume;
    for (Operation &op : producer.getBody().front().without_terminator())
      produce.push_back(&op);
    // Tiles allocated after the producer (an epilogue's staging tile after
    // the loop) stay in the kernel body, which allocations belong to
    // directly: they move up before the producer (they take no operands;
    // shared-memory placement goes by their uses).
    for (Operation &op : llvm::make_early_inc_range(
             llvm::make_range(std::next(producer->getIterator()),
                              kernel.getBody().front().end()))) {
      if (op.hasTrait<::mlir::OpTrait::IsTerminator>())
        break;
      if (isa<TileAllocationOpInterface>(op))
        op.moveBefore(producer);
      else
        consume.push_back(&op);
    }
    side(isProducer, NVVM::SetMaxRegisterAction::decrease, producerRegisters,
         consumers, threads, produce);
    side(isConsumer, NVVM::SetMaxRegisterAction::increase, consumerRegisters,
         0, consumers, consume);
    kernel->setAttr(TileDialect::getProducerThreadsAttrName(),
                    b.getI64IntegerAttr(threads));
    producer.erase();
  }
  return success();
}

namespace {
struct NVVMWarpSpecializePass
    : public tile::impl::TileNVVMWarpSpecializeBase<NVVMWarpSpecializePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target = getTargetAttr(module);
    if (!target || target.getKind() != TargetKind::CUDA) {
      WalkResult refused = module.walk([&](ProducerOp producer) {
        producer.emitOpError("needs a target with warp specialization "
                             "(NVIDIA sm_90 or newer), not ")
            << describeTarget(target);
        return WalkResult::interrupt();
      });
      if (refused.wasInterrupted())
        signalPassFailure();
      return;
    }
    if (failed(splitProducers(module, target.getSmVersion())))
      signalPassFailure();
  }
};
} // namespace
