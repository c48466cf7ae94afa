// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu | FileCheck %s

// TileLang's T.pdl_sync / T.pdl_trigger: griddepcontrol on sm_90, nothing
// on older chips (kernels launched in stream order wait for nothing).

module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
// CHECK-LABEL: func.func @hopper
// CHECK: gpu.launch
// CHECK: nvvm.griddepcontrol wait
// CHECK: memref.store
// CHECK: nvvm.griddepcontrol launch_dependents
func.func @hopper(%out: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    tile.grid_wait
    %tx = tile.thread_id 0
    memref.store %one, %out[%tx] : memref<128xf32>
    tile.grid_launch_dependents
  }
  return
}
}

// -----

module attributes {tile.target = #tile.target<cuda, "sm_80", "+ptx80">} {
// CHECK-LABEL: func.func @ampere
// CHECK-NOT: griddepcontrol
// CHECK-NOT: tile.grid
// CHECK: return
func.func @ampere(%out: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    tile.grid_wait
    %tx = tile.thread_id 0
    memref.store %one, %out[%tx] : memref<128xf32>
    tile.grid_launch_dependents
  }
  return
}
}
