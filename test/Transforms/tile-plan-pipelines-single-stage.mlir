// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_80" --tile-plan-pipelines=single-stage | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-plan-pipelines="single-stage tma" | FileCheck %s --check-prefix=TMA
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-plan-pipelines="tma" | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-plan-pipelines="single-stage tma single-stage-producer" | FileCheck %s --check-prefix=PRODUCER
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-plan-pipelines="single-stage tma" --tile-plan-pipelines="single-stage tma" | FileCheck %s --check-prefix=TMA

// FlashAttention's loop with one stage: K is read only by the first gemm,
// V only by the second. K of iteration i + 1 is issued right after the
// first gemm of iteration i (during the softmax and P V), V of i + 1 right
// after the second (during the next Q K^T); each is waited for right
// before its gemm. With cp.async (sm_80) each refill point is one group
// behind a block barrier: before the first gemm only V's group (committed
// after K's) may still be in flight, before the second only K's of the next
// iteration. The tiles stay the user's (no stages); the first iteration's
// copies go before the loop.
// CHECK-LABEL: func.func @attention
// CHECK: %[[K_S:.*]] = tile.alloc_shared {layout = #tile.swizzle<{{.*}}>} : memref<64x64xf16, #tile.mem<shared>>
// CHECK: %[[V_S:.*]] = tile.alloc_shared {layout = #tile.swizzle<{{.*}}>} : memref<64x64xf16, #tile.mem<shared>>
// CHECK-NOT: tile.alloc_shared
// CHECK: tile.sync_threads
// CHECK-NEXT: %[[IN0:.*]] = arith.cmpi slt, %{{.*}}, %[[UB:[[:alnum:]_]+]] : index
// CHECK-NEXT: scf.if %[[IN0]] {
// CHECK: tile.copy %{{.*}} to %[[K_S]] {async, engine = #tile.copy_engine<cp_async>}
// CHECK: {{^ +}$}}
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: tile.sync_threads
// CHECK: scf.if
// CHECK: tile.copy %{{.*}} to %[[V_S]] {async, engine = #tile.copy_engine<cp_async>}
// CHECK: {{^ +}$}}
// CHECK-NEXT: tile.async_commit
// CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %[[UB]] step %[[STEP:[[:alnum:]_]+]] num_stages = 1 {
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %[[STEP]] : index
// CHECK-NOT: tile.copy
// CHECK: tile.async_wait pending(1)
// CHECK-NEXT: tile.gemm %{{.*}}, %[[K_S]], %{{.*}}
// CHECK-NEXT: tile.sync_threads
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %[[UB]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: arith.muli %[[NEXT]]
// CHECK: tile.copy %{{.*}} to %[[K_S]] {async, engine = #tile.copy_engine<cp_async>}
// CHECK: {{^ +}$}}
// CHECK-NEXT: tile.async_commit
// CHECK: tile.reduce
// CHECK: tile.async_wait pending(1)
// CHECK-NEXT: tile.gemm %{{.*}}, %[[V_S]], %{{.*}}
// CHECK-NEXT: tile.sync_threads
// CHECK: scf.if
// CHECK: tile.copy %{{.*}} to %[[V_S]] {async, engine = #tile.copy_engine<cp_async>}
// CHECK: {{^ +}$}}
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait pending(0)
// With TMA, one barrier per copy, one arrival each; iteration i waits for
// phase i mod 2 of each before the copy's first reader.
// TMA-LABEL: func.func @attention
// TMA: %[[BARS:.*]] = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
// TMA: tile.barrier_init %[[BARS]] arrivals(1)
// TMA: scf.if
// TMA: tile.copy {{.*}} arrive(%[[BARS]][%c0{{.*}}] : memref<2xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>}
// TMA: scf.if
// TMA: tile.copy {{.*}} arrive(%[[BARS]][%c1{{.*}}] : memref<2xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>}
// TMA: tile.pipelined
// TMA: %[[PARITY:.*]] = arith.remui %{{.*}}, %c2
// TMA: tile.barrier_wait %[[BARS]][%c0{{.*}}] parity(%[[PARITY]])
// TMA-NEXT: tile.gemm
// TMA-NEXT: arith.cmpi
// TMA-NEXT: scf.if
// TMA: tile.copy {{.*}} arrive(%[[BARS]][%c0{{.*}}]
// TMA: tile.barrier_wait %[[BARS]][%c1{{.*}}] parity(%[[PARITY]])
// TMA-NEXT: tile.gemm
// TMA-NEXT: arith.cmpi
// TMA-NEXT: scf.if
// TMA: tile.copy {{.*}} arrive(%[[BARS]][%c1{{.*}}]
// TMA-NOT: tile.async
// TMA: return
// With single-stage-producer a producer warpgroup issues every iteration's
// copies, each after the consumers' release of the tile's previous fill
// (its second barrier, one arrival per consumer warp right after the
// tile's last read); nothing is issued before or in the loop.
// PRODUCER-LABEL: func.func @attention
// PRODUCER: %[[FULL:.*]] = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
// PRODUCER: %[[FREE:.*]] = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
// PRODUCER: tile.barrier_init %[[FULL]] arrivals(1)
// PRODUCER: tile.barrier_init %[[FREE]] arrivals(8)
// PRODUCER: tile.producer {
// PRODUCER: scf.for %[[IV:.*]] =
// PRODUCER: %[[FREED:.*]] = arith.remui
// PRODUCER: tile.barrier_wait %[[FREE]][%[[K:.*]]] parity(%[[FREED]]) {issuer}
// PRODUCER: arith.muli %[[IV]]
// PRODUCER-NEXT: tile.copy {{.*}} arrive(%[[FULL]][%[[K]]] : memref<2xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>}
// PRODUCER: tile.barrier_wait %[[FREE]][%[[V:.*]]] parity(%[[FREED]]) {issuer}
// PRODUCER: tile.copy {{.*}} arrive(%[[FULL]][%[[V]]]
// PRODUCER: tile.pipelined
// PRODUCER-NOT: tile.copy %arg
// PRODUCER: tile.barrier_wait %[[FULL]]
// PRODUCER-NEXT: tile.gemm
// PRODUCER-NEXT: arith.constant
// PRODUCER-NEXT: tile.barrier_arrive %[[FREE]]
// PRODUCER: tile.barrier_wait %[[FULL]]
// PRODUCER-NEXT: tile.gemm
// PRODUCER-NEXT: arith.constant
// PRODUCER-NEXT: tile.barrier_arrive %[[FREE]]
// PRODUCER-NEXT: }
// Without single-stage the loop copies synchronously, as written.
// OFF-LABEL: func.func @attention
// OFF-NOT: async
// OFF: return
func.func @attention(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %q_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %v_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %o = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.copy %Q[%c0, %c0] to %q_s : memref<?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 1 {
      %row = arith.muli %k, %c64 : index
      tile.copy %K[%row, %c0] to %k_s : memref<?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %q_s, %k_s, %s {clear_accum, transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.reduce <max> %s to %m dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
      tile.copy %s to %p : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
      tile.copy %V[%row, %c0] to %v_s : memref<?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %p, %v_s, %o : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

// A GEMM loop with one stage: both tiles are read first and last by the
// gemm, so both refill after it as one group (one scf.if) and the gemm
// waits for everything; a tile that a parallel loop reads after the gemm
// refills only after that loop. A tile the kernel reads before the loop
// and after it is kept (the loop waits for every copy it issued).
// CHECK-LABEL: func.func @gemm
// CHECK: tile.pipelined
// CHECK: tile.async_wait pending(0)
// CHECK-NEXT: tile.gemm
// CHECK-NEXT: tile.sync_threads
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: scf.if
// CHECK-COUNT-2: tile.copy {{.*}} {async
// CHECK: {{^ +}$}}
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: }
// CHECK: tile.pipelined
// CHECK: tile.async_wait pending(0)
// CHECK-NEXT: tile.gemm
// CHECK-NEXT: tile.parallel
// CHECK: {{^ +}$}}
// CHECK-NEXT: tile.sync_threads
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: scf.if
// CHECK-COUNT-2: tile.copy {{.*}} {async
// CHECK: {{^ +}$}}
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait pending(0)
// CHECK-NEXT: tile.copy %{{.*}} to %{{.*}} : memref<64x32xf16, #tile.mem<shared>> to memref<64x32xf32, #tile.mem<fragment>>
// A kernel has one producer (the first loop's); the second loop, whose tile
// the kernel reads before it too, keeps the consumers' own refills.
// PRODUCER-LABEL: func.func @gemm
// PRODUCER: tile.barrier_init %{{.*}} arrivals(4)
// PRODUCER: tile.producer
// PRODUCER-NOT: tile.producer
// PRODUCER: tile.pipelined
// PRODUCER: tile.pipelined
// PRODUCER: scf.if
// PRODUCER: tile.copy {{.*}} {async, engine = #tile.copy_engine<tma>}
// TMA-LABEL: func.func @gemm
// TMA: tile.barrier_init %{{.*}} arrivals(1)
// TMA: tile.pipelined
// TMA: tile.barrier_wait %[[G:.*]][%c0{{.*}}] parity
// TMA: tile.barrier_wait %[[G]][%c1{{.*}}] parity
// TMA-NEXT: tile.gemm
// TMA-NEXT: arith.cmpi
// TMA-NEXT: scf.if
// TMA-COUNT-2: tile.copy {{.*}} {async, engine = #tile.copy_engine<tma>}
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a_s = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b_s = tile.alloc_shared : memref<32x64xf16, #tile.mem<shared>>
    %a2 = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b2 = tile.alloc_shared : memref<32x64xf16, #tile.mem<shared>>
    %c_f = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %x = tile.alloc_fragment : memref<64x32xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 1 {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %kk] to %a_s : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
      tile.copy %B[%kk, %c0] to %b_s : memref<?x?xf16> to memref<32x64xf16, #tile.mem<shared>>
      tile.gemm %a_s, %b_s, %c_f : memref<64x32xf16, #tile.mem<shared>>, memref<32x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %a2 to %x : memref<64x32xf16, #tile.mem<shared>> to memref<64x32xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 1 {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %kk] to %a2 : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
      tile.copy %B[%kk, %c0] to %b2 : memref<?x?xf16> to memref<32x64xf16, #tile.mem<shared>>
      tile.gemm %a2, %b2, %c_f : memref<64x32xf16, #tile.mem<shared>>, memref<32x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.parallel (%i, %j) in (64, 32) {
        %a = memref.load %a2[%i, %j] : memref<64x32xf16, #tile.mem<shared>>
        %b = memref.load %b2[%j, %i] : memref<32x64xf16, #tile.mem<shared>>
        %s = arith.addf %a, %b : f16
        %e = arith.extf %s : f16 to f32
        memref.store %e, %x[%i, %j] : memref<64x32xf32, #tile.mem<fragment>>
        tile.yield
      }
    }
    tile.copy %a2 to %x : memref<64x32xf16, #tile.mem<shared>> to memref<64x32xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// (A tile used before the loop: the producer would fill it from the
// kernel's start, so the consumers refill it themselves.)
// PRODUCER-LABEL: func.func @used_before
// PRODUCER-NOT: tile.producer
// PRODUCER: tile.pipelined
// PRODUCER: scf.if
func.func @used_before(%A: memref<?x?xf16>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %q_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %a_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c_f = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.copy %a_s to %c_f : memref<64x64xf16, #tile.mem<shared>> to memref<64x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 1 {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] to %a_s : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %q_s, %a_s, %c_f : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

// A gemm left in flight (wg_wait = -1) still reads its tile after it: the
// refill waits for the tile.gemm_wait pending(0) that completes it; with no
// such wait in the body the copy stays synchronous.
// TMA-LABEL: func.func @in_flight
// TMA: tile.pipelined
// TMA: tile.barrier_wait
// TMA-NEXT: tile.gemm {{.*}}wg_wait = -1
// TMA-NEXT: tile.gemm_wait pending(0)
// TMA-NEXT: arith.cmpi
// TMA-NEXT: scf.if
// TMA: tile.copy {{.*}} {async
// TMA: tile.pipelined
// TMA-NEXT: arith.muli
// TMA-NEXT: tile.copy %{{.*}} to %{{.*}} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
// TMA-NEXT: tile.gemm {{.*}}wg_wait = -1
// TMA-NEXT: {{^ +}$}}
func.func @in_flight(%A: memref<?x?xf16>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %q_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %a_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c_f = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 1 {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] to %a_s : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %q_s, %a_s, %c_f {wg_wait = -1 : i64} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.gemm_wait pending(0)
    }
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 1 {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] to %b_s : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %q_s, %b_s, %c_f {wg_wait = -1 : i64} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.gemm_wait pending(0)
  }
  return
}
