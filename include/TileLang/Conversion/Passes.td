//===- Passes.td - Conversions out of the tile dialect -----*- tablegen -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_CONVERSION_PASSES_TD
#define TILELANG_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToSCF : Pass<"convert-tile-to-scf", "::mlir::ModuleOp"> {
  let summary = "Lower tile kernels to sequential loops (the CPU reference)";
  let description = [{
    Gives every tile op its sequential meaning with `scf`, `memref` and
    `arith` ops, so that kernels run on the CPU through the LLVM dialect and
    serve as the oracle for the GPU backends:

    * `tile.kernel` becomes a loop nest over the grid (`bz`, `by`, `bx` from
      outermost to innermost); its on-chip tiles become `memref.alloc`s made
      once before the loops and freed after them (a block's tiles start
      uninitialized, so blocks may share them when they run one after the
      other).
    * `tile.parallel` and `tile.pipelined` become `scf.for` nests.
    * `tile.copy` and `tile.atomic_add` become loops over the tile with
      bounds checks on the global side: out-of-bounds reads give zero and
      out-of-bounds writes are dropped.
    * `tile.gemm` (C accumulated in C's type), `tile.reduce`, `tile.cumsum`,
      `tile.fill` and `tile.clear` become plain loops.
    * Layout and scheduling hints are dropped, and tile memory spaces are
      removed from every memref type.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower tile kernels to gpu.launch (the SIMT correctness path)";
  let description = [{
    Turns every `tile.kernel` into a `gpu.launch` of its grid and block, and
    its tile ops into loops that the block's threads share: thread `t` of
    `T` takes iterations `t, t + T, ...` of each copy, fill, gemm (one C
    element per iteration), reduction (one output per iteration), cumsum
    (one line per iteration) and `tile.parallel`, with a `gpu.barrier`
    before and after each. Shared tiles and fragments live in shared memory
    and local tiles in each thread's (`tile-place-shared-memory` places
    them), and ops that write only local tiles run whole on every thread. `tile.atomic_add` becomes `memref.atomic_rmw`
    (the element form on thread 0 only). Out-of-bounds global accesses are
    guarded exactly as in `convert-tile-to-scf`, so the results match the
    CPU reference.

    Each `tile.gemm` runs on its `instruction` (tile-select-instructions;
    a gemm without one first gets that pass's default choice, never
    wgmma). `mma_sync` runs on tensor cores (`nvgpu.mma.sync` m16n8k16,
    operands through `nvgpu.ldmatrix`, accumulators in registers);
    in a `tile.pipelined` loop that leaves its C tile to the gemm, C stays in
    registers for the whole loop.

    A fragment marked `tile.in_registers` (by
    `tile-select-register-fragments`, which the GPU pipelines run right
    before this pass) lives in registers: each thread keeps the elements
    its `#tile.fragment` layout gives it in a `memref.alloca` indexed only
    by constants. `tile.parallel` then runs its body once per slot of its
    loop fragment (the first fragment it accesses at its own coordinates)
    at the coordinates the layout gives the thread there; `tile.reduce`
    folds each thread's slots, then combines the lanes that share a result
    with xor `gpu.shuffle`s (no shared memory, no barrier) and, when a
    result's threads span several warps, the warps' partial results through
    a shared scratch tile (two barriers); copies between register fragments
    stay in the thread, copies to or from memory move each thread's own
    elements; tensor-core gemms read A and C from the registers and write C
    back. A fragment without the mark lives in shared memory between ops as
    described above; a mark the layout cannot serve is an error.

    A `wgmma` gemm (C a register fragment of 64 rows per warpgroup, or two
    m64 blocks with `blocks = 2`, in wgmma's accumulator order; A and B
    K-major shared tiles with the 128-, 64- or 32-byte swizzle of their rows
    or A in registers) runs on `wgmma.mma_async` m64nNk16 through matrix
    descriptors, after a `fence.proxy.async`; swizzled tiles are placed on
    whole swizzle periods so that the swizzle relative to the tile is the
    one the hardware applies to absolute addresses. A gemm with
    `wg_wait = n` leaves up to n groups in flight (wgmma.wait_group n) and
    `tile.gemm_wait` becomes wgmma.wait_group. A gemm stamped wgmma that
    the lowering cannot emit with the fragments marked in registers (C, or
    its A fragment, not marked) is an error: tile-select-register-fragments
    restamps such gemms.
    `mfma`/`wmma` gemms run on AMD matrix cores; `simt` gemms as above.

    Each `tile.copy` moves on its `engine` (`#tile.copy_engine`, from
    `tile-select-instructions`; a copy without one takes that pass's
    default choice, which never stores on TMA): `cp_async` as `cp.async`
    groups, `buffer_load` as AMD buffer loads, `vector` and `elements` as
    the block's copy above; a copy a vendor lowering cannot take at run time
    (misaligned, no tensor map) falls back to the block's copy, recorded
    with that engine. A `tma` copy with its `tensor_map` (from
    `tile-nvvm-tensor-maps`; without one it is the block's copy) that
    arrives on a barrier is one
    `cp.async.bulk.tensor` per box issued by thread 0 (see
    `tile-plan-pipelines`); a `tma` synchronous copy of a whole shared tile
    (no offsets, identity layout, the element type of the destination)
    into a global buffer of rank 2 to 5 whose tile TMA boxes cover (rows of 16-byte multiples, at most 256 elements; unswizzled, the
    128-byte swizzle of 128-byte rows, or the blocked layout in column
    panels, one box per panel) is a TMA store: every thread fences its
    shared-memory writes for the asynchronous proxy (`fence.proxy.async`),
    a block barrier, then thread 0 issues one `cp.async.bulk.tensor` per
    box (TMA clips the elements outside the buffer), commits and waits
    until the boxes have read the tile (`cp.async.bulk.wait_group.read`),
    or, when the kernel may read the destination buffer (any use of that
    value but writes and metadata), until global memory is written; unless
    nothing after the copy in the kernel touches memory, a block barrier
    then releases the tile (a store marked `tile.deferred_store_wait` by
    `tile-nvvm-defer-tma-store-waits` does neither). When the tensor map
    is null at run time (a start or row stride not a multiple of 16 bytes)
    the block copies synchronously.

    The lowering leaves the on-chip tiles' allocations in the launch, in
    their tile memory spaces, to `tile-place-shared-memory`; back-to-back
    block barriers to `tile-drop-redundant-barriers`; and the barriers
    inside a thread range (`tile.thread_range` on an `scf.if`: a side of a
    warp-specialized kernel, which synchronize that side's threads) to the
    vendor (`tile-nvvm-named-barriers`). The GPU pipelines run them in that
    order right after this pass.
  }];
  let options = [
    Option<"stmatrix", "stmatrix", "bool", /*default=*/"false",
           "On sm_90: copies of whole register fragments in the "
           "mma/wgmma accumulator order into 16-bit shared tiles store "
           "with stmatrix (experimental)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileLowerParallelAtomics
    : Pass<"tile-lower-parallel-atomics", "::mlir::ModuleOp"> {
  let summary = "Lower the element atomics inside tile.parallel bodies to "
                "each thread's own atomic adds";
  let description = [{
    A `tile.atomic_add` of one element inside a `tile.parallel` body adds
    once per point of the parallel domain: after the GPU lowering spreads
    the body over the block's threads, each thread must add its own
    points. This pass rewrites each such op, before convert-tile-to-gpu,
    into the add itself: bounds-checked exactly like the op (an index
    outside the buffer adds nothing), a `memref.atomic_rmw` (`addf` or
    `addi`) on the global or shared destination. So does an element atomic
    of per-thread code (its operands computed from a `tile.thread_id`, or
    under control flow that is: a histogram's `T.atomic_add(hist[bin(tx)],
    1)`): each thread that reaches it adds. Other element atomics
    outside `tile.parallel` (added once by the block) and whole-tile atomics
    stay for convert-tile-to-gpu, which refuses element atomics left
    inside a `tile.parallel` (they would be added once per block). The GPU
    pipelines run it right before convert-tile-to-gpu.

    ```
    tile-opt --tile-lower-parallel-atomics --convert-tile-to-gpu
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileSelectRegisterFragments
    : Pass<"tile-select-register-fragments", "::mlir::ModuleOp"> {
  let summary = "Choose the fragments that live in per-thread registers";
  let description = [{
    Marks with `tile.in_registers` each `tile.alloc_fragment` whose fragment
    convert-tile-to-gpu can keep in registers, every thread holding the
    elements its `#tile.fragment` layout (from `tile-infer-layout`) gives
    it; the other fragments lose the mark and live in shared memory. A
    fragment qualifies when its layout is separable over exactly the
    kernel's threads, fits 512 bytes per thread (any number when it cannot
    live in shared memory either: its bytes and the kernel's shared tiles'
    more than a block may use; the device compiler then spills registers
    to local memory), and every op on it can
    follow the layout: every access of a `tile.parallel` body hits a slot
    known at compile time in the accessing thread, the threads that share a
    `tile.reduce` result are a span of xor offsets of the thread id, copies
    move whole fragments (slot to slot between fragments, or each thread's
    own elements to and from memory), and a `tile.gemm` takes it (its A or
    C) in registers only where the target's lowering of the gemm's
    `instruction` holds that operand in exactly this layout
    (TargetInfo::getAccumulatorLayout, getOperandALayout). The choice is
    made for all fragments of a kernel together: one that fails drops out,
    and the others are checked again without it.

    A `tile.parallel` runs over the elements of its loop fragment: the
    first register fragment it accesses at exactly its coordinates, else
    one it accesses at its coordinates plus constants (`acc[i + 16, j]`):
    each element q then stands for the loop point q - 16, a thread skips
    the elements that stand for no point of the loop, and the loop points
    with no element must be proven to do nothing (the body ends in an
    `scf.if` whose condition, computed from the coordinates and constants,
    is false at each of them; checked point by point). So that such offsets
    are constants, an `scf.for` of constant bounds and at most 8 iterations
    whose induction variable reaches an index of a candidate fragment's
    access in a `tile.parallel` is unrolled first (TileLang's split store
    `for s in range(2): if i < 16: half[i, j] = acc[i + s * 16, j]`).

    A gemm without an `instruction` first gets tile-select-instructions'
    default choice. Then the gemms whose stamped instruction the target's
    lowering cannot emit with the chosen registers are restamped with the
    choice without it (TargetInfo::reviseGemmInstructions; NVIDIA: wgmma
    needs C, and A when it is a fragment, in registers in its layouts, so
    such a gemm takes mma.sync or SIMT): after this pass every stamp is
    what convert-tile-to-gpu emits. With `registers=false` no fragment
    lives in registers (the pipelines' `register-fragments=false`). The GPU
    pipelines run this pass right before convert-tile-to-gpu.

    ```
    tile-opt --tile-infer-layout --tile-select-register-fragments \
             --convert-tile-to-gpu
    ```
  }];
  let options = [
    Option<"registers", "registers", "bool", /*default=*/"true",
           "Keep the fragments every op on which allows it in registers "
           "(=false: none)">
  ];
}

def TilePlaceSharedMemory
    : Pass<"tile-place-shared-memory", "::mlir::ModuleOp"> {
  let summary = "Place the on-chip tiles of each gpu.launch in its dynamic "
                "shared memory";
  let description = [{
    After `convert-tile-to-gpu`, whose launches hold the kernels' on-chip
    tiles (shared tiles, fragments not in registers, the lowering's scratch
    tiles) as `memref.alloc`s in workgroup memory
    (`#gpu.address_space<workgroup>`) marked `tile.unplaced_tile` (their
    layout, or a unit attribute) and their local tiles as per-thread
    `memref.alloca`s: each marked allocation becomes a `memref.view` of
    the launch's dynamic shared memory (`gpu.dynamic_shared_memory`), and
    each `tile.view` of one (the tile as another element type) a
    `memref.view` at the same bytes; a `tile.view` of workgroup memory that
    is no placed tile is an error. Each tile is aligned to 16 bytes, to 128 when its size is
    a multiple of 128 (what TMA writes into), and to at least one period
    of its swizzle (so the pattern relative to the tile is the one wgmma
    and TMA apply to absolute addresses). Tiles are placed by decreasing
    alignment, then decreasing size (first fit decreasing): barriers and
    small scratch tiles go after the swizzled ones instead of padding them
    to their next period. The launch asks for the bytes the
    tiles take; more than a block of the target may have (the chip's limit:
    227 KiB on sm_90, 163 KiB on sm_80, 64 KiB on AMD) is an error at the
    launch.

    With `reuse-shared-memory`, tiles whose lifetimes (from the first to the
    last top-level op of the kernel that touches them or a view of them) do
    not overlap share
    dynamic shared memory, first fit, with a `gpu.barrier` before the first
    use of a tile that takes over another's bytes; the launch asks for the
    smaller total. In a warp-specialized kernel, a tile that only one side
    touches (the producer's or the consumers') lives from the first to the
    last top-level op of that side, and its barrier is a block barrier in
    that side (which `tile-nvvm-named-barriers` turns into the side's named
    barrier); the sides run concurrently, so tiles of different sides never
    share, and a tile that a side and anything else touch lives across
    both sides. Off for this pass alone; the GPU pipelines (`tile-to-nvvm`,
    `tile-to-rocdl`) turn it on unless `reuse-shared-memory=false`.

    ```
    tile-opt --convert-tile-to-gpu --tile-place-shared-memory=reuse-shared-memory=true
    ```
  }];
  let options = [
    Option<"reuseSharedMemory", "reuse-shared-memory", "bool",
           /*default=*/"false",
           "Let tiles with disjoint lifetimes share shared memory">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def TileDropRedundantBarriers
    : Pass<"tile-drop-redundant-barriers", "::mlir::ModuleOp"> {
  let summary = "Drop each block barrier that another follows with nothing "
                "in between that touches memory";
  let description = [{
    The kernel lowering puts a `gpu.barrier` after each op that writes a
    shared tile and before each that reads one (a staged epilogue: the copy
    into the shared tile ends with one, the TMA store of it starts with a
    fence and one), and the placement of shared tiles one before the first
    use of bytes another tile used. A barrier followed by another with only
    ops between that have no memory effects and no regions, or that the
    target says only order their own thread's accesses (its
    `TargetInfo::isBarrierTransparent`: NVIDIA's proxy fences, which may
    come before the barrier the other way too), is dropped: the second
    orders everything the first did. Barriers in different blocks or
    regions are never merged. `tile-to-nvvm` and `tile-to-rocdl` run it
    after convert-tile-to-gpu.

    ```
    tile-opt --convert-tile-to-gpu --tile-drop-redundant-barriers
    ```
  }];
}

#endif // TILELANG_CONVERSION_PASSES_TD
