// RUN: tile-opt %s --allow-unregistered-dialect | tile-opt --allow-unregistered-dialect | FileCheck %s
// RUN: tile-opt %s --allow-unregistered-dialect --mlir-print-op-generic | tile-opt --allow-unregistered-dialect | FileCheck %s

// Round trip of every op of the tile dialect in its custom form and through
// the generic form.

module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {

// Regions: an extent after each tile dimension's offset, none after the
// indexed-away ones; both copy directions, a 1-D tile of a 3-D buffer, a
// 1x64 tile whose leading unit dimension the region lacks, atomic_add.
// CHECK-LABEL: func.func @regions
func.func @regions(%Q: memref<?x?x?x64xf16>, %V: memref<8x?x16xf32>,
                   %b: memref<?xf32>, %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%i) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %f = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %r = tile.alloc_fragment : memref<16xf32, #tile.mem<fragment>>
    %u = tile.alloc_fragment : memref<1x64xf32, #tile.mem<fragment>>
    // CHECK: tile.copy %[[Q:.*]][%[[I:.*]], %[[J:.*]] : 64, %[[I]], %[[C0:.*]] : 64] to %{{.*}} : memref<?x?x?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %Q[%i, %j : 64, %i, %c0 : 64] to %s : memref<?x?x?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    // CHECK: tile.copy %{{.*}} to %[[Q]][%[[J]] : 64, %[[I]], %[[I]], %[[C0]] : 64] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?x?x64xf16>
    tile.copy %f to %Q[%j : 64, %i, %i, %c0 : 64] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?x?x64xf16>
    // CHECK: tile.copy %{{.*}}[%[[C0]], %[[I]] : 16, %[[J]]] to %{{.*}} : memref<8x?x16xf32> to memref<16xf32, #tile.mem<fragment>>
    tile.copy %V[%c0, %i : 16, %j] to %r : memref<8x?x16xf32> to memref<16xf32, #tile.mem<fragment>>
    // CHECK: tile.copy %{{.*}}[%[[I]] : 64] to %{{.*}} : memref<?xf32> to memref<1x64xf32, #tile.mem<fragment>>
    tile.copy %b[%i : 64] to %u : memref<?xf32> to memref<1x64xf32, #tile.mem<fragment>>
    // CHECK: tile.copy %{{.*}}[%[[I]], %[[J]] : 64] to %{{.*}} : memref<64x64xf16, #tile.mem<shared>> to memref<64xf32, #tile.mem<fragment>>
    %row = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    tile.copy %s[%i, %j : 64] to %row : memref<64x64xf16, #tile.mem<shared>> to memref<64xf32, #tile.mem<fragment>>
    // CHECK: tile.atomic_add %{{.*}} to %[[Q]][%[[I]], %[[J]] : 64, %[[I]], %[[C0]] : 64] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?x?x64xf16>
    tile.atomic_add %f to %Q[%i, %j : 64, %i, %c0 : 64] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?x?x64xf16>
  }
  return
}

// CHECK-LABEL: func.func @kernel_forms
func.func @kernel_forms(%gx: index, %gy: index, %gz: index) {
  // CHECK: tile.kernel grid(%{{.*}}) threads(256) -> (%[[BX:.*]]) {
  tile.kernel grid(%gx) threads(256) -> (%bx) {
    // CHECK-NEXT: }
  }
  // CHECK: tile.kernel grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(32, 4) cluster(2, 1, 1) -> (%{{.*}}, %{{.*}}, %{{.*}}) attributes {note = "x"} {
  tile.kernel grid(%gx, %gy, %gz) threads(32, 4) cluster(2, 1, 1) -> (%a, %b, %c) attributes {note = "x"} {
  }
  return
}

// CHECK-LABEL: func.func @allocs
func.func @allocs(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    // CHECK: tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %0 = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    // CHECK: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<128x64xbf16, #tile.mem<shared>>
    %1 = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<128x64xbf16, #tile.mem<shared>>
    // CHECK: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true>} : memref<64x128xf16, #tile.mem<shared>>
    %blocked = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true>} : memref<64x128xf16, #tile.mem<shared>>
    // CHECK: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true, panels = true>} : memref<64x128xf16, #tile.mem<shared>>
    %panels = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true, panels = true>} : memref<64x128xf16, #tile.mem<shared>>
    // CHECK: tile.alloc_shared {layout = #tile.swizzle<2, 3, 3>} : memref<64x32xf16, #tile.mem<shared>>
    %unblocked = tile.alloc_shared {layout = #tile.swizzle<2, 3, 3, blocked = false>} : memref<64x32xf16, #tile.mem<shared>>
    // CHECK: tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    %2 = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    // CHECK: tile.alloc_local : memref<1xi32, #tile.mem<local>>
    %3 = tile.alloc_local : memref<1xi32, #tile.mem<local>>
    // CHECK: tile.alloc_fragment {layout = #tile.fragment<[16, 16], thread = (d0, d1) -> ((d0 mod 8) * 4 + (d1 mod 8) floordiv 2 + (d1 floordiv 8) * 32), index = (d0, d1) -> ((d0 floordiv 8) * 2 + d1 mod 2), threads = 128, replicate = 2>}
    %4 = tile.alloc_fragment {layout = #tile.fragment<[16, 16],
        thread = (i, j) -> ((i mod 8) * 4 + (j mod 8) floordiv 2 + (j floordiv 8) * 32),
        index = (i, j) -> ((i floordiv 8) * 2 + j mod 2),
        threads = 128, replicate = 2>} : memref<16x16xf32, #tile.mem<fragment>>
    // The row maxima of one warp's mma accumulator: each row on the four
    // lanes that held its columns (a replica dimension).
    // CHECK: tile.alloc_fragment {layout = #tile.fragment<[16], thread = (d0, d1) -> ((d0 mod 8) * 4 + d1), index = (d0) -> (d0 floordiv 8), threads = 128, replicate = 4>}
    %5 = tile.alloc_fragment {layout = #tile.fragment<[16],
        thread = (i, r) -> ((i mod 8) * 4 + r), index = (i) -> (i floordiv 8),
        threads = 128, replicate = 4>} : memref<16xf32, #tile.mem<fragment>>
    "test.use"(%0, %1, %2, %3, %4, %5) : (memref<128x32xf16, #tile.mem<shared>>, memref<128x64xbf16, #tile.mem<shared>>, memref<128x128xf32, #tile.mem<fragment>>, memref<1xi32, #tile.mem<local>>, memref<16x16xf32, #tile.mem<fragment>>, memref<16xf32, #tile.mem<fragment>>) -> ()
  }
  return
}

// CHECK-LABEL: func.func @copies
func.func @copies(%A: memref<?x?xf16>, %B: memref<4x?x?xf32>, %m: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  tile.kernel grid(%m) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %f = tile.alloc_fragment : memref<128x32xf32, #tile.mem<fragment>>
    %t = tile.alloc_fragment : memref<16x32xf16, #tile.mem<fragment>>
    // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}} : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
    tile.copy %A[%m, %k] to %s : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
    // CHECK: tile.copy %{{.*}} to %{{.*}} : memref<128x32xf16, #tile.mem<shared>> to memref<128x32xf32, #tile.mem<fragment>>
    tile.copy %s to %f : memref<128x32xf16, #tile.mem<shared>> to memref<128x32xf32, #tile.mem<fragment>>
    // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}} {async} : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
    tile.copy %A[%m, %k] to %s {async} : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
    // CHECK-NEXT: tile.async_commit
    tile.async_commit
    // CHECK-NEXT: tile.async_wait pending(0)
    tile.async_wait pending(0)
    // CHECK: tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<128x32xf32, #tile.mem<fragment>> to memref<4x?x?xf32>
    tile.copy %f to %B[%c0, %m, %k] : memref<128x32xf32, #tile.mem<fragment>> to memref<4x?x?xf32>
    // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}} : memref<128x32xf16, #tile.mem<shared>> to memref<16x32xf16, #tile.mem<fragment>>
    tile.copy %s[%c16, %c0] to %t : memref<128x32xf16, #tile.mem<shared>> to memref<16x32xf16, #tile.mem<fragment>>
    // CHECK: tile.copy %{{.*}} to %{{.*}} : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
    tile.copy %A to %s : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
  }
  return
}

// CHECK-LABEL: func.func @gemms
func.func @gemms(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %bt = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %bt, %c {transpose_b} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    %at = tile.alloc_shared : memref<32x64xbf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<32x64xbf16, #tile.mem<shared>>
    %d = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {clear_accum, policy = #tile.policy<full_row>, transpose_a} : memref<32x64xbf16, #tile.mem<shared>>, memref<32x64xbf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %at, %b, %d {transpose_a, clear_accum, policy = #tile.policy<full_row>} : memref<32x64xbf16, #tile.mem<shared>>, memref<32x64xbf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    // The instruction each gemm runs on, as tile-select-instructions records it.
    // CHECK: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<wgmma m64n128k16, blocks = 2>, transpose_b}
    tile.gemm %a, %bt, %c {instruction = #tile.gemm_instruction<wgmma m64n128k16, blocks = 2>, transpose_b} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    // CHECK: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<wgmma m64n128k16, blocks = 2, blocked, panels>, transpose_b}
    tile.gemm %a, %bt, %c {instruction = #tile.gemm_instruction<wgmma m64n128k16, panels, blocks = 2, blocked>, transpose_b} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    // CHECK: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<mma_sync m16n8k16, blocked>, transpose_b}
    tile.gemm %a, %bt, %c {instruction = #tile.gemm_instruction<mma_sync m16n8k16, blocked>, transpose_b} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    // CHECK: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<mma_sync m16n8k16>, transpose_b}
    tile.gemm %a, %bt, %c {instruction = #tile.gemm_instruction<mma_sync m16n8k16>, transpose_b} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    // CHECK: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<mfma m16n16k16>, transpose_b}
    tile.gemm %a, %bt, %c {instruction = #tile.gemm_instruction<mfma m16n16k16>, transpose_b} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    // CHECK: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<simt>, transpose_b}
    tile.gemm %a, %bt, %c {instruction = #tile.gemm_instruction<simt>, transpose_b} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    %first = arith.cmpi eq, %bx, %n : index
    // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} clear_if(%{{.*}}) {transpose_a} : memref<32x64xbf16
    tile.gemm %at, %b, %d clear_if(%first) {transpose_a} : memref<32x64xbf16, #tile.mem<shared>>, memref<32x64xbf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<64x32xf16, #tile.mem<fragment>>
    %v = tile.alloc_shared : memref<32x64xf16, #tile.mem<shared>>
    %o = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    // CHECK: tile.gemm {{.*}} : memref<64x32xf16, #tile.mem<fragment>>, memref<32x64xf16, #tile.mem<shared>> -> memref<64x64xf16, #tile.mem<fragment>>
    tile.gemm %p, %v, %o : memref<64x32xf16, #tile.mem<fragment>>, memref<32x64xf16, #tile.mem<shared>> -> memref<64x64xf16, #tile.mem<fragment>>
    %ia = tile.alloc_shared : memref<64x64xi8, #tile.mem<shared>>
    %ic = tile.alloc_fragment : memref<64x64xi32, #tile.mem<fragment>>
    // CHECK: tile.gemm {{.*}} -> memref<64x64xi32, #tile.mem<fragment>>
    tile.gemm %ia, %ia, %ic : memref<64x64xi8, #tile.mem<shared>>, memref<64x64xi8, #tile.mem<shared>> -> memref<64x64xi32, #tile.mem<fragment>>
    // wg_wait: the default 0 is not printed.
    // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {transpose_b, wg_wait = 1 : i64} : memref<128x32xf16, #tile.mem<shared>>
    tile.gemm %a, %bt, %c {transpose_b, wg_wait = 1} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    // CHECK-NEXT: tile.gemm_wait pending(0)
    tile.gemm_wait pending(0)
    // CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {transpose_b, wg_wait = -1 : i64} :
    tile.gemm %a, %bt, %c {transpose_b, wg_wait = -1} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    // CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} :
    tile.gemm %a, %bt, %c {transpose_b, wg_wait = 0} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    %fa = tile.alloc_shared : memref<64x64xf8E4M3FN, #tile.mem<shared>>
    %fb = tile.alloc_shared : memref<64x64xf8E5M2, #tile.mem<shared>>
    %fc = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // CHECK: tile.gemm {{.*}} : memref<64x64xf8E4M3FN, #tile.mem<shared>>, memref<64x64xf8E5M2, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %fa, %fb, %fc : memref<64x64xf8E4M3FN, #tile.mem<shared>>, memref<64x64xf8E5M2, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    %xa = tile.alloc_shared : memref<16x16xf32, #tile.mem<shared>>
    %xc = tile.alloc_fragment : memref<16x16xf32, #tile.mem<fragment>>
    // CHECK: tile.gemm {{.*}} -> memref<16x16xf32, #tile.mem<fragment>>
    tile.gemm %xa, %xa, %xc : memref<16x16xf32, #tile.mem<shared>>, memref<16x16xf32, #tile.mem<shared>> -> memref<16x16xf32, #tile.mem<fragment>>
  }
  return
}

// CHECK-LABEL: func.func @fill_reduce_cumsum
func.func @fill_reduce_cumsum(%n: index, %x: f32) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %k = tile.alloc_fragment : memref<64x1xf32, #tile.mem<fragment>>
    %sh = tile.alloc_shared : memref<32x128xf32, #tile.mem<shared>>
    // CHECK: tile.fill %{{.*}}, %{{.*}} : memref<64xf32, #tile.mem<fragment>>
    tile.fill %m, %x : memref<64xf32, #tile.mem<fragment>>
    // CHECK: tile.clear %{{.*}} : memref<64x128xf32, #tile.mem<fragment>>
    tile.clear %s : memref<64x128xf32, #tile.mem<fragment>>
    // CHECK: tile.reduce <max> %{{.*}} to %{{.*}} dim 1 : memref<64x128xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
    tile.reduce <max> %s to %m dim 1 : memref<64x128xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
    // CHECK: tile.reduce <min> %{{.*}} to %{{.*}} dim 1 {nan_propagate = true}
    tile.reduce <min> %s to %m dim 1 {nan_propagate = true} : memref<64x128xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
    // CHECK: %{{.*}} = tile.thread_id 0
    %tx = tile.thread_id 0
    // CHECK: %{{.*}} = tile.make_tensor %{{.*}}[%{{.*}}] : memref<?x128xf16>
    %addr = arith.index_cast %tx : index to i64
    %g = tile.make_tensor %addr[%tx] : memref<?x128xf16>
    // CHECK: %{{.*}} = tile.make_tensor %{{.*}} : memref<64x64xf32>
    %h = tile.make_tensor %addr : memref<64x64xf32>
    // CHECK: %{{.*}} = tile.view %{{.*}} : memref<64x64xf32> to memref<64x128xf16>
    %v = tile.view %h : memref<64x64xf32> to memref<64x128xf16>
    // CHECK: %{{.*}} = tile.view %{{.*}} : memref<64x64xf32, #tile.mem<shared>> to memref<64x128xbf16, #tile.mem<shared>>
    %shv = tile.alloc_shared : memref<64x64xf32, #tile.mem<shared>>
    %sv = tile.view %shv : memref<64x64xf32, #tile.mem<shared>> to memref<64x128xbf16, #tile.mem<shared>>
    // CHECK: %{{.*}} = tile.thread_id 2
    %tz = tile.thread_id 2
    // CHECK: tile.sync_threads
    tile.sync_threads
    // CHECK: tile.grid_wait
    tile.grid_wait
    // CHECK: tile.grid_launch_dependents
    tile.grid_launch_dependents
    // CHECK: tile.set_max_registers increase 240
    tile.set_max_registers increase 240
    // CHECK: tile.set_max_registers decrease 24
    tile.set_max_registers decrease 24
    // CHECK: tile.sync_threads threads(128)
    tile.sync_threads threads(128)
    // CHECK: tile.reduce <sum> %{{.*}} to %{{.*}} dim 1 {clear = false} : memref<64x128xf32, #tile.mem<fragment>> to memref<64x1xf32, #tile.mem<fragment>>
    tile.reduce <sum> %s to %k dim 1 {clear = false} : memref<64x128xf32, #tile.mem<fragment>> to memref<64x1xf32, #tile.mem<fragment>>
    // CHECK: tile.reduce <min>
    tile.reduce <min> %s to %m dim 1 : memref<64x128xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
    // CHECK: tile.reduce <abssum>
    tile.reduce <abssum> %s to %m dim 1 : memref<64x128xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
    // CHECK: tile.reduce <absmax> %{{.*}} to %{{.*}} dim 0 : memref<64xf32, #tile.mem<fragment>> to memref<1xf32, #tile.mem<fragment>>
    %one = tile.alloc_fragment : memref<1xf32, #tile.mem<fragment>>
    tile.reduce <absmax> %m to %one dim 0 : memref<64xf32, #tile.mem<fragment>> to memref<1xf32, #tile.mem<fragment>>
    // CHECK: tile.cumsum %{{.*}} to %{{.*}} dim 1 : memref<32x128xf32, #tile.mem<shared>> to memref<32x128xf32, #tile.mem<shared>>
    tile.cumsum %sh to %sh dim 1 : memref<32x128xf32, #tile.mem<shared>> to memref<32x128xf32, #tile.mem<shared>>
    // CHECK: tile.cumsum %{{.*}} to %{{.*}} dim 0 {reverse}
    tile.cumsum %sh to %sh dim 0 {reverse} : memref<32x128xf32, #tile.mem<shared>> to memref<32x128xf32, #tile.mem<shared>>
    // CHECK: tile.cumsum %{{.*}} to %{{.*}} dim 1 {kind = #tile.reduce_kind<min>}
    tile.cumsum %sh to %sh dim 1 {kind = #tile.reduce_kind<min>} : memref<32x128xf32, #tile.mem<shared>> to memref<32x128xf32, #tile.mem<shared>>
  }
  return
}

// CHECK-LABEL: func.func @atomics
func.func @atomics(%out: memref<?xf32>, %C: memref<?x?xf32>, %v: f32, %i: index) {
  tile.kernel grid(%i) threads(64) -> (%bx) {
    // CHECK: tile.atomic_add %{{.*}} to %{{.*}}[%{{.*}}] : f32 to memref<?xf32>
    tile.atomic_add %v to %out[%bx] : f32 to memref<?xf32>
    %part = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // CHECK: tile.atomic_add %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
    tile.atomic_add %part to %C[%bx, %i] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
  }
  return
}

// CHECK-LABEL: func.func @loops
func.func @loops(%n: index, %kt: index, %idx: memref<64xi32>, %src: memref<?x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n, %n) threads(128) -> (%bx, %by) {
    // CHECK: tile.use_swizzle panel(8) {order = #tile.raster<column>}
    tile.use_swizzle panel(8) {order = #tile.raster<column>}
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // CHECK: tile.annotate_layout %{{.*}} : memref<64x64xf16, #tile.mem<shared>> layout #tile.swizzle<3, 3, 3>
    tile.annotate_layout %a : memref<64x64xf16, #tile.mem<shared>> layout #tile.swizzle<3, 3, 3>
    // CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} num_stages = 3 {
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      // CHECK: tile.gemm
      tile.gemm %a, %a, %c : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    // CHECK-NEXT: }
    }
    // CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} num_stages = 2 order = [1, 0] stage = [0, 1] {
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 order = [1, 0] stage = [0, 1] {
      tile.clear %c : memref<64x64xf32, #tile.mem<fragment>>
      tile.gemm %a, %a, %c : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    // CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (64, 64) {
    tile.parallel (%i, %j) in (64, 64) {
      // CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]]
      %v = memref.load %c[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %c[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
    }
    // A gather the pipeline issues asynchronously.
    // CHECK: tile.parallel (%[[R:.*]], %[[D:.*]]) in (64, 64) attributes {async} {
    tile.parallel (%r, %d) in (64, 64) attributes {async} {
      // CHECK-NEXT: memref.load %{{.*}}[%[[R]]] : memref<64xi32>
      %x = memref.load %idx[%r] : memref<64xi32>
      %row = arith.index_cast %x : i32 to index
      %v = memref.load %src[%row, %d] : memref<?x64xf16>
      // CHECK: memref.store %{{.*}}, %{{.*}}[%[[R]], %[[D]]] : memref<64x64xf16, #tile.mem<shared>>
      memref.store %v, %a[%r, %d] : memref<64x64xf16, #tile.mem<shared>>
    }
  }
  return
}

// A thread's own asynchronous copy of a few elements (TileLang's
// T.ptx_cp_async), the arrival after its copies and its own group wait.
// CHECK-LABEL: func.func @thread_copies
func.func @thread_copies(%A: memref<?x?x576xbf16>, %i: index, %j: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<2x64x576xbf16, #tile.mem<shared>>
    %bars = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    // CHECK: tile.async_copy_elements %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] count(8) : memref<?x?x576xbf16> to memref<2x64x576xbf16, #tile.mem<shared>>
    tile.async_copy_elements %A[%bx, %i, %j] to %s[%c1, %i, %j] count(8) : memref<?x?x576xbf16> to memref<2x64x576xbf16, #tile.mem<shared>>
    // CHECK: tile.async_copy_elements %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] count(8) if %{{.*}} : memref<?x?x576xbf16> to memref<2x64x576xbf16, #tile.mem<shared>>
    %valid = arith.cmpi slt, %i, %j : index
    tile.async_copy_elements %A[%bx, %i, %j] to %s[%c1, %i, %j] count(8) if %valid : memref<?x?x576xbf16> to memref<2x64x576xbf16, #tile.mem<shared>>
    // CHECK: tile.barrier_arrive %{{.*}}[%{{.*}}] {async_copies, per_thread} : memref<2xi64, #tile.mem<shared>>
    tile.barrier_arrive %bars[%c1] {async_copies, per_thread} : memref<2xi64, #tile.mem<shared>>
    tile.async_commit
    // CHECK: tile.async_wait pending(0) {per_thread}
    tile.async_wait pending(0) {per_thread}
  }
  return
}

// Arrival barriers: copies that arrive on them and the waits.
// CHECK-LABEL: func.func @barriers
func.func @barriers(%A: memref<?x?xf16>, %i: index, %p: index, %map: i64) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<4xi64, #tile.mem<shared>>
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // CHECK: tile.barrier_init %{{.*}} arrivals(2) : memref<4xi64, #tile.mem<shared>>
    tile.barrier_init %bars arrivals(2) : memref<4xi64, #tile.mem<shared>>
    // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}} arrive(%{{.*}}[%{{.*}}] : memref<4xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %A[%i, %i] to %a arrive(%bars[%i] : memref<4xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    // With the tensor map the host created (tile-nvvm-tensor-maps).
    // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}} arrive(%{{.*}}[%{{.*}}] : memref<4xi64, #tile.mem<shared>>) tensor_map(%[[MAP:.*]]) {async, engine = #tile.copy_engine<tma>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %A[%i, %i] to %a arrive(%bars[%i] : memref<4xi64, #tile.mem<shared>>) tensor_map(%map) {async, engine = #tile.copy_engine<tma>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    // CHECK: tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] tensor_map(%[[MAP]]) {engine = #tile.copy_engine<tma>} : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    tile.copy %a to %A[%i, %i] tensor_map(%map) {engine = #tile.copy_engine<tma>} : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    // CHECK: tile.barrier_wait %{{.*}}[%{{.*}}] parity(%{{.*}}) : memref<4xi64, #tile.mem<shared>>
    tile.barrier_wait %bars[%i] parity(%p) : memref<4xi64, #tile.mem<shared>>
    // CHECK: tile.barrier_wait %{{.*}}[%{{.*}}] parity(%{{.*}}) {issuer} : memref<4xi64, #tile.mem<shared>>
    tile.barrier_wait %bars[%i] parity(%p) {issuer} : memref<4xi64, #tile.mem<shared>>
    // CHECK: tile.barrier_arrive %{{.*}}[%{{.*}}] : memref<4xi64, #tile.mem<shared>>
    tile.barrier_arrive %bars[%i] : memref<4xi64, #tile.mem<shared>>
    // TileLang's T.tma_copy and T.barrier_arrive: the copy only counts its
    // bytes, every thread arrives.
    // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}} arrive(%{{.*}}[%{{.*}}] : memref<4xi64, #tile.mem<shared>>) {async, tx_only} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %A[%i, %i] to %a arrive(%bars[%i] : memref<4xi64, #tile.mem<shared>>) {async, tx_only} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    // CHECK: tile.barrier_arrive %{{.*}}[%{{.*}}] {per_thread} : memref<4xi64, #tile.mem<shared>>
    tile.barrier_arrive %bars[%i] {per_thread} : memref<4xi64, #tile.mem<shared>>
  }
  return
}

// The dynamic tile schedule: the block form, the producer's hand-off and
// the consumers' receipt, the end of a block's share.
// CHECK-LABEL: func.func @dynamic_tiles
func.func @dynamic_tiles(%counters: memref<2xi32>, %n: index, %k: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %slot = tile.alloc_shared : memref<1xi32, #tile.mem<shared>>
    %full = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    %released = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    tile.producer {
      // CHECK: tile.next_tile %{{.*}}[%{{.*}}] via %{{.*}} barriers(%{{.*}}, %{{.*}}) count(%{{.*}}) : memref<2xi32>, memref<1xi32, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>
      %p = tile.next_tile %counters[%n] via %slot barriers(%full, %released) count(%k) : memref<2xi32>, memref<1xi32, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>
      // CHECK: tile.finish_tiles %{{.*}} blocks(%{{.*}}) : memref<2xi32>
      tile.finish_tiles %counters blocks(%n) : memref<2xi32>
    }
    // CHECK: tile.next_tile %{{.*}}[%{{.*}}] via %{{.*}} : memref<2xi32>, memref<1xi32, #tile.mem<shared>>
    %t = tile.next_tile %counters[%n] via %slot : memref<2xi32>, memref<1xi32, #tile.mem<shared>>
    // CHECK: tile.next_tile %{{.*}}[%{{.*}}] via %{{.*}} barriers(%{{.*}}, %{{.*}}) count(%{{.*}}) {receive} : memref<2xi32>, memref<1xi32, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>
    %r = tile.next_tile %counters[%n] via %slot barriers(%full, %released) count(%k) {receive} : memref<2xi32>, memref<1xi32, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>
  }
  return
}

// Two warpgroups taking turns issuing their gemms.
// CHECK-LABEL: func.func @take_turns
func.func @take_turns(%n: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x64xf32, #tile.mem<fragment>>
    // CHECK: tile.take_turns {
    // CHECK-NEXT: tile.gemm {{.*}} -> memref<128x64xf32, #tile.mem<fragment>>{{$}}
    // CHECK-NEXT: }
    tile.take_turns {
      tile.gemm %a, %b, %c {wg_wait = -1} : memref<128x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<128x64xf32, #tile.mem<fragment>>
    }
  }
  return
}

// A producer after the block rasterization (which needs no thread: it
// renames the block ids of the whole kernel, the producer's too).
// CHECK-LABEL: func.func @producer_after_use_swizzle
// CHECK: tile.use_swizzle panel(8)
// CHECK-NEXT: tile.alloc_shared
// CHECK-NEXT: tile.producer {
func.func @producer_after_use_swizzle(%n: index) {
  tile.kernel grid(%n, %n) threads(256) -> (%bx, %by) {
    tile.use_swizzle panel(8)
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.producer {
    }
  }
  return
}

// A producer warpgroup issuing a pipeline's copies.
// CHECK-LABEL: func.func @producer
func.func @producer(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %full = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %free = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.barrier_init %full arrivals(1) : memref<2xi64, #tile.mem<shared>>
    tile.barrier_init %free arrivals(8) : memref<2xi64, #tile.mem<shared>>
    // CHECK: tile.producer {
    // CHECK: tile.barrier_wait %{{.*}}[%{{.*}}] parity(%{{.*}}) {issuer}
    // CHECK: tile.copy
    // CHECK: }
    tile.producer {
      scf.for %i = %c0 to %n step %c1 {
        tile.barrier_wait %free[%c0] parity(%c1) {issuer} : memref<2xi64, #tile.mem<shared>>
        tile.copy %A[%i, %c0] to %a arrive(%full[%c0] : memref<2xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      }
    }
    // CHECK: tile.producer attributes {producer_registers = 40 : i64} {
    tile.barrier_wait %full[%c0] parity(%c0) : memref<2xi64, #tile.mem<shared>>
  }
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    tile.producer attributes {producer_registers = 40} {
    }
  }
  return
}

// The engine each copy moves on, as tile-select-instructions records it.
// CHECK-LABEL: func.func @copy_engines
func.func @copy_engines(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // CHECK: tile.copy {{.*}} {engine = #tile.copy_engine<elements>}
    tile.copy %A[%bx, %c0] to %s {engine = #tile.copy_engine<elements>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    // CHECK: tile.copy {{.*}} {engine = #tile.copy_engine<vector>}
    tile.copy %s to %A[%bx, %c0] {engine = #tile.copy_engine<vector>} : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    // CHECK: tile.copy {{.*}} {async, engine = #tile.copy_engine<cp_async>}
    tile.copy %A[%bx, %c0] to %s {async, engine = #tile.copy_engine<cp_async>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    // CHECK: tile.copy {{.*}} arrive({{.*}}) {async, engine = #tile.copy_engine<tma>}
    tile.copy %A[%bx, %c0] to %s arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    // CHECK: tile.copy {{.*}} {engine = #tile.copy_engine<tma>}
    tile.copy %s to %A[%bx, %c0] {engine = #tile.copy_engine<tma>} : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    // CHECK: tile.copy {{.*}} {engine = #tile.copy_engine<buffer_load>}
    tile.copy %A[%bx, %c0] to %s {engine = #tile.copy_engine<buffer_load>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}


// A fact about the call's arguments, at the function's top level.
// CHECK-LABEL: func.func @assume
// CHECK: tile.assume %{{.*}}, "Assume: N % 4 == 0"
func.func @assume(%n: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %r = arith.remui %n, %c4 : index
  %ok = arith.cmpi eq, %r, %c0 : index
  tile.assume %ok, "Assume: N % 4 == 0"
  return
}


// Thread block cluster synchronization.
// CHECK-LABEL: func.func @clusters
// CHECK: tile.cluster_arrive
// CHECK: tile.cluster_arrive {relaxed}
// CHECK: tile.cluster_wait
// CHECK: %{{.*}} = tile.block_rank_in_cluster
// CHECK: tile.cluster_barrier_arrive %{{.*}}[%{{.*}}] cta(%{{.*}}) : memref<2xi64, #tile.mem<shared>>
func.func @clusters(%g: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%g) threads(128) cluster(2) -> (%bx) {
    %bars = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    tile.cluster_arrive
    tile.cluster_arrive {relaxed}
    tile.cluster_wait
    %rank = tile.block_rank_in_cluster
    tile.cluster_barrier_arrive %bars[%c0] cta(%rank) : memref<2xi64, #tile.mem<shared>>
  }
  return
}

}
