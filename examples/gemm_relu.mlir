// GEMM with a fused ReLU epilogue.
//
//   C[M, N] = relu(A[M, K] @ B[K, N])      A, B, C f16, accumulation in f32
//
// M, N and K are dynamic. Tiles: block_M = 128, block_N = 128, block_K = 32,
// 128 threads (4 warps), a 3-stage software pipeline over K and a panel-10
// block rasterization for L2 reuse. Edge tiles need no special code: copies
// read zeros outside A and B (which add nothing to the dot products) and drop
// the writes that fall outside C.
//
// TileLang:
//
//   @T.prim_func
//   def gemm_relu(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
//                 C: T.Tensor((M, N), "float16")):
//       with T.Kernel(T.ceildiv(N, 128), T.ceildiv(M, 128), threads=128) as (bx, by):
//           A_shared = T.alloc_shared((128, 32), "float16")
//           B_shared = T.alloc_shared((32, 128), "float16")
//           C_local = T.alloc_fragment((128, 128), "float")
//           T.use_swizzle(panel_size=10)
//           T.clear(C_local)
//           for k in T.Pipelined(T.ceildiv(K, 32), num_stages=3):
//               T.copy(A[by * 128, k * 32], A_shared)
//               T.copy(B[k * 32, bx * 128], B_shared)
//               T.gemm(A_shared, B_shared, C_local)
//           for i, j in T.Parallel(128, 128):
//               C_local[i, j] = T.max(C_local[i, j], 0)
//           T.copy(C_local, C[by * 128, bx * 128])

// CHECK: module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">}
// CHECK-LABEL: func.func @gemm_relu(
// CHECK-SAME: %[[A:[^:]+]]: memref<?x?xf16>, %[[B:[^:]+]]: memref<?x?xf16>, %[[C:[^:]+]]: memref<?x?xf16>)
// CHECK-DAG: %[[M:.+]] = memref.dim %[[A]], %c0 : memref<?x?xf16>
// CHECK-DAG: %[[K:.+]] = memref.dim %[[A]], %c1 : memref<?x?xf16>
// CHECK-DAG: %[[N:.+]] = memref.dim %[[B]], %c1 : memref<?x?xf16>
// CHECK-DAG: %[[GX:.+]] = arith.ceildivui %[[N]], %c128 : index
// CHECK-DAG: %[[GY:.+]] = arith.ceildivui %[[M]], %c128 : index
// CHECK-DAG: %[[KT:.+]] = arith.ceildivui %[[K]], %c32 : index
// CHECK: tile.kernel grid(%[[GX]], %[[GY]]) threads(128) -> (%bx, %by) {
// CHECK-NEXT: tile.use_swizzle panel(10)
// CHECK-NEXT: %[[AS:.+]] = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[BS:.+]] = tile.alloc_shared : memref<32x128xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[CF:.+]] = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
// CHECK-NEXT: tile.clear %[[CF]] : memref<128x128xf32, #tile.mem<fragment>>
// CHECK-DAG: %[[ROW:.+]] = arith.muli %by, %c128 : index
// CHECK-DAG: %[[COL:.+]] = arith.muli %bx, %c128 : index
// CHECK: tile.pipelined %[[KI:.+]] = %c0 to %[[KT]] step %c1 num_stages = 3 {
// CHECK-NEXT: %[[KOFF:.+]] = arith.muli %[[KI]], %c32 : index
// CHECK-NEXT: tile.copy %[[A]][%[[ROW]], %[[KOFF]]] to %[[AS]] : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
// CHECK-NEXT: tile.copy %[[B]][%[[KOFF]], %[[COL]]] to %[[BS]] : memref<?x?xf16> to memref<32x128xf16, #tile.mem<shared>>
// CHECK-NEXT: tile.gemm %[[AS]], %[[BS]], %[[CF]] : memref<128x32xf16, #tile.mem<shared>>, memref<32x128xf16, #tile.mem<shared>> -> memref<128x128xf32, #tile.mem<fragment>>
// CHECK-NEXT: }
// CHECK-NEXT: tile.parallel (%[[I:.+]], %[[J:.+]]) in (128, 128) {
// CHECK: %[[V:.+]] = memref.load %[[CF]][%[[I]], %[[J]]] : memref<128x128xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[R:.+]] = arith.maximumf %[[V]], %{{.+}} : f32
// CHECK-NEXT: memref.store %[[R]], %[[CF]][%[[I]], %[[J]]] : memref<128x128xf32, #tile.mem<fragment>>
// CHECK-NEXT: }
// CHECK-NEXT: tile.copy %[[CF]] to %[[C]][%[[ROW]], %[[COL]]] : memref<128x128xf32, #tile.mem<fragment>> to memref<?x?xf16>
// CHECK-NEXT: }
// CHECK-NEXT: return

module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @gemm_relu(%A: memref<?x?xf16>, %B: memref<?x?xf16>,
                       %C: memref<?x?xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %M = memref.dim %A, %c0 : memref<?x?xf16>
    %K = memref.dim %A, %c1 : memref<?x?xf16>
    %N = memref.dim %B, %c1 : memref<?x?xf16>
    %grid_x = arith.ceildivui %N, %c128 : index
    %grid_y = arith.ceildivui %M, %c128 : index
    %k_tiles = arith.ceildivui %K, %c32 : index
    tile.kernel grid(%grid_x, %grid_y) threads(128) -> (%bx, %by) {
      tile.use_swizzle panel(10)
      %A_shared = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
      %B_shared = tile.alloc_shared : memref<32x128xf16, #tile.mem<shared>>
      %C_local = tile.alloc_fragment : memref<128x128xf32, #tile.mem<fragment>>
      tile.clear %C_local : memref<128x128xf32, #tile.mem<fragment>>
      %row = arith.muli %by, %c128 : index
      %col = arith.muli %bx, %c128 : index
      tile.pipelined %k = %c0 to %k_tiles step %c1 num_stages = 3 {
        %k_off = arith.muli %k, %c32 : index
        tile.copy %A[%row, %k_off] to %A_shared
            : memref<?x?xf16> to memref<128x32xf16, #tile.mem<shared>>
        tile.copy %B[%k_off, %col] to %B_shared
            : memref<?x?xf16> to memref<32x128xf16, #tile.mem<shared>>
        tile.gemm %A_shared, %B_shared, %C_local
            : memref<128x32xf16, #tile.mem<shared>>,
              memref<32x128xf16, #tile.mem<shared>>
              -> memref<128x128xf32, #tile.mem<fragment>>
      }
      tile.parallel (%i, %j) in (128, 128) {
        %zero = arith.constant 0.0 : f32
        %v = memref.load %C_local[%i, %j] : memref<128x128xf32, #tile.mem<fragment>>
        %r = arith.maximumf %v, %zero : f32
        memref.store %r, %C_local[%i, %j] : memref<128x128xf32, #tile.mem<fragment>>
      }
      tile.copy %C_local to %C[%row, %col]
          : memref<128x128xf32, #tile.mem<fragment>> to memref<?x?xf16>
    }
    return
  }
}
