// Inputs of tile-run.test: a kernel (@scale2: y = 2x over 16-element tiles),
// a wrong kernel that forgets the last partial tile (@scale2_floor), and
// references.
func.func @scale2(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %g = arith.ceildivui %n, %c16 : index
  tile.kernel grid(%g) threads(32) -> (%bx) {
    %t = tile.alloc_fragment : memref<16xf32, #tile.mem<fragment>>
    %o = arith.muli %bx, %c16 : index
    tile.copy %x[%o] to %t : memref<?xf32> to memref<16xf32, #tile.mem<fragment>>
    tile.parallel (%i) in (16) {
      %v = memref.load %t[%i] : memref<16xf32, #tile.mem<fragment>>
      %w = arith.addf %v, %v : f32
      memref.store %w, %t[%i] : memref<16xf32, #tile.mem<fragment>>
    }
    tile.copy %t to %y[%o] : memref<16xf32, #tile.mem<fragment>> to memref<?xf32>
  }
  return
}

func.func @scale2_floor(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %g = arith.divui %n, %c16 : index
  tile.kernel grid(%g) threads(32) -> (%bx) {
    %t = tile.alloc_fragment : memref<16xf32, #tile.mem<fragment>>
    %o = arith.muli %bx, %c16 : index
    tile.copy %x[%o] to %t : memref<?xf32> to memref<16xf32, #tile.mem<fragment>>
    tile.parallel (%i) in (16) {
      %v = memref.load %t[%i] : memref<16xf32, #tile.mem<fragment>>
      %w = arith.addf %v, %v : f32
      memref.store %w, %t[%i] : memref<16xf32, #tile.mem<fragment>>
    }
    tile.copy %t to %y[%o] : memref<16xf32, #tile.mem<fragment>> to memref<?xf32>
  }
  return
}

func.func @scale2_ref(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %y[%i] : memref<?xf32>
  }
  return
}

func.func @scale3_ref(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %three = arith.constant 3.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %w = arith.mulf %v, %three : f32
    memref.store %w, %y[%i] : memref<?xf32>
  }
  return
}
