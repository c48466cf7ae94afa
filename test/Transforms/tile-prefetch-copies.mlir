// RUN: tile-opt %s --split-input-file --tile-prefetch-copies | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-prefetch-copies=producer-copies | FileCheck %s --check-prefix=PRODUCER

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
// CHECK-NEXT: tile.copy %{{.*}}[%[[ROW]], %{{.*}}] to %[[LAST]] arrive(%[[BAR]][%[[C0]]] : memref<1xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<vector>}
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

// -----

// With `producer`, the producer issues the one-off copies of a kernel whose
// pipelined loop it fills: Q (before the loop) ahead of its fills, the last
// V (after it) behind them, each with its offsets recomputed inside and a
// barrier of its own; the consumers wait where the copies were. Without
// it, only the last V is prefetched (by the consumers, above the loop).
// PRODUCER-LABEL: func.func @producer_issues
// PRODUCER-DAG: %[[VB:.*]] = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
// PRODUCER-DAG: %[[QB:.*]] = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
// PRODUCER-DAG: %[[Q:.*]] = tile.alloc_shared {name = "q"}
// PRODUCER-DAG: %[[V:.*]] = tile.alloc_shared {name = "v"}
// PRODUCER: tile.barrier_init %[[QB]] arrivals(1)
// PRODUCER: tile.barrier_init %[[VB]] arrivals(1)
// PRODUCER-NEXT: tile.producer {
// PRODUCER-DAG: %[[ROW:.*]] = arith.muli %bx, %c64
// PRODUCER-DAG: %[[LASTROW:.*]] = arith.muli %{{.*}}, %c64
// PRODUCER: tile.copy %arg0[%[[ROW]], %c0] to %[[Q]] arrive(%[[QB]][%{{.*}}] : memref<1xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<vector>}
// PRODUCER-NEXT: scf.for
// PRODUCER: tile.copy %arg1
// PRODUCER-NEXT: {{^ *}}}
// PRODUCER-NEXT: %[[Z:.*]] = arith.constant 0 : index
// PRODUCER-NEXT: tile.copy %arg2[%[[LASTROW]], %c0] to %[[V]] arrive(%[[VB]][%[[Z]]] : memref<1xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<vector>}
// PRODUCER-NEXT: }
// PRODUCER: tile.barrier_wait %[[QB]][%{{.*}}] parity(%{{.*}}) :
// PRODUCER-NEXT: tile.pipelined
// PRODUCER: tile.barrier_wait %[[VB]][%{{.*}}] parity(%{{.*}}) :
// PRODUCER-NEXT: tile.gemm %[[Q]], %[[V]]
// PRODUCER-NOT: tile.barrier_arrive
// PRODUCER: return
// CHECK-LABEL: func.func @producer_issues
// CHECK: tile.producer {
// CHECK-NOT: tile.copy %arg0
// CHECK-NOT: tile.copy %arg2
// CHECK: }
// CHECK: tile.copy %arg2{{.*}} arrive(
// CHECK: tile.copy %arg0[%{{.*}}, %c0] to %{{.*}} : memref<?x?xf16>
func.func @producer_issues(%Q: memref<?x?xf16>, %K: memref<?x?xf16>, %V: memref<?x?xf16>, %O: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %q = tile.alloc_shared {name = "q"} : memref<64x64xf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<2x64x64xf16, #tile.mem<shared>>
    %v = tile.alloc_shared {name = "v"} : memref<64x64xf16, #tile.mem<shared>>
    %full = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %free = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.barrier_init %full arrivals(1) : memref<2xi64, #tile.mem<shared>>
    tile.barrier_init %free arrivals(8) : memref<2xi64, #tile.mem<shared>>
    tile.producer {
      scf.for %i = %c0 to %n step %c1 {
        %s = arith.remui %i, %c2 : index
        tile.barrier_wait %free[%s] parity(%c0) {issuer} : memref<2xi64, #tile.mem<shared>>
        %kv = memref.subview %k[%s, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #tile.mem<shared>> to memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>>
        %krow = arith.muli %i, %c64 : index
        tile.copy %K[%krow, %c0] to %kv arrive(%full[%s] : memref<2xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>>
      }
    }
    %row = arith.muli %bx, %c64 : index
    tile.copy %Q[%row, %c0] to %q : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.pipelined %i = %c0 to %n step %c1 num_stages = 2 {
      %s = arith.remui %i, %c2 : index
      tile.barrier_wait %full[%s] parity(%c0) : memref<2xi64, #tile.mem<shared>>
      %kv = memref.subview %k[%s, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #tile.mem<shared>> to memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>>
      tile.gemm %q, %kv, %acc {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.barrier_arrive %free[%s] : memref<2xi64, #tile.mem<shared>>
    }
    %last = arith.subi %n, %c1 : index
    %vrow = arith.muli %last, %c64 : index
    tile.copy %V[%vrow, %c0] to %v : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.gemm %q, %v, %acc : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.copy %acc to %O[%row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
  }
  return
}

// -----

// A persistent kernel: the producer issues Q once per tile, in its own loop
// over the tiles, after the consumers released the tile before's Q (the
// n-th fill waits for phase parity (n + 1) mod 2, n = (t - bx) / step); the
// consumers wait for parity n mod 2 and release Q after its last use (the
// pipelined loop), once no gemm reads it.
// PRODUCER-LABEL: func.func @persistent_tiles
// PRODUCER: %[[FULL:.*]] = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
// PRODUCER-NEXT: %[[FREE:.*]] = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
// PRODUCER: %[[Q:.*]] = tile.alloc_shared {name = "q"}
// PRODUCER: tile.barrier_init %[[FULL]] arrivals(1)
// PRODUCER-NEXT: tile.barrier_init %[[FREE]] arrivals(8)
// PRODUCER-NEXT: tile.producer {
// PRODUCER: scf.for %[[PT:.*]] = %bx to %{{.*}} step %[[NB:.*]] {
// PRODUCER: %[[PROW:.*]] = arith.muli %[[PT]], %c64
// PRODUCER: %[[PD:.*]] = arith.subi %[[PT]], %bx
// PRODUCER-NEXT: %[[PN:.*]] = arith.divui %[[PD]], %[[NB]]
// PRODUCER-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// PRODUCER-NEXT: %[[PN1:.*]] = arith.addi %[[PN]], %[[ONE]]
// PRODUCER-NEXT: %[[TWO:.*]] = arith.constant 2 : index
// PRODUCER-NEXT: %[[PP:.*]] = arith.remui %[[PN1]], %[[TWO]]
// PRODUCER: tile.barrier_wait %[[FREE]][%{{.*}}] parity(%[[PP]]) {issuer}
// PRODUCER: tile.copy %arg0[%[[PROW]], %c0] to %[[Q]] arrive(%[[FULL]][%{{.*}}] : memref<1xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<vector>}
// PRODUCER-NEXT: scf.for
// PRODUCER: } {tile.persistent_tiles}
// PRODUCER: scf.for %[[T:.*]] = %bx to %{{.*}} step %[[NB]] {
// PRODUCER: %[[D:.*]] = arith.subi %[[T]], %bx
// PRODUCER-NEXT: %[[N:.*]] = arith.divui %[[D]], %[[NB]]
// PRODUCER: %[[P:.*]] = arith.remui %[[N]], %{{.*}}
// PRODUCER-NEXT: tile.barrier_wait %[[FULL]][%{{.*}}] parity(%[[P]]) :
// PRODUCER-NEXT: tile.pipelined
// PRODUCER: tile.barrier_arrive %{{.*}} : memref<2xi64
// PRODUCER-NEXT: {{^ *}}}
// PRODUCER-NEXT: tile.gemm_wait pending(0)
// PRODUCER-NEXT: %[[Z:.*]] = arith.constant 0 : index
// PRODUCER-NEXT: tile.barrier_arrive %[[FREE]][%[[Z]]]
// PRODUCER-NEXT: tile.copy %{{.*}} to %arg3
// PRODUCER: } {tile.persistent_tiles}
func.func @persistent_tiles(%Q: memref<?x?xf16>, %K: memref<?x?xf16>, %V: memref<?x?xf16>, %O: memref<?x?xf32>, %n: index, %tiles: index, %nb: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%nb) threads(256) -> (%bx) {
    %q = tile.alloc_shared {name = "q"} : memref<64x64xf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<2x64x64xf16, #tile.mem<shared>>
    %full = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %free = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.barrier_init %full arrivals(1) : memref<2xi64, #tile.mem<shared>>
    tile.barrier_init %free arrivals(8) : memref<2xi64, #tile.mem<shared>>
    tile.producer {
      scf.for %t = %bx to %tiles step %nb {
        scf.for %i = %c0 to %n step %c1 {
          %s = arith.remui %i, %c2 : index
          tile.barrier_wait %free[%s] parity(%c0) {issuer} : memref<2xi64, #tile.mem<shared>>
          %kv = memref.subview %k[%s, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #tile.mem<shared>> to memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>>
          %krow = arith.muli %i, %c64 : index
          tile.copy %K[%krow, %c0] to %kv arrive(%full[%s] : memref<2xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>>
        }
      } {tile.persistent_tiles}
    }
    scf.for %t = %bx to %tiles step %nb {
      %row = arith.muli %t, %c64 : index
      tile.copy %Q[%row, %c0] to %q : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.pipelined %i = %c0 to %n step %c1 num_stages = 2 {
        %s = arith.remui %i, %c2 : index
        tile.barrier_wait %full[%s] parity(%c0) : memref<2xi64, #tile.mem<shared>>
        %kv = memref.subview %k[%s, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #tile.mem<shared>> to memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>>
        tile.gemm %q, %kv, %acc {transpose_b, wg_wait = -1 : i64} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
        tile.gemm_wait pending(0)
        tile.barrier_arrive %free[%s] : memref<2xi64, #tile.mem<shared>>
      }
      tile.copy %acc to %O[%row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
    } {tile.persistent_tiles}
  }
  return
}

// -----

// Stays with the consumers: the producer cannot compute the copy's row
// (a load from memory).
// PRODUCER-LABEL: func.func @producer_cannot_compute
// PRODUCER: tile.producer {
// PRODUCER-NOT: tile.copy %arg0
// PRODUCER: }
// PRODUCER: %[[ROW:.*]] = memref.load
// PRODUCER-NEXT: tile.copy %arg0[%[[ROW]], %c0] to %{{.*}} : memref<?x?xf16>
// PRODUCER-NOT: tile.barrier_init
// PRODUCER: return
func.func @producer_cannot_compute(%Q: memref<?x?xf16>, %K: memref<?x?xf16>, %rows: memref<?xindex>, %O: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %q = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<2x64x64xf16, #tile.mem<shared>>
    %full = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %free = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.barrier_init %full arrivals(1) : memref<2xi64, #tile.mem<shared>>
    tile.barrier_init %free arrivals(8) : memref<2xi64, #tile.mem<shared>>
    tile.producer {
      scf.for %i = %c0 to %n step %c1 {
        %s = arith.remui %i, %c2 : index
        tile.barrier_wait %free[%s] parity(%c0) {issuer} : memref<2xi64, #tile.mem<shared>>
        %kv = memref.subview %k[%s, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #tile.mem<shared>> to memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>>
        tile.copy %K[%i, %c0] to %kv arrive(%full[%s] : memref<2xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>>
      }
    }
    %row = memref.load %rows[%bx] : memref<?xindex>
    tile.copy %Q[%row, %c0] to %q : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.pipelined %i = %c0 to %n step %c1 num_stages = 2 {
      %s = arith.remui %i, %c2 : index
      tile.barrier_wait %full[%s] parity(%c0) : memref<2xi64, #tile.mem<shared>>
      %kv = memref.subview %k[%s, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #tile.mem<shared>> to memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>>
      tile.gemm %q, %kv, %acc {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.barrier_arrive %free[%s] : memref<2xi64, #tile.mem<shared>>
    }
    tile.copy %acc to %O[%c0, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
  }
  return
}

// -----

// A tile filled twice per tile of a persistent kernel (K_0 before the
// pipelined loop, the last V after it): each fill waits for the release of
// the one before it (K_0 for the last V of the tile before, parity
// (n + 1) mod 2; the last V for this tile's K_0, parity n mod 2), and the
// consumers release each after its own last use.
// PRODUCER-LABEL: func.func @persistent_two_fills
// PRODUCER: %[[KFULL:.*]] = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
// PRODUCER-NEXT: %[[KFREE:.*]] = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
// PRODUCER-NEXT: %[[VFULL:.*]] = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
// PRODUCER-NEXT: %[[VFREE:.*]] = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
// PRODUCER: tile.producer {
// PRODUCER: scf.for %[[PT:.*]] = %bx
// PRODUCER: %[[N1:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// PRODUCER-NEXT: %[[TWO:.*]] = arith.constant 2 : index
// PRODUCER-NEXT: %[[P1:.*]] = arith.remui %[[N1]], %[[TWO]]
// PRODUCER: tile.barrier_wait %[[VFREE]][%{{.*}}] parity(%[[P1]]) {issuer}
// PRODUCER: tile.copy %arg1{{.*}} to %[[KV:.*]] arrive(%[[KFULL]]
// PRODUCER-NEXT: scf.for
// PRODUCER: %[[N2:.*]] = arith.divui
// PRODUCER-NEXT: %{{.*}} = arith.constant 2 : index
// PRODUCER-NEXT: %[[P2:.*]] = arith.remui %[[N2]]
// PRODUCER: tile.barrier_wait %[[KFREE]][%{{.*}}] parity(%[[P2]]) {issuer}
// PRODUCER: tile.copy %arg2{{.*}} to %[[KV]] arrive(%[[VFULL]]
// PRODUCER: } {tile.persistent_tiles}
// PRODUCER: tile.barrier_wait %[[KFULL]]
// PRODUCER-NEXT: tile.gemm %{{.*}}, %[[KV]]
// PRODUCER-NEXT: tile.gemm_wait pending(0)
// PRODUCER-NEXT: %{{.*}} = arith.constant 0 : index
// PRODUCER-NEXT: tile.barrier_arrive %[[KFREE]]
// PRODUCER: tile.pipelined
// PRODUCER: tile.barrier_wait %[[VFULL]]
// PRODUCER-NEXT: tile.gemm %{{.*}}, %[[KV]]
// PRODUCER-NEXT: tile.gemm_wait pending(0)
// PRODUCER-NEXT: %{{.*}} = arith.constant 0 : index
// PRODUCER-NEXT: tile.barrier_arrive %[[VFREE]]
func.func @persistent_two_fills(%Q: memref<?x?xf16>, %K: memref<?x?xf16>, %V: memref<?x?xf16>, %O: memref<?x?xf32>, %n: index, %tiles: index, %nb: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%nb) threads(256) -> (%bx) {
    %q = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %kv = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<2x64x64xf16, #tile.mem<shared>>
    %full = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %free = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.barrier_init %full arrivals(1) : memref<2xi64, #tile.mem<shared>>
    tile.barrier_init %free arrivals(8) : memref<2xi64, #tile.mem<shared>>
    tile.producer {
      scf.for %t = %bx to %tiles step %nb {
        scf.for %i = %c0 to %n step %c1 {
          %s = arith.remui %i, %c2 : index
          tile.barrier_wait %free[%s] parity(%c0) {issuer} : memref<2xi64, #tile.mem<shared>>
          %kb = memref.subview %k[%s, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #tile.mem<shared>> to memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>>
          tile.copy %K[%i, %c0] to %kb arrive(%full[%s] : memref<2xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>>
        }
      } {tile.persistent_tiles}
    }
    scf.for %t = %bx to %tiles step %nb {
      %row = arith.muli %t, %c64 : index
      tile.copy %K[%c0, %c0] to %kv : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %q, %kv, %acc {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.pipelined %i = %c0 to %n step %c1 num_stages = 2 {
        %s = arith.remui %i, %c2 : index
        tile.barrier_wait %full[%s] parity(%c0) : memref<2xi64, #tile.mem<shared>>
        %kb = memref.subview %k[%s, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #tile.mem<shared>> to memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>>
        tile.gemm %q, %kb, %acc {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
        tile.barrier_arrive %free[%s] : memref<2xi64, #tile.mem<shared>>
      }
      tile.copy %V[%row, %c0] to %kv : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %q, %kv, %acc : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.copy %acc to %O[%row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
    } {tile.persistent_tiles}
  }
  return
}
