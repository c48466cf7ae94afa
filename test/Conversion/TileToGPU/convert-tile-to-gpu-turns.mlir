// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory -verify-diagnostics

// On NVIDIA the turns of tile.take_turns wait on named barriers: a gemm in
// them that needs block barriers (SIMT: f32 operands) would deadlock the
// block, and is an error instead.
func.func @simt_turns(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<64x16xf32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x64xf32, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    scf.for %i = %c0 to %n step %c1 {
      // expected-note @+1 {{the turns}}
      tile.take_turns {
        // expected-error @+1 {{runs on SIMT, whose block barriers warpgroups taking turns never reach together (tile.take_turns)}}
        tile.gemm %a, %b, %c : memref<64x16xf32, #tile.mem<shared>>, memref<16x64xf32, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      }
    }
  }
  return
}
