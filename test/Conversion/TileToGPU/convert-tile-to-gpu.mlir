// RUN: tile-opt %s --allow-unregistered-dialect --tile-lower-parallel-atomics --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory --canonicalize --cse --split-input-file | FileCheck %s

// The kernel becomes a gpu.launch of its grid and block; shared tiles and
// fragments are 16-byte-aligned views of dynamic shared memory, local tiles
// per-thread allocas.
// CHECK-LABEL: func.func @launch
// CHECK-SAME: (%[[GX:[[:alnum:]_]+]]: index, %[[GY:[[:alnum:]_]+]]: index,
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[SMEM:.*]] = arith.constant 4126 : i32
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GX]], %{{.*}} = %[[GY]], %{{.*}} = %[[C1]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C32]], %{{.*}} = %[[C4]], %{{.*}} = %[[C1]]) dynamic_shared_memory_size %[[SMEM]]
// CHECK: %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<5x3xf16, #gpu.address_space<workgroup>>
// CHECK: memref.alloca() : memref<4xi32>
// CHECK-NOT: #tile.mem
func.func @launch(%gx: index, %gy: index, %out: memref<?xi32>) {
  tile.kernel grid(%gx, %gy) threads(32, 4) -> (%bx, %by) {
    %s = tile.alloc_shared : memref<32x32xf32, #tile.mem<shared>>
    %f = tile.alloc_fragment : memref<5x3xf16, #tile.mem<fragment>>
    %l = tile.alloc_local : memref<4xi32, #tile.mem<local>>
    "test.use"(%s, %f, %l) : (memref<32x32xf32, #tile.mem<shared>>, memref<5x3xf16, #tile.mem<fragment>>, memref<4xi32, #tile.mem<local>>) -> ()
  }
  return
}

// -----

// A copy into a shared tile is split over the block, with barriers around:
// when the global rows are aligned (a run-time check), thread t takes
// 16-byte vectors t and t + 128 (8 f16), both loaded before the first store
// (a vector crossing the edge of the global buffer loads its first element
// and the others at indices clamped to it, selecting zero past the edge, no
// branch per element; zeros when it starts outside); otherwise the same with
// 8-byte vectors, then 4-byte ones, each where the run-time check allows
// them, and last elements t, t + 128, ..., t + 1920, the global reads
// guarded and all 16 issued before the first store.
// CHECK-LABEL: func.func @copy
// CHECK: gpu.launch blocks({{.*}}) threads(%[[TX:[[:alnum:]_]+]], %{{.*}}, %{{.*}}) in
// CHECK: gpu.barrier
// CHECK: scf.if %{{.*}} {
// CHECK-NOT: scf.for
// CHECK-NOT: vector.store
// CHECK:   %[[V0:.*]] = scf.if %{{.*}} -> (vector<8xf16>) {
// CHECK:     vector.load %{{.*}} {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// CHECK:   } else {
// CHECK:     scf.if %{{.*}} -> (vector<8xf16>) {
// CHECK-NOT:   scf.if
// CHECK-COUNT-8: memref.load %{{.*}} : memref<?x?xf16>
// CHECK:       vector.from_elements
// CHECK:     } else {
// CHECK:       scf.yield %{{.*}} : vector<8xf16>
// CHECK:   arith.addi %[[TX]], %c128
// CHECK-NOT: vector.store
// CHECK:   %[[V1:.*]] = scf.if %{{.*}} -> (vector<8xf16>) {
// CHECK:     vector.load %{{.*}} {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// CHECK:   vector.store %[[V0]], %{{.*}} {alignment = 16 : i64} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK:   vector.store %[[V1]], %{{.*}} {alignment = 16 : i64} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: } else {
// CHECK:   scf.if %{{.*}} {
// CHECK:     vector.load %{{.*}} {alignment = 8 : i64} : memref<?x?xf16>, vector<4xf16>
// CHECK:   } else {
// CHECK:     scf.if %{{.*}} {
// CHECK:       vector.load %{{.*}} {alignment = 4 : i64} : memref<?x?xf16>, vector<2xf16>
// CHECK:     } else {
// CHECK-NOT:   scf.for
// CHECK-NOT:   memref.store
// CHECK:       arith.addi %[[TX]], %c1920
// CHECK-NOT:   memref.store
// CHECK:       memref.load %{{.*}} : memref<?x?xf16>
// CHECK-COUNT-16: memref.store %{{.*}} : memref<64x32xf16, #gpu.address_space<workgroup>>
// CHECK-NOT:   memref.load
// CHECK:     }
// CHECK:   }
// CHECK: }
// CHECK-NEXT: gpu.barrier
func.func @copy(%A: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    tile.copy %A[%bx, %bx] to %s : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
    "test.use"(%s) : (memref<64x32xf16, #tile.mem<shared>>) -> ()
  }
  return
}

// -----

// gemm: each thread owns C elements (t, t + T, ...) and runs their k loop.
// CHECK-LABEL: func.func @gemm
// CHECK: gpu.launch blocks({{.*}}) threads(%[[TX:[[:alnum:]_]+]], %{{.*}}, %{{.*}}) in
// CHECK: scf.for %[[E:.*]] = %[[TX]] to %{{.*}} step %{{.*}} {
// CHECK:   memref.load %[[C:.*]][%{{.*}}, %{{.*}}] : memref<16x8xf32, #gpu.address_space<workgroup>>
// CHECK:   scf.for {{.*}} iter_args
// CHECK:     arith.mulf
// CHECK:     arith.addf
// CHECK:   memref.store %{{.*}}, %[[C]]
// CHECK: gpu.barrier
func.func @gemm(%n: index) {
  tile.kernel grid(%n) threads(64) -> (%bx) {
    %a = tile.alloc_shared : memref<16x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<32x8xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<16x8xf32, #tile.mem<fragment>>
    "test.def"(%a, %b, %c) : (memref<16x32xf16, #tile.mem<shared>>, memref<32x8xf16, #tile.mem<shared>>, memref<16x8xf32, #tile.mem<fragment>>) -> ()
    tile.gemm %a, %b, %c : memref<16x32xf16, #tile.mem<shared>>, memref<32x8xf16, #tile.mem<shared>> -> memref<16x8xf32, #tile.mem<fragment>>
    "test.use"(%c) : (memref<16x8xf32, #tile.mem<fragment>>) -> ()
  }
  return
}

// -----

// An op that writes a local tile runs whole on every thread: a plain loop
// nest from 0, no split.
// CHECK-LABEL: func.func @local
// CHECK: %[[L:.*]] = memref.alloca() : memref<8xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK:   memref.store %{{.*}}, %[[L]]
// A parallel loop that writes a local tile too.
// CHECK: scf.for %[[I:.*]] = %c0 to %c8 step %c1 {
// CHECK:   memref.load %[[L]][%[[I]]]
func.func @local(%n: index, %x: f32) {
  tile.kernel grid(%n) threads(64) -> (%bx) {
    %l = tile.alloc_local : memref<8xf32, #tile.mem<local>>
    tile.fill %l, %x : memref<8xf32, #tile.mem<local>>
    tile.parallel (%i) in (8) {
      %v = memref.load %l[%i] : memref<8xf32, #tile.mem<local>>
      %w = arith.addf %v, %v : f32
      memref.store %w, %l[%i] : memref<8xf32, #tile.mem<local>>
    }
    "test.use"(%l) : (memref<8xf32, #tile.mem<local>>) -> ()
  }
  return
}

// -----

// A parallel loop that writes a local tile and global memory is split over
// the threads as TileLang partitions it: the local tile is each thread's
// scratch for its iterations, and B[i] is updated once per iteration (run
// whole on every thread, B[i] = B[i] + t added every thread's t).
// CHECK-LABEL: func.func @local_scratch
// CHECK: gpu.launch blocks({{.*}}) threads(%[[TX:[[:alnum:]_]+]], %{{.*}}, %{{.*}}) in
// CHECK: %[[L:.*]] = memref.alloca() : memref<1xf32>
// CHECK: scf.for %[[I:.*]] = %[[TX]] to %c128 step %c64 {
// CHECK:   memref.store %{{.*}}, %[[L]][%c0]
// CHECK:   memref.store %{{.*}}, %arg0[%[[I]]]
func.func @local_scratch(%B: memref<128xf32>, %x: f32) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %l = tile.alloc_local : memref<1xf32, #tile.mem<local>>
    tile.parallel (%i) in (128) {
      %c0 = arith.constant 0 : index
      %t = arith.mulf %x, %x : f32
      memref.store %t, %l[%c0] : memref<1xf32, #tile.mem<local>>
      %v = memref.load %B[%i] : memref<128xf32>
      %u = memref.load %l[%c0] : memref<1xf32, #tile.mem<local>>
      %w = arith.addf %v, %u : f32
      memref.store %w, %B[%i] : memref<128xf32>
    }
  }
  return
}

// -----

// atomic_add: the element form is done once per block (thread 0); the tile
// form by every thread on its elements; both with atomic_rmw.
// CHECK-LABEL: func.func @atomic_add
// CHECK: gpu.launch blocks({{.*}}) threads(%[[TX:[[:alnum:]_]+]], %{{.*}}, %{{.*}}) in
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK:   scf.if
// CHECK:     memref.atomic_rmw addf %{{.*}}, %{{.*}} : (f32, memref<?xf32>) -> f32
// CHECK: scf.for %{{.*}} = %[[TX]] to
// CHECK:   scf.if
// CHECK:     memref.atomic_rmw addf
// CHECK-NOT: memref.atomic_rmw
func.func @atomic_add(%out: memref<?xf32>, %v: f32, %n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    tile.atomic_add %v to %out[%bx] : f32 to memref<?xf32>
    %t = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    "test.def"(%t) : (memref<64xf32, #tile.mem<fragment>>) -> ()
    tile.atomic_add %t to %out[%n] : memref<64xf32, #tile.mem<fragment>> to memref<?xf32>
  }
  return
}

// -----

// The element form inside a tile.parallel body is each thread's own add of
// its elements (TileLang's `T.atomic_add(S[i], v)` in a T.Parallel): no
// thread-0 guard and no barrier under the body's condition (a program_fuzz
// finding: the block-level lowering deadlocked the H200 there and added
// only thread 0's values).
// CHECK-LABEL: func.func @atomic_add_in_parallel
// CHECK: gpu.launch
// CHECK: gpu.barrier
// CHECK-NEXT: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK-NOT: gpu.barrier
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}} : (f32, memref<?xf32>) -> f32
// CHECK: }
// CHECK: }
// CHECK: }
// CHECK-NEXT: gpu.barrier
func.func @atomic_add_in_parallel(%out: memref<?xf32>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    tile.parallel (%i) in (256) {
      %lim = arith.constant 100 : index
      %in = arith.cmpi slt, %i, %lim : index
      scf.if %in {
        %v = arith.index_cast %i : index to i32
        %f = arith.sitofp %v : i32 to f32
        tile.atomic_add %f to %out[%i] : f32 to memref<?xf32>
      }
    }
  }
  return
}

// -----

// A reduction: every thread owns output rows and reduces them.
// CHECK-LABEL: func.func @reduce
// CHECK: gpu.launch blocks({{.*}}) threads(%[[TX:[[:alnum:]_]+]], %{{.*}}, %{{.*}}) in
// CHECK: scf.for %[[ROW:.*]] = %[[TX]] to %c64 step %c32 {
// CHECK:   %[[M:.*]] = scf.for {{.*}} iter_args
// CHECK:     arith.maxnumf
// CHECK:   memref.store %[[M]], %{{.*}}[%[[ROW]]] : memref<64xf32, #gpu.address_space<workgroup>>
func.func @reduce(%n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    %s = tile.alloc_fragment : memref<64x16xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    "test.def"(%s) : (memref<64x16xf32, #tile.mem<fragment>>) -> ()
    tile.reduce <max> %s to %m dim 1 : memref<64x16xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
    "test.use"(%m) : (memref<64xf32, #tile.mem<fragment>>) -> ()
  }
  return
}

// -----

// More threads than rows: each row goes to a group of lanes (here 8 rows,
// 256 threads: a warp per row). Lane q folds elements q, q + 32, ... of its
// row, the warp combines the partial sums with xor shuffles 16, 8, 4, 2, 1,
// and lane 0 adds the old value (no clear) and stores. The absolute value
// applies to elements only, not to partial results.
// CHECK-LABEL: func.func @reduce_with_shuffles
// CHECK: gpu.launch
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32 : index
// CHECK: %[[GROUP:.*]] = arith.divui %{{.*}}, %c32 : index
// CHECK: %[[ACTIVE:.*]] = arith.cmpi ult, %[[GROUP]], %c8 : index
// CHECK: %[[PART:.*]] = scf.if %[[ACTIVE]] -> (f32) {
// CHECK:   scf.for %{{.*}} = %[[LANE]] to %c1024 step %c32 iter_args
// CHECK:     math.absf
// CHECK:     arith.addf
// CHECK: } else {
// CHECK: %[[S16:.*]], %{{.*}} = gpu.shuffle  xor %[[PART]], %c16_i32, %c32_i32 : f32
// CHECK: %[[R16:.*]] = arith.addf %[[PART]], %[[S16]] : f32
// CHECK-NOT: math.absf
// CHECK: gpu.shuffle  xor %[[R16]], %c8_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: %[[SUM:.*]] = arith.addf
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK: %[[WRITE:.*]] = arith.andi %[[ACTIVE]], %[[FIRST]] : i1
// CHECK: scf.if %[[WRITE]] {
// CHECK:   %[[OLD:.*]] = memref.load
// CHECK:   %[[NEW:.*]] = arith.addf %[[OLD]], %[[SUM]] : f32
// CHECK:   memref.store %[[NEW]]
func.func @reduce_with_shuffles(%n: index) {
  tile.kernel grid(%n) threads(256) -> (%bx) {
    %s = tile.alloc_fragment : memref<8x1024xf32, #tile.mem<fragment>>
    %m = tile.alloc_fragment : memref<8xf32, #tile.mem<fragment>>
    "test.def"(%s, %m) : (memref<8x1024xf32, #tile.mem<fragment>>, memref<8xf32, #tile.mem<fragment>>) -> ()
    tile.reduce <abssum> %s to %m dim 1 {clear = false} : memref<8x1024xf32, #tile.mem<fragment>> to memref<8xf32, #tile.mem<fragment>>
    "test.use"(%m) : (memref<8xf32, #tile.mem<fragment>>) -> ()
  }
  return
}

// -----

// A kernel with a thread block cluster launches with its cluster shape,
// padded with ones; the kernel's block ids stay the grid's block ids, not the
// cluster's.
// CHECK-LABEL: func.func @cluster
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: gpu.launch clusters(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C2]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) blocks(%[[BX:[[:alnum:]_]+]], %{{.*}}, %{{.*}}) in
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%[[BX]]]
func.func @cluster(%gx: index, %out: memref<?xf32>) {
  tile.kernel grid(%gx) threads(32) cluster(2) -> (%bx) {
    %v = arith.constant 1.0 : f32
    tile.atomic_add %v to %out[%bx] : f32 to memref<?xf32>
  }
  return
}

// -----

// tile.use_swizzle rasterizes the block ids: linear id (x fastest), panels
// of 4 rows (panel = linear / (4 * gridX)), a shorter last panel (height =
// min(4, gridY - first row)), odd panels right to left.
// CHECK-LABEL: func.func @rasterized
// CHECK: gpu.launch blocks(%[[BX:[[:alnum:]_]+]], %[[BY:[[:alnum:]_]+]], %{{[[:alnum:]_]+}}) in (%[[GX:[[:alnum:]_]+]] = %{{[[:alnum:]_]+}}, %[[GY:[[:alnum:]_]+]] =
// CHECK: %[[ROW0:.*]] = arith.muli %[[BY]], %[[GX]]
// CHECK: %[[LINEAR:.*]] = arith.addi %[[BX]], %[[ROW0]]
// CHECK: %[[PANEL:.*]] = arith.muli %[[GX]], %c4
// CHECK: %[[INDEX:.*]] = arith.divui %[[LINEAR]], %[[PANEL]]
// CHECK: %[[OFFSET:.*]] = arith.remui %[[LINEAR]], %[[PANEL]]
// CHECK: %[[FIRST:.*]] = arith.muli %[[INDEX]], %c4
// CHECK: %[[LEFT:.*]] = arith.subi %[[GY]], %[[FIRST]]
// CHECK: %[[HEIGHT:.*]] = arith.minui %[[LEFT]], %c4
// CHECK: %[[ALONG:.*]] = arith.divui %[[OFFSET]], %[[HEIGHT]]
// CHECK: %[[IN:.*]] = arith.remui %[[OFFSET]], %[[HEIGHT]]
// CHECK: %[[ROW:.*]] = arith.addi %[[FIRST]], %[[IN]]
// CHECK: %[[ODD:.*]] = arith.cmpi ne
// CHECK: %[[LAST:.*]] = arith.subi %[[GX]], %c1
// CHECK: %[[BACK:.*]] = arith.subi %[[LAST]], %[[ALONG]]
// CHECK: %[[COL:.*]] = arith.select %[[ODD]], %[[BACK]], %[[ALONG]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL]]]
func.func @rasterized(%gx: index, %gy: index, %out: memref<?x?xf32>) {
  tile.kernel grid(%gx, %gy) threads(32) -> (%bx, %by) {
    tile.use_swizzle panel(4)
    %one = arith.constant 1.0 : f32
    memref.store %one, %out[%by, %bx] : memref<?x?xf32>
  }
  return
}
