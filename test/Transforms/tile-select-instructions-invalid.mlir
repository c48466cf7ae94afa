// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_80" --tile-select-instructions -verify-diagnostics

// An instruction given on a gemm that cannot run it is an error at the
// gemm that says why.

func.func @wgmma_before_sm90(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    // expected-error @+1 {{cannot run on #tile.gemm_instruction<wgmma m64n128k16>: wgmma needs an NVIDIA target of sm_90 or newer, not cuda sm_80}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<wgmma m64n128k16>} : memref<64x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
  }
  return
}

// -----

func.func @mma_of_f32(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x32xf32, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    // expected-error @+1 {{cannot run on #tile.gemm_instruction<mma_sync m16n8k16>: no mma.sync for the types and transposes}}
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<mma_sync m16n8k16>} : memref<64x32xf32, #tile.mem<shared>>, memref<64x32xf32, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}
