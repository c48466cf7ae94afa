//===- EmitCInterface.cpp - C wrappers for the public functions -----------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Transforms/Passes.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_TILEEMITCINTERFACE
#include "TileLang/Transforms/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;

namespace {
struct EmitCInterfacePass
    : public tile::impl::TileEmitCInterfaceBase<EmitCInterfacePass> {
  void runOnOperation() override {
    StringRef align = LLVM::LLVMDialect::getAlignAttrName();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isDeclaration())
        continue;
      func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(&getContext()));
      // The wrapper would keep `llvm.align` on the pointer to the memref
      // descriptor (see the pass's description).
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        if (isa<BaseMemRefType>(func.getArgument(i).getType()))
          func.removeArgAttr(i, align);
    }
  }
};
} // namespace
