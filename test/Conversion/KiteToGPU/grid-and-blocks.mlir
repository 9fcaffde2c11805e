// RUN: kite-opt %s -convert-kite-to-gpu -split-input-file -verify-diagnostics | FileCheck %s
// RUN: kite-opt %s -convert-kite-to-gpu="fp-fusion=false" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=NOFUSE

// Kernels move into a gpu.module; blocks become per-thread vectors.
// CHECK-LABEL: gpu.module @kite
// CHECK: gpu.func @grid(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
func.func @grid(%p: !kite.ptr<i32>, %n: i32) attributes {kite.kernel, kite.num_warps = 8 : i32} {
  // CHECK: gpu.block_id x
  // CHECK: arith.index_castui %{{.*}} : index to i32
  %0 = kite.program_id 0
  // CHECK: gpu.grid_dim y
  %1 = kite.num_programs 1
  // CHECK: gpu.block_id z
  %2 = kite.program_id 2
  %s = arith.addi %0, %1 : i32
  %t = arith.addi %s, %2 : i32
  kite.store %p, %t : !kite.ptr<i32>
  // CHECK: gpu.return
  return
}

// -----

// arange over 1024 elements and 128 threads: 8 per thread in two chunks of 4.
// CHECK-LABEL: gpu.func @arange
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[T:.*]] = arith.index_castui %[[TID]] : index to i32
// CHECK: %[[BASE:.*]] = arith.muli %[[T]], %c4_i32 : i32
// CHECK: arith.constant dense<[0, 1, 2, 3, 512, 513, 514, 515]> : vector<8xi32>
// CHECK: vector.broadcast %{{.*}} : i32 to vector<8xi32>
// CHECK: arith.addi %{{.*}} : vector<8xi32>
func.func @arange(%p: !kite.ptr<i32>) attributes {kite.kernel} {
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %ps = kite.splat %p : !kite.ptr<i32> -> tensor<1024x!kite.ptr<i32>>
  %pp = kite.addptr %ps, %r : tensor<1024x!kite.ptr<i32>>, tensor<1024xi32>
  kite.store %pp, %r : tensor<1024x!kite.ptr<i32>>
  return
}

// -----

// Blocks smaller than the thread count are replicated: thread t holds
// element t mod 64, and only threads t < 64 store (the thread bit that
// moves no element is 0).
// CHECK-LABEL: gpu.func @small
// CHECK: arith.remui %{{.*}}, %c64_i32 : i32
// CHECK: %[[HI:.*]] = arith.andi %{{.*}}, %c64_i32{{.*}} : i32
// CHECK: arith.cmpi eq, %[[HI]], %c0_i32{{.*}} : i32
// CHECK: "{ .reg .pred %kp; setp.ne.b32 %kp, $0, 0; @%kp st.global.b32 [$1], $2; }", "r,l,r"
func.func @small(%p: !kite.ptr<i32>) attributes {kite.kernel} {
  %r = kite.arange 0, 64 : tensor<64xi32>
  %ps = kite.splat %p : !kite.ptr<i32> -> tensor<64x!kite.ptr<i32>>
  %pp = kite.addptr %ps, %r : tensor<64x!kite.ptr<i32>>, tensor<64xi32>
  kite.store %pp, %r : tensor<64x!kite.ptr<i32>>
  return
}

// -----

// Elementwise arith/math on blocks keep their op and take vector types
// (f32 exp: x * log2(e), then ex2.approx per register, as Triton's tl.exp);
// splat constants become vector constants; expand_dims is free. Float
// multiplies, adds and subtracts may fuse into fma (fastmath<contract>,
// Triton's enable_fp_fusion) unless fp-fusion=false.
// CHECK-LABEL: gpu.func @elementwise
// CHECK-SAME: %[[X:.*]]: f32
// CHECK: %[[S:.*]] = vector.broadcast %[[X]] : f32 to vector<2xf32>
// CHECK: arith.mulf %[[S]], %[[S]] fastmath<contract> : vector<2xf32>
// NOFUSE-LABEL: gpu.func @elementwise
// NOFUSE: arith.mulf %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: %[[LOG2E:.*]] = vector.broadcast %{{.*}} : f32 to vector<2xf32>
// CHECK: %[[T:.*]] = arith.mulf %{{.*}}, %[[LOG2E]] : vector<2xf32>
// CHECK: %[[T0:.*]] = vector.extract %[[T]][0]
// CHECK: llvm.inline_asm "ex2.approx.f32 $0, $1;", "=f,f" %[[T0]]
// CHECK: %[[T1:.*]] = vector.extract %[[T]][1]
// CHECK: llvm.inline_asm "ex2.approx.f32 $0, $1;", "=f,f" %[[T1]]
// CHECK: vector.from_elements
// CHECK: arith.constant dense<1.000000e+00> : vector<2xf32>
// CHECK: arith.cmpf ogt, %{{.*}} : vector<2xf32>
// CHECK: arith.select %{{.*}} : vector<2xi1>, vector<2xf32>
// CHECK: arith.fptosi %{{.*}} : vector<2xf32> to vector<2xi32>
func.func @elementwise(%x: f32, %p: !kite.ptr<i32>) attributes {kite.kernel, kite.num_warps = 1 : i32} {
  %s = kite.splat %x : f32 -> tensor<64xf32>
  %m = arith.mulf %s, %s : tensor<64xf32>
  %e = math.exp %m : tensor<64xf32>
  %one = arith.constant dense<1.0> : tensor<64xf32>
  %c = arith.cmpf ogt, %e, %one : tensor<64xf32>
  %w = arith.select %c, %e, %one : tensor<64xi1>, tensor<64xf32>
  %i = arith.fptosi %w : tensor<64xf32> to tensor<64xi32>
  %i2 = kite.expand_dims %i axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %r = kite.arange 0, 64 : tensor<64xi32>
  %r2 = kite.expand_dims %r axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ps = kite.splat %p : !kite.ptr<i32> -> tensor<64x1x!kite.ptr<i32>>
  %pp = kite.addptr %ps, %r2 : tensor<64x1x!kite.ptr<i32>>, tensor<64x1xi32>
  kite.store %pp, %i2 : tensor<64x1x!kite.ptr<i32>>
  return
}

// -----

// Constexpr parameters are bound before lowering and are not GPU parameters.
// CHECK-LABEL: gpu.func @constexpr
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1>)
func.func @constexpr(%p: !kite.ptr<f32>, %b: i32 {kite.constexpr}) attributes {kite.kernel} {
  return
}

// -----

func.func @used_constexpr(%p: !kite.ptr<i32>, %b: i32 {kite.constexpr}) attributes {kite.kernel} {
  // expected-error @-1 {{constexpr parameter #1 is still used as a value; bind it to a constant before lowering}}
  kite.store %p, %b : !kite.ptr<i32>
  return
}

// -----

func.func @nonsplat(%p: !kite.ptr<i32>) attributes {kite.kernel} {
  // expected-error @+2 {{failed to legalize operation 'arith.constant'}}
  // expected-error @+1 {{only splat block constants are supported by the GPU lowering}}
  %c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
  %ps = kite.splat %p : !kite.ptr<i32> -> tensor<4x!kite.ptr<i32>>
  %pp = kite.addptr %ps, %c : tensor<4x!kite.ptr<i32>>, tensor<4xi32>
  kite.store %pp, %c : tensor<4x!kite.ptr<i32>>
  return
}

// -----

func.func @helper(%p: !kite.ptr<f32>) {
  return
}
func.func @calls(%p: !kite.ptr<f32>) attributes {kite.kernel} {
  // expected-error @+1 {{calls 'helper', but kernels cannot call functions on the GPU; inline it first (-inline)}}
  func.call @helper(%p) : (!kite.ptr<f32>) -> ()
  return
}
