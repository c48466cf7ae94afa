// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-infer-layout --verify-diagnostics --allow-unregistered-dialect | FileCheck %s
// RUN: tile-opt %tile_src/examples/flash_attention.mlir --tile-attach-target="kind=cuda chip=sm_90a" --tile-infer-layout | FileCheck %s --check-prefix=FA
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=cpu chip=host" --tile-infer-layout --allow-unregistered-dialect 2>/dev/null | FileCheck %s --check-prefix=CPU

// The C tile of a tensor-core gemm takes the m16n8k16 accumulator layout
// over the policy's warp grid: 32x16 over 2 warps is a 2x1 warp grid, each
// warp holding two 16x8 pieces (lane = 4 (i mod 8) + (j mod 8) / 2, four
// slots per piece). A fragment read at the same coordinates of a
// tile.parallel, and the f16 copy of C, share that layout; an unrelated
// fragment gets the row-major default (8 f16 = 16 bytes per thread).
// Without tensor cores (CPU target) C gets the default too. The shared
// operands get the swizzle that keeps ldmatrix conflict-free: rows of two
// 16-byte vectors, XOR-ed by the offset bit above 128 bytes.
// CHECK-LABEL: func.func @gemm_accumulator
// CHECK: tile.alloc_shared {layout = #tile.swizzle<1, 3, 3>} : memref<32x16xf16
// CHECK: tile.alloc_shared {layout = #tile.swizzle<1, 3, 3>} : memref<16x16xf16
// CHECK: tile.alloc_fragment {layout = [[MMA:#tile.fragment<\[32, 16\], thread = \(d0, d1\) -> \(\(d0 floordiv 16 \+ d1 floordiv 16\) \* 32 \+ \(d0 mod 8\) \* 4 \+ \(d1 mod 8\) floordiv 2\), index = \(d0, d1\) -> \(\(\(\(d0 mod 16\) floordiv 16\) \* 2 \+ \(d1 mod 16\) floordiv 8\) \* 4 \+ \(\(d0 mod 16\) floordiv 8\) \* 2 \+ d1 mod 2\), threads = 64>]]} : memref<32x16xf32
// CHECK: tile.alloc_fragment {layout = [[MMA]]} : memref<32x16xf32
// CHECK: tile.alloc_fragment {layout = [[MMA]]} : memref<32x16xf16
// CHECK: tile.alloc_fragment {layout = #tile.fragment<[4, 64], thread = (d0, d1) -> ((d0 * 8 + d1 floordiv 8) mod 64), index = (d0, d1) -> (((d0 * 8 + d1 floordiv 8) floordiv 64) * 8 + d1 mod 8), threads = 64>} : memref<4x64xf16
// CPU-LABEL: func.func @gemm_accumulator
// CPU: tile.alloc_shared : memref<32x16xf16
// CPU: tile.alloc_fragment {layout = #tile.fragment<[32, 16], thread = (d0, d1) -> ((d0 * 4 + d1 floordiv 4) mod 64), index = (d0, d1) -> (((d0 * 4 + d1 floordiv 4) floordiv 64) * 4 + d1 mod 4), threads = 64>} : memref<32x16xf32
func.func @gemm_accumulator(%n: index) {
  tile.kernel grid(%n) threads(64) -> (%bx) {
    %a = tile.alloc_shared : memref<32x16xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    %d = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    %h = tile.alloc_fragment : memref<32x16xf16, #tile.mem<fragment>>
    %other = tile.alloc_fragment : memref<4x64xf16, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {clear_accum} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (32, 16) {
      %v = memref.load %c[%i, %j] : memref<32x16xf32, #tile.mem<fragment>>
      memref.store %v, %d[%i, %j] : memref<32x16xf32, #tile.mem<fragment>>
    }
    tile.copy %c to %h : memref<32x16xf32, #tile.mem<fragment>> to memref<32x16xf16, #tile.mem<fragment>>
    "test.use"(%d, %h, %other) : (memref<32x16xf32, #tile.mem<fragment>>, memref<32x16xf16, #tile.mem<fragment>>, memref<4x64xf16, #tile.mem<fragment>>) -> ()
  }
  return
}

// -----

// A layout the user gave spreads to the fragments that must share it;
// accesses at other coordinates (a transpose) do not join classes.
// CHECK-LABEL: func.func @user_layout
// CHECK: tile.alloc_fragment {layout = [[USER:#tile.fragment<\[8, 8\], thread = \(d0, d1\) -> \(d1\), index = \(d0, d1\) -> \(d0\), threads = 8>]]}
// CHECK: tile.alloc_fragment {layout = [[USER]]}
// CHECK: tile.alloc_fragment {layout = #tile.fragment<[8, 8], thread = (d0, d1) -> ((d0 * 2 + d1 floordiv 4) mod 8)
// CPU-LABEL: func.func @user_layout
func.func @user_layout(%n: index) {
  tile.kernel grid(%n) threads(8) -> (%bx) {
    %x = tile.alloc_fragment {layout = #tile.fragment<[8, 8], thread = (i, j) -> (j), index = (i, j) -> (i), threads = 8>} : memref<8x8xf32, #tile.mem<fragment>>
    %y = tile.alloc_fragment : memref<8x8xf32, #tile.mem<fragment>>
    %t = tile.alloc_fragment : memref<8x8xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (8, 8) {
      %v = memref.load %x[%i, %j] : memref<8x8xf32, #tile.mem<fragment>>
      memref.store %v, %y[%i, %j] : memref<8x8xf32, #tile.mem<fragment>>
      memref.store %v, %t[%j, %i] : memref<8x8xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

// A reduction's result lives on every thread that held part of its row, a
// replica dimension in the thread map: the row maxima of the accumulator
// above on the four lanes of each row of each warp (two registers each);
// the row sums of a default layout on the eight threads of each row (the
// kept extent-1 dimension is ignored). Reductions of replicated layouts are
// not inferred yet: that result takes the default.
// CHECK-LABEL: func.func @reductions
// CHECK: tile.alloc_fragment {layout = #tile.fragment<[32], thread = (d0, d1) -> (d0 * 4 + d1 + (d0 floordiv 16) * 32 + (d1 floordiv 8) * 32 - (d0 floordiv 8) * 32 - (d1 floordiv 4) * 4), index = (d0) -> (((d0 mod 16) floordiv 16) * 4 + (d0 mod 16) floordiv 8), threads = 64, replicate = 4>} : memref<32xf32
// CHECK: tile.alloc_fragment {layout = #tile.fragment<[4, 1], thread = (d0, d1, d2) -> ((d0 * 8 + d2) mod 64), index = (d0, d1) -> ((d0 floordiv 8) * 8), threads = 64, replicate = 8>} : memref<4x1xf16
// CHECK: tile.alloc_fragment {layout = #tile.fragment<[1], thread = (d0) -> (d0 mod 64), index = (d0) -> (d0 floordiv 64), threads = 64>} : memref<1xf16
// CPU-LABEL: func.func @reductions
func.func @reductions(%n: index) {
  tile.kernel grid(%n) threads(64) -> (%bx) {
    %a = tile.alloc_shared : memref<32x16xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<32x16xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
    %x = tile.alloc_fragment : memref<4x64xf16, #tile.mem<fragment>>
    %s = tile.alloc_fragment : memref<4x1xf16, #tile.mem<fragment>>
    %t = tile.alloc_fragment : memref<1xf16, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {clear_accum} : memref<32x16xf16, #tile.mem<shared>>, memref<16x16xf16, #tile.mem<shared>> -> memref<32x16xf32, #tile.mem<fragment>>
    tile.reduce <max> %c to %m dim 1 : memref<32x16xf32, #tile.mem<fragment>> to memref<32xf32, #tile.mem<fragment>>
    tile.reduce <sum> %x to %s dim 1 : memref<4x64xf16, #tile.mem<fragment>> to memref<4x1xf16, #tile.mem<fragment>>
    tile.reduce <sum> %s to %t dim 0 : memref<4x1xf16, #tile.mem<fragment>> to memref<1xf16, #tile.mem<fragment>>
  }
  return
}

// -----

// A reduction result that must also have another layout: the user's.
func.func @reduction_conflict(%n: index) {
  tile.kernel grid(%n) threads(8) -> (%bx) {
    %x = tile.alloc_fragment : memref<8x8xf32, #tile.mem<fragment>>
    // expected-note @+1 {{layout forced here}}
    %m = tile.alloc_fragment {layout = #tile.fragment<[8], thread = (i) -> (i), index = (i) -> (0), threads = 8>} : memref<8xf32, #tile.mem<fragment>>
    // expected-error @+1 {{conflicting fragment layouts}}
    tile.reduce <sum> %x to %m dim 1 : memref<8x8xf32, #tile.mem<fragment>> to memref<8xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// An A tile in registers takes the m16k16 operand layout of its gemm's warp
// grid: here 1x2 warps, so both warps hold all of A (the warp column is the
// replica). In FlashAttention the P tile is both the f16 copy of the first
// gemm's accumulator and the A operand of the second: the two layouts must
// agree element for element (the register reuse of FlashAttention-2), and
// do.
// CHECK-LABEL: func.func @operand_a
// CHECK: tile.alloc_fragment {layout = #tile.fragment<[16, 16], thread = (d0, d1, d2) -> (((d0 floordiv 16) * 2 + d2) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2), index = (d0, d1) -> (((d0 mod 16) floordiv 16 + d1 floordiv 16) * 8 + ((d1 mod 16) floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), threads = 64, replicate = 2>} : memref<16x16xf16
// CPU-LABEL: func.func @operand_a
// FA-LABEL: func.func @flash_attention(
// FA: tile.alloc_fragment {layout = [[ACC:#tile.fragment<[^}]*>]]} : memref<64x64xf32
// FA-NEXT: tile.alloc_fragment {layout = [[ACC]]} : memref<64x64xf16
func.func @operand_a(%n: index) {
  tile.kernel grid(%n) threads(64) -> (%bx) {
    %a = tile.alloc_fragment : memref<16x16xf16, #tile.mem<fragment>>
    %b = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {clear_accum} : memref<16x16xf16, #tile.mem<fragment>>, memref<16x16xf16, #tile.mem<shared>> -> memref<16x16xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// Rows of 128 bytes XOR three vector bits with the row's low bits, rows of
// 256 bytes with the row bits above them; a swizzle the user chose stays.
// CHECK-LABEL: func.func @swizzles
// CHECK: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<64x64xf16
// CHECK: tile.alloc_shared {layout = #tile.swizzle<3, 3, 4>} : memref<64x128xf16
// CHECK: tile.alloc_shared {layout = #tile.swizzle<2, 3, 3>} : memref<64x64xf16
// CPU-LABEL: func.func @swizzles
func.func @swizzles(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
    %a2 = tile.alloc_shared {layout = #tile.swizzle<2, 3, 3>} : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c : memref<64x64xf16, #tile.mem<shared>>, memref<64x128xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a2, %b, %c : memref<64x64xf16, #tile.mem<shared>>, memref<64x128xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// The user's layout for C contradicts the accumulator layout of the
// tensor-core gemm that writes it (the CPU target has no such constraint;
// the last case fails there too, hence `not` on that run).
// CPU-LABEL: func.func @conflict
// CPU: tile.gemm
func.func @conflict(%n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    %a = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<16x8xf16, #tile.mem<shared>>
    // expected-note @+1 {{layout forced here}}
    %c = tile.alloc_fragment {layout = #tile.fragment<[16, 8], thread = (i, j) -> ((i * 8 + j) floordiv 4), index = (i, j) -> (j mod 4), threads = 32>} : memref<16x8xf32, #tile.mem<fragment>>
    // expected-error @+1 {{conflicting fragment layouts}}
    tile.gemm %a, %b, %c : memref<16x16xf16, #tile.mem<shared>>, memref<16x8xf16, #tile.mem<shared>> -> memref<16x8xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// Two fragments whose forced layouts differ cannot be joined by a copy.
func.func @conflicting_join(%n: index) {
  tile.kernel grid(%n) threads(8) -> (%bx) {
    // expected-note @+1 {{layout forced here}}
    %x = tile.alloc_fragment {layout = #tile.fragment<[8, 8], thread = (i, j) -> (j), index = (i, j) -> (i), threads = 8>} : memref<8x8xf32, #tile.mem<fragment>>
    // expected-note @+1 {{and this other layout here}}
    %y = tile.alloc_fragment {layout = #tile.fragment<[8, 8], thread = (i, j) -> (i), index = (i, j) -> (j), threads = 8>} : memref<8x8xf32, #tile.mem<fragment>>
    // expected-error @+1 {{conflicting fragment layouts}}
    tile.copy %x to %y : memref<8x8xf32, #tile.mem<fragment>> to memref<8x8xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// An A tile the user laid out row-major cannot feed the tensor cores.
func.func @operand_a_conflict(%n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    // expected-note @+1 {{layout forced here}}
    %a = tile.alloc_fragment {layout = #tile.fragment<[16, 16], thread = (i, k) -> ((i * 16 + k) floordiv 8), index = (i, k) -> (k mod 8), threads = 32>} : memref<16x16xf16, #tile.mem<fragment>>
    %b = tile.alloc_shared : memref<16x8xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<16x8xf32, #tile.mem<fragment>>
    // expected-error @+1 {{conflicting fragment layouts}}
    tile.gemm %a, %b, %c : memref<16x16xf16, #tile.mem<fragment>>, memref<16x8xf16, #tile.mem<shared>> -> memref<16x8xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// An annotation of a view of a shared tile as another element type is the
// tile's, seen in its element type: the view's bf16 <3, 3, 3> is the f32
// tile's <3, 2, 3> (16-byte units either way). The identity swizzle (a
// row-major layout the user fixed) stays on its tile.
// CHECK-LABEL: func.func @annotated_view
// CHECK: tile.alloc_shared {layout = #tile.swizzle<3, 2, 3>} : memref<64x64xf32, #tile.mem<shared>>
// CHECK: tile.alloc_shared {layout = #tile.swizzle<0, 0, 0>} : memref<2x64x64xf16, #tile.mem<shared>>
// CHECK-NOT: tile.annotate_layout
func.func @annotated_view(%a: memref<64x64xf32>, %b: memref<64x128xbf16>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x64xf32, #tile.mem<shared>>
    %v = tile.view %s : memref<64x64xf32, #tile.mem<shared>> to memref<64x128xbf16, #tile.mem<shared>>
    tile.annotate_layout %v : memref<64x128xbf16, #tile.mem<shared>> layout #tile.swizzle<3, 3, 3>
    %t = tile.alloc_shared : memref<2x64x64xf16, #tile.mem<shared>>
    %w = tile.view %t : memref<2x64x64xf16, #tile.mem<shared>> to memref<2x64x128xi8, #tile.mem<shared>>
    tile.annotate_layout %w : memref<2x64x128xi8, #tile.mem<shared>> layout #tile.swizzle<0, 0, 0>
    tile.copy %a to %s : memref<64x64xf32> to memref<64x64xf32, #tile.mem<shared>>
    tile.copy %v to %b : memref<64x128xbf16, #tile.mem<shared>> to memref<64x128xbf16>
  }
  return
}

// -----

// A swizzle a view of the tile cannot keep (blocked, and the view's rows
// hold other bytes) is dropped: the accesses through the view would not
// apply it.
// CHECK-LABEL: func.func @unkept_by_view
// CHECK: tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
func.func @unkept_by_view(%a: memref<64x128xf16>, %b: memref<128x32xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true>} : memref<64x128xf16, #tile.mem<shared>>
    %v = tile.view %s : memref<64x128xf16, #tile.mem<shared>> to memref<128x32xf32, #tile.mem<shared>>
    tile.copy %a to %s : memref<64x128xf16> to memref<64x128xf16, #tile.mem<shared>>
    tile.copy %v to %b : memref<128x32xf32, #tile.mem<shared>> to memref<128x32xf32>
  }
  return
}
