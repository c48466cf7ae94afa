// RUN: tile-opt %tile_examples/row_reduce.mlir | tile-opt | FileCheck %tile_examples/row_reduce.mlir
// RUN: tile-opt %tile_examples/row_reduce.mlir --canonicalize | FileCheck %s --check-prefix=CANON

// The +-inf fills stay fills; the five accumulating reductions stay in the
// pipelined loop.
// CANON-LABEL: func.func @row_reduce(
// CANON-DAG: %[[POS_INF:.+]] = arith.constant 0x7F800000 : f32
// CANON-DAG: %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CANON: tile.kernel grid(%{{.+}}) threads(128) -> (%bx) {
// CANON: tile.clear %{{.+}} : memref<32xf32, #tile.mem<fragment>>
// CANON-NEXT: tile.fill %{{.+}}, %[[NEG_INF]] : memref<32xf32, #tile.mem<fragment>>
// CANON-NEXT: tile.fill %{{.+}}, %[[POS_INF]] : memref<32xf32, #tile.mem<fragment>>
// CANON: tile.pipelined %{{.+}} num_stages = 2 {
// CANON: tile.parallel (%{{.+}}, %{{.+}}) in (32, 128) {
// CANON: arith.cmpi ult
// CANON: tile.reduce <sum> {{.+}} dim 1 {clear = false}
// CANON-NEXT: tile.reduce <abssum> {{.+}} dim 1 {clear = false}
// CANON-NEXT: tile.reduce <absmax> {{.+}} dim 1 {clear = false}
// CANON-NEXT: tile.reduce <max> {{.+}} dim 1 {clear = false}
// CANON-NEXT: tile.reduce <min> {{.+}} dim 1 {clear = false}
// CANON-NEXT: }
// CANON-COUNT-5: tile.copy %{{.+}} to %arg{{[1-5]}}[%{{.+}}] : memref<32xf32, #tile.mem<fragment>> to memref<?xf32>
