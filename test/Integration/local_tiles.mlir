// RUN: tile-run %s --entry=sum_squares --reference=@sum_squares_ref --arg=100x64 --arg=100 --arg=1 --outputs=1,2 --no-poison --repeat=0 | FileCheck %s
// RUN: tile-run %s --entry=sum_squares --reference=@sum_squares_ref --arg=16x64 --arg=16 --arg=1 --outputs=1,2 --no-poison --repeat=0 | FileCheck %s
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=NVIDIA
// RUN: %if rocm-device-libs %{ tile-opt %s --tile-to-rocdl="chip=gfx942 format=isa rocm-path=%rocm_path" | FileCheck %s --check-prefix=AMD %}

// Per-thread local tiles and layout/scheduling hints, on every backend:
// rows[i] = sum_j X[i, j]^2 through a fragment with an annotated layout and
// a swizzled shared tile; each thread also sums the block's rows in its own
// local tile, and the block adds that into total[0] (element-form atomic).
// Outputs start from random values (--no-poison): total accumulates.

// CHECK: output #1 arg1
// CHECK-SAME: 0 of {{[0-9]+}} elements outside
// CHECK: output #2 arg2 [1]
// CHECK-SAME: 0 of 1 elements outside
// CHECK: PASSED
// NVIDIA: gpu.binary @sum_squares_kernel
// NVIDIA-SAME: atom.global.add.f32
// AMD: gpu.binary @sum_squares_kernel
// (f32 atomics are compare-and-swap loops on gfx942 without unsafe-fp-atomics)
// AMD-SAME: global_atomic_cmpswap

func.func @sum_squares(%X: memref<?x64xf32>, %rows: memref<?xf32>, %total: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %m = memref.dim %X, %c0 : memref<?x64xf32>
  %gy = arith.ceildivui %m, %c16 : index
  tile.kernel grid(%c1, %gy) threads(64) -> (%bx, %by) {
    tile.use_swizzle panel(2)
    %zero = arith.constant 0.0 : f32
    %t = tile.alloc_fragment : memref<16x64xf32, #tile.mem<fragment>>
    %s = tile.alloc_shared : memref<16x64xf32, #tile.mem<shared>>
    %r = tile.alloc_fragment : memref<16xf32, #tile.mem<fragment>>
    %acc = tile.alloc_local : memref<1xf32, #tile.mem<local>>
    tile.annotate_layout %t : memref<16x64xf32, #tile.mem<fragment>> layout #tile.fragment<[16, 64], thread = (i, j) -> (j), index = (i, j) -> (i), threads = 64>
    tile.annotate_layout %s : memref<16x64xf32, #tile.mem<shared>> layout #tile.swizzle<2, 2, 3>
    %row = arith.muli %by, %c16 : index
    tile.copy %X[%row, %c0] to %t : memref<?x64xf32> to memref<16x64xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (16, 64) {
      %v = memref.load %t[%i, %j] : memref<16x64xf32, #tile.mem<fragment>>
      %sq = arith.mulf %v, %v : f32
      memref.store %sq, %t[%i, %j] : memref<16x64xf32, #tile.mem<fragment>>
    }
    tile.copy %t to %s : memref<16x64xf32, #tile.mem<fragment>> to memref<16x64xf32, #tile.mem<shared>>
    tile.reduce <sum> %s to %r dim 1 : memref<16x64xf32, #tile.mem<shared>> to memref<16xf32, #tile.mem<fragment>>
    tile.copy %r to %rows[%row] : memref<16xf32, #tile.mem<fragment>> to memref<?xf32>
    // Each thread sums the block's in-bounds rows in its local tile.
    tile.fill %acc, %zero : memref<1xf32, #tile.mem<local>>
    %left = arith.subi %m, %row : index
    %n = arith.minui %left, %c16 : index
    scf.for %i = %c0 to %n step %c1 {
      %a = memref.load %acc[%c0] : memref<1xf32, #tile.mem<local>>
      %v = memref.load %r[%i] : memref<16xf32, #tile.mem<fragment>>
      %b = arith.addf %a, %v : f32
      memref.store %b, %acc[%c0] : memref<1xf32, #tile.mem<local>>
    }
    %sum = memref.load %acc[%c0] : memref<1xf32, #tile.mem<local>>
    tile.atomic_add %sum to %total[%c0] : f32 to memref<1xf32>
  }
  return
}

func.func @sum_squares_ref(%X: memref<?x64xf32>, %rows: memref<?xf32>, %total: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %X, %c0 : memref<?x64xf32>
  %all = scf.for %i = %c0 to %m step %c1 iter_args(%t = %zero) -> (f32) {
    %s = scf.for %j = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %X[%i, %j] : memref<?x64xf32>
      %sq = arith.mulf %v, %v : f32
      %a = arith.addf %acc, %sq : f32
      scf.yield %a : f32
    }
    memref.store %s, %rows[%i] : memref<?xf32>
    %t2 = arith.addf %t, %s : f32
    scf.yield %t2 : f32
  }
  %old = memref.load %total[%c0] : memref<1xf32>
  %new = arith.addf %old, %all : f32
  memref.store %new, %total[%c0] : memref<1xf32>
  return
}
