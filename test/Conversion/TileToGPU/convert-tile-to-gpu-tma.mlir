// RUN: tile-opt %s --tile-nvvm-tensor-maps --tile-nvvm-defer-tma-store-waits --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory --tile-drop-redundant-barriers | FileCheck %s

// sm_90: a copy that arrives on a barrier. The host creates the tensor map
// of the global buffer and box before the launch (uint8, 64 x 16 box, no
// swizzle); the tile takes a 128-byte aligned place (TMA destinations must
// be: tiles are placed by decreasing alignment, the tile at 0, the 16-byte
// barrier array after it at 1024); thread 0 inits the
// barriers (then a fence and a block barrier, which also serves as the
// copy's: nothing but address arithmetic between them); then, with a map, thread 0's expect_tx of the box's 1024 bytes
// and the TMA transfer, else the block's copy and thread 0's arrival; the
// wait is an mbarrier parity wait.
// CHECK-LABEL: func.func @tma
// CHECK: %[[MAP:.*]] = call @tileTensorMapEncode(%{{.*}}, %c0_i64, %c2_i64, %{{.*}}, %{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %{{.*}}, %{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c64_i64, %c16_i64, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c0_i64{{.*}})
// CHECK: gpu.launch
// CHECK: memref.view %{{.*}}[%c1024{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: memref.view %{{.*}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x16xi8, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// The map exists and the box's row start is in [0, 2^31) (the column
// offset is a constant 0: nothing to check at run time).
// CHECK: %[[HAS:.*]] = arith.cmpi ne, %[[MAP]], %c0_i64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 2147483648 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.cmpi ult, %{{.*}}, %[[LIMIT]] : index
// CHECK-NEXT: %[[OK:.*]] = arith.andi %[[HAS]], %[[ROW]] : i1
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK: scf.if
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR:.*]], %c1024_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[BAR]], box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: } else {
// CHECK: nvvm.mbarrier.arrive %[[BAR]] : !llvm.ptr<3>
// CHECK: nvvm.mbarrier.try_wait.parity
module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @tma(%A: memref<?x?xi8>, %O: memref<?x?xi8>, %n: index) {
    tile.kernel grid(%n) threads(128) -> (%bx) {
      %c0 = arith.constant 0 : index
      %bars = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
      %a = tile.alloc_shared : memref<64x16xi8, #tile.mem<shared>>
      %row = arith.muli %bx, %c0 : index
      tile.barrier_init %bars arrivals(1) : memref<2xi64, #tile.mem<shared>>
      tile.copy %A[%row, %c0] to %a arrive(%bars[%c0] : memref<2xi64, #tile.mem<shared>>) {async} : memref<?x?xi8> to memref<64x16xi8, #tile.mem<shared>>
      tile.barrier_wait %bars[%c0] parity(%c0) : memref<2xi64, #tile.mem<shared>>
      tile.copy %a to %O[%row, %c0] : memref<64x16xi8, #tile.mem<shared>> to memref<?x?xi8>
    }
    return
  }
}
