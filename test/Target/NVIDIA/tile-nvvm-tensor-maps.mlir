// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-nvvm-tensor-maps | FileCheck %s
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-nvvm-tensor-maps --tile-nvvm-tensor-maps | FileCheck %s
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_80" --tile-nvvm-tensor-maps | FileCheck %s --check-prefix=NONE
// RUN: tile-opt %s --tile-attach-target="kind=rocm chip=gfx942" --tile-nvvm-tensor-maps | FileCheck %s --check-prefix=NONE

// tile-nvvm-tensor-maps: the host creates, before the kernel, one tensor
// map per global buffer and box of its copies on TMA, and each such copy
// names its map. The two 64x64 loads of A share one map (f16: data type 6,
// rank 2, box 64 x 64, no swizzle); the store to O has its own; the
// 64x512 load (a box over 256 elements) and the copy on another engine
// get none. A second run adds nothing.
// CHECK: func.func private @tileTensorMapEncode(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i64
// CHECK-LABEL: func.func @maps
// CHECK-SAME: (%[[A:arg[0-9]+]]: memref<?x?xf16>, %[[O:arg[0-9]+]]: memref<?x?xf16>, %[[W:arg[0-9]+]]: memref<?x?xf16>,
// CHECK: memref.extract_strided_metadata %[[A]]
// CHECK: %[[AMAP:.*]] = call @tileTensorMapEncode(%{{.*}}, %c6_i64, %c2_i64, %{{.*}}, %{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %{{.*}}, %{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c64_i64{{.*}}, %c64_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c0_i64)
// CHECK: memref.extract_strided_metadata %[[O]]
// CHECK: %[[OMAP:.*]] = call @tileTensorMapEncode(
// CHECK-NOT: call @tileTensorMapEncode
// CHECK: tile.kernel
// CHECK: tile.copy %[[A]]{{.*}} tensor_map(%[[AMAP]]) {async, engine = #tile.copy_engine<tma>}
// CHECK-NEXT: tile.copy %[[A]]{{.*}} tensor_map(%[[AMAP]]) {async, engine = #tile.copy_engine<tma>}
// CHECK-NEXT: tile.copy %[[W]]{{.*}} : memref<2xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>}
// CHECK: tile.copy %{{.*}} to %[[O]]{{.*}} tensor_map(%[[OMAP]]) {engine = #tile.copy_engine<tma>}
// CHECK-NEXT: tile.copy %{{.*}} to %[[O]]{{.*}}] {engine = #tile.copy_engine<vector>}
// Without TMA (sm_80, AMD) the module is left alone.
// NONE-NOT: tileTensorMapEncode
// NONE-NOT: tensor_map
func.func @maps(%A: memref<?x?xf16>, %O: memref<?x?xf16>, %W: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %bars = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %w = tile.alloc_shared : memref<64x512xf16, #tile.mem<shared>>
    tile.barrier_init %bars arrivals(1) : memref<2xi64, #tile.mem<shared>>
    tile.copy %A[%bx, %c0] to %a arrive(%bars[%c0] : memref<2xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %A[%bx, %c64] to %b arrive(%bars[%c0] : memref<2xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %W[%bx, %c0] to %w arrive(%bars[%c0] : memref<2xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>} : memref<?x?xf16> to memref<64x512xf16, #tile.mem<shared>>
    tile.barrier_wait %bars[%c0] parity(%c0) : memref<2xi64, #tile.mem<shared>>
    tile.copy %a to %O[%bx, %c0] {engine = #tile.copy_engine<tma>} : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    tile.copy %b to %O[%bx, %c64] {engine = #tile.copy_engine<vector>} : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}
