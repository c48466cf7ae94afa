// RUN: tile-opt %s --tile-to-cpu | FileCheck %s
// RUN: tile-opt %s --tile-to-cpu="emit-c-interface=true" | FileCheck %s --check-prefix=CIFACE

// The whole CPU pipeline: tile IR in, only the LLVM dialect out, with the
// target switched to the CPU.

// CHECK: module attributes {tile.target = #tile.target<cpu, "host">}
// CHECK: llvm.func @scale(
// CHECK-NOT: tile.
// CHECK-NOT: scf.
// CHECK-NOT: memref.
// CHECK-NOT: arith.
// CHECK-NOT: llvm.func @_mlir_ciface_scale
// CIFACE: llvm.func @scale(
// The JIT's alignment specialization (llvm.align on %X) is not carried to
// the C wrapper's pointer to the memref descriptor.
// CIFACE: llvm.func @_mlir_ciface_scale(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: f32)
module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @scale(%X: memref<?x?xf16> {llvm.align = 16 : i64}, %Y: memref<?x?xbf16>, %s: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %m = memref.dim %X, %c0 : memref<?x?xf16>
    %n = memref.dim %X, %c1 : memref<?x?xf16>
    %gx = arith.ceildivui %n, %c32 : index
    %gy = arith.ceildivui %m, %c32 : index
    tile.kernel grid(%gx, %gy) threads(128) -> (%bx, %by) {
      %t = tile.alloc_fragment : memref<32x32xf32, #tile.mem<fragment>>
      %row = arith.muli %by, %c32 : index
      %col = arith.muli %bx, %c32 : index
      tile.copy %X[%row, %col] to %t : memref<?x?xf16> to memref<32x32xf32, #tile.mem<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %t[%i, %j] : memref<32x32xf32, #tile.mem<fragment>>
        %e = math.exp %v : f32
        %w = arith.mulf %e, %s : f32
        memref.store %w, %t[%i, %j] : memref<32x32xf32, #tile.mem<fragment>>
      }
      tile.copy %t to %Y[%row, %col] : memref<32x32xf32, #tile.mem<fragment>> to memref<?x?xbf16>
    }
    return
  }
}
