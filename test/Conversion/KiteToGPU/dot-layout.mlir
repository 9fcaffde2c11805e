// RUN: kite-opt %s -convert-kite-to-gpu -split-input-file | FileCheck %s
// A dot result's shape gets the dot layout (2-D warp tiles; DotTile), and
// every block of that shape in the kernel follows it: the accumulator, the
// epilogue's pointers and the store.

// 64x64 on 4 warps: 8 rows x 4 columns per thread (32 registers), lanes 4
// x 8. Each 4 steps of k: 8 row loads of A (16 bytes), then per step one
// 16-byte load of B and 8 fmas of 4 lanes.
// CHECK-LABEL: gpu.func @dot_default
// CHECK-SAME: !llvm.ptr<1>
// CHECK: gpu.thread_id x
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-COUNT-8: math.fma %{{.*}} : vector<4xf32>
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @dot_default(%p: !kite.ptr<f32> {kite.divisibility = 16 : i32}) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %a = arith.constant dense<1.0> : tensor<64x32xf32>
  %b = arith.constant dense<2.0> : tensor<32x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %c = kite.dot %a, %b, %z : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  %r = kite.arange 0, 64 : tensor<64xi32>
  %r2 = kite.expand_dims %r axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %rows = arith.muli %r2, %c64 : tensor<64x1xi32>
  %rb = kite.broadcast %rows : tensor<64x1xi32> -> tensor<64x64xi32>
  %c2 = kite.expand_dims %r axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = kite.broadcast %c2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<64x64x!kite.ptr<f32>>
  %ptrs = kite.addptr %ps, %off : tensor<64x64x!kite.ptr<f32>>, tensor<64x64xi32>
  kite.store %ptrs, %c : tensor<64x64x!kite.ptr<f32>>
  return
}

// -----

// kite.dot_tile asks for another register tile: 16 rows x 2 columns, so B
// is read 8 bytes at a time and the fmas are 2 wide.
// CHECK-LABEL: gpu.func @dot_tile
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK: math.fma %{{.*}} : vector<2xf32>
// CHECK-NOT: math.fma %{{.*}} : vector<4xf32>
func.func @dot_tile(%p: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 4 : i32, kite.dot_tile = array<i64: 16, 2>} {
  %a = arith.constant dense<1.0> : tensor<64x32xf32>
  %b = arith.constant dense<2.0> : tensor<32x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %c = kite.dot %a, %b, %z : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<64x64x!kite.ptr<f32>>
  kite.store %ps, %c : tensor<64x64x!kite.ptr<f32>>
  return
}
