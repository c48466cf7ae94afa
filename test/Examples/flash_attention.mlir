// RUN: tile-opt %tile_examples/flash_attention.mlir | tile-opt | FileCheck %tile_examples/flash_attention.mlir
// RUN: tile-opt %tile_examples/flash_attention.mlir --canonicalize | FileCheck %s --check-prefix=CANON

// The canonicalizer hoists the constants out of the kernel and keeps the
// -inf fill (only a zero fill becomes tile.clear), the key-block pipeline,
// both gemms and both reductions.
// CANON-LABEL: func.func @flash_attention(
// CANON-DAG: %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CANON-DAG: %[[SCALE:.+]] = arith.constant 0.180336878 : f32
// CANON: tile.kernel grid(%{{.+}}, %{{.+}}, %{{.+}}) threads(128) -> (%bx, %by, %bz) {
// CANON: tile.fill %{{.+}}, %[[NEG_INF]] : memref<64xf32, #tile.mem<fragment>>
// CANON-NEXT: tile.pipelined %{{.+}} num_stages = 2 {
// CANON: tile.gemm {{.+}} {clear_accum, policy = #tile.policy<full_row>, transpose_b}
// CANON: tile.reduce <max> {{.+}} dim 1 {clear = false}
// CANON: arith.mulf %{{.+}}, %[[SCALE]] : f32
// CANON: math.exp2
// CANON: tile.reduce <sum> {{.+}} dim 1 :
// CANON: tile.gemm {{.+}} {policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>>
// CANON: arith.divf
// CANON: tile.copy %{{.+}} to %arg3[%bz, %by, %{{.+}}, %c0]

// CANON-LABEL: func.func @flash_attention_causal(
// CANON: tile.kernel grid(%{{.+}}, %{{.+}}, %{{.+}}) threads(128) -> (%bx, %by, %bz) {
// CANON: %[[END:.+]] = arith.minui %{{.+}}, %{{.+}} : index
// CANON-NEXT: tile.pipelined %{{.+}} = %c0 to %[[END]] step %c1 num_stages = 2 {
// CANON: arith.cmpi ugt
// CANON: tile.reduce <max> {{.+}} dim 1 {clear = false}
// CANON: tile.reduce <sum> {{.+}} dim 1 :
// CANON: tile.copy %{{.+}} to %arg3[%bz, %by, %{{.+}}, %c0]
