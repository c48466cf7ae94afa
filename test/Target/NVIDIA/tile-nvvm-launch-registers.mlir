// RUN: tile-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tile-nvvm-launch-registers))' | FileCheck %s

// A warp-specialized kernel launches with no more registers than its
// consumers raise to (the smallest increase) where its block could launch
// with more (384 threads launch with 168 at most: left alone); one that
// chose a lower bound keeps
// it, a higher one is lowered; kernels of unknown block size, without
// setmaxnreg, device functions and the producer's decrease alone change
// nothing.
// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @one_consumer() kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.maxnreg = 240 : i32}
// CHECK: gpu.func @two_increases() kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.maxnreg = 232 : i32}
// CHECK: gpu.func @lower_given() kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.maxnreg = 128 : i32}
// CHECK: gpu.func @higher_given() kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.maxnreg = 240 : i32}
// CHECK: gpu.func @three_warpgroups() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
// CHECK: gpu.func @unknown_size() kernel {
// CHECK: gpu.func @plain() kernel {
// CHECK: gpu.func @decrease_only() kernel {
// CHECK: gpu.func @helper() {
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @one_consumer() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    nvvm.setmaxregister decrease 24
    nvvm.setmaxregister increase 240
    gpu.return
  }
  gpu.func @two_increases() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    nvvm.setmaxregister increase 240
    nvvm.setmaxregister increase 232
    gpu.return
  }
  gpu.func @lower_given() kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.maxnreg = 128 : i32} {
    nvvm.setmaxregister increase 240
    gpu.return
  }
  gpu.func @higher_given() kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.maxnreg = 255 : i32} {
    nvvm.setmaxregister increase 240
    gpu.return
  }
  gpu.func @three_warpgroups() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    nvvm.setmaxregister increase 240
    gpu.return
  }
  gpu.func @unknown_size() kernel {
    nvvm.setmaxregister increase 240
    gpu.return
  }
  gpu.func @plain() kernel {
    gpu.return
  }
  gpu.func @decrease_only() kernel {
    nvvm.setmaxregister decrease 24
    gpu.return
  }
  gpu.func @helper() {
    nvvm.setmaxregister increase 240
    gpu.return
  }
}

// -----

// Modules without an NVVM target are left alone.
// CHECK-LABEL: gpu.module @untargeted
// CHECK: gpu.func @k() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
gpu.module @untargeted {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    nvvm.setmaxregister increase 240
    gpu.return
  }
}
