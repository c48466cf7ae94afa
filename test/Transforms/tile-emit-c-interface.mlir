// RUN: tile-opt %s --tile-emit-c-interface | FileCheck %s

// Public functions with bodies get a C wrapper, and their memref arguments
// lose llvm.align (the wrapper would claim it for the descriptor pointer);
// private functions and declarations are left alone, as are the
// alignments of other arguments.
// CHECK-LABEL: func.func @kernel
// CHECK-SAME: (%{{.*}}: memref<?xf32>, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64})
// CHECK-SAME: attributes {llvm.emit_c_interface}
func.func @kernel(%a: memref<?xf32> {llvm.align = 16 : i64}, %p: !llvm.ptr {llvm.align = 16 : i64}) {
  return
}
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: {llvm.align = 16 : i64}
// CHECK-NOT: llvm.emit_c_interface
func.func private @helper(%a: memref<?xf32> {llvm.align = 16 : i64}) {
  return
}
// CHECK-LABEL: func.func private @external
// CHECK-NOT: llvm.emit_c_interface
// CHECK: }
func.func private @external(memref<?xf32>)
