// RUN: tile-opt %s --split-input-file --tile-select-register-fragments --convert-tile-to-gpu="stmatrix" --tile-place-shared-memory | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s --check-prefix=OFF

// sm_90, stmatrix: a register fragment in the mma/wgmma accumulator order
// (lane l: row l / 4 of each 8x8 block, columns 2 (l mod 4) and + 1; the
// blocks' slots in the order rows 0-7 / 8-15 of columns 0-7, then of
// 8-15) copied whole into an f16 shared tile is one
// stmatrix.m8n8.x4 per warp: each lane converts its pairs to f16, packs
// each pair into an i32 and gives the address of row (l mod 8) of block
// (l / 8), chosen among the four blocks' origins; a block barrier on each
// side, as for the generic copy. Without the option, element stores.
// CHECK-LABEL: func.func @accumulators
// CHECK: gpu.barrier
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// CHECK: %[[M:.*]] = arith.divui %[[LANE]], %c8
// CHECK: %[[R:.*]] = arith.remui %[[LANE]], %c8
// CHECK-COUNT-3: arith.cmpi eq, %[[M]]
// CHECK: arith.addi %{{.*}}, %[[R]]
// CHECK: %[[P:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK-COUNT-4: vector.bitcast %{{.*}} : vector<2xf16> to vector<1xi32>
// CHECK: nvvm.stmatrix %[[P]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-NEXT: gpu.barrier
// OFF-LABEL: func.func @accumulators
// OFF-NOT: nvvm.stmatrix
// OFF: gpu.terminator
module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @accumulators(%C: memref<?x?xf16>, %n: index) {
    tile.kernel grid(%n) threads(32) -> (%bx) {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %f = tile.alloc_fragment {layout = #tile.fragment<[16, 16], thread = (d0, d1) -> ((d0 mod 8) * 4 + (d1 mod 8) floordiv 2), index = (d0, d1) -> ((d1 floordiv 8) * 4 + (d0 floordiv 8) * 2 + d1 mod 2), threads = 32>} : memref<16x16xf32, #tile.mem<fragment>>
      %s = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
      tile.fill %f, %one : memref<16x16xf32, #tile.mem<fragment>>
      tile.copy %f to %s : memref<16x16xf32, #tile.mem<fragment>> to memref<16x16xf16, #tile.mem<shared>>
      tile.copy %s to %C[%c0, %c0] : memref<16x16xf16, #tile.mem<shared>> to memref<?x?xf16>
    }
    return
  }
}

// -----

// Not stmatrix: a row-major fragment (each lane's elements are not an
// 8x8 block's pairs), and an f32 shared tile (stmatrix stores 16-bit
// elements).
// CHECK-LABEL: func.func @other_layouts
// CHECK-NOT: nvvm.stmatrix
// CHECK: gpu.terminator
module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @other_layouts(%C: memref<?x?xf32>, %n: index) {
    tile.kernel grid(%n) threads(32) -> (%bx) {
      %one = arith.constant 1.0 : f32
      %f = tile.alloc_fragment {layout = #tile.fragment<[16, 16], thread = (d0, d1) -> (d0 * 2 + d1 floordiv 8), index = (d0, d1) -> (d1 mod 8), threads = 32>} : memref<16x16xf32, #tile.mem<fragment>>
      %g = tile.alloc_fragment {layout = #tile.fragment<[16, 16], thread = (d0, d1) -> ((d0 mod 8) * 4 + (d1 mod 8) floordiv 2), index = (d0, d1) -> ((d1 floordiv 8) * 4 + (d0 floordiv 8) * 2 + d1 mod 2), threads = 32>} : memref<16x16xf32, #tile.mem<fragment>>
      %s = tile.alloc_shared : memref<16x16xf16, #tile.mem<shared>>
      %t = tile.alloc_shared : memref<16x16xf32, #tile.mem<shared>>
      tile.fill %f, %one : memref<16x16xf32, #tile.mem<fragment>>
      tile.fill %g, %one : memref<16x16xf32, #tile.mem<fragment>>
      tile.copy %f to %s : memref<16x16xf32, #tile.mem<fragment>> to memref<16x16xf16, #tile.mem<shared>>
      tile.copy %g to %t : memref<16x16xf32, #tile.mem<fragment>> to memref<16x16xf32, #tile.mem<shared>>
    }
    return
  }
}
