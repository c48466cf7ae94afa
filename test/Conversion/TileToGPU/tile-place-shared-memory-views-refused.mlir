// RUN: tile-opt %s --tile-place-shared-memory --verify-diagnostics

// A view as another element type takes the bytes of a whole tile the pass
// places; workgroup memory that is no tile of the kernel's has none.
func.func @view_of_other() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{views workgroup memory that is not a tile of its kernel; a whole shared tile allocated in the kernel body can be viewed as another element type}}
    %v = tile.view %a : memref<64xf32, #gpu.address_space<workgroup>> to memref<128xf16, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
