// RUN: kite-opt %s -convert-kite-to-gpu -split-input-file | FileCheck %s
// Ops whose results need other threads' elements go through one shared
// memory scratch buffer per kernel: barrier, store every register at its
// linear index, barrier, load what each result register needs.

// A broadcast that repeats elements (of loaded data).
// CHECK: llvm.mlir.global internal @kite_smem_broadcast() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// CHECK-LABEL: gpu.func @broadcast
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @kite_smem_broadcast : !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
func.func @broadcast(%p: !kite.ptr<i32>) attributes {kite.kernel} {
  %r = kite.arange 0, 16 : tensor<16xi32>
  %ps1 = kite.splat %p : !kite.ptr<i32> -> tensor<16x!kite.ptr<i32>>
  %pr = kite.addptr %ps1, %r : tensor<16x!kite.ptr<i32>>, tensor<16xi32>
  %l = kite.load %pr : tensor<16x!kite.ptr<i32>>
  %c = kite.expand_dims %l axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %b = kite.broadcast %c : tensor<16x1xi32> -> tensor<16x16xi32>
  %ps = kite.splat %p : !kite.ptr<i32> -> tensor<16x16x!kite.ptr<i32>>
  %pp = kite.addptr %ps, %b : tensor<16x16x!kite.ptr<i32>>, tensor<16x16xi32>
  kite.store %pp, %b : tensor<16x16x!kite.ptr<i32>>
  return
}

// -----

// A broadcast of an arange needs no exchange: each thread computes the
// elements it holds from their coordinates (here row = lin / 16 % 16 and
// column = lin % 16, plus the start), and the kernel has no scratch buffer.
// CHECK-NOT: kite_smem_arange_broadcast
// CHECK-LABEL: gpu.func @arange_broadcast
// CHECK-NOT: gpu.barrier
// CHECK: arith.divui %{{.*}}, %c16_i32
// CHECK: arith.remui %{{.*}}, %c16_i32
// CHECK: vector.from_elements
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @arange_broadcast(%p: !kite.ptr<i32>) attributes {kite.kernel} {
  %r = kite.arange 0, 16 : tensor<16xi32>
  %c = kite.expand_dims %r axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %b = kite.broadcast %c : tensor<16x1xi32> -> tensor<16x16xi32>
  %r2 = kite.arange 16, 32 : tensor<16xi32>
  %c2 = kite.expand_dims %r2 axis 0 : tensor<16xi32> -> tensor<1x16xi32>
  %b2 = kite.broadcast %c2 : tensor<1x16xi32> -> tensor<16x16xi32>
  %s = arith.addi %b, %b2 : tensor<16x16xi32>
  %ps = kite.splat %p : !kite.ptr<i32> -> tensor<16x16x!kite.ptr<i32>>
  %pp = kite.addptr %ps, %s : tensor<16x16x!kite.ptr<i32>>, tensor<16x16xi32>
  kite.store %pp, %s : tensor<16x16x!kite.ptr<i32>>
  return
}

// -----

// dot, register-tiled: the result's dot layout gives each thread 2
// consecutive columns of one row (lanes 4 x 8, warps 4 x 1). A and B are staged row-major as f32
// with vector stores, A's rows padded to K + 4 = 20 elements (16 x 20 x 4 +
// 16 x 16 x 4 = 2304 bytes). Each 4 steps of k: one 16-byte load of 4 k-values
// of A's row, then per step one 8-byte vector load of B's two columns and a
// vector fma.
// CHECK: llvm.mlir.global internal @kite_smem_dot() {{.*}} : !llvm.array<2304 x i8>
// CHECK-LABEL: gpu.func @dot
// CHECK: gpu.barrier
// CHECK-COUNT-2: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK: math.fma %{{.*}} : vector<2xf32>
// CHECK-COUNT-15: math.fma
// CHECK-NOT: math.fma
func.func @dot(%p: !kite.ptr<f32>) attributes {kite.kernel} {
  %a = arith.constant dense<1.0> : tensor<16x16xf32>
  %c = kite.dot %a, %a, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<16x16x!kite.ptr<f32>>
  kite.store %ps, %c : tensor<16x16x!kite.ptr<f32>>
  return
}


// -----

// dot, register-tiled with 8x8 tiles (64x128 on 4 warps): A is staged
// k-major and swizzled, element by element (f16 widened to f32), B in
// 16-byte groups; per k, one 16-byte load of each 4-row group of A and of
// each 4-column group of B, then 16 vector fmas (8 rows x 2 column
// groups).
// CHECK-LABEL: gpu.func @dot_kmajor
// CHECK: gpu.barrier
// CHECK: arith.xori
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-COUNT-16: math.fma %{{.*}} : vector<4xf32>
// CHECK-NOT: math.fma
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
func.func @dot_kmajor(%p: !kite.ptr<f32>, %h: !kite.ptr<f16>) attributes {kite.kernel} {
  %as = kite.splat %h : !kite.ptr<f16> -> tensor<64x16x!kite.ptr<f16>>
  %a = kite.load %as : tensor<64x16x!kite.ptr<f16>>
  %bs = kite.splat %h : !kite.ptr<f16> -> tensor<16x128x!kite.ptr<f16>>
  %b = kite.load %bs : tensor<16x128x!kite.ptr<f16>>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %c = kite.dot %a, %b, %z : tensor<64x16xf16>, tensor<16x128xf16> -> tensor<64x128xf32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<64x128x!kite.ptr<f32>>
  kite.store %ps, %c : tensor<64x128x!kite.ptr<f32>>
  return
}
