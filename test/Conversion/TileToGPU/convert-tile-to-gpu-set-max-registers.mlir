// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu | FileCheck %s

// TileLang's T.set_max_nreg in a kernel split by hand into warpgroups:
// setmaxnreg on sm_90a, in the branch that ran it; nothing on older chips
// and on the CPU (registers are the compiler's there).

module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
// CHECK-LABEL: func.func @hopper
// CHECK: gpu.launch
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister increase 240
// CHECK: } {tile.thread_range = array<i64: 0, 128>}
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK-NEXT: } {tile.thread_range = array<i64: 128, 128>}
// CHECK-NOT: tile.set_max_registers
func.func @hopper(%out: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %tx = tile.thread_id 0
    %consumer = arith.cmpi ult, %tx, %c128 : index
    scf.if %consumer {
      tile.set_max_registers increase 240
      memref.store %one, %out[%tx] : memref<256xf32>
    } else {
      tile.set_max_registers decrease 40
    }
  }
  return
}
}

// -----

module attributes {tile.target = #tile.target<cuda, "sm_80", "+ptx80">} {
// CHECK-LABEL: func.func @ampere
// CHECK-NOT: setmaxregister
// CHECK-NOT: tile.set_max_registers
// CHECK: return
func.func @ampere(%out: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    tile.set_max_registers increase 240
    %tx = tile.thread_id 0
    memref.store %one, %out[%tx] : memref<256xf32>
  }
  return
}
}
