// RUN: kite-opt %s -canonicalize -split-input-file | FileCheck %s

// The folds and canonicalization patterns of the kite ops.

// load(p, splat(false), other) -> other
// CHECK-LABEL: func.func @load_false_mask
// CHECK-SAME: %{{.*}}: tensor<64x!kite.ptr<f32>>, %[[O:.*]]: tensor<64xf32>
// CHECK-NOT: kite.load
// CHECK: return %[[O]]
func.func @load_false_mask(%p: tensor<64x!kite.ptr<f32>>, %o: tensor<64xf32>) -> tensor<64xf32> {
  %f = arith.constant false
  %m = kite.splat %f : i1 -> tensor<64xi1>
  %0 = kite.load %p, %m, %o : tensor<64x!kite.ptr<f32>>
  return %0 : tensor<64xf32>
}

// -----

// load(p, splat(true), other) -> load(p)
// CHECK-LABEL: func.func @load_true_mask
// CHECK: %[[L:.*]] = kite.load %{{[a-z0-9]+}} : tensor<64x!kite.ptr<f32>>
// CHECK: return %[[L]]
func.func @load_true_mask(%p: tensor<64x!kite.ptr<f32>>, %o: tensor<64xf32>) -> tensor<64xf32> {
  %m = arith.constant dense<true> : tensor<64xi1>
  %0 = kite.load %p, %m, %o : tensor<64x!kite.ptr<f32>>
  return %0 : tensor<64xf32>
}

// -----

// A load with a non-constant mask stays.
// CHECK-LABEL: func.func @load_dynamic_mask
// CHECK: kite.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x!kite.ptr<f32>>
func.func @load_dynamic_mask(%p: tensor<64x!kite.ptr<f32>>, %m: tensor<64xi1>, %o: tensor<64xf32>) -> tensor<64xf32> {
  %0 = kite.load %p, %m, %o : tensor<64x!kite.ptr<f32>>
  return %0 : tensor<64xf32>
}

// -----

// store(p, v, splat(false)) -> (erased); store(p, v, splat(true)) -> store(p, v)
// CHECK-LABEL: func.func @store_masks
// CHECK-NEXT: kite.store %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<64x!kite.ptr<f32>>
// CHECK-NEXT: return
func.func @store_masks(%p: tensor<64x!kite.ptr<f32>>, %v: tensor<64xf32>) {
  %f = arith.constant dense<false> : tensor<64xi1>
  %t = arith.constant dense<true> : tensor<64xi1>
  kite.store %p, %v, %f : tensor<64x!kite.ptr<f32>>
  kite.store %p, %v, %t : tensor<64x!kite.ptr<f32>>
  return
}

// -----

// addptr(p, 0) -> p
// CHECK-LABEL: func.func @addptr_zero
// CHECK-SAME: %[[P:.*]]: tensor<64x!kite.ptr<f32>>
// CHECK-NEXT: return %[[P]]
func.func @addptr_zero(%p: tensor<64x!kite.ptr<f32>>) -> tensor<64x!kite.ptr<f32>> {
  %z = arith.constant dense<0> : tensor<64xi32>
  %0 = kite.addptr %p, %z : tensor<64x!kite.ptr<f32>>, tensor<64xi32>
  return %0 : tensor<64x!kite.ptr<f32>>
}

// -----

// splat(constant) -> dense constant; broadcast and expand_dims of it too.
// CHECK-LABEL: func.func @splat_constant
// CHECK-DAG: %[[A:.*]] = arith.constant dense<3> : tensor<64xi32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<2.500000e+00> : tensor<8x64xf32>
// CHECK-DAG: %[[C:.*]] = arith.constant dense<2.500000e+00> : tensor<64x1xf32>
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @splat_constant() -> (tensor<64xi32>, tensor<8x64xf32>, tensor<64x1xf32>) {
  %c = arith.constant 3 : i32
  %0 = kite.splat %c : i32 -> tensor<64xi32>
  %f = arith.constant 2.5 : f32
  %1 = kite.splat %f : f32 -> tensor<64xf32>
  %2 = kite.expand_dims %1 axis 0 : tensor<64xf32> -> tensor<1x64xf32>
  %3 = kite.broadcast %2 : tensor<1x64xf32> -> tensor<8x64xf32>
  %4 = kite.expand_dims %1 axis 1 : tensor<64xf32> -> tensor<64x1xf32>
  return %0, %3, %4 : tensor<64xi32>, tensor<8x64xf32>, tensor<64x1xf32>
}

// -----

// broadcast(splat x) -> splat x; expand_dims(splat x) -> splat x;
// broadcast to the same type -> operand.
// CHECK-LABEL: func.func @splat_chains
// CHECK-SAME: %[[X:.*]]: !kite.ptr<f32>, %[[Y:.*]]: tensor<4x8xi32>
// CHECK-DAG: %[[S1:.*]] = kite.splat %[[X]] : !kite.ptr<f32> -> tensor<16x32x!kite.ptr<f32>>
// CHECK-DAG: %[[S2:.*]] = kite.splat %[[X]] : !kite.ptr<f32> -> tensor<1x32x!kite.ptr<f32>>
// CHECK: return %[[S1]], %[[S2]], %[[Y]]
func.func @splat_chains(%x: !kite.ptr<f32>, %y: tensor<4x8xi32>)
    -> (tensor<16x32x!kite.ptr<f32>>, tensor<1x32x!kite.ptr<f32>>, tensor<4x8xi32>) {
  %0 = kite.splat %x : !kite.ptr<f32> -> tensor<1x32x!kite.ptr<f32>>
  %1 = kite.broadcast %0 : tensor<1x32x!kite.ptr<f32>> -> tensor<16x32x!kite.ptr<f32>>
  %2 = kite.splat %x : !kite.ptr<f32> -> tensor<32x!kite.ptr<f32>>
  %3 = kite.expand_dims %2 axis 0 : tensor<32x!kite.ptr<f32>> -> tensor<1x32x!kite.ptr<f32>>
  %4 = kite.broadcast %y : tensor<4x8xi32> -> tensor<4x8xi32>
  return %1, %3, %4 : tensor<16x32x!kite.ptr<f32>>, tensor<1x32x!kite.ptr<f32>>, tensor<4x8xi32>
}

// -----

// Loads whose results are unused are dead; stores are not.
// CHECK-LABEL: func.func @dead_load
// CHECK-NOT: kite.load
// CHECK: kite.store
func.func @dead_load(%p: tensor<64x!kite.ptr<f32>>, %v: tensor<64xf32>) {
  %0 = kite.load %p : tensor<64x!kite.ptr<f32>>
  kite.store %p, %v : tensor<64x!kite.ptr<f32>>
  return
}
