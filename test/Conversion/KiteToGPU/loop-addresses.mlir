// RUN: kite-opt %s -convert-kite-to-gpu -split-input-file | FileCheck %s

// A K loop's pointer block as a carried scalar base plus offsets fixed
// outside the loop, the offsets a row term (k * stride) plus a column term
// ((n0 + n) % N: no contiguity): each address is formed at the access from
// the two terms (add.s32, mad.wide.s32 by the element size), in asm LLVM
// does not hoist, so that a thread keeps its 2 row and 8 column terms
// across the loop rather than 16 hoisted 64-bit addresses.
// CHECK-LABEL: gpu.func @row_plus_column
// CHECK: scf.for
// CHECK: llvm.inline_asm "{ .reg .b32 %ko; add.s32 %ko, $1, $2; mad.wide.s32 $0, %ko, 2, $3; }", "=l,r,r,l"
// CHECK: ld.global.b16
// CHECK: scf.yield
func.func @row_plus_column(%b: !kite.ptr<f16>, %out: !kite.ptr<f16>, %stride: i32, %n: i32, %iters: i32)
    attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %pid = kite.program_id 0
  %n0 = arith.muli %pid, %c32 : i32
  %k = kite.arange 0, 32 : tensor<32xi32>
  %k2 = kite.expand_dims %k axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %kb = kite.broadcast %k2 : tensor<32x1xi32> -> tensor<32x64xi32>
  %sb = kite.splat %stride : i32 -> tensor<32x64xi32>
  %row = arith.muli %kb, %sb : tensor<32x64xi32>
  %c = kite.arange 0, 64 : tensor<64xi32>
  %c2 = kite.expand_dims %c axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = kite.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %n0b = kite.splat %n0 : i32 -> tensor<32x64xi32>
  %nb = kite.splat %n : i32 -> tensor<32x64xi32>
  %cs = arith.addi %n0b, %cb : tensor<32x64xi32>
  %col = arith.remsi %cs, %nb : tensor<32x64xi32>
  %offs = arith.addi %row, %col : tensor<32x64xi32>
  %mask = arith.cmpi slt, %kb, %nb : tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<32x64xf16>
  %r = scf.for %i = %c0 to %iters step %c1 iter_args(%acc = %zero) -> (tensor<32x64xf16>) : i32 {
    %step = arith.muli %i, %stride : i32
    %p = kite.addptr %b, %step : !kite.ptr<f16>, i32
    %ps = kite.splat %p : !kite.ptr<f16> -> tensor<32x64x!kite.ptr<f16>>
    %ptrs = kite.addptr %ps, %offs : tensor<32x64x!kite.ptr<f16>>, tensor<32x64xi32>
    %v = kite.load %ptrs, %mask, %zero : tensor<32x64x!kite.ptr<f16>>
    %s = arith.addf %acc, %v : tensor<32x64xf16>
    scf.yield %s : tensor<32x64xf16>
  }
  %os = kite.splat %out : !kite.ptr<f16> -> tensor<32x64x!kite.ptr<f16>>
  %op = kite.addptr %os, %offs : tensor<32x64x!kite.ptr<f16>>, tensor<32x64xi32>
  kite.store %op, %r : tensor<32x64x!kite.ptr<f16>>
  return
}

// -----

// The same offsets outside a loop, and a single-term offset in a loop:
// LLVM's own address arithmetic (nothing to keep live across a loop, or no
// terms to keep instead of the sums).
// CHECK-LABEL: gpu.func @single_term
// CHECK-NOT: mad.wide
// CHECK: gpu.return
func.func @single_term(%b: !kite.ptr<f16>, %out: !kite.ptr<f16>, %stride: i32, %n: i32, %iters: i32)
    attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %k = kite.arange 0, 32 : tensor<32xi32>
  %k2 = kite.expand_dims %k axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %kb = kite.broadcast %k2 : tensor<32x1xi32> -> tensor<32x64xi32>
  %sb = kite.splat %stride : i32 -> tensor<32x64xi32>
  %row = arith.muli %kb, %sb : tensor<32x64xi32>
  %nb = kite.splat %n : i32 -> tensor<32x64xi32>
  %mask = arith.cmpi slt, %kb, %nb : tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<32x64xf16>
  %r = scf.for %i = %c0 to %iters step %c1 iter_args(%acc = %zero) -> (tensor<32x64xf16>) : i32 {
    %step = arith.muli %i, %stride : i32
    %p = kite.addptr %b, %step : !kite.ptr<f16>, i32
    %ps = kite.splat %p : !kite.ptr<f16> -> tensor<32x64x!kite.ptr<f16>>
    %ptrs = kite.addptr %ps, %row : tensor<32x64x!kite.ptr<f16>>, tensor<32x64xi32>
    %v = kite.load %ptrs, %mask, %zero : tensor<32x64x!kite.ptr<f16>>
    %s = arith.addf %acc, %v : tensor<32x64xf16>
    scf.yield %s : tensor<32x64xf16>
  }
  %c = kite.arange 0, 64 : tensor<64xi32>
  %c2 = kite.expand_dims %c axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = kite.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %col = arith.remsi %cb, %nb : tensor<32x64xi32>
  %offs = arith.addi %row, %col : tensor<32x64xi32>
  %os = kite.splat %out : !kite.ptr<f16> -> tensor<32x64x!kite.ptr<f16>>
  %op = kite.addptr %os, %offs : tensor<32x64x!kite.ptr<f16>>, tensor<32x64xi32>
  kite.store %op, %r, %mask : tensor<32x64x!kite.ptr<f16>>
  return
}
