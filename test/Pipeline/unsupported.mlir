// IR the lowering cannot handle gets a diagnostic naming the op, through
// kitec, and exit code 1.
// RUN: not kitec %s 2>&1 | FileCheck %s

// CHECK: unsupported.mlir:8:8: error: 'arith.constant' op only splat block constants are supported by the GPU lowering
func.func @k(%p: !kite.ptr<i32>) attributes {kite.kernel} {
  %r = kite.arange 0, 4 : tensor<4xi32>
  %c = arith.constant dense<[3, 1, 4, 1]> : tensor<4xi32>
  %s = arith.addi %r, %c : tensor<4xi32>
  %ps = kite.splat %p : !kite.ptr<i32> -> tensor<4x!kite.ptr<i32>>
  %pp = kite.addptr %ps, %r : tensor<4x!kite.ptr<i32>>, tensor<4xi32>
  kite.store %pp, %s : tensor<4x!kite.ptr<i32>>
  return
}
