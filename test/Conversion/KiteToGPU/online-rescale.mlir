// RUN: kite-opt %s -convert-kite-to-gpu -split-input-file | FileCheck %s
// An online softmax's rescale, x * broadcast(exp2(a - b)) (attention's
// `acc * alpha[:, None]`; ElementwiseToGPU.cpp, OnlineRescaleLowering):
// each warp votes whether every factor it holds is exactly 1 and then
// skips the multiplies (x * 1 == x), one multiply per register otherwise
// (a single vector multiply would be speculated back into selects by LLVM).
// 128x64 on 4 warps: 64 registers a thread, one row each, one factor.

// CHECK-LABEL: gpu.func @rescale
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[EQ:.*]] = arith.cmpf oeq, %{{.*}}, %[[ONE]] : f32
// CHECK: %[[ALL:.*]] = nvvm.vote.sync all %{{.*}}, %[[EQ]] -> i1
// CHECK: %[[R:.*]] = scf.if %[[ALL]] -> (vector<64xf32>) {
// CHECK-NEXT: scf.yield %{{.*}} : vector<64xf32>
// CHECK-NEXT: } else {
// CHECK-COUNT-64: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: vector.from_elements
// CHECK: scf.yield
func.func @rescale(%pa: !kite.ptr<f32>, %pb: !kite.ptr<f32>, %out: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %acc = arith.constant dense<3.0> : tensor<128x64xf32>
  %i = kite.arange 0, 128 : tensor<128xi32>
  %sa = kite.splat %pa : !kite.ptr<f32> -> tensor<128x!kite.ptr<f32>>
  %sb = kite.splat %pb : !kite.ptr<f32> -> tensor<128x!kite.ptr<f32>>
  %qa = kite.addptr %sa, %i : tensor<128x!kite.ptr<f32>>, tensor<128xi32>
  %qb = kite.addptr %sb, %i : tensor<128x!kite.ptr<f32>>, tensor<128xi32>
  %a = kite.load %qa : tensor<128x!kite.ptr<f32>>
  %b = kite.load %qb : tensor<128x!kite.ptr<f32>>
  %d = arith.subf %a, %b : tensor<128xf32>
  %alpha = math.exp2 %d : tensor<128xf32>
  %e = kite.expand_dims %alpha axis 1 : tensor<128xf32> -> tensor<128x1xf32>
  %f = kite.broadcast %e : tensor<128x1xf32> -> tensor<128x64xf32>
  %r = arith.mulf %acc, %f : tensor<128x64xf32>
  %s = kite.reduce sum %r axis 1 : tensor<128x64xf32> -> tensor<128xf32>
  %t = kite.reduce sum %s axis 0 : tensor<128xf32> -> f32
  kite.store %out, %t : !kite.ptr<f32>
  return
}

// -----

// A factor that is not exp2 of a difference is multiplied as any block.
// CHECK-LABEL: gpu.func @scale_by_loaded_rows
// CHECK-NOT: nvvm.vote.sync
// CHECK-NOT: scf.if
// CHECK: arith.mulf %{{.*}} : vector<64xf32>
// CHECK-NOT: nvvm.vote.sync
// CHECK: gpu.return
func.func @scale_by_loaded_rows(%pa: !kite.ptr<f32>, %pb: !kite.ptr<f32>, %out: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %acc = arith.constant dense<3.0> : tensor<128x64xf32>
  %i = kite.arange 0, 128 : tensor<128xi32>
  %sa = kite.splat %pa : !kite.ptr<f32> -> tensor<128x!kite.ptr<f32>>
  %sb = kite.splat %pb : !kite.ptr<f32> -> tensor<128x!kite.ptr<f32>>
  %qa = kite.addptr %sa, %i : tensor<128x!kite.ptr<f32>>, tensor<128xi32>
  %qb = kite.addptr %sb, %i : tensor<128x!kite.ptr<f32>>, tensor<128xi32>
  %a = kite.load %qa : tensor<128x!kite.ptr<f32>>
  %b = kite.load %qb : tensor<128x!kite.ptr<f32>>
  %alpha = arith.subf %a, %b : tensor<128xf32>
  %e = kite.expand_dims %alpha axis 1 : tensor<128xf32> -> tensor<128x1xf32>
  %f = kite.broadcast %e : tensor<128x1xf32> -> tensor<128x64xf32>
  %r = arith.mulf %acc, %f : tensor<128x64xf32>
  %s = kite.reduce sum %r axis 1 : tensor<128x64xf32> -> tensor<128xf32>
  %t = kite.reduce sum %s axis 0 : tensor<128xf32> -> f32
  kite.store %out, %t : !kite.ptr<f32>
  return
}
