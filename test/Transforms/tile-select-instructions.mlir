// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions | FileCheck %s --check-prefix=SM90
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions="wgmma-tall-rows wgmma-blocked" | FileCheck %s --check-prefix=TALL
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions="wgmma-blocked wgmma-panels" | FileCheck %s --check-prefix=PANELS
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions=wgmma-panels | FileCheck %s --check-prefix=SM90
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions=wgmma=false | FileCheck %s --check-prefix=MMA
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_80" --tile-select-instructions | FileCheck %s --check-prefix=MMA
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx942" --tile-select-instructions | FileCheck %s --check-prefix=MFMA
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx1100" --tile-select-instructions | FileCheck %s --check-prefix=WMMA
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cpu chip=host" --tile-select-instructions | FileCheck %s --check-prefix=CPU

// Each gemm gets the first instruction that can run it: wgmma (sm_90),
// mma.sync (sm_80+), the AMD matrix cores, SIMT.

// 64 rows of C per warpgroup, K-major shared operands with 64-byte rows:
// wgmma with one instruction per k16 over all 128 columns; A in a
// fragment: wgmma's register-A form. Everywhere else the 16x8 / 16x16
// pieces of the other instructions.
// SM90-LABEL: func.func @fits
// SM90: tile.gemm {{.*}}instruction = #tile.gemm_instruction<wgmma m64n128k16>
// SM90: tile.gemm {{.*}}instruction = #tile.gemm_instruction<wgmma m64n128k16, register_a>
// MMA-LABEL: func.func @fits
// MMA-COUNT-2: instruction = #tile.gemm_instruction<mma_sync m16n8k16>
// MFMA-LABEL: func.func @fits
// MFMA-COUNT-2: instruction = #tile.gemm_instruction<mfma m16n16k16>
// WMMA-LABEL: func.func @fits
// WMMA-COUNT-2: instruction = #tile.gemm_instruction<wmma m16n16k16>
// CPU-LABEL: func.func @fits
// CPU-COUNT-2: instruction = #tile.gemm_instruction<simt>
func.func @fits(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b} : memref<64x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    %f = tile.alloc_fragment : memref<64x32xf16, #tile.mem<fragment>>
    tile.gemm %f, %b, %c {transpose_b} : memref<64x32xf16, #tile.mem<fragment>>, memref<128x32xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// 128 rows over one warpgroup: two m64 blocks per warpgroup only with
// wgmma-tall-rows (N <= 128); 128 rows over two warpgroups are one block
// each. 256-byte shared rows are wgmma's only in the blocked layout.
// SM90-LABEL: func.func @rows
// SM90: instruction = #tile.gemm_instruction<mma_sync m16n8k16>
// SM90: instruction = #tile.gemm_instruction<wgmma m64n256k16>
// SM90: instruction = #tile.gemm_instruction<mma_sync m16n8k16>
// TALL-LABEL: func.func @rows
// TALL: instruction = #tile.gemm_instruction<wgmma m64n128k16, blocks = 2, blocked>
// TALL: instruction = #tile.gemm_instruction<wgmma m64n256k16, blocked>
// TALL: instruction = #tile.gemm_instruction<wgmma m64n64k16, blocked>
// With wgmma-blocked, every tensor-core instruction records how its wide
// shared rows are laid out (blocked; in panels with wgmma-panels, which
// alone changes nothing).
// PANELS-LABEL: func.func @rows
// PANELS: instruction = #tile.gemm_instruction<mma_sync m16n8k16, blocked, panels>
// PANELS: instruction = #tile.gemm_instruction<wgmma m64n256k16, blocked, panels>
// PANELS: instruction = #tile.gemm_instruction<wgmma m64n64k16, blocked, panels>
func.func @rows(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
  }
  tile.kernel grid(%n) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<256x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x256xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b} : memref<128x64xf16, #tile.mem<shared>>, memref<256x64xf16, #tile.mem<shared>> -> memref<128x256xf32, #tile.mem<fragment>>
  }
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b} : memref<64x128xf16, #tile.mem<shared>>, memref<64x128xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// Fewer 64-row blocks of C than warpgroups (TileLang's MLA decode: 64 heads
// over 256 threads): the warpgroups split N too, each one wgmma of N / g
// columns (g column groups), with A in shared memory: a K-major B (row
// groups of 8); an MN-major B only blocked, each group's columns whole
// 128-byte blocks; four warpgroups over 128 x 128: two row groups of two
// column groups. A in registers keeps mma.sync (each column group would
// need all of A's rows in its registers).
// SM90-LABEL: func.func @column_groups
// SM90: instruction = #tile.gemm_instruction<wgmma m64n32k16>
// SM90: instruction = #tile.gemm_instruction<mma_sync m16n8k16>
// SM90: instruction = #tile.gemm_instruction<wgmma m64n64k16>
// SM90: instruction = #tile.gemm_instruction<mma_sync m16n8k16>
// TALL-LABEL: func.func @column_groups
// TALL: instruction = #tile.gemm_instruction<wgmma m64n32k16, blocked>
// TALL: instruction = #tile.gemm_instruction<wgmma m64n256k16, blocked>
// TALL: instruction = #tile.gemm_instruction<wgmma m64n64k16, blocked>
// TALL: instruction = #tile.gemm_instruction<mma_sync m16n8k16, blocked>
// MMA-LABEL: func.func @column_groups
// MMA-COUNT-4: instruction = #tile.gemm_instruction<mma_sync m16n8k16>
func.func @column_groups(%n: index) {
  tile.kernel grid(%n) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    %v = tile.alloc_shared : memref<64x512xf16, #tile.mem<shared>>
    %o = tile.alloc_fragment : memref<64x512xf32, #tile.mem<fragment>>
    tile.gemm %a, %v, %o : memref<64x64xf16, #tile.mem<shared>>, memref<64x512xf16, #tile.mem<shared>> -> memref<64x512xf32, #tile.mem<fragment>>
  }
  tile.kernel grid(%n) threads(512) -> (%bx) {
    %a = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b} : memref<128x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
  }
  tile.kernel grid(%n) threads(256) -> (%bx) {
    %f = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %f, %b, %c {transpose_b} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// What wgmma does not take: f32 and i8 NN operands (SIMT on NVIDIA; i8 TN
// is mma.sync m16n8k32) and a kernel whose block is not whole warpgroups.
// An operand the kernel writes element by element keeps its swizzle (the
// element stores apply it) and runs on wgmma.
// SM90-LABEL: func.func @others
// SM90: instruction = #tile.gemm_instruction<simt>
// SM90: instruction = #tile.gemm_instruction<mma_sync m16n8k32>
// SM90: instruction = #tile.gemm_instruction<simt>
// SM90: instruction = #tile.gemm_instruction<wgmma m64n64k16>
// SM90: instruction = #tile.gemm_instruction<mma_sync m16n8k16>
// MFMA-LABEL: func.func @others
// MFMA: instruction = #tile.gemm_instruction<simt>
// MFMA: instruction = #tile.gemm_instruction<simt>
// MFMA: instruction = #tile.gemm_instruction<simt>
// MFMA: instruction = #tile.gemm_instruction<mfma m16n16k16>
// MFMA: instruction = #tile.gemm_instruction<mfma m16n16k16>
func.func @others(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf32, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b} : memref<64x32xf32, #tile.mem<shared>>, memref<64x32xf32, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    %ia = tile.alloc_shared : memref<64x64xi8, #tile.mem<shared>>
    %ib = tile.alloc_shared : memref<64x64xi8, #tile.mem<shared>>
    %ic = tile.alloc_fragment : memref<64x64xi32, #tile.mem<fragment>>
    tile.gemm %ia, %ib, %ic {transpose_b} : memref<64x64xi8, #tile.mem<shared>>, memref<64x64xi8, #tile.mem<shared>> -> memref<64x64xi32, #tile.mem<fragment>>
    tile.gemm %ia, %ib, %ic : memref<64x64xi8, #tile.mem<shared>>, memref<64x64xi8, #tile.mem<shared>> -> memref<64x64xi32, #tile.mem<fragment>>
    %ha = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %hb = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %hc = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (64, 32) {
      %x = arith.constant 1.0 : f16
      memref.store %x, %hb[%i, %j] : memref<64x32xf16, #tile.mem<shared>>
    }
    tile.gemm %ha, %hb, %hc {transpose_b} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  tile.kernel grid(%n) threads(64) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b} : memref<64x32xf16, #tile.mem<shared>>, memref<64x32xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// An instruction already on a gemm is kept when it can run it: SIMT runs
// everything (tile-select-instructions-given.mlir: the others).
// SM90-LABEL: func.func @given
// SM90: instruction = #tile.gemm_instruction<simt>
// MFMA-LABEL: func.func @given
// MFMA: instruction = #tile.gemm_instruction<simt>
func.func @given(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<simt>} : memref<64x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// FP8 operands (e4m3 x e5m2 here) with f32 accumulators: wgmma m64nNk32
// when both are K-major in shared memory (A M x K, B N x K: wgmma does not
// transpose 8-bit operands); MN-major B, and every target without FP8
// tensor-core forms here, SIMT.
// SM90-LABEL: func.func @fp8
// SM90: tile.gemm {{.*}}instruction = #tile.gemm_instruction<wgmma m64n128k32>, transpose_b}
// SM90: tile.gemm {{.*}}instruction = #tile.gemm_instruction<simt>}
// MMA-LABEL: func.func @fp8
// MMA-COUNT-2: instruction = #tile.gemm_instruction<simt>
// CPU-LABEL: func.func @fp8
// CPU-COUNT-2: instruction = #tile.gemm_instruction<simt>
func.func @fp8(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf8E4M3FN, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf8E5M2, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b} : memref<64x64xf8E4M3FN, #tile.mem<shared>>, memref<128x64xf8E5M2, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    %bt = tile.alloc_shared : memref<64x128xf8E5M2, #tile.mem<shared>>
    tile.gemm %a, %bt, %c : memref<64x64xf8E4M3FN, #tile.mem<shared>>, memref<64x128xf8E5M2, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
  }
  return
}
