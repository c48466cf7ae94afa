//===- SharedMemoryReuseTest.cpp - convert-tile-to-gpu's byte sharing ----===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//
//
// Checks the placement of convert-tile-to-gpu{reuse-shared-memory} on every
// example from the IR it produces, independently of how the pass computes
// it: two views of dynamic shared memory whose bytes overlap are touched by
// disjoint runs of the launch body's top-level ops, with a gpu.barrier
// between them, and the launch asks for enough bytes.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/Passes.h"
#include "TileLang/Registration/Registration.h"
#include "TileLang/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct View {
  int64_t begin, end;        // Bytes.
  int64_t first = -1, last = -1; // Top-level ops that touch it.
};

class SharedMemoryReuseTest : public ::testing::TestWithParam<const char *> {};

TEST_P(SharedMemoryReuseTest, OverlappingTilesAreSeparatedInTime) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  std::string path = std::string(TILE_SOURCE_DIR) + "/examples/" + GetParam();
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(path, &ctx);
  ASSERT_TRUE(module) << path;

  PassManager pm(&ctx);
  TileAttachTargetOptions target;
  target.kind = "cuda";
  target.chip = "sm_90a";
  pm.addPass(createTileAttachTarget(target));
  pm.addPass(createConvertTileToGPU());
  TilePlaceSharedMemoryOptions place;
  place.reuseSharedMemory = true;
  pm.addPass(createTilePlaceSharedMemory(place));
  ASSERT_TRUE(succeeded(pm.run(*module)));

  int launches = 0;
  module->walk([&](gpu::LaunchOp launch) {
    ++launches;
    Block &body = launch.getBody().front();
    // Every view of dynamic shared memory and the memrefs derived from it.
    llvm::DenseMap<Value, unsigned> owner;
    SmallVector<View> views;
    body.walk([&](Operation *op) {
      if (auto view = dyn_cast<memref::ViewOp>(op);
          view && view.getSource().getDefiningOp<gpu::DynamicSharedMemoryOp>()) {
        std::optional<int64_t> shift =
            getConstantIntValue(view.getByteShift());
        ASSERT_TRUE(shift.has_value());
        MemRefType type = view.getType();
        int64_t bytes =
            type.getNumElements() * type.getElementTypeBitWidth() / 8;
        owner[view.getResult()] = views.size();
        views.push_back({*shift, *shift + bytes});
        return;
      }
      for (Value operand : op->getOperands())
        if (auto it = owner.find(operand); it != owner.end())
          for (Value result : op->getResults())
            if (isa<BaseMemRefType>(result.getType()))
              owner[result] = it->second;
    });
    // Which top-level ops touch which view.
    SmallVector<int64_t> barriers;
    for (auto [position, top] : llvm::enumerate(body)) {
      int64_t index = position; // A lambda below captures it.
      if (isa<gpu::BarrierOp>(top))
        barriers.push_back(index);
      top.walk([&](Operation *op) {
        if (isa<memref::ViewOp>(op))
          return;
        for (Value operand : op->getOperands())
          if (auto it = owner.find(operand); it != owner.end()) {
            View &v = views[it->second];
            if (v.first < 0)
              v.first = index;
            v.last = index;
          }
      });
    }
    int64_t needed = 0;
    for (const View &v : views)
      needed = std::max(needed, v.end);
    std::optional<int64_t> asked =
        getConstantIntValue(launch.getDynamicSharedMemorySize());
    ASSERT_TRUE(asked.has_value());
    EXPECT_GE(*asked, needed);

    for (auto [i, a] : llvm::enumerate(views))
      for (auto [j, b] : llvm::enumerate(views)) {
        if (i >= j || a.end <= b.begin || b.end <= a.begin || a.first < 0 ||
            b.first < 0)
          continue;
        const View &early = a.first <= b.first ? a : b;
        const View &late = a.first <= b.first ? b : a;
        EXPECT_LT(early.last, late.first)
            << GetParam() << ": views " << i << " and " << j
            << " share bytes while both alive";
        EXPECT_TRUE(llvm::any_of(barriers, [&](int64_t at) {
          return early.last < at && at < late.first;
        })) << GetParam() << ": no barrier between views " << i << " and "
            << j;
      }
  });
  EXPECT_GT(launches, 0);
}

INSTANTIATE_TEST_SUITE_P(Examples, SharedMemoryReuseTest,
                         ::testing::Values("cumsum.mlir", "dequant_gemm.mlir",
                                           "flash_attention.mlir",
                                           "gemm_relu.mlir", "row_reduce.mlir",
                                           "softmax.mlir"));

} // namespace
