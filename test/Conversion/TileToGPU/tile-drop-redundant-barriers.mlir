// RUN: tile-opt %s --split-input-file --tile-drop-redundant-barriers | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-drop-redundant-barriers | FileCheck %s --check-prefix=CUDA

// A barrier that another follows, with only ops free of memory effects
// between, goes; one before a store, a load or a region stays, as does the
// last of a run and one in another block.
// CHECK-LABEL: func.func @runs
// CHECK: gpu.launch
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.addi
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: gpu.terminator
func.func @runs(%m: memref<16xf32, #gpu.address_space<workgroup>>, %c: i1) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.barrier
    gpu.barrier
    %c0 = arith.constant 0 : index
    %f = arith.constant 1.0 : f32
    gpu.barrier
    %i = arith.addi %tx, %c0 : index
    gpu.barrier
    memref.store %f, %m[%i] : memref<16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %v = memref.load %m[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    scf.if %c {
      gpu.barrier
      gpu.barrier
    }
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

// NVIDIA's proxy fences order only their own thread's accesses: a barrier
// before one and another after it is one barrier too much on cuda targets;
// on a target whose lowering has no such op (no target: the CPU's), the
// fence is an op with effects like any other, and both stay.
// CHECK-LABEL: func.func @fence
// CHECK: gpu.barrier
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CUDA-LABEL: func.func @fence
// CUDA: gpu.launch
// CUDA-NEXT: nvvm.fence.proxy
// CUDA-NEXT: gpu.barrier
// CUDA-NEXT: gpu.terminator
func.func @fence() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.barrier
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    gpu.barrier
    gpu.terminator
  }
  return
}
