// RUN: tile-opt %s --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory=reuse-shared-memory=true --tile-drop-redundant-barriers | FileCheck %s
// RUN: tile-opt %s --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory --tile-drop-redundant-barriers | FileCheck %s --check-prefix=NOREUSE

// Tiles with disjoint lifetimes share shared memory: %b takes over %a's
// bytes once %a is dead (after a barrier), %c lives throughout and keeps
// its own; the launch asks for 4096 + 64 bytes instead of 8256.
// CHECK-LABEL: func.func @phases
// CHECK: %[[SIZE:.*]] = arith.constant 4160 : i32
// CHECK: gpu.launch
// CHECK-SAME: dynamic_shared_memory_size %[[SIZE]]
// CHECK: %[[DYN:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[A_AT:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %[[DYN]][%[[A_AT]]][] {{.*}} to memref<32x32xf32
// CHECK: %[[B_AT:.*]] = arith.constant 0 : index
// CHECK: %[[B:.*]] = memref.view %[[DYN]][%[[B_AT]]][] {{.*}} to memref<32x32xf32
// CHECK: %[[C_AT:.*]] = arith.constant 4096 : index
// CHECK: memref.view %[[DYN]][%[[C_AT]]][] {{.*}} to memref<16xf32
// The last use of %a, then the barrier (one: the copy's own and the one
// before %b's first use are back to back), then the first use of %b.
// CHECK: memref.load %[[A]]
// CHECK-NOT: %[[B]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK-NOT: %[[A]][
// CHECK: memref.store %{{.*}}, %[[B]]
// NOREUSE-LABEL: func.func @phases
// NOREUSE: arith.constant 8256 : i32
func.func @phases(%x: memref<32x32xf32>, %y: memref<32x32xf32>, %z: memref<16xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) -> (%bx) {
    %a = tile.alloc_shared : memref<32x32xf32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<32x32xf32, #tile.mem<shared>>
    %c = tile.alloc_shared : memref<16xf32, #tile.mem<shared>>
    tile.fill %c, %v : memref<16xf32, #tile.mem<shared>>
    tile.copy %x[%c0, %c0] to %a : memref<32x32xf32> to memref<32x32xf32, #tile.mem<shared>>
    tile.copy %a to %y[%c0, %c0] : memref<32x32xf32, #tile.mem<shared>> to memref<32x32xf32>
    tile.copy %y[%c0, %c0] to %b : memref<32x32xf32> to memref<32x32xf32, #tile.mem<shared>>
    tile.copy %b to %x[%c0, %c0] : memref<32x32xf32, #tile.mem<shared>> to memref<32x32xf32>
    tile.copy %c to %z[%c0] : memref<16xf32, #tile.mem<shared>> to memref<16xf32>
  }
  return
}

// Tiles touched inside one top-level loop are alive together for the whole
// loop: no sharing, even if each iteration uses one before the other.
// CHECK-LABEL: func.func @loop
// CHECK: arith.constant 8192 : i32
// CHECK: memref.view %{{.*}}[%{{.*}}][] {{.*}} to memref<32x32xf32
// CHECK: arith.constant 4096 : index
// CHECK: memref.view %{{.*}}[%{{.*}}][] {{.*}} to memref<32x32xf32
func.func @loop(%x: memref<32x32xf32>, %y: memref<32x32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) -> (%bx) {
    %a = tile.alloc_shared : memref<32x32xf32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<32x32xf32, #tile.mem<shared>>
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 1 {
      tile.copy %x[%c0, %c0] to %a : memref<32x32xf32> to memref<32x32xf32, #tile.mem<shared>>
      tile.copy %a to %y[%c0, %c0] : memref<32x32xf32, #tile.mem<shared>> to memref<32x32xf32>
      tile.copy %y[%c0, %c0] to %b : memref<32x32xf32> to memref<32x32xf32, #tile.mem<shared>>
      tile.copy %b to %x[%c0, %c0] : memref<32x32xf32, #tile.mem<shared>> to memref<32x32xf32>
    }
  }
  return
}
