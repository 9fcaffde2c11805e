// RUN: kite-opt %s -convert-kite-to-gpu | FileCheck %s
// RUN: kite-opt %s -convert-kite-to-gpu -canonicalize | FileCheck %s --check-prefix=COUNT

// Philox4x32-10: the key is the sign-extended seed. Words that depend only
// on the seed (round keys, round 2's product of the key) are computed once
// in IR; the rest of the rounds are one PTX block per register of the
// offsets (8 here), with one mul.wide.u32 per multiply and one lop3.b32 per
// three-way xor, taking the counter word and the uniform words as operands.
// rand maps the word to [0, 1) as Triton does.
// CHECK-LABEL: gpu.func @rand
// CHECK: %[[SEED:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.trunci %[[SEED]] : i64 to i32
// CHECK: arith.shrui %[[SEED]], %c32_i64 : i64
// CHECK: arith.constant -1640531527 : i32
// CHECK: arith.constant -1150833019 : i32
// CHECK: llvm.inline_asm "{ .reg .b64 %t; mul.wide.u32 %t, $2, $3; mov.b64 {$0, $1}, %t; }", "=r,=r,r,r"
// CHECK-COUNT-8: llvm.inline_asm "{\0A\09.reg .b32 %kx<{{[0-9]+}}>;\0A\09.reg .b64 %kw;\0A\09mul.wide.u32 %kw, $1, 3528531795;{{.*}}lop3.b32 %kx{{[0-9]+}}, %kx{{[0-9]+}}, %kx{{[0-9]+}}, ${{[0-9]+}}, 0x96;{{.*}}mov.b32 $0, %kx{{[0-9]+}};\0A\09}", "=r{{(,r)+}}" %{{.*}} : (i32{{(, i32)+}}) -> i32
// CHECK: arith.cmpi slt
// CHECK: arith.sitofp %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: arith.constant dense<4.6566126E-10> : vector<8xf32>
// CHECK: arith.mulf
func.func @rand(%seed: i32, %p: !kite.ptr<f32>) attributes {kite.kernel} {
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %u = kite.rand %seed, %r : i32, tensor<1024xi32> -> tensor<1024xf32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %r : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  kite.store %pp, %u : tensor<1024x!kite.ptr<f32>>
  return
}

// One randint per offset of a 1-element-per-thread block, i64 offsets (the
// high word is a second counter input): round 1 has one multiply (the
// counter's c2 is zero), rounds 2-9 two, and of round 10 only the multiply
// that feeds word 0 survives: 18 wide multiplies, all in the block.
// COUNT-LABEL: gpu.func @randint_count
// COUNT-NOT: mul.wide.u32
// COUNT: llvm.inline_asm "{
// COUNT-COUNT-18: mul.wide.u32 %kw
// COUNT-NOT: mul.wide.u32
func.func @randint_count(%seed: i64, %p: !kite.ptr<i32>) attributes {kite.kernel} {
  %r = kite.arange 0, 128 : tensor<128xi32>
  %r64 = arith.extsi %r : tensor<128xi32> to tensor<128xi64>
  %u = kite.randint %seed, %r64 : i64, tensor<128xi64> -> tensor<128xi32>
  %ps = kite.splat %p : !kite.ptr<i32> -> tensor<128x!kite.ptr<i32>>
  %pp = kite.addptr %ps, %r : tensor<128x!kite.ptr<i32>>, tensor<128xi32>
  kite.store %pp, %u : tensor<128x!kite.ptr<i32>>
  return
}

// Triton's n_rounds (here 7, FlashAttention-2's dropout): the same block
// with fewer rounds: round 1 one multiply, rounds 2-6 two, of round 7 the
// one that feeds word 0: 12.
// COUNT-LABEL: gpu.func @randint_seven_rounds
// COUNT-NOT: mul.wide.u32
// COUNT: llvm.inline_asm "{
// COUNT-COUNT-12: mul.wide.u32 %kw
// COUNT-NOT: mul.wide.u32
func.func @randint_seven_rounds(%seed: i64, %p: !kite.ptr<i32>) attributes {kite.kernel} {
  %r = kite.arange 0, 128 : tensor<128xi32>
  %r64 = arith.extsi %r : tensor<128xi32> to tensor<128xi64>
  %u = kite.randint %seed, %r64 {rounds = 7 : i32} : i64, tensor<128xi64> -> tensor<128xi32>
  %ps = kite.splat %p : !kite.ptr<i32> -> tensor<128x!kite.ptr<i32>>
  %pp = kite.addptr %ps, %r : tensor<128x!kite.ptr<i32>>, tensor<128xi32>
  kite.store %pp, %u : tensor<128x!kite.ptr<i32>>
  return
}
