// RUN: tile-opt %s --split-input-file --tile-select-instructions="tma-store" --tile-nvvm-tensor-maps --tile-nvvm-defer-tma-store-waits --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-nvvm-tensor-maps --tile-nvvm-defer-tma-store-waits --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s --check-prefix=OFF

// sm_90, tma-store: the epilogue's copy of a whole shared tile (the 128-byte
// swizzle of 128-byte rows) into global memory. The host encodes the map of
// C (f16 = 6, rank 2, box 64 x 64, swizzle mode 3); in the kernel, every
// thread fences its shared-memory writes for the asynchronous proxy, a
// block barrier, then, with a map, thread 0 stores the box and, the copy
// being the kernel's last memory access, waits only until TMA has read the
// tile (no barrier after); without a map the block copies (vector stores).
// CHECK-LABEL: func.func @epilogue
// CHECK: %[[MAP:.*]] = call @tileTensorMapEncode(%{{.*}}, %c6_i64, %c2_i64, {{.*}}, %c64_i64{{.*}}, %c64_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c3_i64)
// CHECK: gpu.launch
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// The map exists and the box's row start is in [0, 2^31) (the column
// offset is a constant 0: nothing to check at run time).
// CHECK: %[[HAS:.*]] = arith.cmpi ne, %[[MAP]], %c0_i64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 2147483648 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.cmpi ult, %{{.*}}, %[[LIMIT]] : index
// CHECK-NEXT: %[[OK:.*]] = arith.andi %[[HAS]], %[[ROW]] : i1
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK: scf.if
// CHECK: %[[M:.*]] = llvm.inttoptr %[[MAP]] : i64 to !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[M]], %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr, <3>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK: vector.store %{{.*}}, %arg0
// CHECK: gpu.terminator
// OFF-LABEL: func.func @epilogue
// OFF-NOT: tileTensorMapEncode
// OFF-NOT: nvvm.cp.async.bulk
// OFF: gpu.terminator
module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @epilogue(%C: memref<?x?xf16>, %n: index) {
    tile.kernel grid(%n) threads(128) -> (%bx) {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %one = arith.constant 1.0 : f16
      %f = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
      %s = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<64x64xf16, #tile.mem<shared>>
      %m = arith.muli %bx, %c64 : index
      tile.fill %f, %one : memref<64x64xf16, #tile.mem<fragment>>
      tile.copy %f to %s : memref<64x64xf16, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<shared>>
      tile.copy %s to %C[%m, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    }
    return
  }
}

// -----

// Rows wider than 128 bytes in the blocked layout's column panels: one box
// of 32 x 64 per panel (the second panel 4 KiB further in shared memory and
// 64 columns further in C). Inside a loop whose body uses the tile only
// before the store, the wait for TMA to read it moves to its next write
// (deferTmaStoreReadWaits): every thread waits (only the issuing one has
// bulk groups) and a block barrier releases the tile there; the store only
// commits, and one more wait follows the loop. The kernel never reads C,
// so the waits are only until TMA has read the tile.
// CHECK-LABEL: func.func @panels_in_loop
// CHECK: %[[MAP:.*]] = call @tileTensorMapEncode(%{{.*}}, %c6_i64, %c2_i64, {{.*}}, %c32_i64, %c64_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c3_i64)
// CHECK: gpu.launch
// CHECK: arith.muli %{{.*}}, %c32
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.fence.proxy
// CHECK: scf.if
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%[[X0:.*]], %{{.*}}] : !llvm.ptr, <3>
// CHECK: %[[X1:.*]] = arith.addi %{{.*}}, %c64
// CHECK: arith.constant 4096 : index
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr, <3>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: gpu.terminator
module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @panels_in_loop(%C: memref<?x?xf16>, %n: index) {
    tile.kernel grid(%n) threads(128) -> (%bx) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %one = arith.constant 1.0 : f16
      %f = tile.alloc_fragment : memref<32x128xf16, #tile.mem<fragment>>
      %s = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true, panels = true>} : memref<32x128xf16, #tile.mem<shared>>
      tile.fill %f, %one : memref<32x128xf16, #tile.mem<fragment>>
      scf.for %i = %c0 to %c4 step %c1 {
        %m = arith.muli %i, %c32 : index
        tile.copy %f to %s : memref<32x128xf16, #tile.mem<fragment>> to memref<32x128xf16, #tile.mem<shared>>
        tile.copy %s to %C[%m, %c0] : memref<32x128xf16, #tile.mem<shared>> to memref<?x?xf16>
      }
    }
    return
  }
}

// -----

// Not TMA stores: a copy that converts (f32 tile to f16), and a tile whose
// 8-byte rows no TMA box reads.
// CHECK-LABEL: func.func @not_stores
// CHECK-NOT: tileTensorMapEncode
// CHECK-NOT: nvvm.cp.async.bulk
// CHECK: gpu.terminator
module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @not_stores(%C: memref<?x?xf16>, %n: index) {
    tile.kernel grid(%n) threads(128) -> (%bx) {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %h = arith.constant 1.0 : f16
      %s = tile.alloc_shared : memref<64x64xf32, #tile.mem<shared>>
      %t = tile.alloc_shared : memref<64x4xf16, #tile.mem<shared>>
      tile.fill %s, %one : memref<64x64xf32, #tile.mem<shared>>
      tile.fill %t, %h : memref<64x4xf16, #tile.mem<shared>>
      tile.copy %s to %C[%c0, %c0] : memref<64x64xf32, #tile.mem<shared>> to memref<?x?xf16>
      tile.copy %t to %C[%c0, %c0] : memref<64x4xf16, #tile.mem<shared>> to memref<?x?xf16>
    }
    return
  }
}

// -----

// The kernel reads C after storing it: the store completes (global memory
// written: the full wait) and a barrier follows, as after a synchronous
// copy.
// CHECK-LABEL: func.func @read_back
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: } else {
module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @read_back(%C: memref<?x?xf16>, %n: index) {
    tile.kernel grid(%n) threads(128) -> (%bx) {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f16
      %f = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
      %s = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<64x64xf16, #tile.mem<shared>>
      %g = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
      tile.fill %f, %one : memref<64x64xf16, #tile.mem<fragment>>
      tile.copy %f to %s : memref<64x64xf16, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<shared>>
      tile.copy %s to %C[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
      tile.copy %C[%c0, %c0] to %g : memref<?x?xf16> to memref<64x64xf16, #tile.mem<fragment>>
      tile.copy %g to %C[%c0, %c0] : memref<64x64xf16, #tile.mem<fragment>> to memref<?x?xf16>
    }
    return
  }
}
