// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx942" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory --canonicalize --cse | FileCheck %s --check-prefix=MFMA
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx1100" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory --canonicalize --cse | FileCheck %s --check-prefix=WMMA
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx1030" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory --canonicalize --cse | FileCheck %s --check-prefix=NONE
// RUN: tile-opt %s --split-input-file --tile-to-rocdl="chip=gfx942 format=isa rocm-path=%rocm_path" | FileCheck %s --check-prefix=ISA
// RUN: tile-opt %s --split-input-file --tile-to-rocdl="chip=gfx1100 format=isa rocm-path=%rocm_path" | FileCheck %s --check-prefix=ISA11
// REQUIRES: rocm-device-libs

// On chips with matrix cores, an f16 or bf16 gemm with f32 accumulation and
// sizes that are multiples of 16 runs on them, wave w taking 16x16 C tiles
// w, w + W, ... with the accumulators in registers across the k loop.
// MFMA (gfx90a, gfx94x, gfx950; wave64), amdgpu.mfma 16x16x16: lane
// l = 16 q + r loads A[r][4q + v] and B[4q + v][r] (v = 0..3) per k step and
// holds C[4q + v][r]. WMMA (gfx11; wave32), amdgpu.wmma 16x16x16: lane
// l = 16 h + r loads all of row r of A and column r of B and holds
// C[2v + h][r] (v = 0..7). An operand whose k run lies along a row (A
// stored M x K, B stored N x K) loads as vectors of up to 16 bytes (one
// vector<4xf16> for MFMA, two vector<8xf16> for WMMA), the other element by
// element. Compiled and ISA-checked here; no AMD GPU runs it.
// MFMA-LABEL: func.func @f16
// MFMA: gpu.launch blocks({{.*}}) threads(%[[TX:[[:alnum:]_]+]], %{{.*}}, %{{.*}}) in
// MFMA: %[[WAVE:.*]] = arith.divui %[[TX]], %c64
// MFMA: scf.for %{{.*}} = %[[WAVE]] to %c8 step %c2 {
// MFMA:   scf.for %{{.*}} = %c0 to %c32 step %c16 iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<4xf32>) {
// MFMA:     vector.load %{{.*}} : memref<32x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// MFMA-COUNT-4: memref.load %{{.*}} : memref<32x64xf16, #gpu.address_space<workgroup>>
// MFMA:     vector.from_elements {{.*}} : vector<4xf16>
// MFMA:     amdgpu.mfma 16x16x16 %{{.*}} * %{{.*}} + %[[ACC]] blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
// MFMA-COUNT-4: memref.store
// WMMA-LABEL: func.func @f16
// WMMA: scf.for %{{.*}} = %{{.*}} to %c8 step %c4 {
// WMMA:   scf.for %{{.*}} = %c0 to %c32 step %c16 iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<8xf32>) {
// WMMA-COUNT-2: vector.load %{{.*}} : memref<32x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// WMMA:     vector.shuffle {{.*}} : vector<8xf16>, vector<8xf16>
// WMMA-COUNT-16: memref.load %{{.*}} : memref<32x64xf16, #gpu.address_space<workgroup>>
// WMMA:     amdgpu.wmma 16x16x16 %{{.*}} * %{{.*}} + %[[ACC]] : vector<16xf16>, vector<16xf16>, vector<8xf32>
// WMMA-COUNT-8: memref.store
// Chips without matrix cores (gfx1030) keep the generic lowering.
// NONE-LABEL: func.func @f16
// NONE-NOT: amdgpu.
// NONE: return
// ISA: gpu.binary @f16_kernel
// ISA-SAME: v_mfma_f32_16x16x16_f16
// ISA-SAME: .amdhsa_private_segment_fixed_size 0
// ISA11: gpu.binary @f16_kernel
// ISA11-SAME: v_wmma_f32_16x16x16_f16
// ISA11-SAME: .amdhsa_private_segment_fixed_size 0
func.func @f16(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<32x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<32x64xf32, #tile.mem<fragment>>
    tile.clear %a : memref<32x32xf16, #tile.mem<shared>>
    tile.clear %b : memref<32x64xf16, #tile.mem<shared>>
    tile.clear %c : memref<32x64xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c : memref<32x32xf16, #tile.mem<shared>>, memref<32x64xf16, #tile.mem<shared>> -> memref<32x64xf32, #tile.mem<fragment>>
    tile.annotate_layout %c : memref<32x64xf32, #tile.mem<fragment>> layout #tile.fragment<[32, 64], thread = (i, j) -> ((i * 64 + j) mod 128), index = (i, j) -> ((i * 64 + j) floordiv 128), threads = 128>
  }
  return
}

// -----

// bf16, both operands transposed, C reset: zeros for the accumulators,
// A read as A[4q + v][r] and B as B[r][4q + v].
// MFMA-LABEL: func.func @bf16_transposed
// MFMA: arith.constant dense<0.000000e+00> : vector<4xf32>
// MFMA: amdgpu.mfma 16x16x16 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// WMMA-LABEL: func.func @bf16_transposed
// WMMA: amdgpu.wmma 16x16x16 {{.*}} : vector<16xbf16>, vector<16xbf16>, vector<8xf32>
// ISA: gpu.binary @bf16_transposed_kernel
// ISA-SAME: v_mfma_f32_16x16x16_bf16
// ISA11: gpu.binary @bf16_transposed_kernel
// ISA11-SAME: v_wmma_f32_16x16x16_bf16
func.func @bf16_transposed(%n: index) {
  tile.kernel grid(%n) threads(64) -> (%bx) {
    %a = tile.alloc_shared : memref<16x32xbf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x16xbf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    tile.clear %a : memref<16x32xbf16, #tile.mem<shared>>
    tile.clear %b : memref<16x16xbf16, #tile.mem<shared>>
    tile.gemm %a, %b, %c {transpose_a, transpose_b, clear_accum} : memref<16x32xbf16, #tile.mem<shared>>, memref<16x16xbf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.annotate_layout %c : memref<32x16xf32, #tile.mem<fragment>> layout #tile.fragment<[32, 16], thread = (i, j) -> ((i * 16 + j) mod 64), index = (i, j) -> ((i * 16 + j) floordiv 64), threads = 64>
  }
  return
}

// -----

// What MFMA 16x16x16 cannot do stays generic, so no unsupported shape
// reaches the backend: sizes that are not multiples of 16, f32 operands,
// f16 accumulation. (A block of partial waves is a verifier error.)
// MFMA-LABEL: func.func @fallbacks
// MFMA-NOT: amdgpu.mfma
// MFMA: return
// WMMA-LABEL: func.func @fallbacks
// WMMA-NOT: amdgpu.wmma
// WMMA: return
// ISA: gpu.binary @fallbacks_kernel
// ISA-NOT: v_mfma
// ISA11: gpu.binary @fallbacks_kernel
// ISA11-NOT: v_wmma
func.func @fallbacks(%n: index) {
  tile.kernel grid(%n) threads(64) -> (%bx) {
    %a = tile.alloc_shared : memref<16x8xf16, #tile.mem<shared>>
    %af = tile.alloc_shared : memref<16x16xf32, #tile.mem<shared>>
    %ah = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.mem<fragment>>
    %ch = tile.alloc_fragment : memref<16x16xf16, #tile.mem<fragment>>
    tile.clear %a : memref<16x8xf16, #tile.mem<shared>>
    tile.clear %af : memref<16x16xf32, #tile.mem<shared>>
    tile.clear %ah : memref<16x16xf16, #tile.mem<shared>>
    tile.gemm %a, %a, %c {transpose_b, clear_accum} : memref<16x8xf16, #tile.mem<shared>>, memref<16x8xf16, #tile.mem<shared>> -> memref<16x16xf32, #tile.mem<fragment>>
    tile.gemm %af, %af, %c : memref<16x16xf32, #tile.mem<shared>>, memref<16x16xf32, #tile.mem<shared>> -> memref<16x16xf32, #tile.mem<fragment>>
    tile.gemm %ah, %ah, %ch {clear_accum} : memref<16x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<16x16xf16, #tile.mem<fragment>>
    tile.annotate_layout %c : memref<16x16xf32, #tile.mem<fragment>> layout #tile.fragment<[16, 16], thread = (i, j) -> ((i * 16 + j) mod 64), index = (i, j) -> ((i * 16 + j) floordiv 64), threads = 64>
  }
  return
}
