// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions="wgmma=true" --tile-infer-layout --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory -verify-diagnostics

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

// -----

// A turn whose gemm reads a shared tile the loop writes synchronously needs
// a block barrier before it (the writes of every thread), which warpgroups
// taking turns never reach together.
func.func @written_operand(%n: index, %X: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.copy %X[%c0, %c0] to %b : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    scf.for %i = %c0 to %n step %c1 {
      tile.copy %X[%c0, %c0] to %a : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      // (The conversion then fails at the turn.)
      // expected-error @+1 {{failed to legalize operation 'tile.take_turns'}}
      tile.take_turns {
        // expected-error @+1 {{needs a block barrier, which warpgroups taking turns never reach together (tile.take_turns)}}
        tile.gemm %a, %b, %c {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      }
    }
  }
  return
}
