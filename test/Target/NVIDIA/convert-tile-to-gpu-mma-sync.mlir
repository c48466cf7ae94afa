// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_80" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory --canonicalize --cse | FileCheck %s --check-prefix=MMA
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_75" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory --canonicalize --cse | FileCheck %s --check-prefix=SIMT
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX

// On sm_80+, tile.gemm on f16 runs on tensor cores: warps take 16x8 tiles
// of C (16 of them here; tile = warp, warp + 4, ...), keep the accumulator
// in registers through an mma.sync m16n8k16 loop over K, and load the A and
// B fragments from the on-chip tiles with ldmatrix.
// MMA-LABEL: func.func @f16_f32
// MMA: gpu.launch blocks({{.*}}) threads(%[[TX:[[:alnum:]_]+]], %{{.*}}, %{{.*}}) in
// MMA: %[[WARP:.*]] = arith.divui %[[TX]], %c32
// MMA: scf.for %[[TILE:.*]] = %[[WARP]] to %c16 step %c4 {
// MMA:   vector.from_elements {{.*}} : vector<2x2xf32>
// MMA:   scf.for %{{.*}} = %c0 to %c32 step %c16 iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<2x2xf32>) {
// MMA:     %[[A:.*]] = nvgpu.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<64x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// MMA:     %[[B:.*]] = nvgpu.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] {numTiles = 2 : i32, transpose = true} : memref<32x32xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// MMA:     nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[ACC]]) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// MMA:   vector.extract
// MMA:   memref.store
// On sm_75 the generic lowering stays.
// SIMT-LABEL: func.func @f16_f32
// SIMT-NOT: nvgpu.mma.sync
// SIMT: arith.mulf
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @f16_f32(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<32x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x32xf32, #tile.mem<fragment>>
    tile.clear %a : memref<64x32xf16, #tile.mem<shared>>
    tile.clear %b : memref<32x32xf16, #tile.mem<shared>>
    tile.clear %c : memref<64x32xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.mem<shared>>, memref<32x32xf16, #tile.mem<shared>> -> memref<64x32xf32, #tile.mem<fragment>>
    tile.annotate_layout %c : memref<64x32xf32, #tile.mem<fragment>> layout #tile.fragment<[64, 32], thread = (i, j) -> ((i * 32 + j) mod 128), index = (i, j) -> ((i * 32 + j) floordiv 128), threads = 128>
  }
  return
}

// -----

// f16 with both operands transposed and clear_accum: the accumulator starts
// at zero (a constant that must stay inside the kernel), A and B are read
// transposed.
// MMA-LABEL: func.func @transposed
// MMA: arith.constant dense<0.000000e+00> : vector<2x2xf32>
// MMA: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// MMA: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = false}
// MMA: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// PTX: gpu.binary @transposed_kernel
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @transposed(%n: index) {
  tile.kernel grid(%n) threads(64) -> (%bx) {
    %a = tile.alloc_shared : memref<16x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    tile.clear %a : memref<16x32xf16, #tile.mem<shared>>
    tile.clear %b : memref<16x16xf16, #tile.mem<shared>>
    tile.gemm %a, %b, %c {transpose_a, transpose_b, clear_accum} : memref<16x32xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.annotate_layout %c : memref<32x16xf32, #tile.mem<fragment>> layout #tile.fragment<[32, 16], thread = (i, j) -> ((i * 16 + j) mod 64), index = (i, j) -> ((i * 16 + j) floordiv 64), threads = 64>
  }
  return
}

// -----

// Shapes that are not multiples of 16x8x16, f32 and i8 inputs keep the
// generic lowering.
// MMA-LABEL: func.func @fallbacks
// MMA-NOT: mma.sync
// MMA: return
func.func @fallbacks(%n: index) {
  tile.kernel grid(%n) threads(64) -> (%bx) {
    %a = tile.alloc_shared : memref<16x8xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.mem<fragment>>
    %ci = tile.alloc_fragment : memref<16x16xi32, #tile.mem<fragment>>
    %af = tile.alloc_shared : memref<16x16xf32, #tile.mem<shared>>
    %ai = tile.alloc_shared : memref<16x32xi8, #tile.mem<shared>>
    %bi = tile.alloc_shared : memref<32x16xi8, #tile.mem<shared>>
    tile.clear %a : memref<16x8xf16, #tile.mem<shared>>
    tile.clear %af : memref<16x16xf32, #tile.mem<shared>>
    tile.clear %ai : memref<16x32xi8, #tile.mem<shared>>
    tile.clear %bi : memref<32x16xi8, #tile.mem<shared>>
    tile.gemm %ai, %bi, %ci : memref<16x32xi8, #tile.mem<shared>>, memref<32x16xi8, #tile.mem<shared>> -> memref<16x16xi32, #tile.mem<fragment>>
    tile.gemm %a, %a, %c {transpose_b, clear_accum} : memref<16x8xf16, #tile.mem<shared>>, memref<16x8xf16, #tile.mem<shared>> -> memref<16x16xf32, #tile.mem<fragment>>
    tile.gemm %af, %af, %c : memref<16x16xf32, #tile.mem<shared>>, memref<16x16xf32, #tile.mem<shared>> -> memref<16x16xf32, #tile.mem<fragment>>
    tile.annotate_layout %c : memref<16x16xf32, #tile.mem<fragment>> layout #tile.fragment<[16, 16], thread = (i, j) -> ((i * 16 + j) mod 64), index = (i, j) -> ((i * 16 + j) floordiv 64), threads = 64>
  }
  return
}

// -----

// bf16 with f32 accumulation runs on the same tiles and fragments, but
// nvgpu.mma.sync cannot type bf16: nvvm.mma.sync directly, each fragment
// row packed into one 32-bit register, the accumulators as four f32.
// MMA-LABEL: func.func @bf16
// MMA: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<32x16xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// MMA: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true} : memref<16x16xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
// MMA: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// MMA: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// MMA-NOT: nvgpu.mma.sync
// MMA: return
// PTX: gpu.binary @bf16_kernel
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @bf16(%n: index) {
  tile.kernel grid(%n) threads(64) -> (%bx) {
    %a = tile.alloc_shared : memref<32x16xbf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x16xbf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    tile.clear %a : memref<32x16xbf16, #tile.mem<shared>>
    tile.clear %b : memref<16x16xbf16, #tile.mem<shared>>
    tile.clear %c : memref<32x16xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c : memref<32x16xbf16, #tile.mem<shared>>, memref<16x16xbf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.annotate_layout %c : memref<32x16xf32, #tile.mem<fragment>> layout #tile.fragment<[32, 16], thread = (i, j) -> ((i * 16 + j) mod 64), index = (i, j) -> ((i * 16 + j) floordiv 64), threads = 64>
  }
  return
}

// -----

// i8 with i32 accumulation, A stored M x K and B stored N x K: m16n8k32,
// the same ldmatrix addressing over 16-byte rows (16 elements), no .trans
// (ldmatrix transposes 16-bit elements only, hence the fallback for the
// other storage orders above).
// MMA-LABEL: func.func @i8
// MMA: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x64xi8, #gpu.address_space<workgroup>> -> vector<4x4xi8>
// MMA: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = false} : memref<16x64xi8, #gpu.address_space<workgroup>> -> vector<2x4xi8>
// MMA: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
// PTX: gpu.binary @i8_kernel
// PTX-SAME: mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32
func.func @i8(%n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    %a = tile.alloc_shared : memref<16x64xi8, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x64xi8, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<16x16xi32, #tile.mem<fragment>>
    tile.clear %a : memref<16x64xi8, #tile.mem<shared>>
    tile.clear %b : memref<16x64xi8, #tile.mem<shared>>
    tile.clear %c : memref<16x16xi32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b} : memref<16x64xi8, #tile.mem<shared>>, memref<16x64xi8, #tile.mem<shared>> -> memref<16x16xi32, #tile.mem<fragment>>
    tile.annotate_layout %c : memref<16x16xi32, #tile.mem<fragment>> layout #tile.fragment<[16, 16], thread = (i, j) -> ((i * 16 + j) mod 32), index = (i, j) -> ((i * 16 + j) floordiv 32), threads = 32>
  }
  return
}

// -----

// A gemm in a pipelined loop whose C nothing else in the loop touches keeps
// C in registers for the whole loop: loaded once before it, carried as loop
// values, stored once after it. 4 warps split the 64x64 C in a 2x2 grid
// (policy square): 32x32 per warp, 2x4 tiles of 16x8, so 8 accumulators per
// warp; per k step each warp loads 2 A and 4 B fragments and issues 8
// mma.sync.
// MMA-LABEL: func.func @in_registers
// MMA: memref.load %[[C:.*]][%{{.*}}, %{{.*}}] : memref<64x64xf32, #gpu.address_space<workgroup>>
// MMA: %[[R:.*]]:8 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>,
// MMA-NOT: memref.load %[[C]]
// MMA-NOT: memref.store {{.*}}, %[[C]]
// MMA-COUNT-8: nvgpu.mma.sync
// MMA-NOT: memref.store {{.*}}, %[[C]]
// MMA: scf.yield
// MMA: vector.extract %[[R]]#0[0, 0]
// MMA: memref.store %{{.*}}, %[[C]]
func.func @in_registers(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x16xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.clear %c : memref<64x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      tile.copy %A[%c0, %k] to %a : memref<?x?xf16> to memref<64x16xf16, #tile.mem<shared>>
      tile.copy %A[%k, %c0] to %b : memref<?x?xf16> to memref<16x64xf16, #tile.mem<shared>>
      tile.gemm %a, %b, %c : memref<64x16xf16, #tile.mem<shared>>, memref<16x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %c to %A[%c0, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf16>
  }
  return
}
