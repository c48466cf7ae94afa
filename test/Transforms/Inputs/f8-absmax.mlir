// A row absmax over an f8E4M3FN fragment: math.absf on 8-bit floats, which
// no backend lowers.
func.func @k(%C: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<64x64xf8E4M3FN, #tile.mem<fragment>>
    %r = tile.alloc_fragment : memref<64xf8E4M3FN, #tile.mem<fragment>>
    %o = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    tile.reduce <absmax> %f to %r dim 1 : memref<64x64xf8E4M3FN, #tile.mem<fragment>> to memref<64xf8E4M3FN, #tile.mem<fragment>>
    tile.copy %r to %o : memref<64xf8E4M3FN, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
    tile.copy %o to %C[%c0] : memref<64xf32, #tile.mem<fragment>> to memref<?xf32>
  }
  return
}
