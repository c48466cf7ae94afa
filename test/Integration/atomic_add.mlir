// RUN: tile-run %s --entry=column_sums --reference=@column_sums_ref --arg=100x150 --arg=150 --arg=1 --outputs=1,2 --no-poison --repeat=0 | FileCheck %s
// RUN: tile-run %s --entry=column_sums --reference=@column_sums_ref --arg=32x64 --arg=64 --arg=1 --outputs=1,2 --no-poison --repeat=0 | FileCheck %s
// RUN: tile-run %s --entry=column_sums --reference=@column_sums_ref --arg=7x3 --arg=3 --arg=1 --outputs=1,2 --no-poison --repeat=0 | FileCheck %s

// atomic_add in both forms: every block adds the column sums of its 32x64
// tile into out (tile form, out-of-bounds additions dropped) and 1 into
// blocks[0] (element form). Outputs start from random values (--no-poison):
// the kernel accumulates into them.

// CHECK: output #1 arg1
// CHECK-SAME: 0 of {{[0-9]+}} elements outside
// CHECK: output #2 arg2 [1]: max abs err 0.00e+00
// CHECK-SAME: 0 of 1 elements outside
// CHECK: PASSED

func.func @column_sums(%X: memref<?x?xf32>, %out: memref<?xf32>, %blocks: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %n, %c64 : index
  %gy = arith.ceildivui %m, %c32 : index
  tile.kernel grid(%gx, %gy) threads(128) -> (%bx, %by) {
    %one = arith.constant 1 : i32
    %t = tile.alloc_fragment : memref<32x64xf32, #tile.mem<fragment>>
    %s = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %row = arith.muli %by, %c32 : index
    %col = arith.muli %bx, %c64 : index
    tile.copy %X[%row, %col] to %t : memref<?x?xf32> to memref<32x64xf32, #tile.mem<fragment>>
    tile.reduce <sum> %t to %s dim 0 : memref<32x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
    tile.atomic_add %s to %out[%col] : memref<64xf32, #tile.mem<fragment>> to memref<?xf32>
    tile.atomic_add %one to %blocks[%c0] : i32 to memref<1xi32>
  }
  return
}

func.func @column_sums_ref(%X: memref<?x?xf32>, %out: memref<?xf32>, %blocks: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  scf.for %j = %c0 to %n step %c1 {
    %init = memref.load %out[%j] : memref<?xf32>
    %sum = scf.for %i = %c0 to %m step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %X[%i, %j] : memref<?x?xf32>
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    memref.store %sum, %out[%j] : memref<?xf32>
  }
  %gx = arith.ceildivui %n, %c64 : index
  %gy = arith.ceildivui %m, %c32 : index
  %count = arith.muli %gx, %gy : index
  %count_i32 = arith.index_cast %count : index to i32
  %old = memref.load %blocks[%c0] : memref<1xi32>
  %new = arith.addi %old, %count_i32 : i32
  memref.store %new, %blocks[%c0] : memref<1xi32>
  return
}
