// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-nvvm-warp-specialize --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory=reuse-shared-memory=true --tile-drop-redundant-barriers --tile-nvvm-named-barriers | FileCheck %s

// A warp-specialized kernel (sm_90a: the producer gets its own thread
// range): the sides run concurrently, so a tile only the producer touches
// (%p) never shares bytes with one only the consumers touch; %shared, used
// by both sides, lives across both; the consumers' own tiles share by their
// lifetimes within the consumers' side: %out takes over %q's bytes once
// the consumers are done with %q, after a barrier over the consumers' 256
// threads alone (named barrier 1; a block barrier there would wait for the
// producer, which never reaches it). 4 x 8192 + 16 bytes, not 5 x 8192 + 16
// (tiles of 128-byte multiples are 128-byte aligned and placed first; the
// 16-byte barrier array after them).
// CHECK-LABEL: func.func @sides
// CHECK: %[[SIZE:.*]] = arith.constant 32784 : i32
// CHECK: gpu.launch
// CHECK-SAME: dynamic_shared_memory_size %[[SIZE]]
// CHECK: %[[DYN:.*]] = gpu.dynamic_shared_memory
// CHECK: arith.constant 32768 : index
// CHECK: %[[Q_AT:.*]] = arith.constant 0 : index
// CHECK: %[[Q:.*]] = memref.view %[[DYN]][%[[Q_AT]]][] {{.*}} to memref<64x64xf16
// CHECK: arith.constant 8192 : index
// CHECK: arith.constant 16384 : index
// CHECK: arith.constant 24576 : index
// CHECK: %[[OUT_AT:.*]] = arith.constant 0 : index
// CHECK: %[[OUT:.*]] = memref.view %[[DYN]][%[[OUT_AT]]][] {{.*}} to memref<64x64xf16
// CHECK: } {tile.thread_range = array<i64: 256, 128, 24>}
// CHECK: nvvm.setmaxregister{{ +}}increase 240
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %[[Q]]
// CHECK-NOT: %[[OUT]]
// CHECK: %[[ID:.*]] = arith.constant 1 : i32
// CHECK: %[[COUNT:.*]] = arith.constant 256 : i32
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %[[COUNT]]
// CHECK-NOT: %[[Q]]
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK-NOT: gpu.barrier
// CHECK: } {tile.thread_range = array<i64: 0, 256, 240>}
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
func.func @sides(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %full = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %q = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %p = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %shared = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %out = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.barrier_init %full arrivals(1) : memref<2xi64, #tile.mem<shared>>
    tile.producer {
      tile.copy %A[%c0, %c0] to %p : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.copy %p to %shared : memref<64x64xf16, #tile.mem<shared>> to memref<64x64xf16, #tile.mem<shared>>
      tile.barrier_arrive %full[%c0] : memref<2xi64, #tile.mem<shared>>
    }
    tile.copy %A[%c0, %c0] to %q : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %A[%c0, %c0] to %k : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %q to %B[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    tile.barrier_wait %full[%c0] parity(%c0) : memref<2xi64, #tile.mem<shared>>
    tile.copy %shared to %out : memref<64x64xf16, #tile.mem<shared>> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %k to %B[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    tile.copy %out to %B[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}
