// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-plan-pipelines | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-plan-pipelines=tma | FileCheck %s --check-prefix=TMA

// Sparse attention's key gather (TileLang's `K_s[i, d] = KV[Idx[k * 64 + i], d]`)
// over two stages: the tile.parallel is pipelined like a copy. The tile
// gets two buffers (swizzled for the gemm that reads it), iteration 0's
// gather is issued before the loop into buffer 0 as a tile.parallel
// {async} with the induction variable replaced (its index loads too), each
// iteration waits for its own group, reads buffer i mod 2 and gathers
// iteration i + 1 into the other buffer; nothing is in flight after the
// loop.
// CHECK-LABEL: func.func @gather_loop
// CHECK: %[[BUF:.*]] = tile.alloc_shared {layout = #tile.swizzle<{{.*}}>} : memref<2x64x64xf16, #tile.mem<shared>>
// CHECK-NOT: tile.alloc_shared : memref<64x64xf16
// CHECK: scf.if
// CHECK: %[[S0:.*]] = memref.subview %[[BUF]][%{{.*}}, 0, 0] [1, 64, 64] [1, 1, 1]
// CHECK: tile.parallel (%[[I0:.*]], %[[D0:.*]]) in (64, 64) attributes {async} {
// CHECK: arith.muli %{{.*}}, %c64
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK: %[[V0:.*]] = memref.load %{{.*}}[%{{.*}}, %[[D0]]] : memref<?x64xf16>
// CHECK: memref.store %[[V0]], %[[S0]][%[[I0]], %[[D0]]]
// CHECK: }
// CHECK: }
// CHECK-NEXT: tile.async_commit
// CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} num_stages = 2 {
// CHECK-NEXT: tile.async_wait pending(0)
// CHECK: %[[CUR:.*]] = memref.subview %[[BUF]]
// CHECK-NOT: tile.parallel
// CHECK: tile.gemm %{{.*}}, %[[CUR]], %{{.*}} {transpose_b}
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK: scf.if
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (64, 64) attributes {async} {
// CHECK: arith.muli %[[NEXT]], %c64
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait pending(0)
// A gather counts its stages in copy groups, also where TMA was asked for.
// TMA-LABEL: func.func @gather_loop
// TMA-NOT: tile.barrier_init
// TMA: tile.parallel {{.*}} attributes {async}
// TMA: tile.async_commit
func.func @gather_loop(%Q: memref<64x64xf16>, %KV: memref<?x64xf16>, %Idx: memref<?xi32>, %O: memref<64x64xf32>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %q = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k_s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.copy %Q to %q : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.clear %acc : memref<64x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      tile.parallel (%i, %d) in (64, 64) {
        %c64 = arith.constant 64 : index
        %base = arith.muli %k, %c64 : index
        %at = arith.addi %base, %i : index
        %r = memref.load %Idx[%at] : memref<?xi32>
        %row = arith.index_cast %r : i32 to index
        %v = memref.load %KV[%row, %d] : memref<?x64xf16>
        memref.store %v, %k_s[%i, %d] : memref<64x64xf16, #tile.mem<shared>>
      }
      tile.gemm %q, %k_s, %acc {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %acc to %O : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf32>
  }
  return
}

// -----

// Gathers the planner leaves as they are: one that writes only part of its
// tile (a stage buffer would keep stale rows where the tile kept its own),
// one whose index comes from a shared tile the body writes (a fill issued
// an iteration ahead would read it before it is written; the loop that
// writes that index tile stores values it computes: no gather either), one that
// converts (cp.async moves bytes unchanged: not a gather) and one that
// stores at coordinates other than its own (a transposed copy).
// CHECK-LABEL: func.func @not_gathers
// CHECK-NOT: attributes {async}
// CHECK-NOT: tile.async_commit
// CHECK: return
func.func @not_gathers(%KV: memref<?x64xf16>, %KV32: memref<?x64xf32>, %Idx: memref<?xi32>, %O: memref<64x64xf32>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %part = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %from_shared = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %idx_s = tile.alloc_shared : memref<64xi32, #tile.mem<shared>>
    %converted = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %transposed = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.clear %acc : memref<64x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      tile.parallel (%i, %d) in (32, 64) {
        %r = memref.load %Idx[%i] : memref<?xi32>
        %row = arith.index_cast %r : i32 to index
        %v = memref.load %KV[%row, %d] : memref<?x64xf16>
        memref.store %v, %part[%i, %d] : memref<64x64xf16, #tile.mem<shared>>
      }
      tile.parallel (%i) in (64) {
        %at = arith.addi %i, %k : index
        %r = arith.index_cast %at : index to i32
        memref.store %r, %idx_s[%i] : memref<64xi32, #tile.mem<shared>>
      }
      tile.parallel (%i, %d) in (64, 64) {
        %r = memref.load %idx_s[%i] : memref<64xi32, #tile.mem<shared>>
        %row = arith.index_cast %r : i32 to index
        %v = memref.load %KV[%row, %d] : memref<?x64xf16>
        memref.store %v, %from_shared[%i, %d] : memref<64x64xf16, #tile.mem<shared>>
      }
      tile.parallel (%i, %d) in (64, 64) {
        %r = memref.load %Idx[%i] : memref<?xi32>
        %row = arith.index_cast %r : i32 to index
        %v = memref.load %KV32[%row, %d] : memref<?x64xf32>
        %h = arith.truncf %v : f32 to f16
        memref.store %h, %converted[%i, %d] : memref<64x64xf16, #tile.mem<shared>>
      }
      tile.parallel (%i, %d) in (64, 64) {
        %r = memref.load %Idx[%i] : memref<?xi32>
        %row = arith.index_cast %r : i32 to index
        %v = memref.load %KV[%row, %d] : memref<?x64xf16>
        memref.store %v, %transposed[%d, %i] : memref<64x64xf16, #tile.mem<shared>>
      }
      tile.gemm %part, %from_shared, %acc {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      tile.gemm %converted, %transposed, %acc {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %acc to %O : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf32>
  }
  return
}
