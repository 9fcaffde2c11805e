// RUN: kite-opt %s -convert-kite-to-gpu | FileCheck %s
// kite.trans moves elements between threads through shared memory (publish:
// barrier, stores, barrier; then loads at the permuted index); a reshape
// between linear layouts moves nothing.

// CHECK-LABEL: gpu.func @trans
// CHECK: gpu.barrier
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-LABEL: gpu.func @reshape
// CHECK-NOT: gpu.barrier
// CHECK-NOT: !llvm.ptr<3>
// CHECK: gpu.return
func.func @trans(%p: !kite.ptr<f32>, %q: !kite.ptr<f32>) attributes {kite.kernel} {
  %r = kite.arange 0, 16 : tensor<16xi32>
  %c = kite.arange 0, 32 : tensor<32xi32>
  %r2 = kite.expand_dims %r axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %c2 = kite.expand_dims %c axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %rb = kite.broadcast %r2 : tensor<16x1xi32> -> tensor<16x32xi32>
  %cb = kite.broadcast %c2 : tensor<1x32xi32> -> tensor<16x32xi32>
  %c32 = arith.constant dense<32> : tensor<16x32xi32>
  %rs = arith.muli %rb, %c32 : tensor<16x32xi32>
  %off = arith.addi %rs, %cb : tensor<16x32xi32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<16x32x!kite.ptr<f32>>
  %ptrs = kite.addptr %ps, %off : tensor<16x32x!kite.ptr<f32>>, tensor<16x32xi32>
  %x = kite.load %ptrs : tensor<16x32x!kite.ptr<f32>>
  %t = kite.trans %x order [1, 0] : tensor<16x32xf32> -> tensor<32x16xf32>
  %f = kite.reshape %t : tensor<32x16xf32> -> tensor<512xf32>
  %i = kite.arange 0, 512 : tensor<512xi32>
  %qs = kite.splat %q : !kite.ptr<f32> -> tensor<512x!kite.ptr<f32>>
  %qp = kite.addptr %qs, %i : tensor<512x!kite.ptr<f32>>, tensor<512xi32>
  kite.store %qp, %f : tensor<512x!kite.ptr<f32>>
  return
}
func.func @reshape(%p: !kite.ptr<f32>) attributes {kite.kernel} {
  %i = kite.arange 0, 512 : tensor<512xi32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<512x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %i : tensor<512x!kite.ptr<f32>>, tensor<512xi32>
  %x = kite.load %pp : tensor<512x!kite.ptr<f32>>
  %y = kite.reshape %x : tensor<512xf32> -> tensor<16x32xf32>
  %z = kite.reshape %y : tensor<16x32xf32> -> tensor<512xf32>
  kite.store %pp, %z : tensor<512x!kite.ptr<f32>>
  return
}
