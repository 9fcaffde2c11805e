// RUN: kite-opt %s -convert-kite-to-gpu -verify-diagnostics

// Too much shared memory is an error naming the kernel and the sizes.
// expected-error @+1 {{kernel 'huge' needs 65536 bytes of shared memory to exchange data between threads (at most 49152); use smaller blocks}}
func.func @huge(%p: !kite.ptr<f32>) attributes {kite.kernel} {
  %r = kite.arange 0, 16384 : tensor<16384xi32>
  %f = arith.sitofp %r : tensor<16384xi32> to tensor<16384xf32>
  %s = kite.reduce sum %f axis 0 : tensor<16384xf32> -> f32
  kite.store %p, %s : !kite.ptr<f32>
  return
}
