//===- TileOps.td - Operations of the tile dialect ---------*- tablegen -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_IR_TILEOPS_TD
#define TILELANG_DIALECT_TILE_IR_TILEOPS_TD

include "TileLang/Dialect/Tile/IR/TileDialect.td"
include "TileLang/Dialect/Tile/IR/TileAttrs.td"
include "TileLang/Dialect/Tile/IR/TileInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/LoopLikeInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ViewLikeInterface.td"

//===----------------------------------------------------------------------===//
// Traits, resources and type constraints
//===----------------------------------------------------------------------===//

// The op must be nested (at any depth) inside a tile.kernel.
def Tile_InKernel : NativeOpTrait<"InKernel"> {
  let cppNamespace = "::mlir::tile::OpTrait";
}

// Layout and scheduling hints (tile.annotate_layout, tile.use_swizzle) write
// this resource: they have no data effect, but must not be erased as dead.
def Tile_HintResource : Resource<"::mlir::tile::HintResource">;
def Tile_TensorCoreResource : Resource<"::mlir::tile::TensorCoreResource">;
def Tile_ScheduleResource : Resource<"::mlir::tile::TileScheduleResource">;

// Integers are signless, as arith's: a copy converts them as signed (and
// booleans as 0 and 1).
def Tile_Tile : MemRefOf<[AnySignlessInteger, AnyFloat]>;
def Tile_StaticTile : Type<And<[Tile_Tile.predicate, HasStaticShapePred]>,
                           "statically shaped memref of integer or float",
                           "::mlir::MemRefType">;

//===----------------------------------------------------------------------===//
// tile.kernel
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    AutomaticAllocationScope, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"::mlir::tile::YieldOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "A grid of thread blocks that each run the body once";
  let description = [{
    `tile.kernel` launches one thread block per point of a 1- to 3-D grid
    (TileLang's `T.Kernel`). The region's arguments are the block indices,
    one per grid dimension. `threads` gives the block size (1 to 3 extents,
    at most 1024 threads in all); `cluster` optionally groups blocks into
    thread-block clusters (sm_90+, at most 16 blocks; more than 8 is a
    non-portable size the runtime opts into). The grid is launched in whole
    clusters: each grid extent must be a multiple of the cluster's, which the
    verifier checks where the extent is a constant and the driver otherwise.
    The CPU lowering and the AMD backend ignore `cluster`; NVIDIA targets
    before sm_90 reject it.

    The body sees global buffers captured from the enclosing function and
    allocates its on-chip tiles with `tile.alloc_*`; those allocations live
    until the end of the block.

    ```mlir
    tile.kernel grid(%gx, %gy) threads(128) -> (%bx, %by) {
      ...
    }
    ```
  }];
  let arguments = (ins
    Variadic<Index>:$grid,
    DenseI64ArrayAttr:$threads,
    OptionalAttr<DenseI64ArrayAttr>:$cluster
  );
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::ValueRange":$grid,
                   "::llvm::ArrayRef<int64_t>":$threads,
                   CArg<"::llvm::ArrayRef<int64_t>", "{}">:$cluster)>
  ];
  let extraClassDeclaration = [{
    /// The block indices (region arguments), one per grid dimension.
    ::mlir::Block::BlockArgListType getBlockIds() {
      return getBody().getArguments();
    }
    /// Total number of threads of a block.
    int64_t getNumThreads();
    /// Blocks per thread block cluster (1 without clusters).
    int64_t getClusterSize();
  }];
}

//===----------------------------------------------------------------------===//
// tile.alloc_shared / tile.alloc_fragment / tile.alloc_local
//===----------------------------------------------------------------------===//

class Tile_AllocOp<string mnemonic, string space, string example>
    : Tile_Op<mnemonic, [HasParent<"::mlir::tile::KernelOp">,
        DeclareOpInterfaceMethods<Tile_TileAllocationOpInterface>]> {
  let arguments = (ins OptionalAttr<AnyAttr>:$layout);
  let results = (outs Res<Tile_StaticTile, "", [MemAlloc]>:$memref);
  let assemblyFormat = "attr-dict `:` type($memref)";
  let hasVerifier = 1;
  let description = [{
    Allocates an on-chip tile in `#tile.mem<}] # space # [{>`, live until the
    end of the enclosing `tile.kernel`, in whose body it must stand directly
    (tiles are block-scoped, as in TileLang: the compiler plans on-chip
    memory per kernel). The result type must be a statically shaped memref
    of rank at least 1 with no zero-size dimension and the identity layout
    in that memory space.
  }] # example;
  let builders = [
    OpBuilder<(ins "::mlir::MemRefType":$type), [{
      build($_builder, $_state, type, ::mlir::Attribute());
    }]>
  ];
}

def Tile_AllocSharedOp : Tile_AllocOp<"alloc_shared", "shared", [{

    An optional `layout` (a `#tile.swizzle`) fixes the shared-memory layout;
    otherwise layout inference chooses one.

    ```mlir
    %a = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    ```
  }]> {
  let summary = "Allocate a tile in shared memory";
}

def Tile_AllocFragmentOp : Tile_AllocOp<"alloc_fragment", "fragment", [{

    A fragment is distributed over the threads of the block; its
    `layout` (a `#tile.fragment`) is inferred by the compiler unless given.

    ```mlir
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    ```
  }]> {
  let summary = "Allocate a register tile distributed over the block";
}

def Tile_AllocLocalOp : Tile_AllocOp<"alloc_local", "local", [{

    Every thread holds its own copy. A one-element local tile is TileLang's
    `T.alloc_var`.

    ```mlir
    %v = tile.alloc_local : memref<1xf32, #tile.mem<local>>
    ```
  }]> {
  let summary = "Allocate a per-thread register tile";
}

//===----------------------------------------------------------------------===//
// tile.copy
//===----------------------------------------------------------------------===//

def Tile_CopyOp : Tile_Op<"copy", [Tile_InKernel, AttrSizedOperandSegments]> {
  let summary = "Copy a whole tile between memory spaces";
  let description = [{
    Copies a tile from `src` to `dst`. Either side may be global, shared,
    fragment or local memory, but not both global. The tile is the shape of
    the side without offsets; at most one side carries offsets, which place
    the tile in that buffer in one of two forms:

    - A *region* (TileLang's `A[b, s0:s1, h, :]`, a rank-reducing
      `memref.subview`): per dimension of the buffer an offset, followed by
      `: extent` when the dimension is a dimension of the tile. Dimensions
      without an extent are indexed away (extent 1, not in the tile). The
      extents, in order, must be the tile's shape (whose leading unit
      dimensions may have none: `%b[%c0 : 64]` into a 1x64 tile):
      `%Q[%b, %s : 64, %h, %c0 : 128]` copies a 64x128 tile that runs along
      dimensions 1 and 3 of a BSHD buffer. (Generic form: `src_sizes` /
      `dst_sizes`, one entry per dimension, the extent or 0 for an
      indexed-away dimension.)
    - A *head address* (TileLang's `A[by * 128, k * 32]`): offsets only.
      The tile lies along the buffer's trailing dimensions, its leading
      dimensions have extent 1; the buffer may have a higher rank than the
      tile, never a lower one. `%A[%m, %k]` into a 128x32 tile is the region
      `%A[%m : 128, %k : 32]`.

    A side without offsets covers its buffer from index 0 (unit dimensions
    that only one side has are index 0).

    Edge tiles never touch memory outside a global buffer: elements of a
    global source outside its bounds read as zero (as in TileLang), and
    elements that would land outside a global destination are not written,
    along every dimension (indexed-away ones included). The zeros are
    values of the tile like any other: a gemm or a sum is unchanged by them,
    but a max, min or absmax reduction, a prefix sum of a reversed row or an
    elementwise map (`exp(0)` is 1) sees them; mask what must not count
    (e.g. `arith.select` of -inf where the column is past the edge before
    a max, as FlashAttention masks its last key block). On-chip regions must
    stay in bounds (checked when the offsets are constants).

    Element types may differ when both are floats or both are integers: the
    copy converts (`arith.extf`/`truncf`, `extsi`/`trunci`).

    With `async` (global to shared only, same element type), the copy may
    still be in flight when the next operation starts: the destination holds
    the tile only after a `tile.async_wait` that covers the group
    (`tile.async_commit`) the copy was issued in. Pipeline planning
    (`tile-plan-pipelines`) creates them; on NVIDIA GPUs from sm_80 they
    become `cp.async`, elsewhere plain copies.

    With `arrive(%barriers[%i])` as well, the copy is not part of a group:
    its completion is counted on barrier `%i` of a `tile.barrier_init`
    array instead (one arrival per copy; the phase completes when every
    copy that arrives on it has landed), and `tile.barrier_wait` waits for
    it. On sm_90 a copy from a global buffer of rank 2 to 5 into a 2-D
    tile whose columns run along the buffer's last dimension (its rows along
    any earlier one: a box of the buffer's rank with extent 1 along the
    indexed-away dimensions), whose rows are 16-byte multiples of
    at most 256 elements (unswizzled, or 128-byte rows with the 128-byte
    swizzle) is one TMA transfer (`cp.async.bulk.tensor`) issued by one
    thread, with a tensor map the host creates before the launch; when the
    global buffer does not allow TMA (16-byte aligned start and row
    strides) the block copies synchronously and then arrives. Elsewhere it
    is a plain copy.

    With `tx_only` as well (TileLang's `T.tma_copy(..., barrier=)`), the
    copy does not arrive: it only adds the bytes it moves to the barrier's
    expected transactions, and the phase also needs the arrivals of the
    threads' `tile.barrier_arrive {per_thread}` (whichever thread issues the
    transfer must arrive after it). Where the copy falls back to the
    block's synchronous copy, it adds nothing and the arrivals publish it.

    `engine` (`#tile.copy_engine`) records the hardware path the copy takes
    (`tile-select-instructions` sets it; a copy without one takes that
    pass's default choice). The verifier checks that the copy has the form
    its engine moves: `cp_async` an `async` copy without barriers and
    `buffer_load` a synchronous or `async` one without barriers, both of a
    global region into a whole shared tile of the same element type; `tma`
    one that arrives on a barrier, or a synchronous copy of a whole shared
    tile into a global region of the same element type.

    `tensor_map(%map)` (an `i64`, defined outside the kernel; only with the
    `tma` engine) is the TMA tensor map of the copy's global buffer and box,
    as the host created it before the launch (`tile-nvvm-tensor-maps`): a
    device pointer, null when the buffer does not allow TMA at run time (the
    copy then moves as the block's copy). A `tma` copy without one is not
    moved by TMA.

    ```mlir
    tile.copy %A[%m, %k] to %a_s
        : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
    tile.copy %Q[%b, %s : 64, %h, %c0 : 128] to %q_s
        : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.mem<shared>>
    tile.copy %c_f to %C[%m, %n]
        : memref<128x128xf32, #tile.mem<fragment>> to memref<?x?xf16>
    tile.copy %A[%m, %k] to %a_s {async}
        : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
    tile.copy %A[%m, %k] to %a_s
        arrive(%bars[%s] : memref<4xi64, #tile.mem<shared>>) {async}
        : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
    ```
  }];
  let arguments = (ins
    Arg<Tile_Tile, "source", [MemRead]>:$src,
    Variadic<Index>:$src_offsets,
    Arg<Tile_Tile, "destination", [MemWrite]>:$dst,
    Variadic<Index>:$dst_offsets,
    Arg<Optional<Tile_Tile>, "barriers", [MemRead, MemWrite]>:$barriers,
    Optional<Index>:$barrier_index,
    Optional<I64>:$tensor_map,
    UnitAttr:$async,
    UnitAttr:$tx_only,
    OptionalAttr<DenseI64ArrayAttr>:$src_sizes,
    OptionalAttr<DenseI64ArrayAttr>:$dst_sizes,
    OptionalAttr<Tile_CopyEngineAttr>:$engine
  );
  let assemblyFormat = [{
    $src `` custom<TileRegion>($src_offsets, $src_sizes) `to`
    $dst `` custom<TileRegion>($dst_offsets, $dst_sizes)
    (`arrive` `(` $barriers^ `[` $barrier_index `]` `:` type($barriers) `)`)?
    (`tensor_map` `(` $tensor_map^ `)`)?
    attr-dict `:` type($src) `to` type($dst)
  }];
  let builders = [
    // A copy that arrives on no barrier (the builder embedders used before
    // `arrive` existed).
    OpBuilder<(ins "Value":$src, "ValueRange":$srcOffsets, "Value":$dst,
                   "ValueRange":$dstOffsets, CArg<"bool", "false">:$async), [{
      build($_builder, $_state, src, srcOffsets, dst, dstOffsets,
            /*barriers=*/Value(), /*barrier_index=*/Value(),
            /*tensor_map=*/Value(), async, /*tx_only=*/false,
            /*src_sizes=*/nullptr, /*dst_sizes=*/nullptr, /*engine=*/nullptr);
    }]>
  ];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The shape of the tile that is copied.
    ::llvm::SmallVector<int64_t> getTileShape();
    /// Where the tile lies in the source and in the destination.
    ::mlir::tile::TileRegion getSrcRegion();
    ::mlir::tile::TileRegion getDstRegion();
    /// Whether the copy's `engine` is `kind`.
    bool hasEngine(::mlir::tile::CopyEngineKind kind) {
      ::mlir::tile::CopyEngineAttr engine = getEngineAttr();
      return engine && engine.getKind() == kind;
    }
  }];
}

//===----------------------------------------------------------------------===//
// tile.async_commit / tile.async_wait
//===----------------------------------------------------------------------===//

def Tile_AsyncCommitOp : Tile_Op<"async_commit", [Tile_InKernel,
    MemoryEffects<[MemWrite]>]> {
  let summary = "Close the group of asynchronous copies issued so far";
  let description = [{
    Every `tile.copy {async}` issued since the previous commit joins one
    group; `tile.async_wait` counts these groups. A commit with no copy
    since the last one makes an empty group, which completes at once: a
    pipeline commits once per stage whether or not it issued copies, so that
    its waits count stages.

    ```mlir
    tile.async_commit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [Tile_InKernel,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait for asynchronous copies and make them visible";
  let description = [{
    Waits until at most `pending` of the most recently committed groups of
    asynchronous copies are still in flight, then synchronizes the block:
    afterwards every thread sees the tiles of every completed group, and
    every thread has finished what it did before the wait (so the buffers
    it read may be overwritten). `pending(0)` waits for everything.

    With `per_thread` (TileLang's `T.ptx_wait_group(n)`), each thread that
    runs it waits only for its own groups (its `tile.async_copy_elements`)
    and the block is not synchronized: a thread sees its own copies after
    it, others' after a barrier the program places.

    ```mlir
    tile.async_wait pending(1)
    tile.async_wait pending(0) {per_thread}
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending,
                       UnitAttr:$per_thread);
  let assemblyFormat = "`pending` `(` $pending `)` attr-dict";
}

def Tile_AsyncCopyElementsOp : Tile_Op<"async_copy_elements", [Tile_InKernel,
    AttrSizedOperandSegments]> {
  let summary = "One thread's asynchronous copy of a few consecutive elements";
  let description = [{
    TileLang's `T.ptx_cp_async(T.access_ptr(dst[...], "w", n),
    T.access_ptr(src[...], "r", n), n)`: the thread that runs it copies
    `count` consecutive elements of the global buffer `src`, from
    `src[src_indices]` along its last dimension, into the shared tile `dst`
    from `dst[dst_indices]` along its last dimension (through its swizzle,
    where it has one). Unlike the tile ops, it is the thread's own work:
    other threads run it (or not) with their own indices.

    The copy is asynchronous: `dst` holds the elements once the thread's
    copies completed, which a `tile.barrier_arrive {async_copies,
    per_thread}` (the phase completes after them) or a `tile.async_commit`
    followed by `tile.async_wait {per_thread}` tells. The `count` elements
    are 4, 8 or 16 bytes, and both places must be aligned to that (the
    program's guarantee, as for the instruction; both stay inside their
    last dimension). On NVIDIA GPUs from sm_80 it is one `cp.async`,
    elsewhere a plain copy that completes at once.

    With `if %predicate` false, the thread reads nothing of `src` (its
    indices may be out of bounds) and the `count` elements of `dst` become
    zeros (TileLang's `predicate=`: the cp.async's source size is 0).

    ```mlir
    tile.async_copy_elements %KV[%b, %row, %c] to %KV_s[%s, %r, %c] count(8)
        : memref<?x?x576xbf16> to memref<2x64x576xbf16, #tile.mem<shared>>
    tile.async_copy_elements %KV[%b, %row, %c] to %KV_s[%s, %r, %c] count(8)
        if %valid : memref<?x?x576xbf16> to memref<2x64x576xbf16, #tile.mem<shared>>
    ```
  }];
  let arguments = (ins
    Arg<Tile_Tile, "source", [MemRead]>:$src,
    Variadic<Index>:$src_indices,
    Arg<Tile_Tile, "destination", [MemWrite]>:$dst,
    Variadic<Index>:$dst_indices,
    Optional<I1>:$predicate,
    ConfinedAttr<I64Attr, [IntPositive]>:$count
  );
  let assemblyFormat = [{
    $src `[` $src_indices `]` `to` $dst `[` $dst_indices `]`
    `count` `(` $count `)` (`if` $predicate^)? attr-dict `:` type($src) `to`
    type($dst)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// tile.barrier_init / tile.barrier_wait
//===----------------------------------------------------------------------===//

def Tile_BarrierInitOp : Tile_Op<"barrier_init", [Tile_InKernel]> {
  let summary = "Initialize an array of block-wide arrival barriers";
  let description = [{
    `barriers` is a shared `memref<N x i64>` (from `tile.alloc_shared`): N
    barriers, each of which completes a phase once `arrivals` arrivals (the
    `arrive` of asynchronous copies, or the warps' `tile.barrier_arrive`)
    have happened and the copies' data has landed, then starts the next
    phase. Phases alternate in parity (0, 1,
    0, ...), which `tile.barrier_wait` names. Every thread of the block
    sees the barriers initialized after this op. On NVIDIA sm_90 they are
    `mbarrier` objects; where copies complete synchronously there is
    nothing to count and the op does nothing.

    ```mlir
    tile.barrier_init %bars arrivals(2) : memref<4xi64, #tile.mem<shared>>
    ```
  }];
  let arguments = (ins Arg<Tile_Tile, "barriers", [MemWrite]>:$barriers,
                       ConfinedAttr<I64Attr, [IntPositive]>:$arrivals);
  let assemblyFormat = [{
    $barriers `arrivals` `(` $arrivals `)` attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def Tile_BarrierWaitOp : Tile_Op<"barrier_wait", [Tile_InKernel,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait for a phase of an arrival barrier";
  let description = [{
    Every thread waits until the phase of parity `parity` (0 or 1) of
    barrier `index` of `barriers` has completed; the tiles of the copies
    that arrived on it in that phase are then visible to the thread. The
    wait does not otherwise synchronize the block.

    ```mlir
    tile.barrier_wait %bars[%s] parity(%p) : memref<4xi64, #tile.mem<shared>>
    ```
  }];
  let arguments = (ins
    Arg<Tile_Tile, "barriers", [MemRead, MemWrite]>:$barriers,
    Index:$index, Index:$parity, UnitAttr:$issuer);
  let assemblyFormat = [{
    $barriers `[` $index `]` `parity` `(` $parity `)` attr-dict `:`
    type($barriers)
  }];
  let hasVerifier = 1;
}

def Tile_BarrierArriveOp : Tile_Op<"barrier_arrive", [Tile_InKernel,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Arrive on an arrival barrier, once per warp";
  let description = [{
    Each warp of the block arrives once on barrier `index` of `barriers`,
    when all its threads have reached the op; the arrival releases the
    warp's earlier accesses of shared memory. With `tile.barrier_init ...
    arrivals(W)` for a block of W warps, a phase completes once every warp
    got here: whoever waits for it may overwrite what the warps read before
    (a pipeline's consumers release a stage to its producer this way). Where
    copies complete synchronously the op does nothing.

    A `tile.barrier_wait {issuer}` is waited for only by the thread that
    issues the asynchronous copies that follow it (thread 0); those copies
    then need no block barrier before they overwrite their destinations,
    and if they fall back to a synchronous copy, every thread waits first.

    With `per_thread` (TileLang's `T.mbarrier_arrive`, `T.barrier_arrive`),
    every thread that reaches the op arrives once: a barrier initialized
    with `arrivals(128)` completes a phase when 128 threads got here (and
    the bytes of the `tx_only` copies on it landed); the arrival releases
    the thread's own earlier accesses.

    With `async_copies` as well (TileLang's `T.cp_async_barrier_noinc`),
    the thread's arrival happens once every `tile.async_copy_elements` it
    issued before has landed (on NVIDIA `cp.async.mbarrier.arrive.noinc`:
    it still counts as the thread's one arrival): whoever waits for the
    phase sees those copies.

    ```mlir
    tile.barrier_arrive %empty[%s] : memref<4xi64, #tile.mem<shared>>
    tile.barrier_wait %empty[%s] parity(%p) {issuer} : memref<4xi64, #tile.mem<shared>>
    tile.barrier_arrive %ready[%c0] {per_thread} : memref<1xi64, #tile.mem<shared>>
    tile.barrier_arrive %ready[%s] {async_copies, per_thread} : memref<2xi64, #tile.mem<shared>>
    ```
  }];
  let arguments = (ins
    Arg<Tile_Tile, "barriers", [MemRead, MemWrite]>:$barriers,
    Index:$index, UnitAttr:$per_thread, UnitAttr:$async_copies);
  let assemblyFormat = [{
    $barriers `[` $index `]` attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def Tile_NextTileOp : Tile_Op<"next_tile", [Tile_InKernel,
    AttrSizedOperandSegments]> {
  let summary = "Take the next tile of a persistent kernel's dynamic schedule";
  let description = [{
    The dynamic tile scheduler of a persistent kernel
    (`tile-make-persistent{dynamic-tiles}`): `counters` is a global
    `memref<2xi32>` (a `memref.global`, zero when the module loads) whose
    element 0 counts the tiles handed out after the first wave; the op
    takes the next one, atomically with respect to every other block, and
    returns `offset` plus the count before it (with `offset` the number of
    blocks, each of which starts at its own block id without the op). Every
    thread gets the same index, passed through the shared `memref<1xi32>`
    `slot`:

    - Without barriers (the block form), thread 0 takes the index and a
      block barrier before and after the slot's write publish it.
    - With `barriers(%full, %released)` (shared `memref<1xi64>` arrival
      barriers) and `count` (the how-manyth call this is, from 0), the op
      hands the index from a `tile.producer` to the consumers: in the
      producer its thread 0 waits until every warp read the slot's previous
      index (phase `count - 1` of `released`, which counts every warp of
      the block), takes the next index, writes it and arrives on `full`
      (one arrival); with `receive`, among the consumers, the op only reads
      it. Either side waits for phase `count` of `full`, reads the slot and
      arrives on `released` (once per warp). Lowered for NVIDIA sm_90.

    On the CPU (sequential blocks) the op is the atomic increment.

    ```mlir
    %next = tile.next_tile %counters[%blocks] via %slot
        : memref<2xi32>, memref<1xi32, #tile.mem<shared>>
    %next = tile.next_tile %counters[%blocks] via %slot
        barriers(%full, %released) count(%n) {receive}
        : memref<2xi32>, memref<1xi32, #tile.mem<shared>>,
          memref<1xi64, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>
    ```
  }];
  let arguments = (ins
    Arg<MemRefRankOf<[I32], [1]>, "counters",
        [MemRead<Tile_ScheduleResource>, MemWrite<Tile_ScheduleResource>]>:
        $counters,
    Index:$offset,
    Arg<Tile_Tile, "slot", [MemRead, MemWrite]>:$slot,
    Arg<Optional<Tile_Tile>, "full", [MemRead, MemWrite]>:$full,
    Arg<Optional<Tile_Tile>, "released", [MemRead, MemWrite]>:$released,
    Optional<Index>:$count,
    UnitAttr:$receive);
  let results = (outs Index:$tile);
  let assemblyFormat = [{
    $counters `[` $offset `]` `via` $slot
    (`barriers` `(` $full^ `,` $released `)`)? (`count` `(` $count^ `)`)?
    attr-dict `:` type($counters) `,` type($slot)
    (`,` type($full)^ `,` type($released))?
  }];
  let hasVerifier = 1;
}

def Tile_FinishTilesOp : Tile_Op<"finish_tiles", [Tile_InKernel]> {
  let summary = "End a block's share of a persistent kernel's dynamic "
                "schedule";
  let description = [{
    The block takes no more tiles of the schedule whose `counters` (see
    `tile.next_tile`) it took them from: its thread 0 (in a
    `tile.producer`, the producer's, which took them) counts the block in
    element 1 of `counters`; the last of the `blocks` blocks to do so resets
    both counters to zero, so the next launch of the kernel starts a fresh
    schedule with nothing done on the host. Launches of one kernel must not
    overlap (one stream).

    ```mlir
    tile.finish_tiles %counters blocks(%n) : memref<2xi32>
    ```
  }];
  let arguments = (ins
    Arg<MemRefRankOf<[I32], [1]>, "counters",
        [MemRead<Tile_ScheduleResource>, MemWrite<Tile_ScheduleResource>]>:
        $counters,
    Index:$blocks);
  let assemblyFormat = [{
    $counters `blocks` `(` $blocks `)` attr-dict `:` type($counters)
  }];
  let hasVerifier = 1;
}

def Tile_ProducerOp : Tile_Op<"producer", [Tile_InKernel,
    RecursiveMemoryEffects, NoRegionArguments,
    SingleBlockImplicitTerminator<"::mlir::tile::YieldOp">]> {
  let summary = "The work of an extra warpgroup that feeds the block's pipelines";
  let description = [{
    Warp specialization: the body runs on a warpgroup of its own (128
    threads after the kernel's `threads`, which stay the block's consumers),
    concurrently with everything that follows the op in the kernel body,
    which the consumer threads run. The producer typically issues a
    pipeline's asynchronous copies into its stages, waiting for the
    consumers to release each stage (`tile.barrier_wait {issuer}`) before
    refilling it, and the consumers wait for each stage's copies
    (`tile.barrier_wait`) and release it (`tile.barrier_arrive`): neither
    side meets the other at a block barrier. The producer's tile ops are
    spread over its own 128 threads; its "thread 0" is its first thread.
    The producer gives up registers to the consumers (`setmaxnreg`:
    `producer_registers`, the consumers what remains of the multiprocessor's
    65536 for one block).

    Only ops that need no thread (allocations, `tile.annotate_layout`,
    `tile.barrier_init`, `tile.use_swizzle`, whose renamed block ids the
    producer sees too, side-effect-free ops) may precede it in the kernel
    body, which it belongs to directly; a kernel has at most one, with one-dimensional
    `threads` in whole warpgroups. Lowered for NVIDIA sm_90 only.

    ```mlir
    tile.kernel grid(%n) threads(256) -> (%bx) {
      %k = tile.alloc_shared : memref<2x64x128xf16, #tile.mem<shared>>
      tile.barrier_init %full arrivals(1) : memref<2xi64, #tile.mem<shared>>
      tile.barrier_init %free arrivals(8) : memref<2xi64, #tile.mem<shared>>
      tile.producer {
        scf.for %i = %c0 to %n step %c1 { ... }
      }
      ... the consumers' loop ...
    }
    ```
  }];
  let arguments = (ins DefaultValuedAttr<
      ConfinedAttr<I64Attr, [IntMinValue<24>, IntMaxValue<256>]>, "24">:
      $producer_registers);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The threads of the producer warpgroup.
    static constexpr int64_t kThreads = 128;
    /// Whether `op` may precede the producer in the kernel body (it needs
    /// no thread to run it).
    static bool mayPrecede(::mlir::Operation *op);
  }];
}

def Tile_TakeTurnsOp : Tile_Op<"take_turns", [Tile_InKernel,
    RecursiveMemoryEffects, NoRegionArguments,
    SingleBlockImplicitTerminator<"::mlir::tile::YieldOp">]> {
  let summary = "The block's warpgroups run the body one after another";
  let description = [{
    Each time the body is reached, the warpgroups (128 threads) of the
    block run it in turn, warpgroup 0 first, then 1, and so on around:
    warpgroup w starts once warpgroup w - 1 has finished its own run of
    the body. What the body computes does not change; the order of its
    issue does. FlashAttention-3's ping-pong: with the gemms of an
    iteration in the body, one warpgroup's softmax runs while the other's
    gemms occupy the tensor cores. The body must not contain block
    barriers (a warpgroup waiting for its turn never reaches them): gemms
    on wgmma and side-effect-free ops. On NVIDIA, named barriers 3 and up
    order the turns; elsewhere the body runs as it is.

    ```mlir
    tile.take_turns {
      tile.gemm %q, %k, %s {transpose_b, wg_wait = -1} : ...
      tile.gemm %p, %v, %o {wg_wait = -1} : ...
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// tile.gemm
//===----------------------------------------------------------------------===//

def Tile_GemmOp : Tile_Op<"gemm", [Tile_InKernel]> {
  let summary = "Tile matrix multiply-accumulate: C += op(A) * op(B)";
  let description = [{
    `C[M, N] (+)= op(A)[M, K] * op(B)[K, N]`, where `op` transposes when
    `transpose_a` / `transpose_b` is set (A is then stored K x M, B N x K).
    With `clear_accum`, C is overwritten instead of accumulated into; with
    `clear_if(%cond)` (an i1), when `%cond` is true (the choice is made at
    run time: wgmma's scale-d predicate on sm_90a, a fill of zeros under
    the condition elsewhere; tile-version-parallel sets it where a versioned mask leaves
    C unwritten on the tiles it does not cut).

    A lives in shared memory or in a fragment, B in shared memory, C in a
    fragment. Supported element types (A, B -> C): f16 -> f16 or f32,
    bf16 -> f32, f32 -> f32, f64 -> f64, i8 -> i32, and f8E4M3FN / f8E5M2 in
    any combination -> f32. The block must have a whole number of warps.
    `policy` tells how the warps split C (default `square`).

    `instruction` (`#tile.gemm_instruction`) records the instruction the
    gemm runs on; `tile-select-instructions` sets it, and a gemm without one
    takes what that pass chooses by default (mma.sync or the AMD matrix
    cores where they fit, never wgmma, else SIMT). Its shape must divide
    the gemm's (wgmma: N whole, M a multiple of 64 rows per m64 block), and
    `register_a` is set exactly when A is a fragment.

    `wg_wait = n` (TileLang's `wg_wait`) lets the gemm return while up to
    `n` of its warpgroup's groups of asynchronous tensor-core work
    (wgmma.mma_async on sm_90a) are still in flight; `wg_wait = -1` does not
    wait at all (its own work stays in flight too). A, B and C must then
    not be written, nor C read, by anything but another such gemm into the
    same C until a `tile.gemm_wait` says the work is done. Lowerings that
    compute synchronously ignore it. tile-plan-pipelines sets it to keep one
    k tile of tensor-core work in flight across iterations; a pipelined
    loop whose body leaves gemms in flight itself must wait for them
    (`tile.gemm_wait pending(0)`) before its iteration ends.

    ```mlir
    tile.gemm %a_s, %b_s, %c_f {transpose_b}
        : memref<128x32xf16, #tile.mem<shared>>,
          memref<128x32xf16, #tile.mem<shared>>
          -> memref<128x128xf32, #tile.mem<fragment>>
    ```
  }];
  let arguments = (ins
    Arg<Tile_StaticTile, "A", [MemRead]>:$a,
    Arg<Tile_StaticTile, "B", [MemRead]>:$b,
    Arg<Tile_StaticTile, "C", [MemRead, MemWrite]>:$c,
    UnitAttr:$transpose_a,
    UnitAttr:$transpose_b,
    UnitAttr:$clear_accum,
    DefaultValuedAttr<Tile_GemmPolicyAttr,
                      "::mlir::tile::GemmPolicy::Square">:$policy,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntMinValue<-1>]>, "0">:$wg_wait,
    OptionalAttr<Tile_GemmInstructionAttr>:$instruction,
    Optional<I1>:$clear_if
  );
  let assemblyFormat = [{
    $a `,` $b `,` $c (`clear_if` `(` $clear_if^ `)`)? attr-dict `:` type($a)
    `,` type($b) `->` type($c)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getM();
    int64_t getN();
    int64_t getK();
  }];
}

def Tile_GemmWaitOp : Tile_Op<"gemm_wait", [Tile_InKernel,
    MemoryEffects<[MemRead<Tile_TensorCoreResource>,
                   MemWrite<Tile_TensorCoreResource>]>]> {
  let summary = "Wait for the asynchronous work of tile.gemm ops";
  let description = [{
    Waits until at most `pending` groups of the asynchronous tensor-core
    work that `tile.gemm {wg_wait = n}` ops of this thread's warpgroup left
    in flight remain; with `pending(0)` their A and B tiles may be
    overwritten and their C tiles read again. Where gemms compute
    synchronously (before sm_90a, on the CPU and AMD targets) there is
    nothing to wait for. TileLang spells it `T.wait_wgmma`. Its effects are
    on the tensor cores' work, not on memory: a tile.pipelined loop with
    waits in its body still software-pipelines its copies.

    ```mlir
    tile.gemm_wait pending(0)
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "`pending` `(` $pending `)` attr-dict";
}

//===----------------------------------------------------------------------===//
// tile.view
//===----------------------------------------------------------------------===//

def Tile_ViewOp : Tile_Op<"view", [Pure,
    DeclareOpInterfaceMethods<ViewLikeOpInterface>]> {
  let summary = "A tensor's or a shared tile's bytes seen as another element type";
  let description = [{
    TileLang's `T.view(A, shape, dtype=...)`: the same bytes, from the
    source's first element on, as a row-major buffer of another element
    type and shape. Source and result are statically shaped memrefs with
    the identity layout, the same number of bytes and the same memory
    space: global tensors, or a shared tile (`#tile.mem<shared>`; after
    convert-tile-to-gpu, the target's workgroup space) and its view.

    Writes through the view are writes of the source (the op is view-like:
    the JIT counts them for global tensors). For global tensors both
    conversions make it the memref descriptor of the source's first byte,
    as for `tile.make_tensor`. A view of a shared tile keeps the tile's
    storage: its swizzle is the tile's, seen in the view's element type
    (`SwizzleAttr::reinterpret`; a swizzle the view cannot keep is
    dropped), an annotation on the view is the tile's, the tile lives as
    long as its views are used and is never multi-buffered; on GPUs
    tile-place-shared-memory places the view at the tile's bytes, on the
    CPU it is the descriptor of the tile's first byte.

    ```mlir
    %h = tile.view %a : memref<1024xf32> to memref<32x64xf16>
    %b = tile.view %s : memref<64x64xf32, #tile.mem<shared>>
        to memref<64x128xbf16, #tile.mem<shared>>
    ```
  }];
  let arguments = (ins Tile_Tile:$source);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $source attr-dict `:` type($source) `to` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// tile.grid_wait / tile.grid_launch_dependents
//===----------------------------------------------------------------------===//

def Tile_GridWaitOp : Tile_Op<"grid_wait", [Tile_InKernel]> {
  let summary = "Wait for the grids this one depends on";
  let description = [{
    TileLang's `T.pdl_sync()` (programmatic dependent launch): every thread
    that runs it waits until the grids launched before this one on its
    stream completed and their memory operations are visible. On sm_90 and
    newer NVIDIA targets it is `griddepcontrol.wait`; a grid launched
    without programmatic serialization starts after its predecessors
    completed, where the wait returns at once. Elsewhere nothing.

    ```mlir
    tile.grid_wait
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_GridLaunchDependentsOp
    : Tile_Op<"grid_launch_dependents", [Tile_InKernel]> {
  let summary = "Let the dependent grid begin launching";
  let description = [{
    TileLang's `T.pdl_trigger()`: the grid launched after this one may start
    once every block of this grid ran it or completed (its accesses after
    it are not ordered before the dependent grid's `tile.grid_wait`). On
    sm_90 and newer NVIDIA targets it is `griddepcontrol.launch_dependents`;
    elsewhere nothing.

    ```mlir
    tile.grid_launch_dependents
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// tile.set_max_registers
//===----------------------------------------------------------------------===//

def Tile_SetMaxRegistersOp : Tile_Op<"set_max_registers", [Tile_InKernel]> {
  let summary = "Raise or lower the registers of the thread's warpgroup";
  let description = [{
    TileLang's `T.set_max_nreg(count, is_inc)` (and `T.inc_max_nreg`,
    `T.dec_max_nreg`, `T.annotate_producer_reg_dealloc`,
    `T.annotate_consumer_reg_alloc`) in a kernel split by hand into
    warpgroups: every thread of a warpgroup runs it together, and the
    warpgroup's register limit becomes `count` a thread (a multiple of 8 in
    [24, 256]): with `increase` it waits for registers that other warpgroups
    released (`count` must not be below what the warp holds), without it
    releases registers down to `count` (not above what it holds). A
    producer that only issues copies gives its registers to the consumers
    that hold accumulators. On sm_90a it is `setmaxnreg.{inc,dec}.sync.aligned`
    (and tile-nvvm-launch-registers bounds the launch registers of a block
    of 256 threads or fewer by the smallest count raised to); elsewhere
    nothing (registers are the compiler's: results do not depend on it).

    ```mlir
    tile.set_max_registers increase 240
    tile.set_max_registers decrease 80
    ```
  }];
  let arguments = (ins UnitAttr:$increase,
                       ConfinedAttr<I32Attr, [IntMinValue<24>,
                                              IntMaxValue<256>]>:$count);
  let assemblyFormat = [{
    (`increase` $increase^):(`decrease`)? $count attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Thread block clusters
//===----------------------------------------------------------------------===//

def Tile_ClusterArriveOp : Tile_Op<"cluster_arrive", [Tile_InKernel,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Arrive on the cluster's block barrier";
  let description = [{
    TileLang's `T.cluster_arrive()` (`T.cluster_arrive_relaxed()` with
    `relaxed`): the thread arrives on the barrier of its thread block
    cluster without waiting; `tile.cluster_wait` then waits until every
    thread of every block of the cluster arrived. The arrival releases the
    thread's earlier memory accesses to the cluster (not with `relaxed`).
    On NVIDIA sm_90 and newer `barrier.cluster.arrive[.relaxed]`. Where
    blocks are not launched as clusters (the CPU, AMD GPUs, earlier NVIDIA
    chips) it is an error in a kernel whose cluster has several blocks and
    nothing otherwise (a cluster of one block).

    ```mlir
    tile.cluster_arrive
    tile.cluster_arrive {relaxed}
    ```
  }];
  let arguments = (ins UnitAttr:$relaxed);
  let assemblyFormat = "attr-dict";
}

def Tile_ClusterWaitOp : Tile_Op<"cluster_wait", [Tile_InKernel,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait until every thread of the cluster arrived";
  let description = [{
    TileLang's `T.cluster_wait()`: the thread waits until all threads of
    all blocks of its cluster performed `tile.cluster_arrive`, and acquires
    what their arrivals released (`T.cluster_sync()` is the two in a row).
    On NVIDIA sm_90 and newer `barrier.cluster.wait`; elsewhere as
    `tile.cluster_arrive`.

    ```mlir
    tile.cluster_wait
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_BlockRankInClusterOp : Tile_Op<"block_rank_in_cluster",
    [Tile_InKernel, Pure]> {
  let summary = "The block's rank within its thread block cluster";
  let description = [{
    TileLang's `T.block_rank_in_cluster()`: the linear index of this block
    in its cluster, x fastest (`%cluster_ctarank` on NVIDIA sm_90 and newer,
    from 0 to the cluster's size - 1); 0 in a kernel without a cluster
    elsewhere, and an error in a kernel with one there.

    ```mlir
    %rank = tile.block_rank_in_cluster
    ```
  }];
  let results = (outs Index:$rank);
  let assemblyFormat = "attr-dict";
}

def Tile_ClusterBarrierArriveOp : Tile_Op<"cluster_barrier_arrive", [
    Tile_InKernel]> {
  let summary = "Arrive on a barrier of a block of the cluster";
  let description = [{
    TileLang's `T.mbarrier_arrive(barrier, cta_id)` on a cluster barrier
    (`T.alloc_cluster_barrier`): every thread that reaches the op arrives
    once on barrier `index` of `barriers` in the shared memory of the block
    of rank `cta` in its cluster (`tile.block_rank_in_cluster`), releasing
    its earlier accesses at cluster scope. The barriers must have been
    initialized, and the cluster synchronized since (`tile.cluster_arrive`
    and `tile.cluster_wait`), before any block arrives on another's; the
    block that owns them must not exit before the arrivals land. On NVIDIA
    sm_90 and newer `mapa` and `mbarrier.arrive.release.cluster
    .shared::cluster`; elsewhere it is an error in a kernel whose cluster
    has several blocks, and an arrival on the block's own barrier (rank 0)
    otherwise.

    ```mlir
    tile.cluster_barrier_arrive %bars[%c0] cta(%rank) : memref<1xi64, #tile.mem<shared>>
    ```
  }];
  let arguments = (ins
    Arg<Tile_Tile, "barriers", [MemRead, MemWrite]>:$barriers,
    Index:$index, Index:$cta);
  let assemblyFormat = [{
    $barriers `[` $index `]` `cta` `(` $cta `)` attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// tile.assume
//===----------------------------------------------------------------------===//

def Tile_AssumeOp : Tile_Op<"assume"> {
  let summary = "A fact about the call's arguments, checked before any kernel runs";
  let description = [{
    TileLang's `T.assume(cond)` where `cond` reads only what the host knows
    before launching (the sizes of dynamic dimensions, scalar arguments):
    the function's caller is told `message` (the runtime's
    `tileAssumeFailed`, an error of the call) and the function returns
    without running what follows when `condition` is false. It stands in the
    body of a function with no results, outside kernels (the front end
    places it before the kernel whose body stated it). A condition that
    reads what only a kernel knows (block or thread indices, loaded values)
    is a hint the front end drops.

    ```mlir
    tile.assume %divisible, "Assume: N % 4 == 0"
    ```
  }];
  let arguments = (ins I1:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// tile.make_tensor
//===----------------------------------------------------------------------===//

def Tile_MakeTensorOp : Tile_Op<"make_tensor", [Pure]> {
  let summary = "A global tensor at a run-time address";
  let description = [{
    TileLang's `T.make_tensor(ptrs[i], shape, dtype)`: the row-major global
    tensor of the result type whose first element is at `address` (an i64
    loaded from a pointer table: grouped GEMMs, mixture-of-experts layers),
    with `sizes` giving its dynamic dimensions in order. The result is a
    memref in the default (global) memory space with the identity layout.
    Nothing is known about the address: accesses check its alignment where
    they vectorize, and TMA does not move its tiles (the host creates
    tensor maps before the launch, from buffers it knows).

    ```mlir
    %a = tile.make_tensor %ptr[%m] : memref<?x128xf16>
    ```
  }];
  let arguments = (ins I64:$address, Variadic<Index>:$sizes);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $address (`[` $sizes^ `]`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// tile.thread_id
//===----------------------------------------------------------------------===//

def Tile_ThreadIdOp : Tile_Op<"thread_id", [Tile_InKernel, Pure]> {
  let summary = "The index of the executing thread in the block";
  let description = [{
    TileLang's `T.get_thread_binding(dim)`: the executing thread's index
    along dimension `dim` (0 = x, 1 = y, 2 = z) of the kernel's `threads`
    (of the whole block, in a warp-specialized side too). Code that uses it
    runs per thread. Tile ops (copies, gemms, reductions, parallels)
    synchronize the threads that run them, so they may depend on it through
    control flow only as a range of whole warps of a one-dimensional block
    on NVIDIA targets: an `scf.if` on `%tid < c`, `%tid >= c` or both
    (`and`) runs its tile ops on those threads (convert-tile-to-gpu gives
    it a `tile.thread_range`; no fragments inside, no tile ops in an else
    region); anything else is an error at the op. The CPU target runs each
    block as one thread and refuses the op.

    ```mlir
    %tx = tile.thread_id 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<2>]>:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_SyncThreadsOp : Tile_Op<"sync_threads", [Tile_InKernel,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "A barrier of the block's threads";
  let description = [{
    TileLang's `T.sync_threads()`: every thread of the block waits here
    until all have arrived, and what each wrote to shared or global memory
    before is visible to all after. Per-thread code (element accesses that
    depend on `tile.thread_id`) needs it between one thread's write and
    another's read; the tile ops synchronize the threads that run them
    themselves. Every thread must reach it: like the tile ops, it may depend
    on the thread index through control flow only as a range of whole warps
    (convert-tile-to-gpu), where it synchronizes those threads. Where a block
    runs as one thread (the CPU target), there is nothing to wait for.

    `threads(n)` states how many threads arrive (TileLang's named barrier
    `T.sync_threads(id, n)` under `if tx < n:`): convert-tile-to-gpu checks
    that n is the thread count of the range the op is in (of the block
    outside ranges); the hardware barrier is the range's own.

    ```mlir
    tile.sync_threads
    tile.sync_threads threads(256)
    ```
  }];
  let arguments = (ins
      OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$threads);
  let assemblyFormat = "(`threads` `(` $threads^ `)`)? attr-dict";
}

//===----------------------------------------------------------------------===//
// tile.fill / tile.clear
//===----------------------------------------------------------------------===//

def Tile_FillOp : Tile_Op<"fill", [Tile_InKernel,
    TypesMatchWith<"value type matches the element type of dst",
                   "dst", "value",
                   "::llvm::cast<::mlir::MemRefType>($_self).getElementType()">]> {
  let summary = "Set every element of an on-chip tile to a value";
  let description = [{
    ```mlir
    tile.fill %m, %neg_inf : memref<128xf32, #tile.mem<fragment>>
    ```
    A fill with a constant zero canonicalizes to `tile.clear`.
  }];
  let arguments = (ins Arg<Tile_StaticTile, "", [MemWrite]>:$dst,
                       AnyTypeOf<[AnySignlessInteger, AnyFloat]>:$value);
  let assemblyFormat = "$dst `,` $value attr-dict `:` type($dst)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_ClearOp : Tile_Op<"clear", [Tile_InKernel]> {
  let summary = "Set every element of an on-chip tile to zero";
  let description = [{
    ```mlir
    tile.clear %c : memref<128x128xf32, #tile.mem<fragment>>
    ```
  }];
  let arguments = (ins Arg<Tile_StaticTile, "", [MemWrite]>:$dst);
  let assemblyFormat = "$dst attr-dict `:` type($dst)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// tile.reduce
//===----------------------------------------------------------------------===//

def Tile_ReduceOp : Tile_Op<"reduce", [Tile_InKernel]> {
  let summary = "Reduce an on-chip tile along one dimension";
  let description = [{
    Reduces `src` along `dim` with `max`, `min`, `sum`, `abssum` (sum of
    absolute values), `absmax` (largest absolute value) or, on integers,
    `bitand`, `bitor`, `bitxor` into `dst`, whose shape is the shape of
    `src` without `dim` (or with `dim` of extent 1). With `clear = true`
    (the default, as in TileLang) `dst` is overwritten; with `clear = false`
    the reduction also combines the values already in `dst`. Float `max`,
    `min` and `absmax` ignore NaN elements as TileLang's do (IEEE maxNum /
    minNum) unless `nan_propagate = true`,
    which makes any NaN the result.

    ```mlir
    tile.reduce <max> %s to %m dim 1
        : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
    ```
  }];
  let arguments = (ins
    Tile_ReduceKindAttr:$kind,
    Arg<Tile_StaticTile, "", [MemRead]>:$src,
    Arg<Tile_StaticTile, "", [MemRead, MemWrite]>:$dst,
    I64Attr:$dim,
    DefaultValuedAttr<BoolAttr, "true">:$clear,
    DefaultValuedAttr<BoolAttr, "false">:$nan_propagate
  );
  let assemblyFormat = [{
    $kind $src `to` $dst `dim` $dim attr-dict `:` type($src) `to` type($dst)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// tile.cumsum
//===----------------------------------------------------------------------===//

def Tile_CumsumOp : Tile_Op<"cumsum", [Tile_InKernel]> {
  let summary = "Inclusive prefix sum (or max, min) of an on-chip tile along one dimension";
  let description = [{
    `dst[..., i, ...] = sum(src[..., j, ...] for j <= i)` along `dim`, or for
    `j >= i` with `reverse`. `dst` may be `src` (in place). With `kind` max
    or min the scan is a running maximum or minimum (TileLang's `T.cummax`,
    `T.cummin`; float NaN elements are skipped as in tile.reduce).

    ```mlir
    tile.cumsum %s to %s dim 1 : memref<32x128xf32, #tile.mem<shared>>
        to memref<32x128xf32, #tile.mem<shared>>
    tile.cumsum %s to %m dim 1 {kind = #tile.reduce_kind<max>, reverse}
        : memref<32x128xf32, #tile.mem<shared>> to memref<32x128xf32, #tile.mem<shared>>
    ```
  }];
  let arguments = (ins
    Arg<Tile_StaticTile, "", [MemRead]>:$src,
    Arg<Tile_StaticTile, "", [MemWrite]>:$dst,
    I64Attr:$dim,
    UnitAttr:$reverse,
    DefaultValuedAttr<Tile_ReduceKindAttr, "::mlir::tile::ReduceKind::Sum">:$kind
  );
  let assemblyFormat = [{
    $src `to` $dst `dim` $dim attr-dict `:` type($src) `to` type($dst)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// tile.atomic_add
//===----------------------------------------------------------------------===//

def Tile_AtomicAddOp : Tile_Op<"atomic_add", [Tile_InKernel,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Atomically add a value or a whole tile into a buffer";
  let description = [{
    Element form: `value` is a scalar and `dst_offsets` index one element of
    `dst` (one offset per dimension). Tile form: `value` is an on-chip tile
    placed in `dst` as `tile.copy` places it: a region (`%C[%b, %m : 64,
    %n : 64]`), a head address aligned to the trailing dimensions, or, with
    no offsets, the whole of `dst`; the same edge rules apply (additions
    outside a global `dst` are dropped). Each element is added atomically
    with respect to every other block.

    ```mlir
    tile.atomic_add %v to %out[%i] : f32 to memref<?xf32>
    tile.atomic_add %part to %C[%m, %n]
        : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
    tile.atomic_add %part to %dQ[%b, %m : 64, %h, %c0 : 64]
        : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?x?x64xf32>
    ```
  }];
  let arguments = (ins
    AnyTypeOf<[AnySignlessInteger, AnyFloat, Tile_StaticTile]>:$value,
    Tile_Tile:$dst,
    Variadic<Index>:$dst_offsets,
    OptionalAttr<DenseI64ArrayAttr>:$dst_sizes
  );
  let assemblyFormat = [{
    $value `to` $dst `` custom<TileRegion>($dst_offsets, $dst_sizes) attr-dict
    `:` type($value) `to` type($dst)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True for the tile form (the value is an on-chip tile).
    bool isTileForm() { return ::llvm::isa<::mlir::MemRefType>(getValue().getType()); }
    /// Where the tile lies in `dst` (tile form only).
    ::mlir::tile::TileRegion getDstRegion();
  }];
}

//===----------------------------------------------------------------------===//
// tile.parallel
//===----------------------------------------------------------------------===//

def Tile_ParallelOp : Tile_Op<"parallel", [Tile_InKernel,
    RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"::mlir::tile::YieldOp">,
    DeclareOpInterfaceMethods<LoopLikeOpInterface, ["getLoopInductionVars"]>]> {
  let summary = "Elementwise work over a tile, spread over the block's threads";
  let description = [{
    TileLang's `T.Parallel`: the body runs once for every point of the
    iteration space `extents`, in no particular order and with no ordering
    between iterations (each iteration must touch its own elements). The
    compiler distributes the iterations over the block's threads to match
    the layouts of the fragments the body accesses.

    ```mlir
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %c[%i, %j] : memref<128x128xf32, #tile.mem<fragment>>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %c[%i, %j] : memref<128x128xf32, #tile.mem<fragment>>
    }
    ```

    With `async` the body must be an element copy from global memory into
    one shared tile (a *gather*: TileLang's `T.Parallel` loops such as
    `K_s[i, d] = KV[b, Idx[b, s, k * 64 + i], d]`): no nested regions, no
    memory effects but loads of global buffers and stores into that tile,
    each of a value loaded from a global buffer of the tile's element type.
    Its stores may then still be in flight when the next operation starts,
    as for `tile.copy {async}`: the tile holds them only after a
    `tile.async_wait` that covers the group (`tile.async_commit`) the loop
    was issued in. Pipeline planning (`tile-plan-pipelines`) sets it when it
    stages such a loop; on NVIDIA GPUs from sm_80 the runs of consecutive
    elements its vector accesses move become `cp.async` transfers (4, 8 or
    16 bytes), elsewhere (and where a run is misaligned at run time) the
    stores are plain ones.

    ```mlir
    tile.parallel (%i, %d) in (64, 512) attributes {async} {
      %r = memref.load %idx[%i] : memref<64xi32>
      %row = arith.index_cast %r : i32 to index
      %v = memref.load %kv[%row, %d] : memref<?x512xbf16>
      memref.store %v, %k_s[%i, %d] : memref<64x512xbf16, #tile.mem<shared>>
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$extents, UnitAttr:$async);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::llvm::ArrayRef<int64_t>":$extents)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getIndices() {
      return getBody().getArguments();
    }
    /// The shared tile the body copies global elements into, when it is the
    /// body `async` allows (see the description); null otherwise.
    ::mlir::Value getGatherDestination();
  }];
}

//===----------------------------------------------------------------------===//
// tile.pipelined
//===----------------------------------------------------------------------===//

def Tile_PipelinedOp : Tile_Op<"pipelined", [Tile_InKernel,
    RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"::mlir::tile::YieldOp">,
    DeclareOpInterfaceMethods<LoopLikeOpInterface, [
      "getLoopInductionVars", "getLoopLowerBounds", "getLoopUpperBounds",
      "getLoopSteps"]>]> {
  let summary = "A loop whose copies the compiler overlaps with its compute";
  let description = [{
    TileLang's `T.Pipelined`: a sequential loop over `[lb, ub)` by `step`
    whose iterations the compiler software-pipelines over `num_stages`
    stages (multi-buffered shared tiles, asynchronous copies, barriers). The
    result is the same as running the loop sequentially.

    `order` and `stage` optionally fix the schedule by hand: one entry for
    each top-level operation of the body that has memory effects, in
    program order. `order` is a permutation giving the issue order within an
    iteration; `stage` gives each operation's pipeline stage, in
    `[0, num_stages)`.

    ```mlir
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      tile.copy %A[%m, %k] to %a_s : ...
      tile.copy %B[%k, %n] to %b_s : ...
      tile.gemm %a_s, %b_s, %c_f : ...
    }
    ```
  }];
  let arguments = (ins
    Index:$lower_bound,
    Index:$upper_bound,
    Index:$step,
    I64Attr:$num_stages,
    OptionalAttr<DenseI64ArrayAttr>:$order,
    OptionalAttr<DenseI64ArrayAttr>:$stage
  );
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$lowerBound, "::mlir::Value":$upperBound,
                   "::mlir::Value":$step, "int64_t":$numStages)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Value getInductionVar() { return getBody().getArgument(0); }
    /// The top-level operations of the body that `order` and `stage` index.
    ::llvm::SmallVector<::mlir::Operation *> getScheduledOps();
  }];
}

//===----------------------------------------------------------------------===//
// tile.annotate_layout / tile.use_swizzle
//===----------------------------------------------------------------------===//

def Tile_AnnotateLayoutOp : Tile_Op<"annotate_layout", [Tile_InKernel,
    MemoryEffects<[MemWrite<Tile_HintResource>]>]> {
  let summary = "Fix the layout of an on-chip tile";
  let description = [{
    TileLang's `T.annotate_layout`: a `#tile.swizzle` for a shared tile or a
    `#tile.fragment` for a fragment. Layout inference treats it as a
    constraint. When `buffer` comes straight from a `tile.alloc_*`, or is a
    `tile.view` of a shared one (the swizzle then seen in the tile's element
    type), the annotation canonicalizes into that allocation's `layout`
    attribute.

    ```mlir
    tile.annotate_layout %a_s : memref<128x64xf16, #tile.mem<shared>>
        layout #tile.swizzle<3, 3, 3>
    ```
  }];
  let arguments = (ins Tile_StaticTile:$buffer, AnyAttr:$layout);
  let assemblyFormat = "$buffer `:` type($buffer) `layout` $layout attr-dict";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// Sets the layout on the allocation `buffer` comes from (straight, or
    /// through a tile.view of a shared tile: the view's swizzle seen in the
    /// tile's element type) and erases this op; failure when there is none.
    LogicalResult moveToAllocation(RewriterBase &rewriter);
  }];
}

def Tile_UseSwizzleOp : Tile_Op<"use_swizzle", [
    HasParent<"::mlir::tile::KernelOp">,
    MemoryEffects<[MemWrite<Tile_HintResource>]>]> {
  let summary = "Rasterize the block grid in panels for L2 reuse";
  let description = [{
    TileLang's `T.use_swizzle(panel_size, order)`: remaps block indices so
    that consecutive blocks walk the grid in panels of `panel_size` rows
    (`row`) or columns (`column`), which keeps their operands in L2. It
    changes only the order in which tiles are computed, never the result.
    At most one per kernel, directly in the body of a kernel with a grid of
    at least two dimensions.

    The blocks, numbered x fastest, walk the grid in panels of
    `panel_size` rows of blocks (columns with the column order): down the
    rows of one column of the panel, then the next column, every other
    panel right to left; a last, shorter panel is walked the same way. The
    GPU lowerings remap the block ids so; the CPU lowering applies the same
    order to its grid loops.

    ```mlir
    tile.use_swizzle panel(10)
    tile.use_swizzle panel(8) {order = #tile.raster<column>}
    ```
  }];
  let arguments = (ins
    I64Attr:$panel_size,
    DefaultValuedAttr<Tile_RasterOrderAttr,
                      "::mlir::tile::RasterOrder::Row">:$order
  );
  let assemblyFormat = "`panel` `(` $panel_size `)` attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// tile.yield
//===----------------------------------------------------------------------===//

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["KernelOp", "ParallelOp", "PipelinedOp", "ProducerOp",
                 "TakeTurnsOp"]>]> {
  let summary = "Terminator of tile regions";
  let description = [{
    Ends the body of `tile.kernel`, `tile.parallel`, `tile.pipelined`,
    `tile.producer` and `tile.take_turns`.
    It is implicit in their custom form.
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TILELANG_DIALECT_TILE_IR_TILEOPS_TD
