// RUN: tile-opt %s --split-input-file --tile-plan-pipelines | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-plan-pipelines --tile-plan-pipelines | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-plan-pipelines | FileCheck %s --check-prefix=CUDA
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions --tile-plan-pipelines=overlap-gemms | FileCheck %s --check-prefix=OVERLAP
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_80" --tile-select-instructions --tile-plan-pipelines=overlap-gemms | FileCheck %s --check-prefix=NO-OVERLAP
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-plan-pipelines=tma | FileCheck %s --check-prefix=TMA
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_80" --tile-plan-pipelines=tma | FileCheck %s --check-prefix=NO-TMA
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-plan-pipelines="tma tma-release" | FileCheck %s --check-prefix=RELEASE
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-plan-pipelines="tma tma-release tma-release-min-warpgroups=2" | FileCheck %s --check-prefix=NO-RELEASE
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-plan-pipelines="tma tma-release tma-release-max-stages=2" | FileCheck %s --check-prefix=NO-RELEASE
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-plan-pipelines="tma tma-release warp-specialize" | FileCheck %s --check-prefix=WS
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions --tile-plan-pipelines="tma tma-release warp-specialize pingpong" | FileCheck %s --check-prefix=WS-ONE
// RUN: tile-opt %s --split-input-file --tile-plan-pipelines=prefetch-first | FileCheck %s --check-prefix=FIRST
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions --tile-plan-pipelines="overlap-gemms tma tma-release warp-specialize" | FileCheck %s --check-prefix=PERSISTENT

// A GEMM main loop over three stages: both copies get three buffers; the
// copies of iterations 0 and 1 are issued before the loop (each behind a
// bounds check, each stage committed); iteration i waits until one group
// at most is pending (its own has landed), computes on buffer i mod 3,
// then prefetches iteration i + 2 into buffer (i + 2) mod 3; the offsets'
// arithmetic is cloned for the prefetched iteration. Nothing is in flight
// after the loop. Running the pass twice changes nothing more.
// CHECK-LABEL: func.func @gemm_loop
// CHECK: tile.kernel
// CHECK-DAG: %[[ABUF:.*]] = tile.alloc_shared : memref<3x64x32xf16, #tile.mem<shared>>
// CHECK-DAG: %[[BBUF:.*]] = tile.alloc_shared : memref<3x32x64xf16, #tile.mem<shared>>
// CHECK-NOT: tile.alloc_shared
// CHECK: %[[P0:.*]] = arith.cmpi slt, %{{.*}}, %[[UB:[[:alnum:]_]+]] : index
// CHECK: scf.if %[[P0]] {
// CHECK: %[[K0:.*]] = arith.muli %{{.*}}, %c32
// CHECK: %[[A0:.*]] = memref.subview %[[ABUF]][%{{.*}}, 0, 0] [1, 64, 32] [1, 1, 1] : memref<3x64x32xf16, #tile.mem<shared>> to memref<64x32xf16, strided<[32, 1], offset: ?>, #tile.mem<shared>>
// CHECK: tile.copy %{{.*}}[%{{.*}}, %[[K0]]] to %[[A0]] {async, engine = #tile.copy_engine<vector>}
// CHECK: memref.subview %[[BBUF]]
// CHECK: tile.copy {{.*}} {async, engine = #tile.copy_engine<vector>}
// CHECK: }
// CHECK-NEXT: tile.async_commit
// CHECK: scf.if
// CHECK-COUNT-2: tile.copy {{.*}} {async, engine = #tile.copy_engine<vector>}
// CHECK: tile.async_commit
// CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %[[UB]] step %{{.*}} num_stages = 3 {
// CHECK-NEXT: tile.async_wait pending(1)
// CHECK: %[[I:.*]] = arith.divui
// CHECK: %[[STAGE:.*]] = arith.remui %[[I]], %c3
// CHECK: %[[A:.*]] = memref.subview %[[ABUF]][%[[STAGE]], 0, 0]
// CHECK: %[[B:.*]] = memref.subview %[[BBUF]][%[[STAGE]], 0, 0]
// CHECK-NOT: tile.copy
// CHECK: tile.gemm %[[A]], %[[B]], %{{.*}} :
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK: %[[NSTAGE:.*]] = arith.remui %{{.*}}, %c3
// CHECK: arith.cmpi slt, %[[NEXT]], %[[UB]] : index
// CHECK: scf.if
// CHECK: arith.muli %[[NEXT]], %c32
// CHECK: memref.subview %[[ABUF]][%[[NSTAGE]], 0, 0]
// CHECK: tile.copy {{.*}} {async, engine = #tile.copy_engine<vector>}
// CHECK: memref.subview %[[BBUF]][%[[NSTAGE]], 0, 0]
// CHECK: tile.copy {{.*}} {async, engine = #tile.copy_engine<vector>}
// CHECK: }
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait pending(0)
// On NVIDIA targets the staged gemm operands get the ldmatrix swizzle.
// CUDA-LABEL: func.func @gemm_loop
// CUDA-DAG: tile.alloc_shared {layout = #tile.swizzle<2, 3, 3>} : memref<3x64x32xf16, #tile.mem<shared>>
// CUDA-DAG: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<3x32x64xf16, #tile.mem<shared>>
// With tma on sm_90 both copies (64-byte rows with the 64-byte swizzle,
// 128-byte rows with the 128-byte one) fit one TMA box: the stages are
// counted on one barrier per buffer (two arrivals: two copies), no groups.
// TMA-LABEL: func.func @gemm_loop
// TMA: %[[BARS:.*]] = tile.alloc_shared : memref<3xi64, #tile.mem<shared>>
// TMA: tile.barrier_init %[[BARS]] arrivals(2) : memref<3xi64, #tile.mem<shared>>
// TMA: scf.if
// TMA: tile.copy {{.*}} arrive(%[[BARS]][%{{.*}}] : memref<3xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>}
// TMA: tile.copy {{.*}} arrive(%[[BARS]][%{{.*}}] : memref<3xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>}
// TMA-NOT: tile.async_commit
// TMA: tile.pipelined
// TMA-NOT: tile.async_wait
// TMA: %[[I:.*]] = arith.divui
// TMA: %[[STAGE:.*]] = arith.remui %[[I]], %c3
// TMA: %[[PHASE:.*]] = arith.divui %[[I]], %c3
// TMA: %[[PARITY:.*]] = arith.remui %[[PHASE]], %c2
// TMA: tile.barrier_wait %[[BARS]][%[[STAGE]]] parity(%[[PARITY]])
// TMA: tile.gemm
// TMA: scf.if
// TMA: tile.copy {{.*}} arrive(%[[BARS]][%[[NEXT:.*]]] : memref<3xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>}
// TMA: tile.copy {{.*}} arrive(%[[BARS]][%[[NEXT]]] : memref<3xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>}
// TMA-NOT: tile.async
// TMA: return
// With tma-release too, a second barrier array counts the warps'
// releases (128 threads: 4 warps): before refilling buffer (i + 2) mod 3,
// the issuing thread waits for the release of its previous fill (phase
// (i + 2) floordiv 3 - 1: parity ((i + 2) floordiv 3 + 1) mod 2); at the
// end of iteration i every warp releases buffer i mod 3.
// RELEASE-LABEL: func.func @gemm_loop
// RELEASE: %[[BARS:.*]] = tile.alloc_shared : memref<3xi64, #tile.mem<shared>>
// RELEASE: %[[REL:.*]] = tile.alloc_shared : memref<3xi64, #tile.mem<shared>>
// RELEASE: tile.barrier_init %[[BARS]] arrivals(2)
// RELEASE: tile.barrier_init %[[REL]] arrivals(4)
// RELEASE-NOT: tile.barrier_wait %[[REL]]
// RELEASE: tile.pipelined
// RELEASE: %[[I:.*]] = arith.divui
// RELEASE: %[[STAGE:.*]] = arith.remui %[[I]], %c3
// RELEASE: tile.barrier_wait %[[BARS]][%[[STAGE]]]
// RELEASE: tile.gemm
// RELEASE: %[[FILL:.*]] = arith.addi %[[I]], %c2
// RELEASE: %[[ROUND:.*]] = arith.divui %[[FILL]], %c3
// RELEASE: %[[PREV:.*]] = arith.addi %[[ROUND]], %c1
// RELEASE: %[[PARITY:.*]] = arith.remui %[[PREV]], %c2
// RELEASE: %[[NEXT:.*]] = arith.remui %[[FILL]], %c3
// RELEASE: scf.if
// RELEASE-NEXT: tile.barrier_wait %[[REL]][%[[NEXT]]] parity(%[[PARITY]]) {issuer}
// RELEASE: tile.copy {{.*}} arrive(%[[BARS]][%[[NEXT]]]
// RELEASE: tile.copy {{.*}} arrive(%[[BARS]][%[[NEXT]]]
// RELEASE: tile.barrier_arrive %[[REL]][%[[STAGE]]]
// RELEASE-NEXT: }
// With tma-release-min-warpgroups=2 (the kernel has one warpgroup) or
// tma-release-max-stages=2 (the loop has 3 stages), block barriers stay: one
// barrier array, no releases.
// NO-RELEASE-LABEL: func.func @gemm_loop
// NO-RELEASE: tile.alloc_shared : memref<3xi64, #tile.mem<shared>>
// NO-RELEASE-NOT: tile.alloc_shared : memref<3xi64
// NO-RELEASE: tile.pipelined
// NO-RELEASE-NOT: tile.barrier_arrive
// NO-RELEASE-NOT: {issuer}
// NO-RELEASE: return
// With warp-specialize, the barrier inits and a tile.producer follow the
// kernel's allocations: the producer recomputes the row offset it needs
// and, for every iteration i, waits for the release of buffer i mod 3's
// previous fill (parity (i floordiv 3 + 1) mod 2) and issues its copies.
// The kernel's loop only waits for its buffer, computes and releases it.
// WS-LABEL: func.func @gemm_loop
// WS: %[[BARS:.*]] = tile.alloc_shared : memref<3xi64, #tile.mem<shared>>
// WS: %[[REL:.*]] = tile.alloc_shared : memref<3xi64, #tile.mem<shared>>
// WS: tile.alloc_fragment
// WS-NEXT: tile.barrier_init %[[BARS]] arrivals(2)
// WS-NEXT: tile.barrier_init %[[REL]] arrivals(4)
// WS-NEXT: tile.producer {
// WS-NEXT: %[[ROW:.*]] = arith.muli %bx, %c64
// WS-NEXT: scf.for %[[IV:.*]] = %c0 to %{{.*}} step %c1 {
// WS: %[[S:.*]] = arith.remui %[[I:.*]], %c3
// WS: %[[ROUND:.*]] = arith.divui %[[I]], %c3
// WS: %[[NEXT:.*]] = arith.addi %[[ROUND]], %c1
// WS: %[[PARITY:.*]] = arith.remui %[[NEXT]], %c2
// WS: tile.barrier_wait %[[REL]][%[[S]]] parity(%[[PARITY]]) {issuer}
// WS: tile.copy %{{.*}}[%[[ROW]], %{{.*}}] to %{{.*}} arrive(%[[BARS]][%[[S]]] {{.*}} {async, engine = #tile.copy_engine<tma>}
// WS: tile.copy {{.*}} arrive(%[[BARS]][%[[S]]] {{.*}} {async, engine = #tile.copy_engine<tma>}
// WS: tile.clear
// WS: tile.pipelined
// WS-NOT: tile.copy
// WS: tile.barrier_wait %[[BARS]]
// WS-NOT: tile.copy
// WS: tile.gemm
// WS-NOT: tile.copy
// WS: tile.barrier_arrive %[[REL]]
// WS-NEXT: }
// pingpong wants two warpgroups to take turns: this kernel has one.
// WS-ONE-LABEL: func.func @gemm_loop
// WS-ONE: tile.producer
// WS-ONE-NOT: tile.take_turns
// WS-ONE: return
// Before sm_90, cp.async groups (no tensor memory accelerator).
// NO-TMA-LABEL: func.func @gemm_loop
// NO-TMA-NOT: tile.barrier
// NO-TMA: tile.async_commit
func.func @gemm_loop(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.clear %c : memref<64x64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      %koff = arith.muli %k, %c32 : index
      tile.copy %A[%row, %koff] to %a : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
      tile.copy %B[%koff, %c0] to %b : memref<?x?xf16> to memref<32x64xf16, #tile.mem<shared>>
      tile.gemm %a, %b, %c : memref<64x32xf16, #tile.mem<shared>>, memref<32x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %c to %C[%row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
  }
  return
}

// -----

// Two stages: nothing but iteration 0 before the loop, waits with no group
// pending, prefetch one ahead. A user's swizzle stays on the staged buffer.
// With prefetch-first (the AMD pipelines), the prefetch comes right after
// the wait, before the compute.
// FIRST-LABEL: func.func @two_stages
// FIRST: tile.pipelined
// FIRST-NEXT: tile.async_wait pending(0)
// FIRST: tile.copy {{.*}} {async, engine = #tile.copy_engine<vector>}
// FIRST: tile.async_commit
// FIRST-NEXT: tile.copy %{{.*}} to %{{.*}} : memref<16x64xf16, strided
// FIRST-NEXT: }
// CHECK-LABEL: func.func @two_stages
// CHECK: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<2x16x64xf16, #tile.mem<shared>>
// CHECK: tile.copy {{.*}} {async, engine = #tile.copy_engine<vector>}
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: tile.pipelined
// CHECK-NEXT: tile.async_wait pending(0)
// CHECK: arith.remui %{{.*}}, %c2
func.func @two_stages(%A: memref<?x?xf16>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<16x64xf16, #tile.mem<shared>>
    %f = tile.alloc_fragment : memref<16x64xf32, #tile.mem<fragment>>
    tile.clear %f : memref<16x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      tile.copy %A[%k, %c0] to %s : memref<?x?xf16> to memref<16x64xf16, #tile.mem<shared>>
      tile.copy %s to %f : memref<16x64xf16, #tile.mem<shared>> to memref<16x64xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

// Loops left alone: one stage; a hand-written schedule; a body that writes
// global memory; a copy that converts; a tile read before its copy; a tile
// also used after the loop; offsets that depend on a load.
// CHECK-LABEL: func.func @not_pipelined
// CHECK-NOT: {async
// CHECK-NOT: tile.async_wait
// CHECK: return
func.func @not_pipelined(%A: memref<?x?xf16>, %F: memref<?x?xf32>, %I: memref<?xindex>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<16x64xf16, #tile.mem<shared>>
    %t = tile.alloc_shared : memref<16x64xf16, #tile.mem<shared>>
    %u = tile.alloc_shared : memref<16x64xf16, #tile.mem<shared>>
    %v = tile.alloc_shared : memref<16x64xf16, #tile.mem<shared>>
    %w = tile.alloc_shared : memref<16x64xf16, #tile.mem<shared>>
    %x = tile.alloc_shared : memref<16x64xf16, #tile.mem<shared>>
    %g = tile.alloc_shared : memref<16x64xf32, #tile.mem<shared>>
    %f = tile.alloc_fragment : memref<16x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 1 {
      tile.copy %A[%k, %c0] to %s : memref<?x?xf16> to memref<16x64xf16, #tile.mem<shared>>
      tile.copy %s to %f : memref<16x64xf16, #tile.mem<shared>> to memref<16x64xf32, #tile.mem<fragment>>
    }
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 stage = [0, 1] {
      tile.copy %A[%k, %c0] to %t : memref<?x?xf16> to memref<16x64xf16, #tile.mem<shared>>
      tile.copy %t to %f : memref<16x64xf16, #tile.mem<shared>> to memref<16x64xf32, #tile.mem<fragment>>
    }
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      tile.copy %A[%k, %c0] to %u : memref<?x?xf16> to memref<16x64xf16, #tile.mem<shared>>
      tile.copy %u to %f : memref<16x64xf16, #tile.mem<shared>> to memref<16x64xf32, #tile.mem<fragment>>
      tile.copy %f to %F[%k, %c0] : memref<16x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
    }
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      tile.copy %A[%k, %c0] to %g : memref<?x?xf16> to memref<16x64xf32, #tile.mem<shared>>
      tile.copy %v to %f : memref<16x64xf16, #tile.mem<shared>> to memref<16x64xf32, #tile.mem<fragment>>
      tile.copy %A[%k, %c0] to %v : memref<?x?xf16> to memref<16x64xf16, #tile.mem<shared>>
    }
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      tile.copy %A[%k, %c0] to %w : memref<?x?xf16> to memref<16x64xf16, #tile.mem<shared>>
    }
    tile.copy %w to %f : memref<16x64xf16, #tile.mem<shared>> to memref<16x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %row = memref.load %I[%k] : memref<?xindex>
      tile.copy %A[%row, %c0] to %x : memref<?x?xf16> to memref<16x64xf16, #tile.mem<shared>>
      tile.copy %x to %f : memref<16x64xf16, #tile.mem<shared>> to memref<16x64xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

// overlap-gemms on sm_90: the gemm reads only staged tiles and nothing else
// in the loop touches its C, so it keeps one k tile of tensor-core work in
// flight (wg_wait = 1). Four stages then prefetch two iterations ahead (the
// buffer of iteration i - 1 may still be read): two stages in the prologue,
// one group pending at the wait, iteration i + 2 into buffer (i + 2) mod 4;
// after the loop the gemm's work completes before the epilogue reads C.
// The second loop reads C inside the body, the third has three stages (and
// no room left for a fourth: the loops before took it), the fourth's gemm
// does not fit wgmma (B stored K x N with 256-byte rows): all keep the
// plain schedule. Before sm_90 (no wgmma) nothing overlaps.
// OVERLAP-LABEL: func.func @overlapped_gemm
// OVERLAP-COUNT-2: tile.async_commit
// OVERLAP-NEXT: tile.pipelined
// OVERLAP-NEXT: tile.async_wait pending(1)
// OVERLAP: %[[I:.*]] = arith.divui
// OVERLAP: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<wgmma m64n128k16>, policy = #tile.policy<full_row>, transpose_b, wg_wait = 1 : i64}
// OVERLAP: %[[AHEAD:.*]] = arith.addi %[[I]], %c2
// OVERLAP: arith.remui %[[AHEAD]], %c4
// OVERLAP: tile.async_commit
// OVERLAP-NEXT: }
// OVERLAP-NEXT: tile.gemm_wait pending(0)
// OVERLAP-NEXT: tile.async_wait pending(0)
// OVERLAP-NEXT: tile.copy %{{.*}} to %{{.*}} : memref<128x128xf32, #tile.mem<fragment>>
// OVERLAP: tile.pipelined
// OVERLAP-NEXT: tile.async_wait pending(2)
// OVERLAP-NOT: wg_wait
// OVERLAP: tile.pipelined
// OVERLAP-NEXT: tile.async_wait pending(1)
// OVERLAP-NOT: wg_wait
// OVERLAP: tile.pipelined
// OVERLAP-NEXT: tile.async_wait pending(2)
// OVERLAP-NOT: wg_wait
// OVERLAP-NOT: tile.gemm_wait
// OVERLAP: return
// NO-OVERLAP-LABEL: func.func @overlapped_gemm
// NO-OVERLAP-NOT: wg_wait
// NO-OVERLAP-NOT: tile.gemm_wait
// NO-OVERLAP: return
func.func @overlapped_gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%n) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    tile.clear %c : memref<128x128xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 4 {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] to %a : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
      tile.copy %B[%c0, %kk] to %b : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
      tile.gemm %a, %b, %c {transpose_b, policy = #tile.policy<full_row>} : memref<128x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    }
    tile.copy %c to %C[%c0, %c0] : memref<128x128xf32, #tile.mem<fragment>> to memref<?x?xf16>
    %a2 = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b2 = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c2 = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    %m2 = tile.alloc_fragment : memref<128xf32, #tile.mem<fragment>>
    tile.clear %c2 : memref<128x128xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 4 {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] to %a2 : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
      tile.copy %B[%c0, %kk] to %b2 : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
      tile.gemm %a2, %b2, %c2 {transpose_b, policy = #tile.policy<full_row>} : memref<128x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
      tile.reduce <max> %c2 to %m2 dim 1 : memref<128x128xf32, #tile.mem<fragment>> to memref<128xf32, #tile.mem<fragment>>
    }
    %a3 = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b3 = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c3 = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    tile.clear %c3 : memref<128x128xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] to %a3 : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
      tile.copy %B[%c0, %kk] to %b3 : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
      tile.gemm %a3, %b3, %c3 {transpose_b, policy = #tile.policy<full_row>} : memref<128x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    }
    %a4 = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b4 = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
    %c4 = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    tile.clear %c4 : memref<128x128xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 4 {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] to %a4 : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
      tile.copy %B[%kk, %c0] to %b4 : memref<?x?xf16> to memref<64x128xf16, #tile.mem<shared>>
      tile.gemm %a4, %b4, %c4 {policy = #tile.policy<full_row>} : memref<128x64xf16, #tile.mem<shared>>, memref<64x128xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

// Gemms the kernel itself leaves in flight. In @waited_in_body a
// tile.gemm_wait pending(0) completes them within each iteration: the loop
// is pipelined all the same (the wait touches no memory), the copies of
// iteration i + 1 go right after the last such gemm (while its tensor-core
// work runs), and the gemms keep wg_wait = -1. In @across_iterations the
// work crosses iterations (waited for after the loop): the prefetch stays at
// the end of the body, and the gemm that would not wait at all waits for all
// but one group (wg_wait = 1), so iteration i - 1's reads are done before
// its buffer is refilled.
// CHECK-LABEL: func.func @waited_in_body
// CHECK: tile.pipelined
// CHECK-NEXT: tile.async_wait pending(0)
// CHECK: tile.gemm {{.*}}wg_wait = -1
// CHECK-NOT: tile.async_commit
// CHECK: scf.if
// CHECK: tile.copy {{.*}} {async, engine = #tile.copy_engine<vector>}
// CHECK: tile.async_commit
// CHECK-NEXT: tile.gemm_wait pending(0)
// CHECK-NEXT: tile.parallel
// CHECK-LABEL: func.func @across_iterations
// CHECK: tile.gemm {{.*}}wg_wait = 1 : i64
// CHECK: scf.if
// CHECK: tile.async_commit
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait pending(0)
// CHECK-NEXT: tile.gemm_wait pending(0)
func.func @waited_in_body(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.clear %c : memref<64x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %off = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %off] to %a : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.copy %B[%c0, %off] to %b : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %a, %b, %c {transpose_b, wg_wait = -1} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.gemm_wait pending(0)
      tile.parallel (%i, %j) in (64, 64) {
        %v = memref.load %c[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        %w = arith.mulf %v, %two : f32
        memref.store %w, %c[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
      }
    }
  }
  return
}
func.func @across_iterations(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.clear %c : memref<64x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %off = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %off] to %a : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.copy %B[%c0, %off] to %b : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %a, %b, %c {transpose_b, wg_wait = -1} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.gemm_wait pending(0)
  }
  return
}

// -----

// A tile the loop copies into that ops outside the loop use too: when the
// first op to touch it on each side of the loop writes it whole
// (FlashAttention's first K tile before the loop, its last V tile after
// it), the loop fills buffers of its own and the ops outside keep the
// tile. When something after the loop reads it first (it would see the
// loop's last copy), the loop's copies are not pipelined.
// CHECK-LABEL: func.func @used_outside
// CHECK-DAG: %[[TILE:.*]] = tile.alloc_shared : memref<16x64xf16, #tile.mem<shared>>
// CHECK-DAG: %[[STAGES:.*]] = tile.alloc_shared : memref<2x16x64xf16, #tile.mem<shared>>
// CHECK: tile.copy %arg0[%c0, %c0] to %[[TILE]]
// CHECK-NEXT: tile.copy %[[TILE]] to %{{.*}} : memref<16x64xf16
// CHECK: tile.copy {{.*}} to %{{.*}} {async, engine = #tile.copy_engine<vector>}
// CHECK: tile.pipelined
// CHECK: %[[VIEW:.*]] = memref.subview %[[STAGES]]
// CHECK: tile.copy %[[VIEW]] to
// CHECK: }
// CHECK: tile.copy %arg0[%arg1, %c0] to %[[TILE]]
// CHECK-NEXT: tile.copy %[[TILE]] to
// CHECK-LABEL: func.func @read_after
// CHECK-NOT: async
// CHECK: return
func.func @used_outside(%A: memref<?x?xf16>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<16x64xf16, #tile.mem<shared>>
    %f = tile.alloc_fragment : memref<16x64xf32, #tile.mem<fragment>>
    tile.copy %A[%c0, %c0] to %s : memref<?x?xf16> to memref<16x64xf16, #tile.mem<shared>>
    tile.copy %s to %f : memref<16x64xf16, #tile.mem<shared>> to memref<16x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c1 to %kt step %c1 num_stages = 2 {
      tile.copy %A[%k, %c0] to %s : memref<?x?xf16> to memref<16x64xf16, #tile.mem<shared>>
      tile.copy %s to %f : memref<16x64xf16, #tile.mem<shared>> to memref<16x64xf32, #tile.mem<fragment>>
    }
    tile.copy %A[%kt, %c0] to %s : memref<?x?xf16> to memref<16x64xf16, #tile.mem<shared>>
    tile.copy %s to %f : memref<16x64xf16, #tile.mem<shared>> to memref<16x64xf32, #tile.mem<fragment>>
  }
  return
}
func.func @read_after(%A: memref<?x?xf16>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<16x64xf16, #tile.mem<shared>>
    %f = tile.alloc_fragment : memref<16x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c1 to %kt step %c1 num_stages = 2 {
      tile.copy %A[%k, %c0] to %s : memref<?x?xf16> to memref<16x64xf16, #tile.mem<shared>>
      tile.copy %s to %f : memref<16x64xf16, #tile.mem<shared>> to memref<16x64xf32, #tile.mem<fragment>>
    }
    tile.copy %s to %f : memref<16x64xf16, #tile.mem<shared>> to memref<16x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// A persistent kernel (tile-make-persistent's loop over tiles, marked
// tile.persistent_tiles) with warp-specialize: the producer goes in front
// of the loop over tiles and loops over the same tiles, recomputing what
// its copies need from each tile (the row offset, the tile's trip count);
// fills count on across tiles (%BASE, the previous tiles' trip counts), so
// that buffer (base + i) mod S and its phase match the consumers'. Their
// loop over tiles carries the same count. With the gemm's work kept in
// flight across iterations, iteration i releases the buffer of i - 1; the
// last iteration's is released after the loop (once that work is done),
// before the next tile's fills wait for it. (Three stages, with the fourth
// buffer that overlapped gemms get.)
// PERSISTENT-LABEL: func.func @persistent_tiles
// PERSISTENT: tile.barrier_init %[[BARS:.*]] arrivals(2)
// PERSISTENT-NEXT: tile.barrier_init %[[REL:.*]] arrivals(8)
// PERSISTENT-NEXT: tile.producer {
// PERSISTENT: scf.for %[[T:.*]] = %bx to %{{.*}} step %{{.*}} iter_args(%[[BASE:.*]] = %{{.*}}) -> (index) {
// PERSISTENT-DAG: %[[ROW:.*]] = arith.muli %[[T]], %c128
// PERSISTENT-DAG: %[[KT:.*]] = arith.addi %[[T]], %c1
// PERSISTENT: scf.for %{{.*}} = %c0 to %[[KT]] step %c1 {
// PERSISTENT: %[[FILL:.*]] = arith.addi %{{.*}}, %[[BASE]]
// PERSISTENT: %[[S:.*]] = arith.remui %[[FILL]], %c4
// PERSISTENT: tile.barrier_wait %[[REL]][%[[S]]] parity(%{{.*}}) {issuer}
// PERSISTENT: tile.copy %{{.*}}[%[[ROW]], %{{.*}}] to %{{.*}} arrive(%[[BARS]][%[[S]]]
// PERSISTENT: %[[N:.*]] = arith.maxsi
// PERSISTENT: %[[NEXTBASE:.*]] = arith.addi %[[BASE]], %[[N]]
// PERSISTENT: scf.yield %[[NEXTBASE]] : index
// PERSISTENT: scf.for %{{.*}} = %bx to %{{.*}} step %{{.*}} iter_args(%[[CBASE:.*]] = %{{.*}}) -> (index) {
// PERSISTENT: tile.pipelined
// PERSISTENT: %[[CFILL:.*]] = arith.addi %{{.*}}, %[[CBASE]]
// PERSISTENT: %[[CUR:.*]] = arith.remui %[[CFILL]], %c4
// PERSISTENT: tile.barrier_wait %[[BARS]][%[[CUR]]]
// PERSISTENT: tile.gemm {{.*}}wg_wait = 1
// PERSISTENT: scf.if
// PERSISTENT: %[[PREV:.*]] = arith.addi %[[CFILL]], %c3
// PERSISTENT: arith.remui %[[PREV]], %c4
// PERSISTENT: tile.barrier_arrive %[[REL]]
// PERSISTENT: tile.gemm_wait pending(0)
// PERSISTENT: scf.if
// PERSISTENT: %[[LAST:.*]] = arith.subi
// PERSISTENT: %[[LS:.*]] = arith.remui %[[LAST]], %c4
// PERSISTENT: tile.barrier_arrive %[[REL]][%[[LS]]]
// PERSISTENT: tile.copy
// PERSISTENT: scf.yield
// PERSISTENT-NEXT: } {tile.persistent_tiles}
func.func @persistent_tiles(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %tiles: index, %blocks: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%blocks) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    scf.for %t = %bx to %tiles step %blocks {
      %row = arith.muli %t, %c128 : index
      %kt = arith.addi %t, %c1 : index
      tile.clear %c : memref<128x128xf32, #tile.mem<fragment>>
      tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
        %kk = arith.muli %k, %c64 : index
        tile.copy %A[%row, %kk] to %a : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
        tile.copy %B[%c0, %kk] to %b : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
        tile.gemm %a, %b, %c {transpose_b, policy = #tile.policy<full_row>} : memref<128x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
      }
      tile.copy %c to %C[%row, %c0] : memref<128x128xf32, #tile.mem<fragment>> to memref<?x?xf16>
    } {tile.persistent_tiles}
  }
  return
}

// -----

// The dynamic schedule (tile-make-persistent{dynamic-tiles}: an scf.while over
// (tile, iteration)) with warp-specialize: the producer loops over the same
// tiles in a while loop of its own, which takes each next tile index
// (tile.next_tile with the hand-off barriers and its iteration as the
// count) after its fills, and ends the block's share (tile.finish_tiles);
// the consumers' tile.next_tile receives the index (the same barriers, their
// iteration). The full barrier counts the producer's one arrival, the
// released one every warp of the block (8 consumer warps + 4 producer
// warps). Fills count on across tiles on both sides (%BASE, %CBASE), as
// with the static schedule.
// PERSISTENT-LABEL: func.func @dynamic_tiles
// PERSISTENT: %[[FULL:.*]] = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
// PERSISTENT-NEXT: %[[FREED:.*]] = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
// PERSISTENT-NEXT: tile.barrier_init %[[FULL]] arrivals(1)
// PERSISTENT-NEXT: tile.barrier_init %[[FREED]] arrivals(12)
// PERSISTENT-NEXT: tile.producer {
// PERSISTENT: %[[PCOUNTERS:.*]] = memref.get_global @counters
// PERSISTENT: scf.while (%[[PT:.*]] = %bx, %[[PN:.*]] = %{{.*}}, %[[PB:.*]] = %{{.*}}) : (index, index, index) -> (index, index, index) {
// PERSISTENT: arith.cmpi ult, %[[PT]], %{{.*}}
// PERSISTENT: } do {
// PERSISTENT-NEXT: ^bb0(%[[T:.*]]: index, %[[N:.*]]: index, %[[BASE:.*]]: index):
// PERSISTENT-DAG: %[[ROW:.*]] = arith.muli %[[T]], %c128
// PERSISTENT-DAG: %[[KT:.*]] = arith.addi %[[T]], %c1
// PERSISTENT: scf.for %{{.*}} = %c0 to %[[KT]] step %c1 {
// PERSISTENT: %[[FILL:.*]] = arith.addi %{{.*}}, %[[BASE]]
// PERSISTENT: tile.copy %{{.*}}[%[[ROW]], %{{.*}}] to
// PERSISTENT: %[[NEXT:.*]] = tile.next_tile %[[PCOUNTERS]][%{{.*}}] via %{{.*}} barriers(%[[FULL]], %[[FREED]]) count(%[[N]]) :
// PERSISTENT: %[[N1:.*]] = arith.addi %[[N]], %c1
// PERSISTENT: %[[TRIP:.*]] = arith.maxsi
// PERSISTENT: %[[NEXTBASE:.*]] = arith.addi %[[BASE]], %[[TRIP]]
// PERSISTENT: scf.yield %[[NEXT]], %[[N1]], %[[NEXTBASE]] : index, index, index
// PERSISTENT-NEXT: } attributes {tile.persistent_tiles}
// PERSISTENT-NEXT: tile.finish_tiles %[[PCOUNTERS]] blocks(%{{.*}})
// PERSISTENT-NEXT: }
// PERSISTENT: %[[COUNTERS:.*]] = memref.get_global @counters
// PERSISTENT: scf.while ({{.*}}) : (index, index, index) -> (index, index, index) {
// PERSISTENT: } do {
// PERSISTENT-NEXT: ^bb0(%{{.*}}: index, %[[CN:.*]]: index, %[[CBASE:.*]]: index):
// PERSISTENT: tile.pipelined
// PERSISTENT: arith.addi %{{.*}}, %[[CBASE]]
// PERSISTENT: tile.copy
// PERSISTENT: %[[CNEXT:.*]] = tile.next_tile %[[COUNTERS]][%{{.*}}] via %{{.*}} barriers(%[[FULL]], %[[FREED]]) count(%[[CN]]) {receive}
// PERSISTENT: scf.yield %[[CNEXT]], %{{.*}}, %{{.*}} : index, index, index
// PERSISTENT-NEXT: } attributes {tile.persistent_tiles}
// PERSISTENT-NOT: tile.finish_tiles
// PERSISTENT: return
memref.global "private" @counters : memref<2xi32> = dense<0>
func.func @dynamic_tiles(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %tiles: index, %blocks: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%blocks) threads(256) -> (%bx) {
    %slot = tile.alloc_shared : memref<1xi32, #tile.mem<shared>>
    %a = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    %counters = memref.get_global @counters : memref<2xi32>
    %r:2 = scf.while (%t0 = %bx, %n0 = %c0) : (index, index) -> (index, index) {
      %more = arith.cmpi ult, %t0, %tiles : index
      scf.condition(%more) %t0, %n0 : index, index
    } do {
    ^bb0(%t: index, %n: index):
      %row = arith.muli %t, %c128 : index
      %kt = arith.addi %t, %c1 : index
      tile.clear %c : memref<128x128xf32, #tile.mem<fragment>>
      tile.pipelined %k = %c0 to %kt step %c1 num_stages = 4 {
        %kk = arith.muli %k, %c64 : index
        tile.copy %A[%row, %kk] to %a : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
        tile.copy %B[%c0, %kk] to %b : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
        tile.gemm %a, %b, %c {transpose_b, policy = #tile.policy<full_row>} : memref<128x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
      }
      tile.copy %c to %C[%row, %c0] : memref<128x128xf32, #tile.mem<fragment>> to memref<?x?xf16>
      %next = tile.next_tile %counters[%blocks] via %slot : memref<2xi32>, memref<1xi32, #tile.mem<shared>>
      %n1 = arith.addi %n, %c1 : index
      scf.yield %next, %n1 : index, index
    } attributes {tile.persistent_tiles}
    tile.finish_tiles %counters blocks(%blocks) : memref<2xi32>
  }
  return
}// -----

// Two warpgroups take turns issuing the body's gemms when they run on wgmma
// (no block barriers); a SIMT gemm (f32 operands) needs block barriers,
// which a warpgroup waiting for its turn never reaches: no turns.
// WS-ONE-LABEL: func.func @turns
// WS-ONE: tile.producer
// WS-ONE: tile.take_turns {
// WS-ONE-NEXT: tile.gemm {{.*}}wgmma
// WS-ONE-LABEL: func.func @no_turns
// WS-ONE: tile.producer
// WS-ONE-NOT: tile.take_turns
// WS-ONE: return
func.func @turns(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%n) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x64xf32, #tile.mem<fragment>>
    tile.clear %c : memref<128x64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %koff = arith.muli %k, %c32 : index
      tile.copy %A[%row, %koff] to %a : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
      tile.copy %B[%c0, %koff] to %b : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
      tile.gemm %a, %b, %c {transpose_b} : memref<128x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<128x64xf32, #tile.mem<fragment>>
    }
    tile.copy %c to %C[%row, %c0] : memref<128x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
  }
  return
}
func.func @no_turns(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%n) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<128x32xf32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf32, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x64xf32, #tile.mem<fragment>>
    tile.clear %c : memref<128x64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %koff = arith.muli %k, %c32 : index
      tile.copy %A[%row, %koff] to %a : memref<?x?xf32> to memref<128x32xf32, #tile.mem<shared>>
      tile.copy %B[%c0, %koff] to %b : memref<?x?xf32> to memref<64x32xf32, #tile.mem<shared>>
      tile.gemm %a, %b, %c {transpose_b} : memref<128x32xf32, #tile.mem<shared>>, memref<64x32xf32, #tile.mem<shared>> -> memref<128x64xf32, #tile.mem<fragment>>
    }
    tile.copy %c to %C[%row, %c0] : memref<128x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
  }
  return
}



// -----

// A staged operand tile with 16-bit rows wider than 128 bytes (B, 32 x 256
// f16: 512-byte rows) is laid out as the instruction of the gemm that
// reads it says, whatever the pass's options: blocked in column panels
// where it is `blocked, panels`, blocked where it is `blocked`, the
// row-wise ldmatrix swizzle of 512-byte rows otherwise.
// CUDA-LABEL: func.func @wide_rows
// CUDA: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true, panels = true>} : memref<2x32x256xf16, #tile.mem<shared>>
// CUDA: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true>} : memref<2x32x256xf16, #tile.mem<shared>>
// CUDA: tile.alloc_shared {layout = #tile.swizzle<3, 3, 5>} : memref<2x32x256xf16, #tile.mem<shared>>
func.func @wide_rows(%B: memref<?x?xf16>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_fragment : memref<64x32xf16, #tile.mem<fragment>>
    %c = tile.alloc_fragment : memref<64x256xf32, #tile.mem<fragment>>
    %b0 = tile.alloc_shared : memref<32x256xf16, #tile.mem<shared>>
    %b1 = tile.alloc_shared : memref<32x256xf16, #tile.mem<shared>>
    %b2 = tile.alloc_shared : memref<32x256xf16, #tile.mem<shared>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %koff = arith.muli %k, %c32 : index
      tile.copy %B[%koff, %c0] to %b0 : memref<?x?xf16> to memref<32x256xf16, #tile.mem<shared>>
      tile.gemm %a, %b0, %c {instruction = #tile.gemm_instruction<mma_sync m16n8k16, blocked, panels>} : memref<64x32xf16, #tile.mem<fragment>>, memref<32x256xf16, #tile.mem<shared>> -> memref<64x256xf32, #tile.mem<fragment>>
    }
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %koff = arith.muli %k, %c32 : index
      tile.copy %B[%koff, %c0] to %b1 : memref<?x?xf16> to memref<32x256xf16, #tile.mem<shared>>
      tile.gemm %a, %b1, %c {instruction = #tile.gemm_instruction<mma_sync m16n8k16, blocked>} : memref<64x32xf16, #tile.mem<fragment>>, memref<32x256xf16, #tile.mem<shared>> -> memref<64x256xf32, #tile.mem<fragment>>
    }
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %koff = arith.muli %k, %c32 : index
      tile.copy %B[%koff, %c0] to %b2 : memref<?x?xf16> to memref<32x256xf16, #tile.mem<shared>>
      tile.gemm %a, %b2, %c {instruction = #tile.gemm_instruction<mma_sync m16n8k16>} : memref<64x32xf16, #tile.mem<fragment>>, memref<32x256xf16, #tile.mem<shared>> -> memref<64x256xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

// A static global matrix whose rows are not 16-byte multiples apart (700
// f16 columns: 1400 bytes) has no tensor map: with tma, its copies stay
// cp.async groups, and so do the other buffer's of the same loop.
// TMA-LABEL: func.func @misaligned_rows
// TMA-NOT: tile.barrier
// TMA: tile.async_commit
// TMA-NOT: tile.barrier
// TMA: return
func.func @misaligned_rows(%A: memref<1000x700xf16>, %B: memref<700x1024xf16>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      %koff = arith.muli %k, %c32 : index
      tile.copy %A[%row, %koff] to %a : memref<1000x700xf16> to memref<64x32xf16, #tile.mem<shared>>
      tile.copy %B[%koff, %c0] to %b : memref<700x1024xf16> to memref<32x64xf16, #tile.mem<shared>>
      tile.gemm %a, %b, %c : memref<64x32xf16, #tile.mem<shared>>, memref<32x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

// A 3-stage loop whose gemm can stay in flight gets a fourth buffer where
// the kernel's shared memory has room: its copies then run the two
// iterations ahead the three stages ask for (overlapped gemms read the
// buffer of iteration i - 1). With no room (a 64 KiB staging tile for the
// epilogue besides: 4 x 48 KiB of stages would pass 227 KiB) it keeps
// three buffers and waits for each gemm.
// OVERLAP-LABEL: func.func @three_stages
// OVERLAP: tile.alloc_shared {{.*}} : memref<4x128x64xf16, #tile.mem<shared>>
// OVERLAP: tile.alloc_shared {{.*}} : memref<4x256x64xf16, #tile.mem<shared>>
// OVERLAP: tile.pipelined {{.*}} num_stages = 4
// OVERLAP: tile.gemm {{.*}} wg_wait = 1 : i64}
// OVERLAP: arith.remui %{{.*}}, %c4
// OVERLAP: tile.gemm_wait pending(0)
// OVERLAP-LABEL: func.func @three_stages_no_room
// OVERLAP: tile.alloc_shared {{.*}} : memref<3x128x64xf16, #tile.mem<shared>>
// OVERLAP: tile.pipelined {{.*}} num_stages = 3
// OVERLAP-NOT: wg_wait
// OVERLAP: return
func.func @three_stages(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%n) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<256x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x256xf32, #tile.mem<fragment>>
    tile.clear %c : memref<128x256xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] to %a : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
      tile.copy %B[%c0, %kk] to %b : memref<?x?xf16> to memref<256x64xf16, #tile.mem<shared>>
      tile.gemm %a, %b, %c {transpose_b, policy = #tile.policy<full_row>} : memref<128x64xf16, #tile.mem<shared>>, memref<256x64xf16, #tile.mem<shared>> -> memref<128x256xf32, #tile.mem<fragment>>
    }
    tile.copy %c to %C[%c0, %c0] : memref<128x256xf32, #tile.mem<fragment>> to memref<?x?xf16>
  }
  return
}
func.func @three_stages_no_room(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %kt: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%n) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<256x64xf16, #tile.mem<shared>>
    %o = tile.alloc_shared : memref<128x256xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x256xf32, #tile.mem<fragment>>
    tile.clear %c : memref<128x256xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %kk] to %a : memref<?x?xf16> to memref<128x64xf16, #tile.mem<shared>>
      tile.copy %B[%c0, %kk] to %b : memref<?x?xf16> to memref<256x64xf16, #tile.mem<shared>>
      tile.gemm %a, %b, %c {transpose_b, policy = #tile.policy<full_row>} : memref<128x64xf16, #tile.mem<shared>>, memref<256x64xf16, #tile.mem<shared>> -> memref<128x256xf32, #tile.mem<fragment>>
    }
    tile.copy %c to %o : memref<128x256xf32, #tile.mem<fragment>> to memref<128x256xf16, #tile.mem<shared>>
    tile.copy %o to %C[%c0, %c0] : memref<128x256xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}
