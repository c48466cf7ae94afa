// RUN: tile-opt %s --split-input-file --tile-overlap-gemm-chains="remarks=true" --verify-diagnostics | FileCheck %s

// FlashAttention's loop (as tile-select-instructions leaves it): the first
// iteration before the loop (its K copy first, unguarded: constant bounds),
// S_k issued with P_{k-1} V_{k-1} (V of the previous iteration), the
// softmax after S is done, the rescale of O and P = S after P V is done, and
// the last P V after the loop, its V in K's tile.
// CHECK-LABEL: func.func @attention
// CHECK: %[[QS:.*]] = tile.alloc_shared : memref<64x64xf16
// CHECK-NEXT: %[[KS:.*]] = tile.alloc_shared : memref<64x64xf16
// CHECK-NEXT: %[[VS:.*]] = tile.alloc_shared : memref<64x64xf16
// CHECK-NEXT: %[[S:.*]] = tile.alloc_fragment : memref<64x64xf32
// CHECK-NEXT: %[[P:.*]] = tile.alloc_fragment : memref<64x64xf16
// CHECK-NEXT: %[[O:.*]] = tile.alloc_fragment : memref<64x64xf32
// CHECK-NEXT: %[[M:.*]] = tile.alloc_fragment : memref<64xf32
// CHECK-NEXT: %[[C:.*]] = tile.alloc_fragment : memref<64xf32
// CHECK: tile.copy %arg1[%{{.*}}, %[[K0:.*]]] to %[[KS]]
// CHECK-NEXT: tile.clear %[[S]]
// CHECK-NEXT: tile.gemm %[[QS]], %[[KS]], %[[S]] {instruction = {{.*}}, transpose_b}
// CHECK-NEXT: tile.reduce <max> %[[S]] to %[[M]]
// CHECK-NEXT: tile.parallel
// CHECK: memref.store {{.*}}, %[[C]]
// CHECK: tile.parallel
// CHECK: memref.store {{.*}}, %[[O]]
// CHECK: tile.copy %[[S]] to %[[P]]
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[LB:.*]] = arith.constant 1 : index
// CHECK-NEXT: tile.pipelined %[[KI:.*]] = %[[LB]] to %c16 step %c1 num_stages = 2 {
// CHECK: tile.copy %arg1[%{{.*}}, %{{.*}}] to %[[KS]]
// CHECK-NEXT: tile.clear %[[S]]
// CHECK-NEXT: %[[PREV:.*]] = arith.subi %[[KI]], %[[ONE]] : index
// CHECK-NEXT: %[[VROW:.*]] = arith.muli %[[PREV]], %c64
// CHECK-NEXT: tile.copy %arg2[%{{.*}}, %[[VROW]], %{{.*}}] to %[[VS]]
// CHECK-NEXT: tile.gemm %[[QS]], %[[KS]], %[[S]] {{{.*}}wg_wait = -1 : i64}
// CHECK-NEXT: tile.gemm %[[P]], %[[VS]], %[[O]] {{{.*}}wg_wait = -1 : i64}
// CHECK-NEXT: tile.gemm_wait pending(1)
// CHECK-NEXT: tile.reduce <max> %[[S]] to %[[M]]
// CHECK-NEXT: tile.parallel
// CHECK: memref.store {{.*}}, %[[C]]
// CHECK: tile.gemm_wait pending(0)
// CHECK-NEXT: tile.parallel
// CHECK: memref.store {{.*}}, %[[O]]
// CHECK: tile.copy %[[S]] to %[[P]]
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 15 : index
// CHECK-NEXT: %[[LROW:.*]] = arith.muli %[[LAST]], %c64
// CHECK-NEXT: tile.copy %arg2[%{{.*}}, %[[LROW]], %{{.*}}] to %[[KS]]
// CHECK-NEXT: tile.gemm %[[P]], %[[KS]], %[[O]] {instruction
// CHECK-NOT: wg_wait
// CHECK: tile.copy %[[O]] to %arg3
func.func @attention(%Q: memref<2x1024x64xf16>, %K: memref<2x1024x64xf16>,
                     %V: memref<2x1024x64xf16>, %Out: memref<2x1024x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c16, %c2) threads(128) -> (%bx, %b) {
    %q_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %v_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    %o = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %corr = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.copy %Q[%b, %row, %c0] to %q_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    %zero = arith.constant 0.0 : f32
    tile.fill %o, %zero : memref<64x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 2 {
      %krow = arith.muli %k, %c64 : index
      tile.copy %K[%b, %krow, %c0] to %k_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.clear %s : memref<64x64xf32, #tile.mem<fragment>>
      tile.gemm %q_s, %k_s, %s {instruction = #tile.gemm_instruction<wgmma m64n64k16>, transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.reduce <max> %s to %m dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
      tile.parallel (%i) in (64) {
        %x = memref.load %m[%i] : memref<64xf32, #tile.mem<fragment>>
        %e = math.exp2 %x : f32
        memref.store %e, %corr[%i] : memref<64xf32, #tile.mem<fragment>>
      }
      tile.parallel (%i, %j) in (64, 64) {
        %x = memref.load %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        %c = memref.load %corr[%i] : memref<64xf32, #tile.mem<fragment>>
        %y = arith.mulf %x, %c : f32
        memref.store %y, %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
      }
      tile.copy %s to %p : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
      %vrow = arith.muli %k, %c64 : index
      tile.copy %V[%b, %vrow, %c0] to %v_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %p, %v_s, %o {instruction = #tile.gemm_instruction<wgmma m64n64k16, register_a>} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %o to %Out[%b, %row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<2x1024x64xf32>
  }
  return
}

// -----

// A run-time trip count: the first iteration and the last P V run under
// lb < ub; their copies do not (the last V's row clamped to lb).
// CHECK-LABEL: func.func @dynamic_trips
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %c0, %[[N:.*]] : index
// CHECK: tile.copy %arg1
// CHECK-NEXT: scf.if %[[RUNS]] {
// CHECK-NEXT: tile.clear
// CHECK-NEXT: tile.gemm
// CHECK: tile.copy
// CHECK-NEXT: {{^ *}}}
// CHECK: tile.pipelined %{{.*}} = %c1{{.*}} to %[[N]]
// CHECK: %[[LAST:.*]] = arith.subi %[[N]], %c1{{.*}} : index
// CHECK-NEXT: %[[CLAMPED:.*]] = arith.maxsi %[[LAST]], %c0 : index
// CHECK-NEXT: %[[LROW:.*]] = arith.muli %[[CLAMPED]], %c64
// CHECK-NEXT: tile.copy %arg2[%{{.*}}, %[[LROW]], %{{.*}}]
// CHECK-NEXT: scf.if %[[RUNS]] {
// CHECK-NEXT: tile.gemm
// CHECK-NEXT: {{^ *}}}
func.func @dynamic_trips(%Q: memref<2x1024x64xf16>, %K: memref<2x1024x64xf16>,
                     %V: memref<2x1024x64xf16>, %Out: memref<2x1024x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c16, %c2) threads(128) -> (%bx, %b) {
    %q_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %v_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    %o = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %corr = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.copy %Q[%b, %row, %c0] to %q_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    %zero = arith.constant 0.0 : f32
    tile.fill %o, %zero : memref<64x64xf32, #tile.mem<fragment>>
    %n = arith.addi %bx, %c1 : index
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      %krow = arith.muli %k, %c64 : index
      tile.copy %K[%b, %krow, %c0] to %k_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.clear %s : memref<64x64xf32, #tile.mem<fragment>>
      tile.gemm %q_s, %k_s, %s {instruction = #tile.gemm_instruction<wgmma m64n64k16>, transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.reduce <max> %s to %m dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
      tile.parallel (%i) in (64) {
        %x = memref.load %m[%i] : memref<64xf32, #tile.mem<fragment>>
        %e = math.exp2 %x : f32
        memref.store %e, %corr[%i] : memref<64xf32, #tile.mem<fragment>>
      }
      tile.parallel (%i, %j) in (64, 64) {
        %x = memref.load %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        %c = memref.load %corr[%i] : memref<64xf32, #tile.mem<fragment>>
        %y = arith.mulf %x, %c : f32
        memref.store %y, %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
      }
      tile.copy %s to %p : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
      %vrow = arith.muli %k, %c64 : index
      tile.copy %V[%b, %vrow, %c0] to %v_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %p, %v_s, %o {instruction = #tile.gemm_instruction<wgmma m64n64k16, register_a>} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %o to %Out[%b, %row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<2x1024x64xf32>
  }
  return
}

// -----

// One warp holding 64-row tiles: S, P and O would spill.
// CHECK-LABEL: func.func @registers
// CHECK-NOT: gemm_wait
func.func @registers(%Q: memref<2x1024x64xf16>, %K: memref<2x1024x64xf16>,
                     %V: memref<2x1024x64xf16>, %Out: memref<2x1024x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c16, %c2) threads(32) -> (%bx, %b) {
    %q_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %v_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    %o = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %corr = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.copy %Q[%b, %row, %c0] to %q_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    %zero = arith.constant 0.0 : f32
    tile.fill %o, %zero : memref<64x64xf32, #tile.mem<fragment>>
    // expected-remark @+1 {{gemm chain not overlapped: S, P and O take 320 registers per thread, over 192}}
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 2 {
      %krow = arith.muli %k, %c64 : index
      tile.copy %K[%b, %krow, %c0] to %k_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.clear %s : memref<64x64xf32, #tile.mem<fragment>>
      tile.gemm %q_s, %k_s, %s {instruction = #tile.gemm_instruction<wgmma m64n64k16>, transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.reduce <max> %s to %m dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
      tile.parallel (%i) in (64) {
        %x = memref.load %m[%i] : memref<64xf32, #tile.mem<fragment>>
        %e = math.exp2 %x : f32
        memref.store %e, %corr[%i] : memref<64xf32, #tile.mem<fragment>>
      }
      tile.parallel (%i, %j) in (64, 64) {
        %x = memref.load %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        %c = memref.load %corr[%i] : memref<64xf32, #tile.mem<fragment>>
        %y = arith.mulf %x, %c : f32
        memref.store %y, %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
      }
      tile.copy %s to %p : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
      %vrow = arith.muli %k, %c64 : index
      tile.copy %V[%b, %vrow, %c0] to %v_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %p, %v_s, %o {instruction = #tile.gemm_instruction<wgmma m64n64k16, register_a>} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %o to %Out[%b, %row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<2x1024x64xf32>
  }
  return
}

// -----

// A store to global memory in the body (the loop runs as it is).
// CHECK-LABEL: func.func @global_write
// CHECK-NOT: gemm_wait
func.func @global_write(%Q: memref<2x1024x64xf16>, %K: memref<2x1024x64xf16>,
                     %V: memref<2x1024x64xf16>, %Out: memref<2x1024x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c16, %c2) threads(128) -> (%bx, %b) {
    %q_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %v_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    %o = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %corr = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.copy %Q[%b, %row, %c0] to %q_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    %zero = arith.constant 0.0 : f32
    tile.fill %o, %zero : memref<64x64xf32, #tile.mem<fragment>>
    // expected-remark @+1 {{gemm chain not overlapped: the body writes global memory}}
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 2 {
      %krow = arith.muli %k, %c64 : index
      tile.copy %K[%b, %krow, %c0] to %k_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.clear %s : memref<64x64xf32, #tile.mem<fragment>>
      tile.gemm %q_s, %k_s, %s {instruction = #tile.gemm_instruction<wgmma m64n64k16>, transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.reduce <max> %s to %m dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
      tile.parallel (%i) in (64) {
        %x = memref.load %m[%i] : memref<64xf32, #tile.mem<fragment>>
        %e = math.exp2 %x : f32
        memref.store %e, %corr[%i] : memref<64xf32, #tile.mem<fragment>>
      }
      tile.parallel (%i, %j) in (64, 64) {
        %x = memref.load %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        %c = memref.load %corr[%i] : memref<64xf32, #tile.mem<fragment>>
        %y = arith.mulf %x, %c : f32
        memref.store %y, %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
      }
      tile.copy %s to %p : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
      %vrow = arith.muli %k, %c64 : index
      tile.copy %V[%b, %vrow, %c0] to %v_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.copy %s to %Out[%b, %row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<2x1024x64xf32>
      tile.gemm %p, %v_s, %o {instruction = #tile.gemm_instruction<wgmma m64n64k16, register_a>} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %o to %Out[%b, %row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<2x1024x64xf32>
  }
  return
}

// -----

// O read after P V: it would read O before the P V it follows.
// CHECK-LABEL: func.func @o_after
// CHECK-NOT: gemm_wait
func.func @o_after(%Q: memref<2x1024x64xf16>, %K: memref<2x1024x64xf16>,
                     %V: memref<2x1024x64xf16>, %Out: memref<2x1024x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c16, %c2) threads(128) -> (%bx, %b) {
    %q_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %v_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    %o = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %corr = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.copy %Q[%b, %row, %c0] to %q_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    %zero = arith.constant 0.0 : f32
    tile.fill %o, %zero : memref<64x64xf32, #tile.mem<fragment>>
    // expected-remark @+1 {{gemm chain not overlapped: an op before the first gemm or after the second touches O or P}}
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 2 {
      %krow = arith.muli %k, %c64 : index
      tile.copy %K[%b, %krow, %c0] to %k_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.clear %s : memref<64x64xf32, #tile.mem<fragment>>
      tile.gemm %q_s, %k_s, %s {instruction = #tile.gemm_instruction<wgmma m64n64k16>, transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.reduce <max> %s to %m dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
      tile.parallel (%i) in (64) {
        %x = memref.load %m[%i] : memref<64xf32, #tile.mem<fragment>>
        %e = math.exp2 %x : f32
        memref.store %e, %corr[%i] : memref<64xf32, #tile.mem<fragment>>
      }
      tile.parallel (%i, %j) in (64, 64) {
        %x = memref.load %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        %c = memref.load %corr[%i] : memref<64xf32, #tile.mem<fragment>>
        %y = arith.mulf %x, %c : f32
        memref.store %y, %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
      }
      tile.copy %s to %p : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
      %vrow = arith.muli %k, %c64 : index
      tile.copy %V[%b, %vrow, %c0] to %v_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %p, %v_s, %o {instruction = #tile.gemm_instruction<wgmma m64n64k16, register_a>} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.reduce <sum> %o to %corr dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
    }
    tile.copy %o to %Out[%b, %row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<2x1024x64xf32>
  }
  return
}

// -----

// S cleared after P = S: moving P = S after it would change P.
// CHECK-LABEL: func.func @conflict
// CHECK-NOT: gemm_wait
func.func @conflict(%Q: memref<2x1024x64xf16>, %K: memref<2x1024x64xf16>,
                     %V: memref<2x1024x64xf16>, %Out: memref<2x1024x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c16, %c2) threads(128) -> (%bx, %b) {
    %q_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %v_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    %o = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %corr = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.copy %Q[%b, %row, %c0] to %q_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    %zero = arith.constant 0.0 : f32
    tile.fill %o, %zero : memref<64x64xf32, #tile.mem<fragment>>
    // expected-remark @+1 {{gemm chain not overlapped: an op that touches O or P conflicts with a later op}}
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 2 {
      %krow = arith.muli %k, %c64 : index
      tile.copy %K[%b, %krow, %c0] to %k_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.clear %s : memref<64x64xf32, #tile.mem<fragment>>
      tile.gemm %q_s, %k_s, %s {instruction = #tile.gemm_instruction<wgmma m64n64k16>, transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.reduce <max> %s to %m dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
      tile.parallel (%i) in (64) {
        %x = memref.load %m[%i] : memref<64xf32, #tile.mem<fragment>>
        %e = math.exp2 %x : f32
        memref.store %e, %corr[%i] : memref<64xf32, #tile.mem<fragment>>
      }
      tile.parallel (%i, %j) in (64, 64) {
        %x = memref.load %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        %c = memref.load %corr[%i] : memref<64xf32, #tile.mem<fragment>>
        %y = arith.mulf %x, %c : f32
        memref.store %y, %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
      }
      tile.copy %s to %p : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
      tile.clear %s : memref<64x64xf32, #tile.mem<fragment>>
      %vrow = arith.muli %k, %c64 : index
      tile.copy %V[%b, %vrow, %c0] to %v_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %p, %v_s, %o {instruction = #tile.gemm_instruction<wgmma m64n64k16, register_a>} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %o to %Out[%b, %row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<2x1024x64xf32>
  }
  return
}

// -----

// A run-time lower bound: the first iteration's copies could not run unguarded.
// CHECK-LABEL: func.func @dynamic_lb
// CHECK-NOT: gemm_wait
func.func @dynamic_lb(%Q: memref<2x1024x64xf16>, %K: memref<2x1024x64xf16>,
                     %V: memref<2x1024x64xf16>, %Out: memref<2x1024x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c16, %c2) threads(128) -> (%bx, %b) {
    %q_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %v_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    %o = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %corr = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.copy %Q[%b, %row, %c0] to %q_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    %zero = arith.constant 0.0 : f32
    tile.fill %o, %zero : memref<64x64xf32, #tile.mem<fragment>>
    // expected-remark @+1 {{gemm chain not overlapped: its lower bound is not a constant >= 0}}
    tile.pipelined %k = %bx to %c16 step %c1 num_stages = 2 {
      %krow = arith.muli %k, %c64 : index
      tile.copy %K[%b, %krow, %c0] to %k_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.clear %s : memref<64x64xf32, #tile.mem<fragment>>
      tile.gemm %q_s, %k_s, %s {instruction = #tile.gemm_instruction<wgmma m64n64k16>, transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.reduce <max> %s to %m dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
      tile.parallel (%i) in (64) {
        %x = memref.load %m[%i] : memref<64xf32, #tile.mem<fragment>>
        %e = math.exp2 %x : f32
        memref.store %e, %corr[%i] : memref<64xf32, #tile.mem<fragment>>
      }
      tile.parallel (%i, %j) in (64, 64) {
        %x = memref.load %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        %c = memref.load %corr[%i] : memref<64xf32, #tile.mem<fragment>>
        %y = arith.mulf %x, %c : f32
        memref.store %y, %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
      }
      tile.copy %s to %p : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
      %vrow = arith.muli %k, %c64 : index
      tile.copy %V[%b, %vrow, %c0] to %v_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %p, %v_s, %o {instruction = #tile.gemm_instruction<wgmma m64n64k16, register_a>} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %o to %Out[%b, %row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<2x1024x64xf32>
  }
  return
}

// -----

// S on mma.sync: nothing to leave in flight.
// CHECK-LABEL: func.func @mma_sync
// CHECK-NOT: gemm_wait
func.func @mma_sync(%Q: memref<2x1024x64xf16>, %K: memref<2x1024x64xf16>,
                     %V: memref<2x1024x64xf16>, %Out: memref<2x1024x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c16, %c2) threads(128) -> (%bx, %b) {
    %q_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %v_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    %o = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %corr = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.copy %Q[%b, %row, %c0] to %q_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    %zero = arith.constant 0.0 : f32
    tile.fill %o, %zero : memref<64x64xf32, #tile.mem<fragment>>
    // expected-remark @+1 {{gemm chain not overlapped: a gemm is not a synchronous wgmma}}
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 2 {
      %krow = arith.muli %k, %c64 : index
      tile.copy %K[%b, %krow, %c0] to %k_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.clear %s : memref<64x64xf32, #tile.mem<fragment>>
      tile.gemm %q_s, %k_s, %s {instruction = #tile.gemm_instruction<mma_sync m16n8k16>, transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.reduce <max> %s to %m dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
      tile.parallel (%i) in (64) {
        %x = memref.load %m[%i] : memref<64xf32, #tile.mem<fragment>>
        %e = math.exp2 %x : f32
        memref.store %e, %corr[%i] : memref<64xf32, #tile.mem<fragment>>
      }
      tile.parallel (%i, %j) in (64, 64) {
        %x = memref.load %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        %c = memref.load %corr[%i] : memref<64xf32, #tile.mem<fragment>>
        %y = arith.mulf %x, %c : f32
        memref.store %y, %o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
      }
      tile.copy %s to %p : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
      %vrow = arith.muli %k, %c64 : index
      tile.copy %V[%b, %vrow, %c0] to %v_s : memref<2x1024x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.gemm %p, %v_s, %o {instruction = #tile.gemm_instruction<wgmma m64n64k16, register_a>} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %o to %Out[%b, %row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<2x1024x64xf32>
  }
  return
}
