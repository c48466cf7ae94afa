//===- Passes.td - NVIDIA target passes ----------------*- tablegen -*-===//
//
// Part of TileLang-MLIR.
//
// NVIDIA's passes: over tile kernels right before convert-tile-to-gpu
// (warp specialization, tensor maps, deferred TMA store waits), over the
// launches right after it (named
// barriers), and over NVVM GPU modules: vendor code, registered by
// registerNVIDIATargetPasses (and mlir::tile::registerAllPasses).
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TARGET_NVIDIA_PASSES_TD
#define TILELANG_TARGET_NVIDIA_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileNVVMLaunchRegisters
    : Pass<"tile-nvvm-launch-registers", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Launch warp-specialized kernels with no more registers "
                "than their consumers' setmaxnreg raises to";
  let description = [{
    `setmaxnreg.inc` may only raise a warp's registers: a warp that holds
    more at launch than the count it asks for is undefined behaviour. A
    384-thread block launches with at most 168 registers a thread, below
    the 240 a consumer asks for, but a 256-thread block (one consumer
    warpgroup and the producer) may launch with 255. Each kernel of an NVVM
    GPU module whose body raises registers (`nvvm.setmaxregister
    increase N`), whose block size is known (`known_block_size`) and could
    launch with more than N registers a thread (65536 / threads, in units
    of 8, above N: blocks of 256 threads or fewer) gets `nvvm.maxnreg` =
    the smallest such N, the PTX directive `.maxnreg`, within which ptxas
    allocates the whole kernel. Larger blocks are left alone: ptxas keeps
    them within their launch budget from the block size already (and
    .maxnreg would take precedence over it: 240 for a 384-thread block
    would not launch). A kernel that sets `nvvm.maxnreg` itself keeps it
    when it is lower; modules without an NVVM target are left alone.
    `tile-to-nvvm` runs it.

    ```
    tile-opt --pass-pipeline='builtin.module(gpu.module(tile-nvvm-launch-registers))'
    ```
  }];
}

def TileNVVMMinBlocks
    : Pass<"tile-nvvm-min-blocks", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Ask ptxas for registers that let several blocks of each "
                "kernel share a multiprocessor";
  let description = [{
    CUDA's `__launch_bounds__(threads, minBlocks)`: gives every kernel of an
    NVVM GPU module `nvvm.minctasm` = `blocks`, which becomes the PTX
    directive `.minnctapersm`: ptxas then keeps each thread's registers
    within 65536 / (blocks x threads per block) (rounded down to its
    allocation unit), spilling if it must, so that `blocks` blocks fit in
    one multiprocessor's register file (shared memory and threads
    permitting). A 128-thread wgmma GEMM of 128 x 128 tiles takes 202
    registers by itself (two blocks per multiprocessor), 168 with
    `blocks` = 3. Kernels that set their own bound keep it; warp-specialized
    kernels (`nvvm.setmaxregister` in their body) are left alone: their
    register split assumes one block per multiprocessor, and a consumer's
    `setmaxnreg.inc` would wait for registers another block holds. Modules
    without an NVVM target are left alone. `tile-to-nvvm` runs it with
    `min-blocks-per-sm` > 0.

    ```
    tile-opt --pass-pipeline='builtin.module(gpu.module(tile-nvvm-min-blocks{blocks=3}))'
    ```
  }];
  let options = [
    Option<"blocks", "blocks", "int64_t", /*default=*/"1",
           "Blocks each kernel should be able to run per multiprocessor">
  ];
}


def TileNVVMProgrammaticLaunch
    : Pass<"tile-nvvm-programmatic-launch", "::mlir::ModuleOp"> {
  let summary = "Launch kernels that wait on their grid dependencies with "
                "programmatic stream serialization";
  let description = [{
    Programmatic dependent launch (sm_90 and newer): a kernel launched with
    `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION` may start while
    the kernel before it on the stream still runs, once every block of that
    kernel has executed `griddepcontrol.launch_dependents` (TileLang's
    `T.pdl_trigger()`) or exited; its own `griddepcontrol.wait`
    (`T.pdl_sync()`) then blocks until the earlier kernel has completed and
    its memory operations are visible. What comes before the wait (the
    launch, block scheduling, the prologue's index arithmetic, loads of
    buffers the earlier kernel does not write) overlaps the earlier
    kernel's tail. A kernel without the wait must not launch so: it could
    read what the earlier kernel has not written yet.

    Before each `gpu.launch_func` whose kernel, in a GPU module with an
    NVVM target, executes `nvvm.griddepcontrol wait`, inserts a call of the
    runtime's `tileProgrammaticLaunch()`, which makes that thread's next
    launch (`mgpuLaunchKernel` or `mgpuLaunchClusterKernel`, the calls
    gpu-to-llvm makes of the launch) carry the attribute. Other launches,
    and kernels of other targets, are left alone. `tile-to-nvvm` runs it.

    ```
    tile-opt --tile-nvvm-programmatic-launch
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}


def TileNVVMFlushDenormals
    : Pass<"tile-nvvm-ftz", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Let libdevice's math functions flush f32 denormals to zero "
                "in an NVVM GPU module";
  let description = [{
    Gives the GPU module the LLVM module flag `nvvm-reflect-ftz` = 1, which
    libdevice's functions query (`__nvvm_reflect("__CUDA_FTZ")`) when the
    device binary is built: `exp2f` becomes one `ex2.approx.ftz.f32`
    instead of `ex2.approx.f32`, which ptxas expands with a denormal
    fix-up (a compare and two predicated multiplies around each MUFU.EX2;
    a softmax of a 128-column tile spends 190 of its ~790 instructions per
    iteration on them), and likewise `expf`, `logf`, `rsqrtf`, `sinf`, ...
    take their flush-to-zero forms. Results that would be f32 denormals
    (below 2^-126) become zero; arithmetic outside libdevice is unchanged.
    This is nvcc's `-ftz=true` (implied by `--use_fast_math`, TileLang's
    default) and Triton's default. A module that already sets the flag
    keeps its value; modules without an NVVM target are left alone.
    `tile-to-nvvm` runs it unless `ftz=false`.

    ```
    tile-opt --pass-pipeline='builtin.module(gpu.module(tile-nvvm-ftz))'
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}


def TileNVVMConvertF8
    : Pass<"tile-nvvm-convert-f8", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Convert to 8-bit floats with PTX's cvt.rn.satfinite in an "
                "NVVM GPU module for sm_89 and newer";
  let description = [{
    Rewrites `arith.truncf` to `f8E4M3FN` or `f8E5M2` (scalars and
    vectors) from f32, and from f16 or bf16 through an exact `arith.extf`
    to f32, into `nvvm.convert.f32x2.to.f8x2` with round-to-nearest-even
    and `satfinite`: one `cvt.rn.satfinite.e4m3x2.f32` per two elements
    instead of `tile-expand-f8`'s ~40 integer operations per element. The
    results are those of `tile-expand-f8` (TileLang's `T.cast`, CUDA's
    `__nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...)`): nearest, ties to
    even, magnitudes past the largest finite value and infinities give it
    with their sign, NaN gives 0x7F. A scalar converts its value twice
    (the instruction takes a pair) and keeps the low byte; vectors convert
    pairs of elements. Modules without an NVVM target, or whose chip is
    older than sm_89 (no such instruction), are left to `tile-expand-f8`;
    conversions from f64 too (a detour through f32 would round twice).
    `tile-to-nvvm` runs it before `tile-expand-f8`.

    ```
    tile-opt --pass-pipeline='builtin.module(gpu.module(tile-nvvm-convert-f8))'
    ```
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}


def TileNVVMExternDynamicShared
    : Pass<"tile-nvvm-extern-dynamic-shared", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare an NVVM GPU module's dynamic shared memory as "
                "external, of unknown size";
  let description = [{
    The GPU-to-NVVM conversion defines the kernels' dynamic shared memory
    as an internal global of zero bytes (`llvm.mlir.global internal
    @__dynamic_shmem__0() {addr_space = 3} : !llvm.array<0 x i8>`) and
    addresses it through `inbounds` GEPs. To LLVM an object of zero bytes
    has no element an in-bounds access may reach: its alias analysis may
    then assume that a store and a later load of the same shared element
    do not overlap, and forward the value the load had before the store (a
    thread's in-place scan down a column of a shared tile read its old
    elements). This pass makes each such global an external declaration,
    as CUDA's `extern __shared__ char smem[];` is: its size is unknown, and
    NVPTX emits `.extern .shared .align 16 .b8 __dynamic_shmem__0[];`.
    Modules without an NVVM target are left alone. `tile-to-nvvm` runs it
    after the conversion of the GPU ops to NVVM.

    ```
    tile-opt --pass-pipeline='builtin.module(gpu.module(tile-nvvm-extern-dynamic-shared))'
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileNVVMWarpSpecialize
    : Pass<"tile-nvvm-warp-specialize", "::mlir::ModuleOp"> {
  let summary = "Split each kernel with a tile.producer into a producer "
                "warpgroup and its consumers";
  let description = [{
    In each `tile.kernel` of `T` threads with a `tile.producer`, the
    producer's body becomes the work of one more warpgroup (threads `T` ..
    `T + 127`; the kernel gets `tile.producer_threads = 128` and launches
    `T + 128`) and the ops after the producer the work of threads 0 ..
    `T - 1`: each side is an `scf.if` on `gpu.thread_id x` carrying its
    `tile.thread_range = [first, count, registers]`, so convert-tile-to-gpu
    spreads each side's tile ops over its own threads (numbered from 0) and
    `tile-nvvm-named-barriers` gives each side's barriers its own hardware
    barrier. Each side starts with `nvvm.setmaxregister`: the producer
    keeps its `producer_registers` (default 24), the consumers take what is
    left of the 64K-register file, in multiples of 8 and at most 240;
    fewer than 24 for them is an error. Tiles allocated after the producer
    move up before it (allocations stay directly in the kernel body).

    Needs an NVIDIA target of sm_90 or newer (setmaxnreg); any other
    target is a located error. `tile-to-nvvm` runs it right before
    `tile-select-register-fragments` and convert-tile-to-gpu, which refuses
    a `tile.producer` left unsplit.

    ```
    tile-opt --tile-nvvm-warp-specialize --tile-select-register-fragments \
             --convert-tile-to-gpu --tile-nvvm-named-barriers
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileNVVMTensorMaps : Pass<"tile-nvvm-tensor-maps", "::mlir::ModuleOp"> {
  let summary = "Create on the host the tensor maps of the copies on TMA";
  let description = [{
    Gives every `tile.copy` whose engine is `tma` and that TMA can move in
    its final layout its `tensor_map`: right before its `tile.kernel`, one
    call of the runtime's `tileTensorMapEncode` per distinct global buffer,
    row dimension, box and swizzle of the kernel (the buffer's start,
    element type, rank, sizes and strides from its strided metadata; the box
    is the tile along its two dimensions, 1 along the indexed-away ones; the
    swizzle is the shared tile's). The map is a device pointer, null at run
    time when the buffer does not allow TMA (start or row strides not
    multiples of 16 bytes, a strided innermost dimension), and the copy
    then moves as the block's copy. A copy TMA cannot move in its layout
    (boxes over 256 elements, a swizzle whose span is not the row, a rank
    outside 2 to 5, a buffer that is not a kernel argument) gets none and
    is not moved by TMA. As in the conversion, a copy without an `engine`
    first gets tile-select-instructions' default choice, and a swizzle the
    tile's uses cannot apply is dropped.

    Only for NVIDIA targets of sm_90 or newer; other modules are left
    alone. `tile-to-nvvm` runs it after `tile-nvvm-warp-specialize`, before
    convert-tile-to-gpu, which lowers a `tma` copy with its map as TMA.

    ```
    tile-opt --tile-nvvm-tensor-maps --convert-tile-to-gpu
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def TileNVVMDeferTmaStoreWaits
    : Pass<"tile-nvvm-defer-tma-store-waits", "::mlir::ModuleOp"> {
  let summary = "Let a TMA store in a loop read its tile while the next "
                "iteration computes";
  let description = [{
    A TMA store (a synchronous `tile.copy` of a whole shared tile into
    global memory, with a `tensor_map`) directly in the body of an
    `scf.for` or `scf.while` (a persistent kernel's loop over its tiles)
    waits, once lowered, until TMA has read the tile, so that the next
    iteration may overwrite it. When every other use of the tile in the
    body comes before the store, the kernel does not read the destination,
    and the store is not the kernel's last memory access, that wait moves
    to where it is needed: `cp.async.bulk.wait_group.read 0` and a block
    barrier go before the tile's first use in the body (the next tile's
    epilogue), one more wait after the loop, and the copy is marked
    `tile.deferred_store_wait` so that its lowering issues no wait and no
    barrier of its own. Only the thread that issued the store has bulk
    groups to wait for; the others pass the wait at once and meet it at
    the barrier.

    Only for NVIDIA targets of sm_90 or newer; other modules are left
    alone. `tile-to-nvvm` runs it right after `tile-nvvm-tensor-maps`.

    ```
    tile-opt --tile-nvvm-tensor-maps --tile-nvvm-defer-tma-store-waits \
             --convert-tile-to-gpu
    ```
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::NVVM::NVVMDialect"
  ];
}

def TileNVVMArrivedOperands
    : Pass<"tile-nvvm-arrived-operands", "::mlir::ModuleOp"> {
  let summary = "Mark the gemms whose operands only TMA arrivals write, "
                "which need no block barrier around them";
  let description = [{
    A synchronous `tile.gemm` outside a `tile.pipelined` loop or
    `tile.take_turns`, with `wg_wait = 0`, whose C (and A, unless A is a
    shared tile) is a fragment marked `tile.in_registers`, and whose shared
    operands only `tile.copy` ops that arrive on barriers write, gets
    `tile.arrived_operands`: every thread waits for those barriers before
    reading, and a refill follows a block barrier or the consumers'
    release, so the lowering puts no block barrier before or after the
    gemm. Needs the register decision: `tile-to-nvvm` runs it right after
    `tile-select-register-fragments`. Only for NVIDIA targets of sm_90 or
    newer; other modules are left alone.

    ```
    tile-opt --tile-select-register-fragments --tile-nvvm-arrived-operands \
             --convert-tile-to-gpu
    ```
  }];
}

def TileNVVMNamedBarriers
    : Pass<"tile-nvvm-named-barriers", "::mlir::ModuleOp"> {
  let summary = "Turn the block barriers inside one side of a "
                "warp-specialized kernel into that side's named barrier";
  let description = [{
    A warp-specialized kernel (`tile.producer`, lowered by
    convert-tile-to-gpu on sm_90) runs its producer and its consumers in
    two thread ranges: `scf.if`s marked `tile.thread_range = [first,
    count]` in a `gpu.launch`. A `gpu.barrier` inside a range synchronizes
    that range's threads only (the lowering and the placement of shared
    tiles put them there); this pass gives each one the range's own
    hardware barrier, `nvvm.barrier id, count`: id 1 for the range that
    starts at thread 0, 2 for the other (0 is the whole block's), count the
    range's threads. Barriers outside thread ranges stay block barriers.
    Runs on `gpu.launch` bodies, before outlining; `tile-to-nvvm` runs it
    after convert-tile-to-gpu and tile-drop-redundant-barriers.

    ```
    tile-opt --convert-tile-to-gpu --tile-drop-redundant-barriers --tile-nvvm-named-barriers
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::NVVM::NVVMDialect"
  ];
}

#endif // TILELANG_TARGET_NVIDIA_PASSES_TD
