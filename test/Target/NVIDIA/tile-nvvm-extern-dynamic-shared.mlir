// RUN: tile-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tile-nvvm-extern-dynamic-shared))' | FileCheck %s
// The scan whose loads LLVM forwarded past its stores (a zero-byte internal
// global) reads the running sum after the pass:
// RUN: tile-opt %S/Inputs/column-scan.mlir --tile-to-nvvm="chip=sm_90a format=isa" | %python %S/../../Pipelines/Inputs/ptx_of.py 0 | FileCheck %s --check-prefix=PTX
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX: ld.shared.b32 %[[A:r[0-9]+]], [%[[BASE:rd[0-9]+]]+-224];
// PTX-NEXT: ld.shared.b32 %[[B:r[0-9]+]], [%[[BASE]]+-192];
// PTX-NEXT: add.f32 %[[SUM:r[0-9]+]], %[[A]], %[[B]];
// PTX-NEXT: st.shared.b32 [%[[BASE]]+-192], %[[SUM]];
// PTX-NEXT: ld.shared.b32 %[[C:r[0-9]+]], [%[[BASE]]+-160];
// PTX-NEXT: add.f32 %{{r[0-9]+}}, %[[SUM]], %[[C]];

// The dynamic shared memory symbol of an NVVM module: an external
// declaration of unknown size (CUDA's extern __shared__).
// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @sized() {addr_space = 3 : i32} : !llvm.array<4 x i8>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @sized() {addr_space = 3 : i32} : !llvm.array<4 x i8>
}

// -----

// Modules without an NVVM target are left alone.
// CHECK-LABEL: gpu.module @other
// CHECK: llvm.mlir.global internal @__dynamic_shmem__0()
gpu.module @other {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
}
