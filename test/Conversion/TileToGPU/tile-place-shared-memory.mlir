// RUN: tile-opt %s --split-input-file --tile-place-shared-memory | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-place-shared-memory=reuse-shared-memory=true | FileCheck %s --check-prefix=REUSE
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-place-shared-memory=reuse-shared-memory=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

// The tiles convert-tile-to-gpu leaves in a launch (memref.allocs in
// workgroup memory marked tile.unplaced_tile) become views of its dynamic
// shared memory, which the launch asks for. Without reuse, one after
// another: a 16-byte tile at 0, the next (128 bytes: a TMA destination) on
// a multiple of 128, the swizzled one on a multiple of its swizzle's
// period (512 f16, 1024 bytes). With reuse, the three tiles, alive one
// after the other, share offset 0, each behind a block barrier. An
// allocation without the mark is not a tile of the kernel's and stays.
// CHECK-LABEL: func.func @tiles
// CHECK: %[[BYTES:.*]] = arith.constant 1280 : i32
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %[[BYTES]]
// CHECK: %[[SHARED:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[SHARED]][%[[C0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: memref.view %[[SHARED]][%[[C128]]][] : {{.*}} to memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK: memref.view %[[SHARED]][%[[C1024]]][] : {{.*}} to memref<8x16xf16, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<2xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: tile.unplaced_tile
// CHECK: gpu.terminator
// REUSE-LABEL: func.func @tiles
// REUSE: %[[BYTES:.*]] = arith.constant 256 : i32
// REUSE: gpu.launch {{.*}} dynamic_shared_memory_size %[[BYTES]]
// REUSE: %[[SHARED:.*]] = gpu.dynamic_shared_memory
// REUSE: %[[C0:.*]] = arith.constant 0 : index
// REUSE: %[[A:.*]] = memref.view %[[SHARED]][%[[C0]]][] : {{.*}} to memref<4xf32
// REUSE: %[[C0B:.*]] = arith.constant 0 : index
// REUSE: %[[B:.*]] = memref.view %[[SHARED]][%[[C0B]]][] : {{.*}} to memref<32xf32
// REUSE: %[[C0C:.*]] = arith.constant 0 : index
// REUSE: %[[S:.*]] = memref.view %[[SHARED]][%[[C0C]]][] : {{.*}} to memref<8x16xf16
// REUSE: memref.store {{.*}}, %[[A]]
// REUSE-NEXT: gpu.barrier
// REUSE-NEXT: memref.store {{.*}}, %[[B]]
// REUSE-NEXT: gpu.barrier
// REUSE-NEXT: memref.store {{.*}}, %[[S]]
func.func @tiles(%f: f32, %h: f16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.alloc() {tile.unplaced_tile} : memref<4xf32, #gpu.address_space<workgroup>>
    %b = memref.alloc() {tile.unplaced_tile} : memref<32xf32, #gpu.address_space<workgroup>>
    %s = memref.alloc() {tile.unplaced_tile = #tile.swizzle<3, 3, 3>} : memref<8x16xf16, #gpu.address_space<workgroup>>
    %other = memref.alloc() : memref<2xf32, #gpu.address_space<workgroup>>
    memref.store %f, %a[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    memref.store %f, %b[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %h, %s[%c0, %c0] : memref<8x16xf16, #gpu.address_space<workgroup>>
    memref.store %f, %other[%c0] : memref<2xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// More than a block may have on the target: an error at the launch.
func.func @too_large() {
  %c1 = arith.constant 1 : index
  // ERR: [[@LINE+1]]:3: error: the kernel's shared tiles need 262144 bytes of shared memory (with reuse), more than the 232448 bytes a block may use on sm_90a
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.alloc() {tile.unplaced_tile} : memref<65536xf32, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %v = memref.load %a[%c0] : memref<65536xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
