// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-infer-layout --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-infer-layout --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s --check-prefix=MEMORY

// tile-select-register-fragments, then convert-tile-to-gpu: fragments whose inferred layouts
// every op on them can follow become per-thread register arrays.

// 32x16 scores over 2 warps (full_row: one warp per 16 rows), row max by
// shuffles, exp, P as the A operand of a second gemm, O to global.
func.func @attention_block(%Q: memref<32x16xf16>, %K: memref<16x16xf16>, %V: memref<16x16xf16>, %O: memref<?x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %q = tile.alloc_shared : memref<32x16xf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %v = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<32x16xf16, #tile.mem<fragment>>
    %o = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %Q[%c0, %c0] to %q : memref<32x16xf16> to memref<32x16xf16, #tile.mem<shared>>
    tile.copy %K[%c0, %c0] to %k : memref<16x16xf16> to memref<16x16xf16, #tile.mem<shared>>
    tile.copy %V[%c0, %c0] to %v : memref<16x16xf16> to memref<16x16xf16, #tile.mem<shared>>
    tile.clear %o : memref<32x16xf32, #tile.mem<fragment>>
    tile.gemm %q, %k, %s {clear_accum, transpose_b, policy = #tile.policy<full_row>} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.reduce <max> %s to %m dim 1 : memref<32x16xf32, #tile.mem<fragment>> to memref<32xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (32, 16) {
      %x = memref.load %s[%i, %j] : memref<32x16xf32, #tile.mem<fragment>>
      %mx = memref.load %m[%i] : memref<32xf32, #tile.mem<fragment>>
      %d = arith.subf %x, %mx : f32
      %e = math.exp %d : f32
      memref.store %e, %s[%i, %j] : memref<32x16xf32, #tile.mem<fragment>>
    }
    tile.copy %s to %p : memref<32x16xf32, #tile.mem<fragment>> to memref<32x16xf16, #tile.mem<fragment>>
    tile.gemm %p, %v, %o {policy = #tile.policy<full_row>} : memref<32x16xf16, #tile.mem<fragment>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.copy %o to %O[%c0, %c0] : memref<32x16xf32, #tile.mem<fragment>> to memref<?x16xf32>
  }
  return
}

// Only Q, K and V take shared memory (2 KiB); S, P, O (8 slots each: two
// 16x8 accumulator pieces per lane) and the row maxima (rows g and g + 8,
// shared by the four lanes of a group) are registers.
// CHECK-LABEL: func.func @attention_block
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %c2048_i32
// CHECK: %[[S:.*]] = memref.alloca() : memref<8xf32>
// CHECK: %[[P:.*]] = memref.alloca() : memref<8xf16>
// CHECK: %[[O:.*]] = memref.alloca() : memref<8xf32>
// CHECK: %[[M:.*]] = memref.alloca() : memref<2xf32>
// CHECK-COUNT-3: memref.view
// CHECK-NOT: memref.view
// tile.clear: eight stores of zero.
// CHECK-COUNT-8: memref.store %{{.*}}, %[[O]][%{{.*}}] : memref<8xf32>
// The first gemm writes its accumulators straight into S. The warp's two
// 16x8 column blocks of B come from one ldmatrix .x4 (K is stored N x K:
// no .trans), split into the two fragments.
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: %[[BOTH:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: vector.extract %[[BOTH]][0]
// CHECK: vector.extract %[[BOTH]][1]
// CHECK: vector.extract %[[BOTH]][2]
// CHECK: vector.extract %[[BOTH]][3]
// CHECK-COUNT-2: nvgpu.mma.sync
// CHECK-COUNT-8: memref.store %{{.*}}, %[[S]][%{{.*}}] : memref<8xf32>
// The row maximum: in-thread over slots 0, 1, 4, 5 (row g), then lanes
// xor 1 and xor 2; the same for row g + 8 (slots 2, 3, 6, 7).
// CHECK: gpu.barrier
// CHECK-NEXT: arith.constant 0xFF800000
// CHECK-NEXT: arith.constant 0
// CHECK-NEXT: memref.load %[[S]][%c0
// CHECK: memref.load %[[S]][%c1
// CHECK: memref.load %[[S]][%c4
// CHECK: memref.load %[[S]][%c5
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: memref.load %[[S]][%c2
// CHECK: memref.load %[[S]][%c3
// CHECK: memref.load %[[S]][%c6
// CHECK: memref.load %[[S]][%c7
// CHECK: gpu.shuffle  xor
// CHECK: gpu.shuffle  xor
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[M]][%c0
// CHECK: memref.store %{{.*}}, %[[M]][%c1
// The parallel body once per slot of S: slot 2 is row g + 8, M's slot 1.
// CHECK: memref.load %[[S]][%c0
// CHECK-NEXT: memref.load %[[M]][%c0
// CHECK: memref.load %[[S]][%c2
// CHECK-NEXT: memref.load %[[M]][%c1
// The f16 copy of S into P stays in the thread; the second gemm reads P as
// its A fragments and O as its accumulators, with no shared memory access.
// CHECK: %[[P0:.*]] = memref.load %[[S]][%c0
// CHECK-NEXT: arith.truncf %[[P0]] : f32 to f16
// CHECK: memref.load %[[O]]
// CHECK: memref.load %[[P]]
// CHECK: vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.mma.sync
// CHECK: memref.store %{{.*}}, %[[O]]
// O to global memory: each thread its own elements, two adjacent columns
// per 8-byte store when O is aligned (run-time check), guarded at the edge;
// element by element otherwise.
// CHECK: memref.load %[[O]][%c0
// CHECK: memref.load %[[O]][%c1
// CHECK: vector.from_elements {{.*}} : vector<2xf32>
// CHECK: scf.if
// CHECK: vector.store %{{.*}}, %arg3[{{.*}}] {alignment = 8 : i64} : memref<?x16xf32>, vector<2xf32>
// CHECK: } else {
// CHECK: memref.store %{{.*}}, %arg3[
// MEMORY-LABEL: func.func @attention_block
// MEMORY-NOT: memref.alloca
// MEMORY-COUNT-7: memref.view

// A default-layout fragment loaded from global memory: each of 64 threads
// holds one 4-element run per row.
func.func @scale(%X: memref<?x64xf32>, %Y: memref<?x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %x = tile.alloc_fragment : memref<4x64xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %X[%c0, %c0] to %x : memref<?x64xf32> to memref<4x64xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (4, 64) {
      %v = memref.load %x[%i, %j] : memref<4x64xf32, #tile.mem<fragment>>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%i, %j] : memref<4x64xf32, #tile.mem<fragment>>
    }
    tile.copy %x to %Y[%c0, %c0] : memref<4x64xf32, #tile.mem<fragment>> to memref<?x64xf32>
  }
  return
}

// Thread t holds row t / 16, columns 4 (t mod 16) to 4 (t mod 16) + 3; no
// shared memory at all. Each run of four moves as one 16-byte access when
// X is aligned (the element-wise copy otherwise).
// CHECK-LABEL: func.func @scale
// CHECK: dynamic_shared_memory_size %c0_i32
// CHECK: %[[X:.*]] = memref.alloca() : memref<4xf32>
// CHECK: %[[ROW:.*]] = arith.divui %{{.*}}, %c16
// CHECK: %[[COL:.*]] = arith.remui %{{.*}}, %c16
// CHECK: %[[COL4:.*]] = arith.muli %[[COL]], %c4
// CHECK: %[[R:.*]] = arith.addi %c0, %[[ROW]]
// CHECK: %[[C:.*]] = arith.addi %c0, %[[COL4]]
// CHECK: scf.if
// CHECK: vector.load %arg0[%[[R]], %[[C]]] {alignment = 16 : i64} : memref<?x64xf32>, vector<4xf32>
// CHECK: vector.extract %{{.*}}[0]
// CHECK: memref.store %{{.*}}, %[[X]][%c0
// CHECK: } else {
// CHECK: memref.load %arg0[%[[R]], %[[C]]]
// CHECK: memref.store %{{.*}}, %[[X]][%c0
// CHECK-NOT: gpu.barrier
// CHECK: return

// A cumsum has no register lowering: the fragment it scans stays in shared
// memory, and with it the row sums reduced from it.
func.func @stays_in_memory(%X: memref<8x1024xf32>, %Y: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %x = tile.alloc_fragment : memref<8x1024xf32, #tile.mem<fragment>>
    %r = tile.alloc_fragment : memref<8xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %X[%c0, %c0] to %x : memref<8x1024xf32> to memref<8x1024xf32, #tile.mem<fragment>>
    tile.cumsum %x to %x dim 1 : memref<8x1024xf32, #tile.mem<fragment>> to memref<8x1024xf32, #tile.mem<fragment>>
    tile.reduce <sum> %x to %r dim 1 : memref<8x1024xf32, #tile.mem<fragment>> to memref<8xf32, #tile.mem<fragment>>
    tile.copy %r to %Y[%c0] : memref<8xf32, #tile.mem<fragment>> to memref<8xf32>
  }
  return
}
// CHECK-LABEL: func.func @stays_in_memory
// CHECK-NOT: memref.alloca
// CHECK: memref.view {{.*}} to memref<8x1024xf32
// CHECK: memref.view {{.*}} to memref<8xf32
// CHECK-NOT: memref.alloca
// CHECK: return

// Rows spread over all four warps (the default layout: thread t holds
// columns 4t to 4t + 3, and 512 + 4t...): each thread folds its four
// elements of each row, the lanes of each warp combine with five shuffles,
// and the four warps' partial sums meet in a shared scratch tile (row x
// warp: after the shuffles every lane holds its warp's sums, so lane 0
// publishes them), every thread adding those of warps (t & ~96) >> 5,
// | 1, | 2, | 3 in that order.
func.func @row_sums_across_warps(%X: memref<?x512xf32>, %Y: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %x = tile.alloc_fragment : memref<2x512xf32, #tile.mem<fragment>>
    %s = tile.alloc_fragment : memref<2xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %X[%c0, %c0] to %x : memref<?x512xf32> to memref<2x512xf32, #tile.mem<fragment>>
    tile.reduce <sum> %x to %s dim 1 : memref<2x512xf32, #tile.mem<fragment>> to memref<2xf32, #tile.mem<fragment>>
    tile.copy %s to %Y[%c0] : memref<2xf32, #tile.mem<fragment>> to memref<?xf32>
  }
  return
}
// CHECK-LABEL: func.func @row_sums_across_warps
// CHECK: %[[SCRATCH:.*]] = memref.view {{.*}} to memref<2x4xf32, #gpu.address_space<workgroup>>
// CHECK: %[[X:.*]] = memref.alloca() : memref<8xf32>
// CHECK: %[[S:.*]] = memref.alloca() : memref<2xf32>
// CHECK: memref.load %[[X]][%c0
// CHECK: memref.load %[[X]][%c1
// CHECK: memref.load %[[X]][%c2
// CHECK: memref.load %[[X]][%c3
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: gpu.barrier
// CHECK: %[[LANE:.*]] = arith.andi %[[TID:.*]], %c31
// CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: scf.if %[[LEAD]] {
// CHECK: %[[WARP:.*]] = arith.shrui %[[TID]], %c5
// CHECK: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}, %[[WARP]]] :
// CHECK: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}, %[[WARP]]] :
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: %[[BASE:.*]] = arith.andi %[[TID]], %c-97
// CHECK: %[[FIRST_WARP:.*]] = arith.shrui %[[BASE]], %c5
// CHECK: memref.load %[[SCRATCH]][%{{.*}}, %[[FIRST_WARP]]]
// CHECK: arith.ori %[[FIRST_WARP]], %c1
// CHECK: arith.ori %[[FIRST_WARP]], %c2
// CHECK: arith.ori %[[FIRST_WARP]], %c3
// CHECK: memref.store %{{.*}}, %[[S]][%c0
// CHECK: memref.store %{{.*}}, %[[S]][%c1
// Every thread holds both sums; only the first replica (thread 0) writes
// them out.
// CHECK: %[[REPLICA:.*]] = arith.andi %{{.*}}, %c127 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[REPLICA]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK: memref.store %{{.*}}, %arg1[
// MEMORY-LABEL: func.func @row_sums_across_warps
// MEMORY-NOT: memref.alloca

// Two reductions across warps with partials of one shape exchange them
// through one scratch tile (each starts with a block barrier).
func.func @two_reductions_one_scratch(%X: memref<?x512xf32>, %Y: memref<?xf32>, %Z: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %x = tile.alloc_fragment : memref<2x512xf32, #tile.mem<fragment>>
    %s = tile.alloc_fragment : memref<2xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<2xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %X[%c0, %c0] to %x : memref<?x512xf32> to memref<2x512xf32, #tile.mem<fragment>>
    tile.reduce <sum> %x to %s dim 1 : memref<2x512xf32, #tile.mem<fragment>> to memref<2xf32, #tile.mem<fragment>>
    tile.reduce <max> %x to %m dim 1 : memref<2x512xf32, #tile.mem<fragment>> to memref<2xf32, #tile.mem<fragment>>
    tile.copy %s to %Y[%c0] : memref<2xf32, #tile.mem<fragment>> to memref<?xf32>
    tile.copy %m to %Z[%c0] : memref<2xf32, #tile.mem<fragment>> to memref<?xf32>
  }
  return
}
// CHECK-LABEL: func.func @two_reductions_one_scratch
// CHECK: %[[SCRATCH:.*]] = memref.view {{.*}} to memref<2x4xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.view {{.*}} to memref<2x4xf32
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[SCRATCH]][
// CHECK: arith.addf
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[SCRATCH]][
// CHECK: arith.maxnumf
