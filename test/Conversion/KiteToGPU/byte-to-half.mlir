// RUN: kite-opt %s -convert-kite-to-gpu -split-input-file | FileCheck %s
// i8 blocks to f16 (sitofp, uitofp; ElementwiseToGPU.cpp,
// ByteToHalfLowering): the bytes go into the low bytes of f16 pairs 0x64xx
// (1024 + x), the sign bit flipped for sitofp (x + 128), then one f16x2
// subtraction of 1152 (1024 for uitofp): no I2F per element. Four bytes at
// a time: the word they make, one xor of 0x80808080 for the signs, one
// prmt a pair (selectors 0x4140 and 0x4342 over the word and 0x64646464).
// 1024 elements on 4 warps: 8 a thread, 2 words, 4 pairs.

// CHECK-LABEL: gpu.func @signed
// CHECK-NOT: arith.sitofp
// CHECK: %[[BIAS:.*]] = arith.constant dense<1.152000e+03> : vector<2xf16>
// CHECK: %[[W:.*]] = llvm.bitcast %{{.*}} : vector<4xi8> to i32
// CHECK: %[[F:.*]] = arith.xori %[[W]], %c-2139062144_i32{{.*}} : i32
// CHECK: %[[P:.*]] = nvvm.prmt <default> %c16704_i32{{.*}}, %[[F]], %c1684300900_i32{{.*}} : i32
// CHECK: %[[H:.*]] = llvm.bitcast %[[P]] : i32 to vector<2xf16>
// CHECK: arith.subf %[[H]], %[[BIAS]] : vector<2xf16>
// CHECK: nvvm.prmt <default> %c17218_i32{{.*}}, %[[F]], %c1684300900_i32{{.*}} : i32
// CHECK: llvm.bitcast %{{.*}} : vector<4xi8> to i32
// CHECK-COUNT-1: arith.xori
// CHECK-COUNT-2: nvvm.prmt
// CHECK-NOT: nvvm.prmt
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

// -----

// Two bytes a thread (256 elements on 4 warps): one pair, made from the two
// bytes (the sign bits flipped with 0x00800080, 0x64006400 or'ed in).

// CHECK-LABEL: gpu.func @pair
// CHECK-NOT: nvvm.prmt
// CHECK: arith.xori %{{.*}}, %{{.*}} : i32
// CHECK: %[[W:.*]] = arith.ori %{{.*}}, %{{.*}} : i32
// CHECK: %[[H:.*]] = llvm.bitcast %[[W]] : i32 to vector<2xf16>
// CHECK: arith.subf %[[H]], %{{.*}} : vector<2xf16>
// CHECK-NOT: arith.sitofp
func.func @pair(%in: !kite.ptr<i8>, %out: !kite.ptr<f16>) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %i = kite.arange 0, 256 : tensor<256xi32>
  %si = kite.splat %in : !kite.ptr<i8> -> tensor<256x!kite.ptr<i8>>
  %pi = kite.addptr %si, %i : tensor<256x!kite.ptr<i8>>, tensor<256xi32>
  %x = kite.load %pi : tensor<256x!kite.ptr<i8>>
  %h = arith.sitofp %x : tensor<256xi8> to tensor<256xf16>
  %so = kite.splat %out : !kite.ptr<f16> -> tensor<256x!kite.ptr<f16>>
  %po = kite.addptr %so, %i : tensor<256x!kite.ptr<f16>>, tensor<256xi32>
  kite.store %po, %h : tensor<256x!kite.ptr<f16>>
  return
}
