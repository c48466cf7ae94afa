// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions="wgmma-blocked wgmma-panels" --tile-infer-layout | FileCheck %s
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions="wgmma-blocked" --tile-infer-layout | FileCheck %s --check-prefix=BLOCKED

// Windows of a wider shared tile as gemm operands (TileLang's
// `Q_shared[:, :512]` and `Q_shared[:, 512:]` of a 64x576 tile: the MLA
// query and its rotary part). The tile takes the swizzle of its own rows:
// in column panels (the sm_90a pipeline's default), each window of whole
// panels is a wgmma operand, the descriptors starting at its first panel.
// Stored in 8-row groups instead, a window of part of the rows is not (its
// 8-row groups are not the tile's), so those gemms stay on mma.sync, which
// reads the window through the tile's swizzle. A window that anything but
// gemms reads (here a load) keeps its tile unswizzled.

// CHECK-LABEL: func.func @query_windows
// CHECK: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true, panels = true>} : memref<64x576xbf16, #tile.mem<shared>>
// CHECK: tile.alloc_shared : memref<64x576xbf16, #tile.mem<shared>>
// CHECK: tile.gemm {{.*}}instruction = #tile.gemm_instruction<wgmma m64n32k16, blocked, panels>{{.*}}memref<64x512xbf16, strided<[576, 1]>
// CHECK: tile.gemm {{.*}}instruction = #tile.gemm_instruction<wgmma m64n32k16, blocked, panels>{{.*}}memref<64x64xbf16, strided<[576, 1], offset: 512>
// CHECK: tile.gemm {{.*}}instruction = #tile.gemm_instruction<mma_sync m16n8k16, blocked, panels>
// BLOCKED-LABEL: func.func @query_windows
// BLOCKED: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true>} : memref<64x576xbf16, #tile.mem<shared>>
// BLOCKED: tile.gemm {{.*}}instruction = #tile.gemm_instruction<mma_sync m16n8k16, blocked>
// BLOCKED: tile.gemm {{.*}}instruction = #tile.gemm_instruction<mma_sync m16n8k16, blocked>
func.func @query_windows(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %q = tile.alloc_shared : memref<64x576xbf16, #tile.mem<shared>>
    %u = tile.alloc_shared : memref<64x576xbf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<32x512xbf16, #tile.mem<shared>>
    %kt = tile.alloc_shared : memref<32x64xbf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x32xf32, #tile.mem<fragment>>
    %d = tile.alloc_fragment : memref<64x32xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    %v = memref.subview %q[0, 0] [64, 512] [1, 1] : memref<64x576xbf16, #tile.mem<shared>> to memref<64x512xbf16, strided<[576, 1]>, #tile.mem<shared>>
    tile.gemm %v, %k, %c {transpose_b} : memref<64x512xbf16, strided<[576, 1]>, #tile.mem<shared>>, memref<32x512xbf16, #tile.mem<shared>> -> memref<64x32xf32, #tile.mem<fragment>>
    %w = memref.subview %q[0, 512] [64, 64] [1, 1] : memref<64x576xbf16, #tile.mem<shared>> to memref<64x64xbf16, strided<[576, 1], offset: 512>, #tile.mem<shared>>
    tile.gemm %w, %kt, %c {transpose_b} : memref<64x64xbf16, strided<[576, 1], offset: 512>, #tile.mem<shared>>, memref<32x64xbf16, #tile.mem<shared>> -> memref<64x32xf32, #tile.mem<fragment>>
    %x = memref.subview %u[0, 512] [64, 64] [1, 1] : memref<64x576xbf16, #tile.mem<shared>> to memref<64x64xbf16, strided<[576, 1], offset: 512>, #tile.mem<shared>>
    tile.gemm %x, %kt, %d {transpose_b} : memref<64x64xbf16, strided<[576, 1], offset: 512>, #tile.mem<shared>>, memref<32x64xbf16, #tile.mem<shared>> -> memref<64x32xf32, #tile.mem<fragment>>
    %e = memref.load %x[%c0, %c0] : memref<64x64xbf16, strided<[576, 1], offset: 512>, #tile.mem<shared>>
  }
  return
}

// Half of one stage of a hand-buffered tile as an MN-major B
// (`KV_shared[stage, :, :256]`, TileLang's sparse_mla_fwd_pipelined): a
// window of whole panels of that stage's page.
// CHECK-LABEL: func.func @half_stages
// CHECK: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true, panels = true>} : memref<2x32x512xbf16, #tile.mem<shared>>
// CHECK: tile.gemm {{.*}}instruction = #tile.gemm_instruction<wgmma m64n256k16, blocked, panels>
// CHECK: tile.gemm {{.*}}instruction = #tile.gemm_instruction<wgmma m64n256k16, blocked, panels>
func.func @half_stages(%n: index, %s: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %p = tile.alloc_shared : memref<64x32xbf16, #tile.mem<shared>>
    %kv = tile.alloc_shared : memref<2x32x512xbf16, #tile.mem<shared>>
    %l = tile.alloc_fragment : memref<64x256xf32, #tile.mem<fragment>>
    %r = tile.alloc_fragment : memref<64x256xf32, #tile.mem<fragment>>
    %a = memref.subview %kv[%s, 0, 0] [1, 32, 256] [1, 1, 1] : memref<2x32x512xbf16, #tile.mem<shared>> to memref<32x256xbf16, strided<[512, 1], offset: ?>, #tile.mem<shared>>
    tile.gemm %p, %a, %l : memref<64x32xbf16, #tile.mem<shared>>, memref<32x256xbf16, strided<[512, 1], offset: ?>, #tile.mem<shared>> -> memref<64x256xf32, #tile.mem<fragment>>
    %b = memref.subview %kv[%s, 0, 256] [1, 32, 256] [1, 1, 1] : memref<2x32x512xbf16, #tile.mem<shared>> to memref<32x256xbf16, strided<[512, 1], offset: ?>, #tile.mem<shared>>
    tile.gemm %p, %b, %r : memref<64x32xbf16, #tile.mem<shared>>, memref<32x256xbf16, strided<[512, 1], offset: ?>, #tile.mem<shared>> -> memref<64x256xf32, #tile.mem<fragment>>
  }
  return
}
