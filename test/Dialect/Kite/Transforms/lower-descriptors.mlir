// RUN: kite-opt %s --kite-lower-descriptors --canonicalize | FileCheck %s
// RUN: kite-opt %s --kite-lower-descriptors="keep-tma=true chip=sm_90a" | FileCheck %s --check-prefix=KEEP

// kite-lower-descriptors: a descriptor load becomes the masked pointer
// block it addresses (offsets + arange along each dimension, times the
// strides; 0 <= offs < shape; masked-off elements read as 0), a store the
// masked store; the descriptor goes when nothing reads it. With keep-tma
// on sm_90a, the K loop's dot operands (aligned, made of parameters) stay
// for kite-stage-dot-operands' TMA staging; the epilogue's store does not.

// CHECK-LABEL: func.func @copy
// CHECK-NOT: kite.make_tensor_descriptor
// CHECK-NOT: kite.descriptor_
// CHECK-DAG: kite.arange 0, 16 : tensor<16xi32>
// CHECK-DAG: kite.arange 0, 32 : tensor<32xi32>
// CHECK-DAG: arith.cmpi sge, %{{.*}} : tensor<16x1xi32>
// CHECK-DAG: arith.cmpi slt, %{{.*}} : tensor<16x1xi32>
// CHECK-DAG: arith.cmpi slt, %{{.*}} : tensor<1x32xi32>
// CHECK: kite.addptr %{{.*}} : tensor<16x32x!kite.ptr<f32>>, tensor<16x32xi32>
// CHECK: %[[X:.*]] = kite.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32x!kite.ptr<f32>>
// CHECK: kite.store %{{.*}}, %[[X]], %{{.*}} : tensor<16x32x!kite.ptr<f32>>
func.func @copy(%src: !kite.ptr<f32>, %dst: !kite.ptr<f32>, %M: i32, %N: i32, %i: i32, %j: i32) attributes {kite.kernel} {
  %c1 = arith.constant 1 : i32
  %s = kite.make_tensor_descriptor %src, [%M, %N], [%N, %c1] : !kite.ptr<f32>, [i32, i32], [i32, i32] -> !kite.tensordesc<tensor<16x32xf32>>
  %d = kite.make_tensor_descriptor %dst, [%M, %N], [%N, %c1] : !kite.ptr<f32>, [i32, i32], [i32, i32] -> !kite.tensordesc<tensor<16x32xf32>>
  %x = kite.descriptor_load %s[%i, %j] : !kite.tensordesc<tensor<16x32xf32>> -> tensor<16x32xf32>
  kite.descriptor_store %d[%i, %j], %x : !kite.tensordesc<tensor<16x32xf32>>, tensor<16x32xf32>
  return
}

// The C descriptor (16-byte aligned, from parameters) becomes a TMA store
// through a tensor-map parameter: boxes of 128 rows x 32 f32 (128 bytes).
// KEEP-LABEL: func.func @matmul
// KEEP-SAME: !kite.tensordesc<tensor<128x128xf32>> {kite.tensor_map = {base = 2 : i64, box = array<i64: 128, 32>, shape = array<i64: 3, 4>, strides = array<i64: 4, -2>, swizzle = 128 : i64}}
// KEEP: scf.for
// KEEP: kite.descriptor_load {{.*}}tensor<128x64xf16>> -> tensor<128x64xf16>
// KEEP: kite.descriptor_load {{.*}}tensor<64x128xf16>> -> tensor<64x128xf16>
// KEEP: kite.dot
// KEEP-NOT: kite.descriptor_store
// KEEP: kite.tma_store %[[MAP:.*]][%{{.*}}, %{{.*}}], %{{.*}} : <tensor<128x128xf32>>, tensor<128x128xf32>
func.func @matmul(%a: !kite.ptr<f16> {kite.divisibility = 16 : i32}, %b: !kite.ptr<f16> {kite.divisibility = 16 : i32}, %c: !kite.ptr<f32> {kite.divisibility = 16 : i32}, %M: i32 {kite.divisibility = 16 : i32}, %N: i32 {kite.divisibility = 16 : i32}, %K: i32 {kite.divisibility = 16 : i32}, %n: i32) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %da = kite.make_tensor_descriptor %a, [%M, %K], [%K, %c1] : !kite.ptr<f16>, [i32, i32], [i32, i32] -> !kite.tensordesc<tensor<128x64xf16>>
  %db = kite.make_tensor_descriptor %b, [%K, %N], [%N, %c1] : !kite.ptr<f16>, [i32, i32], [i32, i32] -> !kite.tensordesc<tensor<64x128xf16>>
  %dc = kite.make_tensor_descriptor %c, [%M, %N], [%N, %c1] : !kite.ptr<f32>, [i32, i32], [i32, i32] -> !kite.tensordesc<tensor<128x128xf32>>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %off = arith.muli %k, %c64 : i32
    %x = kite.descriptor_load %da[%c0, %off] : !kite.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %y = kite.descriptor_load %db[%off, %c0] : !kite.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16>
    %r = kite.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %r : tensor<128x128xf32>
  }
  kite.descriptor_store %dc[%c0, %c0], %acc : !kite.tensordesc<tensor<128x128xf32>>, tensor<128x128xf32>
  return
}
