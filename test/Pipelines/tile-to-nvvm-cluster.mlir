// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s

// A kernel with a thread block cluster survives the whole NVIDIA pipeline as
// a cluster launch (mgpuLaunchClusterKernel at run time); the kernel indexes
// by its block id in the grid.
// CHECK: llvm.func @cluster(
// CHECK: %[[C2:.*]] = llvm.mlir.constant(2 : index) : i64
// CHECK: gpu.launch_func @cluster_kernel::@cluster_kernel clusters in (%[[C2]], %{{.*}}, %{{.*}}) blocks in
// CHECK: gpu.binary @cluster_kernel
// CHECK-SAME: %ctaid.x
// CHECK-SAME: atom.global.add.f32
func.func @cluster(%gx: index, %out: memref<?xf32>) {
  tile.kernel grid(%gx) threads(64) cluster(2) -> (%bx) {
    %v = arith.constant 1.0 : f32
    tile.atomic_add %v to %out[%bx] : f32 to memref<?xf32>
  }
  return
}
