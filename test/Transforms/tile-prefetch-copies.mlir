// RUN: tile-opt %s --split-input-file --tile-prefetch-copies | FileCheck %s

// The copy after the loop fills a tile the loop does not touch from a
// buffer nothing writes: it is issued before the loop (its offset computed
// there too), asynchronously, counted on a barrier of its own initialized
// before the producer; a wait takes its place.
// CHECK-LABEL: func.func @after_loop
// CHECK: %[[BAR:.*]] = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
// CHECK: tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[LAST:.*]] = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
// CHECK: tile.barrier_init %[[BAR]] arrivals(1)
// CHECK-NEXT: tile.producer {
// CHECK: }
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[M:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[M]], %{{.*}} : index
// CHECK-NEXT: tile.copy %{{.*}}[%[[ROW]], %{{.*}}] to %[[LAST]] arrive(%[[BAR]][%[[C0]]] : memref<1xi64, #tile.mem<shared>>) {async}
// CHECK: scf.for
// CHECK: tile.barrier_wait %[[BAR]][%[[C0]]] parity(%[[C0]])
// CHECK-NEXT: tile.gemm %{{.*}}, %[[LAST]]
func.func @after_loop(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %full = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %last = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.barrier_init %full arrivals(1) : memref<2xi64, #tile.mem<shared>>
    tile.producer {
      scf.for %i = %c0 to %n step %c1 {
        tile.copy %A[%i, %c0] to %a arrive(%full[%c0] : memref<2xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      }
    }
    scf.for %i = %c0 to %n step %c1 {
      tile.barrier_wait %full[%c0] parity(%c0) : memref<2xi64, #tile.mem<shared>>
      tile.gemm %a, %a, %acc : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    %m = arith.subi %n, %c1 : index
    %row = arith.muli %m, %c64 : index
    tile.copy %B[%row, %c0] to %last : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.gemm %a, %last, %acc : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.copy %acc to %B[%c0, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf16>
  }
  return
}

// -----

// Stays: the loop before it writes global memory (the copy could read
// it early).
// CHECK-LABEL: func.func @after_global_write
// CHECK-NOT: arrive(
// CHECK: scf.for
// CHECK: tile.copy %{{.*}} to %{{.*}} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
// CHECK-NOT: arrive(
// CHECK: return
func.func @after_global_write(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    scf.for %i = %c0 to %n step %c1 {
      tile.copy %c to %B[%i, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    }
    tile.copy %A[%c0, %c0] to %a : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %a to %B[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}

// -----

// Stays: the loop before it reads the tile.
// CHECK-LABEL: func.func @after_tile_use
// CHECK-NOT: arrive(
// CHECK: return
func.func @after_tile_use(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    scf.for %i = %c0 to %n step %c1 {
      tile.copy %a to %c : memref<64x64xf16, #tile.mem<shared>> to memref<64x64xf16, #tile.mem<shared>>
    }
    tile.copy %A[%c0, %c0] to %a : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %a to %B[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}

// -----

// Stays: no loop to hide behind, and a copy in a loop (it runs more than
// once per block).
// CHECK-LABEL: func.func @no_loop_or_in_loop
// CHECK-NOT: arrive(
// CHECK: return
func.func @no_loop_or_in_loop(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.copy %A[%c0, %c0] to %a : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    scf.for %i = %c0 to %n step %c1 {
      tile.copy %A[%i, %c0] to %c : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    }
    tile.copy %a to %B[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}

// -----

// Without a producer, the copy stops below the kernel's allocations: they
// stay first (the register lowering's per-thread arrays stay in the
// kernel's entry block, where LLVM keeps them in registers).
// CHECK-LABEL: func.func @no_producer
// CHECK: tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
// CHECK-NEXT: tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[LAST:.*]] = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: tile.alloc_fragment
// CHECK-NEXT: tile.barrier_init
// CHECK: tile.copy %{{.*}} to %[[LAST]] arrive(
// CHECK: scf.for
// CHECK: tile.barrier_wait
func.func @no_producer(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %last = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    scf.for %i = %c0 to %n step %c1 {
      tile.copy %A[%i, %c0] to %a : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %a, %a, %acc : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %B[%c0, %c0] to %last : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.gemm %a, %last, %acc : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.copy %acc to %B[%c0, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf16>
  }
  return
}
