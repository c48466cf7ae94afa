// RUN: tile-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tile-nvvm-ftz))' | FileCheck %s

// An NVVM module gets the flag libdevice's __nvvm_reflect("__CUDA_FTZ")
// reads.
// CHECK-LABEL: gpu.module @plain
// CHECK-NEXT: llvm.module_flags [#llvm.mlir.module_flag<override, "nvvm-reflect-ftz", 1 : i32>]
gpu.module @plain [#nvvm.target<chip = "sm_90a">] {
  llvm.func @kernel() attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

// Next to the flags a module has; a module that sets it keeps its value.
// CHECK-LABEL: gpu.module @other_flags
// CHECK-NEXT: llvm.module_flags [#llvm.mlir.module_flag<max, "PIC Level", 2 : i32>, #llvm.mlir.module_flag<override, "nvvm-reflect-ftz", 1 : i32>]
// CHECK-NOT: llvm.module_flags
// CHECK-LABEL: gpu.module @chosen
// CHECK-NEXT: llvm.module_flags [#llvm.mlir.module_flag<override, "nvvm-reflect-ftz", 0 : i32>]
// CHECK-NOT: llvm.module_flags
gpu.module @other_flags [#nvvm.target<chip = "sm_90a">] {
  llvm.module_flags [#llvm.mlir.module_flag<max, "PIC Level", 2 : i32>]
}
gpu.module @chosen [#nvvm.target<chip = "sm_80">] {
  llvm.module_flags [#llvm.mlir.module_flag<override, "nvvm-reflect-ftz", 0 : i32>]
}

// -----

// Modules for other targets, or none yet, are left alone.
// CHECK-LABEL: gpu.module @amd
// CHECK-NOT: llvm.module_flags
// CHECK-LABEL: gpu.module @untargeted
// CHECK-NOT: llvm.module_flags
gpu.module @amd [#rocdl.target<chip = "gfx942">] {
}
gpu.module @untargeted {
}
