// RUN: tile-opt %s --convert-tile-to-scf -verify-diagnostics

// The CPU runs each block as one thread: a thread index has no meaning.
func.func @thread_id(%out: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    // expected-error @+1 {{'tile.thread_id' op reads the thread index (T.get_thread_binding): the CPU target runs each block as one thread; compile for a GPU target}}
    %tx = tile.thread_id 0
    memref.store %one, %out[%tx] : memref<128xf32>
  }
  return
}
