// RUN: kite-opt %s -convert-kite-to-gpu -verify-diagnostics

// Too much shared memory is an error naming the kernel and the sizes
// (beyond 48 KB it is dynamic, up to sm_90's 227 KB per program): a scan
// through shared memory of a 65536-element block. (A reduction of it needs
// only the warps' partials.)
// (The 65536-element block also needs 512 registers a thread: a warning.)
// expected-error @+1 {{kernel 'huge' needs 262144 bytes of shared memory (at most 232448); use smaller blocks}}
func.func @huge(%p: !kite.ptr<f32>) attributes {kite.kernel} {
  // expected-warning @+1 {{this 65536xi32 block needs about 512 registers a thread on 4 warps, more than the 255 a thread has}}
  %r = kite.arange 0, 65536 : tensor<65536xi32>
  %f = arith.sitofp %r : tensor<65536xi32> to tensor<65536xf32>
  %s = kite.scan sum %f axis 0 : tensor<65536xf32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<65536x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %r : tensor<65536x!kite.ptr<f32>>, tensor<65536xi32>
  kite.store %pp, %s : tensor<65536x!kite.ptr<f32>>
  return
}
