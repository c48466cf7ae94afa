// The last two cases are errors; the others print their expansion.
// RUN: not tile-opt %s --split-input-file --tile-expand-f8 2>/dev/null | FileCheck %s
// RUN: not tile-opt %s --split-input-file --tile-expand-f8 2>&1 | FileCheck %s --check-prefix=ERR
// The f8 gemm that failed with an internal error on every GPU pipeline
// (LLVM translation of an unrealized cast) now compiles on each.
// RUN: tile-opt %S/Inputs/f8-gemm.mlir --tile-to-nvvm="chip=sm_80 format=isa" -o /dev/null
// RUN: tile-opt %S/Inputs/f8-gemm.mlir --tile-to-nvvm="chip=sm_90a format=isa" -o /dev/null
// RUN: tile-opt %S/Inputs/f8-gemm.mlir --tile-to-rocdl="chip=gfx942 format=isa" -o /dev/null
// RUN: tile-opt %S/Inputs/f8-gemm.mlir --tile-to-cpu | FileCheck %s --check-prefix=CPU
// Arithmetic on f8 is a located error on every pipeline (it was "failed to
// legalize math.absf" or an LLVM translation failure).
// RUN: not tile-opt %S/Inputs/f8-absmax.mlir --tile-to-cpu 2>&1 | FileCheck %s --check-prefix=ABSMAX
// An op of an unregistered dialect (allowed by the tool) is checked by its
// name (it has no dialect object; the check dereferenced it, a crash the
// pass fuzzer found): one on f32 passes, one on f8 is the located error.
// RUN: not tile-opt %s --split-input-file --allow-unregistered-dialect --tile-expand-f8 2> %t.err | FileCheck %s --check-prefix=UNREG
// RUN: FileCheck %s --check-prefix=UNREG-ERR < %t.err
// RUN: not tile-opt %S/Inputs/f8-absmax.mlir --tile-to-nvvm="chip=sm_90a format=isa" 2>&1 | FileCheck %s --check-prefix=ABSMAX
// RUN: not tile-opt %S/Inputs/f8-absmax.mlir --tile-to-rocdl="chip=gfx942 format=isa" 2>&1 | FileCheck %s --check-prefix=ABSMAX
// ABSMAX: f8-absmax.mlir:10:5: error: 'math.absf' op on 8-bit floats (f8E4M3FN, f8E5M2, f8E8M0FNU) cannot be lowered
// CPU-NOT: f8E4M3FN to f32
// CPU-NOT: arith.extf

// UNREG-LABEL: func.func @unregistered
// UNREG: "test.use"(%{{.*}}) : (f32) -> ()
// UNREG-ERR: error: 'test.use' op on 8-bit floats (f8E4M3FN, f8E5M2, f8E8M0FNU) cannot be lowered
func.func @unregistered(%x: f32) {
  "test.use"(%x) : (f32) -> ()
  return
}

// -----

func.func @unregistered_f8(%y: f8E4M3FN) {
  "test.use"(%y) : (f8E4M3FN) -> ()
  return
}

// -----

// f8E5M2: exponent + 112, subnormals scaled by 2^-16, infinities kept.
// CHECK-LABEL: func.func @e5m2
// CHECK-DAG: arith.constant 112 : i32
// CHECK-DAG: arith.constant 1.52587891E-5 : f32
// CHECK-DAG: arith.constant 2139095040 : i32
// CHECK: %[[B:.*]] = arith.bitcast %{{.*}} : f8E5M2 to i8
// CHECK: arith.extui %[[B]] : i8 to i32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
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

// Vectors (what a vectorized copy of an f8 tile produces) expand the same
// way, with splat constants.
// CHECK-LABEL: func.func @vector
// CHECK-DAG: arith.constant dense<112> : vector<4xi32>
// CHECK: arith.bitcast %{{.*}} : vector<4xf8E5M2> to vector<4xi8>
// CHECK: arith.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
func.func @vector(%x: vector<4xf8E5M2>) -> vector<4xf32> {
  %y = arith.extf %x : vector<4xf8E5M2> to vector<4xf32>
  return %y : vector<4xf32>
}

// -----

// Choosing one of two values moves bytes: left as it is (a copy's zero
// past a global edge).
// CHECK-LABEL: func.func @select
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f8E4M3FN
func.func @select(%c: i1, %x: f8E4M3FN) -> f8E4M3FN {
  %zero = arith.constant 0.0 : f8E4M3FN
  %y = arith.select %c, %x, %zero : f8E4M3FN
  return %y : f8E4M3FN
}

// -----

// Comparisons compare the exact f32 values.
// CHECK-LABEL: func.func @compare
// CHECK: %[[C:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK: return %[[C]]
func.func @compare(%x: f8E4M3FN, %y: f8E4M3FN) -> i1 {
  %c = arith.cmpf olt, %x, %y : f8E4M3FN
  return %c : i1
}

// -----

// max/min pick one operand: the f32 op decides, the operand it picked is
// selected by bits (maximumf: a NaN operand is the result), nothing is
// rounded back to 8 bits.
// CHECK-LABEL: func.func @maximum
// CHECK: %[[M:.*]] = arith.maximumf %[[WA:.*]], %{{.*}} : f32
// CHECK: %[[MB:.*]] = arith.bitcast %[[M]] : f32 to i32
// CHECK: %[[AB:.*]] = arith.bitcast %[[WA]] : f32 to i32
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[MB]], %[[AB]] : i32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[WA]], %[[WA]] : f32
// CHECK: %[[PICK:.*]] = arith.ori %[[EQ]], %[[NAN]] : i1
// CHECK: arith.select %[[PICK]], %arg0, %arg1 : f8E4M3FN
// CHECK-NOT: arith.truncf
func.func @maximum(%a: f8E4M3FN, %b: f8E4M3FN) -> f8E4M3FN {
  %m = arith.maximumf %a, %b : f8E4M3FN
  return %m : f8E4M3FN
}

// -----

// CHECK-LABEL: func.func @minnum_vector
// CHECK: arith.minnumf %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK-NOT: arith.cmpf uno
// CHECK: arith.select %{{.*}}, %arg0, %arg1 : vector<2xi1>, vector<2xf8E5M2>
func.func @minnum_vector(%a: vector<2xf8E5M2>, %b: vector<2xf8E5M2>) -> vector<2xf8E5M2> {
  %m = arith.minnumf %a, %b : vector<2xf8E5M2>
  return %m : vector<2xf8E5M2>
}

// -----

// f32 -> f8E4M3FN: integer code on the bits (exponent rebiased by
// 120 << 23, 20 mantissa bits rounded off to nearest even; subnormals by a
// variable shift), saturating at 0x7E, the sign from the bits, NaN 0x7F.
// CHECK-LABEL: func.func @trunc_e4m3
// CHECK-DAG: arith.constant 1006632960 : i32
// CHECK-DAG: arith.constant 126 : i32
// CHECK-DAG: arith.constant 127 : i32
// CHECK: %[[BITS:.*]] = arith.bitcast %arg0 : f32 to i32
// CHECK: arith.minui %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpf uno, %arg0, %arg0 : f32
// CHECK: arith.cmpi slt, %[[BITS]], %{{.*}} : i32
// CHECK: %[[BYTE:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK: arith.bitcast %[[BYTE]] : i8 to f8E4M3FN
// CHECK-NOT: arith.truncf
func.func @trunc_e4m3(%x: f32) -> f8E4M3FN {
  %y = arith.truncf %x : f32 to f8E4M3FN
  return %y : f8E4M3FN
}

// -----

// From f16 to f8E5M2 (the same bias: no rebias constant), in i16, vectors
// too; saturating at 0x7B (57344), infinities included.
// CHECK-LABEL: func.func @trunc_e5m2_vector
// CHECK: arith.bitcast %arg0 : vector<2xf16> to vector<2xi16>
// CHECK: arith.minui %{{.*}}, %{{.*}} : vector<2xi16>
// CHECK: arith.trunci %{{.*}} : vector<2xi16> to vector<2xi8>
// CHECK: arith.bitcast %{{.*}} : vector<2xi8> to vector<2xf8E5M2>
// CHECK-NOT: arith.truncf
func.func @trunc_e5m2_vector(%x: vector<2xf16>) -> vector<2xf8E5M2> {
  %y = arith.truncf %x : vector<2xf16> to vector<2xf8E5M2>
  return %y : vector<2xf8E5M2>
}

// -----

// f32 -> f4E2M1FN: seven midpoint comparisons of |x| (ties up where the
// upper code is even: uge; down: ugt), the sign from the bits where x is a
// number, no float ops of MLIR's expansion (which rounds ties away).
// CHECK-LABEL: func.func @trunc_f4
// CHECK: %[[ABS:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.cmpf ugt, %[[ABS]], %{{.*}} : f32
// CHECK: arith.cmpf uge, %[[ABS]], %{{.*}} : f32
// CHECK-COUNT-5: arith.cmpf {{ugt|uge}}, %[[ABS]]
// CHECK: arith.cmpi slt
// CHECK: arith.cmpf ord
// CHECK: %[[CODE:.*]] = arith.ori %{{.*}}, %{{.*}} : i4
// CHECK: arith.bitcast %[[CODE]] : i4 to f4E2M1FN
// CHECK-NOT: arith.truncf
func.func @trunc_f4(%x: f32) -> f4E2M1FN {
  %y = arith.truncf %x : f32 to f4E2M1FN
  return %y : f4E2M1FN
}

// -----

// From f16, compared in f16 (the midpoints are exact there), vectors too.
// CHECK-LABEL: func.func @trunc_f4_vector
// CHECK: arith.cmpf ugt, %{{.*}}, %{{.*}} : vector<4xf16>
// CHECK: arith.bitcast %{{.*}} : vector<4xi4> to vector<4xf4E2M1FN>
func.func @trunc_f4_vector(%x: vector<4xf16>) -> vector<4xf4E2M1FN> {
  %y = arith.truncf %x : vector<4xf16> to vector<4xf4E2M1FN>
  return %y : vector<4xf4E2M1FN>
}

// -----

// f4E2M1FN -> f32 (MLIR's expansion): integer ops on the code.
// CHECK-LABEL: func.func @ext_f4
// CHECK: arith.bitcast %arg0 : f4E2M1FN to i4
// CHECK-NOT: arith.extf
func.func @ext_f4(%x: f4E2M1FN) -> f32 {
  %y = arith.extf %x : f4E2M1FN to f32
  return %y : f32
}

// -----

// Comparisons of 4-bit floats compare their f32 values.
// CHECK-LABEL: func.func @cmp_f4
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : f32
func.func @cmp_f4(%a: f4E2M1FN, %b: f4E2M1FN) -> i1 {
  %c = arith.cmpf olt, %a, %b : f4E2M1FN
  return %c : i1
}

// -----

// ERR: error: 'arith.mulf' op on 4-bit floats (f4E2M1FN) cannot be lowered
func.func @arith_on_f4(%x: f4E2M1FN) -> f4E2M1FN {
  %y = arith.mulf %x, %x : f4E2M1FN
  return %y : f4E2M1FN
}

// -----

// ERR: error: 'arith.addf' op on 8-bit floats (f8E4M3FN, f8E5M2, f8E8M0FNU) cannot be lowered
func.func @arith_on_f8(%x: f8E4M3FN) -> f8E4M3FN {
  %y = arith.addf %x, %x : f8E4M3FN
  return %y : f8E4M3FN
}

// -----

// f8E8M0FNU (the OCP MX scale factor, 2^(b - 127)): byte b to the f32 bits
// b << 23, byte 0 to 2^-127 (the subnormal 0x00400000), 255 to NaN.
// CHECK-LABEL: func.func @ext_e8m0
// CHECK-DAG: arith.constant 23 : i32
// CHECK-DAG: arith.constant 4194304 : i32
// CHECK-DAG: arith.constant 2143289344 : i32
// CHECK: %[[B:.*]] = arith.bitcast %{{.*}} : f8E8M0FNU to i8
// CHECK: arith.extui %[[B]] : i8 to i32
// CHECK: %[[F:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.extf %[[F]] : f32 to f64
// CHECK-NOT: f8E8M0FNU to
func.func @ext_e8m0(%x: f8E8M0FNU) -> f64 {
  %y = arith.extf %x : f8E8M0FNU to f64
  return %y : f64
}

// -----

// To f8E8M0FNU as torch converts: the f32 exponent byte, plus one past
// half of the significand (bit 22 and any lower bit, or bit 22 of a normal
// number), 255 kept (NaN); from f16 through an exact f32.
// CHECK-LABEL: func.func @trunc_e8m0
// CHECK-DAG: arith.constant 4194304 : i32
// CHECK-DAG: arith.constant 4194303 : i32
// CHECK-DAG: arith.constant 255 : i32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.shrui
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: arith.bitcast %{{.*}} : i8 to f8E8M0FNU
// CHECK-NOT: arith.truncf
func.func @trunc_e8m0(%x: f16) -> f8E8M0FNU {
  %y = arith.truncf %x : f16 to f8E8M0FNU
  return %y : f8E8M0FNU
}

// -----

// Integers to f8E8M0FNU through f32 (no clamp: the scale reaches 2^127).
// CHECK-LABEL: func.func @int_to_e8m0
// CHECK-NOT: arith.minsi
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.bitcast %{{.*}} : i8 to f8E8M0FNU
func.func @int_to_e8m0(%x: i64) -> f8E8M0FNU {
  %y = arith.sitofp %x : i64 to f8E8M0FNU
  return %y : f8E8M0FNU
}

// -----

// ERR: error: 'arith.mulf' op on 8-bit floats (f8E4M3FN, f8E5M2, f8E8M0FNU) cannot be lowered
func.func @arith_on_e8m0(%x: f8E8M0FNU) -> f8E8M0FNU {
  %y = arith.mulf %x, %x : f8E8M0FNU
  return %y : f8E8M0FNU
}
