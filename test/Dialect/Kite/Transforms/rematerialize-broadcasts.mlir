// RUN: kite-opt %s --kite-rematerialize-broadcasts | FileCheck %s
// Broadcasts of arange/splat arithmetic move to the leaves, so that each
// thread computes its elements; broadcasts of loaded data stay.

// CHECK-LABEL: func.func @mask
// The 1x32 compare is redone at 128x32 on broadcast aranges and splats.
// CHECK: %[[R:.*]] = kite.arange 0, 32 : tensor<32xi32>
// CHECK: %[[E:.*]] = kite.expand_dims %[[R]] axis 0 : tensor<32xi32> -> tensor<1x32xi32>
// CHECK: %[[B:.*]] = kite.broadcast %[[E]] : tensor<1x32xi32> -> tensor<128x32xi32>
// CHECK: %[[S:.*]] = kite.splat %{{.*}} : i32 -> tensor<128x32xi32>
// CHECK: %[[C:.*]] = arith.cmpi slt, %[[B]], %[[S]] : tensor<128x32xi32>
// CHECK: kite.load %{{.*}}, %[[C]]
func.func @mask(%p: !kite.ptr<f32>, %n: i32) attributes {kite.kernel} {
  %r = kite.arange 0, 32 : tensor<32xi32>
  %e = kite.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %s = kite.splat %n : i32 -> tensor<1x32xi32>
  %m = arith.cmpi slt, %e, %s : tensor<1x32xi32>
  %mb = kite.broadcast %m : tensor<1x32xi1> -> tensor<128x32xi1>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<128x32x!kite.ptr<f32>>
  %v = kite.load %ps, %mb : tensor<128x32x!kite.ptr<f32>>
  kite.store %ps, %v : tensor<128x32x!kite.ptr<f32>>
  return
}

// CHECK-LABEL: func.func @offsets
// expand_dims moves through (pid * 64 + arange) % n and the multiply, then
// the broadcast does; the 1-D value keeps its other user.
// CHECK: %[[R:.*]] = kite.arange 0, 64 : tensor<64xi32>
// CHECK-DAG: %[[E:.*]] = kite.expand_dims %[[R]] axis 1 : tensor<64xi32> -> tensor<64x1xi32>
// CHECK-DAG: %[[B:.*]] = kite.broadcast %[[E]] : tensor<64x1xi32> -> tensor<64x16xi32>
// CHECK-DAG: arith.addi %{{.*}}, %[[B]] : tensor<64x16xi32>
// CHECK-DAG: arith.remsi %{{.*}}, %{{.*}} : tensor<64x16xi32>
// CHECK-DAG: arith.muli %{{.*}}, %{{.*}} : tensor<64x16xi32>
// CHECK-DAG: arith.remsi %{{.*}}, %{{.*}} : tensor<64xi32>
// CHECK-NOT: kite.broadcast %{{.*}} : tensor<64x1xi32> -> tensor<64x16xi32>
// CHECK: return
func.func @offsets(%p: !kite.ptr<f32>, %n: i32, %stride: i32) attributes {kite.kernel} {
  %pid = kite.program_id 0
  %c64 = arith.constant 64 : i32
  %base = arith.muli %pid, %c64 : i32
  %r = kite.arange 0, 64 : tensor<64xi32>
  %bs = kite.splat %base : i32 -> tensor<64xi32>
  %o = arith.addi %bs, %r : tensor<64xi32>
  %ns = kite.splat %n : i32 -> tensor<64xi32>
  %om = arith.remsi %o, %ns : tensor<64xi32>
  %e = kite.expand_dims %om axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ss = kite.splat %stride : i32 -> tensor<64x1xi32>
  %m = arith.muli %e, %ss : tensor<64x1xi32>
  %b = kite.broadcast %m : tensor<64x1xi32> -> tensor<64x16xi32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<64x16x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %b : tensor<64x16x!kite.ptr<f32>>, tensor<64x16xi32>
  %v = kite.load %pp : tensor<64x16x!kite.ptr<f32>>
  kite.store %pp, %v : tensor<64x16x!kite.ptr<f32>>
  %p1 = kite.splat %p : !kite.ptr<f32> -> tensor<64x!kite.ptr<f32>>
  %pp1 = kite.addptr %p1, %om : tensor<64x!kite.ptr<f32>>, tensor<64xi32>
  %f = arith.sitofp %om : tensor<64xi32> to tensor<64xf32>
  kite.store %pp1, %f : tensor<64x!kite.ptr<f32>>
  return
}

// CHECK-LABEL: func.func @loaded
// Loaded data is exchanged, not recomputed.
// CHECK: %[[L:.*]] = kite.load
// CHECK: %[[E:.*]] = kite.expand_dims %[[L]] axis 1
// CHECK: arith.mulf %[[E]]
// CHECK: kite.broadcast %{{.*}} : tensor<64x1xf32> -> tensor<64x16xf32>
func.func @loaded(%p: !kite.ptr<f32>) attributes {kite.kernel} {
  %r = kite.arange 0, 64 : tensor<64xi32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<64x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %r : tensor<64x!kite.ptr<f32>>, tensor<64xi32>
  %l = kite.load %pp : tensor<64x!kite.ptr<f32>>
  %e = kite.expand_dims %l axis 1 : tensor<64xf32> -> tensor<64x1xf32>
  %two = arith.constant dense<2.0> : tensor<64x1xf32>
  %m = arith.mulf %e, %two : tensor<64x1xf32>
  %b = kite.broadcast %m : tensor<64x1xf32> -> tensor<64x16xf32>
  %p2 = kite.splat %p : !kite.ptr<f32> -> tensor<64x16x!kite.ptr<f32>>
  kite.store %p2, %b : tensor<64x16x!kite.ptr<f32>>
  return
}
