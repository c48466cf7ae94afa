// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions --tile-plan-pipelines=overlap-gemms | FileCheck %s

// Gemms left in flight across iterations hold one buffer more than the
// copies: the copies of a num_stages = 4 loop would run two iterations
// ahead instead of three. The loop gets a fifth buffer where the kernel
// already holds one block per multiprocessor by its shared memory (128 x
// 128 fp8 tiles: 132 KB with four, 164 KB with five).
// CHECK-LABEL: func.func @one_block_per_sm
// CHECK-DAG: tile.alloc_shared {{.*}} : memref<5x128x128xf8E4M3FN, #tile.mem<shared>>
// CHECK: tile.pipelined {{.*}} num_stages = 5 {
// CHECK: tile.gemm {{.*}}wg_wait = 1
func.func @one_block_per_sm(%A: memref<1024x1024xf8E4M3FN>, %B: memref<1024x1024xf8E4M3FN>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%c8, %c8) threads(256) -> (%bx, %by) {
    %a = tile.alloc_shared : memref<128x128xf8E4M3FN, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x128xf8E4M3FN, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    tile.clear %acc : memref<128x128xf32, #tile.mem<fragment>>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 num_stages = 4 {
      %kk = arith.muli %k, %c128 : index
      tile.copy %A[%row, %kk] to %a : memref<1024x1024xf8E4M3FN> to memref<128x128xf8E4M3FN, #tile.mem<shared>>
      tile.copy %B[%col, %kk] to %b : memref<1024x1024xf8E4M3FN> to memref<128x128xf8E4M3FN, #tile.mem<shared>>
      tile.gemm %a, %b, %acc {transpose_b} : memref<128x128xf8E4M3FN, #tile.mem<shared>>, memref<128x128xf8E4M3FN, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    }
    tile.copy %acc to %C[%row, %col] : memref<128x128xf32, #tile.mem<fragment>> to memref<1024x1024xf32>
  }
  return
}

// -----

// Small tiles: three blocks fit on a multiprocessor with four buffers
// (4 x 16 KB), two with five; the loop keeps its four.
// CHECK-LABEL: func.func @blocks_would_drop
// CHECK-DAG: tile.alloc_shared {{.*}} : memref<4x128x32xf16, #tile.mem<shared>>
// CHECK: tile.pipelined {{.*}} num_stages = 4 {
// CHECK: tile.gemm {{.*}}wg_wait = 1
func.func @blocks_would_drop(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%c8, %c8) threads(256) -> (%bx, %by) {
    %a = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    tile.clear %acc : memref<128x128xf32, #tile.mem<fragment>>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c32 step %c1 num_stages = 4 {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%row, %kk] to %a : memref<1024x1024xf16> to memref<128x32xf16, #tile.mem<shared>>
      tile.copy %B[%col, %kk] to %b : memref<1024x1024xf16> to memref<128x32xf16, #tile.mem<shared>>
      tile.gemm %a, %b, %acc {transpose_b} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    }
    tile.copy %acc to %C[%row, %col] : memref<128x128xf32, #tile.mem<fragment>> to memref<1024x1024xf32>
  }
  return
}
