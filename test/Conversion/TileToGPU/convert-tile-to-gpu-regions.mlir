// RUN: tile-opt %s --split-input-file --tile-select-instructions="tma-store" --tile-nvvm-tensor-maps --tile-nvvm-defer-tma-store-waits --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s

// Copies of regions over non-trailing dimensions (TileLang's BSHD
// Q[b, s0:s1, h, :]) on sm_90.

// A 64x64 tile along dimensions 1 and 3 of a rank-4 buffer is one TMA box
// of rank 4 with extent 1 along the indexed-away dimensions 0 and 2 (the
// encode call lists the box outermost first: 1, 64, 1, 64, then the unused
// fifth 1); its coordinates, innermost first, are the offsets of dimensions
// 3, 2, 1, 0. The store of the same region to O (tma-store) is a TMA store
// with its own map of the same box.
// CHECK-LABEL: func.func @tma_region
// CHECK-COUNT-2: call @tileTensorMapEncode(%{{.*}}, %c6_i64{{.*}}, %c4_i64{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c1_i64{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c64_i64{{.*}}, %c1_i64{{.*}}, %c64_i64{{.*}}, %c1_i64{{.*}}, %c0_i64{{.*}})
// CHECK-NOT: call @tileTensorMapEncode
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9]+]], %[[BY:[a-z0-9]+]], %[[BZ:[a-z0-9]+]]) in
// CHECK: %[[S:.*]] = arith.muli %[[BX]], %c64
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: %[[X0:.*]] = arith.index_cast %c0{{.*}} : index to i32
// CHECK-NEXT: %[[X1:.*]] = arith.index_cast %[[BY]] : index to i32
// CHECK-NEXT: %[[X2:.*]] = arith.index_cast %[[S]] : index to i32
// CHECK-NEXT: %[[X3:.*]] = arith.index_cast %[[BZ]] : index to i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%[[X0]], %[[X1]], %[[X2]], %[[X3]]]
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.inttoptr
// CHECK-NEXT: %[[Y0:.*]] = arith.index_cast %c0{{.*}} : index to i32
// CHECK-NEXT: %[[Y1:.*]] = arith.index_cast %[[BY]] : index to i32
// CHECK-NEXT: %[[Y2:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT: %[[Y3:.*]] = arith.index_cast %[[BZ]] : index to i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%[[Y0]], %[[Y1]], %[[Y2]], %[[Y3]]]
module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @tma_region(%Q: memref<?x?x?x64xf16>, %O: memref<?x?x?x64xf16>, %n: index) {
    tile.kernel grid(%n, %n, %n) threads(128) -> (%bx, %by, %bz) {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %bars = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
      %q = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
      %s = arith.muli %bx, %c64 : index
      tile.barrier_init %bars arrivals(1) : memref<1xi64, #tile.mem<shared>>
      tile.copy %Q[%bz, %s : 64, %by, %c0 : 64] to %q arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<?x?x?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.barrier_wait %bars[%c0] parity(%c0) : memref<1xi64, #tile.mem<shared>>
      tile.copy %q to %O[%bz, %s : 64, %by, %c0 : 64] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?x?x64xf16>
    }
    return
  }
}

// -----

// Rows that run along a dimension other than the last (the last is
// indexed away) are no TMA box: no tensor map, the block's element-wise
// copy and one arrival; and no vector access of the global buffer.
// CHECK-LABEL: func.func @rows_not_along_last_dim
// CHECK-NOT: tileTensorMapEncode
// CHECK-NOT: vector.load
// CHECK: memref.load %{{.*}} : memref<?x64x?xf16>
// CHECK: nvvm.mbarrier.arrive
module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @rows_not_along_last_dim(%K: memref<?x64x?xf16>, %n: index) {
    tile.kernel grid(%n) threads(128) -> (%bx) {
      %c0 = arith.constant 0 : index
      %bars = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
      %k = tile.alloc_shared : memref<32x64xf16, #tile.mem<shared>>
      tile.barrier_init %bars arrivals(1) : memref<1xi64, #tile.mem<shared>>
      tile.copy %K[%bx : 32, %c0 : 64, %bx] to %k arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<?x64x?xf16> to memref<32x64xf16, #tile.mem<shared>>
      tile.barrier_wait %bars[%c0] parity(%c0) : memref<1xi64, #tile.mem<shared>>
      %f = tile.alloc_fragment : memref<32x64xf32, #tile.mem<fragment>>
      tile.copy %k to %f : memref<32x64xf16, #tile.mem<shared>> to memref<32x64xf32, #tile.mem<fragment>>
      tile.copy %f to %K[%bx : 32, %c0 : 64, %bx] : memref<32x64xf32, #tile.mem<fragment>> to memref<?x64x?xf16>
    }
    return
  }
}

// -----

// cp.async (sm_80) takes a region whose rows run along the last dimension:
// the vector's bound is the row dimension's size (the last), its other
// indices the region's offsets and tile coordinates.
// CHECK-LABEL: func.func @cp_async_region
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9]+]], %{{.*}}, %{{.*}}) in
// CHECK: memref.dim %{{.*}}, %c3{{.*}} : memref<?x?x?x?xf16>
// CHECK: nvgpu.device_async_copy %{{.*}}[%[[BX]], %{{.*}}, %[[BX]], %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<?x?x?x?xf16> to memref<64x64xf16
module attributes {tile.target = #tile.target<cuda, "sm_80", "+ptx80">} {
  func.func @cp_async_region(%Q: memref<?x?x?x?xf16>, %n: index) {
    tile.kernel grid(%n) threads(128) -> (%bx) {
      %c0 = arith.constant 0 : index
      %q = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
      tile.copy %Q[%bx, %c0 : 64, %bx, %c0 : 64] to %q {async} : memref<?x?x?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.async_commit
      tile.async_wait pending(0)
    }
    return
  }
}

// -----

// A box whose innermost start is not known to be a 16-byte multiple, or
// whose starts may be negative or past 2^31, is checked at run time: the H200 traps on
// such boxes, and the copy takes the block's path instead.
// CHECK-LABEL: func.func @tma_box_start_checked
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9]+]], %{{.*}}, %{{.*}}) in
// CHECK: %[[MAP_OK:.*]] = arith.cmpi ne, %{{.*}}, %c0_i64
// CHECK: %[[ROW:.*]] = arith.cmpi ult, %[[BX]], %c2147483648{{.*}} : index
// CHECK: %[[A:.*]] = arith.andi %[[MAP_OK]], %[[ROW]]
// CHECK: %[[COL:.*]] = arith.cmpi ult, %[[C:.*]], %c2147483648{{.*}} : index
// CHECK: %[[B:.*]] = arith.andi %[[A]], %[[COL]]
// CHECK: %[[REM:.*]] = arith.remsi %[[C]], %c8{{.*}} : index
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[REM]], %{{.*}} : index
// CHECK: %[[OK:.*]] = arith.andi %[[B]], %[[ALIGNED]]
// CHECK: scf.if %[[OK]] {
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @tma_box_start_checked(%A: memref<?x?xf16>, %n: index, %col: index) {
    tile.kernel grid(%n) threads(128) -> (%bx) {
      %c0 = arith.constant 0 : index
      %bars = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
      %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
      %c = arith.addi %col, %bx : index
      tile.barrier_init %bars arrivals(1) : memref<1xi64, #tile.mem<shared>>
      tile.copy %A[%bx : 64, %c : 64] to %a arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.barrier_wait %bars[%c0] parity(%c0) : memref<1xi64, #tile.mem<shared>>
    }
    return
  }
}
