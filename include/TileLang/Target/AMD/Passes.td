//===- Passes.td - AMD target passes ----------------*- tablegen -*-===//
//
// Part of TileLang-MLIR.
//
// Passes over ROCDL GPU modules, after the tile dialect is lowered:
// vendor code, registered by registerAMDTargetPasses (and
// mlir::tile::registerAllPasses).
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TARGET_AMD_PASSES_TD
#define TILELANG_TARGET_AMD_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileROCDLSchedStrategy
    : Pass<"tile-rocdl-sched-strategy", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Choose the AMDGPU backend's instruction scheduler for the "
                "kernels of a GPU module";
  let description = [{
    Gives every ROCDL kernel (`llvm.func` with `rocdl.kernel`) of the GPU
    module the LLVM function attribute `"amdgpu-sched-strategy"` (as a
    `passthrough` entry), which picks the AMDGPU backend's machine
    scheduler for it:

    ```
    tile-opt --pass-pipeline='builtin.module(gpu.module(tile-rocdl-sched-strategy{strategy=iterative-minreg}))'
    ```

    With `matrix-kernels-only`, only kernels that use matrix cores
    (`rocdl.wmma.*`, `rocdl.mfma.*`) get it. `tile-to-rocdl` runs it that
    way on wave32 chips (gfx11) with `iterative-minreg`: a wave32 lane holds
    twice a wave64 lane's share of a block's accumulators (128 registers for
    the example GEMM's 128x128 C over four waves), and the default
    scheduler, which hoists every matrix operand load of a k tile ahead of
    the first WMMA, then spills (256 VGPRs spilled there; none with this
    scheduler), while kernels without matrix cores keep the default, which
    issues their loads back to back. A kernel that already names a
    strategy keeps it.
  }];
  let options = [
    Option<"strategy", "strategy", "std::string",
           /*default=*/"\"iterative-minreg\"",
           "The scheduler: max-occupancy (LLVM's default), max-ilp, "
           "max-memory-clause, iterative-ilp, iterative-minreg, "
           "iterative-maxocc">,
    Option<"matrixKernelsOnly", "matrix-kernels-only", "bool",
           /*default=*/"false",
           "Only kernels that use matrix-core instructions">
  ];
}


def TileROCDLExternDynamicShared
    : Pass<"tile-rocdl-extern-dynamic-shared", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare a ROCDL GPU module's dynamic shared memory (LDS) as "
                "external, of unknown size";
  let description = [{
    The GPU-to-ROCDL conversion, like the NVVM one, defines the kernels'
    dynamic shared memory as an internal global of zero bytes in address
    space 3 addressed through `inbounds` GEPs, which lets LLVM's alias
    analysis assume that a store and a later load of the same LDS element
    by one thread do not overlap (on NVIDIA an in-place column scan read
    stale elements: tile-nvvm-extern-dynamic-shared). This pass makes each
    such global an external declaration, as HIP's
    `extern __shared__ char smem[];` is, which the AMDGPU backend's LDS
    lowering allocates as the kernel's dynamic LDS. Modules without a
    ROCDL target are left alone. `tile-to-rocdl` runs it after the
    conversion of the GPU ops to ROCDL.

    ```
    tile-opt --pass-pipeline='builtin.module(gpu.module(tile-rocdl-extern-dynamic-shared))'
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}


#endif // TILELANG_TARGET_AMD_PASSES_TD
