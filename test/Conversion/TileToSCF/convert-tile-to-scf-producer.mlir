// RUN: tile-opt %s --split-input-file --allow-unregistered-dialect --convert-tile-to-scf -verify-diagnostics

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

// -----

// Consumers that receive their next tile from a producer: nothing hands it
// over sequentially.
func.func @receive(%counters: memref<2xi32>, %n: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %slot = tile.alloc_shared : memref<1xi32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    // expected-error @+1 {{hands the tile index over between a producer and the consumers: lowered for NVIDIA sm_90 only}}
    %t = tile.next_tile %counters[%n] via %slot barriers(%b, %b) count(%n) {receive} : memref<2xi32>, memref<1xi32, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>, memref<1xi64, #tile.mem<shared>>
    "test.use"(%t) : (index) -> ()
  }
  return
}
