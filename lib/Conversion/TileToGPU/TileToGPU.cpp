//===- TileToGPU.cpp - Tile kernels to gpu.launch ------------------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/Passes.h"

#include "TileLang/Conversion/TileLowering.h"
#include "TileLang/Conversion/TileToNVGPU.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "TileLang/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

/// Alignment of every tile in dynamic shared memory: a 16-byte vector.
static constexpr int64_t kSharedAlignment = 16;

namespace {

/// tile.kernel -> gpu.launch with the kernel's body; its allocations stay
/// (they are placed once the tile ops are lowered).
/// Thread block clusters are launched on NVIDIA targets from sm_90 on (and
/// when no target is attached); AMD GPUs have none, and since the dialect
/// exposes no cluster-scoped memory or synchronization, blocks that run
/// unclustered compute the same result there.
struct KernelToLaunch : OpRewritePattern<KernelOp> {
  KernelToLaunch(MLIRContext *ctx, TargetAttr target)
      : OpRewritePattern(ctx), target(target) {}

  LogicalResult matchAndRewrite(KernelOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool launchClusters = op.getCluster().has_value();
    if (launchClusters && target && target.getKind() == TargetKind::ROCm)
      launchClusters = false;
    if (launchClusters && target && target.getKind() == TargetKind::CUDA &&
        target.getSmVersion() < 90) {
      op.emitOpError("thread block clusters need sm_90 or newer; the target "
                     "is ")
          << target.getChip();
      return failure();
    }
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    SmallVector<Value, 3> grid(op.getGrid());
    while (grid.size() < 3)
      grid.push_back(constant(1));
    SmallVector<Value, 3> block;
    for (int64_t t : op.getThreads())
      block.push_back(constant(t));
    while (block.size() < 3)
      block.push_back(constant(1));
    SmallVector<Value, 3> cluster;
    if (std::optional<ArrayRef<int64_t>> dims = op.getCluster();
        dims && launchClusters) {
      for (int64_t c : *dims)
        cluster.push_back(constant(c));
      while (cluster.size() < 3)
        cluster.push_back(constant(1));
    }

    int64_t sharedBytes = 0;
    for (Operation &inner : op.getBody().front())
      if (auto alloc = dyn_cast<TileAllocationOpInterface>(inner);
          alloc && alloc.getTileMemorySpace() != MemorySpace::Local)
        sharedBytes = llvm::alignTo(sharedBytes, kSharedAlignment) +
                      alloc.getTileSizeInBytes();
    Value dynamicShared;
    if (sharedBytes > 0)
      dynamicShared = arith::ConstantIntOp::create(rewriter, loc, sharedBytes,
                                                   /*width=*/32);

    auto launch = gpu::LaunchOp::create(
        rewriter, loc, grid[0], grid[1], grid[2], block[0], block[1],
        block[2], dynamicShared, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/{}, /*workgroupAttributions=*/{},
        /*privateAttributions=*/{},
        cluster.empty() ? Value() : cluster[0],
        cluster.empty() ? Value() : cluster[1],
        cluster.empty() ? Value() : cluster[2]);
    Block &body = launch.getBody().front();
    // The builder gives the body the twelve block/thread id and size
    // arguments only; a launch with clusters also carries the six cluster id
    // and size arguments right after them, as the parser creates them.
    for (unsigned i = body.getNumArguments(),
                  e = launch.getNumConfigRegionAttributes();
         i < e; ++i)
      body.insertArgument(i, rewriter.getIndexType(), loc);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToEnd(&body);
      gpu::TerminatorOp::create(rewriter, loc);
    }
    gpu::KernelDim3 ids = launch.getBlockIds();
    SmallVector<Value> blockIds = {ids.x, ids.y, ids.z};
    blockIds.resize(op.getGrid().size());
    inlineTileBody(rewriter, op.getBody(), &body, blockIds);
    rewriter.eraseOp(op);
    return success();
  }

private:
  TargetAttr target;
};

/// Places the (now workgroup or private) allocations of every gpu.launch:
/// views of dynamic shared memory, or per-thread allocas.
static void placeAllocations(ModuleOp module) {
  SmallVector<gpu::LaunchOp> launches;
  module.walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
  for (gpu::LaunchOp launch : launches) {
    Block &body = launch.getBody().front();
    OpBuilder builder(launch.getContext());
    Location loc = launch.getLoc();
    Value dynamicShared;
    int64_t offset = 0;
    for (Operation &inner : llvm::make_early_inc_range(body)) {
      auto alloc = dyn_cast<TileAllocationOpInterface>(inner);
      if (!alloc)
        continue;
      MemRefType type = alloc.getTile().getType();
      // In place of the allocation, which dominates every use of the tile.
      builder.setInsertionPoint(alloc);
      Value replacement;
      if (!type.getMemorySpace()) {
        replacement = memref::AllocaOp::create(builder, alloc.getLoc(), type);
      } else {
        if (!dynamicShared) {
          auto bytes = MemRefType::get({ShapedType::kDynamic},
                                       builder.getI8Type(), AffineMap(),
                                       type.getMemorySpace());
          dynamicShared =
              gpu::DynamicSharedMemoryOp::create(builder, loc, bytes);
        }
        offset = llvm::alignTo(offset, kSharedAlignment);
        Value shift = arith::ConstantIndexOp::create(builder, loc, offset);
        replacement = memref::ViewOp::create(builder, alloc.getLoc(), type,
                                             dynamicShared, shift,
                                             ValueRange{});
        offset += alloc.getTileSizeInBytes();
      }
      alloc.getTile().replaceAllUsesWith(replacement);
      inner.erase();
    }
  }
}

struct ConvertTileToGPUPass
    : public tile::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    // 1. Kernels and tile ops, with the tiles still in tile memory spaces
    //    (the lowering tells global from on-chip buffers by them).
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    target.addLegalOp<AllocSharedOp, AllocFragmentOp, AllocLocalOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    auto targetAttr =
        module->getAttrOfType<TargetAttr>(TileDialect::getTargetAttrName());
    RewritePatternSet patterns(ctx);
    patterns.add<KernelToLaunch>(ctx, targetAttr);
    populateTileOpLoweringPatterns(patterns, TileLoweringMode::Block);
    // Target-specific lowerings win over the generic ones where they apply.
    if (targetAttr && targetAttr.getKind() == TargetKind::CUDA)
      populateTileToNVGPUPatterns(patterns, targetAttr.getSmVersion());
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // 2. Shared and fragment tiles live in workgroup memory, local tiles in
    //    each thread's private memory; then the allocations are placed.
    replaceTileMemorySpaces(
        module, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup),
        /*localSpace=*/nullptr);
    placeAllocations(module);
  }
};

} // namespace
