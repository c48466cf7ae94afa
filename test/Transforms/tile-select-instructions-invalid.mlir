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

// -----

// An engine given on a copy that cannot move on it is an error at the copy
// that says why.

func.func @tma_before_sm90(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // expected-error @+1 {{cannot move on #tile.copy_engine<tma>: TMA needs an NVIDIA target of sm_90 or newer, not cuda sm_80}}
    tile.copy %A[%bx, %c0] to %s arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @buffer_load_on_nvidia(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // expected-error @+1 {{cannot move on #tile.copy_engine<buffer_load>: buffer loads need an AMD target, not cuda sm_80}}
    tile.copy %A[%bx, %c0] to %s {engine = #tile.copy_engine<buffer_load>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @cp_async_across_rows(%A: memref<?x?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    // expected-error @+1 {{cannot move on #tile.copy_engine<cp_async>: the tile's rows do not run along the buffers' last dimension}}
    tile.copy %A[%c0 : 64, %c0 : 64, %bx] to %s {async, engine = #tile.copy_engine<cp_async>} : memref<?x?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}

// -----

func.func @vectors_of_a_local_tile(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %l = tile.alloc_local : memref<8xf16, #tile.mem<local>>
    // expected-error @+1 {{cannot move on #tile.copy_engine<vector>: no vector of 2 or more elements splits the rows of both sides}}
    tile.copy %A[%bx, %c0] to %l {engine = #tile.copy_engine<vector>} : memref<?x?xf16> to memref<8xf16, #tile.mem<local>>
  }
  return
}
