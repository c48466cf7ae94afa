// RUN: tile-opt %tile_examples/gemm_relu.mlir | tile-opt | FileCheck %tile_examples/gemm_relu.mlir
// RUN: tile-opt %tile_examples/gemm_relu.mlir --canonicalize | FileCheck %s --check-prefix=CANON

// The canonicalizer keeps the swizzle hint, the pipeline and the epilogue.
// CANON-LABEL: func.func @gemm_relu(
// CANON: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CANON: tile.kernel grid(%{{.+}}, %{{.+}}) threads(128) -> (%bx, %by) {
// CANON-NEXT: tile.use_swizzle panel(10)
// CANON: %[[CF:.+]] = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
// CANON-NEXT: tile.clear %[[CF]]
// CANON: tile.pipelined %{{.+}} = %c0 to %{{.+}} step %c1 num_stages = 3 {
// CANON-COUNT-2: tile.copy %arg{{[01]}}[
// CANON-NEXT: tile.gemm %{{.+}}, %{{.+}}, %[[CF]] :
// CANON: tile.parallel (%{{.+}}, %{{.+}}) in (128, 128) {
// CANON: arith.maximumf %{{.+}}, %[[ZERO]] : f32
// CANON: tile.copy %[[CF]] to %arg2[%{{.+}}, %{{.+}}] : memref<128x128xf32, #tile.mem<fragment>> to memref<?x?xf16>
