module {
  func.func @flash_attention(%arg0: memref<?x?x?x128xf16> {tile.name = "Q"}, %arg1: memref<?x?x?x128xf16> {tile.name = "K"}, %arg2: memref<?x?x?x128xf16> {tile.name = "V"}, %arg3: memref<?x?x?x128xf16> {tile.name = "Output"}) {
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x?x?x128xf16>
    %c1 = arith.constant 1 : index
    %dim_0 = memref.dim %arg0, %c1 : memref<?x?x?x128xf16>
    %c2 = arith.constant 2 : index
    %dim_1 = memref.dim %arg0, %c2 : memref<?x?x?x128xf16>
    %c64 = arith.constant 64 : index
    %0 = arith.ceildivsi %dim_1, %c64 : index
    tile.kernel grid(%0, %dim_0, %dim) threads(128) -> (%bx, %by, %bz) {
      %1 = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
      %2 = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
      %3 = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
      %4 = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
      %5 = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
      %6 = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
      %7 = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %8 = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %9 = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %10 = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %11 = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %c64_2 = arith.constant 64 : index
      %12 = arith.muli %bx, %c64_2 : index
      %c0_3 = arith.constant 0 : index
      tile.copy %arg0[%bz, %by, %12, %c0_3] to %1 : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.mem<shared>>
      %cst = arith.constant 0.000000e+00 : f32
      tile.fill %6, %cst : memref<64x128xf32, #tile.mem<fragment>>
      %cst_4 = arith.constant 0.000000e+00 : f32
      tile.fill %11, %cst_4 : memref<64xf32, #tile.mem<fragment>>
      %cst_5 = arith.constant 0x7F800000 : f32
      %13 = arith.negf %cst_5 : f32
      tile.fill %7, %13 : memref<64xf32, #tile.mem<fragment>>
      %c64_6 = arith.constant 64 : index
      %14 = arith.ceildivsi %dim_1, %c64_6 : index
      %c0_7 = arith.constant 0 : index
      %c1_8 = arith.constant 1 : index
      tile.pipelined %arg4 = %c0_7 to %14 step %c1_8 num_stages = 3 {
        %c64_11 = arith.constant 64 : index
        %16 = arith.muli %arg4, %c64_11 : index
        %c0_12 = arith.constant 0 : index
        tile.copy %arg1[%bz, %by, %16, %c0_12] to %2 : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.mem<shared>>
        tile.parallel (%arg5, %arg6) in (64, 64) {
          %c64_15 = arith.constant 64 : index
          %18 = arith.muli %arg4, %c64_15 : index
          %19 = arith.addi %18, %arg6 : index
          %20 = arith.cmpi sgt, %dim_1, %19 : index
          %cst_16 = arith.constant 0x7F800000 : f32
          %21 = arith.negf %cst_16 : f32
          %cst_17 = arith.constant 0.000000e+00 : f32
          %22 = arith.select %20, %cst_17, %21 : f32
          memref.store %22, %4[%arg5, %arg6] : memref<64x64xf32, #tile.mem<fragment>>
        }
        tile.gemm %1, %2, %4 {policy = #tile.policy<full_row>, transpose_b} : memref<64x128xf16, #tile.mem<shared>>, memref<64x128xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
        %c64_13 = arith.constant 64 : index
        %17 = arith.muli %arg4, %c64_13 : index
        %c0_14 = arith.constant 0 : index
        tile.copy %arg2[%bz, %by, %17, %c0_14] to %3 : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.mem<shared>>
        tile.copy %7 to %8 : memref<64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
        tile.reduce <max> %4 to %7 dim 1 {clear = false} : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
        tile.parallel (%arg5) in (64) {
          %cst_15 = arith.constant 0.127517432 : f32
          %18 = memref.load %8[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %19 = arith.mulf %18, %cst_15 : f32
          %cst_16 = arith.constant 0.127517432 : f32
          %20 = memref.load %7[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %21 = arith.mulf %20, %cst_16 : f32
          %22 = arith.subf %19, %21 : f32
          %23 = math.exp2 %22 : f32
          memref.store %23, %9[%arg5] : memref<64xf32, #tile.mem<fragment>>
        }
        tile.parallel (%arg5, %arg6) in (64, 128) {
          %18 = memref.load %6[%arg5, %arg6] : memref<64x128xf32, #tile.mem<fragment>>
          %19 = memref.load %9[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %20 = arith.mulf %18, %19 : f32
          memref.store %20, %6[%arg5, %arg6] : memref<64x128xf32, #tile.mem<fragment>>
        }
        tile.parallel (%arg5, %arg6) in (64, 64) {
          %cst_15 = arith.constant 0.127517432 : f32
          %18 = memref.load %4[%arg5, %arg6] : memref<64x64xf32, #tile.mem<fragment>>
          %19 = arith.mulf %18, %cst_15 : f32
          %cst_16 = arith.constant 0.127517432 : f32
          %20 = memref.load %7[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %21 = arith.mulf %20, %cst_16 : f32
          %22 = arith.subf %19, %21 : f32
          %23 = math.exp2 %22 : f32
          memref.store %23, %4[%arg5, %arg6] : memref<64x64xf32, #tile.mem<fragment>>
        }
        tile.copy %4 to %5 : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
        tile.gemm %5, %3, %6 {policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x128xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
        tile.reduce <sum> %4 to %10 dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
        tile.parallel (%arg5) in (64) {
          %18 = memref.load %11[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %19 = memref.load %9[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %20 = arith.mulf %18, %19 : f32
          %21 = memref.load %10[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %22 = arith.addf %20, %21 : f32
          memref.store %22, %11[%arg5] : memref<64xf32, #tile.mem<fragment>>
        }
      }
      tile.parallel (%arg4, %arg5) in (64, 128) {
        %cst_11 = arith.constant 1.000000e+00 : f32
        %16 = memref.load %11[%arg4] : memref<64xf32, #tile.mem<fragment>>
        %17 = arith.divf %cst_11, %16 : f32
        %18 = memref.load %6[%arg4, %arg5] : memref<64x128xf32, #tile.mem<fragment>>
        %19 = arith.mulf %18, %17 : f32
        memref.store %19, %6[%arg4, %arg5] : memref<64x128xf32, #tile.mem<fragment>>
      }
      %c64_9 = arith.constant 64 : index
      %15 = arith.muli %bx, %c64_9 : index
      %c0_10 = arith.constant 0 : index
      tile.copy %6 to %arg3[%bz, %by, %15, %c0_10] : memref<64x128xf32, #tile.mem<fragment>> to memref<?x?x?x128xf16>
    }
    return
  }
  func.func @flash_attention_causal(%arg0: memref<?x?x?x128xf16> {tile.name = "Q"}, %arg1: memref<?x?x?x128xf16> {tile.name = "K"}, %arg2: memref<?x?x?x128xf16> {tile.name = "V"}, %arg3: memref<?x?x?x128xf16> {tile.name = "Output"}) {
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x?x?x128xf16>
    %c1 = arith.constant 1 : index
    %dim_0 = memref.dim %arg0, %c1 : memref<?x?x?x128xf16>
    %c2 = arith.constant 2 : index
    %dim_1 = memref.dim %arg0, %c2 : memref<?x?x?x128xf16>
    %c64 = arith.constant 64 : index
    %0 = arith.ceildivsi %dim_1, %c64 : index
    tile.kernel grid(%0, %dim_0, %dim) threads(128) -> (%bx, %by, %bz) {
      %1 = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
      %2 = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
      %3 = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
      %4 = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
      %5 = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
      %6 = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
      %7 = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %8 = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %9 = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %10 = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %11 = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %c64_2 = arith.constant 64 : index
      %12 = arith.muli %bx, %c64_2 : index
      %c0_3 = arith.constant 0 : index
      tile.copy %arg0[%bz, %by, %12, %c0_3] to %1 : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.mem<shared>>
      %cst = arith.constant 0.000000e+00 : f32
      tile.fill %6, %cst : memref<64x128xf32, #tile.mem<fragment>>
      %cst_4 = arith.constant 0.000000e+00 : f32
      tile.fill %11, %cst_4 : memref<64xf32, #tile.mem<fragment>>
      %cst_5 = arith.constant 0x7F800000 : f32
      %13 = arith.negf %cst_5 : f32
      tile.fill %7, %13 : memref<64xf32, #tile.mem<fragment>>
      %c1_6 = arith.constant 1 : index
      %14 = arith.addi %bx, %c1_6 : index
      %c64_7 = arith.constant 64 : index
      %15 = arith.muli %14, %c64_7 : index
      %c64_8 = arith.constant 64 : index
      %16 = arith.ceildivsi %15, %c64_8 : index
      %c64_9 = arith.constant 64 : index
      %17 = arith.ceildivsi %dim_1, %c64_9 : index
      %18 = arith.minsi %16, %17 : index
      %c0_10 = arith.constant 0 : index
      %c1_11 = arith.constant 1 : index
      tile.pipelined %arg4 = %c0_10 to %18 step %c1_11 num_stages = 3 {
        %c64_14 = arith.constant 64 : index
        %20 = arith.muli %arg4, %c64_14 : index
        %c0_15 = arith.constant 0 : index
        tile.copy %arg1[%bz, %by, %20, %c0_15] to %2 : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.mem<shared>>
        tile.parallel (%arg5, %arg6) in (64, 64) {
          %c64_18 = arith.constant 64 : index
          %22 = arith.muli %arg4, %c64_18 : index
          %23 = arith.addi %22, %arg6 : index
          %24 = arith.cmpi sgt, %dim_1, %23 : index
          %c64_19 = arith.constant 64 : index
          %25 = arith.muli %bx, %c64_19 : index
          %26 = arith.addi %25, %arg5 : index
          %c64_20 = arith.constant 64 : index
          %27 = arith.muli %arg4, %c64_20 : index
          %28 = arith.addi %27, %arg6 : index
          %29 = arith.cmpi sge, %26, %28 : index
          %30 = arith.andi %24, %29 : i1
          %cst_21 = arith.constant 0x7F800000 : f32
          %31 = arith.negf %cst_21 : f32
          %cst_22 = arith.constant 0.000000e+00 : f32
          %32 = arith.select %30, %cst_22, %31 : f32
          memref.store %32, %4[%arg5, %arg6] : memref<64x64xf32, #tile.mem<fragment>>
        }
        tile.gemm %1, %2, %4 {policy = #tile.policy<full_row>, transpose_b} : memref<64x128xf16, #tile.mem<shared>>, memref<64x128xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
        %c64_16 = arith.constant 64 : index
        %21 = arith.muli %arg4, %c64_16 : index
        %c0_17 = arith.constant 0 : index
        tile.copy %arg2[%bz, %by, %21, %c0_17] to %3 : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.mem<shared>>
        tile.copy %7 to %8 : memref<64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
        tile.reduce <max> %4 to %7 dim 1 {clear = false} : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
        tile.parallel (%arg5) in (64) {
          %cst_18 = arith.constant 0.127517432 : f32
          %22 = memref.load %8[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %23 = arith.mulf %22, %cst_18 : f32
          %cst_19 = arith.constant 0.127517432 : f32
          %24 = memref.load %7[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %25 = arith.mulf %24, %cst_19 : f32
          %26 = arith.subf %23, %25 : f32
          %27 = math.exp2 %26 : f32
          memref.store %27, %9[%arg5] : memref<64xf32, #tile.mem<fragment>>
        }
        tile.parallel (%arg5, %arg6) in (64, 128) {
          %22 = memref.load %6[%arg5, %arg6] : memref<64x128xf32, #tile.mem<fragment>>
          %23 = memref.load %9[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %24 = arith.mulf %22, %23 : f32
          memref.store %24, %6[%arg5, %arg6] : memref<64x128xf32, #tile.mem<fragment>>
        }
        tile.parallel (%arg5, %arg6) in (64, 64) {
          %cst_18 = arith.constant 0.127517432 : f32
          %22 = memref.load %4[%arg5, %arg6] : memref<64x64xf32, #tile.mem<fragment>>
          %23 = arith.mulf %22, %cst_18 : f32
          %cst_19 = arith.constant 0.127517432 : f32
          %24 = memref.load %7[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %25 = arith.mulf %24, %cst_19 : f32
          %26 = arith.subf %23, %25 : f32
          %27 = math.exp2 %26 : f32
          memref.store %27, %4[%arg5, %arg6] : memref<64x64xf32, #tile.mem<fragment>>
        }
        tile.copy %4 to %5 : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
        tile.gemm %5, %3, %6 {policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x128xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
        tile.reduce <sum> %4 to %10 dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
        tile.parallel (%arg5) in (64) {
          %22 = memref.load %11[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %23 = memref.load %9[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %24 = arith.mulf %22, %23 : f32
          %25 = memref.load %10[%arg5] : memref<64xf32, #tile.mem<fragment>>
          %26 = arith.addf %24, %25 : f32
          memref.store %26, %11[%arg5] : memref<64xf32, #tile.mem<fragment>>
        }
      }
      tile.parallel (%arg4, %arg5) in (64, 128) {
        %cst_14 = arith.constant 1.000000e+00 : f32
        %20 = memref.load %11[%arg4] : memref<64xf32, #tile.mem<fragment>>
        %21 = arith.divf %cst_14, %20 : f32
        %22 = memref.load %6[%arg4, %arg5] : memref<64x128xf32, #tile.mem<fragment>>
        %23 = arith.mulf %22, %21 : f32
        memref.store %23, %6[%arg4, %arg5] : memref<64x128xf32, #tile.mem<fragment>>
      }
      %c64_12 = arith.constant 64 : index
      %19 = arith.muli %bx, %c64_12 : index
      %c0_13 = arith.constant 0 : index
      tile.copy %6 to %arg3[%bz, %by, %19, %c0_13] : memref<64x128xf32, #tile.mem<fragment>> to memref<?x?x?x128xf16>
    }
    return
  }
}

