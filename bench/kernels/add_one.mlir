// The smallest useful kernel, for the host launch overhead (the `launch`
// experiment of bench/experiments.py): one block of 128 threads adds 1 to
// each of 128 floats in place, as torch's `x.add_(1)` on a 128-element
// tensor.
module {
  func.func @add_one(%X: memref<128xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    tile.kernel grid(%c1) threads(128) -> (%bx) {
      %one = arith.constant 1.0 : f32
      %x = tile.alloc_fragment : memref<128xf32, #tile.mem<fragment>>
      tile.copy %X[%c0] to %x : memref<128xf32> to memref<128xf32, #tile.mem<fragment>>
      tile.parallel (%i) in (128) {
        %v = memref.load %x[%i] : memref<128xf32, #tile.mem<fragment>>
        %w = arith.addf %v, %one : f32
        memref.store %w, %x[%i] : memref<128xf32, #tile.mem<fragment>>
      }
      tile.copy %x to %X[%c0] : memref<128xf32, #tile.mem<fragment>> to memref<128xf32>
    }
    return
  }
}
