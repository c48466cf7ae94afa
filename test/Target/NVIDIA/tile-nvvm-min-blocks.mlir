// RUN: tile-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tile-nvvm-min-blocks{blocks=3}))' | FileCheck %s
// RUN: not tile-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tile-nvvm-min-blocks{blocks=0}))' 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not tile-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tile-nvvm-min-blocks{blocks=33}))' 2>&1 | FileCheck %s --check-prefix=MANY

// ZERO: error: tile-nvvm-min-blocks: blocks must be in [1, 32] (a multiprocessor runs at most 32 blocks), got 0
// MANY: error: tile-nvvm-min-blocks: blocks must be in [1, 32] (a multiprocessor runs at most 32 blocks), got 33

// The kernels of an NVVM module ask for registers that let 3 blocks share
// a multiprocessor; a kernel that chose its own bound keeps it, a device
// function (not a kernel) gets none.
// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @gemm() kernel attributes {nvvm.minctasm = 3 : i32}
// CHECK: gpu.func @chosen() kernel attributes {nvvm.minctasm = 1 : i32}
// CHECK: gpu.func @helper() {
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @gemm() kernel {
    gpu.return
  }
  gpu.func @chosen() kernel attributes {nvvm.minctasm = 1 : i32} {
    gpu.return
  }
  gpu.func @helper() {
    gpu.return
  }
}

// -----

// A warp-specialized kernel (its producer gives registers to the
// consumers with setmaxnreg) keeps one block per multiprocessor: a second
// block would hold the registers a consumer's setmaxnreg.inc waits for.
// CHECK-LABEL: gpu.module @specialized
// CHECK: gpu.func @producer_consumer() kernel {
gpu.module @specialized [#nvvm.target<chip = "sm_90a">] {
  gpu.func @producer_consumer() kernel {
    nvvm.setmaxregister increase 240
    gpu.return
  }
}

// -----

// Modules for other targets are left alone.
// CHECK-LABEL: gpu.module @amd
// CHECK: gpu.func @kernel() kernel {
gpu.module @amd [#rocdl.target<chip = "gfx942">] {
  gpu.func @kernel() kernel {
    gpu.return
  }
}
