// RUN: tile-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tile-rocdl-extern-dynamic-shared))' | FileCheck %s
// The whole ROCDL pipeline: the LDS symbol of the column scan is external.
// RUN: tile-opt %S/../NVIDIA/Inputs/column-scan.mlir --tile-to-rocdl="chip=gfx942 format=isa" --mlir-print-ir-after=tile-rocdl-extern-dynamic-shared 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32{{.*}}} : !llvm.array<0 x i8>

// The dynamic shared memory (LDS) symbol of a ROCDL module: an external
// declaration of unknown size (HIP's extern __shared__); sized globals and
// other address spaces stay.
// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @sized() {addr_space = 3 : i32} : !llvm.array<4 x i8>
// CHECK: llvm.mlir.global internal @global_space() {addr_space = 1 : i32} : !llvm.array<0 x i8>
gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @sized() {addr_space = 3 : i32} : !llvm.array<4 x i8>
  llvm.mlir.global internal @global_space() {addr_space = 1 : i32} : !llvm.array<0 x i8>
}

// -----

// Modules without a ROCDL target are left alone.
// CHECK-LABEL: gpu.module @other
// CHECK: llvm.mlir.global internal @__dynamic_shmem__0()
gpu.module @other [#nvvm.target<chip = "sm_90a">] {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
}
