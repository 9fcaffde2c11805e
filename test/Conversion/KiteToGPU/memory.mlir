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
// the vector load is predicated PTX on "whole group enabled"; the elements
// of a partial group load one by one, predicated on "enabled and not the
// whole group", in the same block (no branch: ptxas may then schedule the
// joining select late); a select joins them. Masked-off lanes keep
// `other`. Stores: the per-element ones in a branch taken only for partial
// groups.
// CHECK-LABEL: gpu.func @masked
// CHECK: %[[A:.*]] = arith.andi
// CHECK: %[[B:.*]] = arith.andi %[[A]]
// CHECK: %[[ALL:.*]] = arith.andi %[[B]]
// CHECK: %[[ALLW:.*]] = arith.extui %[[ALL]] : i1 to i32
// CHECK: %[[VEC:.*]] = llvm.inline_asm has_side_effects "{ .reg .pred %kp; setp.ne.b32 %kp, $4, 0; mov.b32 $0, $6; mov.b32 $1, $7; mov.b32 $2, $8; mov.b32 $3, $9; @%kp ld.global.v4.b32 {$0, $1, $2, $3}, [$5]; }", "=r,=r,=r,=r,r,l,r,r,r,r" %[[ALLW]]
// CHECK: %[[NOTALL:.*]] = arith.xori %[[ALL]], %true
// CHECK-NOT: scf.if
// CHECK: arith.andi %{{.*}}, %[[NOTALL]]
// The group's elements share its first address (immediate offsets).
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $1, 0; mov.b32 $0, $3; @%kp ld.global.b32 $0, [$2]; }", "=r,r,l,r"
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $1, 0; mov.b32 $0, $3; @%kp ld.global.b32 $0, [$2+4]; }", "=r,r,l,r"
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $1, 0; mov.b32 $0, $3; @%kp ld.global.b32 $0, [$2+8]; }", "=r,r,l,r"
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $1, 0; mov.b32 $0, $3; @%kp ld.global.b32 $0, [$2+12]; }", "=r,r,l,r"
// CHECK-NOT: scf.if
// CHECK: %[[PART:.*]] = vector.from_elements
// CHECK: arith.select %[[ALL]], %{{.*}}, %[[PART]] : vector<4xf32>
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $0, 0; @%kp st.global.v4.b32 [$1], {$2, $3, $4, $5}; }", "r,l,r,r,r,r"
// CHECK: scf.if
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $0, 0; @%kp st.global.b32 [$1], $2; }", "r,l,r"
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $0, 0; @%kp st.global.b32 [$1+4], $2; }", "r,l,r"
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $0, 0; @%kp st.global.b32 [$1+8], $2; }", "r,l,r"
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $0, 0; @%kp st.global.b32 [$1+12], $2; }", "r,l,r"
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
// predicated vector access per group and no per-element access.
// CHECK-LABEL: gpu.func @uniform_mask
// CHECK-COUNT-2: @%kp ld.global.v4.b32
// CHECK-NOT: ld.global.b32
// CHECK-COUNT-2: @%kp st.global.v4.b32
// CHECK-NOT: st.global.b32
// CHECK-LABEL: gpu.func @scalar
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

// Scalar pointers: getelementptr, plain loads; a scalar store by thread 0
// alone (a predicated st.global); i1 is stored as i8.
// CHECK: %[[Q:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: %[[QA:.*]] = llvm.ptrtoint %[[Q]]
// CHECK: %[[QP:.*]] = llvm.inttoptr %[[QA]]
// CHECK: llvm.load %[[QP]] {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: arith.cmpi ne
// CHECK: %[[TID:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : i32
// CHECK: arith.extui %{{.*}} : i1 to i8
// CHECK: %[[PRED:.*]] = arith.extui %[[FIRST]] : i1 to i32
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $0, 0; @%kp st.global.u8 [$1], $2; }", "r,l,r" %[[PRED]]
func.func @scalar(%p: !kite.ptr<i1>, %i: i64) attributes {kite.kernel} {
  %q = kite.addptr %p, %i : !kite.ptr<i1>, i64
  %b = kite.load %q : !kite.ptr<i1>
  kite.store %p, %b : !kite.ptr<i1>
  return
}

// -----

// Masked scalar accesses and sub-word elements: one predicated access each,
// 8-bit words in 32-bit registers (ld.u8 zero-extends, st.u8 truncates),
// 16-bit words in 16-bit registers, 64-bit in 64-bit ones.
// CHECK-LABEL: gpu.func @scalar_masked
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $1, 0; mov.b32 $0, $3; @%kp ld.global.u8 $0, [$2]; }", "=r,r,l,r"
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $0, 0; @%kp st.global.u8 [$1], $2; }", "r,l,r"
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $1, 0; mov.b16 $0, $3; @%kp ld.global.b16 $0, [$2]; }", "=h,r,l,h"
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $0, 0; @%kp st.global.b16 [$1], $2; }", "r,l,h"
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $1, 0; mov.b64 $0, $3; @%kp ld.global.b64 $0, [$2]; }", "=l,r,l,l"
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $0, 0; @%kp st.global.b64 [$1], $2; }", "r,l,l"
func.func @scalar_masked(%p: !kite.ptr<i8>, %h: !kite.ptr<f16>, %d: !kite.ptr<f64>, %m: i1) attributes {kite.kernel} {
  %b = kite.load %p, %m : !kite.ptr<i8>
  kite.store %p, %b, %m : !kite.ptr<i8>
  %x = kite.load %h, %m : !kite.ptr<f16>
  kite.store %h, %x, %m : !kite.ptr<f16>
  %y = kite.load %d, %m : !kite.ptr<f64>
  kite.store %d, %y, %m : !kite.ptr<f64>
  return
}

// -----

// f16 blocks, aligned and masked by a uniform mask: 8 halves travel as one
// v4.b32 access.
// CHECK-LABEL: gpu.func @half
// CHECK: @%kp ld.global.v4.b32
// CHECK: vector.bitcast %{{.*}} : vector<4xi32> to vector<8xf16>
// CHECK: vector.bitcast %{{.*}} : vector<8xf16> to vector<4xi32>
// CHECK: @%kp st.global.v4.b32
func.func @half(%x: !kite.ptr<f16> {kite.divisibility = 16 : i32}, %n: i32 {kite.divisibility = 16 : i32}) attributes {kite.kernel} {
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %nb = kite.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<1024xi32>
  %xs = kite.splat %x : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
  %xp = kite.addptr %xs, %r : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
  %v = kite.load %xp, %m : tensor<1024x!kite.ptr<f16>>
  kite.store %xp, %v, %m : tensor<1024x!kite.ptr<f16>>
  return
}
