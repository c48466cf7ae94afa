//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILELANG_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "GPU kernels written at tile granularity";
  let description = [{
    The `tile` dialect describes GPU kernels the way TileLang does: a kernel
    author states the launch grid (`tile.kernel`), which tiles live in shared
    memory and which in registers (`tile.alloc_shared`,
    `tile.alloc_fragment`, `tile.alloc_local`), and moves, multiplies and
    reduces whole tiles (`tile.copy`, `tile.gemm`, `tile.reduce`, ...). The
    compiler chooses layouts, instructions, thread mappings, software
    pipelines and barriers.

    Global tensors are plain `memref`s in the default memory space. On-chip
    tiles are statically shaped `memref`s in a tile memory space
    (`#tile.mem<shared>`, `#tile.mem<fragment>`, `#tile.mem<local>`).
    Elementwise work is written with `memref.load`/`memref.store` and
    `arith`/`math` ops inside `tile.parallel`.

    The compilation target travels with the IR as the module attribute
    `tile.target = #tile.target<...>`; passes read it instead of taking
    their own chip options.
  }];

  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect"
  ];

  let useDefaultAttributePrinterParser = 1;
  let hasCanonicalizer = 0;
  let hasOperationAttrVerify = 1;
  let hasConstantMaterializer = 0;

  let extraClassDeclaration = [{
    /// Registers `info` as the implementation of the target interface
    /// (TileLang/Target/TargetInfo.h) for targets of kind `kind` (a
    /// TargetKind), replacing an earlier one.
    void registerTargetInfo(uint32_t kind,
                            std::shared_ptr<const TargetInfo> info);
    /// The implementation registered for targets of kind `kind`, or null.
    const TargetInfo *lookupTargetInfo(uint32_t kind) const;
    /// Every registered implementation, in order of registration.
    ::llvm::SmallVector<const TargetInfo *> getTargetInfos() const;

  private:
    ::llvm::SmallVector<std::pair<uint32_t, std::shared_ptr<const TargetInfo>>>
        targetInfos;

  public:
    /// Name of the module attribute that carries the compilation target.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("tile.target");
    }
    /// Unit attribute on the op an asynchronous tile.copy lowered to (inside
    /// a gpu.launch): what it writes is visible after the next
    /// tile.async_wait, as for the copy it replaces.
    static constexpr ::llvm::StringLiteral getLoweredAsyncCopyAttrName() {
      return ::llvm::StringLiteral("tile.lowered_async_copy");
    }
    /// Unit attribute on a tile.copy that is the cold path of a copy another
    /// engine moves (cp.async, TMA, buffer loads) when the buffers do not
    /// allow that engine at run time: the generic lowering keeps it compact
    /// (no narrower vector widths, no batched element loads), since its
    /// registers would count against the hot path's.
    static constexpr ::llvm::StringLiteral getFallbackCopyAttrName() {
      return ::llvm::StringLiteral("tile.fallback_copy");
    }
    /// Unit attribute on the op a tile.copy that arrives on a barrier
    /// lowered to on sm_90 (TMA or its fallback): it began with a block
    /// barrier and reads no shared memory, so a copy right after it needs
    /// no barrier of its own.
    static constexpr ::llvm::StringLiteral getLoweredTmaCopyAttrName() {
      return ::llvm::StringLiteral("tile.lowered_tma_copy");
    }
    /// Unit attribute on the inline assembly of a gemm lowering that only
    /// defines registers (wgmma with A in registers, the accumulators'
    /// clear): it writes no memory, whatever its side-effect flag says.
    static constexpr ::llvm::StringLiteral getRegisterOnlyAsmAttrName() {
      return ::llvm::StringLiteral("tile.register_only_asm");
    }
    /// Unit attribute on the op a `tile.barrier_wait {issuer}` lowered to:
    /// the issuing thread has waited until the copies that follow may
    /// overwrite their destinations (they need no block barrier).
    static constexpr ::llvm::StringLiteral getIssuerWaitAttrName() {
      return ::llvm::StringLiteral("tile.issuer_wait");
    }
    /// Unit attribute the NVIDIA lowering puts on a synchronous `tile.gemm`
    /// outside pipelined loops whose C (and A, unless shared) is a register
    /// fragment and whose shared operands only copies that arrive on
    /// barriers write
    /// (TMA: each thread waits for the barrier before reading; a refill
    /// follows a block barrier or the consumers' release): the gemm needs
    /// no block barrier before or after it.
    static constexpr ::llvm::StringLiteral getArrivedOperandsAttrName() {
      return ::llvm::StringLiteral("tile.arrived_operands");
    }
    /// Unit attribute the lowerings of `tile.take_turns` put on the gemms of
    /// the turn they inline: a gemm with it is still in a turn, where a
    /// block barrier would deadlock the block (an error instead).
    static constexpr ::llvm::StringLiteral getInTurnAttrName() {
      return ::llvm::StringLiteral("tile.in_turn");
    }
    /// Unit attribute on a `tile.copy` that becomes a TMA store in a loop:
    /// the wait for TMA to read its shared tile was placed before the
    /// tile's next write (deferTmaStoreReadWaits), not after the store.
    static constexpr ::llvm::StringLiteral getDeferredStoreWaitAttrName() {
      return ::llvm::StringLiteral("tile.deferred_store_wait");
    }
    /// Unit attribute on the shared scratch tile the register lowering of
    /// reductions exchanges partial results through: every reduction of
    /// the kernel with the same scratch shape uses the one tile (each
    /// starts with a block barrier).
    static constexpr ::llvm::StringLiteral getReduceScratchAttrName() {
      return ::llvm::StringLiteral("tile.reduce_scratch");
    }
    /// Unit attribute on a `tile.alloc_fragment` whose fragment lives in
    /// per-thread registers (tile-select-register-fragments): every op on
    /// it can follow its `#tile.fragment` layout, and convert-tile-to-gpu
    /// gives each thread the elements the layout assigns it.
    static constexpr ::llvm::StringLiteral getInRegistersAttrName() {
      return ::llvm::StringLiteral("tile.in_registers");
    }
    /// On a `memref.alloc` in workgroup memory directly in a `gpu.launch`:
    /// an on-chip tile that convert-tile-to-gpu left for
    /// tile-place-shared-memory to place; the value is the tile's layout
    /// (its `#tile.swizzle`, whose period the placement aligns it to), or a
    /// unit attribute.
    static constexpr ::llvm::StringLiteral getUnplacedTileAttrName() {
      return ::llvm::StringLiteral("tile.unplaced_tile");
    }
    /// `[first, count]` or `[first, count, registers]` on the op a
    /// warp-specialized kernel runs on part of its threads (a
    /// `tile.producer`'s warpgroup, or its consumers): the tile ops inside
    /// are spread over those threads, numbered from 0; `registers` is what
    /// each of those threads may use (setmaxnreg), which lowerings that
    /// trade registers for speed respect. The consumers' range starts at
    /// thread 0, the producer's after them (the verifiers of ops that
    /// belong to one side tell the sides apart by that).
    static constexpr ::llvm::StringLiteral getThreadRangeAttrName() {
      return ::llvm::StringLiteral("tile.thread_range");
    }
    /// Unit attribute on the loop of a persistent kernel
    /// (tile-make-persistent) that runs the kernel body once per tile of the
    /// original grid: an scf.for on the static schedule, an scf.while over
    /// (tile, iteration) on the dynamic one. Pipeline planning may put a
    /// warp-specialized producer beside it, which loops over the same
    /// tiles (on the dynamic schedule taking each next one and handing it
    /// to the consumers).
    static constexpr ::llvm::StringLiteral getPersistentTilesAttrName() {
      return ::llvm::StringLiteral("tile.persistent_tiles");
    }
    /// Extra threads a kernel launches for its `tile.producer`.
    static constexpr ::llvm::StringLiteral getProducerThreadsAttrName() {
      return ::llvm::StringLiteral("tile.producer_threads");
    }

    /// The table of `layout` (FragmentTable::get), built once per context
    /// for every pass that enumerates the layout; null when the layout has
    /// none. Thread-safe; the table lives as long as the context.
    const FragmentTable *getFragmentTable(FragmentLayoutAttr layout);

  private:
    struct FragmentTableCache;
    std::unique_ptr<FragmentTableCache> fragmentTables;

  public:
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILELANG_DIALECT_TILE_IR_TILEDIALECT_TD
