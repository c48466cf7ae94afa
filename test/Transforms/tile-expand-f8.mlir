// The last case is an error; the others print their expansion.
// RUN: not tile-opt %s --split-input-file --tile-expand-f8 2>/dev/null | FileCheck %s
// RUN: not tile-opt %s --split-input-file --tile-expand-f8 2>&1 | FileCheck %s --check-prefix=ERR
// The f8 gemm that failed with an internal error on every GPU pipeline
// (LLVM translation of an unrealized cast) now compiles on each.
// RUN: tile-opt %S/Inputs/f8-gemm.mlir --tile-to-nvvm="chip=sm_80 format=isa" -o /dev/null
// RUN: tile-opt %S/Inputs/f8-gemm.mlir --tile-to-nvvm="chip=sm_90a format=isa" -o /dev/null
// RUN: tile-opt %S/Inputs/f8-gemm.mlir --tile-to-rocdl="chip=gfx942 format=isa" -o /dev/null
// RUN: tile-opt %S/Inputs/f8-gemm.mlir --tile-to-cpu | FileCheck %s --check-prefix=CPU
// CPU-NOT: f8E4M3FN to f32
// CPU-NOT: arith.extf

// f8E5M2: the upper byte of an f16.
// CHECK-LABEL: func.func @e5m2
// CHECK: %[[B:.*]] = arith.bitcast %{{.*}} : f8E5M2 to i8
// CHECK: %[[W:.*]] = arith.extui %[[B]] : i8 to i16
// CHECK: %[[S:.*]] = arith.shli %[[W]], %{{.*}} : i16
// CHECK: %[[H:.*]] = arith.bitcast %[[S]] : i16 to f16
// CHECK: arith.extf %[[H]] : f16 to f32
// CHECK-NOT: f8E5M2 to f32
func.func @e5m2(%x: f8E5M2) -> f32 {
  %y = arith.extf %x : f8E5M2 to f32
  return %y : f32
}

// -----

// f8E4M3FN: the f32 bits rebuilt (bias 120), subnormals scaled by 2^-9,
// NaN kept; to f16 by an exact truncation.
// CHECK-LABEL: func.func @e4m3
// CHECK-DAG: arith.constant 120 : i32
// CHECK-DAG: arith.constant 0.001953125 : f32
// CHECK-DAG: arith.constant 2143289344 : i32
// CHECK: arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK: %[[F:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.truncf %[[F]] : f32 to f16
func.func @e4m3(%x: f8E4M3FN) -> f16 {
  %y = arith.extf %x : f8E4M3FN to f16
  return %y : f16
}

// -----

// ERR: error: 'arith.addf' op on 8-bit floats (f8E4M3FN, f8E5M2) cannot be lowered
func.func @arith_on_f8(%x: f8E4M3FN) -> f8E4M3FN {
  %y = arith.addf %x, %x : f8E4M3FN
  return %y : f8E4M3FN
}
