// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-infer-layout --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s

// A tile.parallel over a register fragment whose body is a guard on the
// row alone (FlashAttention-4's conditional rescale of O: only rows whose
// maximum moved): one branch per row of each thread, holding the work of
// all of that row's slots, instead of one per element. The 32x16 mma
// accumulator over 64 threads: each lane holds rows g (slots 0, 1, 4, 5)
// and g + 8 (slots 2, 3, 6, 7).
// CHECK-LABEL: func.func @rescale_rows
// CHECK: %[[O:.*]] = memref.alloca() : memref<8xf32>
// CHECK: %[[M:.*]] = memref.alloca() : memref<2xf32>
// CHECK: %[[PREV:.*]] = memref.alloca() : memref<2xf32>
// CHECK: nvgpu.mma.sync
// The guard of row g: its condition, then the four slots inside.
// CHECK: %[[MG:.*]] = memref.load %[[M]][%c0{{.*}}] : memref<2xf32>
// CHECK: %[[PG:.*]] = memref.load %[[PREV]][%c0{{.*}}] : memref<2xf32>
// CHECK: %[[CG:.*]] = arith.cmpf une, %[[MG]], %[[PG]] : f32
// CHECK: scf.if %[[CG]] {
// CHECK-NOT: scf.if
// CHECK: memref.store %{{.*}}, %[[O]][%c0{{.*}}] : memref<8xf32>
// CHECK-NOT: scf.if
// CHECK: memref.store %{{.*}}, %[[O]][%c1{{.*}}] : memref<8xf32>
// CHECK-NOT: scf.if
// CHECK: memref.store %{{.*}}, %[[O]][%c4{{.*}}] : memref<8xf32>
// CHECK-NOT: scf.if
// CHECK: memref.store %{{.*}}, %[[O]][%c5{{.*}}] : memref<8xf32>
// CHECK-NEXT: }
// Row g + 8.
// CHECK: arith.cmpf une
// CHECK: scf.if
// CHECK-NOT: scf.if
// CHECK: memref.store %{{.*}}, %[[O]][%c2{{.*}}] : memref<8xf32>
// CHECK-NOT: scf.if
// CHECK: memref.store %{{.*}}, %[[O]][%c3{{.*}}] : memref<8xf32>
// CHECK-NOT: scf.if
// CHECK: memref.store %{{.*}}, %[[O]][%c6{{.*}}] : memref<8xf32>
// CHECK-NOT: scf.if
// CHECK: memref.store %{{.*}}, %[[O]][%c7{{.*}}] : memref<8xf32>
// CHECK-NEXT: }
// No third guard: O's store to global memory comes next.
// CHECK-NOT: arith.cmpf une
// CHECK: gpu.terminator
func.func @rescale_rows(%Q: memref<32x16xf16>, %K: memref<16x16xf16>, %O: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %q = tile.alloc_shared : memref<32x16xf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %o = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
    %prev = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
    tile.copy %Q[%c0, %c0] to %q : memref<32x16xf16> to memref<32x16xf16, #tile.mem<shared>>
    tile.copy %K[%c0, %c0] to %k : memref<16x16xf16> to memref<16x16xf16, #tile.mem<shared>>
    tile.gemm %q, %k, %o {clear_accum, transpose_b, policy = #tile.policy<full_row>} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.reduce <max> %o to %m dim 1 : memref<32x16xf32, #tile.mem<fragment>> to memref<32xf32, #tile.mem<fragment>>
    tile.reduce <min> %o to %prev dim 1 : memref<32x16xf32, #tile.mem<fragment>> to memref<32xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (32, 16) {
      %a = memref.load %m[%i] : memref<32xf32, #tile.mem<fragment>>
      %b = memref.load %prev[%i] : memref<32xf32, #tile.mem<fragment>>
      %moved = arith.cmpf une, %a, %b : f32
      scf.if %moved {
        %x = memref.load %o[%i, %j] : memref<32x16xf32, #tile.mem<fragment>>
        %y = arith.mulf %x, %a : f32
        memref.store %y, %o[%i, %j] : memref<32x16xf32, #tile.mem<fragment>>
      }
    }
    tile.copy %o to %O[%c0, %c0] : memref<32x16xf32, #tile.mem<fragment>> to memref<32x16xf32>
  }
  return
}

// -----

// A guard that depends on the column too stays one branch per element.
// CHECK-LABEL: func.func @per_element
// CHECK: nvgpu.mma.sync
// CHECK: %[[C0:.*]] = arith.cmpf olt
// CHECK-NEXT: scf.if %[[C0]] {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%c0{{.*}}] : memref<8xf32>
// CHECK-NEXT: }
// CHECK: %[[C1:.*]] = arith.cmpf olt
// CHECK-NEXT: scf.if %[[C1]] {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%c1{{.*}}] : memref<8xf32>
// CHECK-NEXT: }
// CHECK: %[[C2:.*]] = arith.cmpf olt
// CHECK-NEXT: scf.if %[[C2]] {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%c2{{.*}}] : memref<8xf32>
// CHECK-NEXT: }
// CHECK: %[[C3:.*]] = arith.cmpf olt
// CHECK-NEXT: scf.if %[[C3]] {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%c3{{.*}}] : memref<8xf32>
// CHECK-NEXT: }
// CHECK: %[[C4:.*]] = arith.cmpf olt
// CHECK-NEXT: scf.if %[[C4]] {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%c4{{.*}}] : memref<8xf32>
// CHECK-NEXT: }
// CHECK: %[[C5:.*]] = arith.cmpf olt
// CHECK-NEXT: scf.if %[[C5]] {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%c5{{.*}}] : memref<8xf32>
// CHECK-NEXT: }
// CHECK: %[[C6:.*]] = arith.cmpf olt
// CHECK-NEXT: scf.if %[[C6]] {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%c6{{.*}}] : memref<8xf32>
// CHECK-NEXT: }
// CHECK: %[[C7:.*]] = arith.cmpf olt
// CHECK-NEXT: scf.if %[[C7]] {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%c7{{.*}}] : memref<8xf32>
// CHECK-NEXT: }
// CHECK-NOT: arith.cmpf olt
// CHECK: gpu.terminator
func.func @per_element(%Q: memref<32x16xf16>, %K: memref<16x16xf16>, %O: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %q = tile.alloc_shared : memref<32x16xf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %o = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    tile.copy %Q[%c0, %c0] to %q : memref<32x16xf16> to memref<32x16xf16, #tile.mem<shared>>
    tile.copy %K[%c0, %c0] to %k : memref<16x16xf16> to memref<16x16xf16, #tile.mem<shared>>
    tile.gemm %q, %k, %o {clear_accum, transpose_b, policy = #tile.policy<full_row>} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (32, 16) {
      %x = memref.load %o[%i, %j] : memref<32x16xf32, #tile.mem<fragment>>
      %zero = arith.constant 0.0 : f32
      %neg = arith.cmpf olt, %x, %zero : f32
      scf.if %neg {
        memref.store %zero, %o[%i, %j] : memref<32x16xf32, #tile.mem<fragment>>
      }
    }
    tile.copy %o to %O[%c0, %c0] : memref<32x16xf32, #tile.mem<fragment>> to memref<32x16xf32>
  }
  return
}

// -----

// A guard that reads what its branch writes (a shared row value) could
// change along the row: one branch per element (8 tests; grouped by row
// there would be 2 more).
// CHECK-LABEL: func.func @reads_what_it_writes
// CHECK: nvgpu.mma.sync
// CHECK-COUNT-8: arith.cmpf olt
// CHECK-NOT: arith.cmpf olt
// CHECK: gpu.terminator
func.func @reads_what_it_writes(%Q: memref<32x16xf16>, %K: memref<16x16xf16>, %O: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %q = tile.alloc_shared : memref<32x16xf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %sh = tile.alloc_shared : memref<32xf32, #tile.mem<shared>>
    %o = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    tile.copy %Q[%c0, %c0] to %q : memref<32x16xf16> to memref<32x16xf16, #tile.mem<shared>>
    tile.copy %K[%c0, %c0] to %k : memref<16x16xf16> to memref<16x16xf16, #tile.mem<shared>>
    tile.gemm %q, %k, %o {clear_accum, transpose_b, policy = #tile.policy<full_row>} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    %init = arith.constant -1.0 : f32
    tile.fill %sh, %init : memref<32xf32, #tile.mem<shared>>
    tile.parallel (%i, %j) in (32, 16) {
      %a = memref.load %sh[%i] : memref<32xf32, #tile.mem<shared>>
      %zero = arith.constant 0.0 : f32
      %neg = arith.cmpf olt, %a, %zero : f32
      scf.if %neg {
        %x = memref.load %o[%i, %j] : memref<32x16xf32, #tile.mem<fragment>>
        memref.store %x, %sh[%i] : memref<32xf32, #tile.mem<shared>>
      }
    }
    tile.copy %o to %O[%c0, %c0] : memref<32x16xf32, #tile.mem<fragment>> to memref<32x16xf32>
  }
  return
}

// -----

// A guard the same for every element (defined above the loop) also
// branches once per row.
// CHECK-LABEL: func.func @uniform_guard
// CHECK: nvgpu.mma.sync
// CHECK: scf.if %[[FLAG:.*]] {
// CHECK-COUNT-4: memref.store
// CHECK: scf.if %[[FLAG]] {
// CHECK-COUNT-4: memref.store
func.func @uniform_guard(%Q: memref<32x16xf16>, %K: memref<16x16xf16>, %O: memref<32x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %flag = arith.cmpi sgt, %n, %c0 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %q = tile.alloc_shared : memref<32x16xf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %o = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    tile.copy %Q[%c0, %c0] to %q : memref<32x16xf16> to memref<32x16xf16, #tile.mem<shared>>
    tile.copy %K[%c0, %c0] to %k : memref<16x16xf16> to memref<16x16xf16, #tile.mem<shared>>
    tile.gemm %q, %k, %o {clear_accum, transpose_b, policy = #tile.policy<full_row>} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (32, 16) {
      scf.if %flag {
        %x = memref.load %o[%i, %j] : memref<32x16xf32, #tile.mem<fragment>>
        %y = arith.addf %x, %x : f32
        memref.store %y, %o[%i, %j] : memref<32x16xf32, #tile.mem<fragment>>
      }
    }
    tile.copy %o to %O[%c0, %c0] : memref<32x16xf32, #tile.mem<fragment>> to memref<32x16xf32>
  }
  return
}

// -----

// A tile.parallel reading a register fragment at rows shifted by a
// constant (`half[i, j] = acc[i + 8, j]`) runs over the fragment's own
// elements, each standing for the loop point 8 rows up; a thread skips the
// rows that are none of the loop's (row - 8 outside [0, 16)), one branch
// per row of the thread. The 32x16 mma accumulator over 64 threads: lane
// rows g (slots 0, 1, 4, 5) and g + 8 (slots 2, 3, 6, 7), g = lane / 4 +
// 16 * warp.
// CHECK-LABEL: func.func @shifted_rows
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<8xf32>
// CHECK: nvgpu.mma.sync
// CHECK: %[[P0:.*]] = arith.subi %{{.*}}, %c8{{.*}} : index
// CHECK: %[[LO0:.*]] = arith.cmpi sge, %[[P0]], %c0{{.*}} : index
// CHECK: %[[HI0:.*]] = arith.cmpi slt, %[[P0]], %c16{{.*}} : index
// CHECK: %[[IN0:.*]] = arith.andi %[[LO0]], %[[HI0]] : i1
// CHECK: scf.if %[[IN0]] {
// CHECK: memref.load %[[ACC]][%c0{{.*}}] : memref<8xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[P0]], %{{.*}}] : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK: memref.load %[[ACC]][%c1{{.*}}] : memref<8xf32>
// CHECK: memref.load %[[ACC]][%c4{{.*}}] : memref<8xf32>
// CHECK: memref.load %[[ACC]][%c5{{.*}}] : memref<8xf32>
// CHECK-NOT: scf.if
// CHECK: }
// CHECK: arith.cmpi sge
// CHECK: scf.if
// CHECK: memref.load %[[ACC]][%c2{{.*}}] : memref<8xf32>
// CHECK: memref.load %[[ACC]][%c3{{.*}}] : memref<8xf32>
// CHECK: memref.load %[[ACC]][%c6{{.*}}] : memref<8xf32>
// CHECK: memref.load %[[ACC]][%c7{{.*}}] : memref<8xf32>
// CHECK: gpu.barrier
func.func @shifted_rows(%A: memref<32x16xf16>, %B: memref<16x16xf16>, %O: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %a = tile.alloc_shared : memref<32x16xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    %half = tile.alloc_shared : memref<16x16xf32, #tile.mem<shared>>
    tile.copy %A[%c0, %c0] to %a : memref<32x16xf16> to memref<32x16xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<16x16xf16> to memref<16x16xf16, #tile.mem<shared>>
    tile.gemm %a, %b, %acc {clear_accum, transpose_b} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (16, 16) {
      %row = arith.addi %i, %c8 : index
      %v = memref.load %acc[%row, %j] : memref<32x16xf32, #tile.mem<fragment>>
      memref.store %v, %half[%i, %j] : memref<16x16xf32, #tile.mem<shared>>
    }
    tile.copy %half to %O[%c0, %c0] : memref<16x16xf32, #tile.mem<shared>> to memref<16x16xf32>
  }
  return
}

// -----

// TileLang's split store (`for s in range(2): if i < 16: half[i, j] =
// acc[i + s * 16, j]`), unrolled by tile-select-register-fragments: the
// second half's loop runs over %acc's rows 16 up, each thread entering a
// row only where it is one of the loop's (row - 16 in [0, 32)) and then
// the guard of the row (row - 16 < 16).
// CHECK-LABEL: func.func @split_store_rows
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<8xf32>
// CHECK: %[[P:.*]] = arith.subi %{{.*}}, %c16{{.*}} : index
// CHECK: %[[LO:.*]] = arith.cmpi sge, %[[P]], %c0{{.*}} : index
// CHECK: %[[HI:.*]] = arith.cmpi slt, %[[P]], %c32{{.*}} : index
// CHECK: %[[IN:.*]] = arith.andi %[[LO]], %[[HI]] : i1
// CHECK: scf.if %[[IN]] {
// CHECK: %[[G:.*]] = arith.cmpi slt, %[[P]], %c16{{.*}} : index
// CHECK: scf.if %[[G]] {
// CHECK: memref.load %[[ACC]][%c0{{.*}}] : memref<8xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[P]], %{{.*}}] : memref<16x16xf32, #gpu.address_space<workgroup>>
func.func @split_store_rows(%A: memref<32x16xf16>, %B: memref<16x16xf16>, %O: memref<32x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %a = tile.alloc_shared : memref<32x16xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    %half = tile.alloc_shared : memref<16x16xf32, #tile.mem<shared>>
    tile.copy %A[%c0, %c0] to %a : memref<32x16xf16> to memref<32x16xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<16x16xf16> to memref<16x16xf16, #tile.mem<shared>>
    tile.gemm %a, %b, %acc {clear_accum, transpose_b} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    scf.for %s = %c0 to %c2 step %c1 {
      tile.parallel (%i, %j) in (32, 16) {
        %in = arith.cmpi slt, %i, %c16 : index
        scf.if %in {
          %off = arith.muli %s, %c16 : index
          %row = arith.addi %i, %off : index
          %v = memref.load %acc[%row, %j] : memref<32x16xf32, #tile.mem<fragment>>
          memref.store %v, %half[%i, %j] : memref<16x16xf32, #tile.mem<shared>>
        }
      }
      %r = arith.muli %s, %c16 : index
      tile.copy %half to %O[%r, %c0] : memref<16x16xf32, #tile.mem<shared>> to memref<32x16xf32>
    }
  }
  return
}
