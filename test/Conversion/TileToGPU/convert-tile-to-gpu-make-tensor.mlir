// RUN: tile-opt %s --tile-select-instructions --tile-nvvm-tensor-maps --convert-tile-to-gpu | FileCheck %s

// A tensor made from an address in the kernel: its tile copies do not take
// TMA (the host encodes tensor maps of kernel arguments only), and the op
// becomes the memref descriptor of the address inside the launch.

module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
// CHECK-LABEL: func.func @grouped
// CHECK-NOT: tileTensorMapEncode
// CHECK: gpu.launch
// CHECK: llvm.inttoptr
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<?x64xf16>
func.func @grouped(%ptrs: memref<8xi64>, %out: memref<64x64xf16>, %m: index) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %addr = memref.load %ptrs[%bx] : memref<8xi64>
    %a = tile.make_tensor %addr[%m] : memref<?x64xf16>
    tile.copy %a[%c0, %c0] to %s : memref<?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %s to %out[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<64x64xf16>
  }
  return
}
}
