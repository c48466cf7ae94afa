// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-nvvm-tensor-maps --tile-nvvm-defer-tma-store-waits --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s

// The lowering emits each copy's engine (#tile.copy_engine) and nothing
// else: the same async copy on cp.async or, stamped `vector`, as the
// block's vector copy; the same copy onto a barrier on TMA or as the
// block's copy and an arrival; a copy the generic lowering would vectorize
// kept element by element; an unstamped copy takes the default choice.

// CHECK-LABEL: func.func @async_engines
// CHECK-COUNT-4: nvgpu.device_async_copy {{.*}} 8,
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: vector.load {{.*}} vector<8xf16>
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: return
func.func @async_engines(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.copy %A[%bx, %c0] to %s {async, engine = #tile.copy_engine<cp_async>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.async_commit
    tile.async_wait pending(0)
    tile.copy %A[%bx, %c0] to %s {async, engine = #tile.copy_engine<vector>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.async_commit
    tile.async_wait pending(0)
  }
  return
}

// -----

// CHECK-LABEL: func.func @barrier_engines
// CHECK-COUNT-1: call @tileTensorMapEncode
// CHECK-NOT: call @tileTensorMapEncode
// CHECK: gpu.launch
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: vector.load {{.*}} vector<8xf16>
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: return
func.func @barrier_engines(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %t = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.barrier_init %bars arrivals(1) : memref<2xi64, #tile.mem<shared>>
    tile.copy %A[%bx, %c0] to %s arrive(%bars[%c0] : memref<2xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<tma>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %B[%bx, %c0] to %t arrive(%bars[%c0] : memref<2xi64, #tile.mem<shared>>) {async, engine = #tile.copy_engine<vector>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.barrier_wait %bars[%c0] parity(%c0) : memref<2xi64, #tile.mem<shared>>
  }
  return
}

// -----

// CHECK-LABEL: func.func @elements
// CHECK-NOT: vector.load
// CHECK: memref.load
// CHECK-NOT: vector.load
// CHECK: return
func.func @elements(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.copy %A[%bx, %c0] to %s {engine = #tile.copy_engine<elements>} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
  }
  return
}

// -----

// CHECK-LABEL: func.func @default
// CHECK: nvgpu.device_async_copy
func.func @default(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.copy %A[%bx, %c0] to %s {async} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.async_commit
    tile.async_wait pending(0)
  }
  return
}
