// RUN: kite-opt %s -convert-kite-to-gpu | FileCheck %s
// kite.convert_layout: the result takes the linear layout in 16-byte runs
// of its own element type. Where the operand's layout places elements
// alike it moves nothing (@same: f32 only, runs of 4 both sides); else
// through shared memory in vectors (@moves: the kernel's f16 loads make
// its default runs 8 elements, the conversion's result runs 4 f32): a
// barrier, 16-byte stores, a barrier, 16-byte loads.

// CHECK-LABEL: gpu.func @same
// CHECK-NOT: gpu.barrier
// CHECK-NOT: !llvm.ptr<3>
// CHECK: gpu.return
func.func @same(%p: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 1 : i32} {
  %i = kite.arange 0, 512 : tensor<512xi32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<512x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %i : tensor<512x!kite.ptr<f32>>, tensor<512xi32>
  %x = kite.load %pp : tensor<512x!kite.ptr<f32>>
  %y = kite.convert_layout %x : tensor<512xf32>
  kite.store %pp, %y : tensor<512x!kite.ptr<f32>>
  return
}

// CHECK-LABEL: gpu.func @moves
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @moves(%h: !kite.ptr<f16>, %p: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 1 : i32} {
  %i = kite.arange 0, 1024 : tensor<1024xi32>
  %hs = kite.splat %h : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
  %hp = kite.addptr %hs, %i : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
  %x = kite.load %hp : tensor<1024x!kite.ptr<f16>>
  %w = arith.extf %x : tensor<1024xf16> to tensor<1024xf32>
  %y = kite.convert_layout %w : tensor<1024xf32>
  %j = kite.arange 0, 1024 : tensor<1024xi32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %j : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  kite.store %pp, %y : tensor<1024x!kite.ptr<f32>>
  return
}
