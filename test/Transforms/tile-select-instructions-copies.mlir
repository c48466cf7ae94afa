// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions | FileCheck %s --check-prefix=SM90
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions=tma-store | FileCheck %s --check-prefix=STORE
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_80" --tile-select-instructions | FileCheck %s --check-prefix=SM80
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_70" --tile-select-instructions | FileCheck %s --check-prefix=SM70
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx942" --tile-select-instructions | FileCheck %s --check-prefix=AMD
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cpu chip=host" --tile-select-instructions | FileCheck %s --check-prefix=CPU
// RUN: tile-opt %s --split-input-file --tile-select-instructions | FileCheck %s --check-prefix=CPU
// The engine is a choice made once: selecting again keeps every stamp.
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions=tma-store --tile-select-instructions | FileCheck %s --check-prefix=STORE

// Each copy gets the first engine that can move it: TMA (sm_90: a copy
// that arrives on a barrier; with tma-store a synchronous store of a whole
// shared tile), cp.async (sm_80+: an async copy), AMD buffer loads (a
// global region into a whole LDS tile), vectors, elements. In order: a
// synchronous load, an async one, one on a barrier, a store, a load into
// a local tile (per-thread: scalar).
// SM90-LABEL: func.func @engines
// SM90: tile.copy {{.*}} {engine = #tile.copy_engine<vector>}
// SM90: tile.copy {{.*}} {async, engine = #tile.copy_engine<cp_async>}
// SM90: tile.copy {{.*}} arrive({{.*}}) {async, engine = #tile.copy_engine<tma>}
// SM90: tile.copy {{.*}} {engine = #tile.copy_engine<vector>}
// SM90: tile.copy {{.*}} {engine = #tile.copy_engine<elements>}
// STORE-LABEL: func.func @engines
// STORE: tile.copy {{.*}} {engine = #tile.copy_engine<vector>}
// STORE: tile.copy {{.*}} {async, engine = #tile.copy_engine<cp_async>}
// STORE: tile.copy {{.*}} arrive({{.*}}) {async, engine = #tile.copy_engine<tma>}
// STORE: tile.copy {{.*}} {engine = #tile.copy_engine<tma>}
// STORE: tile.copy {{.*}} {engine = #tile.copy_engine<elements>}
// SM80-LABEL: func.func @engines
// SM80: tile.copy {{.*}} {engine = #tile.copy_engine<vector>}
// SM80: tile.copy {{.*}} {async, engine = #tile.copy_engine<cp_async>}
// SM80: tile.copy {{.*}} arrive({{.*}}) {async, engine = #tile.copy_engine<vector>}
// SM80: tile.copy {{.*}} {engine = #tile.copy_engine<vector>}
// SM80: tile.copy {{.*}} {engine = #tile.copy_engine<elements>}
// SM70-LABEL: func.func @engines
// SM70: tile.copy {{.*}} {engine = #tile.copy_engine<vector>}
// SM70: tile.copy {{.*}} {async, engine = #tile.copy_engine<vector>}
// SM70: tile.copy {{.*}} arrive({{.*}}) {async, engine = #tile.copy_engine<vector>}
// AMD-LABEL: func.func @engines
// AMD: tile.copy {{.*}} {engine = #tile.copy_engine<buffer_load>}
// AMD: tile.copy {{.*}} {async, engine = #tile.copy_engine<buffer_load>}
// AMD: tile.copy {{.*}} arrive({{.*}}) {async, engine = #tile.copy_engine<vector>}
// AMD: tile.copy {{.*}} {engine = #tile.copy_engine<vector>}
// AMD: tile.copy {{.*}} {engine = #tile.copy_engine<elements>}
// CPU-LABEL: func.func @engines
// CPU: tile.copy {{.*}} {engine = #tile.copy_engine<vector>}
// CPU: tile.copy {{.*}} {async, engine = #tile.copy_engine<vector>}
// CPU: tile.copy {{.*}} arrive({{.*}}) {async, engine = #tile.copy_engine<vector>}
// CPU: tile.copy {{.*}} {engine = #tile.copy_engine<vector>}
// CPU: tile.copy {{.*}} {engine = #tile.copy_engine<elements>}
func.func @engines(%A: memref<?x?xf16>, %C: memref<?x?xf16>, %m: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%m) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %l = tile.alloc_local : memref<8xf16, #tile.mem<local>>
    tile.barrier_init %bars arrivals(1) : memref<1xi64, #tile.mem<shared>>
    tile.copy %A[%bx, %c0] to %s : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %A[%bx, %c0] to %s {async} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %A[%bx, %c0] to %s arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %s to %C[%bx, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    tile.copy %A[%bx, %c0] to %l : memref<?x?xf16> to memref<8xf16, #tile.mem<local>>
  }
  return
}

// -----

// What TMA cannot describe takes the next engine: a buffer the kernel
// defines (the host encodes maps of kernel arguments only), a tile whose
// rows run across the buffer's last dimension (no vectors either), a
// swizzled tile whose rows are not the swizzle's span (no box), a
// converting store, a 3-D tile.
// STORE-LABEL: func.func @not_tma
// STORE: tile.copy {{.*}} arrive({{.*}}) {async, engine = #tile.copy_engine<vector>}
// STORE: tile.copy {{.*}} arrive({{.*}}) {async, engine = #tile.copy_engine<elements>}
// STORE: tile.copy {{.*}} arrive({{.*}}) {async, engine = #tile.copy_engine<vector>}
// STORE: tile.copy {{.*}} {engine = #tile.copy_engine<vector>}
// STORE: tile.copy {{.*}} {engine = #tile.copy_engine<vector>}
func.func @not_tma(%A: memref<?x?xf16>, %C: memref<?x?xf32>, %D: memref<?x?x?xf16>, %m: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%m) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %w = tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<64x32xf16, #tile.mem<shared>>
    %t = tile.alloc_shared : memref<2x8x64xf16, #tile.mem<shared>>
    %g = memref.alloc(%m, %m) : memref<?x?xf16>
    tile.barrier_init %bars arrivals(1) : memref<1xi64, #tile.mem<shared>>
    tile.copy %g[%bx, %c0] to %s arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %D[%c0 : 64, %c0 : 64, %bx] to %s arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<?x?x?xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %A[%bx, %c0] to %w arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
    tile.copy %s to %C[%bx, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf32>
    tile.copy %t to %D[%bx, %c0, %c0] : memref<2x8x64xf16, #tile.mem<shared>> to memref<?x?x?xf16>
  }
  return
}

// -----

// A static buffer whose rows are not 16-byte multiples apart (700 f16
// columns) has no tensor map: loads and stores take the next engine.
// STORE-LABEL: func.func @misaligned_rows
// STORE: tile.copy {{.*}} arrive({{.*}}) {async, engine = #tile.copy_engine<vector>}
// STORE: tile.copy {{.*}} {engine = #tile.copy_engine<vector>}
// STORE: tile.copy {{.*}} arrive({{.*}}) {async, engine = #tile.copy_engine<tma>}
// STORE: tile.copy {{.*}} {engine = #tile.copy_engine<tma>}
func.func @misaligned_rows(%A: memref<1000x700xf16>, %B: memref<1000x704xf16>, %m: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%m) threads(128) -> (%bx) {
    %bars = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    tile.barrier_init %bars arrivals(1) : memref<1xi64, #tile.mem<shared>>
    tile.copy %A[%bx, %c0] to %s arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<1000x700xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %s to %A[%bx, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<1000x700xf16>
    tile.copy %B[%bx, %c0] to %s arrive(%bars[%c0] : memref<1xi64, #tile.mem<shared>>) {async} : memref<1000x704xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %s to %B[%bx, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<1000x704xf16>
  }
  return
}
