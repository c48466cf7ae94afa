// RUN: tile-opt %s --split-input-file --tile-place-shared-memory | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-place-shared-memory=reuse-shared-memory=true | FileCheck %s --check-prefix=REUSE
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-place-shared-memory=reuse-shared-memory=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

// The tiles convert-tile-to-gpu leaves in a launch (memref.allocs in
// workgroup memory marked tile.unplaced_tile) become views of its dynamic
// shared memory, which the launch asks for. Without reuse, one after
// another by decreasing alignment (then size): the swizzled tile on a
// multiple of its swizzle's period (512 f16, 1024 bytes) at 0, the 128-byte
// one (a TMA destination) on a multiple of 128 at 256, the 16-byte one
// after it at 384: 400 bytes, where the allocation order would pad to
// 1280. With reuse, the three tiles, alive one after the other, share
// offset 0, each behind a block barrier. An allocation without the mark is
// not a tile of the kernel's and stays.
// CHECK-LABEL: func.func @tiles
// CHECK: %[[BYTES:.*]] = arith.constant 400 : i32
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %[[BYTES]]
// CHECK: %[[SHARED:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[C384:.*]] = arith.constant 384 : index
// CHECK: memref.view %[[SHARED]][%[[C384]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: memref.view %[[SHARED]][%[[C256]]][] : {{.*}} to memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[SHARED]][%[[C0]]][] : {{.*}} to memref<8x16xf16, #gpu.address_space<workgroup>>
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

// First fit decreasing with reuse, the shape of an MLA decode kernel: a
// swizzled query tile %q (4 KiB) alive before and in the loop, a small tile
// %s alive in the loop, the loop's swizzled stage buffers %kv (8 KiB) and
// the output tile %o (4 KiB) written after it. In allocation order the
// small one at 4096 would push %kv to the next swizzle period, 5120, and
// the total to 13312 bytes; by decreasing alignment and size, %kv at 0, %q
// at 8192, %s after it at 12288, and %o takes %kv's bytes at 0 (behind a
// barrier): 12304 bytes.
// REUSE-LABEL: func.func @after_the_loop
// REUSE: arith.constant 12304 : i32
// REUSE: %[[Q_AT:.*]] = arith.constant 8192 : index
// REUSE: memref.view %{{.*}}[%[[Q_AT]]][] : {{.*}} to memref<32x64xf16
// REUSE: %[[S_AT:.*]] = arith.constant 12288 : index
// REUSE: memref.view %{{.*}}[%[[S_AT]]][] : {{.*}} to memref<4xf32
// REUSE: %[[KV_AT:.*]] = arith.constant 0 : index
// REUSE: memref.view %{{.*}}[%[[KV_AT]]][] : {{.*}} to memref<64x64xf16
// REUSE: %[[O_AT:.*]] = arith.constant 0 : index
// REUSE: memref.view %{{.*}}[%[[O_AT]]][] : {{.*}} to memref<32x64xf16
// REUSE: scf.for
// REUSE: }
// REUSE-NEXT: gpu.barrier
func.func @after_the_loop(%f: f32, %h: f16, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %q = memref.alloc() {tile.unplaced_tile = #tile.swizzle<3, 3, 3>} : memref<32x64xf16, #gpu.address_space<workgroup>>
    %s = memref.alloc() {tile.unplaced_tile} : memref<4xf32, #gpu.address_space<workgroup>>
    %kv = memref.alloc() {tile.unplaced_tile = #tile.swizzle<3, 3, 3>} : memref<64x64xf16, #gpu.address_space<workgroup>>
    %o = memref.alloc() {tile.unplaced_tile = #tile.swizzle<3, 3, 3>} : memref<32x64xf16, #gpu.address_space<workgroup>>
    memref.store %h, %q[%c0, %c0] : memref<32x64xf16, #gpu.address_space<workgroup>>
    scf.for %i = %c0 to %n step %c1 {
      %v = memref.load %q[%i, %c0] : memref<32x64xf16, #gpu.address_space<workgroup>>
      memref.store %v, %kv[%i, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>>
      memref.store %f, %s[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    }
    memref.store %h, %o[%c0, %c0] : memref<32x64xf16, #gpu.address_space<workgroup>>
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

// -----

// A tile's view as another element type (tile.view) is placed at the
// tile's bytes, and its uses keep the tile alive: with reuse, %b, first
// used after the tile's last direct use but before the view's, does not
// take the tile's bytes.
// REUSE-LABEL: func.func @viewed
// REUSE: %[[SHARED:.*]] = gpu.dynamic_shared_memory
// REUSE: %[[AT:.*]] = arith.constant 0 : index
// REUSE: memref.view %[[SHARED]][%[[AT]]][] : {{.*}} to memref<64xf32, #gpu.address_space<workgroup>>
// REUSE: %[[B_AT:.*]] = arith.constant 256 : index
// REUSE: memref.view %[[SHARED]][%[[B_AT]]][] : {{.*}} to memref<64xf32, #gpu.address_space<workgroup>>
// REUSE: memref.view %[[SHARED]][%[[AT]]][] : {{.*}} to memref<128xf16, #gpu.address_space<workgroup>>
// REUSE-NOT: tile.view
func.func @viewed(%f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.alloc() {tile.unplaced_tile} : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.alloc() {tile.unplaced_tile} : memref<64xf32, #gpu.address_space<workgroup>>
    %v = tile.view %a : memref<64xf32, #gpu.address_space<workgroup>> to memref<128xf16, #gpu.address_space<workgroup>>
    memref.store %f, %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %f, %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %h = memref.load %v[%c0] : memref<128xf16, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

