// RUN: not tile-opt %s --split-input-file --tile-verify-dims 2>&1 | FileCheck %s
// Every pipeline runs it first (upstream folders crashed on these: a
// fuzzer finding on tile-to-nvvm, and the grid of the reliability suite).
// RUN: not tile-opt %s --split-input-file --tile-to-cpu 2>&1 | FileCheck %s
// RUN: not tile-opt %s --split-input-file --tile-to-nvvm="chip=sm_80 format=isa" 2>&1 | FileCheck %s
// RUN: not tile-opt %s --split-input-file --tile-to-rocdl="chip=gfx942 format=isa" 2>&1 | FileCheck %s

// CHECK: tile-verify-dims.mlir:[[@LINE+4]]:8: error: 'memref.dim' op asks for dimension -1 of 'memref<3x?xf16>', which has 2 dimensions
func.func @negative(%A: memref<3x?xf16>, %B: memref<3x?xf16>) {
  %cm1 = arith.constant -1 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %A, %cm1 : memref<3x?xf16>
  tile.kernel grid(%c1) threads(32) -> (%bx) {
    %f = tile.alloc_fragment : memref<1x4xf16, #tile.mem<fragment>>
    tile.copy %A[%m, %bx] to %f : memref<3x?xf16> to memref<1x4xf16, #tile.mem<fragment>>
    tile.copy %f to %B[%bx, %bx] : memref<1x4xf16, #tile.mem<fragment>> to memref<3x?xf16>
  }
  return
}

// -----

// CHECK: tile-verify-dims.mlir:[[@LINE+3]]:8: error: 'memref.dim' op asks for dimension 1 of 'memref<?xf32>', which has 1 dimension
func.func @past_rank(%A: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %n = memref.dim %A, %c1 : memref<?xf32>
  tile.kernel grid(%n) threads(32) -> (%bx) {
  }
  return
}

// -----

// Dimensions that exist, and indices known only at run time, pass.
// CHECK-NOT: error
func.func @fine(%A: memref<?x?xf32>, %i: index) -> (index, index) {
  %c1 = arith.constant 1 : index
  %n = memref.dim %A, %c1 : memref<?x?xf32>
  %m = memref.dim %A, %i : memref<?x?xf32>
  return %n, %m : index, index
}

// -----

// A type whose static extents hold 2^70 bytes (strides and sizes would
// wrap); the dynamic extent does not count.
// CHECK: tile-verify-dims.mlir:[[@LINE+1]]:1: error: 'func.func' op argument 0 has type 'memref<?x4611686018427387904x64xf32>', whose static extents hold more bytes than fit in 64 bits
func.func @huge(%A: memref<?x4611686018427387904x64xf32>, %B: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<32x64xf32, #tile.mem<shared>>
    tile.copy %A[%c0, %bx, %c0] to %s : memref<?x4611686018427387904x64xf32> to memref<32x64xf32, #tile.mem<shared>>
    tile.copy %s to %B[%c0, %c0] : memref<32x64xf32, #tile.mem<shared>> to memref<?x64xf32>
  }
  return
}

// -----

// CHECK: tile-verify-dims.mlir:[[@LINE+3]]:8: error: 'memref.cast' op result type 'memref<1152921504606846976x8xi16>' holds more bytes than fit in 64 bits
func.func @huge_result(%A: memref<?x8xi16>) {
  %c1 = arith.constant 1 : index
  %v = memref.cast %A : memref<?x8xi16> to memref<1152921504606846976x8xi16>
  return
}

// -----

// An element access past a static extent on every path: a tile.parallel
// coordinate over 128 used as the index of a 2-element fragment (the CPU
// lowering wrote past it). Under an scf.if that may guard it, or within
// the extent, it is not reported.
// CHECK: tile-verify-dims.mlir:[[@LINE+11]]:12: error: 'memref.load' op index along dimension 0 of 'memref<2xf32, #tile.mem<fragment>>' is a tile.parallel coordinate over [0, 128), past the dimension's 2 elements
// CHECK: tile-verify-dims.mlir:[[@LINE+9]]:5: note: the tile.parallel
// CHECK-NOT: error:
func.func @past_extent(%X: memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %x = tile.alloc_fragment : memref<2xf32, #tile.mem<fragment>>
    tile.copy %X[%c0] to %x : memref<128xf32> to memref<2xf32, #tile.mem<fragment>>
    tile.parallel (%i) in (128) {
      %v = memref.load %x[%i] : memref<2xf32, #tile.mem<fragment>>
      %inside = arith.cmpi ult, %i, %c2 : index
      scf.if %inside {
        memref.store %v, %x[%i] : memref<2xf32, #tile.mem<fragment>>
      }
    }
    tile.parallel (%j) in (2) {
      %w = memref.load %x[%j] : memref<2xf32, #tile.mem<fragment>>
      memref.store %w, %x[%j] : memref<2xf32, #tile.mem<fragment>>
    }
    tile.copy %x to %X[%c0] : memref<2xf32, #tile.mem<fragment>> to memref<128xf32>
  }
  return
}

// -----

// A constant index past a static extent, not under a condition.
// CHECK: tile-verify-dims.mlir:[[@LINE+8]]:3: error: 'memref.store' op index 5 along dimension 0 of 'memref<4xf32>' is outside [0, 4)
// CHECK-NOT: error:
func.func @constant_past_extent(%A: memref<4xf32>, %flag: i1) {
  %c5 = arith.constant 5 : index
  %one = arith.constant 1.0 : f32
  scf.if %flag {
    memref.store %one, %A[%c5] : memref<4xf32>
  }
  memref.store %one, %A[%c5] : memref<4xf32>
  return
}
