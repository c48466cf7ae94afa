// RUN: tile-opt %s --convert-tile-to-scf -verify-diagnostics

// A producer warpgroup runs beside the kernel's threads: the sequential
// lowering (CPU) refuses it with a located diagnostic.
func.func @producer(%n: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    // expected-error @+1 {{runs concurrently with the kernel's threads: lowered for NVIDIA sm_90 only, not sequentially}}
    tile.producer {
    }
  }
  return
}
