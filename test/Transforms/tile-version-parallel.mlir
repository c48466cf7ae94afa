// RUN: tile-opt %s --split-input-file --tile-version-parallel | FileCheck %s

// FlashAttention's mask: the sequence end (seq > k128 + j) and causality
// (b128 + i >= k128 + j). All visible where the smallest differences are
// positive: seq - k128 - 127 > 0 and b128 - k128 - 127 >= 0; none where
// seq - k128 <= 0 or b128 - k128 < -127. The copies store the constants;
// the general case stays as it was, in the innermost else.
// CHECK-LABEL: func.func @causal_mask
// CHECK: scf.for %[[K:.*]] =
// CHECK: %[[NK:.*]] = arith.muli %[[K]], %c-128
// CHECK: %[[SEQ:.*]] = arith.addi %arg0, %[[NK]]
// CHECK: %[[IN_ALL:.*]] = arith.cmpi sgt, %[[SEQ]], %c127
// CHECK: %[[IN_NONE:.*]] = arith.cmpi sle, %[[SEQ]], %c0
// CHECK: %[[B128:.*]] = arith.muli %{{.*}}, %c128
// CHECK: %[[DIAG:.*]] = arith.addi %[[B128]], %{{.*}}
// CHECK: %[[C_ALL:.*]] = arith.cmpi sge, %[[DIAG]], %c127
// CHECK: %[[C_NONE:.*]] = arith.cmpi slt, %[[DIAG]], %c-127
// CHECK: %[[ALL:.*]] = arith.andi %[[IN_ALL]], %[[C_ALL]] : i1
// CHECK: %[[NONE:.*]] = arith.ori %[[IN_NONE]], %[[C_NONE]] : i1
// CHECK: scf.if %[[ALL]] {
// CHECK-NEXT: tile.parallel
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: memref.store %[[ZERO]]
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.if %[[NONE]] {
// CHECK-NEXT: tile.parallel
// CHECK-NEXT: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: memref.store %[[NINF]]
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.parallel
// CHECK: arith.cmpi sgt
// CHECK: arith.cmpi sge
// CHECK: arith.select
func.func @causal_mask(%seq: index, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%b) {
    %s = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %k = %c0 to %n step %c1 {
      tile.parallel (%i, %j) in (128, 128) {
        %c128 = arith.constant 128 : index
        %k128 = arith.muli %k, %c128 : index
        %col = arith.addi %k128, %j : index
        %in = arith.cmpi sgt, %seq, %col : index
        %b128 = arith.muli %b, %c128 : index
        %row = arith.addi %b128, %i : index
        %causal = arith.cmpi sge, %row, %col : index
        %visible = arith.andi %in, %causal : i1
        %zero = arith.constant 0.0 : f32
        %ninf = arith.constant 0xFF800000 : f32
        %v = arith.select %visible, %zero, %ninf : f32
        memref.store %v, %s[%i, %j] : memref<128x128xf32, #tile.mem<fragment>>
      }
    }
  }
  return
}

// -----

// Two conditions (two selects): one copy, for both holding everywhere;
// `slt` and `sle` with negative coefficients (n - 2 * i); an scf.if in the
// body folds too.
// CHECK-LABEL: func.func @two_conditions
// CHECK: %[[A:.*]] = arith.cmpi slt, %arg0, %c64
// CHECK: %[[B:.*]] = arith.cmpi sle, %arg1, %c0
// CHECK-NOT: arith.cmpi
// CHECK: %[[BOTH:.*]] = arith.andi %[[A]], %[[B]] : i1
// CHECK: scf.if %[[BOTH]] {
// CHECK-NEXT: tile.parallel (%[[I:.*]]) in (64) {
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%[[I]]]
// CHECK-NEXT: memref.store %[[X]]
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.parallel
// CHECK: arith.select
// CHECK: arith.select
// CHECK: scf.if
// CHECK-NOT: scf.if
func.func @two_conditions(%m: index, %n: index, %x: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%b) {
    %s = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    tile.parallel (%i) in (64) {
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      // m + i < 127 everywhere: m < 64.
      %c127 = arith.constant 127 : index
      %mi = arith.addi %m, %i : index
      %a = arith.cmpi slt, %mi, %c127 : index
      // n - 2 i <= 0 everywhere (its largest value is at i = 0): n <= 0.
      %c2 = arith.constant 2 : index
      %twoi = arith.muli %c2, %i : index
      %d = arith.subi %n, %twoi : index
      %c0 = arith.constant 0 : index
      %bb = arith.cmpi sle, %d, %c0 : index
      %x0 = memref.load %x[%i] : memref<?xf32>
      %v0 = arith.select %a, %x0, %zero : f32
      %v1 = arith.select %bb, %v0, %one : f32
      %v2 = scf.if %a -> f32 {
        scf.yield %v1 : f32
      } else {
        scf.yield %zero : f32
      }
      memref.store %v2, %s[%i] : memref<64xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

// A condition that is the same for the whole tile (computed in the body
// from outside values only) versions too; its computation is cloned in
// front of the op.
// CHECK-LABEL: func.func @uniform
// CHECK: %[[FLAG:.*]] = arith.cmpi ult, %arg0, %arg1 : index
// CHECK: %[[NOT:.*]] = arith.xori %[[FLAG]], %true
// CHECK: scf.if %[[FLAG]] {
// CHECK: } else {
// CHECK-NEXT: scf.if %[[NOT]] {
func.func @uniform(%m: index, %n: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%b) {
    %s = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    tile.parallel (%i) in (64) {
      %flag = arith.cmpi ult, %m, %n : index
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %v = arith.select %flag, %zero, %one : f32
      memref.store %v, %s[%i] : memref<64xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

// Left alone: an unsigned comparison of an index expression, a condition
// on loaded data, and a multiplication of two indices.
// CHECK-LABEL: func.func @unknown
// CHECK-NOT: scf.if
// CHECK: tile.parallel
// CHECK: tile.parallel
// CHECK: tile.parallel
// CHECK-NOT: scf.if
func.func @unknown(%m: index, %x: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%b) {
    %s = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %zero = arith.constant 0.0 : f32
    tile.parallel (%i) in (64) {
      %mi = arith.addi %m, %i : index
      %c = arith.cmpi ult, %mi, %m : index
      %v = arith.select %c, %zero, %zero : f32
      memref.store %v, %s[%i] : memref<64xf32, #tile.mem<fragment>>
    }
    tile.parallel (%i) in (64) {
      %x0 = memref.load %x[%i] : memref<?xf32>
      %c = arith.cmpf ogt, %x0, %zero : f32
      %v = arith.select %c, %x0, %zero : f32
      memref.store %v, %s[%i] : memref<64xf32, #tile.mem<fragment>>
    }
    tile.parallel (%i) in (64) {
      %ii = arith.muli %i, %i : index
      %c = arith.cmpi slt, %ii, %m : index
      %v = arith.select %c, %zero, %zero : f32
      memref.store %v, %s[%i] : memref<64xf32, #tile.mem<fragment>>
    }
  }
  return
}

// -----

// A mask that initializes a gemm's accumulators (S = mask; S += Q K^T):
// the copy for uncut tiles, which only stores zeros, goes, and the gemm
// clears S instead where the tile is uncut (clear_if on the same
// condition). A mask followed by something else than its gemm keeps its
// zeros.
// CHECK-LABEL: func.func @mask_then_gemm
// CHECK: %[[ALL:.*]] = arith.cmpi sgt, %{{.*}}, %c63 : index
// CHECK: scf.if %[[ALL]] {
// CHECK-NEXT: } else {
// CHECK: tile.parallel
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[S:.*]] clear_if(%[[ALL]]) {transpose_b}
// CHECK: scf.if
// CHECK-NEXT: tile.parallel
// CHECK-NEXT: memref.store %cst, %[[S]]
// CHECK: tile.fill
// CHECK: tile.gemm
// CHECK-NOT: clear_if
// CHECK: return
func.func @mask_then_gemm(%seq: index, %k: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%b) {
    %q = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %kt = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %zero = arith.constant 0.0 : f32
    %inf = arith.constant 0x7F800000 : f32
    %ninf = arith.negf %inf : f32
    %c64 = arith.constant 64 : index
    %k64 = arith.muli %k, %c64 : index
    tile.parallel (%i, %j) in (64, 64) {
      %col = arith.addi %k64, %j : index
      %in = arith.cmpi sgt, %seq, %col : index
      %v = arith.select %in, %zero, %ninf : f32
      memref.store %v, %s[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.gemm %q, %kt, %s {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.parallel (%i, %j) in (64, 64) {
      %col = arith.addi %k64, %j : index
      %in = arith.cmpi sgt, %seq, %col : index
      %v = arith.select %in, %zero, %ninf : f32
      memref.store %v, %s[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.fill %s, %zero : memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %q, %kt, %s {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// A condition of the indices alone (TileLang's split store `if i < 16`
// over 32 rows, the guard of a stage's rows): whether it holds everywhere
// or nowhere is known at compile time, so nothing is versioned. One that
// holds at every point (`i < 32` over 32 rows) leaves only the version
// where it is true; one that holds at none (`i >= 32`), only the version
// where it is false.
// CHECK-LABEL: func.func @static_outcomes
// CHECK: %[[ONE:.*]] = arith.constant 1.0
// CHECK: %[[TWO:.*]] = arith.constant 2.0
// CHECK-NOT: scf.if
// CHECK: tile.parallel
// CHECK: arith.cmpi slt, %{{.*}}, %c16
// CHECK: scf.if
// CHECK: tile.parallel
// CHECK-NOT: scf.if
// CHECK: memref.store %[[ONE]], %{{.*}}[%{{.*}}, %{{.*}}]
// CHECK: tile.parallel
// CHECK-NEXT: memref.store %[[TWO]], %{{.*}}[%{{.*}}, %{{.*}}]
// CHECK-NOT: scf.if
// CHECK: return
func.func @static_outcomes(%S: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %s = tile.alloc_shared : memref<32x16xf32, #tile.mem<shared>>
    tile.parallel (%i, %j) in (32, 16) {
      %in = arith.cmpi slt, %i, %c16 : index
      scf.if %in {
        memref.store %one, %s[%i, %j] : memref<32x16xf32, #tile.mem<shared>>
      }
    }
    tile.parallel (%i, %j) in (32, 16) {
      %in = arith.cmpi slt, %i, %c32 : index
      scf.if %in {
        memref.store %one, %s[%i, %j] : memref<32x16xf32, #tile.mem<shared>>
      }
    }
    tile.parallel (%i, %j) in (32, 16) {
      %out = arith.cmpi sge, %i, %c32 : index
      %v = arith.select %out, %one, %two : f32
      memref.store %v, %s[%i, %j] : memref<32x16xf32, #tile.mem<shared>>
    }
  }
  return
}
