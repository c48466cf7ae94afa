// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-nvvm-arrived-operands | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_80" --tile-nvvm-arrived-operands | FileCheck %s --check-prefix=NONE

// tile-nvvm-arrived-operands, from fragments already marked in registers
// (the layout is any #tile.fragment: only the mark is read).

// Both shared operands are written only by copies that arrive on a
// barrier, and C is in registers: the gemm needs no block barrier. The
// second gemm's B is also written by a synchronous copy, the third's C is
// not in registers, the fourth leaves work in flight: none is marked.
// Without TMA (sm_80) nothing is marked.
// CHECK-LABEL: func.func @arrived
// CHECK: tile.gemm %[[A:.*]], %[[B:.*]], %[[C:.*]] {clear_accum, tile.arrived_operands, transpose_b}
// CHECK-NOT: tile.arrived_operands
// CHECK: return
// NONE-LABEL: func.func @arrived
// NONE-NOT: tile.arrived_operands
func.func @arrived(%A: memref<64x64xf16>, %B: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b2 = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment {layout = #tile.fragment<[64, 64], thread = (d0, d1) -> ((d0 * 2 + d1 floordiv 32) mod 128), index = (d0, d1) -> (d1 mod 32), threads = 128>, tile.in_registers} : memref<64x64xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment {layout = #tile.fragment<[64, 64], thread = (d0, d1) -> ((d0 * 2 + d1 floordiv 32) mod 128), index = (d0, d1) -> (d1 mod 32), threads = 128>} : memref<64x64xf32, #tile.mem<fragment>>
    tile.barrier_init %bars arrivals(3) : memref<1xi64, #tile.mem<shared>>
    tile.copy %A[%c0, %c0] to %a arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b2 arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.barrier_wait %bars[%c0] parity(%c0) : memref<1xi64, #tile.mem<shared>>
    tile.gemm %a, %b, %c {clear_accum, transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.copy %A[%c0, %c0] to %b2 : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.gemm %a, %b2, %c {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %m {clear_accum, transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b, wg_wait = 1} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm_wait pending(0)
  }
  return
}
