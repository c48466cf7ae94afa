// RUN: tile-run %s --entry=scale_rows --reference=@scale_rows_ref --arg=200x64 --arg=200x64 --repeat=0 | FileCheck %s
// RUN: tile-run %s --entry=scale_rows --reference=@scale_rows_ref --arg=33x64 --arg=33x64 --repeat=0 | FileCheck %s
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=NVIDIA

// A kernel launched in thread block clusters of 2 (and of 16, non-portable,
// which needs the driver's opt-in): Y = 2 X, 16 rows per block, the grid
// rounded up to whole clusters so that some blocks have no rows at all.

// CHECK: output #1 arg1
// CHECK-SAME: 0 of {{[0-9]+}} elements outside
// CHECK: PASSED
// NVIDIA: gpu.launch_func @scale_rows_kernel::@scale_rows_kernel clusters in
// NVIDIA: gpu.launch_func @scale_rows_kernel_0::@scale_rows_kernel clusters in

func.func @scale_rows(%X: memref<?x64xf32>, %Y: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %m = memref.dim %X, %c0 : memref<?x64xf32>
  // Pairs of 16-row blocks: ceil(m / 32) * 2 blocks.
  %pairs = arith.ceildivui %m, %c32 : index
  %c2 = arith.constant 2 : index
  %gx = arith.muli %pairs, %c2 : index
  tile.kernel grid(%gx) threads(64) cluster(2) -> (%bx) {
    %t = tile.alloc_fragment : memref<16x64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c16 : index
    tile.copy %X[%row, %c0] to %t : memref<?x64xf32> to memref<16x64xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (16, 64) {
      %v = memref.load %t[%i, %j] : memref<16x64xf32, #tile.mem<fragment>>
      %d = arith.addf %v, %v : f32
      memref.store %d, %t[%i, %j] : memref<16x64xf32, #tile.mem<fragment>>
    }
    tile.copy %t to %Y[%row, %c0] : memref<16x64xf32, #tile.mem<fragment>> to memref<?x64xf32>
  }
  // Again over the first 256 rows at most, in clusters of 16 blocks: a
  // second writer of the same values, so the result is the same.
  %m16 = arith.minui %m, %c256 : index
  %g16 = arith.ceildivui %m16, %c256 : index
  %c16b = arith.muli %g16, %c16 : index
  tile.kernel grid(%c16b) threads(64) cluster(16) -> (%bx) {
    %t = tile.alloc_fragment : memref<16x64xf32, #tile.mem<fragment>>
    %row = arith.muli %bx, %c16 : index
    tile.copy %X[%row, %c0] to %t : memref<?x64xf32> to memref<16x64xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (16, 64) {
      %v = memref.load %t[%i, %j] : memref<16x64xf32, #tile.mem<fragment>>
      %d = arith.addf %v, %v : f32
      memref.store %d, %t[%i, %j] : memref<16x64xf32, #tile.mem<fragment>>
    }
    tile.copy %t to %Y[%row, %c0] : memref<16x64xf32, #tile.mem<fragment>> to memref<?x64xf32>
  }
  return
}

func.func @scale_rows_ref(%X: memref<?x64xf32>, %Y: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %m = memref.dim %X, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %m step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %X[%i, %j] : memref<?x64xf32>
      %d = arith.addf %v, %v : f32
      memref.store %d, %Y[%i, %j] : memref<?x64xf32>
    }
  }
  return
}
