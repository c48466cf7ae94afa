// RUN: tile-opt %s --allow-unregistered-dialect --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @fill_zero_is_clear
func.func @fill_zero_is_clear(%n: index, %x: f32) {
  %zero = arith.constant 0.0 : f32
  %negzero = arith.constant -0.0 : f32
  %izero = arith.constant 0 : i32
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<16xf32, #tile.mem<fragment>>
    %i = tile.alloc_local : memref<4xi32, #tile.mem<local>>
    // CHECK: tile.clear %[[F:.*]] : memref<16xf32, #tile.mem<fragment>>
    tile.fill %f, %zero : memref<16xf32, #tile.mem<fragment>>
    // -0.0 is not +0.0: the fill stays.
    // CHECK-NEXT: tile.fill %[[F]], %{{.*}} : memref<16xf32, #tile.mem<fragment>>
    tile.fill %f, %negzero : memref<16xf32, #tile.mem<fragment>>
    // CHECK-NEXT: tile.fill %[[F]], %{{.*}} : memref<16xf32, #tile.mem<fragment>>
    tile.fill %f, %x : memref<16xf32, #tile.mem<fragment>>
    // CHECK-NEXT: tile.clear %{{.*}} : memref<4xi32, #tile.mem<local>>
    tile.fill %i, %izero : memref<4xi32, #tile.mem<local>>
    "test.use"(%f, %i) : (memref<16xf32, #tile.mem<fragment>>, memref<4xi32, #tile.mem<local>>) -> ()
  }
  return
}

// -----

// CHECK-LABEL: func.func @self_copy
func.func @self_copy(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %t = tile.alloc_shared : memref<32x16xf16, #tile.mem<shared>>
    // CHECK-NOT: tile.copy %[[S:.*]] to %[[S]] :
    tile.copy %s to %s : memref<16x16xf16, #tile.mem<shared>> to memref<16x16xf16, #tile.mem<shared>>
    // A copy with offsets moves data: it stays.
    // CHECK: tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}]
    tile.copy %s to %t[%c0, %c0] : memref<16x16xf16, #tile.mem<shared>> to memref<32x16xf16, #tile.mem<shared>>
    "test.use"(%t) : (memref<32x16xf16, #tile.mem<shared>>) -> ()
  }
  return
}

// -----

// CHECK-LABEL: func.func @annotation_moves_to_alloc
func.func @annotation_moves_to_alloc(%n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    // CHECK: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<64x64xf16, #tile.mem<shared>>
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // CHECK: tile.alloc_fragment {layout = #tile.fragment<[32], thread = (d0) -> (d0), index = (d0) -> (0), threads = 32>}
    %f = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
    // CHECK-NOT: tile.annotate_layout
    tile.annotate_layout %s : memref<64x64xf16, #tile.mem<shared>> layout #tile.swizzle<3, 3, 3>
    tile.annotate_layout %f : memref<32xf32, #tile.mem<fragment>> layout #tile.fragment<[32], thread = (i) -> (i), index = (i) -> (0), threads = 32>
    "test.use"(%s, %f) : (memref<64x64xf16, #tile.mem<shared>>, memref<32xf32, #tile.mem<fragment>>) -> ()
  }
  return
}

// -----

// Hints have an effect on the hint resource: they survive dead-code
// elimination even though nothing reads them.
// CHECK-LABEL: func.func @hints_survive
func.func @hints_survive(%n: index, %A: memref<64x64xf16>) {
  tile.kernel grid(%n, %n) threads(32) -> (%bx, %by) {
    // CHECK: tile.use_swizzle panel(4)
    tile.use_swizzle panel(4)
  }
  return
}

// -----

// Unused tiles are dead; tiles that are written and then copied out are not.
// CHECK-LABEL: func.func @dead_allocs
func.func @dead_allocs(%n: index, %C: memref<?xf32>) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    // CHECK-NOT: memref<8xf32, #tile.mem<shared>>
    %dead = tile.alloc_shared : memref<8xf32, #tile.mem<shared>>
    // CHECK: %[[LIVE:.*]] = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
    %live = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
    // CHECK: tile.clear %[[LIVE]]
    tile.clear %live : memref<32xf32, #tile.mem<fragment>>
    // CHECK: tile.copy %[[LIVE]] to
    tile.copy %live to %C[%bx] : memref<32xf32, #tile.mem<fragment>> to memref<?xf32>
  }
  return
}

// -----

// A region along the buffer's trailing dimensions is the head-address form;
// one over other dimensions, or lacking a tile dimension, stays a region.
// CHECK-LABEL: func.func @trailing_region_is_head_address
func.func @trailing_region_is_head_address(%A: memref<4x?x?xf16>, %b: memref<?xf32>, %i: index) {
  tile.kernel grid(%i) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %u = tile.alloc_fragment : memref<1x64xf32, #tile.mem<fragment>>
    // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] to
    tile.copy %A[%i, %i : 64, %i : 32] to %s : memref<4x?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
    // CHECK: tile.copy %{{.*}}[%{{.*}} : 64, %{{.*}}, %{{.*}} : 32] to
    tile.copy %A[%i : 64, %i, %i : 32] to %s : memref<4x?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
    // CHECK: tile.copy %{{.*}}[%{{.*}} : 64] to
    tile.copy %b[%i : 64] to %u : memref<?xf32> to memref<1x64xf32, #tile.mem<fragment>>
    "test.use"(%s, %u) : (memref<64x32xf16, #tile.mem<shared>>, memref<1x64xf32, #tile.mem<fragment>>) -> ()
  }
  return
}
