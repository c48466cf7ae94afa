// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Every verifier rule of the tile dialect, one rejection each.

func.func @grid_rank(%n: index) {
  // expected-error @+1 {{grid must have 1 to 3 dimensions, got 4}}
  tile.kernel grid(%n, %n, %n, %n) threads(128) -> (%a, %b, %c, %d) {
  }
  return
}

// -----

func.func @too_many_threads(%n: index) {
  // expected-error @+1 {{a block has at most 1024 threads, got threads(64, 32)}}
  tile.kernel grid(%n) threads(64, 32) -> (%bx) {
  }
  return
}

// -----

func.func @overflowing_threads(%n: index) {
  // expected-error @+1 {{a block has at most 1024 threads, got threads(4294967296, 4294967296)}}
  tile.kernel grid(%n) threads(4294967296, 4294967296) -> (%bx) {
  }
  return
}

// -----

func.func @zero_threads(%n: index) {
  // expected-error @+1 {{thread extents must be positive}}
  tile.kernel grid(%n) threads(0) -> (%bx) {
  }
  return
}

// -----

func.func @cluster_size(%n: index) {
  // expected-error @+1 {{a cluster has at most 16 blocks, got cluster(32)}}
  tile.kernel grid(%n) threads(128) cluster(32) -> (%bx) {
  }
  return
}

// -----

func.func @cluster_grid() {
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  // expected-error @+1 {{grid dimension 1 (6 blocks) is not a multiple of the cluster's (4)}}
  tile.kernel grid(%c4, %c6) threads(128) cluster(2, 4) -> (%bx, %by) {
  }
  return
}

// -----

func.func @block_ids(%n: index) {
  // expected-error @+1 {{body must have one block index argument per grid dimension (2), got 1}}
  tile.kernel grid(%n, %n) threads(128) -> (%bx) {
  }
  return
}

// -----

func.func @missing_threads(%n: index) {
  // expected-error @+1 {{expected 'threads'}}
  tile.kernel grid(%n) -> (%bx) {
  }
  return
}

// -----

func.func @alloc_outside_kernel() {
  // expected-error @+1 {{'tile.alloc_shared' op expects parent op 'tile.kernel'}}
  %0 = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
  return
}

// -----

func.func @alloc_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      // expected-error @+1 {{'tile.alloc_fragment' op expects parent op 'tile.kernel'}}
      %0 = tile.alloc_fragment : memref<16xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

func.func @alloc_wrong_space(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{result must be in #tile.mem<shared>, got 'memref<16x16xf16, #tile.mem<fragment>>'}}
    %0 = tile.alloc_shared : memref<16x16xf16, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @alloc_dynamic(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{result #0 must be statically shaped memref of integer or float}}
    %0 = tile.alloc_fragment : memref<?x16xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @alloc_strided(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{result must have the identity layout}}
    %0 = tile.alloc_shared : memref<16x16xf16, strided<[32, 1]>, #tile.mem<shared>>
  }
  return
}

// -----

func.func @blocked_swizzle_rows(%n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    // expected-error @+1 {{a blocked swizzle needs a multiple of 8 rows and of 64 columns, got 12x128}}
    %s = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true>} : memref<12x128xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @blocked_swizzle_columns(%n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    // expected-error @+1 {{a blocked swizzle needs a multiple of 8 rows and of 64 columns, got 16x96}}
    %s = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true>} : memref<16x96xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @alloc_shared_fragment_layout(%n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    // expected-error @+1 {{layout of a shared tile must be a #tile.swizzle}}
    %0 = tile.alloc_shared {layout = #tile.fragment<[32], thread = (i) -> (i), index = (i) -> (0), threads = 32>} : memref<32xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @alloc_fragment_layout_shape(%n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    // expected-error @+1 {{fragment layout shape [32] does not match the tile shape [64]}}
    %0 = tile.alloc_fragment {layout = #tile.fragment<[32], thread = (i) -> (i), index = (i) -> (0), threads = 32>} : memref<64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @alloc_fragment_layout_threads(%n: index) {
  tile.kernel grid(%n) threads(64) -> (%bx) {
    // expected-error @+1 {{fragment layout is for 32 threads but the kernel has 64}}
    %0 = tile.alloc_fragment {layout = #tile.fragment<[32], thread = (i) -> (i), index = (i) -> (0), threads = 32>} : memref<32xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @alloc_local_layout(%n: index) {
  tile.kernel grid(%n) threads(64) -> (%bx) {
    // expected-error @+1 {{only shared tiles and fragments take a layout}}
    %0 = tile.alloc_local {layout = #tile.swizzle<1, 1, 1>} : memref<4xf32, #tile.mem<local>>
  }
  return
}

// -----

// expected-error @+1 {{swizzle shift (2) must be at least its number of bits (3)}}
func.func @swizzle_overlap() attributes {s = #tile.swizzle<3, 3, 2>} {
  return
}

// -----

// expected-error @+1 {{a swizzle stored in column panels must be blocked}}
func.func @swizzle_panels_unblocked() attributes {s = #tile.swizzle<3, 3, 3, blocked = false, panels = true>} {
  return
}

// -----

// expected-error @+1 {{fragment layout maps element [8] to thread 8, outside [0, 8)}}
func.func @fragment_thread_range() attributes {l = #tile.fragment<[16], thread = (i) -> (i), index = (i) -> (0), threads = 8>} {
  return
}

// -----

// expected-error @+1 {{fragment layout maps element [1] to a register slot already taken in thread 0}}
func.func @fragment_slot_collision() attributes {l = #tile.fragment<[4], thread = (i) -> (i floordiv 2), index = (i) -> (0), threads = 2>} {
  return
}

// -----

// expected-error @+1 {{fragment thread map must take 2 dimensions (or 3 with the replica last), no symbols, and give one result}}
func.func @fragment_map_rank() attributes {l = #tile.fragment<[4, 4], thread = (i) -> (i), index = (i, j) -> (j), threads = 4>} {
  return
}

// -----

// Two replicas of one element in the same thread.
// expected-error @+1 {{fragment layout maps element [0] replica 1 to a register slot already taken in thread 0}}
func.func @fragment_replica_collision() attributes {l = #tile.fragment<[16], thread = (i, r) -> ((i mod 8) * 4 + r floordiv 2), index = (i) -> (i floordiv 8), threads = 32, replicate = 4>} {
  return
}

// -----

// expected-error @+1 {{fragment layout maps element [7] replica 3 to thread 32, outside [0, 32)}}
func.func @fragment_replica_range() attributes {l = #tile.fragment<[8], thread = (i, r) -> (i + r * 8 + 1), index = (i) -> (0), threads = 32, replicate = 4>} {
  return
}

// -----

// expected-error @+1 {{fragment maps may only divide (mod, floordiv, ceildiv) by positive constants, got affine_map<(d0) -> (d0 mod 0)>}}
func.func @fragment_mod_zero() attributes {l = #tile.fragment<[4], thread = (i) -> (i mod 0), index = (i) -> (0), threads = 4>} {
  return
}

// -----

// expected-error @+1 {{swizzle spans 12884901885 offset bits; at most 30 are supported}}
func.func @swizzle_huge() attributes {s = #tile.swizzle<4294967295, 4294967295, 4294967295>} {
  return
}

// -----

// expected-error @+1 {{fragment replicate (3) must be positive and divide threads (32)}}
func.func @fragment_replicate() attributes {l = #tile.fragment<[4], thread = (i) -> (i), index = (i) -> (0), threads = 32, replicate = 3>} {
  return
}

// -----

// expected-error @+1 {{cuda chip must look like 'sm_80' or 'sm_90a', got 'gfx942'}}
module attributes {tile.target = #tile.target<cuda, "gfx942">} {
}

// -----

// expected-error @+1 {{rocm chip must look like 'gfx942' or 'gfx1100', got 'sm_90a'}}
module attributes {tile.target = #tile.target<rocm, "sm_90a">} {
}

// -----

// expected-error @+1 {{cpu chip must be 'host', got 'sm90'}}
module attributes {tile.target = #tile.target<cpu, "sm90">} {
}

// -----

// Tile sizes never wrap: 2^62 x 4 halves is 2^65 bytes.
func.func @tile_size_overflow() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    // expected-error @+1 {{an on-chip tile holds at most 4 GiB; 'memref<4611686018427387904x4xf16, #tile.mem<shared>>' needs more than 2^63 bytes}}
    %s = tile.alloc_shared : memref<4611686018427387904x4xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @tile_size_limit() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    // expected-error @+1 {{an on-chip tile holds at most 4 GiB; 'memref<65536x65537xf32, #tile.mem<fragment>>' needs 17180131328 bytes}}
    %f = tile.alloc_fragment : memref<65536x65537xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// expected-error @+1 {{'tile.target' may only be attached to a builtin.module}}
func.func @target_on_func() attributes {tile.target = #tile.target<cpu, "host">} {
  return
}

// -----

// expected-error @+1 {{'tile.target' must be a #tile.target attribute, got "sm_90a"}}
module attributes {tile.target = "sm_90a"} {
}

// -----

// expected-error @+1 {{unknown tile dialect attribute 'tile.chip'}}
module attributes {tile.chip = "sm_90a"} {
}

// -----

// The mark of a tile that tile-place-shared-memory places belongs on an
// on-chip, statically shaped memref.alloc.
func.func @unplaced_tile_global() {
  // expected-error @+1 {{'tile.unplaced_tile' must be a unit attribute or a tile layout on a statically shaped memref.alloc in an on-chip memory space}}
  %a = memref.alloc() {tile.unplaced_tile} : memref<4xf32>
  return
}

// -----

func.func @unplaced_tile_value() {
  // expected-error @+1 {{'tile.unplaced_tile' must be a unit attribute or a tile layout}}
  %a = memref.alloc() {tile.unplaced_tile = 3 : i64} : memref<4xf32, #gpu.address_space<workgroup>>
  return
}

// -----

// A thread range's register budget must be positive.
func.func @thread_range_registers(%c: i1) {
  // expected-error @+1 {{'tile.thread_range' must be [first, count] of threads, optionally with the registers of each}}
  scf.if %c {
  } {tile.thread_range = array<i64: 0, 128, 0>}
  return
}

// -----

func.func @thread_range_size(%c: i1) {
  // expected-error @+1 {{'tile.thread_range' must be [first, count] of threads}}
  scf.if %c {
  } {tile.thread_range = array<i64: 0, 128, 24, 1>}
  return
}

// -----

func.func @copy_global_to_global(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{cannot copy between two global buffers}}
    tile.copy %A to %B : memref<?x?xf16> to memref<?x?xf16>
  }
  return
}

// -----

func.func @copy_types(%A: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<16x16xi32, #tile.mem<shared>>
    // expected-error @+1 {{cannot convert element type 'f16' to 'i32'}}
    tile.copy %A[%n, %n] to %s : memref<?x?xf16> to memref<16x16xi32, #tile.mem<shared>>
  }
  return
}

// -----

func.func @copy_both_offsets(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    // expected-error @+1 {{offsets may be given on one side only}}
    tile.copy %A[%n, %n] to %s[%c0, %c0] : memref<?x?xf16> to memref<16x16xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @copy_offset_count(%A: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    // expected-error @+1 {{source has rank 2 but 1 offsets were given}}
    tile.copy %A[%n] to %s : memref<?x?xf16> to memref<16x16xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @copy_rank(%A: memref<?xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    // expected-error @+1 {{the tile has rank 2 but the source has rank 1}}
    tile.copy %A[%n] to %s : memref<?xf16> to memref<16x16xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @copy_shape(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %f = tile.alloc_fragment : memref<16x32xf32, #tile.mem<fragment>>
    // expected-error @+1 {{shape mismatch: the tile is [16, 16] but the destination is [16, 32]}}
    tile.copy %s to %f : memref<16x16xf16, #tile.mem<shared>> to memref<16x32xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @copy_on_chip_out_of_bounds(%n: index) {
  %c0 = arith.constant 0 : index
  %c120 = arith.constant 120 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %f = tile.alloc_fragment : memref<16x32xf16, #tile.mem<fragment>>
    // expected-error @+1 {{the tile does not fit in the on-chip source along dimension 0: offset 120 + extent 16 > 128}}
    tile.copy %s[%c120, %c0] to %f : memref<128x32xf16, #tile.mem<shared>> to memref<16x32xf16, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @copy_dynamic_extent(%C: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<16x16xf32, #tile.mem<fragment>>
    // expected-error @+1 {{the tile extent comes from the destination, which must have a static shape, got 'memref<?x?xf32>'}}
    tile.copy %f[%c0, %c0] to %C : memref<16x16xf32, #tile.mem<fragment>> to memref<?x?xf32>
  }
  return
}

// -----

func.func @copy_unknown_space(%A: memref<16x16xf16, 3>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    // expected-error @+1 {{source has memory space 3 : i64; expected a global buffer or #tile.mem<...>}}
    tile.copy %A to %s : memref<16x16xf16, 3> to memref<16x16xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @copy_outside_kernel(%A: memref<?x?xf16>, %s: memref<16x16xf16, #tile.mem<shared>>, %n: index) {
  // expected-error @+1 {{'tile.copy' op must be nested in a 'tile.kernel'}}
  tile.copy %A[%n, %n] to %s : memref<?x?xf16> to memref<16x16xf16, #tile.mem<shared>>
  return
}

// -----

func.func @gemm_b_fragment(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_fragment : memref<32x64xf16, #tile.mem<fragment>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{B must be in shared memory, got fragment memory}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.mem<shared>>, memref<32x64xf16, #tile.mem<fragment>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_a_global(%A: memref<64x32xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %b = tile.alloc_shared : memref<32x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{A must be in shared memory or a fragment, got global memory}}
    tile.gemm %A, %b, %c : memref<64x32xf16>, memref<32x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_clear_twice(%n: index, %c0: i1) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{takes clear_accum or clear_if, not both}}
    tile.gemm %a, %b, %c clear_if(%c0) {clear_accum} : memref<64x32xf16, #tile.mem<shared>>, memref<32x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_c_shared(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.mem<shared>>
    %c = tile.alloc_shared : memref<64x64xf32, #tile.mem<shared>>
    // expected-error @+1 {{C (the accumulator) must be a fragment, got shared memory}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.mem<shared>>, memref<32x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<shared>>
  }
  return
}

// -----

func.func @gemm_k(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x32xf32, #tile.mem<fragment>>
    // expected-error @+1 {{reduction dimensions disagree: A is 64x32 but B is 64x32}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x32xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_c_shape(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{C must be 64x128 to match A and B, got 64x64}}
    tile.gemm %a, %b, %c {transpose_b} : memref<64x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_mixed_types(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<32x64xbf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{unsupported element types 'f16' x 'bf16' -> 'f32'}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.mem<shared>>, memref<32x64xbf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_bf16_to_bf16(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xbf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xbf16, #tile.mem<fragment>>
    // expected-error @+1 {{unsupported element types 'bf16' x 'bf16' -> 'bf16'}}
    tile.gemm %a, %a, %c {transpose_b} : memref<64x32xbf16, #tile.mem<shared>>, memref<64x32xbf16, #tile.mem<shared>> -> memref<64x64xbf16, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_rank(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<2x64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{A, B and C must be 2-D tiles}}
    tile.gemm %a, %a, %c : memref<2x64x32xf16, #tile.mem<shared>>, memref<2x64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_partial_warp(%n: index) {
  tile.kernel grid(%n) threads(48) -> (%bx) {
    %a = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.mem<fragment>>
    // expected-error @+1 {{needs a whole number of warps: the kernel has 48 threads, not a multiple of the warp size 32}}
    tile.gemm %a, %a, %c : memref<16x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<16x16xf32, #tile.mem<fragment>>
  }
  return
}

// -----

module attributes {tile.target = #tile.target<rocm, "gfx942">} {
func.func @gemm_partial_wave64(%n: index) {
  tile.kernel grid(%n) threads(96) -> (%bx) {
    %a = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.mem<fragment>>
    // expected-error @+1 {{the kernel has 96 threads, not a multiple of the warp size 64}}
    tile.gemm %a, %a, %c : memref<16x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<16x16xf32, #tile.mem<fragment>>
  }
  return
}
}

// -----

func.func @fill_global(%A: memref<16xf32>, %x: f32, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{destination must be an on-chip tile (shared, fragment or local), got a global buffer}}
    tile.fill %A, %x : memref<16xf32>
  }
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @fill_type(%x: f16, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<16xf32, #tile.mem<fragment>>
    // expected-error @+1 {{use of value '%x' expects different type than prior uses: 'f32' vs 'f16'}}
    tile.fill %f, %x : memref<16xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @clear_global(%A: memref<16xf32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{destination must be an on-chip tile}}
    tile.clear %A : memref<16xf32>
  }
  return
}

// -----

func.func @reduce_bitwise_float(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{a bitxor reduction needs integer elements, got 'f32'}}
    tile.reduce <bitxor> %s to %m dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @thread_id_dim(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{attribute 'dim' failed to satisfy constraint}}
    %t = tile.thread_id 3
  }
  return
}

// -----

func.func @sync_threads_outside_kernel() {
  // expected-error @+1 {{must be nested in a 'tile.kernel'}}
  tile.sync_threads
  return
}

// -----

func.func @sync_threads_count(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{attribute 'threads' failed to satisfy constraint}}
    tile.sync_threads threads(0)
  }
  return
}

// -----

func.func @thread_id_outside_kernel() -> index {
  // expected-error @+1 {{must be nested in a 'tile.kernel'}}
  %t = tile.thread_id 0
  return %t : index
}

// -----

func.func @reduce_dim(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{reduction dim 2 is out of range for a rank-2 source}}
    tile.reduce <max> %s to %m dim 2 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @reduce_shape(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_fragment : memref<64x32xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
    // expected-error @+1 {{destination shape [32] must be the source shape without dim 1 ([64]) or with it set to 1 ([64, 1])}}
    tile.reduce <sum> %s to %m dim 1 : memref<64x32xf32, #tile.mem<fragment>> to memref<32xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @reduce_types(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_fragment : memref<64x32xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf16, #tile.mem<fragment>>
    // expected-error @+1 {{source and destination element types differ: 'f32' vs 'f16'}}
    tile.reduce <sum> %s to %m dim 1 : memref<64x32xf32, #tile.mem<fragment>> to memref<64xf16, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @reduce_global(%A: memref<64x32xf32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{source must be an on-chip tile}}
    tile.reduce <sum> %A to %m dim 1 : memref<64x32xf32> to memref<64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @reduce_kind(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_fragment : memref<64x32xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    // expected-error @+2 {{expected ::mlir::tile::ReduceKind to be one of: max, min, sum, abssum, absmax}}
    // expected-error @+1 {{failed to parse Tile_ReduceKindAttr parameter 'value'}}
    tile.reduce <prod> %s to %m dim 1 : memref<64x32xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @cumsum_shape(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<32x64xf32, #tile.mem<shared>>
    %d = tile.alloc_shared : memref<32x32xf32, #tile.mem<shared>>
    // expected-error @+1 {{source and destination shapes differ: [32, 64] vs [32, 32]}}
    tile.cumsum %s to %d dim 1 : memref<32x64xf32, #tile.mem<shared>> to memref<32x32xf32, #tile.mem<shared>>
  }
  return
}

// -----

func.func @cumsum_dim(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<32x64xf32, #tile.mem<shared>>
    // expected-error @+1 {{cumsum dim -1 is out of range for a rank-2 tile}}
    tile.cumsum %s to %s dim -1 : memref<32x64xf32, #tile.mem<shared>> to memref<32x64xf32, #tile.mem<shared>>
  }
  return
}

// -----

func.func @cumsum_kind(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<32x64xf32, #tile.mem<shared>>
    // expected-error @+1 {{scans sum, max or min, not absmax}}
    tile.cumsum %s to %s dim 1 {kind = #tile.reduce_kind<absmax>} : memref<32x64xf32, #tile.mem<shared>> to memref<32x64xf32, #tile.mem<shared>>
  }
  return
}

// -----

func.func @atomic_scalar_type(%out: memref<?xf32>, %v: f16, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{value type 'f16' does not match the destination element type 'f32'}}
    tile.atomic_add %v to %out[%bx] : f16 to memref<?xf32>
  }
  return
}

// -----

func.func @atomic_scalar_offsets(%out: memref<?x?xf32>, %v: f32, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{the element form needs one offset per destination dimension (2), got 1}}
    tile.atomic_add %v to %out[%bx] : f32 to memref<?x?xf32>
  }
  return
}

// -----

func.func @atomic_fragment_dst(%v: f32, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<16xf32, #tile.mem<fragment>>
    // expected-error @+1 {{destination must be global or shared memory, got fragment memory}}
    tile.atomic_add %v to %f[%bx] : f32 to memref<16xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @atomic_tile_shape(%C: memref<32x32xf32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{shape mismatch: the tile is [64, 64] but the destination is [32, 32]}}
    tile.atomic_add %f to %C : memref<64x64xf32, #tile.mem<fragment>> to memref<32x32xf32>
  }
  return
}

// -----

func.func @parallel_extent(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{extents must be positive, got (16, 0)}}
    tile.parallel (%i, %j) in (16, 0) {
    }
  }
  return
}

// -----

func.func @parallel_indices(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{body must have one index argument per extent (2), got 1}}
    tile.parallel (%i) in (16, 16) {
    }
  }
  return
}

// -----

func.func @async_parallel_not_gather(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64xf32, #tile.mem<shared>>
    // expected-error @+1 {{with 'async', the body must copy elements of global buffers into one shared tile; it stores a value it did not load from a global buffer}}
    tile.parallel (%i) in (64) attributes {async} {
      %c = arith.constant 1.0 : f32
      memref.store %c, %a[%i] : memref<64xf32, #tile.mem<shared>>
    }
  }
  return
}

// -----

func.func @async_parallel_reads_shared(%n: index, %src: memref<?xf32>) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64xf32, #tile.mem<shared>>
    %idx = tile.alloc_shared : memref<64xi32, #tile.mem<shared>>
    // expected-error @+1 {{it loads from a buffer that is not global}}
    tile.parallel (%i) in (64) attributes {async} {
      %x = memref.load %idx[%i] : memref<64xi32, #tile.mem<shared>>
      %r = arith.index_cast %x : i32 to index
      %v = memref.load %src[%r] : memref<?xf32>
      memref.store %v, %a[%i] : memref<64xf32, #tile.mem<shared>>
    }
  }
  return
}

// -----

func.func @async_parallel_into_fragment(%n: index, %src: memref<?xf32>) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{it stores into a buffer that is not a shared tile}}
    tile.parallel (%i) in (64) attributes {async} {
      %v = memref.load %src[%i] : memref<?xf32>
      memref.store %v, %f[%i] : memref<64xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

func.func @async_parallel_two_tiles(%n: index, %src: memref<?xf32>) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64xf32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64xf32, #tile.mem<shared>>
    // expected-error @+1 {{it stores into more than one shared tile}}
    tile.parallel (%i) in (64) attributes {async} {
      %v = memref.load %src[%i] : memref<?xf32>
      memref.store %v, %a[%i] : memref<64xf32, #tile.mem<shared>>
      memref.store %v, %b[%i] : memref<64xf32, #tile.mem<shared>>
    }
  }
  return
}

// -----

func.func @async_parallel_branch(%n: index, %src: memref<?xf32>, %c: i1) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64xf32, #tile.mem<shared>>
    // expected-error @+1 {{it has a nested region}}
    tile.parallel (%i) in (64) attributes {async} {
      scf.if %c {
        %v = memref.load %src[%i] : memref<?xf32>
        memref.store %v, %a[%i] : memref<64xf32, #tile.mem<shared>>
      }
    }
  }
  return
}

// -----

func.func @copy_elements_from_shared(%n: index, %i: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64xf32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64xf32, #tile.mem<shared>>
    // expected-error @+1 {{copies from a global buffer, got 'memref<64xf32, #tile.mem<shared>>'}}
    tile.async_copy_elements %a[%i] to %b[%i] count(4) : memref<64xf32, #tile.mem<shared>> to memref<64xf32, #tile.mem<shared>>
  }
  return
}

// -----

func.func @copy_elements_into_global(%n: index, %i: index, %g: memref<?xf32>, %h: memref<?xf32>) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{copies into a shared tile, got 'memref<?xf32>'}}
    tile.async_copy_elements %g[%i] to %h[%i] count(4) : memref<?xf32> to memref<?xf32>
  }
  return
}

// -----

func.func @copy_elements_converts(%n: index, %i: index, %g: memref<?xf16>) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64xf32, #tile.mem<shared>>
    // expected-error @+1 {{moves bytes unchanged: the element types differ ('f16' and 'f32')}}
    tile.async_copy_elements %g[%i] to %a[%i] count(4) : memref<?xf16> to memref<64xf32, #tile.mem<shared>>
  }
  return
}

// -----

func.func @copy_elements_bytes(%n: index, %i: index, %g: memref<?xf16>) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64xf16, #tile.mem<shared>>
    // expected-error @+1 {{copies 4, 8 or 16 bytes; 3 elements of 'f16' are 48 bits}}
    tile.async_copy_elements %g[%i] to %a[%i] count(3) : memref<?xf16> to memref<64xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @copy_elements_indices(%n: index, %i: index, %g: memref<?x?xf16>) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64xf16, #tile.mem<shared>>
    // expected-error @+1 {{needs one index per dimension of each side (2 and 1), got 1 and 1}}
    tile.async_copy_elements %g[%i] to %a[%i] count(8) : memref<?x?xf16> to memref<64xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @copy_elements_wider_than_tile(%n: index, %i: index, %g: memref<?xf16>) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<4xf16, #tile.mem<shared>>
    // expected-error @+1 {{copies 8 elements, more than the tile's last dimension (4)}}
    tile.async_copy_elements %g[%i] to %a[%i] count(8) : memref<?xf16> to memref<4xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @async_copies_arrival_per_warp(%n: index, %i: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    // expected-error @+1 {{'async_copies' counts each thread's own copies: it needs 'per_thread'}}
    tile.barrier_arrive %bars[%i] {async_copies} : memref<2xi64, #tile.mem<shared>>
  }
  return
}

// -----

func.func @parallel_outside_kernel() {
  // expected-error @+1 {{'tile.parallel' op must be nested in a 'tile.kernel'}}
  tile.parallel (%i) in (16) {
  }
  return
}

// -----

func.func @pipelined_stages(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{num_stages must be at least 1, got 0}}
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 0 {
    }
  }
  return
}

// -----

func.func @pipelined_order_length(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<16xf32, #tile.mem<fragment>>
    // expected-error @+1 {{order has 2 entries but the body has 1 operations with memory effects}}
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 order = [0, 1] {
      %x = arith.addi %k, %c1 : index
      tile.clear %f : memref<16xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

func.func @pipelined_order_permutation(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<16xf32, #tile.mem<fragment>>
    // expected-error @+1 {{order must be a permutation of [0, 2), got [1, 1]}}
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 order = [1, 1] {
      tile.clear %f : memref<16xf32, #tile.mem<fragment>>
      tile.clear %f : memref<16xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

func.func @pipelined_stage_range(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<16xf32, #tile.mem<fragment>>
    // expected-error @+1 {{stage 3 is out of range [0, 3)}}
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 3 stage = [0, 3] {
      tile.clear %f : memref<16xf32, #tile.mem<fragment>>
      tile.clear %f : memref<16xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

func.func @annotate_fragment_with_swizzle(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<16x16xf32, #tile.mem<fragment>>
    // expected-error @+1 {{layout of a fragment must be a #tile.fragment, got #tile.swizzle<3, 3, 3>}}
    tile.annotate_layout %f : memref<16x16xf32, #tile.mem<fragment>> layout #tile.swizzle<3, 3, 3>
  }
  return
}

// -----

func.func @annotate_conflict(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-note @+1 {{allocated here}}
    %s = tile.alloc_shared {layout = #tile.swizzle<2, 3, 3>} : memref<64x64xf16, #tile.mem<shared>>
    // expected-error @+1 {{layout #tile.swizzle<3, 3, 3> conflicts with the layout #tile.swizzle<2, 3, 3> of the allocation}}
    tile.annotate_layout %s : memref<64x64xf16, #tile.mem<shared>> layout #tile.swizzle<3, 3, 3>
  }
  return
}

// -----

func.func @annotate_global(%A: memref<64x64xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{buffer must be an on-chip tile}}
    tile.annotate_layout %A : memref<64x64xf16> layout #tile.swizzle<3, 3, 3>
  }
  return
}

// -----

func.func @use_swizzle_1d(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{needs a kernel grid of at least two dimensions}}
    tile.use_swizzle panel(10)
  }
  return
}

// -----

func.func @use_swizzle_twice(%n: index) {
  tile.kernel grid(%n, %n) threads(128) -> (%bx, %by) {
    tile.use_swizzle panel(10)
    // expected-error @+1 {{a kernel takes at most one tile.use_swizzle}}
    tile.use_swizzle panel(4)
  }
  return
}

// -----

func.func @use_swizzle_panel(%n: index) {
  tile.kernel grid(%n, %n) threads(128) -> (%bx, %by) {
    // expected-error @+1 {{panel size must be positive, got 0}}
    tile.use_swizzle panel(0)
  }
  return
}

// -----

func.func @use_swizzle_nested(%n: index) {
  tile.kernel grid(%n, %n) threads(128) -> (%bx, %by) {
    tile.parallel (%i) in (4) {
      // expected-error @+1 {{'tile.use_swizzle' op expects parent op 'tile.kernel'}}
      tile.use_swizzle panel(4)
    }
  }
  return
}

// -----

func.func @yield_parent() {
  // expected-error @+1 {{'tile.yield' op expects parent op to be one of 'tile.kernel, tile.parallel, tile.pipelined, tile.producer, tile.take_turns'}}
  "tile.yield"() : () -> ()
}

// -----

func.func @async_copy_to_fragment(%A: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<16x16xf16, #tile.mem<fragment>>
    // expected-error @+1 {{an async copy goes from global to shared memory}}
    tile.copy %A[%bx, %bx] to %f {async} : memref<?x?xf16> to memref<16x16xf16, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @async_copy_converts(%A: memref<?x?xf32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    // expected-error @+1 {{an async copy cannot convert 'f32' to 'f16'}}
    tile.copy %A[%bx, %bx] to %s {async} : memref<?x?xf32> to memref<16x16xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @async_wait_negative(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{attribute 'pending' failed to satisfy constraint}}
    tile.async_wait pending(-1)
  }
  return
}

// -----

func.func @gemm_wait_negative(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{attribute 'pending' failed to satisfy constraint}}
    tile.gemm_wait pending(-1)
  }
  return
}

// -----

func.func @gemm_wait_outside_kernel() {
  // expected-error @+1 {{must be nested in a 'tile.kernel'}}
  tile.gemm_wait pending(0)
  return
}

// -----

func.func @set_max_registers_not_a_multiple_of_8(%n: index) {
  tile.kernel grid(%n) threads(256) -> (%bx) {
    // expected-error @+1 {{register count must be a multiple of 8, got 250}}
    tile.set_max_registers increase 250
  }
  return
}

// -----

func.func @set_max_registers_out_of_range(%n: index) {
  tile.kernel grid(%n) threads(256) -> (%bx) {
    // expected-error @+1 {{attribute 'count' failed to satisfy constraint}}
    tile.set_max_registers decrease 16
  }
  return
}

// -----

func.func @set_max_registers_outside_kernel() {
  // expected-error @+1 {{must be nested in a 'tile.kernel'}}
  tile.set_max_registers increase 240
  return
}

// -----

func.func @gemm_wg_wait_negative(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{attribute 'wg_wait' failed to satisfy constraint}}
    tile.gemm %a, %a, %c {transpose_b, wg_wait = -2} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @async_commit_outside_kernel() {
  // expected-error @+1 {{must be nested in a 'tile.kernel'}}
  tile.async_commit
  return
}

// -----

func.func @barriers_not_shared(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %bars = tile.alloc_fragment : memref<4xi64, #tile.mem<fragment>>
    // expected-error @+1 {{barriers live in a shared memref<N x i64>}}
    tile.barrier_init %bars arrivals(1) : memref<4xi64, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @barriers_wrong_type(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<4xi32, #tile.mem<shared>>
    // expected-error @+1 {{barriers live in a shared memref<N x i64>}}
    tile.barrier_init %bars arrivals(1) : memref<4xi32, #tile.mem<shared>>
  }
  return
}

// -----

func.func @barrier_init_no_arrivals(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<4xi64, #tile.mem<shared>>
    // expected-error @+1 {{attribute 'arrivals' failed to satisfy constraint}}
    tile.barrier_init %bars arrivals(0) : memref<4xi64, #tile.mem<shared>>
  }
  return
}

// -----

func.func @barrier_wait_out_of_range(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<4xi64, #tile.mem<shared>>
    %c4 = arith.constant 4 : index
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{barrier index 4 is outside the array of 4}}
    tile.barrier_wait %bars[%c4] parity(%c0) : memref<4xi64, #tile.mem<shared>>
  }
  return
}

// -----

func.func @barrier_arrive_out_of_range(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %c2 = arith.constant 2 : index
    // expected-error @+1 {{barrier index 2 is outside the array of 2}}
    tile.barrier_arrive %bars[%c2] : memref<2xi64, #tile.mem<shared>>
  }
  return
}

// -----

func.func @barrier_arrive_not_barriers(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<2xi32, #tile.mem<shared>>
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{barriers live in a shared memref<N x i64>}}
    tile.barrier_arrive %bars[%c0] : memref<2xi32, #tile.mem<shared>>
  }
  return
}

// -----

func.func @barrier_wait_bad_parity(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<4xi64, #tile.mem<shared>>
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    // expected-error @+1 {{a phase parity is 0 or 1, got 2}}
    tile.barrier_wait %bars[%c0] parity(%c2) : memref<4xi64, #tile.mem<shared>>
  }
  return
}

// -----

func.func @copy_tx_only_without_barrier(%A: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // expected-error @+1 {{a tx_only copy counts its bytes on a barrier: it needs arrive(...)}}
    tile.copy %A[%n, %n] to %a {async, tx_only} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @fragment_layout_for_a_range_used_outside_it(%n: index) {
  %c128 = arith.constant 128 : index
  tile.kernel grid(%n) threads(256) -> (%bx) {
    // expected-error @+1 {{fragment layout is for 128 threads but the kernel has 256 (and its users are not all in one range of that many)}}
    %f = tile.alloc_fragment {layout = #tile.fragment<[64], thread = (d0) -> (d0), index = (d0) -> (0), threads = 128>} : memref<64xf32, #tile.mem<fragment>>
    %tx = tile.thread_id 0
    %low = arith.cmpi slt, %tx, %c128 : index
    scf.if %low {
      tile.clear %f : memref<64xf32, #tile.mem<fragment>>
    }
    tile.clear %f : memref<64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @copy_arrive_not_async(%A: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<4xi64, #tile.mem<shared>>
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // expected-error @+1 {{a copy that arrives on a barrier must be async}}
    tile.copy %A[%n, %n] to %a arrive(%bars[%n] : memref<4xi64, #tile.mem<shared>>) : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @copy_arrive_out_of_range(%A: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<4xi64, #tile.mem<shared>>
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c7 = arith.constant 7 : index
    // expected-error @+1 {{barrier index 7 is outside the array of 4}}
    tile.copy %A[%n, %n] to %a arrive(%bars[%c7] : memref<4xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @producer_not_in_kernel_body(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    tile.parallel (%i) in (4) {
      // expected-error @+1 {{belongs directly to a tile.kernel body}}
      tile.producer {
      }
    }
  }
  return
}

// -----

func.func @producer_partial_warpgroup(%n: index) {
  tile.kernel grid(%n) threads(96) -> (%bx) {
    // expected-error @+1 {{needs a kernel with one-dimensional threads in whole warpgroups (multiples of 128), got 96}}
    tile.producer {
    }
  }
  return
}

// -----

// The producer's warpgroup launches with the kernel's threads, within a
// block's 1024.
func.func @producer_too_many_threads(%n: index) {
  tile.kernel grid(%n) threads(1024) -> (%bx) {
    // expected-error @+1 {{adds its warpgroup to the kernel's 1024 threads: a block has at most 1024, so the kernel may have at most 896}}
    tile.producer {
    }
  }
  return
}

// -----

func.func @producer_after_work(%A: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c0 = arith.constant 0 : index
    tile.copy %A[%c0, %c0] to %a : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    // expected-error @+1 {{may follow only allocations, layout annotations, barrier inits, block rasterization and side-effect-free ops; 'tile.copy' needs threads to run it}}
    tile.producer {
    }
  }
  return
}

// -----

func.func @producer_twice(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{is followed by another: one producer per kernel}}
    tile.producer {
    }
    tile.producer {
    }
  }
  return
}

// -----

func.func @producer_registers(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{attribute 'producer_registers' failed to satisfy constraint}}
    tile.producer attributes {producer_registers = 8} {
    }
  }
  return
}

// -----

func.func @take_turns_one_warpgroup(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{needs one-dimensional threads in two or more warpgroups, got 128}}
    tile.take_turns {
    }
  }
  return
}

// -----

func.func @take_turns_copy(%A: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{may hold only gemms and side-effect-free ops (a block barrier would never be reached); 'tile.copy' is neither}}
    tile.take_turns {
      tile.copy %A[%c0, %c0] to %a : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    }
  }
  return
}

// -----

func.func @take_turns_twice(%n: index) {
  tile.kernel grid(%n) threads(256) -> (%bx) {
    // expected-error @+1 {{is one of 2 in its kernel: the turns go around one op}}
    tile.take_turns {
    }
    tile.take_turns {
    }
  }
  return
}

// -----

func.func @take_turns_in_producer(%n: index) {
  tile.kernel grid(%n) threads(256) -> (%bx) {
    tile.producer {
      // expected-error @+1 {{is for the kernel's warpgroups, not a producer's}}
      tile.take_turns {
      }
    }
  }
  return
}

// -----

func.func @tile_counters_shape(%counters: memref<3xi32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{the tile counters are a global memref<2xi32>, got 'memref<3xi32>'}}
    tile.finish_tiles %counters blocks(%n) : memref<3xi32>
  }
  return
}

// -----

func.func @tile_slot_type(%counters: memref<2xi32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %slot = tile.alloc_shared : memref<2xi32, #tile.mem<shared>>
    // expected-error @+1 {{the slot is a shared memref<1xi32>, got 'memref<2xi32, #tile.mem<shared>>'}}
    %t = tile.next_tile %counters[%n] via %slot : memref<2xi32>, memref<2xi32, #tile.mem<shared>>
  }
  return
}

// -----

func.func @tile_barriers_without_count(%counters: memref<2xi32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %slot = tile.alloc_shared : memref<1xi32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    // expected-error @+1 {{takes a count exactly when it takes barriers}}
    %t = tile.next_tile %counters[%n] via %slot barriers(%b, %b) {receive} : memref<2xi32>, memref<1xi32, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>
  }
  return
}

// -----

func.func @tile_receive_without_barriers(%counters: memref<2xi32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %slot = tile.alloc_shared : memref<1xi32, #tile.mem<shared>>
    // expected-error @+1 {{receives the index through barriers(%full, %released); none given}}
    %t = tile.next_tile %counters[%n] via %slot {receive} : memref<2xi32>, memref<1xi32, #tile.mem<shared>>
  }
  return
}

// -----

func.func @tile_handoff_barrier_array(%counters: memref<2xi32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %slot = tile.alloc_shared : memref<1xi32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    // expected-error @+1 {{hands the index over on single barriers (memref<1xi64>), got 'memref<2xi64, #tile.mem<shared>>'}}
    %t = tile.next_tile %counters[%n] via %slot barriers(%b, %b) count(%n) {receive} : memref<2xi32>, memref<1xi32, #tile.mem<shared>>, memref<2xi64, #tile.mem<shared>>, memref<2xi64, #tile.mem<shared>>
  }
  return
}

// -----

func.func @tile_handoff_outside_producer(%counters: memref<2xi32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %slot = tile.alloc_shared : memref<1xi32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    // expected-error @+1 {{with barriers and no `receive`, takes the index for the consumers: it belongs in a tile.producer}}
    %t = tile.next_tile %counters[%n] via %slot barriers(%b, %b) count(%n) : memref<2xi32>, memref<1xi32, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>
  }
  return
}

// -----

func.func @tile_receive_in_producer(%counters: memref<2xi32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %slot = tile.alloc_shared : memref<1xi32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    tile.producer {
      // expected-error @+1 {{receives the index among the consumers, not in the tile.producer that takes it}}
      %t = tile.next_tile %counters[%n] via %slot barriers(%b, %b) count(%n) {receive} : memref<2xi32>, memref<1xi32, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>
    }
  }
  return
}

// -----

func.func @tile_block_form_in_producer(%counters: memref<2xi32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %slot = tile.alloc_shared : memref<1xi32, #tile.mem<shared>>
    tile.producer {
      // expected-error @+1 {{in a tile.producer hands the index to the consumers: it needs barriers(%full, %released) and a count}}
      %t = tile.next_tile %counters[%n] via %slot : memref<2xi32>, memref<1xi32, #tile.mem<shared>>
    }
  }
  return
}

// -----

// A region's tile dimensions are the tile's shape.
func.func @region_extents_mismatch(%Q: memref<?x?x?x64xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // expected-error @+1 {{the source region's tile dimensions [32, 64] do not match the tile [64, 64]}}
    tile.copy %Q[%i, %i : 32, %i, %i : 64] to %s : memref<?x?x?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @region_rank_mismatch(%Q: memref<?x?x?x64xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64x64xf16, #tile.mem<shared>>
    // expected-error @+1 {{the destination region's tile dimensions [64, 64] do not match the tile [64, 64, 64]}}
    tile.copy %s to %Q[%i, %i : 64, %i, %i : 64] : memref<64x64x64xf16, #tile.mem<shared>> to memref<?x?x?x64xf16>
  }
  return
}

// -----

// The tile's leading unit dimensions may be missing from a region; others
// may not.
func.func @region_missing_dimension(%b: memref<?xf32>, %i: index) {
  tile.kernel grid(%i) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<2x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{the source region's tile dimensions [64] do not match the tile [2, 64]}}
    tile.copy %b[%i : 64] to %f : memref<?xf32> to memref<2x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @region_zero_extent(%Q: memref<?x?xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64xf16, #tile.mem<shared>>
    // expected-error @+1 {{a tile dimension has an extent of at least 1, got 0}}
    tile.copy %Q[%i : 0, %i : 64] to %s : memref<?x?xf16> to memref<64xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @region_generic_every_dim_away(%Q: memref<?x?xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64xf16, #tile.mem<shared>>
    // expected-error @+1 {{the source region indexes every dimension away}}
    "tile.copy"(%Q, %i, %i, %s) <{operandSegmentSizes = array<i32: 1, 2, 1, 0, 0, 0, 0>, src_sizes = array<i64: 0, 0>}> : (memref<?x?xf16>, index, index, memref<64xf16, #tile.mem<shared>>) -> ()
  }
  return
}

// -----

func.func @region_generic_extent_count(%Q: memref<?x?xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64xf16, #tile.mem<shared>>
    // expected-error @+1 {{the source region has 3 extents but the source has rank 2}}
    "tile.copy"(%Q, %i, %i, %s) <{operandSegmentSizes = array<i32: 1, 2, 1, 0, 0, 0, 0>, src_sizes = array<i64: 0, 64, 0>}> : (memref<?x?xf16>, index, index, memref<64xf16, #tile.mem<shared>>) -> ()
  }
  return
}

// -----

func.func @region_generic_negative(%Q: memref<?x?xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64xf16, #tile.mem<shared>>
    // expected-error @+1 {{the source region has a negative extent -64 along dimension 1}}
    "tile.copy"(%Q, %i, %i, %s) <{operandSegmentSizes = array<i32: 1, 2, 1, 0, 0, 0, 0>, src_sizes = array<i64: 0, -64>}> : (memref<?x?xf16>, index, index, memref<64xf16, #tile.mem<shared>>) -> ()
  }
  return
}

// -----

func.func @region_generic_without_offsets(%Q: memref<64xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64xf16, #tile.mem<shared>>
    // expected-error @+1 {{region extents need the region's offsets}}
    "tile.copy"(%Q, %s) <{operandSegmentSizes = array<i32: 1, 0, 1, 0, 0, 0, 0>, src_sizes = array<i64: 64>}> : (memref<64xf16>, memref<64xf16, #tile.mem<shared>>) -> ()
  }
  return
}

// -----

// An on-chip region must stay inside the tile along every dimension.
func.func @region_on_chip_out_of_bounds(%i: index) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  tile.kernel grid(%i) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<2x64x32xf16, #tile.mem<shared>>
    %f = tile.alloc_fragment : memref<64x32xf32, #tile.mem<fragment>>
    // expected-error @+1 {{the tile does not fit in the on-chip source along dimension 0: offset 3 + extent 1 > 2}}
    tile.copy %s[%c3, %c0 : 64, %c0 : 32] to %f : memref<2x64x32xf16, #tile.mem<shared>> to memref<64x32xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @atomic_add_element_with_extent(%C: memref<?x?xf32>, %x: f32, %i: index) {
  tile.kernel grid(%i) threads(128) -> (%bx) {
    // expected-error @+1 {{the element form adds one element: its offsets take no extents}}
    "tile.atomic_add"(%x, %C, %i, %i) <{dst_sizes = array<i64: 1, 0>}> : (f32, memref<?x?xf32>, index, index) -> ()
  }
  return
}

// -----

func.func @atomic_add_region_mismatch(%C: memref<?x?x?xf32>, %i: index) {
  tile.kernel grid(%i) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{the destination region's tile dimensions [64, 32] do not match the tile [64, 64]}}
    tile.atomic_add %f to %C[%i : 64, %i, %i : 32] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?x?xf32>
  }
  return
}

// -----

// On-chip tiles have at least one dimension and no zero-size one (passes
// divide by and iterate over their extents).
func.func @rank0_fragment() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    // expected-error @+1 {{an on-chip tile has at least one dimension; a single value is a tile of shape [1], got 'memref<f32, #tile.mem<fragment>>'}}
    %f = tile.alloc_fragment : memref<f32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @zero_size_shared() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    // expected-error @+1 {{an on-chip tile has no zero-size dimension, got 'memref<64x0xf16, #tile.mem<shared>>'}}
    %s = tile.alloc_shared : memref<64x0xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @zero_size_local() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    // expected-error @+1 {{an on-chip tile has no zero-size dimension, got 'memref<0xi32, #tile.mem<local>>'}}
    %l = tile.alloc_local : memref<0xi32, #tile.mem<local>>
  }
  return
}

// -----

func.func @nested_kernel(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{a tile.kernel cannot be nested in another}}
    tile.kernel grid(%n) threads(128) -> (%by) {
    }
  }
  return
}

// -----

func.func @atomic_add_bool(%B: memref<?xi1>, %v: i1, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // expected-error @+1 {{booleans do not add}}
    tile.atomic_add %v to %B[%bx] : i1 to memref<?xi1>
  }
  return
}

// -----

// Integers are signless (a copy converts them as signed).
func.func @signed_integer_tile(%A: memref<64xsi8>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_local : memref<64xi32, #tile.mem<local>>
    // expected-error @+1 {{must be memref of signless integer or floating-point values}}
    tile.copy %A to %s : memref<64xsi8> to memref<64xi32, #tile.mem<local>>
  }
  return
}

// -----

func.func @gemm_instruction_kind(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{unknown gemm instruction 'hmma'; expected simt, mma_sync, wgmma, mfma or wmma}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<hmma m16n8k16>} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_instruction_shape_syntax(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{expected the instruction's shape as m<M>n<N>k<K>, e.g. m16n8k16}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<mma_sync m16k16>} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_instruction_shape(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{mma_sync has no shape m16n16k16; expected m16n8k16 (16-bit operands) or m16n8k32 (8-bit)}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<mma_sync m16n16k16>} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_instruction_wgmma_n(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{wgmma has no shape m64n12k16; expected m64nNk16 with N a multiple of 8 up to 256}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<wgmma m64n12k16>} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_instruction_blocks(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{blocks is a parameter of wgmma, not of mma_sync}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<mma_sync m16n8k16, blocks = 2>} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_instruction_blocked_simt(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{blocked lays out the shared tiles of NVIDIA tensor-core instructions (mma_sync, wgmma), not of simt}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<simt, blocked>} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_instruction_blocked_mfma(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{panels lays out the shared tiles of NVIDIA tensor-core instructions (mma_sync, wgmma), not of mfma}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<mfma m16n16k16, panels>} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_instruction_panels_unblocked(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{panels stores blocked tiles in column panels: it needs blocked}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<wgmma m64n64k16, panels>} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_instruction_parameter(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{unknown gemm instruction parameter 'swizzled'; expected register_a, blocks, blocked or panels}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<wgmma m64n64k16, swizzled>} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_instruction_accumulators(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{wgmma with 2 m64 blocks of 256 columns: a warpgroup holds 1 to 256 / N blocks of accumulators}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<wgmma m64n256k16, blocks = 2>} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_instruction_split(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{a 64x64x32 gemm does not split into #tile.gemm_instruction<wgmma m64n128k16> (one wgmma covers all N columns, or N / its column groups of warpgroups)}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<wgmma m64n128k16>} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_instruction_register_a(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{wgmma reads A from registers (register_a) but A is a shared tile}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<wgmma m64n64k16, register_a>} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @gemm_instruction_k(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xi8, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x64xi8, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xi32, #tile.mem<fragment>>
    // expected-error @+1 {{mma_sync with k = 16 does not take 'i8' operands}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<mma_sync m16n8k16>} : memref<64x64xi8, #tile.mem<shared>>, memref<64x64xi8, #tile.mem<shared>> -> memref<64x64xi32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @copy_engine_kind(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // expected-error @+2 {{expected ::mlir::tile::CopyEngineKind to be one of: elements, vector, cp_async, tma, buffer_load}}
    // expected-error @+1 {{failed to parse Tile_CopyEngineAttr parameter 'kind'}}
    tile.copy %A[%bx, %c0] to %s {engine = #tile.copy_engine<ldg>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @cp_async_of_a_synchronous_copy(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // expected-error @+1 {{engine #tile.copy_engine<cp_async> moves an async copy without barriers of a global region into a whole shared tile of its element type}}
    tile.copy %A[%bx, %c0] to %s {engine = #tile.copy_engine<cp_async>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @buffer_load_into_a_fragment(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    // expected-error @+1 {{engine #tile.copy_engine<buffer_load> moves a copy without barriers of a global region into a whole shared tile of its element type}}
    tile.copy %A[%bx, %c0] to %f {engine = #tile.copy_engine<buffer_load>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @tma_of_a_synchronous_load(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // expected-error @+1 {{engine #tile.copy_engine<tma> moves a copy that arrives on a barrier from a global region into a whole shared tile, or a synchronous one of a whole shared tile into a global region, of one element type}}
    tile.copy %A[%bx, %c0] to %s {engine = #tile.copy_engine<tma>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @tma_store_that_converts(%C: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // expected-error @+1 {{engine #tile.copy_engine<tma> moves a copy that arrives on a barrier}}
    tile.copy %s to %C[%bx, %c0] {engine = #tile.copy_engine<tma>} : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf32>
  }
  return
}

// -----

// Only a fragment with a fragment layout can live in registers.
func.func @in_registers_shared() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    // expected-error @+1 {{'tile.in_registers' must be a unit attribute on a tile.alloc_fragment with a #tile.fragment layout}}
    %a = tile.alloc_shared {tile.in_registers} : memref<16x64xf32, #tile.mem<shared>>
  }
  return
}

// -----

func.func @in_registers_no_layout() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    // expected-error @+1 {{'tile.in_registers' must be a unit attribute on a tile.alloc_fragment with a #tile.fragment layout}}
    %a = tile.alloc_fragment {tile.in_registers} : memref<16x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// A tensor map moves a copy only on TMA.
func.func @tensor_map_other_engine(%A: memref<?x?xf16>, %map: i64) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // expected-error @+1 {{has a tensor map but not the #tile.copy_engine<tma> engine}}
    tile.copy %s to %A[%c0, %c0] tensor_map(%map) {engine = #tile.copy_engine<vector>} : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}

// -----

func.func @make_tensor_sizes(%p: i64, %n: index) {
  // expected-error @+1 {{needs one size per dynamic dimension of 'memref<?x?xf16>' (2), got 1}}
  %t = tile.make_tensor %p[%n] : memref<?x?xf16>
  return
}

// -----

func.func @make_tensor_space(%p: i64) {
  // expected-error @+1 {{makes a global tensor (the default memory space), got 'memref<64xf16, #tile.mem<shared>>'}}
  %t = tile.make_tensor %p : memref<64xf16, #tile.mem<shared>>
  return
}

// -----

func.func @make_tensor_layout(%p: i64) {
  // expected-error @+1 {{makes a row-major tensor (the identity layout), got 'memref<64x64xf16, strided<[1, 64]>>'}}
  %t = tile.make_tensor %p : memref<64x64xf16, strided<[1, 64]>>
  return
}

// -----

func.func @view_bytes(%a: memref<64xf32>) {
  // expected-error @+1 {{keeps the bytes: 'memref<64xf32>' holds 256, 'memref<64xf16>' 128}}
  %v = tile.view %a : memref<64xf32> to memref<64xf16>
  return
}

// -----

func.func @view_layout(%a: memref<8x8xf32, strided<[1, 8]>>) {
  // expected-error @+1 {{views a statically shaped row-major global tensor or shared tile as another, got 'memref<8x8xf32, strided<[1, 8]>>'}}
  %v = tile.view %a : memref<8x8xf32, strided<[1, 8]>> to memref<8x16xf16>
  return
}

// -----

func.func @view_fragment() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) -> (%bx) {
    %f = tile.alloc_fragment : memref<8x8xf32, #tile.mem<fragment>>
    // expected-error @+1 {{views a statically shaped row-major global tensor or shared tile as another, got 'memref<8x8xf32, #tile.mem<fragment>>'}}
    %v = tile.view %f : memref<8x8xf32, #tile.mem<fragment>> to memref<8x16xf16, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @view_space() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) -> (%bx) {
    %s = tile.alloc_shared : memref<8x8xf32, #tile.mem<shared>>
    // expected-error @+1 {{keeps the memory space: 'memref<8x8xf32, #tile.mem<shared>>' viewed as 'memref<8x16xf16>'}}
    %v = tile.view %s : memref<8x8xf32, #tile.mem<shared>> to memref<8x16xf16>
  }
  return
}

// -----

// A blocked swizzle depends on the row: a view with rows of other bytes
// has none equal to it.
func.func @annotate_view_unkept() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    // expected-note @+1 {{allocated here}}
    %s = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
    %v = tile.view %s : memref<64x128xf16, #tile.mem<shared>> to memref<128x32xf32, #tile.mem<shared>>
    // expected-error @+1 {{layout #tile.swizzle<3, 2, 3, blocked = true> of a view has no equal for the tile it views}}
    tile.annotate_layout %v : memref<128x32xf32, #tile.mem<shared>> layout #tile.swizzle<3, 2, 3, blocked = true>
  }
  return
}

// -----

func.func @annotate_view_conflict() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    // expected-note @+1 {{allocated here}}
    %s = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<64x64xf16, #tile.mem<shared>>
    %v = tile.view %s : memref<64x64xf16, #tile.mem<shared>> to memref<64x32xf32, #tile.mem<shared>>
    // expected-error @+1 {{layout #tile.swizzle<2, 2, 3> conflicts with the layout #tile.swizzle<3, 3, 3> of the allocation}}
    tile.annotate_layout %v : memref<64x32xf32, #tile.mem<shared>> layout #tile.swizzle<2, 2, 3>
  }
  return
}

// -----

func.func @assume_in_kernel(%c: i1) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) -> (%bx) {
    // expected-error @+1 {{stands in the body of a function, outside kernels and loops}}
    tile.assume %c, "Assume: c"
    tile.yield
  }
  return
}

// -----

func.func @assume_with_results(%c: i1) -> i32 {
  // expected-error @+1 {{returns early from its function, which must have no results; 'assume_with_results' has 1}}
  tile.assume %c, "Assume: c"
  %z = arith.constant 0 : i32
  return %z : i32
}

// -----

func.func @cluster_arrive_out_of_cluster(%bars: memref<1xi64, #tile.mem<shared>>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel grid(%c4) threads(32) cluster(4) -> (%bx) {
    // expected-error @+1 {{arrives on the barrier of block 4 of a cluster of 4 blocks}}
    tile.cluster_barrier_arrive %bars[%c0] cta(%c4) : memref<1xi64, #tile.mem<shared>>
  }
  return
}
