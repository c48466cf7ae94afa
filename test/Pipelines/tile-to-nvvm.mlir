// RUN: tile-opt %s --tile-to-nvvm="chip=sm_80 format=isa" | FileCheck %s --check-prefixes=PTX,SM80
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefixes=PTX,SM90
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa emit-c-interface=true" | FileCheck %s --check-prefix=HOST

// The whole NVIDIA pipeline: the kernel becomes a gpu.binary holding PTX for
// the chip (ptxas-free here: format=isa), the host function an LLVM function
// that launches it.

// SM80: module attributes {gpu.container_module, tile.target = #tile.target<cuda, "sm_80", "+ptx80">}
// SM90: module attributes {gpu.container_module, tile.target = #tile.target<cuda, "sm_90a", "+ptx80">}
// PTX: gpu.binary @rowsum_kernel
// SM80-SAME: #nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// SM90-SAME: #nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
// PTX-SAME: .version 8.0
// SM80-SAME: .target sm_80
// SM90-SAME: .target sm_90a
// PTX-SAME: .entry rowsum_kernel(
// The tile ops synchronize the block, stage tiles in shared memory, and the
// tile-form atomic add is a global atomic.
// PTX-SAME: bar.sync \090;
// PTX-SAME: st.shared.b32
// PTX-SAME: ld.shared.b32
// PTX-SAME: atom.global.add.f32

// HOST: llvm.func @rowsum(
// HOST: gpu.launch_func  @rowsum_kernel::@rowsum_kernel blocks in
// HOST-SAME: threads in (%{{.*}}, %{{.*}}, %{{.*}}) : i64 dynamic_shared_memory_size
// HOST: llvm.func @_mlir_ciface_rowsum(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
module {
  func.func @rowsum(%X: memref<?x?xf32> {llvm.align = 16 : i64}, %out: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %m = memref.dim %X, %c0 : memref<?x?xf32>
    %n = memref.dim %X, %c1 : memref<?x?xf32>
    %gx = arith.ceildivui %n, %c32 : index
    %gy = arith.ceildivui %m, %c32 : index
    tile.kernel grid(%gx, %gy) threads(128) -> (%bx, %by) {
      %t = tile.alloc_shared : memref<32x32xf32, #tile.mem<shared>>
      %s = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
      %r = arith.muli %by, %c32 : index
      %c = arith.muli %bx, %c32 : index
      tile.copy %X[%r, %c] to %t : memref<?x?xf32> to memref<32x32xf32, #tile.mem<shared>>
      tile.reduce <sum> %t to %s dim 1 : memref<32x32xf32, #tile.mem<shared>> to memref<32xf32, #tile.mem<fragment>>
      tile.atomic_add %s to %out[%r] : memref<32xf32, #tile.mem<fragment>> to memref<?xf32>
    }
    return
  }
}
