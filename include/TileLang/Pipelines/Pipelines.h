//===- Pipelines.h - Named end-to-end pipelines -----------------*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PIPELINES_PIPELINES_H
#define TILELANG_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;

namespace tile {

/// Options of `tile-to-cpu`.
struct TileToCPUOptions : public PassPipelineOptions<TileToCPUOptions> {
  PassOptions::Option<bool> emitCInterface{
      *this, "emit-c-interface",
      llvm::cl::desc("Give every public function a C-compatible wrapper "
                     "(_mlir_ciface_<name>) taking memref descriptors by "
                     "pointer, as the JIT driver calls them"),
      llvm::cl::init(false)};
};

/// tile IR -> LLVM dialect for the host CPU: the sequential reference
/// (convert-tile-to-scf), then the upstream conversions to LLVM.
void buildTileToCPUPipeline(OpPassManager &pm, const TileToCPUOptions &options);

/// Registers `tile-to-cpu` (and the later named pipelines) with the global
/// pass registry.
void registerTilePipelines();

} // namespace tile
} // namespace mlir

#endif // TILELANG_PIPELINES_PIPELINES_H
