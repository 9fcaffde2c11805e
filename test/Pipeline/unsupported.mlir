// IR the lowering cannot handle gets a diagnostic naming the op, through
// kitec, and exit code 1.
// RUN: not kitec %s 2>&1 | FileCheck %s

// CHECK: unsupported.mlir:9:8: error: 'kite.reduce' op is not supported by the GPU lowering yet (1-D blocks only; dot and reductions need 2-D layouts, which are not built yet)
func.func @k(%p: !kite.ptr<f32>) attributes {kite.kernel} {
  %r = kite.arange 0, 16 : tensor<16xi32>
  %f = arith.sitofp %r : tensor<16xi32> to tensor<16xf32>
  %s = kite.reduce sum %f axis 0 : tensor<16xf32> -> f32
  kite.store %p, %s : !kite.ptr<f32>
  return
}
