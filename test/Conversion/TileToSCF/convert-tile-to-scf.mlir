// RUN: tile-opt %s --allow-unregistered-dialect --convert-tile-to-scf --cse --split-input-file | FileCheck %s

// The kernel becomes a grid loop nest (z outermost) with its tiles allocated
// once around it; tile memory spaces disappear from every type; hints and
// waits for asynchronous gemm work (gemms run synchronously here) vanish.
// CHECK-LABEL: func.func @kernel
// CHECK-SAME: (%[[GX:[[:alnum:]_]+]]: index, %[[GY:[[:alnum:]_]+]]: index, %[[GZ:[[:alnum:]_]+]]: index, %[[OUT:[[:alnum:]_]+]]: memref<?x?x?xi32>)
// CHECK: %[[S:[[:alnum:]_]+]] = memref.alloc() {alignment = 64 : i64} : memref<4x4xf16>
// CHECK: %[[L:[[:alnum:]_]+]] = memref.alloc() {alignment = 64 : i64} : memref<1xi32>
// CHECK: scf.for %[[BZ:[[:alnum:]_]+]] = %{{.*}} to %[[GZ]]
// CHECK:   scf.for %[[BY:[[:alnum:]_]+]] = %{{.*}} to %[[GY]]
// CHECK:     scf.for %[[BX:[[:alnum:]_]+]] = %{{.*}} to %[[GX]]
// The blocks in the rasterized order of tile.use_swizzle (as on GPUs).
// CHECK:       arith.muli %[[BY]], %[[GX]]
// CHECK:       arith.minui
// CHECK:       %[[Y:[[:alnum:]_]+]] = arith.addi
// CHECK:       %[[X:[[:alnum:]_]+]] = arith.select
// CHECK:       %[[V:[[:alnum:]_]+]] = arith.index_cast %[[X]] : index to i32
// CHECK:       memref.store %[[V]], %[[OUT]][%[[BZ]], %[[Y]], %[[X]]]
// CHECK: memref.dealloc %[[S]]
// CHECK: memref.dealloc %[[L]]
// CHECK-NOT: tile.
// CHECK-NOT: #tile.mem
func.func @kernel(%gx: index, %gy: index, %gz: index, %out: memref<?x?x?xi32>) {
  tile.kernel grid(%gx, %gy, %gz) threads(32) -> (%bx, %by, %bz) {
    tile.use_swizzle panel(4)
    %s = tile.alloc_shared : memref<4x4xf16, #tile.mem<shared>>
    %l = tile.alloc_local : memref<1xi32, #tile.mem<local>>
    tile.annotate_layout %s : memref<4x4xf16, #tile.mem<shared>> layout #tile.swizzle<1, 1, 1>
    tile.gemm_wait pending(0)
    %v = arith.index_cast %bx : index to i32
    memref.store %v, %out[%bz, %by, %bx] : memref<?x?x?xi32>
  }
  return
}

// -----

// A copy from global memory reads zero out of bounds; the copy converts.
// When the global rows are aligned (checked at run time: base, row stride,
// column offset), it moves vectors of 4 elements (16 bytes of the f32
// destination): one load per vector inside the buffer; for a vector that
// crosses its edge, its first element and the others at indices clamped to
// the first, the ones past the edge selected away (no branch per element);
// zeros for a vector that starts outside.
// CHECK-LABEL: func.func @copy_in
// CHECK-SAME: (%[[A:[[:alnum:]_]+]]: memref<?x?xf16>, %[[M:[[:alnum:]_]+]]: index, %[[K:[[:alnum:]_]+]]: index)
// CHECK: memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: scf.if %{{.*}} {
// CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}}
// CHECK:     scf.for %{{.*}} = %{{.*}} to %{{.*}}
// CHECK:       %[[ROW:.*]] = arith.addi %[[M]], %{{.*}} : index
// CHECK:       %[[COL:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK:       %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<4xf16>
// CHECK:       %[[V:.*]] = scf.if %{{.*}} -> (vector<4xf16>) {
// CHECK:         %[[WHOLE:.*]] = vector.load %[[A]][%[[ROW]], %[[COL]]] {alignment = 8 : i64} : memref<?x?xf16>, vector<4xf16>
// CHECK:         scf.yield %[[WHOLE]]
// CHECK:       } else {
// CHECK:         %[[EDGE:.*]] = scf.if %{{.*}} -> (vector<4xf16>) {
// CHECK:           %[[X0:.*]] = memref.load %[[A]][%[[ROW]], %[[COL]]]
// CHECK:           %[[V0:.*]] = vector.insert %[[X0]], %[[ZEROS]] [0]
// CHECK:           %[[C1:.*]] = arith.addi %[[COL]], %c1
// CHECK:           %[[IN1:.*]] = arith.cmpi ult, %[[C1]], %{{.*}} : index
// CHECK:           %[[AT1:.*]] = arith.select %[[IN1]], %[[C1]], %[[COL]] : index
// CHECK:           %[[X1:.*]] = memref.load %[[A]][%[[ROW]], %[[AT1]]]
// CHECK:           %[[S1:.*]] = arith.select %[[IN1]], %[[X1]], %{{.*}} : f16
// CHECK:           vector.insert %[[S1]], %[[V0]] [1]
// CHECK-COUNT-2:   memref.load %[[A]]
// CHECK:           scf.yield
// CHECK:         } else {
// CHECK:           scf.yield %[[ZEROS]]
// CHECK:         }
// CHECK:         scf.yield %[[EDGE]]
// CHECK:       }
// CHECK:       %[[VW:.*]] = arith.extf %[[V]] : vector<4xf16> to vector<4xf32>
// CHECK:       vector.store %[[VW]], %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<16x8xf32>, vector<4xf32>
// Otherwise element by element:
// CHECK: } else {
// CHECK: scf.for %[[I:[[:alnum:]_]+]] = %{{.*}} to %{{.*}}
// CHECK:   scf.for %[[J:[[:alnum:]_]+]] = %{{.*}} to %{{.*}}
// CHECK:     %[[R:[[:alnum:]_]+]] = arith.addi %[[M]], %[[I]]
// CHECK:     %[[C:[[:alnum:]_]+]] = arith.addi %[[K]], %[[J]]
// CHECK:     %[[D0:[[:alnum:]_]+]] = memref.dim %[[A]], %{{.*}}
// CHECK:     %[[OK0:[[:alnum:]_]+]] = arith.cmpi ult, %[[R]], %[[D0]]
// CHECK:     %[[D1:[[:alnum:]_]+]] = memref.dim %[[A]], %{{.*}}
// CHECK:     %[[OK1:[[:alnum:]_]+]] = arith.cmpi ult, %[[C]], %[[D1]]
// CHECK:     %[[OK:[[:alnum:]_]+]] = arith.andi %[[OK0]], %[[OK1]]
// CHECK:     %[[X:[[:alnum:]_]+]] = scf.if %[[OK]] -> (f16) {
// CHECK:       %[[LD:[[:alnum:]_]+]] = memref.load %[[A]][%[[R]], %[[C]]]
// CHECK:       scf.yield %[[LD]]
// CHECK:     } else {
// CHECK:       %[[ZERO:[[:alnum:]_]+]] = arith.constant 0.000000e+00 : f16
// CHECK:       scf.yield %[[ZERO]]
// CHECK:     %[[W:[[:alnum:]_]+]] = arith.extf %[[X]] : f16 to f32
// CHECK:     memref.store %[[W]], %{{.*}}[%[[I]], %[[J]]] : memref<16x8xf32>
func.func @copy_in(%A: memref<?x?xf16>, %m: index, %k: index) {
  tile.kernel grid(%m) threads(32) -> (%bx) {
    %f = tile.alloc_fragment : memref<16x8xf32, #tile.mem<fragment>>
    tile.copy %A[%m, %k] to %f : memref<?x?xf16> to memref<16x8xf32, #tile.mem<fragment>>
    "test.use"(%f) : (memref<16x8xf32, #tile.mem<fragment>>) -> ()
  }
  return
}

// -----

// A copy to global memory drops out-of-bounds writes; a higher-rank side
// takes the tile in its trailing dimensions. Aligned: whole vectors of 4
// where they fit in the row; at its end, element k stored when k is below
// the count of elements inside (none when the vector starts outside).
// CHECK-LABEL: func.func @copy_out
// CHECK-SAME: (%[[C:[[:alnum:]_]+]]: memref<?x?x?xf16>, %[[B:[[:alnum:]_]+]]: index, %[[N:[[:alnum:]_]+]]: index)
// CHECK: scf.if %{{.*}} {
// CHECK:   %[[V:.*]] = vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<8xf32>, vector<4xf32>
// CHECK:   %[[VT:.*]] = arith.truncf %[[V]] : vector<4xf32> to vector<4xf16>
// CHECK:   %[[COL0:.*]] = arith.addi %[[N]], %{{.*}} : index
// CHECK:   scf.if %{{.*}} {
// CHECK:     vector.store %[[VT]], %[[C]][%[[B]], %[[B]], %[[COL0]]] {alignment = 8 : i64} : memref<?x?x?xf16>, vector<4xf16>
// CHECK:   } else {
// CHECK:     %[[LEFT:.*]] = arith.subi %{{.*}}, %[[COL0]] : index
// CHECK:     %[[MIN:.*]] = arith.minui %[[LEFT]], %c4 : index
// CHECK:     %[[COUNT:.*]] = arith.select %{{.*}}, %[[MIN]], %c0 : index
// CHECK:     %[[IN0:.*]] = arith.cmpi ult, %c0, %[[COUNT]] : index
// CHECK:     scf.if %[[IN0]] {
// CHECK:       %[[E0:.*]] = vector.extract %[[VT]][0]
// CHECK:       memref.store %[[E0]], %[[C]][%[[B]], %[[B]], %{{.*}}]
// CHECK:     }
// CHECK-COUNT-3: memref.store %{{.*}}, %[[C]]
// CHECK:   }
// CHECK: } else {
// CHECK: scf.for %[[I:[[:alnum:]_]+]] =
// CHECK:   %[[COL:[[:alnum:]_]+]] = arith.addi %[[N]], %[[I]]
// CHECK:   %[[X:[[:alnum:]_]+]] = memref.load %{{.*}}[%[[I]]] : memref<8xf32>
// CHECK:   %[[T:[[:alnum:]_]+]] = arith.truncf %[[X]] : f32 to f16
// CHECK:   scf.if %{{.*}} {
// CHECK:     memref.store %[[T]], %[[C]][%[[B]], %[[B]], %[[COL]]]
// CHECK:   }
func.func @copy_out(%C: memref<?x?x?xf16>, %b: index, %n: index) {
  tile.kernel grid(%b) threads(32) -> (%bx) {
    %f = tile.alloc_fragment : memref<8xf32, #tile.mem<fragment>>
    "test.def"(%f) : (memref<8xf32, #tile.mem<fragment>>) -> ()
    tile.copy %f to %C[%b, %b, %n] : memref<8xf32, #tile.mem<fragment>> to memref<?x?x?xf16>
  }
  return
}

// -----

// On-chip copies need no bounds checks: whole vectors of 8 f16 (16 bytes)
// when aligned, elements otherwise.
// CHECK-LABEL: func.func @copy_on_chip
// CHECK-NOT: arith.cmpi ult
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<8x8xf16>, vector<8xf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<4x8xf16>, vector<8xf16>
// CHECK: } else {
// CHECK-NOT: arith.cmpi ult
// CHECK: memref.load %{{.*}} : memref<8x8xf16>
// CHECK: memref.store %{{.*}} : memref<4x8xf16>
func.func @copy_on_chip(%n: index) {
  %c4 = arith.constant 4 : index
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(32) -> (%bx) {
    %s = tile.alloc_shared : memref<8x8xf16, #tile.mem<shared>>
    %f = tile.alloc_fragment : memref<4x8xf16, #tile.mem<fragment>>
    "test.def"(%s) : (memref<8x8xf16, #tile.mem<shared>>) -> ()
    tile.copy %s[%c4, %c0] to %f : memref<8x8xf16, #tile.mem<shared>> to memref<4x8xf16, #tile.mem<fragment>>
    "test.use"(%f) : (memref<4x8xf16, #tile.mem<fragment>>) -> ()
  }
  return
}

// -----

// gemm: C[i, j] (+)= sum_k A[i, k] * B[j, k] in C's type.
// CHECK-LABEL: func.func @gemm
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[I:[[:alnum:]_]+]] =
// CHECK:   scf.for %[[J:[[:alnum:]_]+]] =
// CHECK:     %[[INIT:[[:alnum:]_]+]] = memref.load %[[C:[[:alnum:]_]+]][%[[I]], %[[J]]] : memref<16x8xf32>
// CHECK:     %[[SUM:[[:alnum:]_]+]] = scf.for %[[K:[[:alnum:]_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:[[:alnum:]_]+]] = %[[INIT]]) -> (f32) {
// CHECK:       %[[A:[[:alnum:]_]+]] = memref.load %{{.*}}[%[[I]], %[[K]]] : memref<16x32xf16>
// CHECK:       %[[B:[[:alnum:]_]+]] = memref.load %{{.*}}[%[[J]], %[[K]]] : memref<8x32xf16>
// CHECK:       %[[AE:[[:alnum:]_]+]] = arith.extf %[[A]] : f16 to f32
// CHECK:       %[[BE:[[:alnum:]_]+]] = arith.extf %[[B]] : f16 to f32
// CHECK:       %[[P:[[:alnum:]_]+]] = arith.mulf %[[AE]], %[[BE]]
// CHECK:       %[[S:[[:alnum:]_]+]] = arith.addf %[[ACC]], %[[P]]
// CHECK:       scf.yield %[[S]]
// CHECK:     memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]]
// i8 x i8 -> i32 with clear_accum: starts from 0, sign-extends, integer ops.
// CHECK: scf.for %{{.*}} iter_args(%[[IACC:[[:alnum:]_]+]] = %{{.*}}) -> (i32)
// CHECK:   arith.extsi %{{.*}} : i8 to i32
// CHECK:   arith.muli
// CHECK:   arith.addi %[[IACC]]
func.func @gemm(%n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    %a = tile.alloc_shared : memref<16x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<8x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<16x8xf32, #tile.mem<fragment>>
    "test.def"(%a, %b, %c) : (memref<16x32xf16, #tile.mem<shared>>, memref<8x32xf16, #tile.mem<shared>>, memref<16x8xf32, #tile.mem<fragment>>) -> ()
    tile.gemm %a, %b, %c {transpose_b} : memref<16x32xf16, #tile.mem<shared>>, memref<8x32xf16, #tile.mem<shared>> -> memref<16x8xf32, #tile.mem<fragment>>
    "test.use"(%c) : (memref<16x8xf32, #tile.mem<fragment>>) -> ()
    %ia = tile.alloc_shared : memref<16x16xi8, #tile.mem<shared>>
    %ic = tile.alloc_fragment : memref<16x16xi32, #tile.mem<fragment>>
    "test.def"(%ia) : (memref<16x16xi8, #tile.mem<shared>>) -> ()
    tile.gemm %ia, %ia, %ic {clear_accum} : memref<16x16xi8, #tile.mem<shared>>, memref<16x16xi8, #tile.mem<shared>> -> memref<16x16xi32, #tile.mem<fragment>>
    "test.use"(%ic) : (memref<16x16xi32, #tile.mem<fragment>>) -> ()
  }
  return
}

// -----

// reduce: identity or the old value, then the combining function along dim.
// CHECK-LABEL: func.func @reduce
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[I:[[:alnum:]_]+]] =
// CHECK:   %[[NEGINF:[[:alnum:]_]+]] = arith.constant 0xFF800000 : f32
// CHECK:   %[[MAX:[[:alnum:]_]+]] = scf.for %[[J:[[:alnum:]_]+]] = {{.*}} iter_args(%[[ACC:[[:alnum:]_]+]] = %[[NEGINF]]) -> (f32) {
// CHECK:     %[[V:[[:alnum:]_]+]] = memref.load %[[SRC:[[:alnum:]_]+]][%[[I]], %[[J]]]
// CHECK:     %[[M:[[:alnum:]_]+]] = arith.maxnumf %[[ACC]], %[[V]]
// CHECK:     scf.yield %[[M]]
// CHECK:   memref.store %[[MAX]], %{{.*}}[%[[I]]] : memref<16xf32>
// clear = false accumulates into the old value of dst; abssum takes |x|.
// CHECK: scf.for %[[I2:[[:alnum:]_]+]] =
// CHECK:   %[[OLD:[[:alnum:]_]+]] = memref.load %[[DST:[[:alnum:]_]+]][%[[I2]], %{{.*}}] : memref<16x1xf32>
// CHECK:   scf.for {{.*}} iter_args(%[[ACC2:[[:alnum:]_]+]] = %[[OLD]]) -> (f32) {
// CHECK:     %[[ABS:[[:alnum:]_]+]] = math.absf
// CHECK:     arith.addf %[[ACC2]], %[[ABS]]
// min over a 1-D tile into a [1] tile.
// CHECK: %[[POSINF:[[:alnum:]_]+]] = arith.constant 0x7F800000 : f32
// CHECK: scf.for {{.*}} iter_args(%[[ACC3:[[:alnum:]_]+]] = %[[POSINF]])
// CHECK:   arith.minnumf %[[ACC3]]
// integer absmax: |x| with math.absi, max with maxsi from 0.
// CHECK: math.absi
// CHECK: arith.maxsi
// nan_propagate: any NaN is the result (maximumf instead of maxnumf).
// CHECK: arith.maximumf
// Bitwise reductions of integers: and from all ones, xor from 0.
// CHECK: %[[ONES:.*]] = arith.constant -1 : i32
// CHECK: scf.for {{.*}} iter_args(%[[ACC4:[[:alnum:]_]+]] = %[[ONES]])
// CHECK:   arith.andi %[[ACC4]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %c0_i32)
// CHECK:   arith.xori
func.func @reduce(%n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    %s = tile.alloc_fragment : memref<16x8xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<16xf32, #tile.mem<fragment>>
    %k = tile.alloc_fragment : memref<16x1xf32, #tile.mem<fragment>>
    %one = tile.alloc_fragment : memref<1xf32, #tile.mem<fragment>>
    %is = tile.alloc_fragment : memref<4x4xi32, #tile.mem<fragment>>
    %im = tile.alloc_fragment : memref<4xi32, #tile.mem<fragment>>
    "test.def"(%s, %k, %is) : (memref<16x8xf32, #tile.mem<fragment>>, memref<16x1xf32, #tile.mem<fragment>>, memref<4x4xi32, #tile.mem<fragment>>) -> ()
    tile.reduce <max> %s to %m dim 1 : memref<16x8xf32, #tile.mem<fragment>> to memref<16xf32, #tile.mem<fragment>>
    tile.reduce <abssum> %s to %k dim 1 {clear = false} : memref<16x8xf32, #tile.mem<fragment>> to memref<16x1xf32, #tile.mem<fragment>>
    tile.reduce <min> %m to %one dim 0 : memref<16xf32, #tile.mem<fragment>> to memref<1xf32, #tile.mem<fragment>>
    tile.reduce <absmax> %is to %im dim 0 : memref<4x4xi32, #tile.mem<fragment>> to memref<4xi32, #tile.mem<fragment>>
    tile.reduce <max> %s to %m dim 1 {nan_propagate = true} : memref<16x8xf32, #tile.mem<fragment>> to memref<16xf32, #tile.mem<fragment>>
    tile.reduce <bitand> %is to %im dim 1 : memref<4x4xi32, #tile.mem<fragment>> to memref<4xi32, #tile.mem<fragment>>
    tile.reduce <bitxor> %is to %im dim 1 : memref<4x4xi32, #tile.mem<fragment>> to memref<4xi32, #tile.mem<fragment>>
    "test.use"(%m, %k, %one, %im) : (memref<16xf32, #tile.mem<fragment>>, memref<16x1xf32, #tile.mem<fragment>>, memref<1xf32, #tile.mem<fragment>>, memref<4xi32, #tile.mem<fragment>>) -> ()
  }
  return
}

// -----

// cumsum: a running sum along dim, read before write (in place is fine);
// reverse walks from the end.
// CHECK-LABEL: func.func @cumsum
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[I:[[:alnum:]_]+]] =
// CHECK:   scf.for %[[J:[[:alnum:]_]+]] = {{.*}} iter_args(%[[ACC:[[:alnum:]_]+]] = %{{.*}}) -> (f32) {
// CHECK:     %[[V:[[:alnum:]_]+]] = memref.load %[[S:[[:alnum:]_]+]][%[[I]], %[[J]]]
// CHECK:     %[[SUM:[[:alnum:]_]+]] = arith.addf %[[ACC]], %[[V]]
// CHECK:     memref.store %[[SUM]], %[[S]][%[[I]], %[[J]]]
// CHECK:     scf.yield %[[SUM]]
// CHECK: scf.for %[[I2:[[:alnum:]_]+]] =
// CHECK:   scf.for %[[R:[[:alnum:]_]+]] =
// CHECK:     %[[POS:[[:alnum:]_]+]] = arith.subi %{{.*}}, %[[R]]
// CHECK:     memref.load %{{.*}}[%[[POS]], %[[I2]]]
// A running maximum starts from -inf and takes maxnumf.
// CHECK: scf.for
// CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %cst{{.*}}) -> (f32) {
// CHECK:     arith.maxnumf
func.func @cumsum(%n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    %s = tile.alloc_shared : memref<4x8xf32, #tile.mem<shared>>
    "test.def"(%s) : (memref<4x8xf32, #tile.mem<shared>>) -> ()
    tile.cumsum %s to %s dim 1 : memref<4x8xf32, #tile.mem<shared>> to memref<4x8xf32, #tile.mem<shared>>
    tile.cumsum %s to %s dim 0 {reverse} : memref<4x8xf32, #tile.mem<shared>> to memref<4x8xf32, #tile.mem<shared>>
    tile.cumsum %s to %s dim 1 {kind = #tile.reduce_kind<max>} : memref<4x8xf32, #tile.mem<shared>> to memref<4x8xf32, #tile.mem<shared>>
    "test.use"(%s) : (memref<4x8xf32, #tile.mem<shared>>) -> ()
  }
  return
}

// -----

// fill and clear store everywhere.
// CHECK-LABEL: func.func @fill
// CHECK-SAME: %[[X:[[:alnum:]_]+]]: f32
// CHECK: scf.for
// CHECK:   memref.store %[[X]], %{{.*}} : memref<8xf32>
// CHECK: %[[Z:[[:alnum:]_]+]] = arith.constant 0 : i8
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     memref.store %[[Z]], %{{.*}} : memref<2x2xi8>
func.func @fill(%n: index, %x: f32) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    %f = tile.alloc_fragment : memref<8xf32, #tile.mem<fragment>>
    %l = tile.alloc_local : memref<2x2xi8, #tile.mem<local>>
    tile.fill %f, %x : memref<8xf32, #tile.mem<fragment>>
    tile.clear %l : memref<2x2xi8, #tile.mem<local>>
    "test.use"(%f, %l) : (memref<8xf32, #tile.mem<fragment>>, memref<2x2xi8, #tile.mem<local>>) -> ()
  }
  return
}

// -----

// atomic_add: read-modify-write, dropped outside a global destination.
// CHECK-LABEL: func.func @atomic_add
// CHECK-SAME: (%[[OUT:[[:alnum:]_]+]]: memref<?xf32>, %[[V:[[:alnum:]_]+]]: f32, %[[N:[[:alnum:]_]+]]: index)
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.if %{{.*}} {
// CHECK:   %[[OLD:[[:alnum:]_]+]] = memref.load %[[OUT]][%{{.*}}]
// CHECK:   %[[NEW:[[:alnum:]_]+]] = arith.addf %[[OLD]], %[[V]]
// CHECK:   memref.store %[[NEW]], %[[OUT]][%{{.*}}]
// Tile form: a loop over the tile, converted to the destination type.
// CHECK: scf.for %[[I:[[:alnum:]_]+]] =
// CHECK:   %[[T:[[:alnum:]_]+]] = memref.load %{{.*}}[%[[I]]] : memref<4xf16>
// CHECK:   %[[TE:[[:alnum:]_]+]] = arith.extf %[[T]] : f16 to f32
// CHECK:   scf.if
// CHECK:     arith.addf %{{.*}}, %[[TE]]
func.func @atomic_add(%out: memref<?xf32>, %v: f32, %n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    tile.atomic_add %v to %out[%bx] : f32 to memref<?xf32>
    %t = tile.alloc_fragment : memref<4xf16, #tile.mem<fragment>>
    "test.def"(%t) : (memref<4xf16, #tile.mem<fragment>>) -> ()
    tile.atomic_add %t to %out[%n] : memref<4xf16, #tile.mem<fragment>> to memref<?xf32>
  }
  return
}

// -----

// parallel and pipelined become plain loops around their bodies.
// CHECK-LABEL: func.func @loops
// CHECK-SAME: (%[[LB:[[:alnum:]_]+]]: index, %[[UB:[[:alnum:]_]+]]: index, %[[ST:[[:alnum:]_]+]]: index)
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[K:[[:alnum:]_]+]] = %[[LB]] to %[[UB]] step %[[ST]] {
// CHECK:   scf.for %[[I:[[:alnum:]_]+]] = %{{.*}} to %{{.*}} step
// CHECK:     scf.for %[[J:[[:alnum:]_]+]] = %{{.*}} to %{{.*}} step
// CHECK:       memref.load %{{.*}}[%[[I]], %[[J]]] : memref<4x2xf32>
func.func @loops(%lb: index, %ub: index, %st: index) {
  tile.kernel grid(%ub) threads(32) -> (%bx) {
    %f = tile.alloc_fragment : memref<4x2xf32, #tile.mem<fragment>>
    "test.def"(%f) : (memref<4x2xf32, #tile.mem<fragment>>) -> ()
    tile.pipelined %k = %lb to %ub step %st num_stages = 3 {
      tile.parallel (%i, %j) in (4, 2) {
        %x = memref.load %f[%i, %j] : memref<4x2xf32, #tile.mem<fragment>>
        %y = arith.addf %x, %x : f32
        memref.store %y, %f[%i, %j] : memref<4x2xf32, #tile.mem<fragment>>
      }
    }
  }
  return
}

// -----

// The dynamic schedule on the CPU (blocks run one after another): the next
// tile is the offset plus the atomic increment of counter 0; finishing
// counts the block in counter 1 and the last one resets both.
// CHECK-LABEL: func.func @dynamic_tiles
// CHECK: %[[COUNTERS:.*]] = memref.get_global @counters
// CHECK: %[[TAKEN:.*]] = memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%c0] : (i32, memref<2xi32>) -> i32
// CHECK: %[[INDEX:.*]] = arith.index_castui %[[TAKEN]] : i32 to index
// CHECK: arith.addi %{{.*}}, %[[INDEX]] : index
// CHECK-NOT: llvm.fence
// CHECK: %[[DONE:.*]] = memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%c1]
// CHECK: scf.if
// CHECK: memref.atomic_rmw assign %{{.*}}, %[[COUNTERS]][%c0]
// CHECK: memref.atomic_rmw assign %{{.*}}, %[[COUNTERS]][%c1]
memref.global "private" @counters : memref<2xi32> = dense<0>
func.func @dynamic_tiles(%out: memref<?xindex>, %blocks: index) {
  tile.kernel grid(%blocks) threads(128) -> (%bx) {
    %slot = tile.alloc_shared : memref<1xi32, #tile.mem<shared>>
    %counters = memref.get_global @counters : memref<2xi32>
    %next = tile.next_tile %counters[%blocks] via %slot : memref<2xi32>, memref<1xi32, #tile.mem<shared>>
    memref.store %next, %out[%bx] : memref<?xindex>
    tile.finish_tiles %counters blocks(%blocks) : memref<2xi32>
  }
  return
}

// -----

// Booleans convert as 0 and 1 (zero extension, not sign extension), and an
// integer converts to a boolean as "nonzero" (not its low bit).
// CHECK-LABEL: func.func @bool_conversions
// CHECK: %[[B:.*]] = scf.if
// CHECK: memref.load %{{.*}} : memref<16xi1>
// CHECK: arith.extui %[[B]] : i1 to i32
// CHECK: %[[I:.*]] = scf.if
// CHECK: memref.load %{{.*}} : memref<16xi32>
// CHECK: arith.cmpi ne, %[[I]], %{{.*}} : i32
// CHECK-NOT: arith.extsi
// CHECK-NOT: arith.trunci
func.func @bool_conversions(%A: memref<16xi1>, %B: memref<16xi32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_local : memref<16xi32, #tile.mem<local>>
    %t = tile.alloc_local : memref<16xi1, #tile.mem<local>>
    tile.copy %A to %s : memref<16xi1> to memref<16xi32, #tile.mem<local>>
    tile.copy %B to %t : memref<16xi32> to memref<16xi1, #tile.mem<local>>
    "test.use"(%s, %t) : (memref<16xi32, #tile.mem<local>>, memref<16xi1, #tile.mem<local>>) -> ()
  }
  return
}
