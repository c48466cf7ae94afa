// GEMM with int4 weights dequantized on the fly (weight-only quantization).
//
//   W[n, k] = (q[n, k] - 8) * Scale[n]
//   C[M, N] = A[M, K] @ W[N, K]^T          A, Scale, C f16, accumulation in f32
//
// q is unsigned 4-bit (0..15, zero point 8), packed two per byte in
// B: [N, K/2] i8, the low nibble holding even k and the high nibble odd k;
// Scale: [N] f16 is one scale per output channel. M, N and K are dynamic
// (K even). Tiles: block_M = 128, block_N = 128, block_K = 32, 128 threads, a
// 2-stage pipeline over K. Each step copies a 128x16 tile of packed bytes to
// shared memory and unpacks it into a 128x32 f16 shared tile that feeds the
// tensor-core gemm as its transposed B operand.
//
// Edge tiles: past K, A reads as zero, so the dequantized padding (0 - 8) *
// scale multiplies zeros; past N the scale reads as zero; the writes outside
// C are dropped.
//
// TileLang:
//
//   with T.Kernel(T.ceildiv(N, 128), T.ceildiv(M, 128), threads=128) as (bx, by):
//       A_shared = T.alloc_shared((128, 32), "float16")
//       B_packed_shared = T.alloc_shared((128, 16), "int8")
//       B_shared = T.alloc_shared((128, 32), "float16")
//       scale_shared = T.alloc_shared((128,), "float16")
//       C_local = T.alloc_fragment((128, 128), "float")
//       T.copy(Scale[bx * 128], scale_shared)
//       T.clear(C_local)
//       for k in T.Pipelined(T.ceildiv(K, 32), num_stages=2):
//           T.copy(A[by * 128, k * 32], A_shared)
//           T.copy(B[bx * 128, k * 16], B_packed_shared)
//           for i, j in T.Parallel(128, 32):
//               q = (B_packed_shared[i, j // 2] >> ((j % 2) * 4)) & 0xF
//               B_shared[i, j] = (T.cast(q, "float16") - 8) * scale_shared[i]
//           T.gemm(A_shared, B_shared, C_local, transpose_B=True)
//       T.copy(C_local, C[by * 128, bx * 128])

// CHECK: module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">}
// CHECK-LABEL: func.func @dequant_gemm(
// CHECK-SAME: %[[A:[^:]+]]: memref<?x?xf16>, %[[B:[^:]+]]: memref<?x?xi8>, %[[SCALE:[^:]+]]: memref<?xf16>, %[[C:[^:]+]]: memref<?x?xf16>)
// CHECK-DAG: %[[M:.+]] = memref.dim %[[A]], %c0 : memref<?x?xf16>
// CHECK-DAG: %[[K:.+]] = memref.dim %[[A]], %c1 : memref<?x?xf16>
// CHECK-DAG: %[[N:.+]] = memref.dim %[[B]], %c0 : memref<?x?xi8>
// CHECK-DAG: %[[GX:.+]] = arith.ceildivui %[[N]], %c128 : index
// CHECK-DAG: %[[GY:.+]] = arith.ceildivui %[[M]], %c128 : index
// CHECK-DAG: %[[KT:.+]] = arith.ceildivui %[[K]], %c32 : index
// CHECK: tile.kernel grid(%[[GX]], %[[GY]]) threads(128) -> (%bx, %by) {
// CHECK: %[[AS:.+]] = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[BPS:.+]] = tile.alloc_shared : memref<128x16xi8, #tile.mem<shared>>
// CHECK-NEXT: %[[BS:.+]] = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[SS:.+]] = tile.alloc_shared : memref<128xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[CF:.+]] = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[ROW:.+]] = arith.muli %by, %c128 : index
// CHECK-NEXT: %[[COL:.+]] = arith.muli %bx, %c128 : index
// CHECK-NEXT: tile.copy %[[SCALE]][%[[COL]]] to %[[SS]] : memref<?xf16> to memref<128xf16, #tile.mem<shared>>
// CHECK-NEXT: tile.clear %[[CF]] : memref<128x128xf32, #tile.mem<fragment>>
// CHECK-NEXT: tile.pipelined %[[KI:.+]] = %c0 to %[[KT]] step %c1 num_stages = 2 {
// CHECK-NEXT: %[[KOFF:.+]] = arith.muli %[[KI]], %c32 : index
// CHECK-NEXT: %[[KPOFF:.+]] = arith.muli %[[KI]], %c16 : index
// CHECK-NEXT: tile.copy %[[A]][%[[ROW]], %[[KOFF]]] to %[[AS]] : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
// CHECK-NEXT: tile.copy %[[B]][%[[COL]], %[[KPOFF]]] to %[[BPS]] : memref<?x?xi8> to memref<128x16xi8, #tile.mem<shared>>
// CHECK-NEXT: tile.parallel (%[[I:.+]], %[[J:.+]]) in (128, 32) {
// CHECK: %[[BYTE:.+]] = memref.load %[[BPS]][%[[I]], %{{.+}}] : memref<128x16xi8, #tile.mem<shared>>
// CHECK: %[[SHIFTED:.+]] = arith.shrui %[[BYTE]], %{{.+}} : i8
// CHECK-NEXT: %[[NIB:.+]] = arith.andi %[[SHIFTED]], %{{.+}} : i8
// CHECK-NEXT: %[[QF:.+]] = arith.uitofp %[[NIB]] : i8 to f16
// CHECK-NEXT: %[[CENTERED:.+]] = arith.subf %[[QF]], %{{.+}} : f16
// CHECK-NEXT: %[[S:.+]] = memref.load %[[SS]][%[[I]]] : memref<128xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[W:.+]] = arith.mulf %[[CENTERED]], %[[S]] : f16
// CHECK-NEXT: memref.store %[[W]], %[[BS]][%[[I]], %[[J]]] : memref<128x32xf16, #tile.mem<shared>>
// CHECK-NEXT: }
// CHECK-NEXT: tile.gemm %[[AS]], %[[BS]], %[[CF]] {transpose_b} : memref<128x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
// CHECK-NEXT: }
// CHECK-NEXT: tile.copy %[[CF]] to %[[C]][%[[ROW]], %[[COL]]] : memref<128x128xf32, #tile.mem<fragment>> to memref<?x?xf16>
// CHECK-NEXT: }
// CHECK-NEXT: return

module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @dequant_gemm(%A: memref<?x?xf16>, %B: memref<?x?xi8>,
                          %Scale: memref<?xf16>, %C: memref<?x?xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %M = memref.dim %A, %c0 : memref<?x?xf16>
    %K = memref.dim %A, %c1 : memref<?x?xf16>
    %N = memref.dim %B, %c0 : memref<?x?xi8>
    %grid_x = arith.ceildivui %N, %c128 : index
    %grid_y = arith.ceildivui %M, %c128 : index
    %k_tiles = arith.ceildivui %K, %c32 : index
    tile.kernel grid(%grid_x, %grid_y) threads(128) -> (%bx, %by) {
      %c4 = arith.constant 4 : index
      %mask = arith.constant 15 : i8
      %zero_point = arith.constant 8.0 : f16
      %A_shared = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
      %B_packed_shared = tile.alloc_shared : memref<128x16xi8, #tile.mem<shared>>
      %B_shared = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
      %scale_shared = tile.alloc_shared : memref<128xf16, #tile.mem<shared>>
      %C_local = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
      %row = arith.muli %by, %c128 : index
      %col = arith.muli %bx, %c128 : index
      tile.copy %Scale[%col] to %scale_shared
          : memref<?xf16> to memref<128xf16, #tile.mem<shared>>
      tile.clear %C_local : memref<128x128xf32, #tile.mem<fragment>>
      tile.pipelined %k = %c0 to %k_tiles step %c1 num_stages = 2 {
        %k_off = arith.muli %k, %c32 : index
        %kp_off = arith.muli %k, %c16 : index
        tile.copy %A[%row, %k_off] to %A_shared
            : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
        tile.copy %B[%col, %kp_off] to %B_packed_shared
            : memref<?x?xi8> to memref<128x16xi8, #tile.mem<shared>>
        tile.parallel (%i, %j) in (128, 32) {
          // Byte j / 2 holds k = j in its low nibble when j is even, in its
          // high nibble when j is odd.
          %jp = arith.shrui %j, %c1 : index
          %byte = memref.load %B_packed_shared[%i, %jp] : memref<128x16xi8, #tile.mem<shared>>
          %odd = arith.andi %j, %c1 : index
          %shift_idx = arith.muli %odd, %c4 : index
          %shift = arith.index_cast %shift_idx : index to i8
          %shifted = arith.shrui %byte, %shift : i8
          %q = arith.andi %shifted, %mask : i8
          %qf = arith.uitofp %q : i8 to f16
          %centered = arith.subf %qf, %zero_point : f16
          %s = memref.load %scale_shared[%i] : memref<128xf16, #tile.mem<shared>>
          %w = arith.mulf %centered, %s : f16
          memref.store %w, %B_shared[%i, %j] : memref<128x32xf16, #tile.mem<shared>>
        }
        tile.gemm %A_shared, %B_shared, %C_local {transpose_b}
            : memref<128x32xf16, #tile.mem<shared>>,
              memref<128x32xf16, #tile.mem<shared>>
              -> memref<128x128xf32, #tile.mem<fragment>>
      }
      tile.copy %C_local to %C[%row, %col]
          : memref<128x128xf32, #tile.mem<fragment>> to memref<?x?xf16>
    }
    return
  }
}
