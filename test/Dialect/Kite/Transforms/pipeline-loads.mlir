// RUN: kite-opt %examples/matmul.mlir --kite-to-ptx=stop-after=kite | kite-opt --kite-pipeline-loads | FileCheck %s
// The tutorial matmul's K loop: the loads of iteration k+1 are issued
// before the dot of iteration k and carried; the first iteration's loads
// move before the loop, guarded by "the loop runs"; the extra last loads are
// masked off by "k + step < upper bound".

// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %c0_i32, %[[UB:.*]] : i32
// CHECK: %[[G0:.*]] = kite.splat %[[RUNS]] : i1 -> tensor<64x32xi1>
// CHECK: %[[M0:.*]] = arith.andi %{{.*}}, %[[G0]] : tensor<64x32xi1>
// CHECK: %[[A0:.*]] = kite.load %{{.*}}, %[[M0]], %{{.*}} : tensor<64x32x!kite.ptr<f32>>
// CHECK: %[[B0:.*]] = kite.load %{{.*}} : tensor<32x64x!kite.ptr<f32>>
// CHECK: scf.for %[[K:.*]] = %c0_i32 to %[[UB]] step %c1_i32 iter_args(%[[ACC:.*]] = %{{.*}}, %[[AP:.*]] = %{{.*}}, %[[BP:.*]] = %{{.*}}, %[[A:.*]] = %[[A0]], %[[B:.*]] = %[[B0]])
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %c1_i32 : i32
// CHECK: %[[APN:.*]] = kite.addptr %[[AP]]
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[UB]] : i32
// CHECK: %[[AN:.*]] = kite.load %[[APN]]
// CHECK: %[[BN:.*]] = kite.load
// CHECK: %[[D:.*]] = kite.dot %[[A]], %[[B]], %[[ACC]]
// CHECK: scf.yield %[[D]], %{{.*}}, %{{.*}}, %[[AN]], %[[BN]]

// The transformation keeps the results: the interpreter gives the same bits
// with and without it (ragged M, N, K over several programs and iterations).
// RUN: kite-opt %examples/matmul.mlir --kite-to-ptx=stop-after=kite | kite-opt --kite-pipeline-loads > %t.pipelined.mlir
// RUN: kite-run %examples/matmul.kite --grid 6 a_ptr=randn:15000:1 b_ptr=randn:8000:2 c_ptr=zeros:12000 M=150 N=80 K=100 stride_am=100 stride_ak=1 stride_bk=80 stride_bn=1 stride_cm=80 stride_cn=1 --save c_ptr=%t.plain
// RUN: kite-run %t.pipelined.mlir --grid 6 a_ptr=randn:15000:1 b_ptr=randn:8000:2 c_ptr=zeros:12000 M=150 N=80 K=100 stride_am=100 stride_ak=1 stride_bk=80 stride_bn=1 stride_cm=80 stride_cn=1 --save c_ptr=%t.pipelined
// RUN: cmp %t.plain %t.pipelined
