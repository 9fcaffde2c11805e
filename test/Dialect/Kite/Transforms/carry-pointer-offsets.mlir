// RUN: kite-opt %examples/matmul.mlir --kite-to-ptx=stop-after=kite | kite-opt --kite-carry-pointer-offsets --canonicalize | FileCheck %s
// The tutorial matmul's K loop advances its A and B pointer blocks by
// BLOCK_K * stride each iteration: the loop carries two i64 offsets instead,
// and the blocks are formed from their loop-invariant starts.

// CHECK: %[[A0:.*]] = kite.addptr %{{.*}} : tensor<64x32x!kite.ptr<f32>>, tensor<64x32xi32>
// CHECK: %[[B0:.*]] = kite.addptr %{{.*}} : tensor<32x64x!kite.ptr<f32>>, tensor<32x64xi32>
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[AO:.*]] = %c0_i64, %[[BO:.*]] = %c0_i64) -> (tensor<64x64xf32>, i64, i64)
// CHECK-DAG: %[[AS:.*]] = kite.splat %[[AO]] : i64 -> tensor<64x32xi64>
// CHECK-DAG: %[[A:.*]] = kite.addptr %[[A0]], %[[AS]] : tensor<64x32x!kite.ptr<f32>>, tensor<64x32xi64>
// CHECK-DAG: %[[BS:.*]] = kite.splat %[[BO]] : i64 -> tensor<32x64xi64>
// CHECK-DAG: %[[B:.*]] = kite.addptr %[[B0]], %[[BS]] : tensor<32x64x!kite.ptr<f32>>, tensor<32x64xi64>
// CHECK-DAG: kite.load %[[A]]
// CHECK-DAG: kite.load %[[B]]
// CHECK: %[[D:.*]] = kite.dot
// CHECK-DAG: %[[AN:.*]] = arith.addi %[[AO]], %{{.*}} : i64
// CHECK-DAG: %[[BN:.*]] = arith.addi %[[BO]], %{{.*}} : i64
// CHECK: scf.yield %[[D]], %[[AN]], %[[BN]] : tensor<64x64xf32>, i64, i64

// The GPU stage's kite-level passes keep the results bit for bit (ragged M,
// N, K over several programs and iterations, in the interpreter).
// RUN: kite-opt %examples/matmul.mlir --kite-to-ptx=stop-after=kite | kite-opt --kite-rematerialize-broadcasts --kite-carry-pointer-offsets --canonicalize --loop-invariant-code-motion --kite-pipeline-loads --canonicalize --cse > %t.scheduled.mlir
// RUN: kite-run %examples/matmul.kite --grid 6 a_ptr=randn:15000:1 b_ptr=randn:8000:2 c_ptr=zeros:12000 M=150 N=80 K=100 stride_am=100 stride_ak=1 stride_bk=80 stride_bn=1 stride_cm=80 stride_cn=1 --save c_ptr=%t.plain
// RUN: kite-run %t.scheduled.mlir --grid 6 a_ptr=randn:15000:1 b_ptr=randn:8000:2 c_ptr=zeros:12000 M=150 N=80 K=100 stride_am=100 stride_ak=1 stride_bk=80 stride_bn=1 stride_cm=80 stride_cn=1 --save c_ptr=%t.scheduled
// RUN: cmp %t.plain %t.scheduled

// An advance by a constant block (BLOCK_K * stride folded once the stride
// is specialized to 1) is carried as a scalar offset too.
// RUN: kite-opt %s --kite-carry-pointer-offsets --canonicalize | FileCheck %s --check-prefix=CONST
// CONST-LABEL: func.func @constant_advance
// CONST: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[O:.*]] = %c0_i64) -> (tensor<64xf32>, i64)
// CONST: %[[N:.*]] = arith.addi %[[O]], %c64_i64 : i64
// CONST: scf.yield %{{.*}}, %[[N]] : tensor<64xf32>, i64
func.func @constant_advance(%p: !kite.ptr<f32>, %n: i32) attributes {kite.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %step = arith.constant dense<64> : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %r = kite.arange 0, 64 : tensor<64xi32>
  %s = kite.splat %p : !kite.ptr<f32> -> tensor<64x!kite.ptr<f32>>
  %p0 = kite.addptr %s, %r : tensor<64x!kite.ptr<f32>>, tensor<64xi32>
  %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %ptrs = %p0) -> (tensor<64xf32>, tensor<64x!kite.ptr<f32>>) : i32 {
    %x = kite.load %ptrs : tensor<64x!kite.ptr<f32>>
    %a = arith.addf %acc, %x : tensor<64xf32>
    %q = kite.addptr %ptrs, %step : tensor<64x!kite.ptr<f32>>, tensor<64xi32>
    scf.yield %a, %q : tensor<64xf32>, tensor<64x!kite.ptr<f32>>
  }
  kite.store %p0, %res#0 : tensor<64x!kite.ptr<f32>>
  return
}
