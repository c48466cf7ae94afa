// RUN: tile-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tile-rocdl-sched-strategy))' | FileCheck %s
// RUN: tile-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tile-rocdl-sched-strategy{strategy=max-ilp matrix-kernels-only}))' | FileCheck %s --check-prefix=MATRIX
// RUN: not tile-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tile-rocdl-sched-strategy{strategy=fastest}))' 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// Every ROCDL kernel gets the scheduler as an LLVM function attribute
// (passthrough), next to the attributes it had; a kernel that names one
// keeps it; functions that are not kernels are left alone. With
// matrix-kernels-only, only the kernel with a WMMA gets it.
// CHECK-LABEL: llvm.func @plain
// CHECK-SAME: passthrough = {{\[\["amdgpu-sched-strategy", "iterative-minreg"\]\]}}
// CHECK-LABEL: llvm.func @matrix
// CHECK-SAME: passthrough = {{\["nounwind", \["amdgpu-sched-strategy", "iterative-minreg"\]\]}}
// CHECK-LABEL: llvm.func @named
// CHECK-SAME: passthrough = {{\[\["amdgpu-sched-strategy", "max-ilp"\]\]}}
// CHECK-LABEL: llvm.func @helper
// CHECK-NOT: passthrough
// CHECK: llvm.return
// MATRIX-LABEL: llvm.func @plain
// MATRIX-NOT: passthrough
// MATRIX-LABEL: llvm.func @matrix
// MATRIX-SAME: passthrough = {{\["nounwind", \["amdgpu-sched-strategy", "max-ilp"\]\]}}
// UNKNOWN: error: tile-rocdl-sched-strategy: unknown strategy 'fastest'
gpu.module @kernels {
  llvm.func @plain() attributes {rocdl.kernel} {
    llvm.return
  }
  llvm.func @matrix(%a: vector<16xf16>, %c: vector<8xf32>) attributes {rocdl.kernel, passthrough = ["nounwind"]} {
    %d = rocdl.wmma.f32.16x16x16.f16 %a, %a, %c : (vector<16xf16>, vector<16xf16>, vector<8xf32>) -> vector<8xf32>
    llvm.return
  }
  llvm.func @named() attributes {rocdl.kernel, passthrough = [["amdgpu-sched-strategy", "max-ilp"]]} {
    llvm.return
  }
  llvm.func @helper() {
    llvm.return
  }
}
