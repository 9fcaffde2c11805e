// RUN: kite-opt %s --kite-tensor-map-params | FileCheck %s
// kite-tensor-map-params: a kernel parameter marked as a tensor map (a
// generic pointer, align 64, dereferenceable 128) becomes a 128-byte byval
// __grid_constant__ parameter; other parameters and non-kernels stay.

// CHECK: llvm.func @k(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64})
// CHECK: llvm.func @helper(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.dereferenceable = 128 : i64})
gpu.module @m {
  llvm.func @k(%a: !llvm.ptr<1>, %map: !llvm.ptr {llvm.align = 64 : i64, llvm.dereferenceable = 128 : i64}, %other: !llvm.ptr {llvm.align = 64 : i64}) attributes {nvvm.kernel} {
    llvm.return
  }
  llvm.func @helper(%p: !llvm.ptr {llvm.align = 64 : i64, llvm.dereferenceable = 128 : i64}) {
    llvm.return
  }
}
