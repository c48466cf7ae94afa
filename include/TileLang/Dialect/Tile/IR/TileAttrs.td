//===- TileAttrs.td - Attributes of the tile dialect -------*- tablegen -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_IR_TILEATTRS_TD
#define TILELANG_DIALECT_TILE_IR_TILEATTRS_TD

include "TileLang/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tile_MemorySpace : I32EnumAttr<"MemorySpace", "on-chip tile memory space", [
    I32EnumAttrCase<"Shared", 0, "shared">,
    I32EnumAttrCase<"Fragment", 1, "fragment">,
    I32EnumAttrCase<"Local", 2, "local">
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

def Tile_MemorySpaceAttr : EnumAttr<Tile_Dialect, Tile_MemorySpace, "mem"> {
  let summary = "Memory space of an on-chip tile";
  let description = [{
    The memory space of a `memref` that holds an on-chip tile:

    * `#tile.mem<shared>`: shared memory of the thread block (LDS on AMD).
      Every thread of the block sees the whole tile.
    * `#tile.mem<fragment>`: registers, distributed over the threads of the
      block by a fragment layout that the compiler infers (or that
      `tile.annotate_layout` fixes).
    * `#tile.mem<local>`: registers private to each thread; every thread
      holds its own copy of the whole tile.

    Global tensors are memrefs in the default memory space.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction kind", [
    I32EnumAttrCase<"Max", 0, "max">,
    I32EnumAttrCase<"Min", 1, "min">,
    I32EnumAttrCase<"Sum", 2, "sum">,
    I32EnumAttrCase<"AbsSum", 3, "abssum">,
    I32EnumAttrCase<"AbsMax", 4, "absmax">,
    I32EnumAttrCase<"BitAnd", 5, "bitand">,
    I32EnumAttrCase<"BitOr", 6, "bitor">,
    I32EnumAttrCase<"BitXor", 7, "bitxor">
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce_kind"> {
  let summary = "Combining function of tile.reduce";
  let assemblyFormat = "`<` $value `>`";
}

def Tile_GemmPolicy : I32EnumAttr<"GemmPolicy", "warp partition of a tile gemm", [
    I32EnumAttrCase<"Square", 0, "square">,
    I32EnumAttrCase<"FullRow", 1, "full_row">,
    I32EnumAttrCase<"FullCol", 2, "full_col">
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

def Tile_GemmPolicyAttr : EnumAttr<Tile_Dialect, Tile_GemmPolicy, "policy"> {
  let summary = "How the warps of a block split a gemm's C tile";
  let description = [{
    TileLang's `GemmWarpPolicy`: `square` splits M and N as evenly as the
    warp count allows, `full_row` gives every warp whole rows of C (all warps
    along M), `full_col` whole columns (all warps along N).
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tile_RasterOrder : I32EnumAttr<"RasterOrder", "block rasterization order", [
    I32EnumAttrCase<"Row", 0, "row">,
    I32EnumAttrCase<"Column", 1, "column">
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

def Tile_RasterOrderAttr : EnumAttr<Tile_Dialect, Tile_RasterOrder, "raster"> {
  let summary = "Order in which tile.use_swizzle walks the block grid";
  let assemblyFormat = "`<` $value `>`";
}

def Tile_TargetKind : I32EnumAttr<"TargetKind", "compilation target kind", [
    I32EnumAttrCase<"CPU", 0, "cpu">,
    I32EnumAttrCase<"CUDA", 1, "cuda">,
    I32EnumAttrCase<"ROCm", 2, "rocm">
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

def Tile_GemmInstructionKind : I32EnumAttr<"GemmInstructionKind",
    "instruction family a tile gemm runs on", [
    I32EnumAttrCase<"SIMT", 0, "simt">,
    I32EnumAttrCase<"MmaSync", 1, "mma_sync">,
    I32EnumAttrCase<"Wgmma", 2, "wgmma">,
    I32EnumAttrCase<"MFMA", 3, "mfma">,
    I32EnumAttrCase<"WMMA", 4, "wmma">
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

def Tile_CopyEngineKind : I32EnumAttr<"CopyEngineKind",
    "hardware path a tile copy moves its elements on", [
    I32EnumAttrCase<"Elements", 0, "elements">,
    I32EnumAttrCase<"Vector", 1, "vector">,
    I32EnumAttrCase<"CpAsync", 2, "cp_async">,
    I32EnumAttrCase<"TMA", 3, "tma">,
    I32EnumAttrCase<"BufferLoad", 4, "buffer_load">
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

def Tile_CopyEngineAttr : Tile_Attr<"CopyEngine", "copy_engine"> {
  let summary = "The hardware path a tile.copy moves its elements on";
  let description = [{
    Chosen once per `tile.copy` by `tile-select-instructions` (the copies
    that `tile-plan-pipelines` and `tile-prefetch-copies` make asynchronous
    get theirs from the same choice when they are made) and read by the
    lowering, which emits the engine's instructions:

    * `elements`: element by element over the block's threads (any copy).
    * `vector`: vectors of up to 16 bytes along the rows where both sides'
      layouts allow them, checked at run time for global sides (element by
      element when the check fails).
    * `cp_async`: NVIDIA sm_80+, an asynchronous copy (`async`, no barrier)
      of a global region into a whole shared tile as `cp.async` of 16, 8
      or 4 bytes per thread (element by element when the global side is
      misaligned at run time).
    * `tma`: NVIDIA sm_90+, the tensor memory accelerator with a tensor map
      the host encodes before the launch: a copy that arrives on a barrier
      (global to a whole shared tile, one `cp.async.bulk.tensor` per box)
      or a synchronous store of a whole shared tile into a global buffer
      (`tma-store`). The global buffer must be a kernel argument; one the
      tensor map cannot describe at run time takes the block's copy.
    * `buffer_load`: AMD, a global region into a whole LDS tile on
      bounds-checked `amdgpu.raw_buffer_load`s (the generic copy when the
      run-time check of alignment and extent fails).

    A side that the lowering keeps in registers (a fragment whose layout
    matches its gemm's instruction) makes the copy register moves (on
    sm_90, `stmatrix` where the fragment holds its pattern) whatever the
    engine, which then describes the copy only when the fragment stays in
    shared memory.

    ```mlir
    tile.copy %A[%m, %k] to %a_s {async, engine = #tile.copy_engine<cp_async>}
        : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
    ```
  }];
  let parameters = (ins EnumParameter<Tile_CopyEngineKind>:$kind);
  let assemblyFormat = "`<` $kind `>`";
}

def Tile_GemmInstructionAttr
    : Tile_Attr<"GemmInstruction", "gemm_instruction"> {
  let summary = "The instruction a tile.gemm runs on";
  let description = [{
    Chosen once per `tile.gemm` by `tile-select-instructions` (or given by
    the user) and read by every later stage: the layouts of its operands
    (`tile-infer-layout`), whether its work stays in flight across a
    pipeline (`tile-plan-pipelines`), which registers hold its fragments
    and which lowering emits it (`convert-tile-to-gpu`).

    * `simt`: the block's threads multiply element by element (any target,
      any types).
    * `mma_sync m16n8k16` (`k32` for 8-bit operands): NVIDIA warp-level
      tensor cores (sm_80 and newer), operands through ldmatrix, C in the
      accumulator layout of the warp grid the gemm's policy chooses.
    * `wgmma m64nNk16`: sm_90 warpgroup tensor cores; one instruction covers
      N columns of 64 rows: all of C's columns, or, when C has fewer m64
      blocks than the block has warpgroups, C's N / g columns in g column
      groups of warpgroups (TileLang's MLA decode: 64 rows over two
      warpgroups, each m64n(N/2); A in shared memory). `register_a`: A is
      read from registers (A is a fragment), else through a shared-memory
      descriptor. `blocks = 2`: each warpgroup owns two m64 blocks of C
      (128 rows).
    * `mfma m16n16k16` (CDNA, wave64) and `wmma m16n16k16` (gfx11, wave32):
      AMD matrix cores, one 16x16 C tile per wave at a time.

    The tensor-core instructions (`mma_sync`, `wgmma`) also say how the
    shared tiles of the gemm are laid out where a layout pass chooses:
    `blocked`: shared operand tiles with 16-bit rows wider than 128 bytes
    take the blocked 128-byte swizzle (`#tile.swizzle<3, 3, 3, blocked =
    true>` for 16-bit elements, what wgmma's descriptors read such rows in; without it, wgmma
    takes only rows of up to 128 bytes), and so does a shared tile that
    stages the gemm's accumulators on their way to global memory;
    `panels` (with `blocked`): those tiles are stored in column panels, one
    TMA box each. `tile-select-instructions` sets both from its options;
    `tile-plan-pipelines` (the staged operand tiles) and `tile-infer-layout`
    (operand and staging tiles) read them.

    ```mlir
    tile.gemm %a, %b, %c {instruction = #tile.gemm_instruction<wgmma m64n128k16>}
        : ...
    #tile.gemm_instruction<wgmma m64n256k16, register_a>
    #tile.gemm_instruction<wgmma m64n128k16, blocks = 2>
    #tile.gemm_instruction<wgmma m64n256k16, blocked, panels>
    #tile.gemm_instruction<mma_sync m16n8k16>
    #tile.gemm_instruction<simt>
    ```
  }];
  let parameters = (ins EnumParameter<Tile_GemmInstructionKind>:$kind,
                        DefaultValuedParameter<"int64_t", "0">:$m,
                        DefaultValuedParameter<"int64_t", "0">:$n,
                        DefaultValuedParameter<"int64_t", "0">:$k,
                        DefaultValuedParameter<"bool", "false">:$registerA,
                        DefaultValuedParameter<"int64_t", "1">:$blocks,
                        DefaultValuedParameter<"bool", "false">:$blocked,
                        DefaultValuedParameter<"bool", "false">:$panels);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "GemmInstructionKind":$kind), [{
      return $_get($_ctxt, kind, 0, 0, 0, false, 1, false, false);
    }]>
  ];
  let extraClassDeclaration = [{
    /// mma_sync or wgmma: NVIDIA tensor cores.
    bool isTensorCore() const {
      return getKind() == GemmInstructionKind::MmaSync ||
             getKind() == GemmInstructionKind::Wgmma;
    }
    /// mfma or wmma: AMD matrix cores.
    bool isMatrixCore() const {
      return getKind() == GemmInstructionKind::MFMA ||
             getKind() == GemmInstructionKind::WMMA;
    }
  }];
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

def Tile_SwizzleAttr : Tile_Attr<"Swizzle", "swizzle"> {
  let summary = "XOR swizzle of a shared-memory tile (CuTe's Swizzle<B, M, S>)";
  let description = [{
    Maps the linear (row-major) element offset `o` of a shared tile to

    ```
    o ^ ((o & (((1 << bits) - 1) << (base + shift))) >> shift)
    ```

    i.e. the `bits` bits that start at bit `base + shift` are XOR-ed into the
    `bits` bits that start at bit `base`. `base` is the log2 of the number of
    contiguous elements that stay together (a 16-byte vector: 3 for 16-bit
    elements), `bits` the log2 of the number of vectors permuted, `shift`
    the distance between the two bit fields. `#tile.swizzle<3, 3, 3>` is the
    128-byte swizzle of a 64-wide f16 tile.

    With `blocked = true`, rows wider than the swizzle's unit row of
    `W = 2^(base + bits)` elements (128 bytes for `<3, 3, 3>` on 16-bit
    elements) are stored in column blocks first: each group of 8 rows holds
    its `C / W` blocks of 8 x W elements one after another (row-major
    inside a block), and the XOR applies to that offset. That is the
    canonical layout wgmma reads through matrix descriptors for operands
    whose rows are longer than one swizzle atom. A blocked tile has a
    multiple of 8 rows and of W columns.

    With `panels = true` as well, the blocks are stored column panel first:
    each panel of W columns holds all R rows of the tile (R x W, row-major,
    8-row blocks one after another), the panels one after another. Each
    panel is then what one TMA box with the 128-byte swizzle writes, and
    wgmma reads it with 1 KiB between 8-row groups and R x W elements
    between panels. In a tile of more than two dimensions each page (the
    trailing two dimensions of one leading index, R its rows) is laid out
    so by itself, the pages one after another.

    `#tile.swizzle<0, 0, 0>` moves nothing: the row-major layout, fixed (a
    `T.Layout` that maps each coordinate to itself).

    Example:

    ```mlir
    %a = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>}
        : memref<128x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true>}
        : memref<64x128xf16, #tile.mem<shared>>
    ```
  }];
  let parameters = (ins "unsigned":$bits, "unsigned":$base, "unsigned":$shift,
                        DefaultValuedParameter<"bool", "false">:$blocked,
                        DefaultValuedParameter<"bool", "false">:$panels);
  let assemblyFormat =
      "`<` $bits `,` $base `,` $shift (`,` `blocked` `=` $blocked^)? "
      "(`,` `panels` `=` $panels^)? `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "unsigned":$bits, "unsigned":$base, "unsigned":$shift), [{
      return $_get($_ctxt, bits, base, shift, false, false);
    }]>,
    AttrBuilder<(ins "unsigned":$bits, "unsigned":$base, "unsigned":$shift,
                     "bool":$blocked), [{
      return $_get($_ctxt, bits, base, shift, blocked, false);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Applies the XOR to a linear element offset (the whole layout of an
    /// unblocked swizzle; a blocked one first reorders the offset, see
    /// applyToTile).
    int64_t apply(int64_t offset) const;
    /// The stored offset of element (row, col) of a tile of `rows` rows of
    /// `rowLength` elements (`row` counts over all leading dimensions).
    int64_t applyToTile(int64_t row, int64_t col, int64_t rows,
                        int64_t rowLength) const;
    /// Elements per block row of a blocked layout: 2^(base + bits).
    int64_t getBlockWidth() const {
      return int64_t(1) << (getBase() + getBits());
    }
    /// The number of contiguous elements the swizzle permutes as a unit
    /// times the number of units it permutes: the period of the pattern.
    int64_t getPeriod() const;
    /// Whether the swizzle moves nothing (`bits` = 0): a row-major tile.
    bool isIdentity() const { return getBits() == 0; }
    /// The swizzle that stores every byte of a tile of type `to` where this
    /// one stores it in a tile of type `from` holding the same bytes (a
    /// `tile.view` of a shared tile as another element type); null when
    /// none does: an element of `to` would straddle the units this one
    /// permutes, or, blocked, the rows differ in bytes.
    SwizzleAttr reinterpret(MemRefType from, MemRefType to) const;
  }];
}

def Tile_FragmentLayoutAttr : Tile_Attr<"FragmentLayout", "fragment"> {
  let summary = "Distribution of a register tile over the threads of a block";
  let description = [{
    A fragment layout maps each coordinate of a tile of shape `shape` to the
    thread that holds it (`thread`, one result) and to its position in that
    thread's registers (`index`, one or more results, row-major over
    `local_shape`). Elements replicated over several threads (after a
    reduction, for example) are described by `replicate` = R, in one of two
    forms. When `thread` takes one more dimension than the tile, that last
    dimension is the replica `r` in [0, R) and replica `r` of an element
    lives in thread `thread(coords, r)` (any replication pattern, e.g. the
    four lanes that share a row of an mma accumulator). Otherwise thread
    `t + k * (threads / R)` also holds what `thread` maps to `t`. Every
    replica keeps the element at the same `index`.

    Layout inference writes these on `tile.alloc_fragment`; a kernel author
    may fix one with `tile.annotate_layout`.

    Example, the accumulator of an `mma.sync m16n8k16` for one warp:

    ```mlir
    #tile.fragment<[16, 8],
        thread = (i, j) -> ((i mod 8) * 4 + (j mod 8) floordiv 2),
        index = (i, j) -> ((i floordiv 8) * 2 + j mod 2),
        threads = 32>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "tile shape">:$shape,
    "::mlir::AffineMap":$thread,
    "::mlir::AffineMap":$index,
    "int64_t":$threads,
    DefaultValuedParameter<"int64_t", "1">:$replicate
  );
  let assemblyFormat = [{
    `<` `[` $shape `]` `,` `thread` `=` $thread `,` `index` `=` $index `,`
    `threads` `=` $threads (`,` `replicate` `=` $replicate^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Thread that holds the element at `coords` (before replication).
    int64_t getThreadOf(::llvm::ArrayRef<int64_t> coords) const;
    /// Every thread that holds the element at `coords`, replica 0 first.
    ::llvm::SmallVector<int64_t> getThreadsOf(::llvm::ArrayRef<int64_t> coords) const;
    /// Whether `thread` has a replica dimension after the tile's.
    bool hasReplicaDim() const;
    /// Register position of the element at `coords` in its thread.
    ::llvm::SmallVector<int64_t> getIndexOf(::llvm::ArrayRef<int64_t> coords) const;
  }];
}

//===----------------------------------------------------------------------===//
// Target
//===----------------------------------------------------------------------===//

def Tile_TargetAttr : Tile_Attr<"Target", "target"> {
  let summary = "Compilation target of a module of tile kernels";
  let description = [{
    Attached to the module as `tile.target`: the target kind (`cpu`, `cuda`,
    `rocm`), the chip (`sm_80`, `sm_90a`, `gfx942`, `gfx1100`; empty or
    `host` for the CPU) and the feature string (`+ptx80`). Passes read it
    instead of taking their own chip options; pipelines and the JIT set it.

    ```mlir
    module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {}
    ```
  }];
  let parameters = (ins
    EnumParameter<Tile_TargetKind>:$kind,
    StringRefParameter<"chip name">:$chip,
    StringRefParameter<"feature string", "\"\"">:$features
  );
  let assemblyFormat = "`<` $kind `,` $chip (`,` $features^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Threads per warp (wavefront) on this target: 32 on NVIDIA and gfx11,
    /// 64 on gfx9 (CDNA), 1 on the CPU.
    int64_t getWarpSize() const;
    /// The compute capability as an integer (90 for sm_90a), or 0 when the
    /// target is not CUDA.
    int64_t getSmVersion() const;
  }];
}

#endif // TILELANG_DIALECT_TILE_IR_TILEATTRS_TD
