// RUN: kite-opt %s -convert-kite-to-gpu -split-input-file | FileCheck %s
// kite.reduce in the hardware's steps (AxisOpsToGPU.cpp): registers within a
// thread, butterfly shuffles across the lanes that hold the axis, and one
// exchange of per-warp partials through shared memory only when warps hold
// parts of the axis (or the result's layout needs other threads' partials).

// 16 elements over 128 threads (replicated: lane l holds element l mod 16):
// four shuffles (lane bits 0-3), none for lane bit 4 or the warps (copies),
// and no shared memory.
// CHECK-LABEL: gpu.func @small
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-4: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @small(%p: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %r = kite.arange 0, 16 : tensor<16xi32>
  %f = arith.sitofp %r : tensor<16xi32> to tensor<16xf32>
  %s = kite.reduce sum %f axis 0 : tensor<16xf32> -> f32
  kite.store %p, %s : !kite.ptr<f32>
  return
}

// -----

// 1024 elements over 4 warps (8 per thread): 7 maxima within the thread, 5
// shuffles, then the 4 warps' partials through shared memory: one store per
// thread between two barriers, 4 loads, 3 maxima.
// CHECK-LABEL: gpu.func @whole
// CHECK-COUNT-7: arith.maximumf %{{.*}} : f32
// CHECK-COUNT-5: nvvm.shfl.sync bfly %{{.*}} : i32 -> i32
// CHECK: gpu.barrier
// CHECK-COUNT-1: llvm.store
// CHECK-NOT: llvm.store
// CHECK: gpu.barrier
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load {{.*}}!llvm.ptr<3>
// CHECK: gpu.return
func.func @whole(%p: !kite.ptr<f32>, %q: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %ps = kite.splat %q : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %r : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  %x = kite.load %pp : tensor<1024x!kite.ptr<f32>>
  %s = kite.reduce max %x axis 0 : tensor<1024xf32> -> f32
  kite.store %p, %s : !kite.ptr<f32>
  return
}

// -----

// argmax carries the index: two shuffles (value, index) per lane step, and
// the index (i32) beside the value in the exchange of the warps.
// CHECK-LABEL: gpu.func @argmax
// CHECK-COUNT-10: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: gpu.barrier
func.func @argmax(%p: !kite.ptr<i32>, %q: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 2 : i32} {
  %r = kite.arange 0, 256 : tensor<256xi32>
  %ps = kite.splat %q : !kite.ptr<f32> -> tensor<256x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %r : tensor<256x!kite.ptr<f32>>, tensor<256xi32>
  %x = kite.load %pp : tensor<256x!kite.ptr<f32>>
  %s = kite.reduce argmax %x axis 0 : tensor<256xf32> -> i32
  kite.store %p, %s : !kite.ptr<i32>
  return
}

// -----

// Rows of a 32x32 block on one warp (4 consecutive columns per lane, 8
// lanes per row, 8 rows per lane): along axis 1, 3 shuffles (lane bits 0-2)
// for each of the 8 rows; the row sums sit in the lanes that hold rows
// l/8 + 4k while the result's layout puts row l in lane l, so they pass
// through shared memory once (a store per row partial, a load per result
// register).
// CHECK-LABEL: gpu.func @rows
// CHECK-COUNT-24: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-1: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load {{.*}}!llvm.ptr<3>
// CHECK: gpu.return
func.func @rows(%p: !kite.ptr<f32>, %q: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 1 : i32} {
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %ps = kite.splat %q : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %r : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
  %x = kite.load %pp : tensor<1024x!kite.ptr<f32>>
  %x2 = kite.reshape %x : tensor<1024xf32> -> tensor<32x32xf32>
  %s = kite.reduce sum %x2 axis 1 : tensor<32x32xf32> -> tensor<32xf32>
  %o = kite.arange 0, 32 : tensor<32xi32>
  %os = kite.splat %p : !kite.ptr<f32> -> tensor<32x!kite.ptr<f32>>
  %op = kite.addptr %os, %o : tensor<32x!kite.ptr<f32>>, tensor<32xi32>
  kite.store %op, %s : tensor<32x!kite.ptr<f32>>
  return
}

// -----

// Columns of the same block: axis 0 lies in the registers (8 rows per lane:
// 7 xors per column) and in lane bits 3-4 (2 shuffles for each of the 4
// columns); each lane then holds its 4 columns' results, which the result's
// layout of 32 elements on 32 lanes does not match: one exchange.
// CHECK-LABEL: gpu.func @cols
// CHECK-COUNT-8: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NOT: nvvm.shfl.sync
// CHECK: gpu.barrier
// CHECK-COUNT-4: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: gpu.barrier
func.func @cols(%p: !kite.ptr<i32>, %q: !kite.ptr<i32>) attributes {kite.kernel, kite.num_warps = 1 : i32} {
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %ps = kite.splat %q : !kite.ptr<i32> -> tensor<1024x!kite.ptr<i32>>
  %pp = kite.addptr %ps, %r : tensor<1024x!kite.ptr<i32>>, tensor<1024xi32>
  %x = kite.load %pp : tensor<1024x!kite.ptr<i32>>
  %x2 = kite.reshape %x : tensor<1024xi32> -> tensor<32x32xi32>
  %s = kite.reduce xor %x2 axis 0 : tensor<32x32xi32> -> tensor<32xi32>
  %o = kite.arange 0, 32 : tensor<32xi32>
  %os = kite.splat %p : !kite.ptr<i32> -> tensor<32x!kite.ptr<i32>>
  %op = kite.addptr %os, %o : tensor<32x!kite.ptr<i32>>, tensor<32xi32>
  kite.store %op, %s : tensor<32x!kite.ptr<i32>>
  return
}

// -----

// The scratch buffer holds the warps' partials only: 65536 elements on 4
// warps reduce through 4 floats (16 bytes), not the block's 256 KB.
// CHECK: llvm.mlir.global internal @kite_smem_huge() {{.*}} : !llvm.array<16 x i8>
// CHECK-LABEL: gpu.func @huge
func.func @huge(%p: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %r = kite.arange 0, 65536 : tensor<65536xi32>
  %f = arith.sitofp %r : tensor<65536xi32> to tensor<65536xf32>
  %s = kite.reduce sum %f axis 0 : tensor<65536xf32> -> f32
  kite.store %p, %s : !kite.ptr<f32>
  return
}

// -----

// Within a thread (8 registers here) maxima combine pairwise, a tree of
// depth 3 (any order gives the same maximum), float sums one after another
// in register order (Triton's rounding).
// CHECK-LABEL: gpu.func @orders
// CHECK:      %[[A:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[B:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[C:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[D:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[AB:.*]] = arith.maximumf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[CD:.*]] = arith.maximumf %[[C]], %[[D]] : f32
// CHECK-NEXT: arith.maximumf %[[AB]], %[[CD]] : f32
// CHECK:      %[[S1:.*]] = arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S1]], %{{.*}} fastmath<contract> : f32
// CHECK-NEXT: arith.addf %[[S2]], %{{.*}} fastmath<contract> : f32
func.func @orders(%p: !kite.ptr<f32>, %q: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  %f = arith.sitofp %r : tensor<1024xi32> to tensor<1024xf32>
  %m = kite.reduce max %f axis 0 : tensor<1024xf32> -> f32
  kite.store %p, %m : !kite.ptr<f32>
  %s = kite.reduce sum %f axis 0 : tensor<1024xf32> -> f32
  kite.store %q, %s : !kite.ptr<f32>
  return
}
