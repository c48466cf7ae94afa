// A 64x64x64 gemm of f8E4M3FN by f8E5M2 into f32.
func.func @k(%C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %fa = tile.alloc_shared : memref<64x64xf8E4M3FN, #tile.mem<shared>>
    %fb = tile.alloc_shared : memref<64x64xf8E5M2, #tile.mem<shared>>
    %fc = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.clear %fc : memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %fa, %fb, %fc : memref<64x64xf8E4M3FN, #tile.mem<shared>>, memref<64x64xf8E5M2, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.copy %fc to %C[%c0, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf32>
  }
  return
}
