// RUN: tile-opt %s --convert-tile-to-scf | FileCheck %s
// RUN: tile-opt %s --convert-tile-to-scf --expand-strided-metadata --finalize-memref-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// tile.make_tensor: the memref descriptor of the address (pointer, offset
// 0, sizes, row-major strides) cast to the memref; the memref lowering
// reads it through the cast, and no cast remains.

// CHECK-LABEL: func.func @table
// CHECK: %[[P:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// CHECK: %[[D0:.*]] = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: %[[D1:.*]] = llvm.insertvalue %[[P]], %[[D0]][0]
// CHECK: %[[D2:.*]] = llvm.insertvalue %[[P]], %[[D1]][1]
// CHECK: %[[M:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: llvm.insertvalue %[[M]], %{{.*}}[3, 0]
// CHECK: %[[T:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<?x128xf32>
// CHECK: memref.load %[[T]]
// LLVM-LABEL: llvm.func @table
// LLVM-NOT: to memref<
// LLVM: llvm.inttoptr
// LLVM: llvm.load
func.func @table(%ptrs: memref<4xi64>, %out: memref<128xf32>, %m: index) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel grid(%c1) threads(1) -> (%bx) {
    %addr = memref.load %ptrs[%bx] : memref<4xi64>
    %t = tile.make_tensor %addr[%m] : memref<?x128xf32>
    %x = memref.load %t[%c0, %bx] : memref<?x128xf32>
    memref.store %x, %out[%bx] : memref<128xf32>
  }
  return
}
