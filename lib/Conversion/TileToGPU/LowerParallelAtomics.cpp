//===- LowerParallelAtomics.cpp - Element atomics of parallel bodies ----===//
//
// Part of TileLang-MLIR.
//
// tile-lower-parallel-atomics: a tile.atomic_add of one element inside a
// tile.parallel body becomes each thread's own bounds-checked atomic add,
// before convert-tile-to-gpu spreads the body over the threads (see
// Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/Passes.h"

#include "TileLang/Conversion/TileLowering.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILELOWERPARALLELATOMICS
#include "TileLang/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {
struct LowerParallelAtomicsPass
    : public tile::impl::TileLowerParallelAtomicsBase<
          LowerParallelAtomicsPass> {
  using Base::Base;

  void runOnOperation() override {
    lowerParallelElementAtomics(getOperation(), TileLoweringMode::Block);
  }
};
} // namespace
