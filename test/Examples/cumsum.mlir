// RUN: tile-opt %tile_examples/cumsum.mlir | tile-opt | FileCheck %tile_examples/cumsum.mlir
// RUN: tile-opt %tile_examples/cumsum.mlir --canonicalize | FileCheck %s --check-prefix=CANON

// The in-place scans and the copies around them survive canonicalization.
// CANON-LABEL: func.func @cumsum(
// CANON: tile.kernel grid(%{{.+}}) threads(128) -> (%bx) {
// CANON: %[[XS:.+]] = tile.alloc_shared : memref<32x256xf32, #tile.mem<shared>>
// CANON: tile.copy %arg0[%{{.+}}, %c0] to %[[XS]]
// CANON-NEXT: tile.cumsum %[[XS]] to %[[XS]] dim 1 : memref<32x256xf32, #tile.mem<shared>>
// CANON-NEXT: tile.copy %[[XS]] to %arg1[%{{.+}}, %c0]

// CANON-LABEL: func.func @cumsum_reverse(
// CANON: tile.kernel grid(%{{.+}}) threads(128) -> (%bx) {
// CANON: %[[XS:.+]] = tile.alloc_shared : memref<32x256xf32, #tile.mem<shared>>
// CANON: tile.copy %arg0[%{{.+}}, %c0] to %[[XS]]
// CANON-NEXT: tile.cumsum %[[XS]] to %[[XS]] dim 1 {reverse} : memref<32x256xf32, #tile.mem<shared>>
// CANON-NEXT: tile.copy %[[XS]] to %arg1[%{{.+}}, %c0]
