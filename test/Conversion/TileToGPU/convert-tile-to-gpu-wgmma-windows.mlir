// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions="wgmma-blocked wgmma-panels" --tile-infer-layout --tile-select-register-fragments --tile-nvvm-arrived-operands --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s

// wgmma on windows of a tile stored in column panels: each descriptor
// starts at the window's first element where the tile's layout puts it.
// The view's address is the row-major one (its offset in the 64x576 bf16
// tile: 512 elements = 1024 bytes for `Q[:, 512:]`); the panel it starts
// at is 8 panels of 64 rows x 128 bytes = 65536 bytes in, so the
// descriptor adds 65536 - 1024 = 64512 bytes. `Q[:, :512]` starts where
// the tile does (nothing added) and reads its eight panels 64 x 128 bytes
// apart: a leading byte offset of 8192 / 16 = 512 units (512 << 16 in the
// descriptor's low word; the high word, stride byte offset 1024 / 16 and
// the 128-byte swizzle, is the same for every operand here). `Q[:, 512:]`
// is one panel, read as a tile of 128-byte rows (leading byte offset 1,
// unused).

// CHECK-LABEL: func.func @query_windows
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.constant 33554432 : i32
// CHECK: arith.constant 4611686293305294848 : i64
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: arith.constant 64512
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.constant 65536 : i32
// CHECK: arith.constant 64512 : index
// CHECK-NEXT: arith.addi
// CHECK: nvvm.wgmma.mma_async
// CHECK: return
func.func @query_windows(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %q = tile.alloc_shared : memref<64x576xbf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<32x512xbf16, #tile.mem<shared>>
    %kt = tile.alloc_shared : memref<32x64xbf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x32xf32, #tile.mem<fragment>>
    %v = memref.subview %q[0, 0] [64, 512] [1, 1] : memref<64x576xbf16, #tile.mem<shared>> to memref<64x512xbf16, strided<[576, 1]>, #tile.mem<shared>>
    tile.gemm %v, %k, %c {transpose_b} : memref<64x512xbf16, strided<[576, 1]>, #tile.mem<shared>>, memref<32x512xbf16, #tile.mem<shared>> -> memref<64x32xf32, #tile.mem<fragment>>
    %w = memref.subview %q[0, 512] [64, 64] [1, 1] : memref<64x576xbf16, #tile.mem<shared>> to memref<64x64xbf16, strided<[576, 1], offset: 512>, #tile.mem<shared>>
    tile.gemm %w, %kt, %c {transpose_b} : memref<64x64xbf16, strided<[576, 1], offset: 512>, #tile.mem<shared>>, memref<32x64xbf16, #tile.mem<shared>> -> memref<64x32xf32, #tile.mem<fragment>>
  }
  return
}

// The right half of a stage of a 2x32x512 tile as an MN-major B: the view
// is 256 elements (512 bytes) into its page, the page's panels 32 x 128 =
// 4096 bytes apart, so its first panel (the fifth) is 16384 bytes in: the
// descriptor adds 16384 - 512 = 15872 bytes.
// CHECK-LABEL: func.func @half_stage
// CHECK: arith.constant 15872 : index
// CHECK: return
func.func @half_stage(%n: index, %s: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %p = tile.alloc_shared : memref<64x32xbf16, #tile.mem<shared>>
    %kv = tile.alloc_shared : memref<2x32x512xbf16, #tile.mem<shared>>
    %r = tile.alloc_fragment : memref<64x256xf32, #tile.mem<fragment>>
    %b = memref.subview %kv[%s, 0, 256] [1, 32, 256] [1, 1, 1] : memref<2x32x512xbf16, #tile.mem<shared>> to memref<32x256xbf16, strided<[512, 1], offset: ?>, #tile.mem<shared>>
    tile.gemm %p, %b, %r : memref<64x32xbf16, #tile.mem<shared>>, memref<32x256xbf16, strided<[512, 1], offset: ?>, #tile.mem<shared>> -> memref<64x256xf32, #tile.mem<fragment>>
  }
  return
}
