// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_80" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_75" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory --canonicalize --cse | FileCheck %s --check-prefix=SM75
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX

// A 64x32 f16 async copy on 128 threads: 256 vectors of 16 bytes, two per
// thread (thread t takes vectors t and t + 128, four per row), each a
// cp.async of 8 elements that reads what is left of its row (none outside
// the buffer: a source size of 0, which reads nothing). The block first checks that
// both bases, the source's row stride and the column offset are whole
// vectors; otherwise it runs the element-wise copy between barriers.
// CHECK-LABEL: func.func @async_copy
// CHECK: gpu.launch {{.*}} threads(%[[TX:[[:alnum:]_]+]], %{{.*}}, %{{.*}}) in
// CHECK: %[[VIEW:.*]] = memref.view
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[SRC:[[:alnum:]_]+]]
// CHECK: memref.extract_aligned_pointer_as_index %[[SRC]]
// CHECK: arith.remui %[[STRIDES]]#0, %c8
// CHECK: arith.remui %[[COL:.*]], %c8
// CHECK: memref.extract_aligned_pointer_as_index %[[VIEW]]
// CHECK: scf.if
// CHECK: %[[V0:.*]] = arith.remui %[[TX]], %c4
// CHECK: %[[DIM1:.*]] = memref.dim %[[SRC]], %c1
// CHECK: %[[LEFT:.*]] = arith.subi %[[DIM1]], %{{.*}}
// CHECK: %[[N:.*]] = arith.minui %[[LEFT]], %c8
// CHECK: %[[COUNT:.*]] = arith.select %{{.*}}, %[[N]], %c0
// CHECK: nvgpu.device_async_copy %[[SRC]][%{{.*}}, %{{.*}}], %[[VIEW]][%{{.*}}, %{{.*}}], 8, %[[COUNT]] {bypassL1}
// CHECK: arith.addi %[[TX]], %c128
// CHECK: nvgpu.device_async_copy
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: } else {
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: memref.load %[[SRC]]
// CHECK: memref.store {{.*}}, %[[VIEW]]
// CHECK: gpu.barrier
// CHECK: }
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// Before sm_80 there is no cp.async: a plain copy, and the wait is a
// barrier.
// SM75-LABEL: func.func @async_copy
// SM75-NOT: nvgpu.device_async_copy
// SM75-NOT: nvvm.cp.async
// SM75: memref.store
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group {{.*}}1;
func.func @async_copy(%A: memref<?x?xf16>, %n: index, %col: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    tile.copy %A[%bx, %col] to %s {async} : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
    tile.async_commit
    tile.async_wait pending(1)
    tile.copy %s to %A[%bx, %col] : memref<64x32xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}

// -----

// Rows of 4 f16 (8 bytes): 8-byte transfers, no L1 bypass (16 bytes only).
// 16x4 / 4 = 16 vectors for 32 threads: threads 16-31 skip.
// CHECK-LABEL: func.func @short_rows
// CHECK: arith.cmpi ult, %{{.*}}, %c16
// CHECK: nvgpu.device_async_copy {{.*}}, 4, %{{.*}} :
// CHECK-NOT: bypassL1
// CHECK: return
func.func @short_rows(%A: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    %s = tile.alloc_shared : memref<16x4xf16, #tile.mem<shared>>
    tile.copy %A[%bx, %bx] to %s {async} : memref<?x?xf16> to memref<16x4xf16, #tile.mem<shared>>
    tile.async_commit
    tile.async_wait pending(0)
    tile.copy %s to %A[%bx, %bx] : memref<16x4xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}

// -----

// A static source whose rows are 1400 bytes apart (700 f16 columns): whole
// 16-byte vectors would straddle rows' alignment, so 8-byte ones (4
// elements), 512 for the 64x32 tile, four per thread.
// CHECK-LABEL: func.func @misaligned_rows
// CHECK-COUNT-4: nvgpu.device_async_copy {{.*}}, 4, %{{.*}} :
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: return
func.func @misaligned_rows(%A: memref<1000x700xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    tile.copy %A[%bx, %bx] to %s {async} : memref<1000x700xf16> to memref<64x32xf16, #tile.mem<shared>>
    tile.async_commit
    tile.async_wait pending(0)
  }
  return
}

// -----

// A swizzled destination: each vector lands at its XOR-permuted column
// (the column's 16-byte unit XOR bits 6-7 of the row-major offset, for
// #tile.swizzle<2, 3, 3>), and the element-wise fallback permutes the same
// way; so does every read through tile.copy.
// CHECK-LABEL: func.func @swizzled
// CHECK: scf.if
// CHECK: %[[X:.*]] = arith.xori
// CHECK: nvgpu.device_async_copy {{.*}}, %{{.*}}[%{{.*}}, %[[X]]], 8
// CHECK: } else {
// CHECK: arith.xori
// CHECK: memref.store
// CHECK: }
// CHECK: arith.xori
// CHECK: memref.load
func.func @swizzled(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared {layout = #tile.swizzle<2, 3, 3>} : memref<64x32xf16, #tile.mem<shared>>
    tile.copy %A[%bx, %c0] to %s {async} : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
    tile.async_commit
    tile.async_wait pending(0)
    tile.copy %s to %A[%bx, %c0] : memref<64x32xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}

// -----

// Element accesses (a tile.parallel reading and writing the tile) apply
// the swizzle too: their indices go through the XOR, as the copies' do.
// CHECK-LABEL: func.func @unapplied_swizzle
// CHECK: arith.xori
// CHECK: memref.load
// CHECK: arith.xori
// CHECK: memref.store
// CHECK: return
func.func @unapplied_swizzle(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared {layout = #tile.swizzle<2, 3, 3>} : memref<64x32xf16, #tile.mem<shared>>
    tile.copy %A[%bx, %c0] to %s {async} : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
    tile.async_commit
    tile.async_wait pending(0)
    tile.parallel (%i, %j) in (64, 32) {
      %v = memref.load %s[%i, %j] : memref<64x32xf16, #tile.mem<shared>>
      %w = arith.addf %v, %v : f16
      memref.store %w, %s[%i, %j] : memref<64x32xf16, #tile.mem<shared>>
    }
    tile.copy %s to %A[%bx, %c0] : memref<64x32xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}

// -----

// A gather the pipeline made asynchronous (tile.parallel {async}): groups
// of 8 consecutive f16 per thread (64 x 64 / 8 = 512 groups, four per
// thread); where a group's row and shared place are 16-byte aligned at
// run time, one cp.async of 16 bytes from the gathered row, otherwise the
// plain element stores. No block barrier around it: the wait that follows
// its commit is the block barrier its readers need. Into a swizzled tile
// each vector lands at its permuted place.
// CHECK-LABEL: func.func @gather
// CHECK: gpu.launch
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK: scf.if
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK: arith.xori
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8 {bypassL1}
// CHECK-NEXT: } else {
// CHECK-NOT: gpu.barrier
// CHECK: memref.store
// CHECK: } {tile.lowered_async_copy}
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// Rows of 3 f32 (12 bytes): no vectors, plain stores, and still no barrier
// before the commit.
// CHECK: scf.for %{{.*}} = %{{.*}} to %c192 step %c128 {
// CHECK-NEXT: arith.remui
// CHECK-NEXT: arith.divui
// CHECK-NEXT: memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x3xf32>
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x3xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: } {tile.lowered_async_copy}
// CHECK-NEXT: nvvm.cp.async.commit.group
// Before sm_80, plain stores and a barrier for the wait.
// SM75-LABEL: func.func @gather
// SM75-NOT: nvgpu.device_async_copy
// SM75: memref.store
// SM75: gpu.barrier
// PTX: .entry gather_kernel(
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: cp.async.commit_group;
func.func @gather(%KV: memref<?x64xf16>, %Idx: memref<?xi32>, %V: memref<?x3xf32>, %O: memref<64x64xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %s = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<64x64xf16, #tile.mem<shared>>
    %t = tile.alloc_shared : memref<64x3xf32, #tile.mem<shared>>
    tile.parallel (%i, %d) in (64, 64) attributes {async} {
      %r = memref.load %Idx[%i] : memref<?xi32>
      %row = arith.index_cast %r : i32 to index
      %v = memref.load %KV[%row, %d] : memref<?x64xf16>
      memref.store %v, %s[%i, %d] : memref<64x64xf16, #tile.mem<shared>>
    }
    tile.async_commit
    tile.async_wait pending(0)
    tile.copy %s to %O : memref<64x64xf16, #tile.mem<shared>> to memref<64x64xf16>
    tile.parallel (%i, %d) in (64, 3) attributes {async} {
      %r = memref.load %Idx[%i] : memref<?xi32>
      %row = arith.index_cast %r : i32 to index
      %v = memref.load %V[%row, %d] : memref<?x3xf32>
      memref.store %v, %t[%i, %d] : memref<64x3xf32, #tile.mem<shared>>
    }
    tile.async_commit
    tile.async_wait pending(0)
  }
  return
}

// -----

// A thread's own copies (TileLang's T.ptx_cp_async) under a condition each
// thread evaluates for itself, which the tile ops would refuse: one
// cp.async of 16 bytes each, into the swizzled tile at the element's
// swizzled place; the arrival once the thread's copies landed is
// cp.async.mbarrier.arrive.noinc on sm_90 (PTX below), and before sm_90,
// where arrival barriers are not lowered, a wait for the thread's copies;
// a per-thread group wait has no block barrier.
// CHECK-LABEL: func.func @thread_copies
// CHECK: gpu.launch
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK: arith.xori
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8 {bypassL1}
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.terminator
// Before sm_80 the copy completes at once: plain loads and stores.
// SM75-LABEL: func.func @thread_copies
// SM75-NOT: nvgpu.device_async_copy
// SM75-COUNT-8: memref.store
// PTX: .entry thread_copies_kernel(
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: cp.async.mbarrier.arrive.noinc.shared{{(::cta)?}}.b64
func.func @thread_copies(%KV: memref<?x64xf16>, %Idx: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tile.kernel grid(%n) threads(64) -> (%bx) {
    %s = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<8x64xf16, #tile.mem<shared>>
    %bars = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    tile.barrier_init %bars arrivals(64) : memref<1xi64, #tile.mem<shared>>
    %tx = tile.thread_id 0
    %r = arith.divui %tx, %c8 : index
    %c = arith.remui %tx, %c8 : index
    %col = arith.muli %c, %c8 : index
    %x = memref.load %Idx[%r] : memref<?xi32>
    %row = arith.index_cast %x : i32 to index
    %valid = arith.cmpi sge, %row, %c0 : index
    scf.if %valid {
      tile.async_copy_elements %KV[%row, %col] to %s[%r, %col] count(8) : memref<?x64xf16> to memref<8x64xf16, #tile.mem<shared>>
    }
    tile.barrier_arrive %bars[%c0] {async_copies, per_thread} : memref<1xi64, #tile.mem<shared>>
    tile.async_commit
    tile.async_wait pending(0) {per_thread}
  }
  return
}

// -----

// TileLang's conditional cp.async (T.ptx_cp_async(..., predicate=)): a
// false predicate reads none of the source's bytes and zero-fills, as the
// cp.async's source size 0; before sm_80 the source is read only where
// the predicate holds, and zeros are stored elsewhere.
// CHECK-LABEL: func.func @predicated_thread_copies
// CHECK: %[[VALID:.*]] = arith.cmpi slt
// CHECK: %[[N:.*]] = arith.select %[[VALID]], %c8, %c0 : index
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8, %[[N]] {bypassL1}
// SM75-LABEL: func.func @predicated_thread_copies
// SM75-NOT: nvgpu.device_async_copy
// SM75: scf.if %{{.*}} -> (f16) {
// SM75: memref.load
// SM75: } else {
// SM75: scf.yield %{{.*}} : f16
// PTX: .entry predicated_thread_copies_kernel(
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
func.func @predicated_thread_copies(%KV: memref<?x64xf16>, %Idx: memref<?xi32>, %n: index, %rows: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tile.kernel grid(%n) threads(64) -> (%bx) {
    %s = tile.alloc_shared : memref<8x64xf16, #tile.mem<shared>>
    %tx = tile.thread_id 0
    %r = arith.divui %tx, %c8 : index
    %c = arith.remui %tx, %c8 : index
    %col = arith.muli %c, %c8 : index
    %x = memref.load %Idx[%r] : memref<?xi32>
    %row = arith.index_cast %x : i32 to index
    %valid = arith.cmpi slt, %row, %rows : index
    tile.async_copy_elements %KV[%row, %col] to %s[%r, %col] count(8) if %valid : memref<?x64xf16> to memref<8x64xf16, #tile.mem<shared>>
    tile.async_commit
    tile.async_wait pending(0) {per_thread}
  }
  return
}
