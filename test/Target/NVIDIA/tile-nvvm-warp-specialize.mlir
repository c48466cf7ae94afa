// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-attach-target="kind=cuda chip=sm_90a" --tile-nvvm-warp-specialize | FileCheck %s
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_80" --tile-nvvm-warp-specialize 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx942" --tile-nvvm-warp-specialize 2>&1 | FileCheck %s --check-prefix=ROCM
// RUN: not tile-opt %s --split-input-file --tile-nvvm-warp-specialize 2>&1 | FileCheck %s --check-prefix=NOTARGET

// tile-nvvm-warp-specialize, on tile IR before convert-tile-to-gpu.

// A 256-thread kernel with a producer: the kernel records the producer's
// 128 threads; the producer's body runs on threads 256 .. 383 (range
// [256, 128] with its 24 registers), what follows it on threads 0 .. 255
// with (65536 - 128 * 24) / 256 = 244, rounded down to 240 registers; the
// allocation after the producer moves up before the sides.
// CHECK-LABEL: func.func @producer
// CHECK: tile.kernel {{.*}} threads(256) {{.*}} attributes {tile.producer_threads = 128 : i64} {
// CHECK: tile.barrier_init
// CHECK-NEXT: tile.barrier_init
// CHECK-NEXT: %[[TID:.*]] = gpu.thread_id{{ +}}x
// CHECK-NEXT: %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[PRODUCER:.*]] = arith.cmpi uge, %[[TID]], %[[C256]] : index
// CHECK-NEXT: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: %[[CONSUMER:.*]] = arith.xori %[[PRODUCER]], %[[TRUE]] : i1
// CHECK-NEXT: %[[STAGE:.*]] = tile.alloc_shared : memref<64x64xf16
// CHECK-NEXT: scf.if %[[PRODUCER]] {
// CHECK-NEXT: nvvm.setmaxregister{{ +}}decrease 24
// CHECK-NEXT: scf.for
// CHECK-NEXT: tile.barrier_wait {{.*}} {issuer}
// CHECK-NEXT: tile.copy {{.*}} arrive({{.*}}) {async} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: }
// CHECK-NEXT: } {tile.thread_range = array<i64: 256, 128, 24>}
// CHECK-NEXT: scf.if %[[CONSUMER]] {
// CHECK-NEXT: nvvm.setmaxregister{{ +}}increase 240
// CHECK-NEXT: tile.barrier_wait
// CHECK-NEXT: tile.copy %{{.*}} to %[[STAGE]]
// CHECK-NEXT: tile.copy %[[STAGE]] to
// CHECK-NEXT: tile.barrier_arrive
// CHECK-NEXT: } {tile.thread_range = array<i64: 0, 256, 240>}
// CHECK-NOT: tile.producer
// SM80: error: 'tile.producer' op needs NVIDIA sm_90 or newer (a warpgroup's setmaxnreg)
// ROCM: error: 'tile.producer' op needs a target with warp specialization (NVIDIA sm_90 or newer), not rocm gfx942
// NOTARGET: error: 'tile.producer' op needs a target with warp specialization (NVIDIA sm_90 or newer), not a module without a target
func.func @producer(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %full = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %free = tile.alloc_shared : memref<2xi64, #tile.mem<shared>>
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.barrier_init %full arrivals(1) : memref<2xi64, #tile.mem<shared>>
    tile.barrier_init %free arrivals(8) : memref<2xi64, #tile.mem<shared>>
    tile.producer {
      scf.for %i = %c0 to %n step %c1 {
        tile.barrier_wait %free[%c0] parity(%c1) {issuer} : memref<2xi64, #tile.mem<shared>>
        tile.copy %A[%i, %c0] to %a arrive(%full[%c0] : memref<2xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
      }
    }
    tile.barrier_wait %full[%c0] parity(%c0) : memref<2xi64, #tile.mem<shared>>
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.copy %a to %s : memref<64x64xf16, #tile.mem<shared>> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %s to %B[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    tile.barrier_arrive %free[%c0] : memref<2xi64, #tile.mem<shared>>
  }
  return
}

// -----

// A producer that keeps 56 registers leaves 384 consumers
// (65536 - 128 * 56) / 384 = 152 each; a kernel without one is unchanged.
// CHECK-LABEL: func.func @registers
// CHECK: nvvm.setmaxregister{{ +}}decrease 56
// CHECK: } {tile.thread_range = array<i64: 384, 128, 56>}
// CHECK: nvvm.setmaxregister{{ +}}increase 152
// CHECK: } {tile.thread_range = array<i64: 0, 384, 152>}
// CHECK: tile.kernel {{.*}} threads(128) -> (%{{.*}}) {
// CHECK-NOT: scf.if
// CHECK: return
func.func @registers(%B: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(384) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.producer attributes {producer_registers = 56 : i64} {
      tile.clear %s : memref<64x64xf16, #tile.mem<shared>>
    }
    tile.copy %s to %B[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.copy %s to %B[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}
