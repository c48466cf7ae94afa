// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --convert-tile-to-gpu --tile-place-shared-memory 2>/dev/null | FileCheck %s
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --convert-tile-to-gpu --tile-place-shared-memory 2>&1 >/dev/null | FileCheck %s --check-prefix=ERROR

// convert-tile-to-gpu follows the `tile.in_registers` marks of its input
// (tile-select-register-fragments' decision) and makes none of its own.

// The marked fragment becomes a per-thread array of its 16 slots (its
// layout gives each of the 64 threads one row quarter); the unmarked one,
// with the same layout, lives in shared memory.
// CHECK-LABEL: func.func @marks
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %c4096_i32
// CHECK: %[[ARRAY:.*]] = memref.alloca() : memref<16xf32>
// CHECK-NOT: memref.alloca
// CHECK: %[[SHARED:.*]] = memref.view {{.*}} to memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-16: memref.store %{{.*}}, %[[ARRAY]][%{{.*}}] : memref<16xf32>
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[SHARED]][%{{.*}}, %{{.*}}] : memref<16x64xf32, #gpu.address_space<workgroup>>
func.func @marks(%A: memref<?x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %r = tile.alloc_fragment {layout = #tile.fragment<[16, 64], thread = (d0, d1) -> ((d0 * 16 + d1 floordiv 4) mod 64), index = (d0, d1) -> (((d0 * 16 + d1 floordiv 4) floordiv 64) * 4 + d1 mod 4), threads = 64>, tile.in_registers} : memref<16x64xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment {layout = #tile.fragment<[16, 64], thread = (d0, d1) -> ((d0 * 16 + d1 floordiv 4) mod 64), index = (d0, d1) -> (((d0 * 16 + d1 floordiv 4) floordiv 64) * 4 + d1 mod 4), threads = 64>} : memref<16x64xf32, #tile.mem<fragment>>
    tile.fill %r, %one : memref<16x64xf32, #tile.mem<fragment>>
    tile.fill %m, %one : memref<16x64xf32, #tile.mem<fragment>>
    tile.copy %r to %A[%c0, %c0] : memref<16x64xf32, #tile.mem<fragment>> to memref<?x64xf32>
    tile.copy %m to %A[%c0, %c0] : memref<16x64xf32, #tile.mem<fragment>> to memref<?x64xf32>
  }
  return
}

// -----

// A mark registers cannot serve is an error, not a silent fallback.
func.func @too_large(%A: memref<?x128xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    // ERROR: [[@LINE+1]]:10: error: 'tile.alloc_fragment' op is marked 'tile.in_registers' but cannot live in registers: it needs more than 512 bytes of registers per thread
    %a = tile.alloc_fragment {layout = #tile.fragment<[128, 128], thread = (d0, d1) -> (d1 mod 64), index = (d0, d1) -> (d0 * 2 + d1 floordiv 64), threads = 64>, tile.in_registers} : memref<128x128xf32, #tile.mem<fragment>>
    tile.fill %a, %one : memref<128x128xf32, #tile.mem<fragment>>
    tile.copy %a to %A[%c0, %c0] : memref<128x128xf32, #tile.mem<fragment>> to memref<?x128xf32>
  }
  return
}

// -----

// A marked fragment an op cannot reach in registers (a mirrored column,
// held by another thread) is still used in memory after the lowering.
func.func @unreachable(%A: memref<?x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %c0 = arith.constant 0 : index
    %c63 = arith.constant 63 : index
    %one = arith.constant 1.0 : f32
    // ERROR: [[@LINE+1]]:10: error: fragment chosen for registers is still used in memory
    %t = tile.alloc_fragment {layout = #tile.fragment<[16, 64], thread = (d0, d1) -> ((d0 * 16 + d1 floordiv 4) mod 64), index = (d0, d1) -> (((d0 * 16 + d1 floordiv 4) floordiv 64) * 4 + d1 mod 4), threads = 64>, tile.in_registers} : memref<16x64xf32, #tile.mem<fragment>>
    tile.fill %t, %one : memref<16x64xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (16, 64) {
      %jj = arith.subi %c63, %j : index
      %x = memref.load %t[%i, %jj] : memref<16x64xf32, #tile.mem<fragment>>
      memref.store %x, %A[%i, %j] : memref<?x64xf32>
    }
  }
  return
}

// -----

// A gemm stamped wgmma whose C is not marked in registers: the conversion
// does not choose another instruction itself.
func.func @wgmma_unmarked(%A: memref<64x64xf16>, %B: memref<128x64xf16>, %C: memref<64x128xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %c0 = arith.constant 0 : index
    %a = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.copy %A[%c0, %c0] to %a : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<128x64xf16> to memref<128x64xf16, #tile.mem<shared>>
    // ERROR: [[@LINE+1]]:5: error: 'tile.gemm' op is stamped #tile.gemm_instruction<wgmma m64n128k16> but the wgmma lowering cannot emit it: C not in registers (tile-select-register-fragments marks the registers and restamps such gemms)
    tile.gemm %a, %b, %c {clear_accum, transpose_b, instruction = #tile.gemm_instruction<wgmma m64n128k16>} : memref<64x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    tile.copy %c to %C[%c0, %c0] : memref<64x128xf32, #tile.mem<fragment>> to memref<64x128xf32>
  }
  return
}
