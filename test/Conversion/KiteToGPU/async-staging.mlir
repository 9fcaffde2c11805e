// RUN: kite-opt %s -convert-kite-to-gpu=num-warps=8 | FileCheck %s
// The asynchronous staging ops of kite-stage-dot-operands: cp.async of A
// element by element (A is staged k-major and swizzled: 4-byte copies,
// cache = ca) and of B in 16-byte groups where the pointers are proved
// contiguous and aligned (masked-off copies read 0 source bytes: zero
// fill), commit, wait + barrier, and the register-tiled product from the
// slot: per k, one 16-byte load of each 4-row group of A and of each
// 4-column group of B (the 128x128 result on 8 warps has 8x8 tiles, whose
// A is staged k-major). Three 34816-byte slots (room for a row-major A's
// padded rows) exceed the 48 KB of static shared memory: the buffer is
// dynamic and its size recorded on the module for the PTX and the runtime.

// CHECK: module attributes {gpu.container_module, kite.dynamic_shared_memory = {staged = 104448 : i64}, kite.shared_memory = {staged = 104448 : i64}}
// CHECK: llvm.mlir.global external @kite_smem_staged() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: gpu.func @staged
// A's swizzle: the row group XOR (k / 4) mod 4.
// CHECK: %[[SWZ:.*]] = arith.andi %{{.*}}, %c3_i32{{.*}} : i32
// CHECK: arith.xori %{{.*}}, %[[SWZ]] : i32
// CHECK: %[[AON:.*]] = arith.select %{{.*}}, %c4_i32{{.*}}, %c0_i32{{.*}} : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache = ca, %[[AON]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NOT: cp.async.shared.global %{{.*}}, %{{.*}}, 16
// CHECK: %[[BON:.*]] = arith.select %{{.*}}, %c16_i32{{.*}}, %c0_i32{{.*}} : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[BON]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NOT: cp.async.shared.global %{{.*}}, %{{.*}}, 4,
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: math.fma %{{.*}} : vector<4xf32>
func.func @staged(%a: !kite.ptr<f32> {kite.divisibility = 16 : i32}, %b: !kite.ptr<f32> {kite.divisibility = 16 : i32}, %c: !kite.ptr<f32>, %n: i32 {kite.divisibility = 16 : i32}) attributes {kite.kernel} {
  %slot = arith.constant 1 : i32
  %rm = kite.arange 0, 128 : tensor<128xi32>
  %rk = kite.arange 0, 32 : tensor<32xi32>
  %m = kite.expand_dims %rm axis 1 : tensor<128xi32> -> tensor<128x1xi32>
  %k = kite.expand_dims %rk axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %c32 = arith.constant dense<32> : tensor<128x32xi32>
  %mr = kite.broadcast %m : tensor<128x1xi32> -> tensor<128x32xi32>
  %mb = arith.muli %mr, %c32 : tensor<128x32xi32>
  %kb = kite.broadcast %k : tensor<1x32xi32> -> tensor<128x32xi32>
  %off = arith.addi %mb, %kb : tensor<128x32xi32>
  %as = kite.splat %a : !kite.ptr<f32> -> tensor<128x32x!kite.ptr<f32>>
  %ap = kite.addptr %as, %off : tensor<128x32x!kite.ptr<f32>>, tensor<128x32xi32>
  %ns = kite.splat %n : i32 -> tensor<128x32xi32>
  %mask = arith.cmpi slt, %kb, %ns : tensor<128x32xi32>
  kite.async_stage %ap, %mask slot %slot operand 0 dot [128, 128, 32] : tensor<128x32x!kite.ptr<f32>>, tensor<128x32xi1>
  %rn = kite.arange 0, 128 : tensor<128xi32>
  %kc = kite.expand_dims %rk axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %nr = kite.expand_dims %rn axis 0 : tensor<128xi32> -> tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<32x128xi32>
  %kbb = kite.broadcast %kc : tensor<32x1xi32> -> tensor<32x128xi32>
  %kr = arith.muli %kbb, %c128 : tensor<32x128xi32>
  %nb = kite.broadcast %nr : tensor<1x128xi32> -> tensor<32x128xi32>
  %boff = arith.addi %kr, %nb : tensor<32x128xi32>
  %bs = kite.splat %b : !kite.ptr<f32> -> tensor<32x128x!kite.ptr<f32>>
  %bp = kite.addptr %bs, %boff : tensor<32x128x!kite.ptr<f32>>, tensor<32x128xi32>
  %nsb = kite.splat %n : i32 -> tensor<32x128xi32>
  %bmask = arith.cmpi slt, %kbb, %nsb : tensor<32x128xi32>
  kite.async_stage %bp, %bmask slot %slot operand 1 dot [128, 128, 32] : tensor<32x128x!kite.ptr<f32>>, tensor<32x128xi1>
  kite.async_commit
  kite.async_wait 1
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = kite.dot_staged %zero slot %slot of 3 k 32 : tensor<128x128xf32>
  %cs = kite.splat %c : !kite.ptr<f32> -> tensor<128x128x!kite.ptr<f32>>
  kite.store %cs, %d : tensor<128x128x!kite.ptr<f32>>
  return
}
