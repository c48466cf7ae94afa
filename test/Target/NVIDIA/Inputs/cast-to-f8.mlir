// An f32 tile converted to f8E4M3FN by a fragment copy and stored: the
// conversion of TileLang's per-token FP8 cast.
func.func @cast(%A: memref<256xf32>, %B: memref<256xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<256xf32, #tile.mem<fragment>>
    %e = tile.alloc_fragment : memref<256xf8E4M3FN, #tile.mem<fragment>>
    tile.copy %A[%c0] to %f : memref<256xf32> to memref<256xf32, #tile.mem<fragment>>
    tile.copy %f to %e : memref<256xf32, #tile.mem<fragment>> to memref<256xf8E4M3FN, #tile.mem<fragment>>
    tile.copy %e to %B[%c0] : memref<256xf8E4M3FN, #tile.mem<fragment>> to memref<256xf8E4M3FN>
  }
  return
}
