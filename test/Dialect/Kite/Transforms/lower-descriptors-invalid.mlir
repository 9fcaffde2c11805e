// RUN: not kite-opt %s --kite-lower-descriptors 2>&1 | FileCheck %s
// A descriptor that the kernel receives as a parameter (not yet supported
// outside the TMA staging) is a located error, not a crash.

// CHECK: lower-descriptors-invalid.mlir:7:8: error: 'kite.descriptor_load' op reads a descriptor that is not made in the kernel
func.func @param(%d: !kite.tensordesc<tensor<16x16xf32>>, %i: i32) attributes {kite.kernel} {
  %x = kite.descriptor_load %d[%i, %i] : !kite.tensordesc<tensor<16x16xf32>> -> tensor<16x16xf32>
  return
}
