// RUN: tile-run %s --entry=tn --reference=@tn_ref --arg=100x300 --arg=90x300 --arg=100x90 --rtol=1e-3 --atol=1e-3 --repeat=0 | FileCheck %s
// RUN: tile-run %s --entry=nn --reference=@nn_ref --arg=100x70 --arg=70x300 --arg=100x300 --rtol=1e-3 --atol=1e-3 --repeat=0 | FileCheck %s
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa wgmma=false" | FileCheck %s --check-prefix=PTX
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions=wgmma-blocked --tile-plan-pipelines=overlap-gemms --tile-infer-layout=keep-conflicts-in-memory --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s --check-prefix=WGMMA
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa wgmma-blocked=true" | FileCheck %s --check-prefix=WGMMA-PTX

// Shared tiles with the blocked swizzle (#tile.swizzle<3, 3, 3, blocked =
// true>: rows of 128 f16 elements stored as two 8 x 64 blocks per group of
// 8 rows, each with the 128-byte XOR) behave like any tile: the CPU
// lowering stores and reads them through the same permutation (copies,
// pipelined stages, the gemm's operand reads), so the results match the
// naive loops; K-major operands (tn: A and B with 128-element rows) and a
// K x N B (nn: 128 columns), on shapes that are not multiples of the tiles.
// On sm_90a (mma.sync here) the ldmatrix and cp.async addressing goes
// through the same indices; the PTX has no local memory.

// With wgmma-blocked (experimental, not yet run on a GPU) both gemms run on
// wgmma: the descriptors of the 256-byte rows carry LBO 1024 bytes (the
// distance between the row's 128-byte pieces), SBO 8 rows = 2048 bytes and
// the 128-byte mode: 64 << 16 | 128 << 32 | 1 << 62; tn moves along K
// through both blocks (8 k steps), nn reads its K x N B transposed (trans-b)
// with N = 128 across two atoms.
// WGMMA-LABEL: func.func @tn
// WGMMA-DAG: arith.constant 4194304 : i32
// WGMMA-DAG: arith.constant 4611686568183201792 : i64
// WGMMA-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// WGMMA-LABEL: func.func @nn
// WGMMA-DAG: arith.constant 4194304 : i32
// WGMMA-DAG: arith.constant 4611686568183201792 : i64
// WGMMA-COUNT-2: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// WGMMA-PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// WGMMA-PTX-COUNT-2: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16

// CHECK: output #2 arg2
// CHECK-SAME: 0 of {{[0-9]+}} elements outside
// CHECK: PASSED
// PTX-NOT: .local
// PTX: ldmatrix.sync.aligned
// PTX: mma.sync.aligned.m16n8k16
// PTX-NOT: .local

func.func @tn(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %M = memref.dim %C, %c0 : memref<?x?xf32>
  %N = memref.dim %C, %c1 : memref<?x?xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %c64 : index
  %gy = arith.ceildivui %M, %c64 : index
  %kt = arith.ceildivui %K, %c128 : index
  tile.kernel grid(%gx, %gy) threads(128) -> (%bx, %by) {
    %a = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true>} : memref<64x128xf16, #tile.mem<shared>>
    %b = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true>} : memref<64x128xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %m = arith.muli %by, %c64 : index
    %n = arith.muli %bx, %c64 : index
    tile.clear %c : memref<64x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %kk = arith.muli %k, %c128 : index
      tile.copy %A[%m, %kk] to %a : memref<?x?xf16> to memref<64x128xf16, #tile.mem<shared>>
      tile.copy %B[%n, %kk] to %b : memref<?x?xf16> to memref<64x128xf16, #tile.mem<shared>>
      tile.gemm %a, %b, %c {transpose_b, policy = #tile.policy<full_row>} : memref<64x128xf16, #tile.mem<shared>>, memref<64x128xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %c to %C[%m, %n] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
  }
  return
}

func.func @nn(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %M = memref.dim %C, %c0 : memref<?x?xf32>
  %N = memref.dim %C, %c1 : memref<?x?xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %c128 : index
  %gy = arith.ceildivui %M, %c64 : index
  %kt = arith.ceildivui %K, %c32 : index
  tile.kernel grid(%gx, %gy) threads(128) -> (%bx, %by) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true>} : memref<32x128xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    %m = arith.muli %by, %c64 : index
    %n = arith.muli %bx, %c128 : index
    tile.clear %c : memref<64x128xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] to %a : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
      tile.copy %B[%kk, %n] to %b : memref<?x?xf16> to memref<32x128xf16, #tile.mem<shared>>
      tile.gemm %a, %b, %c {policy = #tile.policy<full_row>} : memref<64x32xf16, #tile.mem<shared>>, memref<32x128xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    }
    tile.copy %c to %C[%m, %n] : memref<64x128xf32, #tile.mem<fragment>> to memref<?x?xf32>
  }
  return
}

func.func @tn_ref(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %M = memref.dim %C, %c0 : memref<?x?xf32>
  %N = memref.dim %C, %c1 : memref<?x?xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  scf.for %i = %c0 to %M step %c1 {
    scf.for %j = %c0 to %N step %c1 {
      %sum = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%i, %k] : memref<?x?xf16>
        %b = memref.load %B[%j, %k] : memref<?x?xf16>
        %a32 = arith.extf %a : f16 to f32
        %b32 = arith.extf %b : f16 to f32
        %p = arith.mulf %a32, %b32 : f32
        %s = arith.addf %acc, %p : f32
        scf.yield %s : f32
      }
      memref.store %sum, %C[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

func.func @nn_ref(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %M = memref.dim %C, %c0 : memref<?x?xf32>
  %N = memref.dim %C, %c1 : memref<?x?xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  scf.for %i = %c0 to %M step %c1 {
    scf.for %j = %c0 to %N step %c1 {
      %sum = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%i, %k] : memref<?x?xf16>
        %b = memref.load %B[%k, %j] : memref<?x?xf16>
        %a32 = arith.extf %a : f16 to f32
        %b32 = arith.extf %b : f16 to f32
        %p = arith.mulf %a32, %b32 : f32
        %s = arith.addf %acc, %p : f32
        scf.yield %s : f32
      }
      memref.store %sum, %C[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
