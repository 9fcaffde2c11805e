// RUN: kite-opt %examples/matmul.mlir --kite-to-ptx=stop-after=kite | kite-opt --kite-rematerialize-broadcasts --kite-carry-pointer-offsets --canonicalize --kite-stage-dot-operands --canonicalize --cse | FileCheck %s
// The tutorial matmul's K loop: its A and B loads become asynchronous
// copies into three staging slots, two iterations ahead. The prologue
// stages iterations 0 and 1 (slots 0 and 1), each iteration waits for its
// own block, stages iteration k + 2 into slot (k + 2) % 3 and computes on
// slot k % 3; a final wait drains the copies past the end. The two slot
// numbers go around the loop as iteration arguments (from 0 and 2), each
// stepping by one and wrapping at 3: no remainder in the loop.

// CHECK-NOT: kite.load
// CHECK: kite.async_stage %{{.*}}, %{{.*}} slot %c0_i32 operand 0 dot [64, 64, 32] : tensor<64x32x!kite.ptr<f32>>, tensor<64x32xi1>
// CHECK: kite.async_stage %{{.*}}, %{{.*}} slot %c0_i32 operand 1 dot [64, 64, 32] : tensor<32x64x!kite.ptr<f32>>, tensor<32x64xi1>
// CHECK-NEXT: kite.async_commit
// CHECK: kite.async_stage %{{.*}}, %{{.*}} slot %c1_i32 operand 0
// CHECK: kite.async_stage %{{.*}}, %{{.*}} slot %c1_i32 operand 1
// CHECK-NEXT: kite.async_commit
// CHECK: scf.for %[[K:.*]] = %c0_i32 to %[[UB:.*]] step %c1_i32 iter_args({{.*}}, %[[NOW:.*]] = %c0_i32, %[[AHEAD:.*]] = %c2_i32) -> (tensor<64x64xf32>, i64, i64, i32, i32)
// CHECK-NEXT: kite.async_wait 1
// CHECK-NOT: arith.remsi
// CHECK-DAG: %[[K2:.*]] = arith.addi %[[K]], %c2_i32 : i32
// CHECK-DAG: %[[MORE:.*]] = arith.cmpi slt, %[[K2]], %[[UB]] : i32
// CHECK: kite.async_stage %{{.*}}, %{{.*}} slot %[[AHEAD]] operand 0
// CHECK: kite.async_stage %{{.*}}, %{{.*}} slot %[[AHEAD]] operand 1
// CHECK-NEXT: kite.async_commit
// CHECK-NEXT: %[[D:.*]] = kite.dot_staged %{{.*}} slot %[[NOW]] of 3 k 32 : tensor<64x64xf32>
// CHECK-NOT: kite.load
// CHECK-DAG: %[[N1:.*]] = arith.addi %[[NOW]], %c1_i32 : i32
// CHECK-DAG: %[[W1:.*]] = arith.cmpi eq, %[[N1]], %c3_i32 : i32
// CHECK-DAG: %[[S1:.*]] = arith.select %[[W1]], %c0_i32, %[[N1]] : i32
// CHECK-DAG: %[[N2:.*]] = arith.addi %[[AHEAD]], %c1_i32 : i32
// CHECK-DAG: %[[W2:.*]] = arith.cmpi eq, %[[N2]], %c3_i32 : i32
// CHECK-DAG: %[[S2:.*]] = arith.select %[[W2]], %c0_i32, %[[N2]] : i32
// CHECK: scf.yield %[[D]], %{{.*}}, %{{.*}}, %[[S1]], %[[S2]]
// CHECK: kite.async_wait 0

// A loaded block with another user, or a layout without the register-tiled
// dot, keeps its loads.
// RUN: kite-opt %s --kite-stage-dot-operands | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: func.func @other_user
// KEEP-NOT: kite.async_stage
// KEEP: kite.load
// KEEP: kite.dot
// KEEP-LABEL: func.func @tiny
// KEEP-NOT: kite.async_stage
// KEEP: kite.dot
func.func @other_user(%a: !kite.ptr<f32>, %n: i32) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %as = kite.splat %a : !kite.ptr<f32> -> tensor<64x32x!kite.ptr<f32>>
  %bs = kite.splat %a : !kite.ptr<f32> -> tensor<32x64x!kite.ptr<f32>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %x = kite.load %as : tensor<64x32x!kite.ptr<f32>>
    %y = kite.load %bs : tensor<32x64x!kite.ptr<f32>>
    kite.store %as, %x : tensor<64x32x!kite.ptr<f32>>
    %d = kite.dot %x, %y, %acc : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cs = kite.splat %a : !kite.ptr<f32> -> tensor<64x64x!kite.ptr<f32>>
  kite.store %cs, %r : tensor<64x64x!kite.ptr<f32>>
  return
}
func.func @tiny(%a: !kite.ptr<f32>, %n: i32) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<2x2xf32>
  %as = kite.splat %a : !kite.ptr<f32> -> tensor<2x2x!kite.ptr<f32>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<2x2xf32>) : i32 {
    %x = kite.load %as : tensor<2x2x!kite.ptr<f32>>
    %y = kite.load %as : tensor<2x2x!kite.ptr<f32>>
    %d = kite.dot %x, %y, %acc : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
    scf.yield %d : tensor<2x2xf32>
  }
  %cs = kite.splat %a : !kite.ptr<f32> -> tensor<2x2x!kite.ptr<f32>>
  kite.store %cs, %r : tensor<2x2x!kite.ptr<f32>>
  return
}

// num_stages = 2: one block in flight, waits for all; 1: nothing staged.
// RUN: sed -e 's/kite.num_stages = 3 : i32, kite.num_warps = 4 : i32/kite.num_stages = 2 : i32, kite.num_warps = 4 : i32/' %examples/matmul.mlir | kite-opt --kite-to-ptx=stop-after=kite | kite-opt --kite-carry-pointer-offsets --canonicalize --kite-stage-dot-operands --canonicalize --cse | FileCheck %s --check-prefix=TWO
// TWO: kite.async_stage %{{.*}} slot %c0_i32 operand 0
// TWO: kite.async_commit
// TWO-NOT: kite.async_stage %{{.*}} slot %c1_i32
// TWO: scf.for %[[K:.*]] = %c0_i32 {{.*}}, %[[NOW:.*]] = %c0_i32, %[[AHEAD:.*]] = %c1_i32)
// TWO-NEXT: kite.async_wait 0
// TWO: kite.async_stage %{{.*}} slot %[[AHEAD]] operand 0
// TWO: kite.dot_staged %{{.*}} slot %[[NOW]] of 2 k 32
// TWO: arith.cmpi eq, %{{.*}}, %c2_i32 : i32
// RUN: sed -e 's/kite.num_stages = 3 : i32, kite.num_warps = 4 : i32/kite.num_stages = 1 : i32, kite.num_warps = 4 : i32/' %examples/matmul.mlir | kite-opt --kite-to-ptx=stop-after=kite | kite-opt --kite-stage-dot-operands | FileCheck %s --check-prefix=ONE
// ONE-NOT: kite.async_stage
// ONE: kite.dot
