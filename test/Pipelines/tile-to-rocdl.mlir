// REQUIRES: rocm-device-libs
// RUN: tile-opt %s --tile-to-rocdl="chip=gfx942 format=isa rocm-path=%rocm_path" | FileCheck %s --check-prefixes=ISA,GFX942
// RUN: tile-opt %s --tile-to-rocdl="chip=gfx1100 format=isa rocm-path=%rocm_path" | FileCheck %s --check-prefixes=ISA,GFX1100

// The AMD pipeline on the SIMT path: the kernel becomes AMDGPU assembly for
// the chip, with LDS for the tiles, barriers between tile ops, global loads
// for the edge-guarded copies and no scratch (no spills). Compiled and
// checked here; no AMD GPU runs it.

// GFX942: gpu.binary @gemm_kernel{{ +}}[#gpu.object<#rocdl.target<O = 3, chip = "gfx942", abi = "500">
// GFX1100: gpu.binary @gemm_kernel{{ +}}[#gpu.object<#rocdl.target<O = 3, chip = "gfx1100", abi = "500", flags = {no_wave64}>
// GFX942-SAME: .amdgcn_target \22amdgcn-amd-amdhsa--gfx942
// GFX1100-SAME: .amdgcn_target \22amdgcn-amd-amdhsa--gfx1100
// ISA-SAME: s_barrier
// GFX942-SAME: global_load_ushort
// GFX1100-SAME: global_load_d16_b16
// GFX942-SAME: ds_write_b16
// GFX1100-SAME: ds_store_b16
// GFX942-SAME: ds_read_u16
// GFX1100-SAME: ds_load_u16
// ISA-SAME: .amdhsa_private_segment_fixed_size 0
// GFX942-SAME: .wavefront_size: 64
// GFX1100-SAME: .wavefront_size: 32
module {
  func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %m = memref.dim %A, %c0 : memref<?x?xf16>
    %k = memref.dim %A, %c1 : memref<?x?xf16>
    %n = memref.dim %B, %c1 : memref<?x?xf16>
    %gx = arith.ceildivui %n, %c32 : index
    %gy = arith.ceildivui %m, %c32 : index
    %kt = arith.ceildivui %k, %c32 : index
    tile.kernel grid(%gx, %gy) threads(256) -> (%bx, %by) {
      %a = tile.alloc_shared : memref<32x32xf16, #tile.mem<shared>>
      %b = tile.alloc_shared : memref<32x32xf16, #tile.mem<shared>>
      %c = tile.alloc_fragment : memref<32x32xf32, #tile.mem<fragment>>
      %row = arith.muli %by, %c32 : index
      %col = arith.muli %bx, %c32 : index
      tile.clear %c : memref<32x32xf32, #tile.mem<fragment>>
      tile.pipelined %i = %c0 to %kt step %c1 num_stages = 2 {
        %kk = arith.muli %i, %c32 : index
        tile.copy %A[%row, %kk] to %a : memref<?x?xf16> to memref<32x32xf16, #tile.mem<shared>>
        tile.copy %B[%kk, %col] to %b : memref<?x?xf16> to memref<32x32xf16, #tile.mem<shared>>
        tile.gemm %a, %b, %c : memref<32x32xf16, #tile.mem<shared>>, memref<32x32xf16, #tile.mem<shared>> -> memref<32x32xf32, #tile.mem<fragment>>
      }
      tile.copy %c to %C[%row, %col] : memref<32x32xf32, #tile.mem<fragment>> to memref<?x?xf32>
    }
    return
  }
}
