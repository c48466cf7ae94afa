// A grid no launch can have is refused with a located error before
// gpu.launch exists (upstream's gpu.launch canonicalization crashes on the
// size of a dimension that does not exist), on every GPU target.
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory 2>&1 | FileCheck %s
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx942" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory 2>&1 | FileCheck %s
// (The pipelines stop earlier, at tile-verify-dims: tile-verify-dims.mlir.)

// CHECK: :[[@LINE+5]]:3: error: 'tile.kernel' op grid size #0 is the size of dimension -1 of 'memref<?x64xf32>', which has no such dimension
func.func @dim_minus_one(%X: memref<?x64xf32>) {
  %cm1 = arith.constant -1 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %X, %cm1 : memref<?x64xf32>
  tile.kernel grid(%m) threads(64) -> (%bx) {
  }
  return
}

// -----

// CHECK: :[[@LINE+5]]:3: error: 'tile.kernel' op grid size #1 is the size of dimension 2 of 'memref<?x64xf32>', which has no such dimension
func.func @dim_past_rank(%X: memref<?x64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = memref.dim %X, %c2 : memref<?x64xf32>
  tile.kernel grid(%c1, %m) threads(64) -> (%bx, %by) {
  }
  return
}

// -----

// CHECK: :[[@LINE+3]]:3: error: 'tile.kernel' op grid size #0 is negative (-4)
func.func @negative(%X: memref<?x64xf32>) {
  %cm4 = arith.constant -4 : index
  tile.kernel grid(%cm4) threads(64) -> (%bx) {
  }
  return
}
