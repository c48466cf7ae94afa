// RUN: tile-opt %s --tile-contract-float-ops | FileCheck %s
// RUN: tile-opt %s --tile-contract-float-ops --tile-contract-float-ops | FileCheck %s

// Every floating-point arith and math op gets `contract`, keeping its other
// flags; integer arithmetic has no fast-math flags and is left alone.
// CHECK-LABEL: func.func @scale_shift
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.subf %{{.*}}, %{{.*}} fastmath<nnan,contract> : f32
// CHECK: math.exp2 %{{.*}} fastmath<contract> : f32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
func.func @scale_shift(%x: f32, %m: f32, %s: f32, %i: i32) -> (f32, i32) {
  %a = arith.mulf %x, %s : f32
  %b = arith.subf %a, %m fastmath<nnan> : f32
  %c = math.exp2 %b : f32
  %j = arith.addi %i, %i : i32
  return %c, %j : f32, i32
}

// Conversions keep their flags: with `contract` on the truncf, the
// canonicalizer would fold extf(truncf(x)) to x, dropping the rounding.
// CHECK-LABEL: func.func @round_through_f16
// CHECK: arith.truncf %{{[[:alnum:]_]+}} : f32 to f16
// CHECK: arith.extf %{{[[:alnum:]_]+}} : f16 to f32
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
func.func @round_through_f16(%x: f32) -> f32 {
  %h = arith.truncf %x : f32 to f16
  %y = arith.extf %h : f16 to f32
  %z = arith.mulf %y, %y : f32
  return %z : f32
}
