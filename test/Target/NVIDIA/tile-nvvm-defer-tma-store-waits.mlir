// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-nvvm-defer-tma-store-waits | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx942" --tile-nvvm-defer-tma-store-waits | FileCheck %s --check-prefix=NONE

// tile-nvvm-defer-tma-store-waits, from stores that carry their tensor
// maps (tile-nvvm-tensor-maps' result, given here as an argument).

// The tile is refilled only at the top of the next iteration: the wait for
// TMA's reads and the block barrier move before the fill, one more wait
// follows the loop, and the store is marked to wait for nothing itself.
// CHECK-LABEL: func.func @deferred
// CHECK: scf.for
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.fill
// CHECK-NEXT: tile.copy {{.*}} tensor_map(%{{.*}}) {engine = #tile.copy_engine<tma>, tile.deferred_store_wait}
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// NONE-LABEL: func.func @deferred
// NONE-NOT: nvvm
// NONE-NOT: tile.deferred_store_wait
func.func @deferred(%O: memref<?x?xf16>, %map: i64, %n: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %c0 = arith.constant 0 : index
    %step = arith.constant 1 : index
    %one = arith.constant 1.0 : f16
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    scf.for %t = %c0 to %n step %step {
      tile.fill %s, %one : memref<64x64xf16, #tile.mem<shared>>
      tile.copy %s to %O[%t, %c0] tensor_map(%map) {engine = #tile.copy_engine<tma>} : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    }
  }
  return
}

// -----

// What stays: a store outside a loop; a tile read again after the store in
// the same body; a kernel that reads the stored buffer; a store without a
// tensor map.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: nvvm.cp.async.bulk.wait_group
// CHECK-NOT: tile.deferred_store_wait
// CHECK: return
func.func @kept(%O: memref<?x?xf16>, %P: memref<?x?xf16>, %Q: memref<?x?xf16>, %map: i64, %pmap: i64, %n: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %c0 = arith.constant 0 : index
    %step = arith.constant 1 : index
    %one = arith.constant 1.0 : f16
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %r = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.fill %s, %one : memref<64x64xf16, #tile.mem<shared>>
    tile.copy %s to %O[%c0, %c0] tensor_map(%map) {engine = #tile.copy_engine<tma>} : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    scf.for %t = %c0 to %n step %step {
      tile.fill %s, %one : memref<64x64xf16, #tile.mem<shared>>
      tile.copy %s to %O[%t, %c0] tensor_map(%map) {engine = #tile.copy_engine<tma>} : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
      tile.copy %s to %r : memref<64x64xf16, #tile.mem<shared>> to memref<64x64xf16, #tile.mem<shared>>
    }
    scf.for %t = %c0 to %n step %step {
      tile.copy %P[%t, %c0] to %r : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.copy %r to %P[%t, %c0] tensor_map(%pmap) {engine = #tile.copy_engine<tma>} : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    }
    scf.for %t = %c0 to %n step %step {
      tile.fill %s, %one : memref<64x64xf16, #tile.mem<shared>>
      tile.copy %s to %Q[%t, %c0] {engine = #tile.copy_engine<tma>} : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    }
    tile.copy %r to %Q[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}
