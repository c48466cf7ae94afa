// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_80" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx942" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory 2>&1 | FileCheck %s --check-prefix=GFX942
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx942" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory=reuse-shared-memory=true 2>&1 | FileCheck %s --check-prefix=REUSE

// A kernel whose shared tiles need more shared memory than a block may use
// on the target is an error naming both sizes (it could not be launched):
// 227 KiB on sm_90a, 163 KiB on sm_80, 64 KiB of LDS on gfx942.
// The first kernel needs 192 KiB (three 64 KiB tiles): over sm_80 and
// gfx942, within sm_90a. The second needs 240 KiB: over all three.
// With reuse, the third kernel's two 40 KiB tiles (alive one after the
// other) share their bytes and fit gfx942; without, 80 KiB do not.
// SM90-NOT: error: {{.*}} 196608 bytes
// SM90: error: the kernel's shared tiles need 245760 bytes of shared memory, more than the 232448 bytes a block may use on sm_90a; use smaller tiles or fewer pipeline stages
// SM80: error: the kernel's shared tiles need 196608 bytes of shared memory, more than the 166912 bytes a block may use on sm_80
// SM80: error: the kernel's shared tiles need 245760 bytes
// GFX942: error: the kernel's shared tiles need 196608 bytes of shared memory, more than the 65536 bytes a block may use on gfx942
// GFX942: error: the kernel's shared tiles need 245760 bytes
// GFX942: error: the kernel's shared tiles need 81920 bytes of shared memory, more than the 65536 bytes a block may use on gfx942
// REUSE-LABEL: func.func @two_in_turn
// REUSE: dynamic_shared_memory_size %c40960_i32
func.func @three_tiles(%X: memref<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<128x128xf32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x128xf32, #tile.mem<shared>>
    %c = tile.alloc_shared : memref<128x128xf32, #tile.mem<shared>>
    tile.copy %X[%c0, %c0] to %a : memref<?x?xf32> to memref<128x128xf32, #tile.mem<shared>>
    tile.copy %a to %b : memref<128x128xf32, #tile.mem<shared>> to memref<128x128xf32, #tile.mem<shared>>
    tile.copy %b to %c : memref<128x128xf32, #tile.mem<shared>> to memref<128x128xf32, #tile.mem<shared>>
    tile.copy %c to %X[%c0, %c0] : memref<128x128xf32, #tile.mem<shared>> to memref<?x?xf32>
  }
  return
}

// -----

func.func @too_much(%X: memref<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<240x256xf32, #tile.mem<shared>>
    tile.copy %X[%c0, %c0] to %a : memref<?x?xf32> to memref<240x256xf32, #tile.mem<shared>>
    tile.copy %a to %X[%c0, %c0] : memref<240x256xf32, #tile.mem<shared>> to memref<?x?xf32>
  }
  return
}

// -----

func.func @two_in_turn(%X: memref<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<40x256xf32, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<40x256xf32, #tile.mem<shared>>
    tile.copy %X[%c0, %c0] to %a : memref<?x?xf32> to memref<40x256xf32, #tile.mem<shared>>
    tile.copy %a to %X[%c0, %c0] : memref<40x256xf32, #tile.mem<shared>> to memref<?x?xf32>
    tile.copy %X[%c1, %c0] to %b : memref<?x?xf32> to memref<40x256xf32, #tile.mem<shared>>
    tile.copy %b to %X[%c1, %c0] : memref<40x256xf32, #tile.mem<shared>> to memref<?x?xf32>
  }
  return
}
