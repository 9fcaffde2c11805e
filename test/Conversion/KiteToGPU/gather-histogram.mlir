// RUN: kite-opt %s -convert-kite-to-gpu | FileCheck %s
// kite.gather publishes its source in shared memory (barrier, stores,
// barrier) and reads each result register at its coordinates with the
// axis's replaced by the index; kite.histogram zeroes its bins in shared
// memory, counts with shared-memory atomics under the mask and reads the
// bins back; kite.assume becomes llvm.intr.assume.

// CHECK-LABEL: gpu.func @gather
// CHECK: gpu.barrier
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
func.func @gather(%p: !kite.ptr<f32>, %q: !kite.ptr<i32>) attributes {kite.kernel} {
  %r = kite.arange 0, 64 : tensor<64xi32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<64x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %r : tensor<64x!kite.ptr<f32>>, tensor<64xi32>
  %x = kite.load %pp : tensor<64x!kite.ptr<f32>>
  %r16 = kite.arange 0, 16 : tensor<16xi32>
  %qs = kite.splat %q : !kite.ptr<i32> -> tensor<16x!kite.ptr<i32>>
  %qp = kite.addptr %qs, %r16 : tensor<16x!kite.ptr<i32>>, tensor<16xi32>
  %i = kite.load %qp : tensor<16x!kite.ptr<i32>>
  %g = kite.gather %x[%i] axis 0 : tensor<64xf32>, tensor<16xi32> -> tensor<16xf32>
  %ps2 = kite.splat %p : !kite.ptr<f32> -> tensor<16x!kite.ptr<f32>>
  %pp2 = kite.addptr %ps2, %r16 : tensor<16x!kite.ptr<f32>>, tensor<16xi32>
  kite.store %pp2, %g : tensor<16x!kite.ptr<f32>>
  return
}

// CHECK-LABEL: gpu.func @histogram
// CHECK: gpu.barrier
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: scf.if
// CHECK: llvm.atomicrmw add {{.*}} monotonic : !llvm.ptr<3>, i32
// CHECK: gpu.barrier
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> i32
// CHECK: llvm.intr.assume
func.func @histogram(%q: !kite.ptr<i32>, %n: i32) attributes {kite.kernel} {
  %r = kite.arange 0, 256 : tensor<256xi32>
  %qs = kite.splat %q : !kite.ptr<i32> -> tensor<256x!kite.ptr<i32>>
  %qp = kite.addptr %qs, %r : tensor<256x!kite.ptr<i32>>, tensor<256xi32>
  %v = kite.load %qp : tensor<256x!kite.ptr<i32>>
  %ns = kite.splat %n : i32 -> tensor<256xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<256xi32>
  %h = kite.histogram %v, %m : tensor<256xi32>, tensor<256xi1> -> tensor<32xi32>
  %r32 = kite.arange 0, 32 : tensor<32xi32>
  %hs = kite.splat %q : !kite.ptr<i32> -> tensor<32x!kite.ptr<i32>>
  %hp = kite.addptr %hs, %r32 : tensor<32x!kite.ptr<i32>>, tensor<32xi32>
  kite.store %hp, %h : tensor<32x!kite.ptr<i32>>
  %c0 = arith.constant 0 : i32
  %pos = arith.cmpi sgt, %n, %c0 : i32
  kite.assume %pos : i1
  return
}
