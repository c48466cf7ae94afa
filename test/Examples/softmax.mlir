// RUN: tile-opt %tile_examples/softmax.mlir | tile-opt | FileCheck %tile_examples/softmax.mlir
// RUN: tile-opt %tile_examples/softmax.mlir --canonicalize | FileCheck %s --check-prefix=CANON

// CANON-LABEL: func.func @softmax(
// CANON-DAG: %[[LOG2E:.+]] = arith.constant 1.44269502 : f32
// CANON: tile.kernel grid(%{{.+}}) threads(256) -> (%bx) {
// CANON: %[[XF:.+]] = tile.alloc_fragment : memref<8x1024xf32, #tile.mem<fragment>>
// CANON: tile.copy %arg0[%{{.+}}, %c0] to %[[XF]]
// CANON-NEXT: tile.reduce <max> %[[XF]] to %{{.+}} dim 1 :
// CANON-NEXT: tile.parallel (%{{.+}}, %{{.+}}) in (8, 1024) {
// CANON: arith.mulf %{{.+}}, %[[LOG2E]] : f32
// CANON: math.exp2
// CANON: tile.reduce <sum> %[[XF]] to %{{.+}} dim 1 :
// CANON: tile.copy %[[XF]] to %arg1[%{{.+}}, %c0] : memref<8x1024xf32, #tile.mem<fragment>> to memref<?x1024xf32>
