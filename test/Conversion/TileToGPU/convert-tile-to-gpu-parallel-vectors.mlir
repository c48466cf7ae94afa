// RUN: tile-opt %s --convert-tile-to-gpu --canonicalize --cse --split-input-file | FileCheck %s

// TileLang's elementwise kernel indexing global memory directly: each
// thread takes groups of 8 consecutive f16 columns (16 bytes), 128 x 128 /
// 8 = 2048 groups over 256 threads, a loop of 8 with a constant trip count.
// Each group checks that A, B and C are aligned for whole vectors there
// (canAccessVectors: bases, strides, the column) and then loads A and B as
// vector<8xf16> and stores C as one; otherwise it runs the 8 columns one by
// one.
// CHECK-LABEL: func.func @add
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK: scf.if %{{.*}} {
// CHECK-DAG: vector.load %{{.*}} {alignment = 16 : i64} : memref<8192x4096xf16>, vector<8xf16>
// CHECK-DAG: vector.load %{{.*}} {alignment = 16 : i64} : memref<8192x4096xf16>, vector<8xf16>
// CHECK-COUNT-8: arith.addf %{{.*}} : f16
// CHECK: vector.from_elements
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<8192x4096xf16>, vector<8xf16>
// CHECK-NOT: memref.load
// CHECK: } else {
// CHECK-COUNT-8: memref.store %{{.*}} : memref<8192x4096xf16>
// CHECK-NOT: vector.
// CHECK: }
// CHECK: }
// CHECK: gpu.barrier
func.func @add(%A: memref<8192x4096xf16>, %B: memref<8192x4096xf16>, %C: memref<8192x4096xf16>) {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%c32, %c64) threads(256) -> (%bx, %by) {
    tile.parallel (%i, %j) in (128, 128) {
      %r0 = arith.muli %by, %c128 : index
      %r = arith.addi %r0, %i : index
      %k0 = arith.muli %bx, %c128 : index
      %k = arith.addi %k0, %j : index
      %a = memref.load %A[%r, %k] : memref<8192x4096xf16>
      %b = memref.load %B[%r, %k] : memref<8192x4096xf16>
      %s = arith.addf %a, %b : f16
      memref.store %s, %C[%r, %k] : memref<8192x4096xf16>
    }
  }
  return
}

// -----

// The widest element sets the width: f32 stores take 4 columns (16 bytes),
// the f16 loads 8 bytes. A load at twice the column and one that does not
// depend on it stay scalar, once per column. 96 groups do not divide over
// 64 threads: the groups' loop runs from the thread id.
// CHECK-LABEL: func.func @widths
// CHECK: scf.for %{{.*}} = %{{.*}} to %c96 step %c64 {
// CHECK: scf.if
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<?x?xf16>, vector<4xf16>
// CHECK-COUNT-4: memref.load %{{.*}} : memref<?x?xf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK: } else {
func.func @widths(%X: memref<?x?xf16>, %Y: memref<?x?xf32>, %n: index) {
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(64) -> (%bx) {
    tile.parallel (%i, %j) in (8, 48) {
      %x = memref.load %X[%i, %j] : memref<?x?xf16>
      %j2 = arith.muli %j, %c2 : index
      %w = memref.load %X[%i, %j2] : memref<?x?xf16>
      %z = memref.load %X[%i, %c0] : memref<?x?xf16>
      %s0 = arith.addf %x, %w : f16
      %s = arith.addf %s0, %z : f16
      %f = arith.extf %s : f16 to f32
      memref.store %f, %Y[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

// -----

// No vectors for a buffer loaded after the body stored to it (the vector
// path would read before the group's writes). Six columns of f64 take
// vectors of 2 (16 bytes).
// CHECK-LABEL: func.func @not_vectorized
// CHECK-NOT: vector.load
// CHECK: vector.load %{{.*}} : memref<?x6xf64>, vector<2xf64>
// CHECK-NOT: vector.load
// CHECK: return
func.func @not_vectorized(%X: memref<?x?xf32>, %D: memref<?x6xf64>, %n: index) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f64
  tile.kernel grid(%n) threads(64) -> (%bx) {
    tile.parallel (%i, %j) in (16, 64) {
      memref.store %one, %X[%i, %j] : memref<?x?xf32>
      %x = memref.load %X[%i, %j] : memref<?x?xf32>
      %y = arith.addf %x, %one : f32
      memref.store %y, %X[%i, %j] : memref<?x?xf32>
    }
    tile.parallel (%i, %j) in (4, 6) {
      %d = memref.load %D[%i, %j] : memref<?x6xf64>
      %e = arith.mulf %d, %two : f64
      memref.store %e, %D[%i, %j] : memref<?x6xf64>
    }
  }
  return
}

// -----

// Shared tiles take vectors too (a dequantizing loop writing a gemm
// operand): the f16 stores into the swizzled tile become one vector of 8
// per group (16 bytes, the swizzle's contiguous unit of 2^3 elements),
// placed where the group's first element is (the swizzle's XOR applied to
// the vector's indices); the misaligned path stores element by element at
// swizzled indices too. The byte loads at half the column stay scalar.
// CHECK-LABEL: func.func @shared_swizzled
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-8: memref.load %{{.*}} : memref<128x64xi8, #gpu.address_space<workgroup>>
// CHECK: %[[X:.*]] = arith.xori
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %[[X]]] {alignment = 16 : i64} : memref<128x128xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: } else {
// CHECK-COUNT-8: arith.xori
// CHECK-NOT: vector.store
// CHECK: }
// CHECK-NOT: tile.swizzle_later
func.func @shared_swizzled(%S: memref<128xf16>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c15 = arith.constant 15 : i8
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %q = tile.alloc_shared : memref<128x64xi8, #tile.mem<shared>>
    %w = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<128x128xf16, #tile.mem<shared>>
    tile.parallel (%i, %j) in (128, 128) {
      %h = arith.floordivsi %j, %c2 : index
      %b = memref.load %q[%i, %h] : memref<128x64xi8, #tile.mem<shared>>
      %n = arith.andi %b, %c15 : i8
      %f = arith.uitofp %n : i8 to f16
      %s = memref.load %S[%i] : memref<128xf16>
      %v = arith.mulf %f, %s : f16
      memref.store %v, %w[%i, %j] : memref<128x128xf16, #tile.mem<shared>>
    }
    %z = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
    tile.gemm %w, %w, %z : memref<128x128xf16, #tile.mem<shared>>, memref<128x128xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
  }
  return
}

// -----

// A swizzle whose unit is 4 elements (base 2) caps the vectors at 4, not
// the 8 of 16 bytes of f16; a shared tile without a swizzle takes 8.
// CHECK-LABEL: func.func @shared_units
// CHECK: vector.store %{{.*}} {alignment = 8 : i64} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
func.func @shared_units(%X: memref<64x64xf16>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared {layout = #tile.swizzle<2, 2, 3>} : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %X[%i, %j] : memref<64x64xf16>
      memref.store %x, %a[%i, %j] : memref<64x64xf16, #tile.mem<shared>>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %X[%i, %j] : memref<64x64xf16>
      memref.store %x, %b[%i, %j] : memref<64x64xf16, #tile.mem<shared>>
    }
    tile.copy %a to %X : memref<64x64xf16, #tile.mem<shared>> to memref<64x64xf16>
    tile.copy %b to %X : memref<64x64xf16, #tile.mem<shared>> to memref<64x64xf16>
  }
  return
}
