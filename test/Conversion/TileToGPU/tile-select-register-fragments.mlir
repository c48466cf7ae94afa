// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-infer-layout --tile-select-register-fragments | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_75" --tile-infer-layout --tile-select-register-fragments | FileCheck %s --check-prefix=SM75
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx942" --tile-infer-layout --tile-select-register-fragments | FileCheck %s --check-prefix=MFMA
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions --tile-infer-layout --tile-select-register-fragments | FileCheck %s --check-prefix=WGMMA
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions --tile-infer-layout --tile-select-register-fragments=registers=false | FileCheck %s --check-prefix=NOREG

// tile-select-register-fragments marks the fragments that live in
// registers; the decision is in the IR, for convert-tile-to-gpu to follow.

// %a and %r follow their layouts everywhere (own-coordinate accesses, a
// row reduction over xor lanes, whole copies to and from memory); %t is
// read at the mirrored column, which another thread holds, so it stays in
// memory. %a keeps its mark although it is copied to %t's row of a
// fragment that does not.
// CHECK-LABEL: func.func @accesses
// CHECK: %[[A:.*]] = tile.alloc_fragment {layout = #tile.fragment<[16, 64]{{.*}}, tile.in_registers}
// CHECK-NEXT: %[[T:.*]] = tile.alloc_fragment {layout = #tile.fragment<[16, 64]{{.*}}threads = 64>} :
// CHECK-NEXT: %[[R:.*]] = tile.alloc_fragment {layout = #tile.fragment<[16]{{.*}}, tile.in_registers}
func.func @accesses(%A: memref<?x64xf32>, %B: memref<?x64xf32>, %R: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %c0 = arith.constant 0 : index
    %c63 = arith.constant 63 : index
    %a = tile.alloc_fragment : memref<16x64xf32, #tile.mem<fragment>>
    %t = tile.alloc_fragment : memref<16x64xf32, #tile.mem<fragment>>
    %r = tile.alloc_fragment : memref<16xf32, #tile.mem<fragment>>
    tile.copy %A[%c0, %c0] to %a : memref<?x64xf32> to memref<16x64xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (16, 64) {
      %x = memref.load %a[%i, %j] : memref<16x64xf32, #tile.mem<fragment>>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %a[%i, %j] : memref<16x64xf32, #tile.mem<fragment>>
    }
    tile.reduce <sum> %a to %r dim 1 : memref<16x64xf32, #tile.mem<fragment>> to memref<16xf32, #tile.mem<fragment>>
    tile.copy %r to %R[%c0] : memref<16xf32, #tile.mem<fragment>> to memref<?xf32>
    tile.copy %a to %t : memref<16x64xf32, #tile.mem<fragment>> to memref<16x64xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (16, 64) {
      %jj = arith.subi %c63, %j : index
      %x = memref.load %t[%i, %jj] : memref<16x64xf32, #tile.mem<fragment>>
      memref.store %x, %a[%i, %j] : memref<16x64xf32, #tile.mem<fragment>>
    }
    tile.copy %a to %B[%c0, %c0] : memref<16x64xf32, #tile.mem<fragment>> to memref<?x64xf32>
  }
  return
}

// -----

// A gemm's C stays in registers when the lowering of its instruction holds
// C in exactly the fragment's layout: mma.sync's and MFMA's accumulators
// do, a SIMT gemm (given, or the only choice before sm_80) reads and
// writes C in memory.
// CHECK-LABEL: func.func @gemm_accumulators
// CHECK: tile.alloc_fragment {{.*}}tile.in_registers} : memref<32x16xf32
// CHECK-NEXT: tile.alloc_fragment {layout = #tile.fragment<{{.*}}threads = 64>} : memref<32x16xf32
// CHECK: instruction = #tile.gemm_instruction<mma_sync m16n8k16>
// CHECK: instruction = #tile.gemm_instruction<simt>
// SM75-LABEL: func.func @gemm_accumulators
// SM75-NOT: tile.in_registers
// SM75: instruction = #tile.gemm_instruction<simt>
// SM75: instruction = #tile.gemm_instruction<simt>
// MFMA-LABEL: func.func @gemm_accumulators
// MFMA: tile.alloc_fragment {{.*}}tile.in_registers} : memref<32x16xf32
// MFMA-NEXT: tile.alloc_fragment {layout = #tile.fragment<{{.*}}threads = 64>} : memref<32x16xf32
// MFMA: instruction = #tile.gemm_instruction<mfma m16n16k16>
// MFMA: instruction = #tile.gemm_instruction<simt>
func.func @gemm_accumulators(%A: memref<32x16xf16>, %B: memref<16x16xf16>, %C: memref<32x16xf32>, %D: memref<32x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %c0 = arith.constant 0 : index
    %a = tile.alloc_shared : memref<32x16xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    %simt = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    tile.copy %A[%c0, %c0] to %a : memref<32x16xf16> to memref<32x16xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<16x16xf16> to memref<16x16xf16, #tile.mem<shared>>
    tile.gemm %a, %b, %acc {clear_accum, transpose_b} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %simt {clear_accum, transpose_b, instruction = #tile.gemm_instruction<simt>} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.copy %acc to %C[%c0, %c0] : memref<32x16xf32, #tile.mem<fragment>> to memref<32x16xf32>
    tile.copy %simt to %D[%c0, %c0] : memref<32x16xf32, #tile.mem<fragment>> to memref<32x16xf32>
  }
  return
}

// -----

// The pass decides afresh: a mark the input carries on a fragment that
// needs more than 512 bytes of registers per thread (1 KiB) is dropped; a
// part of a fragment copied into another keeps both in memory.
// CHECK-LABEL: func.func @stale_marks
// CHECK-NOT: tile.in_registers
// CHECK: return
func.func @stale_marks(%A: memref<?x128xf32>, %P: memref<?x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %a = tile.alloc_fragment {layout = #tile.fragment<[128, 128], thread = (d0, d1) -> (d1 mod 64), index = (d0, d1) -> (d0 * 2 + d1 floordiv 64), threads = 64>, tile.in_registers} : memref<128x128xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<16x64xf32, #tile.mem<fragment>>
    %q = tile.alloc_fragment : memref<8x64xf32, #tile.mem<fragment>>
    tile.fill %a, %one : memref<128x128xf32, #tile.mem<fragment>>
    tile.copy %a to %A[%c0, %c0] : memref<128x128xf32, #tile.mem<fragment>> to memref<?x128xf32>
    tile.fill %p, %one : memref<16x64xf32, #tile.mem<fragment>>
    tile.copy %p[%c0, %c0] to %q : memref<16x64xf32, #tile.mem<fragment>> to memref<8x64xf32, #tile.mem<fragment>>
    tile.copy %q to %P[%c0, %c0] : memref<8x64xf32, #tile.mem<fragment>> to memref<?x64xf32>
  }
  return
}

// -----

// Two gemms selected for wgmma: %c's accumulators stay in registers and
// its gemm on wgmma; %d is read at mirrored columns, which other threads
// hold, so it stays in memory and its gemm, which wgmma cannot emit without
// C in registers, takes mma.sync. With registers=false neither fragment is
// marked and both gemms take mma.sync.
// WGMMA-LABEL: func.func @wgmma_registers
// WGMMA: tile.alloc_fragment {{.*}}, tile.in_registers} : memref<64x128xf32
// WGMMA-NEXT: tile.alloc_fragment {layout = #tile.fragment<{{.*}}threads = 128>} : memref<64x128xf32
// WGMMA: tile.gemm {{.*}}instruction = #tile.gemm_instruction<wgmma m64n128k16>
// WGMMA-NEXT: tile.gemm {{.*}}instruction = #tile.gemm_instruction<mma_sync m16n8k16>
// NOREG-LABEL: func.func @wgmma_registers
// NOREG-NOT: tile.in_registers
// NOREG: tile.gemm {{.*}}instruction = #tile.gemm_instruction<mma_sync m16n8k16>
// NOREG-NEXT: tile.gemm {{.*}}instruction = #tile.gemm_instruction<mma_sync m16n8k16>
func.func @wgmma_registers(%A: memref<64x64xf16>, %B: memref<128x64xf16>, %C: memref<64x128xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %c0 = arith.constant 0 : index
    %c127 = arith.constant 127 : index
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    %d = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.copy %A[%c0, %c0] to %a : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<128x64xf16> to memref<128x64xf16, #tile.mem<shared>>
    tile.gemm %a, %b, %c {clear_accum, transpose_b, policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %d {clear_accum, transpose_b, policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (64, 128) {
      %jj = arith.subi %c127, %j : index
      %x = memref.load %d[%i, %jj] : memref<64x128xf32, #tile.mem<fragment>>
      %y = memref.load %c[%i, %j] : memref<64x128xf32, #tile.mem<fragment>>
      %z = arith.addf %x, %y : f32
      memref.store %z, %c[%i, %j] : memref<64x128xf32, #tile.mem<fragment>>
    }
    tile.copy %c to %C[%c0, %c0] : memref<64x128xf32, #tile.mem<fragment>> to memref<64x128xf32>
  }
  return
}

// -----

// TileLang's split store of an accumulator (`for s in range(2): if i < 16:
// half[i, j] = acc[i + s * 16, j]`): the loop is unrolled, so that each
// read of %acc hits a slot known at compile time, and the tile.parallel
// runs over %acc's elements shifted by s * 16 rows; the points whose
// shifted row is past %acc (i >= 16 with s = 1) are proven to do nothing
// (the guard is false there). %acc stays in registers.
// CHECK-LABEL: func.func @split_store
// CHECK: tile.alloc_fragment {{.*}}tile.in_registers} : memref<32x16xf32
// CHECK-NOT: scf.for
// CHECK: tile.parallel
// CHECK-NOT: arith.muli
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x16xf32, #tile.mem<fragment>>
// CHECK: tile.copy
// CHECK: tile.parallel
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %c16{{.*}} : index
// CHECK: memref.load %{{.*}}[%[[ROW]], %{{.*}}] : memref<32x16xf32, #tile.mem<fragment>>
// CHECK: tile.copy
// CHECK-NOT: tile.parallel
// CHECK: return
func.func @split_store(%A: memref<32x16xf16>, %B: memref<16x16xf16>, %O: memref<32x16xf32>) {
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

// -----

// Reads of an accumulator at shifted rows that do not all exist: without
// the guard, i + 16 is past %acc's 32 rows for i >= 16, and with a guard
// on a value of the run time nothing proves those points do nothing: %acc
// stays in memory. A loop of 9 iterations is not unrolled, so its
// induction variable's rows are not known: %late stays in memory too.
// CHECK-LABEL: func.func @shifts_kept_in_memory
// CHECK-NOT: tile.in_registers
// CHECK: scf.for
// CHECK: return
func.func @shifts_kept_in_memory(%A: memref<32x16xf16>, %B: memref<16x16xf16>, %O: memref<32x16xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %c0 = arith.constant 0 : index
    %c9 = arith.constant 9 : index
    %c16 = arith.constant 16 : index
    %a = tile.alloc_shared : memref<32x16xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    %guarded = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    %late = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    %half = tile.alloc_shared : memref<32x16xf32, #tile.mem<shared>>
    tile.copy %A[%c0, %c0] to %a : memref<32x16xf16> to memref<32x16xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<16x16xf16> to memref<16x16xf16, #tile.mem<shared>>
    tile.gemm %a, %b, %acc {clear_accum, transpose_b} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %guarded {clear_accum, transpose_b} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %late {clear_accum, transpose_b} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (32, 16) {
      %row = arith.addi %i, %c16 : index
      %v = memref.load %acc[%row, %j] : memref<32x16xf32, #tile.mem<fragment>>
      memref.store %v, %half[%i, %j] : memref<32x16xf32, #tile.mem<shared>>
    }
    tile.parallel (%i, %j) in (32, 16) {
      %in = arith.cmpi slt, %i, %n : index
      scf.if %in {
        %row = arith.addi %i, %c16 : index
        %v = memref.load %guarded[%row, %j] : memref<32x16xf32, #tile.mem<fragment>>
        memref.store %v, %half[%i, %j] : memref<32x16xf32, #tile.mem<shared>>
      }
    }
    scf.for %s = %c0 to %c9 step %c1 {
      tile.parallel (%i, %j) in (2, 16) {
        %off = arith.muli %s, %c16 : index
        %row = arith.addi %i, %s : index
        %v = memref.load %late[%row, %j] : memref<32x16xf32, #tile.mem<fragment>>
        memref.store %v, %half[%i, %j] : memref<32x16xf32, #tile.mem<shared>>
      }
    }
    tile.copy %half to %O[%c0, %c0] : memref<32x16xf32, #tile.mem<shared>> to memref<32x16xf32>
  }
  return
}

// -----

// Bounds whose difference does not fit 64 bits: the loop is not unrolled.
// A step of 2^61 - 1 up to 2^63 - 1: five iterations, unrolled without
// wrapping (the last at 4 * (2^61 - 1)); the rows they pick are past
// %acc, which stays in memory.
// CHECK-LABEL: func.func @extreme_loop_bounds
// CHECK-NOT: tile.in_registers
// CHECK: scf.for
// CHECK-NEXT: tile.parallel
// CHECK-NOT: scf.for
// CHECK: arith.constant 6917529027641081853 : index
// CHECK-NEXT: tile.parallel
// CHECK: arith.constant 9223372036854775804 : index
// CHECK-NEXT: tile.parallel
// CHECK-NOT: tile.parallel
// CHECK: return
func.func @extreme_loop_bounds(%A: memref<32x16xf16>, %B: memref<16x16xf16>, %O: memref<32x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %c0 = arith.constant 0 : index
    %min = arith.constant -9223372036854775808 : index
    %max = arith.constant 9223372036854775807 : index
    %big = arith.constant 2305843009213693951 : index
    %a = tile.alloc_shared : memref<32x16xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    %half = tile.alloc_shared : memref<16x16xf32, #tile.mem<shared>>
    tile.copy %A[%c0, %c0] to %a : memref<32x16xf16> to memref<32x16xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<16x16xf16> to memref<16x16xf16, #tile.mem<shared>>
    tile.gemm %a, %b, %acc {clear_accum, transpose_b} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    scf.for %s = %min to %max step %c1 {
      tile.parallel (%i, %j) in (16, 16) {
        %row = arith.addi %i, %s : index
        %v = memref.load %acc[%row, %j] : memref<32x16xf32, #tile.mem<fragment>>
        memref.store %v, %half[%i, %j] : memref<16x16xf32, #tile.mem<shared>>
      }
    }
    scf.for %s = %c0 to %max step %big {
      tile.parallel (%i, %j) in (16, 16) {
        %row = arith.addi %i, %s : index
        %v = memref.load %acc[%row, %j] : memref<32x16xf32, #tile.mem<fragment>>
        memref.store %v, %half[%i, %j] : memref<16x16xf32, #tile.mem<shared>>
      }
    }
    tile.copy %half to %O[%c0, %c0] : memref<16x16xf32, #tile.mem<shared>> to memref<32x16xf32>
  }
  return
}
