// RUN: tile-opt %s --split-input-file --allow-unregistered-dialect --tile-attach-target="kind=cuda chip=sm_90a" --tile-nvvm-warp-specialize --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s
// RUN: not tile-opt %s --split-input-file --allow-unregistered-dialect --tile-attach-target="kind=rocm chip=gfx942" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory 2>/dev/null | FileCheck %s --check-prefix=ROCM
// RUN: not tile-opt %s --split-input-file --allow-unregistered-dialect --tile-attach-target="kind=rocm chip=gfx942" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory 2>&1 >/dev/null | FileCheck %s --check-prefix=ROCM-ERROR

// The block form of tile.next_tile: a block barrier (every thread read the
// slot's previous index), thread 0 takes the count and writes it into the
// slot, a block barrier, every thread reads it and adds the offset.
// tile.finish_tiles: thread 0 counts the block (after a fence: its takes
// come first); the last block (count + 1 = blocks) resets both counters
// (after a fence: every other block's takes come first).
// CHECK-LABEL: func.func @block_form
// CHECK: gpu.launch
// CHECK: %[[COUNTERS:.*]] = memref.get_global @counters
// CHECK: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[TAKEN:.*]] = memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%{{.*}}] : (i32, memref<2xi32>) -> i32
// CHECK: memref.store %[[TAKEN]], %[[SLOT:.*]][%{{.*}}] : memref<1xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[READ:.*]] = memref.load %[[SLOT]][%{{.*}}] : memref<1xi32, #gpu.address_space<workgroup>>
// CHECK: %[[INDEX:.*]] = arith.index_castui %[[READ]] : i32 to index
// CHECK: %[[NEXT:.*]] = arith.addi %{{.*}}, %[[INDEX]] : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[NEXT]]]
// CHECK: scf.if
// CHECK-NEXT: llvm.fence acq_rel
// CHECK-NEXT: %{{.*}} = arith.constant 1 : i32
// CHECK: %[[DONE:.*]] = memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%c1{{.*}}]
// CHECK: %[[DONE1:.*]] = arith.addi %{{.*}}, %c1
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[DONE1]], %{{.*}} : index
// CHECK: scf.if %[[LAST]] {
// CHECK-NEXT: llvm.fence acq_rel
// CHECK: memref.atomic_rmw assign %{{.*}}, %[[COUNTERS]][%c0
// CHECK: memref.atomic_rmw assign %{{.*}}, %[[COUNTERS]][%c1
// On AMD the block form lowers the same way; the hand-off needs a producer,
// which is NVIDIA's.
// ROCM-LABEL: func.func @block_form
// ROCM: memref.atomic_rmw addi
// ROCM: llvm.fence acq_rel
memref.global "private" @counters : memref<2xi32> = dense<0>
func.func @block_form(%out: memref<?xi32>, %blocks: index) {
  tile.kernel grid(%blocks) threads(128) -> (%bx) {
    %slot = tile.alloc_shared : memref<1xi32, #tile.mem<shared>>
    %counters = memref.get_global @counters : memref<2xi32>
    %next = tile.next_tile %counters[%blocks] via %slot : memref<2xi32>, memref<1xi32, #tile.mem<shared>>
    %v = arith.index_cast %bx : index to i32
    memref.store %v, %out[%next] : memref<?xi32>
    tile.finish_tiles %counters blocks(%blocks) : memref<2xi32>
  }
  return
}

// -----

// The hand-off (NVIDIA sm_90): in the producer, thread 0 takes the count at
// the start of the op's block (the loop body; counters defined outside
// it), then at the op waits for phase count - 1 of `released`, writes the
// slot and arrives on `full`; every producer thread waits for phase count
// of `full`, reads the slot and each warp arrives on `released`. The
// consumers' receive only waits, reads and arrives.
// CHECK-LABEL: func.func @handoff
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[FIRST:.*]] = arith.cmpi eq
// CHECK-NEXT: %[[EARLY:.*]] = scf.if %[[FIRST]] -> (i32) {
// CHECK: %[[T:.*]] = memref.atomic_rmw addi
// CHECK-NEXT: scf.yield %[[T]] : i32
// CHECK: } else {
// CHECK: "test.fills"
// CHECK: scf.if
// CHECK: %[[PREV:.*]] = arith.addi %[[N]], %c1
// CHECK: arith.remui %[[PREV]], %c2
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: memref.atomic_rmw
// CHECK: memref.store %[[EARLY]], %{{.*}}[%{{.*}}] : memref<1xi32, #gpu.address_space<workgroup>>
// CHECK: nvvm.mbarrier.arrive
// CHECK: %[[PARITY:.*]] = arith.remui %[[N]], %c2
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: %[[READ:.*]] = memref.load
// CHECK: nvvm.bar.warp.sync
// CHECK: scf.if
// CHECK: nvvm.mbarrier.arrive
// CHECK: arith.index_castui %[[READ]]
// CHECK: "test.tile"
// The consumers:
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: memref.atomic_rmw
// CHECK: memref.load
// CHECK: nvvm.bar.warp.sync
// CHECK: nvvm.mbarrier.arrive
// ROCM-ERROR: 'tile.producer' op needs a target with warp specialization (NVIDIA sm_90 or newer), not rocm gfx942
memref.global "private" @counters : memref<2xi32> = dense<0>
func.func @handoff(%blocks: index, %n: index) {
  tile.kernel grid(%blocks) threads(128) -> (%bx) {
    %slot = tile.alloc_shared : memref<1xi32, #tile.mem<shared>>
    %full = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    %freed = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    tile.barrier_init %full arrivals(1) : memref<1xi64, #tile.mem<shared>>
    tile.barrier_init %freed arrivals(8) : memref<1xi64, #tile.mem<shared>>
    tile.producer {
      %counters = memref.get_global @counters : memref<2xi32>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %n step %c1 {
        "test.fills"() : () -> ()
        %t = tile.next_tile %counters[%blocks] via %slot barriers(%full, %freed) count(%i) : memref<2xi32>, memref<1xi32, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>
        "test.tile"(%t) : (index) -> ()
      }
    }
    %counters = memref.get_global @counters : memref<2xi32>
    %c0 = arith.constant 0 : index
    %t = tile.next_tile %counters[%blocks] via %slot barriers(%full, %freed) count(%c0) {receive} : memref<2xi32>, memref<1xi32, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>
    "test.tile"(%t) : (index) -> ()
  }
  return
}
