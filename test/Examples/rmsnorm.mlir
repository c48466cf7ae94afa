// RUN: tile-opt %tile_examples/rmsnorm.mlir | tile-opt | FileCheck %tile_examples/rmsnorm.mlir
// RUN: tile-opt %tile_examples/rmsnorm.mlir --tile-infer-layout | FileCheck %s --check-prefix=LAYOUT
// RUN: tile-opt %tile_examples/rmsnorm.mlir --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX

// The annotations become the allocations' layouts; the squares share x's
// layout (same parallel coordinates) and the row sums take the reduced
// layout: row i on the 32 lanes of warp i, one slot.
// LAYOUT-LABEL: func.func @rmsnorm(
// LAYOUT: tile.alloc_fragment {layout = #tile.fragment<[8, 1024], thread = (d0, d1) -> (d0 * 32 + (d1 floordiv 4) mod 32), index = (d0, d1) -> ((d1 floordiv 128) * 4 + d1 mod 4), threads = 256>} : memref<8x1024xf32
// LAYOUT-NEXT: tile.alloc_fragment {layout = #tile.fragment<[8, 1024], thread = (d0, d1) -> (d0 * 32 + (d1 floordiv 4) mod 32), index = (d0, d1) -> ((d1 floordiv 128) * 4 + d1 mod 4), threads = 256>} : memref<8x1024xf32
// LAYOUT-NEXT: tile.alloc_fragment {layout = #tile.fragment<[1024], {{.*}}replicate = 8>} : memref<1024xf32
// LAYOUT-NEXT: tile.alloc_fragment {layout = #tile.fragment<[8], thread = (d0, d1) -> (d0 * 32 + d1 mod 32), index = (d0) -> (0), threads = 256, replicate = 32>} : memref<8xf32
// LAYOUT-NOT: tile.annotate_layout

// Every fragment in registers: 16-byte loads and stores, the row sum by five
// butterfly shuffles, no shared memory and no barrier.
// PTX-NOT: .local
// PTX-NOT: bar.sync
// PTX: ld.global.v4
// PTX-COUNT-5: shfl.sync.bfly.b32
// PTX: rsqrt.approx
// PTX: st.global.v4
// PTX-NOT: ld.shared
// PTX-NOT: bar.sync
