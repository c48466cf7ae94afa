// RUN: tile-opt %tile_examples/dequant_gemm.mlir | tile-opt | FileCheck %tile_examples/dequant_gemm.mlir
// RUN: tile-opt %tile_examples/dequant_gemm.mlir --canonicalize | FileCheck %s --check-prefix=CANON

// The unpacking stays inside the pipelined loop, between the copies and the
// gemm that consumes its result.
// CANON-LABEL: func.func @dequant_gemm(
// CANON-DAG: %[[ZP:.+]] = arith.constant 8.000000e+00 : f16
// CANON-DAG: %[[MASK:.+]] = arith.constant 15 : i8
// CANON: tile.kernel grid(%{{.+}}, %{{.+}}) threads(128) -> (%bx, %by) {
// CANON: %[[BPS:.+]] = tile.alloc_shared : memref<128x16xi8, #tile.mem<shared>>
// CANON-NEXT: %[[BS:.+]] = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
// CANON: tile.copy %arg2[%{{.+}}] to %{{.+}} : memref<?xf16> to memref<128xf16, #tile.mem<shared>>
// CANON: tile.pipelined %{{.+}} num_stages = 2 {
// CANON: tile.copy %arg1[%{{.+}}, %{{.+}}] to %[[BPS]] : memref<?x?xi8> to memref<128x16xi8, #tile.mem<shared>>
// CANON-NEXT: tile.parallel (%{{.+}}, %{{.+}}) in (128, 32) {
// CANON: arith.andi %{{.+}}, %[[MASK]] : i8
// CANON: arith.subf %{{.+}}, %[[ZP]] : f16
// CANON: memref.store %{{.+}}, %[[BS]]
// CANON: tile.gemm %{{.+}}, %[[BS]], %{{.+}} {transpose_b}
// CANON: tile.copy %{{.+}} to %arg3[%{{.+}}, %{{.+}}] : memref<128x128xf32, #tile.mem<fragment>> to memref<?x?xf16>
