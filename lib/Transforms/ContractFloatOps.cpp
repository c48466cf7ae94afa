//===- ContractFloatOps.cpp - Allow FMA contraction in kernels -----------===//
//
// Part of TileLang-MLIR.
//
// tile-contract-float-ops: adds the `contract` fast-math flag to the
// floating-point arith operations of GPU kernels (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "TileLang/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILECONTRACTFLOATOPS
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {
struct ContractFloatOpsPass
    : public tile::impl::TileContractFloatOpsBase<ContractFloatOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](arith::ArithFastMathInterface op) {
      // Conversions are not arithmetic that fuses: with `contract`, the
      // canonicalizer folds extf(truncf(x)) to x, dropping a rounding the
      // program asked for (T.cast(T.cast(x, "float16"), "float32")).
      if (isa<arith::TruncFOp, arith::ExtFOp>(op))
        return;
      arith::FastMathFlagsAttr flags = op.getFastMathFlagsAttr();
      arith::FastMathFlags value =
          flags ? flags.getValue() : arith::FastMathFlags::none;
      if (arith::bitEnumContainsAll(value, arith::FastMathFlags::contract))
        return;
      op->setAttr(op.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(
                      op->getContext(), value | arith::FastMathFlags::contract));
    });
  }
};
} // namespace
