//===- Passes.td - Tile-level passes -----------------------*- tablegen -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TRANSFORMS_PASSES_TD
#define TILELANG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAttachTarget : Pass<"tile-attach-target", "::mlir::ModuleOp"> {
  let summary = "Attach the compilation target to the module";
  let description = [{
    Sets the module attribute `tile.target` that every later pass reads:

    ```
    tile-opt --tile-attach-target="kind=cuda chip=sm_90a"
    ```

    For `cuda`, empty `features` mean `+ptx80` (the lowest PTX version that
    supports both sm_80 and sm_90a). A module that already targets something
    else is an error unless `overwrite` is set.
  }];
  let options = [
    Option<"kind", "kind", "std::string", /*default=*/"\"cuda\"",
           "Target kind: cpu, cuda or rocm">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Chip: sm_80, sm_90a, gfx942, gfx1100, host, ...">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Target features, e.g. +ptx80">,
    Option<"overwrite", "overwrite", "bool", /*default=*/"false",
           "Replace a different target already on the module">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileEmitCInterface : Pass<"tile-emit-c-interface", "::mlir::ModuleOp"> {
  let summary = "Give every public function a C-compatible wrapper";
  let description = [{
    Sets `llvm.emit_c_interface` on every public `func.func` with a body at
    the top of the module, so that func-to-llvm also emits
    `_mlir_ciface_<name>`, which takes each memref as a pointer to its
    descriptor (what the JIT and C++ callers use). Drops `llvm.align` from
    the functions' memref arguments: the tile lowering has read the
    alignment the JIT specialized the buffers for, and the wrapper would
    keep it on the pointer to the descriptor, claiming an alignment the
    caller's descriptor does not have (aligned vector loads of it fault).
    The pipelines run it with `emit-c-interface`.

    ```
    tile-opt --tile-emit-c-interface
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileSelectInstructions
    : Pass<"tile-select-instructions", "::mlir::ModuleOp"> {
  let summary = "Choose the instruction of each tile.gemm and the engine "
                "of each tile.copy";
  let description = [{
    Sets `instruction` (a `#tile.gemm_instruction`) on every `tile.gemm`
    that has none, for the module's target (`tile.target`) and the threads
    of its kernel, taking the first that can run it of:

    1. `wgmma m64nNk16` (with `wgmma`, NVIDIA sm_90): f16/bf16 operands
       with f32 accumulation, A K-major in shared memory (rows of 32, 64 or
       128 bytes, or wider ones with `wgmma-blocked`) or a fragment
       (`register_a`), B in shared memory, N a multiple of 8 up to 256, 64
       rows of C per warpgroup (128 with `wgmma-tall-rows`: `blocks = 2`),
       and shared operands that keep the swizzle wgmma reads;
    2. `mma_sync m16n8k16` (`k32` for int8; NVIDIA sm_80 and newer): f16,
       bf16 and int8 (A M x K, B N x K) operands, M, N, K multiples of the
       instruction, rows of whole 16-byte vectors;
    3. `mfma m16n16k16` (gfx90a, gfx94x, gfx950) or `wmma m16n16k16`
       (gfx11): f16/bf16 operands with f32 accumulation, M, N, K multiples
       of 16, whole waves;
    4. `simt`: anything else (and every gemm on the CPU).

    With `wgmma-blocked`, the tensor-core instructions it chooses are
    `blocked` (and `panels` with `wgmma-panels` too): their shared tiles
    with 16-bit rows wider than 128 bytes (operands, the staging of C) will
    be laid out in the blocked 128-byte swizzle (in column panels), which
    is also what lets wgmma take such operand rows.

    The later stages read the choice: `tile-plan-pipelines` keeps wgmma work
    in flight across iterations and swizzles staged operand tiles as their
    gemm's instruction says, `tile-infer-layout` gives C (and A in a
    fragment) the instruction's layout, wgmma gemms the `full_row`
    partition and shared operand and staging tiles the instruction's
    swizzle, `convert-tile-to-gpu` keeps their fragments in registers and
    emits the instruction. A gemm that already has an instruction keeps it
    when the instruction can run it and is an error otherwise; a gemm that
    reaches those stages without one takes this pass's choice with its
    default options but `wgmma` off.

    ```
    tile-opt --tile-attach-target="kind=cuda chip=sm_90a" \
        --tile-select-instructions="wgmma-tall-rows"
    ```

    Where the registers decide that wgmma cannot take a gemm after all
    (its C kept out of registers), `tile-select-register-fragments`
    restamps it with the default choice (`TargetInfo::
    reviseGemmInstructions`); `convert-tile-to-gpu` refuses a wgmma stamp
    it cannot emit.

    Sets `engine` (a `#tile.copy_engine`) on every `tile.copy` that has
    none, taking the first that can move it of:

    1. `tma` (NVIDIA sm_90): a copy that arrives on a barrier, or with
       `tma-store` a synchronous copy of a whole shared tile into a global
       buffer: a 2-D tile along the last dimension of a kernel argument of
       rank 2 to 5 and an element type tensor maps take, moved by boxes
       (for a store whose tile tile-infer-layout may still swizzle, the
       lowering checks the box and otherwise takes the generic copy);
    2. `cp_async` (NVIDIA sm_80 and newer): an async copy without barriers
       of a global region into a whole shared tile, in vectors of 16, 8 or
       4 bytes;
    3. `buffer_load` (AMD): a copy without barriers of a global region into
       a whole LDS tile, in such vectors;
    4. `vector`: the generic copy where both sides' layouts allow vectors;
    5. `elements`: anything else.

    A copy that already has an engine keeps it when the engine can move it
    and is an error otherwise. `tile-plan-pipelines` and
    `tile-prefetch-copies` stamp the asynchronous copies they make with the
    same choice.
  }];
  let options = [
    Option<"wgmma", "wgmma", "bool", /*default=*/"true",
           "On sm_90 targets, gemms that fit wgmma run on it">,
    Option<"blockedOperands", "wgmma-blocked", "bool",
           /*default=*/"false",
           "Tensor-core instructions are `blocked`: their shared tiles with "
           "rows wider than 128 bytes take the blocked 128-byte swizzle, "
           "which wgmma reads">,
    Option<"panelBlocks", "wgmma-panels", "bool", /*default=*/"false",
           "With wgmma-blocked, the instructions are `panels` too: blocked "
           "tiles are stored in column panels (one TMA box per panel; the "
           "sm_90 pipeline's default)">,
    Option<"wgmmaTallRows", "wgmma-tall-rows", "bool", /*default=*/"false",
           "A warpgroup may own 128 rows of a wgmma gemm's C (two m64 "
           "blocks, N <= 128; A in shared memory or registers)">,
    Option<"tmaStore", "tma-store", "bool", /*default=*/"false",
           "On sm_90 targets, synchronous copies of whole shared tiles into "
           "global buffers are TMA stores">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileInferLayout : Pass<"tile-infer-layout", "::mlir::ModuleOp"> {
  let summary = "Choose the register layout of every fragment";
  let description = [{
    Gives every `tile.alloc_fragment` in a `tile.kernel` a `layout`
    (`#tile.fragment`) that records which thread holds each element and in
    which register slot. Constraints, strongest first:

    1. a layout the user gave (`tile.annotate_layout`, which this pass
       moves onto the allocation it names, as the canonicalizer does);
    2. the C tile of a `tile.gemm` whose instruction (`instruction`, set by
       `tile-select-instructions`; without one, that pass's default choice)
       is `mma_sync` gets the accumulator layout of that instruction, 16x8
       pieces spread over the warp grid that the gemm's policy chooses (the
       layout the tensor-core lowering keeps in registers), and an A tile
       in a fragment gets the m16k16 operand layout (replicated over the
       warp columns that share it); `wgmma` gemms take policy `full_row`
       first, whatever their policy (64 rows of C per warpgroup, wgmma's
       accumulator order; with `blocks = 2`, two m64 blocks per
       warpgroup), and `mfma`/`wmma` gemms the matrix cores' accumulator
       layout;
    3. fragments accessed at the same coordinates `(i, j, ...)` of one
       `tile.parallel`, and the two sides of a fragment-to-fragment
       `tile.copy`, share one layout;
    4. the result of a `tile.reduce` of a fragment lives on every thread
       that held part of its row (a replica dimension in the thread map),
       in program order, once the source's layout is known;
    5. anything else is row-major with up to 16 contiguous bytes per thread
       along the innermost dimension (vector-friendly).

    Shared tiles that an mma.sync gemm reads through ldmatrix get a
    `#tile.swizzle` that spreads the eight rows of each ldmatrix read over
    eight 16-byte bank groups, unless the user gave one. For rows of 32, 64
    and 128 bytes these are also wgmma's canonical K-major swizzles. An
    operand that is a window of a wider tile's page (a memref.subview of
    part of the trailing two dimensions, `Q_shared[:, :512]`) gives the
    tile the swizzle of the page, kept when only gemms read the window.

    On the same targets, a shared tile without a layout that only stages
    data from a fragment to global memory (whole-tile copies from a
    fragment into it and from it into a global buffer: a staged epilogue)
    gets the same swizzle (16-bit rows wider than 128 bytes the blocked
    layout, in column panels, where the instruction of the gemm whose
    accumulators it stages is `blocked`, `panels`): the fragment's stores
    hit distinct banks and a TMA store can read it. Shared operand tiles
    too take the layout of wide rows their gemm's instruction records.
    Last, a swizzle that some access of its tile would not apply (an
    element-wise access: only copies and gemms apply swizzles) is dropped,
    whoever gave it, so the layouts after this pass are what the lowering
    applies.

    Two constraints that force different layouts on one fragment are an
    error on the op that joined them, with a note on the op that fixed the
    first layout. Layouts are compared element by element, not by how their
    maps are written: FlashAttention's P tile, the f16 copy of one gemm's
    accumulator and the A operand of the next, satisfies both.

    ```
    tile-opt --tile-attach-target="kind=cuda chip=sm_90a" --tile-infer-layout
    ```

    With `keep-conflicts-in-memory` (what the GPU pipelines use), a
    conflict is not an error: the fragments of that class get no layout, so
    `convert-tile-to-gpu` keeps them in shared memory, and the kernel
    compiles as it would without inference.

    Not yet inferred: reductions of already replicated layouts (their
    results take the default). `convert-tile-to-gpu` reads the layouts
    (register fragments).
  }];
  let options = [
    Option<"keepConflictsInMemory", "keep-conflicts-in-memory", "bool",
           /*default=*/"false",
           "Leave fragments with conflicting layouts without a layout "
           "instead of failing">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TilePlanPipelines : Pass<"tile-plan-pipelines", "::mlir::ModuleOp"> {
  let summary = "Multi-buffer the copies of tile.pipelined loops and make "
                "them asynchronous";
  let description = [{
    Software-pipelines every `tile.pipelined` loop with `num_stages = S`
    (S >= 2; S = 1 with `single-stage`, below) over its global-to-shared
    copies: each such copy gets S
    buffers, the copies of the first S - 1 iterations are issued before the
    loop, and iteration `i` waits for its own tiles, computes, then issues
    the copies of iteration `i + S - 1` into the buffer that iteration
    `i - 1` used (the wait synchronized the block, so no thread still reads
    it; issuing after the compute overlaps the copies' address arithmetic
    with the compute still in flight):

    ```
    prologue:   copies(lb + s * step) into buffer s, commit    (s < S - 1)
    loop body:  async_wait pending(S - 2)       // iteration i has landed
                the body, reading buffer i mod S
                copies(iv + (S - 1) * step) into buffer (i + S - 1) mod S
                commit
    after it:   async_wait pending(0)
    ```

    Copies of iterations past the end are skipped, but every stage commits
    a group, so the waits count stages. The copies become `tile.copy
    {async}` (cp.async on NVIDIA GPUs; plain copies elsewhere, where the
    result is the same). The loop computes what it computed before.

    A copy is pipelined when it stands directly in the loop body, goes from
    a global buffer to a whole shared tile of the kernel with the same
    element type, comes before every other use of that tile in the
    iteration, is the only write to it, the tile is used nowhere outside
    the loop, and its offsets depend on the induction variable only
    through side-effect-free operations of the body. A loop whose body
    writes global memory (which the prefetched tiles might alias) or that
    fixes its schedule by hand (`order`, `stage`) is left as it is.

    A `tile.parallel` of the body that copies global elements into a shared
    tile (`ParallelOp::getGatherDestination`: TileLang's gathers such as
    `K_s[i, d] = KV[b, Idx[b, s, k * 64 + i], d]`, whose index loads read
    global memory the loop does not write) is pipelined as such a copy
    when it also stores every element of the tile at its own coordinates
    (its extents are the tile's shape): its clones become `tile.parallel
    {async}` in the stages' copy groups (cp.async on NVIDIA GPUs). A loop
    with such a gather counts its stages in copy groups, never on TMA's
    arrival barriers.

    On NVIDIA targets, a pipelined tile that a `tile.gemm` reads gets the
    ldmatrix swizzle (`#tile.swizzle`) unless it has a layout already, so
    tensor-core operand loads hit distinct shared-memory banks; 16-bit rows
    wider than 128 bytes the blocked layout (in column panels) where that
    gemm's instruction is `blocked` (`panels`).

    With `overlap-gemms`, a gemm of the body that runs on wgmma (its
    `instruction`, from tile-select-instructions), reads only pipelined tiles and whose C tile
    nothing else in the loop touches keeps its last k tile of tensor-core work in flight
    across iterations (`wg_wait = 1`). Iteration `i` then knows only that
    the block finished the work of iteration `i - 2`, so it prefetches
    `S - 2` ahead into that buffer (S >= 4: with three buffers the copies
    would run only one iteration ahead), and a `tile.gemm_wait
    pending(0)` after the loop completes the last group before C is read.
    The held buffer is given back where shared memory allows: a loop of
    three stages gets a fourth when it fits, a deeper one another buffer
    when the kernel keeps its blocks per multiprocessor. An operand that
    the body rewrites whole each iteration before the gemm (one
    `tile.parallel` storing every element at its coordinates, nothing else
    touching the tile: a dequantize loop) counts as pipelined: it gets two
    buffers, iteration `i` writing buffer `i mod 2`:

    ```
    prologue:   copies(lb + s * step) into buffer s, commit    (s < S - 2)
    loop body:  async_wait pending(S - 3)
                the body; its gemms {wg_wait = 1}
                copies(iv + (S - 2) * step) into buffer (i + S - 2) mod S
                commit
    after it:   gemm_wait pending(0), async_wait pending(0)
    ```

    Gemms the kernel itself leaves in flight (`wg_wait` != 0, as
    FlashAttention-3's intra-warpgroup overlap writes them): when a
    `tile.gemm_wait pending(0)` follows the last of them in the body, the
    prefetch is issued right after that gemm, while its tensor-core work
    runs (every thread waited for iteration i - 1's work before the block
    barrier of iteration i's wait). When their work crosses iterations
    instead, the prefetch stays at the end of the body and a gemm that would
    not wait at all (`wg_wait = -1`) waits for all but one group
    (`wg_wait = 1`): iteration i - 1's reads are then done before its buffer
    is refilled.

    With `tma` on an sm_90 target, a loop whose pipelined copies all read
    global buffers of rank 2 to 5 into 2-D tiles TMA can write in one box
    (rows of 16-byte multiples up to 256 elements, at most 256 rows;
    unswizzled, or rows of 32, 64 or 128 bytes with the swizzle of that
    width; blocked 16-bit tiles in column panels take one box per panel,
    blocked tiles without panels one per 8-row block only with
    `tma-blocked`) counts its stages on arrival barriers instead of
    copy groups: one barrier per buffer (`tile.barrier_init`, one arrival
    per copy), the copies `tile.copy {async} arrive(%bars[stage])` (one TMA
    transfer each), and each iteration waits for its barrier's phase:

    ```
    before:     barrier_init %bars arrivals(number of copies)
    prologue:   copies(lb + s * step) into buffer s, arrive(%bars[s])
    loop body:  barrier_wait %bars[i mod S] parity((i floordiv S) mod 2)
                the body
                copies(iv + d * step) into buffer (i + d) mod S,
                  arrive(%bars[(i + d) mod S])        (d = S - 1, or S - 2)
    after it:   gemm_wait pending(0) when gemms overlap
    ```

    With `single-stage`, a loop of `num_stages = 1` is planned too, with
    one buffer per tile (TileLang's one stage: the tile the user
    allocated): each copy of iteration i + 1 is issued right after the
    top-level op of the body that reads its tile last in iteration i
    (after the `tile.gemm_wait pending(0)` that completes a gemm left in
    flight), copies read last by the same op together, and each tile is
    waited for right before the op that reads it first. FlashAttention's
    K tile then loads during the softmax and P V, its V tile during the
    next Q K^T:

    ```
    before:     barrier_init %bars arrivals(1)      (TMA: one per copy)
    prologue:   copies(lb), arrive(%bars[c])
    loop body:  barrier_wait %bars[c] parity(i mod 2)  before c's first read
                ...
                copies(iv + step) of the tiles read last here,
                  under iv + step < ub                  after that read
    ```

    Without TMA each point of refills is one copy group after a
    `tile.sync_threads` (threads may still read the tiles), and each wait
    is a `tile.async_wait` that leaves in flight the groups committed
    after the tile's own; a `tile.async_wait pending(0)` follows the loop.
    The tiles used outside the loop stay usable there: every copy the loop
    issues is waited for in it.

    With `single-stage-producer` too (and TMA, a kernel that can take a
    producer, see `warp-specialize`, and no use of the tiles before the
    loop), a `tile.producer` issues every
    iteration's copies instead, each after the consumers released its tile
    (a second barrier per copy, one arrival per consumer warp right after
    the tile's last read), as TileLang's one-stage warp specialization
    does; no copy is issued before or in the loop:

    ```
    before:     barrier_init %full arrivals(1), %free arrivals(warps)
                tile.producer { scf.for i: for each copy c:
                  barrier_wait %free[c] parity((i + 1) mod 2) {issuer}
                  copy(i) arrive(%full[c]) }
    loop body:  barrier_wait %full[c] parity(i mod 2)   before c's first read
                ...; barrier_arrive %free[c]             after its last read
    ```

    With `tma-release` too (experimental), the block barrier that the
    TMA lowering puts before each stage's copies (so that no thread still
    reads the buffer) gives way to a second barrier array that every warp
    arrives on once it is done with a stage, which only the issuing thread
    waits for before refilling the stage (CUTLASS's consumer release and
    producer acquire); the warps no longer meet once per iteration:

    ```
    before:     barrier_init %released arrivals(warps of the block)
    loop body:  ...
                barrier_wait %released[j mod S] parity((j floordiv S + 1)
                  mod 2) {issuer}               (j = i + d: the prefetch)
                copies(...) arrive(%bars[j mod S])
                ...
                barrier_arrive %released[i mod S]       (or, with work in
                  flight across iterations, [(i - 1) mod S] from i = 1 on)
    ```

    ```
    tile-opt --tile-attach-target="kind=cuda chip=sm_90a" --tile-plan-pipelines
    ```
  }];
  let options = [
    Option<"overlapGemms", "overlap-gemms", "bool", /*default=*/"false",
           "On sm_90 targets, keep one k tile of each qualifying gemm's "
           "tensor-core work in flight across iterations (for wgmma)">,
    Option<"releaseBarriers", "tma-release", "bool", /*default=*/"false",
           "With tma, the warps release each stage on a second barrier "
           "array (tile.barrier_arrive) and the thread that issues the next "
           "copies into it waits for that (tile.barrier_wait {issuer}) "
           "instead of a block barrier before each stage's copies">,
    Option<"releaseMinWarpgroups", "tma-release-min-warpgroups", "int64_t",
           /*default=*/"1",
           "With tma-release, only loops of kernels with at least this "
           "many warpgroups (128 threads each) use them">,
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"false",
           "With release barriers, a tile.producer warpgroup issues every "
           "stage's copies (waiting for the stage's release) and the "
           "kernel's threads only consume them, for a pipeline directly in "
           "a kernel with one-dimensional threads, or in a persistent "
           "kernel's loop over tiles (the producer then loops over the "
           "same tiles, on the dynamic schedule taking each next one for "
           "the consumers, and fills count on across them; "
           "experimental)">,
    Option<"pingpong", "pingpong", "bool", /*default=*/"false",
           "With warp-specialize and two or more consumer warpgroups, they "
           "take turns issuing the loop body's first consecutive gemms "
           "(tile.take_turns: FlashAttention-3's ping-pong; experimental)">,
    Option<"prefetchFirst", "prefetch-first", "bool", /*default=*/"false",
           "Where no work crosses iterations (no overlapped gemms, no "
           "release barriers), issue each iteration's prefetch right after "
           "its stage wait, before the compute (the AMD pipelines: the "
           "compute then ends the loop body, and the backend keeps the "
           "matrix-core instructions next to their operand loads)">,
    Option<"releaseMaxStages", "tma-release-max-stages", "int64_t",
           /*default=*/"0",
           "With tma-release, only pipelines of at most this many "
           "stages use them (0: any)">,
    Option<"tmaBlocked", "tma-blocked", "bool", /*default=*/"false",
           "With tma, tiles in the blocked layout count as TMA-able too "
           "(one 8-row box per 1 KiB block; experimental)">,
    Option<"tma", "tma", "bool", /*default=*/"false",
           "On sm_90 targets, loops whose pipelined copies TMA can do wait "
           "on arrival barriers (tile.barrier_wait) and copy with arrive "
           "(one TMA transfer per copy)">,
    Option<"singleStage", "single-stage", "bool", /*default=*/"false",
           "Plan loops of num_stages = 1 too: each copy refills its one "
           "tile right after the iteration's last read of it, "
           "asynchronously, and is waited for before the next iteration's "
           "first read">,
    Option<"singleStageProducer", "single-stage-producer", "bool",
           /*default=*/"false",
           "With single-stage and tma: a tile.producer warpgroup issues "
           "each one-stage copy once the consumers released its tile "
           "(tile.barrier_arrive after the tile's last read), instead of "
           "the consumers' thread 0 (experimental)">
  ];
  let dependentDialects = [
    "::mlir::tile::TileDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileOverlapGemmChains
    : Pass<"tile-overlap-gemm-chains", "::mlir::ModuleOp"> {
  let summary = "Overlap a pipelined loop's two chained wgmma gemms across "
                "iterations (FlashAttention-3's softmax under P V)";
  let description = [{
    A `tile.pipelined` loop (step 1, no hand-fixed schedule) whose body has
    exactly two gemms, both on wgmma (`instruction`, from
    tile-select-instructions) and synchronous (`wg_wait = 0`), where the
    second reads its A from a register fragment `P` and its B from a shared
    tile `V` that one copy of the body fills from global memory:

    ```
    pre_k; S = Q K_k^T; mid_k (softmax of S, rescale O, P = S, copy V_k);
    O += P V_k; post_k
    ```

    is rotated so that iteration k issues its S and the previous
    iteration's `O += P_{k-1} V_{k-1}` together, computes the softmax while
    the tensor cores work, and only then waits for P V and runs what
    touches O or P:

    ```
    pre_lb; S = Q K_lb^T; mid_lb minus the copy of V; post_lb  (iteration lb)
    tile.pipelined k = lb + 1 to ub {
      pre_k; copy V_{k-1}
      S = Q K_k^T {wg_wait = -1}; O += P V_{k-1} {wg_wait = -1}
      tile.gemm_wait pending(1)          // S is done
      mid_k ops that touch neither O nor P; post_k
      tile.gemm_wait pending(0)          // P V is done
      mid_k ops that touch O or P (rescale O, P = S)
    }
    copy V_{ub-1}; O += P V_{ub-1}                         (iteration ub - 1)
    ```

    O sees the same operations in the same order (O += P_{k-1} V_{k-1},
    O *= scale_k, O += P_k V_k, ...). The first iteration and the last P V
    run outside the loop, under `lb < ub` unless the bounds are constants;
    their copies run unconditionally (`lb` must be a constant >= 0; reads
    past a global edge read zeros), so tile-prefetch-copies may issue them
    early; the last V lands in the first iteration's tile of the first
    gemm's B when the types agree (K_0 is dead by then: no more shared
    memory). tile-plan-pipelines then stages the rotated loop's copies.

    Left as they are (with `remarks`, a remark on the loop says why): loops whose body
    writes global memory, has ops of unknown effects or in-flight gemms
    already; where pre, the first gemm or post touch O or P, or where moving
    the ops that touch O or P after the others would reorder a conflicting
    pair; and where S (f32), P and O together would need more than
    `max-registers` registers per thread of the block (the 128-row tiles
    of a 128-thread block: 320), which would spill.
  }];
  let options = [
    Option<"maxRegisters", "max-registers", "int64_t", /*default=*/"192",
           "The most 32-bit registers per thread that S, P and O may take "
           "together for the rotation to apply">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark on each pipelined loop left as it is, saying "
           "why">
  ];
  let dependentDialects = [
    "::mlir::tile::TileDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileVersionParallel : Pass<"tile-version-parallel", "::mlir::ModuleOp"> {
  let summary = "Version tile.parallel ops on the block-wide outcome of "
                "their conditions";
  let description = [{
    A `tile.parallel` whose body selects (`arith.select`, `scf.if`) on a
    condition built from comparisons of index expressions that are affine
    in its indices (`c0 * i + c1 * j + s`, `s` the same for the whole tile:
    values defined outside the op, or computed in it from such values
    only), combined with `arith.andi` / `arith.ori` / negation, gets a
    copy for the case where the condition holds at every point of the
    iteration space, and, for a single condition, one where it holds at
    none. Whether it does is decided once per tile from the extremes of
    each comparison over the iteration box:

    ```mlir
    tile.parallel (%i, %j) in (128, 128) {
      %col = arith.addi %k128, %j : index
      %row = arith.addi %bx128, %i : index
      %in = arith.cmpi sgt, %seq, %col : index
      %causal = arith.cmpi sge, %row, %col : index
      %visible = arith.andi %in, %causal : i1
      %v = arith.select %visible, %zero, %ninf : f32
      memref.store %v, %s[%i, %j] : memref<128x128xf32, #tile.mem<fragment>>
    }
    ```

    becomes, with `all` = `seq > k128 + 127 and bx128 >= k128 + 127` and
    `none` = `seq <= k128 or bx128 + 127 < k128`,

    ```mlir
    scf.if %all {
      tile.parallel (%i, %j) in (128, 128) {  // stores %zero
    } else {
      scf.if %none {
        tile.parallel (%i, %j) in (128, 128) {  // stores %ninf
      } else {
        tile.parallel (%i, %j) in (128, 128) { ... }  // as before
      }
    }
    ```

    so that FlashAttention's causal and sequence-end masks are computed
    element by element only on the tiles they cut. The conditions are
    block-uniform (computed outside `tile.parallel`), so the branches do
    not diverge. Only signed comparisons (`slt`, `sle`, `sgt`, `sge`) of
    `index` values are analyzed, whose arithmetic is assumed not to wrap
    (tile coordinates and sizes); anything else leaves the op as it is.
    The copies are simplified (selects and `scf.if`s on the known
    condition folded). An outcome that is itself known at compile time (a
    condition of the indices alone, `i < 16` over 32 rows: it holds at some
    points and not at others of every tile) versions nothing; one known to
    hold everywhere, or nowhere, leaves only that version of the op.

    When the op stores +0.0 to every element of a register fragment on the
    uncut tiles and the `tile.gemm` right after the `scf.if` accumulates
    into that fragment (FlashAttention's `S = mask; S += Q K^T`), that copy
    goes and the gemm gets `clear_if(%all)`: on uncut tiles it overwrites S
    instead (wgmma's scale-d at run time), so no zeros are moved into the
    accumulators in each iteration of a loop that also holds cut tiles.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TilePrefetchCopies : Pass<"tile-prefetch-copies", "::mlir::ModuleOp"> {
  let summary = "Issue a kernel's one-off copies into shared tiles early, "
                "asynchronously";
  let description = [{
    A synchronous `tile.copy` from global memory into a whole shared tile,
    directly in a `tile.kernel` body (so it runs once per block), is
    issued as early as its offsets, its tile and global memory allow: above
    every earlier op of the body that neither uses the tile, nor may write
    global memory, nor defines one of the copy's operands, nor is the
    kernel's `tile.producer`. When that moves it above a loop, it becomes
    an asynchronous copy counted on a barrier of its own (initialized
    before the producer, if any), and a `tile.barrier_wait` takes its
    place. On sm_90 the copy is then one TMA transfer whose latency the
    loop hides (the overlapped attention's last V tile: the loop's buffers
    hold the other tiles); elsewhere it stays a synchronous copy, one
    barrier wait later. Runs after pipeline planning (whose staged buffers
    leave such a tile to the code after the loop).

    ```mlir
    tile.copy %V[%b, %h, %last, %c0] to %v_last
        : memref<?x?x?x128xf16> to memref<128x128xf16, #tile.mem<shared>>
    ```
    becomes, above the loop,
    ```mlir
    tile.copy %V[%b, %h, %last, %c0] to %v_last
        arrive(%bar[%c0] : memref<1xi64, #tile.mem<shared>>) {async} ...
    ```
    and, where the copy was, `tile.barrier_wait %bar[%c0] parity(%c0)`.

    With `producer`, a kernel whose `tile.producer` fills a pipelined loop
    of its body hands it such copies that may be issued from the top of the
    body: the producer issues each one (one TMA transfer) ahead of its
    fills when the copy comes before the pipelined loop (FlashAttention's Q
    tile), behind them when it comes after (the last V tile), and the
    consumers wait for it where the copy was. In a persistent kernel (the
    producer mirrors the loop over tiles of tile-make-persistent) the copy
    runs once per tile, from the body of that loop: the consumers release
    the tile after the body's last use of it (a `tile.gemm_wait pending(0)`
    first when a gemm reads it) on a second barrier, and the producer waits
    for the release of the tile before filling it for the next tile (the
    next tile's Q loads while the consumers finish the last P V and store
    the output; the copies of different tiles, whose blocks the grid did not
    order, may run in any order):

    ```mlir
    tile.producer {
      scf.for %t = ... {                          // the tiles
        tile.barrier_wait %free[%c0] parity((n + 1) mod 2) {issuer}
        tile.copy %Q[...] to %q arrive(%full[%c0] ...) {async}
        scf.for ... { the pipeline's fills }
      }
    }
    scf.for %t = ... {
      tile.barrier_wait %full[%c0] parity(n mod 2)   // n: the tile's index
      ... the pipelined loop, the last use of %q ...
      tile.gemm_wait pending(0)
      tile.barrier_arrive %free[%c0]
    }
    ```
  }];
  let options = [
    Option<"useProducer", "producer-copies", "bool", /*default=*/"false",
           "The kernel's tile.producer issues the copies it can (once per "
           "tile in persistent kernels, on release barriers)">
  ];
  let dependentDialects = [
    "::mlir::tile::TileDialect",
    "::mlir::arith::ArithDialect"
  ];
}

def TileMakePersistent : Pass<"tile-make-persistent", "::mlir::ModuleOp"> {
  let summary = "Persistent kernels: a fixed set of blocks loops over the "
                "grid's tiles";
  let description = [{
    Rewrites every `tile.kernel` (without clusters) so that `min(tiles, B)`
    blocks run and each loops over the tiles of the original grid: block
    `p` takes tiles `p, p + B, ...` in linear order (x fastest), with the
    kernel's `tile.use_swizzle` rasterization applied to each tile's
    coordinates. The kernel's allocations move in front of the loop (each
    block reuses its tiles from one grid tile to the next), which carries
    `tile.persistent_tiles` (pipeline planning may give it a
    warp-specialized producer that loops over the same tiles). `B` is the
    `blocks` option, or with `blocks = 0` the device's multiprocessor count
    at run time (tileMultiprocessorCount on the host; GPU targets only).
    What the kernel computes does not change.

    With `dynamic`, the tiles after the first wave go to whichever block
    asks first: the loop over tiles becomes an `scf.while` over
    `(tile, iteration)` (also marked `tile.persistent_tiles`) that ends once
    the tile index reaches the tile count; block `p` starts at tile `p` and
    takes each next index with `tile.next_tile` at the end of the body,
    from a pair of counters in a `memref.global` (one per kernel, zero at
    load) that `tile.finish_tiles` after the loop resets once the last
    block is done. Blocks that finish early take more tiles (balance for
    unequal tiles, as causal attention's), and the tiles in flight are
    consecutive (L2 locality).

    ```
    tile-opt --tile-make-persistent=blocks=132
    tile-opt --tile-make-persistent="blocks=132 dynamic-tiles=1"
    ```
  }];
  let options = [
    Option<"blocks", "blocks", "int64_t", /*default=*/"0",
           "How many blocks run (0: the multiprocessor count at run time)">,
    Option<"dynamic", "dynamic-tiles", "bool", /*default=*/"false",
           "Hand out the tiles after the first wave from a global counter">
  ];
  let dependentDialects = [
    "::mlir::tile::TileDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileContractFloatOps : Pass<"tile-contract-float-ops"> {
  let summary = "Let floating-point multiplies and adds contract into fused "
                "multiply-adds";
  let description = [{
    Adds the `contract` fast-math flag to every floating-point arith
    operation but the conversions (truncf, extf) under the op it runs on
    (the GPU pipelines run it on each kernel module): the backend may then fuse a multiply and a dependent
    add or subtract into one FMA, rounding once. This is what nvcc does by
    default (`-fmad=true`), what hipcc does for device code and what Triton
    does (`enable_fp_fusion`); without it the NVPTX backend marks every
    multiply and add `.rn`, which keeps ptxas from fusing them, and a
    softmax's `x * scale - max * scale` costs two instructions instead of
    one. Other flags stay as they are; results can differ from unfused
    arithmetic in the last bit of each fused operation. The CPU lowering
    (the reference) does not run it.

    ```mlir
    %y = arith.mulf %a, %b : f32     // becomes  arith.mulf %a, %b fastmath<contract> : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileExpandF8 : Pass<"tile-expand-f8"> {
  let summary = "Expand conversions of 8-bit and 4-bit floats into integer "
                "arithmetic";
  let description = [{
    LLVM has no 8-bit float types: a memref of `f8E4M3FN` or `f8E5M2`
    lowers to bytes, and `arith.extf` from those types (what a gemm or
    copy with f8 operands produces) has no LLVM lowering. This pass
    rewrites every `arith.extf` from f8E4M3FN or f8E5M2 to f16, bf16, f32
    or f64 into integer operations on the byte, exactly (every value of
    either format is representable in each wider type), so that the CPU and
    GPU pipelines lower it like any other integer code:

    * The f32 bit pattern is rebuilt in integers: normal numbers take the
      exponent + (127 - bias) and the mantissa in the top bits; subnormals
      are `mantissa * 2^(1 - bias - mantissa bits)`; NaNs stay NaN with
      their sign on every backend (a detour through f16 would let a GPU's
      f16 -> f32 conversion drop the sign).
    * f8E4M3FN: bias 7, 3 mantissa bits, no infinities, NaN = S.1111.111.
    * f8E5M2: bias 15, 2 mantissa bits, infinities and NaNs at exponent 31.

    `arith.truncf` to f8E4M3FN or f8E5M2 from f16, bf16, f32 or f64
    rounds to the nearest value, ties to the even code, and saturates:
    magnitudes past the largest finite value (448; 57344) and infinities
    give it, with their sign; values that round to zero keep their sign; a
    NaN gives 0x7F. These are CUDA's `__nv_cvt_float_to_fp8(x,
    __NV_SATFINITE, ...)` and PTX's `cvt.rn.satfinite` (what TileLang's
    `T.cast` emits), computed in integers on the source's bits so that
    every backend gives the same bytes. Integers convert through f32
    (`arith.sitofp`/`uitofp` to an 8-bit float: the integer clamped to
    +-2^17, exact in f32 and past every largest value, then this
    truncation; `arith.fptosi`/`fptoui` from one: from its exact f32
    value).

    Comparisons (`arith.cmpf`) compare the operands' exact f32 values;
    `arith.maximumf`, `minimumf`, `maxnumf` and `minnumf` take the op of
    the f32 values and select the operand it picked (by bits, so signed
    zeros and NaNs follow the f32 op; a NaN picked by maximumf/minimumf is
    the NaN operand), with no rounding back to 8 bits.

    `f4E2M1FN` (OCP's 4-bit float: 2 exponent bits, 1 mantissa bit, no
    infinities or NaNs; +-0, 0.5, 1, 1.5, 2, 3, 4, 6) converts with MLIR's
    arith expansions: `arith.extf` to f32 exactly, `arith.truncf` from f32
    rounding to nearest even and saturating at +-6. Its comparisons and
    min/max are those of the 8-bit floats above.

    `f8E8M0FNU` (OCP MX's scale factor: byte b is 2^(b - 127), 255 is
    NaN; no sign, zero or infinity) converts as torch does:
    `arith.extf` rebuilds the f32 bits b << 23 (byte 0, 2^-127, is the f32
    subnormal 0x00400000; MLIR's expansion makes it a zero); `arith.truncf`
    from f16, bf16, f32 (f64 through f32) takes the f32 exponent byte, plus
    one where the dropped significand is past one half or exactly one half
    of a normal number (MLIR's expansion truncates instead); infinities,
    NaNs and values rounding past 2^127 give NaN, the sign is dropped, and
    zero gives 2^-127. Integers convert through f32, unclamped.

    Any other operation on 8-bit or 4-bit floats that remains (arithmetic
    on them) is an error naming the operation: the pipelines
    cannot lower it and would otherwise fail with an internal error much
    later. The pipelines run this pass before the arith-to-LLVM
    conversion.

    ```mlir
    %y = arith.extf %x : f8E4M3FN to f32
    // becomes integer ops on arith.bitcast %x : f8E4M3FN to i8
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileVerifyDims : Pass<"tile-verify-dims"> {
  let summary = "Reject dimensions that do not exist, accesses past static "
                "extents and memref types too large to address";
  let description = [{
    Three kinds of IR the verifier accepts but no lowering can give a
    meaning to; the tile pipelines (and the JIT, before it specializes)
    run this pass first and each is an error at its location:

    * `memref.dim %m, %c` with a constant `%c` outside `[0, rank)`:
      undefined behaviour on which upstream folders and canonicalizations
      (memref.dim's own fold, gpu.launch's) crash. The error names the
      index and the type.
    * a `memref.load` or `memref.store` that is past a static extent on
      every path to it: a constant index outside `[0, extent)` not under
      an `scf.if`, or a `tile.parallel` coordinate used directly as the
      index whose range passes the extent with no `scf.if` between the
      access and that `tile.parallel` (a fragment of 2 elements read at
      every coordinate of a parallel over 128: the CPU lowering wrote past
      it, the register lowering has no such element). The error names the
      dimension, the type and the range, with a note at the parallel.
    * a memref type (of a function argument or an op's result) whose static
      extents and element size multiply to more bytes than fit in 64 bits
      (`memref<4611686018427387904x64xf32>`): every stride, offset and size
      the lowerings compute from it would wrap.

    ```mlir
    %cm1 = arith.constant -1 : index
    %d = memref.dim %A, %cm1 : memref<?x64xf32>   // error: dimension -1 ...
    ```
  }];
}

#endif // TILELANG_TRANSFORMS_PASSES_TD
