func.func @f(%A: memref<?xf32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %f = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
    tile.copy %A[%bx] %f : memref<?xf32> to memref<32xf32, #tile.mem<fragment>>
  }
  return
}
