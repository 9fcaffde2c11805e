// RUN: kite-opt %s -convert-kite-to-gpu -split-input-file | FileCheck %s
// i8 blocks to f16 (sitofp, uitofp; ElementwiseToGPU.cpp,
// ByteToHalfLowering): two bytes at a time into the low bytes of the f16
// pair 0x64xx (1024 + x), the sign bit flipped for sitofp (x + 128), then
// one f16x2 subtraction of 1152 (1024 for uitofp): no I2F per element.
// 1024 elements on 4 warps: 8 a thread, 4 pairs.

// CHECK-LABEL: gpu.func @signed
// CHECK-NOT: arith.sitofp
// CHECK: %[[BIAS:.*]] = arith.constant dense<1.152000e+03> : vector<2xf16>
// CHECK-COUNT-4: arith.xori %{{.*}}, %{{.*}} : i32
// CHECK: %[[W:.*]] = arith.ori %{{.*}}, %{{.*}} : i32
// CHECK: %[[H:.*]] = llvm.bitcast %[[W]] : i32 to vector<2xf16>
// CHECK: arith.subf %[[H]], %[[BIAS]] : vector<2xf16>
// CHECK-NOT: arith.sitofp
func.func @signed(%in: !kite.ptr<i8>, %out: !kite.ptr<f16>) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %i = kite.arange 0, 1024 : tensor<1024xi32>
  %si = kite.splat %in : !kite.ptr<i8> -> tensor<1024x!kite.ptr<i8>>
  %pi = kite.addptr %si, %i : tensor<1024x!kite.ptr<i8>>, tensor<1024xi32>
  %x = kite.load %pi : tensor<1024x!kite.ptr<i8>>
  %h = arith.sitofp %x : tensor<1024xi8> to tensor<1024xf16>
  %so = kite.splat %out : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
  %po = kite.addptr %so, %i : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
  kite.store %po, %h : tensor<1024x!kite.ptr<f16>>
  return
}

// -----

// CHECK-LABEL: gpu.func @unsigned
// CHECK-NOT: arith.uitofp
// CHECK: arith.constant dense<1.024000e+03> : vector<2xf16>
// CHECK-NOT: arith.xori
// CHECK-COUNT-4: arith.subf %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK-NOT: arith.uitofp
func.func @unsigned(%in: !kite.ptr<i8>, %out: !kite.ptr<f16>) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %i = kite.arange 0, 1024 : tensor<1024xi32>
  %si = kite.splat %in : !kite.ptr<i8> -> tensor<1024x!kite.ptr<i8>>
  %pi = kite.addptr %si, %i : tensor<1024x!kite.ptr<i8>>, tensor<1024xi32>
  %x = kite.load %pi : tensor<1024x!kite.ptr<i8>>
  %h = arith.uitofp %x : tensor<1024xi8> to tensor<1024xf16>
  %so = kite.splat %out : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
  %po = kite.addptr %so, %i : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
  kite.store %po, %h : tensor<1024x!kite.ptr<f16>>
  return
}
