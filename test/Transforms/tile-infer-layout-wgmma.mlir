// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions --tile-infer-layout | FileCheck %s
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions=wgmma=false --tile-infer-layout | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_80" --tile-select-instructions --tile-infer-layout | FileCheck %s --check-prefix=OFF

// tile-infer-layout on sm_90 after tile-select-instructions: a gemm on wgmma (f16 -> f32,
// A 128 x 64 and B 256 x 64 K-major with 128-byte rows, 64 rows of C per
// warpgroup of the 256 threads) takes the warpgroup partition, policy
// full_row, whatever its policy, and its C the full_row accumulator layout
// (warp w holds rows 16w..16w+15, all 256 columns); so does a gemm with B
// stored K x N whose 128-byte rows hold all of N (MN-major). Gemms that do
// not fit keep their policy: 128 rows over one warpgroup, a K x N B with
// 256-byte rows, an f16 accumulator, K-major rows of 256 bytes. With wgmma
// off, or before sm_90, the gemms run on mma.sync and keep their policies.
// CHECK-LABEL: func.func @partition
// CHECK: tile.alloc_fragment {layout = #tile.fragment<[128, 256], thread = (d0, d1) -> ((d0 floordiv 16 + d1 floordiv 256) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2)
// CHECK: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<wgmma m64n256k16>, policy = #tile.policy<full_row>, transpose_b}
// CHECK: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<mma_sync m16n8k16>, policy = #tile.policy<full_col>, transpose_b} : memref<128x64xf16
// CHECK: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<wgmma m64n64k16>, policy = #tile.policy<full_row>} : memref<64x64xf16
// CHECK: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<mma_sync m16n8k16>, policy = #tile.policy<full_col>} : memref<64x64xf16{{.*}}, memref<64x128xf16
// CHECK: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<mma_sync m16n8k16>, policy = #tile.policy<full_col>, transpose_b} : {{.*}} -> memref<64x64xf16
// CHECK: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<mma_sync m16n8k16>, policy = #tile.policy<full_col>, transpose_b} : memref<64x128xf16
// OFF-LABEL: func.func @partition
// OFF-NOT: full_row
// OFF: return
func.func @partition(%n: index) {
  tile.kernel grid(%n) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<256x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x256xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b} : memref<128x64xf16, #tile.mem<shared>>, memref<256x64xf16, #tile.mem<shared>> -> memref<128x256xf32, #tile.mem<fragment>>
  }
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b, policy = #tile.policy<full_col>} : memref<128x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
  }
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {policy = #tile.policy<full_col>} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    %wide = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
    %cw = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %wide, %cw {policy = #tile.policy<full_col>} : memref<64x64xf16, #tile.mem<shared>>, memref<64x128xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    %d = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    tile.gemm %a, %b, %d {transpose_b, policy = #tile.policy<full_col>} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf16, #tile.mem<fragment>>
    %w = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
    %e = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %w, %w, %e {transpose_b, policy = #tile.policy<full_col>} : memref<64x128xf16, #tile.mem<shared>>, memref<64x128xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// With wgmma-tall-rows (experimental), one warpgroup may own 128 rows of C
// as two m64 blocks (A in shared memory, N <= 128): the 128-thread
// 128 x 128 gemm takes the warpgroup partition and C the block layout,
// warp w holding rows 16w.. of each block (rows 16w + r and 64 + 16w + r),
// slots block after block. Without the option it keeps its policy.
// TALL-LABEL: func.func @tall
// TALL: tile.alloc_fragment {layout = #tile.fragment<[128, 128], thread = (d0, d1) -> (((d0 floordiv 128) * 4 + (d0 mod 64) floordiv 16) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2), index = (d0, d1) -> (((d0 mod 128) floordiv 64) * 64 + (d1 floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), threads = 128>}
// TALL: tile.gemm {{.*}} {instruction = #tile.gemm_instruction<wgmma m64n128k16, blocks = 2>, policy = #tile.policy<full_row>, transpose_b}
// NOTALL-LABEL: func.func @tall
// NOTALL-NOT: full_row
// NOTALL: return
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions=wgmma-tall-rows --tile-infer-layout | FileCheck %s --check-prefix=TALL
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions --tile-infer-layout | FileCheck %s --check-prefix=NOTALL
func.func @tall(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b} : memref<128x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
  }
  return
}

// A gemm on stages of tiles the kernel buffers by hand (TileLang's
// `A_shared[s, :, :]`: subviews at a leading index) on wgmma: the
// allocations take the swizzle wgmma reads, each stage swizzled as the tile
// alone would be. A view at a column offset (`A_shared[:, 32:]`, a window
// of its tile's rows) gives its tile the swizzle of the whole tile, which
// ldmatrix reads through the window; wgmma's descriptors take only whole
// rows of a tile that is not stored in column panels, so the gemm is on
// mma.sync.
// CHECK-LABEL: func.func @stage_views
// CHECK: tile.alloc_shared {layout = #tile.swizzle<2, 3, 3>} : memref<2x64x32xf16, #tile.mem<shared>>
// CHECK: tile.alloc_shared {layout = #tile.swizzle<2, 3, 3>} : memref<2x64x32xf16, #tile.mem<shared>>
// CHECK: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<64x64xf16, #tile.mem<shared>>
// CHECK: instruction = #tile.gemm_instruction<wgmma m64n64k16>
// CHECK: instruction = #tile.gemm_instruction<mma_sync m16n8k16>
// CHECK: return
func.func @stage_views(%n: index, %s: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<2x64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<2x64x32xf16, #tile.mem<shared>>
    %w = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %d = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %va = memref.subview %a[%s, 0, 0] [1, 64, 32] [1, 1, 1] : memref<2x64x32xf16, #tile.mem<shared>> to memref<64x32xf16, strided<[32, 1], offset: ?>, #tile.mem<shared>>
    %vb = memref.subview %b[%s, 0, 0] [1, 64, 32] [1, 1, 1] : memref<2x64x32xf16, #tile.mem<shared>> to memref<64x32xf16, strided<[32, 1], offset: ?>, #tile.mem<shared>>
    tile.gemm %va, %vb, %c {transpose_b} : memref<64x32xf16, strided<[32, 1], offset: ?>, #tile.mem<shared>>, memref<64x32xf16, strided<[32, 1], offset: ?>, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    %vw = memref.subview %w[0, 32] [64, 32] [1, 1] : memref<64x64xf16, #tile.mem<shared>> to memref<64x32xf16, strided<[64, 1], offset: 32>, #tile.mem<shared>>
    tile.gemm %vw, %vb, %d {transpose_b} : memref<64x32xf16, strided<[64, 1], offset: 32>, #tile.mem<shared>>, memref<64x32xf16, strided<[32, 1], offset: ?>, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

