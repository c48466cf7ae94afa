// RUN: tile-opt %s --convert-tile-to-scf | FileCheck %s
// RUN: tile-opt %s --convert-tile-to-scf --expand-strided-metadata --finalize-memref-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// tile.view: the descriptor of the source's first byte (aligned pointer
// plus offset times the element size) with the view's row-major shape.

// CHECK-LABEL: func.func @halves
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<64xf32> -> index
// CHECK: %[[BYTES:.*]] = arith.muli %{{.*}}, %c4
// CHECK: %[[AT:.*]] = arith.addi %[[BASE]], %[[BYTES]]
// CHECK: %[[ADDR:.*]] = arith.index_cast %[[AT]] : index to i64
// CHECK: llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<2x64xf16>
// LLVM-LABEL: llvm.func @halves
// LLVM-NOT: to memref<
func.func @halves(%a: memref<64xf32>, %out: memref<64xf16>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel grid(%c1) threads(1) -> (%bx) {
    %v = tile.view %a : memref<64xf32> to memref<2x64xf16>
    %x = memref.load %v[%c0, %bx] : memref<2x64xf16>
    memref.store %x, %out[%bx] : memref<64xf16>
  }
  return
}
