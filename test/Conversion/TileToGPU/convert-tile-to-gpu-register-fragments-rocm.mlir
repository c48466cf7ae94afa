// RUN: tile-opt %s --tile-attach-target="kind=rocm chip=gfx942" --tile-infer-layout --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s --check-prefix=MFMA
// RUN: tile-opt %s --tile-attach-target="kind=rocm chip=gfx1100" --tile-infer-layout --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s --check-prefix=WMMA
// RUN: tile-opt %s --tile-attach-target="kind=rocm chip=gfx942" --tile-infer-layout | FileCheck %s --check-prefix=LAYOUT

// convert-tile-to-gpu{register-fragments} on AMD matrix cores: the C tile of
// an MFMA/WMMA gemm takes the instructions' accumulator layout (16x16 tiles
// dealt to the waves in turn; MFMA lane 16h + c holds rows 4h..4h+3 of
// column c, WMMA lane 16h + c rows h, h + 2, ...), so it lives in registers
// and the row maximum is reduced in registers: four shuffles over the
// column lanes, then the waves that share a row exchange their partials in
// a shared scratch tile. (Compiled only: no AMD GPU has run it.)

func.func @scores(%Q: memref<32x32xf16>, %K: memref<32x32xf16>, %M: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %q = tile.alloc_shared : memref<32x32xf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<32x32xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<32x32xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %Q[%c0, %c0] to %q : memref<32x32xf16> to memref<32x32xf16, #tile.mem<shared>>
    tile.copy %K[%c0, %c0] to %k : memref<32x32xf16> to memref<32x32xf16, #tile.mem<shared>>
    tile.gemm %q, %k, %s {clear_accum, transpose_b} : memref<32x32xf16, #tile.mem<shared>>, memref<32x32xf16, #tile.mem<shared>> -> memref<32x32xf32, #tile.mem<fragment>>
    tile.reduce <max> %s to %m dim 1 : memref<32x32xf32, #tile.mem<fragment>> to memref<32xf32, #tile.mem<fragment>>
    tile.copy %m to %M[%c0] : memref<32xf32, #tile.mem<fragment>> to memref<32xf32>
  }
  return
}

// LAYOUT: tile.alloc_fragment {layout = #tile.fragment<[32, 32], thread = (d0, d1) -> (((d1 floordiv 16) mod 2) * 64 + ((d0 mod 16) floordiv 4) * 16 + d1 mod 16), index = (d0, d1) -> ((d0 floordiv 16 + (d1 floordiv 16) floordiv 2) * 4 + d0 mod 4), threads = 128>} : memref<32x32xf32

// Two waves of 64, four tiles: two per wave (tile rows 0 and 1 of the
// wave's tile column), four accumulators each; one k loop carries both,
// the B fragment loaded once per k step for the two.
// MFMA-LABEL: func.func @scores
// The row reductions shuffle over the 16 lanes of a tile row and exchange
// the 8 result slots of each thread through 8x8 scratch slots (one column
// per 16-lane group, not one per thread).
// MFMA: memref.view {{.*}} to memref<8x8xf32, #gpu.address_space<workgroup>>
// MFMA: %[[S:.*]] = memref.alloca() : memref<8xf32>
// MFMA: %[[M:.*]] = memref.alloca() : memref<8xf32>
// MFMA: scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>)
// MFMA-COUNT-2: vector.load
// MFMA: amdgpu.mfma 16x16x16
// MFMA: vector.load
// MFMA-NOT: vector.load
// MFMA: amdgpu.mfma 16x16x16
// MFMA: memref.store %{{.*}}, %[[S]][%c0
// MFMA: memref.store %{{.*}}, %[[S]][%c3
// MFMA: memref.store %{{.*}}, %[[S]][%c4
// MFMA: memref.store %{{.*}}, %[[S]][%c7
// MFMA: memref.load %[[S]]
// MFMA-COUNT-4: gpu.shuffle  xor
// MFMA: gpu.barrier
// MFMA: gpu.barrier
// MFMA: memref.store %{{.*}}, %[[M]][%c0

// Four waves of 32, one tile each: eight accumulators.
// WMMA-LABEL: func.func @scores
// WMMA: %[[S:.*]] = memref.alloca() : memref<8xf32>
// WMMA: amdgpu.wmma
// WMMA: memref.store %{{.*}}, %[[S]][%c7
// WMMA-COUNT-4: gpu.shuffle  xor
// WMMA: gpu.barrier
