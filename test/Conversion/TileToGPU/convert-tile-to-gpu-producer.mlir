// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-nvvm-warp-specialize --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory --tile-drop-redundant-barriers --tile-nvvm-named-barriers | FileCheck %s
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_80" --tile-nvvm-warp-specialize --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx942" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory 2>&1 | FileCheck %s --check-prefix=ROCM
// RUN: not tile-opt %s --split-input-file --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --convert-tile-to-gpu 2>&1 | FileCheck %s --check-prefix=UNSPLIT

// Warp specialization: a 256-thread kernel with a tile.producer launches
// 384 threads. The barrier inits run on all of them; then threads 256..383
// (the producer: thread range [256, 128]) give registers back and wait /
// copy, their block barriers named (bar 2, 128 threads), their "thread 0"
// thread 256; threads 0..255 (the consumers) take 240 registers and run
// the rest, with their block barriers on bar 1 over 256 threads.
// CHECK-LABEL: func.func @producer
// CHECK: %[[C384:.*]] = arith.constant 384 : index
// CHECK: gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C384]]
// CHECK: nvvm.mbarrier.init
// CHECK: gpu.barrier
// CHECK: %[[TID:.*]] = gpu.thread_id{{ +}}x
// CHECK: %[[PRODUCER:.*]] = arith.cmpi uge, %[[TID]], %{{.*}} : index
// CHECK: scf.if %[[PRODUCER]] {
// CHECK-NEXT: nvvm.setmaxregister{{ +}}decrease 24
// CHECK: scf.for
// CHECK: arith.subi %{{.*}}, %{{.*}} : index
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: } {tile.thread_range = array<i64: 256, 128, 24>}
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: nvvm.setmaxregister{{ +}}increase 240
// CHECK-NOT: gpu.barrier
// CHECK: } {tile.thread_range = array<i64: 0, 256, 240>}
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
func.func @producer(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %full = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %free = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.barrier_init %full arrivals(1) : memref<2xi64, #tile.mem<shared>>
    tile.barrier_init %free arrivals(8) : memref<2xi64, #tile.mem<shared>>
    tile.producer {
      scf.for %i = %c0 to %n step %c1 {
        tile.barrier_wait %free[%c0] parity(%c1) {issuer} : memref<2xi64, #tile.mem<shared>>
        tile.copy %A[%i, %c0] to %a arrive(%full[%c0] : memref<2xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      }
    }
    tile.barrier_wait %full[%c0] parity(%c0) : memref<2xi64, #tile.mem<shared>>
    tile.copy %a to %B[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    tile.barrier_arrive %free[%c0] : memref<2xi64, #tile.mem<shared>>
  }
  return
}

// -----

// The registers of a thread range bound the loads a copy batches: a
// consumer (240 registers) loads its 2 vectors of a 64x64 f16 tile before
// storing them; the producer (24) moves its 4 vectors one at a time.
// CHECK-LABEL: func.func @producer_copies
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister{{ +}}decrease 24
// CHECK: scf.for
// CHECK: vector.load
// CHECK-NOT: vector.load
// CHECK: vector.store
// CHECK: } {tile.thread_range = array<i64: 256, 128, 24>}
// CHECK: nvvm.setmaxregister{{ +}}increase 240
// CHECK-NOT: scf.for
// CHECK: vector.load
// CHECK-NOT: vector.store
// CHECK: vector.load
// CHECK: vector.store
// CHECK: vector.store
// CHECK: } {tile.thread_range = array<i64: 0, 256, 240>}
func.func @producer_copies(%A: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.producer {
      tile.copy %A[%c0, %c0] to %a : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    }
    tile.copy %A[%c0, %c0] to %b : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}

// -----

// A kernel rasterized by tile.use_swizzle (whose block ids the producer
// uses too) with a tile allocated after the producer (an epilogue's
// staging tile after the loop): the allocation stays a kernel allocation,
// its tile placed in shared memory after %a; only the copy into it moves
// to the consumers' side.
// CHECK-LABEL: func.func @alloc_after_producer
// CHECK: gpu.dynamic_shared_memory
// CHECK: memref.view {{.*}} to memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[STAGE_AT:.*]] = arith.constant 8192 : index
// CHECK: %[[STAGE:.*]] = memref.view %{{.*}}[%[[STAGE_AT]]][] {{.*}} to memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: } {tile.thread_range = array<i64: 256, 128, 24>}
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister{{ +}}increase 240
// CHECK: vector.store %{{.*}}, %[[STAGE]]
// CHECK: } {tile.thread_range = array<i64: 0, 256, 240>}
func.func @alloc_after_producer(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n, %n) threads(256) -> (%bx, %by) {
    tile.use_swizzle panel(4)
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.producer {
      tile.copy %A[%bx, %c0] to %a : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    }
    %stage = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.copy %A[%by, %c0] to %stage : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}

// -----

// UNSPLIT: error: 'tile.producer' op must be split into its warpgroup by tile-nvvm-warp-specialize before convert-tile-to-gpu (tile-to-nvvm runs it)
// SM80: error: 'tile.producer' op needs NVIDIA sm_90 or newer (a warpgroup's setmaxnreg)
// ROCM: error: 'tile.producer' op needs a target with warp specialization (NVIDIA sm_90 or newer), not rocm gfx942
// NOTARGET: error: 'tile.producer' op needs a target with warp specialization (NVIDIA sm_90 or newer), not a module without a target
func.func @producer_sm80(%n: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    tile.producer {
    }
  }
  return
}

// -----

// tile.take_turns on sm_90a: before the loop that holds it, the last
// warpgroup arrives on warpgroup 0's barrier (3); each turn waits on
// barrier 3 + warpgroup (256 threads: its own and the previous one's
// arrivals), runs the body, arrives on the next warpgroup's barrier.
// CHECK-LABEL: func.func @turns
// CHECK: scf.if
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: scf.for
// CHECK: %[[WG:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[ID:.*]] = arith.addi %[[WG]], %{{.*}} : i32
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %{{.*}}
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
func.func @turns(%A: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<64x16xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.clear %c : memref<64x64xf32, #tile.mem<fragment>>
    scf.for %i = %c0 to %n step %c1 {
      tile.take_turns {
        tile.gemm %a, %b, %c : memref<64x16xf16, #tile.mem<shared>>, memref<16x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      }
    }
    tile.copy %c to %A[%c0, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
  }
  return
}
