// RUN: kite-opt %s -convert-kite-to-gpu -split-input-file | FileCheck %s
// kite.scan, one step per bit of the axis index (AxisOpsToGPU.cpp): no
// loop over the axis. 1024 elements on 4 warps (4 consecutive per thread,
// then a second run 512 apart): index bits 0-1 in registers, 2-6 in lanes
// (5 shuffles of each of the 8 totals), 7-8 in warps (two exchanges
// through shared memory), 9 in registers again.
// CHECK-LABEL: gpu.func @cumsum
// CHECK-NOT: scf.for
// CHECK-COUNT-40: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK-NOT: scf.for
// CHECK: gpu.return
func.func @cumsum(%p: !kite.ptr<f32>, %q: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %ps = kite.splat %q : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %r : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  %x = kite.load %pp : tensor<1024x!kite.ptr<f32>>
  %s = kite.scan sum %x axis 0 : tensor<1024xf32>
  %os = kite.splat %p : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %op = kite.addptr %os, %r : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  kite.store %op, %s : tensor<1024x!kite.ptr<f32>>
  return
}

// -----

// Along the rows of a 32x32 block on one warp (columns: bits 0-1 in
// registers, 2-4 in lanes), reversed: 3 lane steps for each of the 32
// registers, no shared memory.
// CHECK-LABEL: gpu.func @rows_reversed
// CHECK-COUNT-96: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @rows_reversed(%p: !kite.ptr<i32>, %q: !kite.ptr<i32>) attributes {kite.kernel, kite.num_warps = 1 : i32} {
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %ps = kite.splat %q : !kite.ptr<i32> -> tensor<1024x!kite.ptr<i32>>
  %pp = kite.addptr %ps, %r : tensor<1024x!kite.ptr<i32>>, tensor<1024xi32>
  %x = kite.load %pp : tensor<1024x!kite.ptr<i32>>
  %x2 = kite.reshape %x : tensor<1024xi32> -> tensor<32x32xi32>
  %s = kite.scan prod %x2 axis 1 reverse : tensor<32x32xi32>
  %s1 = kite.reshape %s : tensor<32x32xi32> -> tensor<1024xi32>
  %os = kite.splat %p : !kite.ptr<i32> -> tensor<1024x!kite.ptr<i32>>
  %op = kite.addptr %os, %r : tensor<1024x!kite.ptr<i32>>, tensor<1024xi32>
  kite.store %op, %s1 : tensor<1024x!kite.ptr<i32>>
  return
}
