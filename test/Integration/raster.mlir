// RUN: tile-run %s --entry=row_panels --reference=@visits_ref --arg=7x5 --outputs=0 --no-poison --repeat=0 | FileCheck %s
// RUN: tile-run %s --entry=row_panels --reference=@visits_ref --arg=6x1 --outputs=0 --no-poison --repeat=0 | FileCheck %s
// RUN: tile-run %s --entry=column_panels --reference=@visits_ref --arg=5x7 --outputs=0 --no-poison --repeat=0 | FileCheck %s
// RUN: tile-run %s --entry=column_panels --reference=@visits_ref --arg=2x11 --outputs=0 --no-poison --repeat=0 | FileCheck %s
// RUN: tile-run %s --entry=row_panels_twice --reference=@visits_twice_ref --arg=7x5 --outputs=0 --no-poison --repeat=0 | FileCheck %s

// tile.use_swizzle reorders the blocks (the CPU lowering applies the same
// order as the GPU's): every block adds 1 to the element of `visits` at its
// (remapped) coordinates, so each element gains exactly 1 when the order is
// a permutation of the grid, with a last, shorter panel (7 rows of blocks in
// panels of 3; 11 columns in panels of 4), odd panels walked backwards, and
// a single column.

// CHECK: output #0 arg0
// CHECK-SAME: max abs err 0.00e+00
// CHECK: PASSED

func.func @row_panels(%visits: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %gy = memref.dim %visits, %c0 : memref<?x?xf32>
  %gx = memref.dim %visits, %c1 : memref<?x?xf32>
  tile.kernel grid(%gx, %gy) threads(32) -> (%bx, %by) {
    tile.use_swizzle panel(3)
    %one = arith.constant 1.0 : f32
    tile.atomic_add %one to %visits[%by, %bx] : f32 to memref<?x?xf32>
  }
  return
}

func.func @column_panels(%visits: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %gy = memref.dim %visits, %c0 : memref<?x?xf32>
  %gx = memref.dim %visits, %c1 : memref<?x?xf32>
  tile.kernel grid(%gx, %gy) threads(32) -> (%bx, %by) {
    tile.use_swizzle panel(4) {order = #tile.raster<column>}
    %one = arith.constant 1.0 : f32
    tile.atomic_add %one to %visits[%by, %bx] : f32 to memref<?x?xf32>
  }
  return
}

// The same kernel launched twice in a row: each element gains 2 (a
// persistent kernel's dynamic schedule starts afresh at each launch).
func.func @row_panels_twice(%visits: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %gy = memref.dim %visits, %c0 : memref<?x?xf32>
  %gx = memref.dim %visits, %c1 : memref<?x?xf32>
  scf.for %launch = %c0 to %c2 step %c1 {
    tile.kernel grid(%gx, %gy) threads(32) -> (%bx, %by) {
      tile.use_swizzle panel(3)
      %one = arith.constant 1.0 : f32
      tile.atomic_add %one to %visits[%by, %bx] : f32 to memref<?x?xf32>
    }
  }
  return
}

func.func @visits_twice_ref(%visits: memref<?x?xf32>) {
  call @visits_ref(%visits) : (memref<?x?xf32>) -> ()
  call @visits_ref(%visits) : (memref<?x?xf32>) -> ()
  return
}

func.func @visits_ref(%visits: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %gy = memref.dim %visits, %c0 : memref<?x?xf32>
  %gx = memref.dim %visits, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %gy step %c1 {
    scf.for %j = %c0 to %gx step %c1 {
      %v = memref.load %visits[%i, %j] : memref<?x?xf32>
      %w = arith.addf %v, %one : f32
      memref.store %w, %visits[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
