// RUN: kite-opt %s -convert-kite-to-gpu -split-input-file | FileCheck %s

// Aligned, contiguous, unmasked: 16-byte vector accesses.
// CHECK-LABEL: gpu.func @aligned
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @aligned(%x: !kite.ptr<f32> {kite.divisibility = 16 : i32}, %y: !kite.ptr<f32> {kite.divisibility = 16 : i32})
    attributes {kite.kernel} {
  %pid = kite.program_id 0
  %c = arith.constant 1024 : i32
  %s = arith.muli %pid, %c : i32
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %sb = kite.splat %s : i32 -> tensor<1024xi32>
  %o = arith.addi %sb, %r : tensor<1024xi32>
  %xs = kite.splat %x : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %xp = kite.addptr %xs, %o : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  %v = kite.load %xp : tensor<1024x!kite.ptr<f32>>
  %ys = kite.splat %y : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %yp = kite.addptr %ys, %o : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  kite.store %yp, %v : tensor<1024x!kite.ptr<f32>>
  return
}

// -----

// Unknown alignment: one access per element.
// CHECK-LABEL: gpu.func @unaligned
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT: vector<4xf32>
func.func @unaligned(%x: !kite.ptr<f32>, %y: !kite.ptr<f32>) attributes {kite.kernel} {
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %xs = kite.splat %x : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %xp = kite.addptr %xs, %r : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  %v = kite.load %xp : tensor<1024x!kite.ptr<f32>>
  %ys = kite.splat %y : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %yp = kite.addptr %ys, %r : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  kite.store %yp, %v : tensor<1024x!kite.ptr<f32>>
  return
}

// -----

// A mask that may change inside a vector group (n of unknown divisibility):
// the vector access when the whole group is enabled, else element by element,
// masked-off lanes taking `other`.
// CHECK-LABEL: gpu.func @masked
// CHECK: %[[A:.*]] = arith.andi
// CHECK: %[[B:.*]] = arith.andi %[[A]]
// CHECK: %[[ALL:.*]] = arith.andi %[[B]]
// CHECK: scf.if %[[ALL]] -> (vector<4xf32>) {
// CHECK:   llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK:   scf.if %{{.*}} -> (f32) {
// CHECK:     llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK:   } else {
// CHECK:     vector.extract %{{.*}}[0] : f32 from vector<8xf32>
func.func @masked(%x: !kite.ptr<f32> {kite.divisibility = 16 : i32}, %n: i32, %y: !kite.ptr<f32> {kite.divisibility = 16 : i32})
    attributes {kite.kernel} {
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %nb = kite.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<1024xi32>
  %xs = kite.splat %x : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %xp = kite.addptr %xs, %r : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  %other = arith.constant dense<-1.0> : tensor<1024xf32>
  %v = kite.load %xp, %m, %other : tensor<1024x!kite.ptr<f32>>
  %ys = kite.splat %y : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %yp = kite.addptr %ys, %r : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  kite.store %yp, %v, %m : tensor<1024x!kite.ptr<f32>>
  return
}

// -----

// n divisible by 16: the mask is uniform over each group of 4, so one
// predicated vector access per group and no per-element fallback.
// CHECK-LABEL: gpu.func @uniform_mask
// CHECK: scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK-NEXT: vector.extract
// CHECK-NEXT: llvm.inttoptr
// CHECK-NEXT: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: -> f32
func.func @uniform_mask(%x: !kite.ptr<f32> {kite.divisibility = 16 : i32}, %n: i32 {kite.divisibility = 16 : i32},
                        %y: !kite.ptr<f32> {kite.divisibility = 16 : i32}) attributes {kite.kernel} {
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %nb = kite.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<1024xi32>
  %xs = kite.splat %x : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %xp = kite.addptr %xs, %r : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  %v = kite.load %xp, %m : tensor<1024x!kite.ptr<f32>>
  %ys = kite.splat %y : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %yp = kite.addptr %ys, %r : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  kite.store %yp, %v, %m : tensor<1024x!kite.ptr<f32>>
  return
}

// -----

// Scalar pointers: getelementptr, plain loads and stores; i1 is stored as i8.
// CHECK-LABEL: gpu.func @scalar
// CHECK: %[[Q:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: llvm.load %[[Q]] {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: arith.cmpi ne
// CHECK: arith.extui %{{.*}} : i1 to i8
// CHECK: llvm.store %{{.*}} : i8, !llvm.ptr<1>
func.func @scalar(%p: !kite.ptr<i1>, %i: i64) attributes {kite.kernel} {
  %q = kite.addptr %p, %i : !kite.ptr<i1>, i64
  %b = kite.load %q : !kite.ptr<i1>
  kite.store %p, %b : !kite.ptr<i1>
  return
}
