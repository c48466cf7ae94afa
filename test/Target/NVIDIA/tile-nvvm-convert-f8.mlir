// RUN: tile-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tile-nvvm-convert-f8))' | FileCheck %s
// The whole NVVM pipeline: the instruction in the PTX on sm_89 and newer,
// tile-expand-f8's integer code (no cvt to f8) on sm_80.
// RUN: tile-opt %S/Inputs/cast-to-f8.mlir --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX90
// RUN: tile-opt %S/Inputs/cast-to-f8.mlir --tile-to-nvvm="chip=sm_80 format=isa" | FileCheck %s --check-prefix=PTX80

// PTX90: gpu.binary @cast_kernel
// PTX90-SAME: cvt.rn.satfinite.e4m3x2.f32
// PTX80: gpu.binary @cast_kernel
// PTX80-NOT: satfinite

// A scalar converts its value twice and keeps byte 0 (b's, the low half).
// CHECK-LABEL: gpu.func @scalar
// CHECK: %[[P:.*]] = nvvm.convert.f32x2.to.f8x2 %arg0, %arg0 {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
// CHECK: %[[B:.*]] = vector.extract %[[P]][0] : i8 from vector<2xi8>
// CHECK: arith.bitcast %[[B]] : i8 to f8E4M3FN
// CHECK-NOT: arith.truncf
gpu.module @scalar_module [#nvvm.target<chip = "sm_90a">] {
  gpu.func @scalar(%x: f32, %p: memref<4xf8E4M3FN>) kernel {
    %y = arith.truncf %x : f32 to f8E4M3FN
    %c0 = arith.constant 0 : index
    memref.store %y, %p[%c0] : memref<4xf8E4M3FN>
    gpu.return
  }
}

// -----

// Vectors: one instruction per pair, element k as b (byte 0), k + 1 as a;
// an odd element alone pairs with itself. f16 widens exactly to f32 first.
// CHECK-LABEL: gpu.func @vectors
// CHECK: %[[W:.*]] = arith.extf %arg0 : vector<3xf16> to vector<3xf32>
// CHECK: %[[E0:.*]] = vector.extract %[[W]][0]
// CHECK: %[[E1:.*]] = vector.extract %[[W]][1]
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[E1]], %[[E0]] {{.*}}(f8E5M2)
// CHECK: %[[E2:.*]] = vector.extract %[[W]][2]
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[E2]], %[[E2]] {{.*}}(f8E5M2)
// CHECK: arith.bitcast %{{.*}} : vector<3xi8> to vector<3xf8E5M2>
gpu.module @vector_module [#nvvm.target<chip = "sm_89">] {
  gpu.func @vectors(%h: vector<3xf16>, %p: memref<3xf8E5M2>) kernel {
    %y = arith.truncf %h : vector<3xf16> to vector<3xf8E5M2>
    %c0 = arith.constant 0 : index
    vector.store %y, %p[%c0] : memref<3xf8E5M2>, vector<3xf8E5M2>
    gpu.return
  }
}

// -----

// Left to tile-expand-f8: chips before sm_89, f64 sources (a detour through
// f32 would round twice), modules without an NVVM target.
// CHECK-LABEL: gpu.module @old
// CHECK: arith.truncf %arg0 : f32 to f8E4M3FN
// CHECK-LABEL: gpu.module @wide
// CHECK: arith.truncf %arg0 : f64 to f8E4M3FN
// CHECK-LABEL: gpu.module @untargeted
// CHECK: arith.truncf %arg0 : f32 to f8E4M3FN
// CHECK-NOT: nvvm.convert
gpu.module @old [#nvvm.target<chip = "sm_80">] {
  gpu.func @f(%x: f32, %p: memref<1xf8E4M3FN>) kernel {
    %y = arith.truncf %x : f32 to f8E4M3FN
    %c0 = arith.constant 0 : index
    memref.store %y, %p[%c0] : memref<1xf8E4M3FN>
    gpu.return
  }
}
gpu.module @wide [#nvvm.target<chip = "sm_90a">] {
  gpu.func @f(%x: f64, %p: memref<1xf8E4M3FN>) kernel {
    %y = arith.truncf %x : f64 to f8E4M3FN
    %c0 = arith.constant 0 : index
    memref.store %y, %p[%c0] : memref<1xf8E4M3FN>
    gpu.return
  }
}
gpu.module @untargeted {
  gpu.func @f(%x: f32, %p: memref<1xf8E4M3FN>) kernel {
    %y = arith.truncf %x : f32 to f8E4M3FN
    %c0 = arith.constant 0 : index
    memref.store %y, %p[%c0] : memref<1xf8E4M3FN>
    gpu.return
  }
}
