// RUN: tile-opt %s --split-input-file --convert-tile-to-scf | FileCheck %s
// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu | FileCheck %s --check-prefix=GPU

// tile.assume: the function goes on where the condition holds; otherwise
// it calls tileAssumeFailed with the message (a NUL-terminated global) and
// returns before the kernel. Both lowerings (the CPU's and the GPU's) do it
// the same way, before the kernels are converted.
// CHECK: llvm.mlir.global internal constant @__tile_assume_0("Assume: N % 4 == 0\00")
// CHECK-LABEL: func.func @checked
// CHECK: %[[OK:.*]] = arith.cmpi eq
// CHECK: cf.cond_br %[[OK]], ^[[REST:.*]], ^[[FAIL:[a-z0-9]*]]
// CHECK: ^[[FAIL]]:
// CHECK: %[[MSG:.*]] = llvm.mlir.addressof @__tile_assume_0 : !llvm.ptr
// CHECK: llvm.call @tileAssumeFailed(%{{.*}}) : (!llvm.ptr) -> ()
// CHECK-NEXT: return
// CHECK: ^[[REST]]:
// CHECK: scf.for
// CHECK: llvm.func @tileAssumeFailed(!llvm.ptr)
// GPU-LABEL: func.func @checked
// GPU: cf.cond_br
// GPU: llvm.call @tileAssumeFailed
// GPU: gpu.launch
func.func @checked(%A: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %A, %c0 : memref<?xf32>
  %r = arith.remui %n, %c4 : index
  %ok = arith.cmpi eq, %r, %c0 : index
  tile.assume %ok, "Assume: N % 4 == 0"
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) -> (%bx) {
    %one = arith.constant 1.0 : f32
    memref.store %one, %A[%c0] : memref<?xf32>
    tile.yield
  }
  return
}

// -----

// Two assumes: two messages, one declaration.
// CHECK-DAG: @__tile_assume_0("first\00")
// CHECK-DAG: @__tile_assume_1("second\00")
// CHECK-LABEL: func.func @two
// CHECK-COUNT-2: llvm.call @tileAssumeFailed
// CHECK-NOT: llvm.func @tileAssumeFailed
// CHECK: llvm.func @tileAssumeFailed
// CHECK-NOT: llvm.func @tileAssumeFailed
func.func @two(%a: i1, %b: i1) {
  tile.assume %a, "first"
  tile.assume %b, "second"
  return
}
