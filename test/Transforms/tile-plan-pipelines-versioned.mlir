// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions --tile-plan-pipelines=overlap-gemms | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions="wgmma-blocked wgmma-panels" --tile-plan-pipelines=overlap-gemms | FileCheck %s --check-prefix=BLOCKED

// A gemm operand that the body rewrites whole each iteration before the
// gemm reads it (TileLang's dequantize loops: a T.Parallel decodes into
// the tile): with the gemm left in flight across iterations the tile gets
// two buffers, swizzled as the staged operands are, iteration i writing
// buffer i mod 2 while the tensor cores may still read the other; the
// gemm waits for all but its own group, and nothing is in flight after
// the loop.
// CHECK-LABEL: func.func @rewritten_operand
// CHECK-DAG: %[[W:.*]] = tile.alloc_shared {layout = #tile.swizzle<{{.*}}>} : memref<2x64x64xf16, #tile.mem<shared>>
// CHECK-NOT: tile.alloc_shared : memref<64x64xf16
// CHECK: tile.pipelined {{.*}} num_stages = 4 {
// CHECK: %[[I:.*]] = arith.divui
// CHECK: %[[SLOT:.*]] = arith.remui %[[I]], %c2
// CHECK: %[[VIEW:.*]] = memref.subview %[[W]][%[[SLOT]], 0, 0] [1, 64, 64] [1, 1, 1]
// CHECK: tile.parallel
// CHECK: memref.store %{{.*}}, %[[VIEW]][
// CHECK: tile.gemm %{{.*}}, %[[VIEW]], %{{.*}} {{{.*}}wg_wait = 1 : i64}
// CHECK: tile.async_commit
// CHECK-NEXT: }
// CHECK-NEXT: tile.gemm_wait pending(0)
func.func @rewritten_operand(%A: memref<256x1024xf16>, %X: memref<64x1024xf16>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %s = arith.constant 2.0 : f16
  tile.kernel grid(%c4) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %w = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.clear %acc : memref<64x64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %col = arith.muli %k, %c64 : index
      tile.copy %A[%row, %col] to %a : memref<256x1024xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.parallel (%i, %j) in (64, 64) {
        %c = arith.addi %col, %j : index
        %x = memref.load %X[%i, %c] : memref<64x1024xf16>
        %y = arith.mulf %x, %s : f16
        memref.store %y, %w[%i, %j] : memref<64x64xf16, #tile.mem<shared>>
      }
      tile.gemm %a, %w, %acc {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %acc to %C[%row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<256x64xf32>
  }
  return
}

// -----

// Not rewritten whole each iteration: half the rows written (the other
// half keeps what an earlier iteration left), or the tile read after the
// loop. The tiles keep one buffer and the gemms wait for their own work
// (the copies are still staged).
// CHECK-LABEL: func.func @kept_operands
// CHECK-NOT: memref<2x64x64xf16
// CHECK: tile.pipelined {{.*}} num_stages = 4 {
// CHECK-NOT: wg_wait
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {instruction = #tile.gemm_instruction<wgmma m64n32k16>, transpose_b} :
// CHECK: tile.pipelined {{.*}} num_stages = 4 {
// CHECK-NOT: wg_wait
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {instruction = #tile.gemm_instruction<wgmma m64n32k16>, transpose_b} :
// CHECK: return
func.func @kept_operands(%A: memref<256x1024xf16>, %X: memref<64x1024xf16>, %C: memref<256x64xf32>, %D: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c4) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %w = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.clear %acc : memref<64x64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 4 {
      %col = arith.muli %k, %c64 : index
      tile.copy %A[%row, %col] to %a : memref<256x1024xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.parallel (%i, %j) in (32, 64) {
        %c = arith.addi %col, %j : index
        %x = memref.load %X[%i, %c] : memref<64x1024xf16>
        memref.store %x, %w[%i, %j] : memref<64x64xf16, #tile.mem<shared>>
      }
      tile.gemm %a, %w, %acc {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    %v = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %a2 = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 4 {
      %col = arith.muli %k, %c64 : index
      tile.copy %A[%row, %col] to %a2 : memref<256x1024xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.parallel (%i, %j) in (64, 64) {
        %c = arith.addi %col, %j : index
        %x = memref.load %X[%i, %c] : memref<64x1024xf16>
        memref.store %x, %v[%i, %j] : memref<64x64xf16, #tile.mem<shared>>
      }
      tile.gemm %a2, %v, %acc {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %v to %D : memref<64x64xf16, #tile.mem<shared>> to memref<64x64xf16>
    tile.copy %acc to %C[%row, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<256x64xf32>
  }
  return
}

// -----

// No room for a fourth stage beside the operand's second buffer (block_K
// 128, rows of 256 bytes in wgmma's blocked layout: 4 x 40 KB of staged
// tiles and 2 x 32 KB): the loop keeps three buffers and its gemm waits for
// its own work (overlapped on three buffers it measured no faster).
// BLOCKED-LABEL: func.func @no_room_for_a_fourth_stage
// BLOCKED-DAG: tile.alloc_shared {{.*}} : memref<3x128x128xf16, #tile.mem<shared>>
// BLOCKED-DAG: tile.alloc_shared : memref<128x128xf16, #tile.mem<shared>>
// BLOCKED-NOT: memref<2x128x128xf16
// BLOCKED: tile.pipelined {{.*}} num_stages = 3 {
// BLOCKED-NOT: wg_wait
// BLOCKED: tile.gemm {{.*}}transpose_b} :
func.func @no_room_for_a_fourth_stage(%A: memref<256x4096xf16>, %Q: memref<128x2048xi8>, %C: memref<256x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c15 = arith.constant 15 : i8
  tile.kernel grid(%c2) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<128x128xf16, #tile.mem<shared>>
    %q = tile.alloc_shared : memref<128x64xi8, #tile.mem<shared>>
    %w = tile.alloc_shared : memref<128x128xf16, #tile.mem<shared>>
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    tile.clear %acc : memref<128x128xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c32 step %c1 num_stages = 3 {
      %col = arith.muli %k, %c128 : index
      %qcol = arith.muli %k, %c64 : index
      tile.copy %A[%row, %col] to %a : memref<256x4096xf16> to memref<128x128xf16, #tile.mem<shared>>
      tile.copy %Q[%c0, %qcol] to %q : memref<128x2048xi8> to memref<128x64xi8, #tile.mem<shared>>
      tile.parallel (%i, %j) in (128, 128) {
        %h = arith.divui %j, %c2 : index
        %b = memref.load %q[%i, %h] : memref<128x64xi8, #tile.mem<shared>>
        %n = arith.andi %b, %c15 : i8
        %f = arith.uitofp %n : i8 to f16
        memref.store %f, %w[%i, %j] : memref<128x128xf16, #tile.mem<shared>>
      }
      tile.gemm %a, %w, %acc {transpose_b} : memref<128x128xf16, #tile.mem<shared>>, memref<128x128xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
    }
    tile.copy %acc to %C[%row, %c0] : memref<128x128xf32, #tile.mem<fragment>> to memref<256x128xf32>
  }
  return
}
