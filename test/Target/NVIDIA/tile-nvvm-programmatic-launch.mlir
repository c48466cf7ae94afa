// RUN: tile-opt %s --split-input-file --tile-nvvm-programmatic-launch | FileCheck %s

// The launch of the kernel that waits on its grid dependencies is preceded
// by the runtime call that makes it programmatic (one declaration, however
// many launches); the kernel that only triggers its dependents, and the one
// with neither, launch as before.
// CHECK-LABEL: func.func @host
// CHECK-NEXT: arith.constant
// CHECK-NEXT: gpu.launch_func @kernels::@producer
// CHECK-NEXT: llvm.call @tileProgrammaticLaunch() : () -> ()
// CHECK-NEXT: gpu.launch_func @kernels::@consumer
// CHECK-NEXT: gpu.launch_func @kernels::@plain
// CHECK-NEXT: llvm.call @tileProgrammaticLaunch() : () -> ()
// CHECK-NEXT: gpu.launch_func @kernels::@consumer
// CHECK: llvm.func @tileProgrammaticLaunch()
// CHECK-NOT: llvm.func @tileProgrammaticLaunch
module attributes {gpu.container_module} {
  func.func @host() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@producer blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @kernels::@consumer blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @kernels::@plain blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @kernels::@consumer blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @producer() kernel {
      nvvm.griddepcontrol launch_dependents
      gpu.return
    }
    gpu.func @consumer() kernel {
      %true = arith.constant true
      scf.if %true {
        nvvm.griddepcontrol wait
      }
      gpu.return
    }
    gpu.func @plain() kernel {
      gpu.return
    }
  }
}

// -----

// Kernels of a GPU module without an NVVM target launch as before, and a
// module with nothing to mark gets no declaration.
// CHECK-LABEL: func.func @other_target
// CHECK-NEXT: arith.constant
// CHECK-NEXT: gpu.launch_func @rocm::@waits
// CHECK-NOT: tileProgrammaticLaunch
module attributes {gpu.container_module} {
  func.func @other_target() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @rocm::@waits blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  gpu.module @rocm [#rocdl.target<chip = "gfx942">] {
    gpu.func @waits() kernel {
      nvvm.griddepcontrol wait
      gpu.return
    }
  }
}
