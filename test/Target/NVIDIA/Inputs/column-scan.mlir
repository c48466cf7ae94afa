// T.cumsum down the columns of rows 64..127 of a 128x8 shared tile, in
// place (TileLang's offset-subregion scan test, dim 0), traced by the front end.
module {
  func.func @main(%A: memref<128x8xf32> {tile.name = "A"}, %B: memref<128x8xf32> {tile.name = "B"}) {
    %c1 = arith.constant 1 : index loc("/work/main/bench/scan_region_probe.py":23:9)
    tile.kernel grid(%c1) threads(32) -> (%bx2) {
      %s3 = tile.alloc_shared : memref<128x8xf32, #tile.mem<shared>> loc("/work/main/bench/scan_region_probe.py":24:24)
      tile.copy %A to %s3 : memref<128x8xf32> to memref<128x8xf32, #tile.mem<shared>> loc("/work/main/bench/scan_region_probe.py":25:13)
      %c4 = arith.constant 64 : index loc("/work/main/bench/scan_region_probe.py":27:22)
      %c5 = arith.constant 0 : index loc("/work/main/bench/scan_region_probe.py":27:22)
      tile.parallel (%i6) in (8) {
        %c7 = arith.constant 0 : index loc("/work/main/bench/scan_region_probe.py":27:13)
        %v8 = arith.addi %c4, %c7 : index loc("/work/main/bench/scan_region_probe.py":27:13)
        %v9 = arith.addi %c5, %i6 : index loc("/work/main/bench/scan_region_probe.py":27:13)
        %c10 = arith.constant 0 : index loc("/work/main/bench/scan_region_probe.py":27:13)
        %v11 = arith.addi %c4, %c10 : index loc("/work/main/bench/scan_region_probe.py":27:13)
        %v12 = arith.addi %c5, %i6 : index loc("/work/main/bench/scan_region_probe.py":27:13)
        %v13 = memref.load %s3[%v8, %v9] : memref<128x8xf32, #tile.mem<shared>> loc("/work/main/bench/scan_region_probe.py":27:13)
        memref.store %v13, %s3[%v11, %v12] : memref<128x8xf32, #tile.mem<shared>> loc("/work/main/bench/scan_region_probe.py":27:13)
        %c14 = arith.constant 0 : index loc("/work/main/bench/scan_region_probe.py":27:13)
        %c15 = arith.constant 63 : index loc("/work/main/bench/scan_region_probe.py":27:13)
        %c16 = arith.constant 1 : index loc("/work/main/bench/scan_region_probe.py":27:13)
        scf.for %s17 = %c14 to %c15 step %c16 {
          %c18 = arith.constant 1 : index loc("/work/main/bench/scan_region_probe.py":27:13)
          %v19 = arith.addi %s17, %c18 : index loc("/work/main/bench/scan_region_probe.py":27:13)
          %c20 = arith.constant 1 : index loc("/work/main/bench/scan_region_probe.py":27:13)
          %v21 = arith.subi %v19, %c20 : index loc("/work/main/bench/scan_region_probe.py":27:13)
          %v22 = arith.addi %c4, %v19 : index loc("/work/main/bench/scan_region_probe.py":27:13)
          %v23 = arith.addi %c5, %i6 : index loc("/work/main/bench/scan_region_probe.py":27:13)
          %v24 = arith.addi %c4, %v21 : index loc("/work/main/bench/scan_region_probe.py":27:13)
          %v25 = arith.addi %c5, %i6 : index loc("/work/main/bench/scan_region_probe.py":27:13)
          %v27 = memref.load %s3[%v24, %v25] : memref<128x8xf32, #tile.mem<shared>> loc("/work/main/bench/scan_region_probe.py":27:13)
          %v28 = memref.load %s3[%v22, %v23] : memref<128x8xf32, #tile.mem<shared>> loc("/work/main/bench/scan_region_probe.py":27:13)
          %v26 = arith.addf %v27, %v28 : f32 loc("/work/main/bench/scan_region_probe.py":27:13)
          %v29 = arith.addi %c4, %v19 : index loc("/work/main/bench/scan_region_probe.py":27:13)
          %v30 = arith.addi %c5, %i6 : index loc("/work/main/bench/scan_region_probe.py":27:13)
          memref.store %v26, %s3[%v29, %v30] : memref<128x8xf32, #tile.mem<shared>> loc("/work/main/bench/scan_region_probe.py":27:13)
        } loc("/work/main/bench/scan_region_probe.py":27:13)
      } loc("/work/main/bench/scan_region_probe.py":27:13)
      tile.copy %s3 to %B : memref<128x8xf32, #tile.mem<shared>> to memref<128x8xf32> loc("/work/main/bench/scan_region_probe.py":28:13)
    } loc("/work/main/bench/scan_region_probe.py":23:9)
    return
  } loc("/work/main/bench/scan_region_probe.py":22:1)
}
