// RUN: kite-opt %s --kite-version-full-blocks --canonicalize --cse | FileCheck %s
// RUN: kite-opt %s --kite-version-full-blocks=max-ops=10 | FileCheck %s --check-prefix=SMALL
// RUN: kite-opt %s --kite-to-ptx="chip=sm_90a stop-after=gpu" | FileCheck %s --check-prefix=PIPE
// RUN: kite-opt %s --kite-version-full-blocks=uniform-masks=false --canonicalize --cse | FileCheck %s --check-prefix=NOUNI

// The tutorials' 1-D form with n not known to be a multiple of 4: the body
// after `pid * 1024` is versioned on pid * 1024 + 1023 < n (in 64 bits);
// the full-block copy loads and stores without masks.
// CHECK-LABEL: func.func @tail
// CHECK: %[[PID:.*]] = kite.program_id 0
// CHECK: %[[S:.*]] = arith.muli %[[PID]]
// CHECK: %[[S64:.*]] = arith.extsi %[[S]] : i32 to i64
// CHECK: %[[LAST:.*]] = arith.addi %[[S64]], %c1023_i64
// CHECK: %[[N64:.*]] = arith.extsi %arg2 : i32 to i64
// CHECK: %[[FULL:.*]] = arith.cmpi slt, %[[LAST]], %[[N64]]
// CHECK: scf.if %[[FULL]] {
// CHECK-NOT: arith.cmpi
// CHECK: %[[X:.*]] = kite.load %{{.*}} : tensor<1024x!kite.ptr<f32>>
// CHECK: kite.store %{{.*}}, %{{.*}} : tensor<1024x!kite.ptr<f32>>
// CHECK-NEXT: } else {
// CHECK: %[[M:.*]] = arith.cmpi slt
// CHECK: kite.load %{{.*}}, %[[M]] : tensor<1024x!kite.ptr<f32>>
// CHECK: kite.store %{{.*}}, %{{.*}}, %[[M]] : tensor<1024x!kite.ptr<f32>>
// CHECK-NEXT: } {kite.full_blocks}
// SMALL-LABEL: func.func @tail
// SMALL-NOT: scf.if
// PIPE-LABEL: gpu.func @tail
// PIPE: scf.if
func.func @tail(%x: !kite.ptr<f32> {kite.divisibility = 16 : i32},
                %y: !kite.ptr<f32> {kite.divisibility = 16 : i32},
                %n: i32) attributes {kite.kernel} {
  %pid = kite.program_id 0
  %c1024 = arith.constant 1024 : i32
  %start = arith.muli %pid, %c1024 : i32
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %s = kite.splat %start : i32 -> tensor<1024xi32>
  %offs = arith.addi %s, %r : tensor<1024xi32>
  %ns = kite.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xs = kite.splat %x : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %xp = kite.addptr %xs, %offs : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  %v = kite.load %xp, %mask : tensor<1024x!kite.ptr<f32>>
  %w = arith.addf %v, %v : tensor<1024xf32>
  %ys = kite.splat %y : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %yp = kite.addptr %ys, %offs : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  kite.store %yp, %w, %mask : tensor<1024x!kite.ptr<f32>>
  return
}

// n a multiple of 16: every 4-element group's mask is uniform already, and
// each group still pays its predicate: versioned by default (the full-block
// copy has no predicates), left alone with uniform-masks=false.
// CHECK-LABEL: func.func @aligned
// CHECK: scf.if
// CHECK: kite.load %{{.*}} : tensor<256x!kite.ptr<f32>>
// CHECK: } else {
// CHECK: } {kite.full_blocks}
// NOUNI-LABEL: func.func @aligned
// NOUNI-NOT: scf.if
// NOUNI: return
func.func @aligned(%x: !kite.ptr<f32> {kite.divisibility = 16 : i32},
                   %n: i32 {kite.divisibility = 16 : i32}) attributes {kite.kernel} {
  %pid = kite.program_id 0
  %c256 = arith.constant 256 : i32
  %start = arith.muli %pid, %c256 : i32
  %r = kite.arange 0, 256 : tensor<256xi32>
  %s = kite.splat %start : i32 -> tensor<256xi32>
  %offs = arith.addi %s, %r : tensor<256xi32>
  %ns = kite.splat %n : i32 -> tensor<256xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<256xi32>
  %xs = kite.splat %x : !kite.ptr<f32> -> tensor<256x!kite.ptr<f32>>
  %xp = kite.addptr %xs, %offs : tensor<256x!kite.ptr<f32>>, tensor<256xi32>
  %v = kite.load %xp, %mask : tensor<256x!kite.ptr<f32>>
  kite.store %xp, %v, %mask : tensor<256x!kite.ptr<f32>>
  return
}

// Pointers with no known alignment: scalar accesses either way.
// CHECK-LABEL: func.func @unaligned
// CHECK-NOT: scf.if
// CHECK: return
func.func @unaligned(%x: !kite.ptr<f32>, %n: i32) attributes {kite.kernel} {
  %r = kite.arange 0, 256 : tensor<256xi32>
  %ns = kite.splat %n : i32 -> tensor<256xi32>
  %mask = arith.cmpi slt, %r, %ns : tensor<256xi32>
  %xs = kite.splat %x : !kite.ptr<f32> -> tensor<256x!kite.ptr<f32>>
  %xp = kite.addptr %xs, %r : tensor<256x!kite.ptr<f32>>, tensor<256xi32>
  %v = kite.load %xp, %mask : tensor<256x!kite.ptr<f32>>
  kite.store %xp, %v, %mask : tensor<256x!kite.ptr<f32>>
  return
}

// `n > offsets` and `offsets < m` joined by `&`, unsigned: both bounds are
// part of the condition (zero-extended), and a bare arange starts at 0.
// CHECK-LABEL: func.func @both
// CHECK-DAG: %[[N:.*]] = arith.extui %arg1 : i32 to i64
// CHECK-DAG: %[[M:.*]] = arith.extui %arg2 : i32 to i64
// CHECK-DAG: %[[A:.*]] = arith.cmpi ugt, %[[N]], %c255_i64
// CHECK-DAG: %[[B:.*]] = arith.cmpi ugt, %[[M]], %c255_i64
// CHECK: %[[AB:.*]] = arith.andi
// CHECK: scf.if %[[AB]] {
// CHECK: kite.load %{{.*}} : tensor<256x!kite.ptr<f32>>
// CHECK: } else {
// CHECK: } {kite.full_blocks}
func.func @both(%x: !kite.ptr<f32> {kite.divisibility = 16 : i32}, %n: i32,
                %m: i32) attributes {kite.kernel} {
  %r = kite.arange 0, 256 : tensor<256xi32>
  %ns = kite.splat %n : i32 -> tensor<256xi32>
  %ms = kite.splat %m : i32 -> tensor<256xi32>
  %a = arith.cmpi ugt, %ns, %r : tensor<256xi32>
  %b = arith.cmpi ult, %r, %ms : tensor<256xi32>
  %mask = arith.andi %a, %b : tensor<256xi1>
  %xs = kite.splat %x : !kite.ptr<f32> -> tensor<256x!kite.ptr<f32>>
  %xp = kite.addptr %xs, %r : tensor<256x!kite.ptr<f32>>, tensor<256xi32>
  %v = kite.load %xp, %mask : tensor<256x!kite.ptr<f32>>
  kite.store %xp, %v, %mask : tensor<256x!kite.ptr<f32>>
  return
}

// A mask that is not a bound on an arange (here loaded data) is left alone.
// CHECK-LABEL: func.func @data_mask
// CHECK-NOT: scf.if
// CHECK: return
func.func @data_mask(%x: !kite.ptr<f32> {kite.divisibility = 16 : i32},
                     %i: !kite.ptr<i32> {kite.divisibility = 16 : i32},
                     %n: i32) attributes {kite.kernel} {
  %r = kite.arange 0, 256 : tensor<256xi32>
  %is = kite.splat %i : !kite.ptr<i32> -> tensor<256x!kite.ptr<i32>>
  %ip = kite.addptr %is, %r : tensor<256x!kite.ptr<i32>>, tensor<256xi32>
  %idx = kite.load %ip : tensor<256x!kite.ptr<i32>>
  %ns = kite.splat %n : i32 -> tensor<256xi32>
  %mask = arith.cmpi slt, %idx, %ns : tensor<256xi32>
  %xs = kite.splat %x : !kite.ptr<f32> -> tensor<256x!kite.ptr<f32>>
  %xp = kite.addptr %xs, %r : tensor<256x!kite.ptr<f32>>, tensor<256xi32>
  %v = kite.load %xp, %mask : tensor<256x!kite.ptr<f32>>
  kite.store %xp, %v, %mask : tensor<256x!kite.ptr<f32>>
  return
}
