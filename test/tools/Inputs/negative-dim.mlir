// A dimension query out of range (tile-run-sizes.test): an error located
// here, from the JIT's specialization, never a crash of a folder.
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
