// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions --tile-infer-layout --tile-select-register-fragments --tile-nvvm-arrived-operands --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-infer-layout --tile-select-register-fragments --tile-nvvm-arrived-operands --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_80" --tile-select-instructions --tile-infer-layout --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa wgmma=false" | FileCheck %s --check-prefix=PTX-OFF

// A gemm tile-select-instructions puts on wgmma (tile-to-nvvm's default on
// sm_90 unless wgmma=false): on sm_90, a gemm whose C is a register fragment of 64 rows per
// warpgroup (full_row over 4 warps: the wgmma accumulator order) and whose
// A (M x K) and B (N x K) are K-major shared tiles with the swizzle of their
// 128-byte rows issues wgmma.mma_async m64n128k16 on matrix descriptors:
// start address >> 4, leading byte offset 1, stride byte offset 1024 >> 4,
// 128-byte swizzle (mode 1): 1 << 16 | 64 << 32 | 1 << 62, built as a low
// half (address field | 1 << 16 = 65536) and a constant high half
// (4611686293305294848); successive k steps add 32 bytes = 2 units to the
// low half. The proxy fence comes first (the operands were written through the
// generic proxy), the commit and the wait last. Without a selection
// (the default choice), or before sm_90, the same gemm runs on mma.sync.
func.func @tn(%A: memref<64x64xf16>, %B: memref<128x64xf16>, %C: memref<64x128xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %A[%c0, %c0] to %a : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<128x64xf16> to memref<128x64xf16, #tile.mem<shared>>
    tile.gemm %a, %b, %c {clear_accum, transpose_b, policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    tile.copy %c to %C[%c0, %c0] : memref<64x128xf32, #tile.mem<fragment>> to memref<64x128xf32>
  }
  return
}
// The swizzled operands start on whole 1024-byte swizzle periods (the
// larger, B, placed first).
// CHECK-LABEL: func.func @tn
// CHECK: %[[C:.*]] = memref.alloca() : memref<64xf32>
// CHECK: memref.view %{{.*}}[%c16384{{.*}}] : {{.*}} to memref<64x64xf16
// CHECK: memref.view %{{.*}}[%c0{{.*}}] : {{.*}} to memref<128x64xf16
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-DAG: arith.constant 65536 : i32
// CHECK-DAG: arith.constant 4611686293305294848 : i64
// CHECK: %[[D0:.*]] = nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.extractvalue
// CHECK: memref.store %{{.*}}, %[[C]][%c0
// OFF-LABEL: func.func @tn
// OFF-NOT: nvvm.wgmma
// OFF: nvgpu.mma.sync
// OFF-NOT: nvvm.wgmma
// PTX: fence.proxy.async.shared::cta
// PTX: wgmma.fence.sync.aligned
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: wgmma.commit_group.sync.aligned
// PTX: wgmma.wait_group.sync.aligned

// Operands that only TMA copies write (they arrive on barriers, which each
// thread waits for): no block barrier before or after the gemm (the
// tile.arrived_operands mark). With one of them written by a synchronous
// copy, the gemm keeps its barriers.
func.func @arrived_operands(%A: memref<64x64xf16>, %B: memref<128x64xf16>, %C: memref<64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.barrier_init %bars arrivals(2) : memref<1xi64, #tile.mem<shared>>
    tile.copy %A[%c0, %c0] to %a arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<128x64xf16> to memref<128x64xf16, #tile.mem<shared>>
    tile.barrier_wait %bars[%c0] parity(%c0) : memref<1xi64, #tile.mem<shared>>
    tile.gemm %a, %b, %c {clear_accum, transpose_b, policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    tile.copy %c to %C[%c0, %c0] : memref<64x128xf32, #tile.mem<fragment>> to memref<64x128xf32>
  }
  return
}
// CHECK-LABEL: func.func @arrived_operands
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: gpu.barrier
// CHECK: return

func.func @synchronous_operand(%A: memref<64x64xf16>, %B: memref<128x64xf16>, %C: memref<64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.barrier_init %bars arrivals(1) : memref<1xi64, #tile.mem<shared>>
    tile.copy %A[%c0, %c0] to %a arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<128x64xf16> to memref<128x64xf16, #tile.mem<shared>>
    tile.barrier_wait %bars[%c0] parity(%c0) : memref<1xi64, #tile.mem<shared>>
    tile.gemm %a, %b, %c {clear_accum, transpose_b, policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    tile.copy %c to %C[%c0, %c0] : memref<64x128xf32, #tile.mem<fragment>> to memref<64x128xf32>
  }
  return
}
// CHECK-LABEL: func.func @synchronous_operand
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: gpu.barrier
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.wgmma.mma_async

// A gemm with wg_wait = 1 (as tile-plan-pipelines{overlap-gemms} sets it)
// leaves one group in flight: its wait is wait_group 1, and tile.gemm_wait
// becomes wait_group 0 before C is read. Without wgmma the gemm computes
// synchronously and the wait goes away.
func.func @overlapped(%A: memref<64x64xf16>, %B: memref<128x64xf16>, %C: memref<64x128xf32>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.copy %A[%c0, %c0] to %a : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<128x64xf16> to memref<128x64xf16, #tile.mem<shared>>
    tile.clear %c : memref<64x128xf32, #tile.mem<fragment>>
    scf.for %k = %c0 to %kt step %c1 {
      tile.gemm %a, %b, %c {transpose_b, policy = #tile.policy<full_row>, wg_wait = 1} : memref<64x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    }
    tile.gemm_wait pending(0)
    tile.copy %c to %C[%c0, %c0] : memref<64x128xf32, #tile.mem<fragment>> to memref<64x128xf32>
  }
  return
}
// CHECK-LABEL: func.func @overlapped
// CHECK: scf.for
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: }
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// OFF-LABEL: func.func @overlapped
// OFF-NOT: nvvm.wgmma
// OFF: nvgpu.mma.sync
// OFF-NOT: nvvm.wgmma
// OFF: return
// PTX-OFF-NOT: wgmma
// PTX-OFF: mma.sync.aligned.m16n8k16
// PTX-OFF-NOT: wgmma

// wg_wait = -1 (TileLang's "do not wait"): two gemms issue their groups one
// after the other with no wait between them; tile.gemm_wait pending(1)
// completes the first, pending(0) the second. (Outside a loop body each
// gemm is fenced by block barriers; inside one, see
// test/Python/gen_attention.py: none between the two.)
func.func @no_wait(%A: memref<64x64xf16>, %B: memref<128x64xf16>, %C: memref<64x128xf32>, %D: memref<64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    %d = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.copy %A[%c0, %c0] to %a : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<128x64xf16> to memref<128x64xf16, #tile.mem<shared>>
    tile.clear %c : memref<64x128xf32, #tile.mem<fragment>>
    tile.clear %d : memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b, policy = #tile.policy<full_row>, wg_wait = -1} : memref<64x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %d {transpose_b, policy = #tile.policy<full_row>, wg_wait = -1} : memref<64x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm_wait pending(1)
    tile.copy %c to %C[%c0, %c0] : memref<64x128xf32, #tile.mem<fragment>> to memref<64x128xf32>
    tile.gemm_wait pending(0)
    tile.copy %d to %D[%c0, %c0] : memref<64x128xf32, #tile.mem<fragment>> to memref<64x128xf32>
  }
  return
}
// CHECK-LABEL: func.func @no_wait
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: return

// Attention's two gemms: S = Q K^T from shared memory, then O += P V with P
// (the f16 copy of S) in registers, in the mma operand layout that is
// wgmma's register-A layout, and V stored K x N (MN-major: one 128-byte row
// holds all 64 columns, so the descriptor is the K-major one with the
// transposed-B flag, moving 16 rows = 2048 bytes = 16 x 8 descriptor units
// per k step). MLIR's wgmma
// op takes A only through a descriptor: the register form is inline PTX,
// scale-d true, trans-b 1, the accumulators tied.
func.func @attention_gemms(%Q: memref<64x64xf16>, %K: memref<64x64xf16>, %V: memref<64x64xf16>, %O: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %q = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %v = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    %o = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %Q[%c0, %c0] to %q : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %K[%c0, %c0] to %k : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %V[%c0, %c0] to %v : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.gemm %q, %k, %s {clear_accum, transpose_b, policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.copy %s to %p : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
    tile.clear %o : memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %p, %v, %o {policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.copy %o to %O[%c0, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf32>
  }
  return
}
// CHECK-LABEL: func.func @attention_gemms
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: vector.bitcast %{{.*}} : vector<2xf16> to vector<1xi32>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects {{.*}}"{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;\0A}", "=f,{{.*}},=f,r,r,r,r,l,0,{{.*}},31"
// CHECK: %[[ROW:.*]] = arith.constant 16 : index
// CHECK: arith.muli %[[ROW]], %c8
// CHECK-COUNT-3: llvm.inline_asm
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// OFF-LABEL: func.func @attention_gemms
// OFF-NOT: nvvm.wgmma
// OFF-NOT: llvm.inline_asm
// OFF: return

// A 64-row C over two warpgroups (TileLang's MLA decode shape): they split
// N, each a wgmma m64n32k16 of its 32 columns. Warpgroup g = tid / 128 is
// row group g / 2 (A's rows from 64 x that: 512 16-byte units per row
// group of 128-byte rows) and column group g mod 2, whose B (K-major, 128-
// byte rows) starts 32 rows = 256 units further per group. Four k steps.
// CHECK-LABEL: func.func @column_groups
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[WG:.*]] = arith.divui %{{.*}}, %c128 : index
// CHECK: %[[ROW_GROUP:.*]] = arith.divui %[[WG]], %c2{{.*}} : index
// CHECK: %[[A_ROW:.*]] = arith.muli %[[ROW_GROUP]], %c64 : index
// CHECK: %[[COLUMN_GROUP:.*]] = arith.remui %[[WG]], %c2{{.*}} : index
// CHECK: %[[B_ROW:.*]] = arith.muli %[[COLUMN_GROUP]], %c32 : index
// CHECK: arith.muli %[[B_ROW]], %c8{{.*}} : index
// CHECK: arith.muli %[[A_ROW]], %c8{{.*}} : index
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 16>
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 16>
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// PTX-LABEL: .entry column_groups
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16
func.func @column_groups(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %A[%c0, %c0] to %a : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.gemm %a, %b, %c {clear_accum, transpose_b, policy = #tile.policy<full_col>} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    tile.copy %c to %C[%c0, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf32>
  }
  return
}

// An MN-major B of 512 columns (the blocked layout tile-to-nvvm gives wide
// operands) over two warpgroups: each a wgmma m64n256k16 of its 256
// columns, four whole 128-byte blocks of B's rows further per group.
// PTX-LABEL: .entry column_groups_mn
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
func.func @column_groups_mn(%A: memref<64x64xf16>, %B: memref<64x512xf16>, %C: memref<64x512xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x512xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x512xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %A[%c0, %c0] to %a : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<64x512xf16> to memref<64x512xf16, #tile.mem<shared>>
    tile.gemm %a, %b, %c {clear_accum, policy = #tile.policy<full_col>} : memref<64x64xf16, #tile.mem<shared>>, memref<64x512xf16, #tile.mem<shared>> -> memref<64x512xf32, #tile.mem<fragment>>
    tile.copy %c to %C[%c0, %c0] : memref<64x512xf32, #tile.mem<fragment>> to memref<64x512xf32>
  }
  return
}

// The attention's two gemms with one warpgroup owning 128 rows (TileLang's
// example config, 128 threads): two m64 blocks per k step, Q's descriptors
// 64 rows apart for S = Q K^T; P (S converted in place: the register
// operand layout is the accumulator layout) feeds P V from registers,
// block b's slots from b * K / 2. 4 k steps each.
// PTX-LABEL: .entry tall_attention_gemms
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{[^;]*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p,
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{[^;]*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p,
// PTX-NOT: mma.sync
// PTX-OFF-LABEL: .entry tall_attention_gemms
// PTX-OFF-NOT: wgmma
// PTX-OFF: ret;
func.func @tall_attention_gemms(%Q: memref<128x64xf16>, %K: memref<64x64xf16>, %V: memref<64x64xf16>, %O: memref<128x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %q = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %k = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %v = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %s = tile.alloc_fragment : memref<128x64xf32, #tile.mem<fragment>>
    %p = tile.alloc_fragment : memref<128x64xf16, #tile.mem<fragment>>
    %o = tile.alloc_fragment : memref<128x64xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %Q[%c0, %c0] to %q : memref<128x64xf16> to memref<128x64xf16, #tile.mem<shared>>
    tile.copy %K[%c0, %c0] to %k : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %V[%c0, %c0] to %v : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.gemm %q, %k, %s {clear_accum, transpose_b, policy = #tile.policy<full_row>} : memref<128x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<128x64xf32, #tile.mem<fragment>>
    tile.copy %s to %p : memref<128x64xf32, #tile.mem<fragment>> to memref<128x64xf16, #tile.mem<fragment>>
    tile.clear %o : memref<128x64xf32, #tile.mem<fragment>>
    tile.gemm %p, %v, %o {policy = #tile.policy<full_row>} : memref<128x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<128x64xf32, #tile.mem<fragment>>
    tile.copy %o to %O[%c0, %c0] : memref<128x64xf32, #tile.mem<fragment>> to memref<128x64xf32>
  }
  return
}
