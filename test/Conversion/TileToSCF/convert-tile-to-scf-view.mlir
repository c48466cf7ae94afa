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

// A view of a shared tile (host memory here) is the descriptor of the
// tile's first byte too; its element accesses apply the tile's swizzle in
// the view's element type: the f32 tile's <3, 2, 3> is <3, 3, 3> on bf16
// (bits 6..8 of the offset XOR-ed into bits 3..5).
// CHECK-LABEL: func.func @shared_view
// CHECK: %[[TILE:.*]] = memref.alloc{{.*}} : memref<64x64xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[TILE]] : memref<64x64xf32> -> index
// CHECK: %[[VIEW:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<64x128xbf16> to memref<64x128xbf16>
// CHECK: arith.shrui %{{.*}}, %c6
// CHECK: arith.andi %{{.*}}, %c7
// CHECK: arith.shli %{{.*}}, %c3
// CHECK: memref.load %[[VIEW]]
// LLVM-LABEL: llvm.func @shared_view
// LLVM-NOT: to memref<
func.func @shared_view(%out: memref<64x128xbf16>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(1) -> (%bx) {
    %s = tile.alloc_shared {layout = #tile.swizzle<3, 2, 3>} : memref<64x64xf32, #tile.mem<shared>>
    %v = tile.view %s : memref<64x64xf32, #tile.mem<shared>> to memref<64x128xbf16, #tile.mem<shared>>
    %x = memref.load %v[%bx, %bx] : memref<64x128xbf16, #tile.mem<shared>>
    memref.store %x, %out[%bx, %bx] : memref<64x128xbf16>
  }
  return
}
