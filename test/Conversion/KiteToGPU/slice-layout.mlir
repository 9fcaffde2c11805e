// RUN: kite-opt %s -convert-kite-to-gpu -split-input-file | FileCheck %s
// A reduction of a block in a dot's layout takes the slice of that layout
// (BlockedLayout::slice, LayoutAssignment.cpp): each thread keeps the
// results of the rows it holds, so the row max of a wgmma accumulator is
// the thread's own registers and two butterfly shuffles (lane bits 0-1
// hold the columns), with no shared memory; m[:, None] is the same places
// and broadcasting it back over the accumulator is a register shuffle.
// 128x64 on 8 warps (two warpgroups along M): 32 accumulator registers a
// thread, 2 rows (l/4 and l/4 + 8), so the row values are vector<2xf32>;
// the loop carries them so.

// CHECK-LABEL: gpu.func @row_max
// CHECK: scf.for {{.*}} -> (vector<2xf32>, vector<32xf32>)
// CHECK: wgmma.wait_group.sync.aligned 0
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-30: arith.maximumf %{{.*}} : f32
// CHECK-COUNT-4: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: gpu.barrier
// CHECK: arith.maximumf %{{.*}} : vector<2xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 0, 1, 1, 0, 0, 1, 1,
// CHECK-SAME: : vector<2xf32>, vector<2xf32>
// CHECK: arith.subf %{{.*}} : vector<32xf32>
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
func.func @row_max(%n: i32) attributes {kite.kernel, kite.num_warps = 8 : i32} {
  %q = arith.constant dense<1.0> : tensor<128x64xf16>
  %k = arith.constant dense<2.0> : tensor<64x64xf16>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %init = arith.constant dense<-1.0e30> : tensor<128xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%m = %init, %acc = %zero) -> (tensor<128xf32>, tensor<128x64xf32>) : i32 {
    %s = kite.dot %q, %k, %zero engine = wgmma : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
    %rowmax = kite.reduce max %s axis 1 : tensor<128x64xf32> -> tensor<128xf32>
    %m2 = arith.maximumf %m, %rowmax : tensor<128xf32>
    %e = kite.expand_dims %m2 axis 1 : tensor<128xf32> -> tensor<128x1xf32>
    %b = kite.broadcast %e : tensor<128x1xf32> -> tensor<128x64xf32>
    %d = arith.subf %s, %b : tensor<128x64xf32>
    %acc2 = arith.addf %acc, %d : tensor<128x64xf32>
    scf.yield %m2, %acc2 : tensor<128xf32>, tensor<128x64xf32>
  }
  return
}

// -----

// Without a dot, a reduction's result keeps the linear layout: 128 values
// over 256 threads, one a thread, gathered from the lanes' partials
// through shared memory.
// CHECK-LABEL: gpu.func @linear
// CHECK-COUNT-8: nvvm.shfl.sync bfly
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: vector.insert %{{.*}} : f32 into vector<1xf32>
func.func @linear(%p: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 8 : i32} {
  %x = arith.constant dense<1.0> : tensor<128x64xf32>
  %rowmax = kite.reduce max %x axis 1 : tensor<128x64xf32> -> tensor<128xf32>
  %r = kite.arange 0, 128 : tensor<128xi32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<128x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %r : tensor<128x!kite.ptr<f32>>, tensor<128xi32>
  kite.store %pp, %rowmax : tensor<128x!kite.ptr<f32>>
  return
}
