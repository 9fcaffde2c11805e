// RUN: kite-opt %examples/matmul.mlir --kite-to-ptx=stop-after=kite | kite-opt --kite-carry-pointer-offsets --canonicalize --loop-invariant-code-motion --kite-rebase-narrow-pointers --canonicalize --cse | FileCheck %s
// The tutorial matmul without divisibility facts (4-byte accesses, an
// address an element): after kite-carry-pointer-offsets its K loop reads
// each operand as start + splat(offset), start a loop-invariant block of
// 64-bit pointers. Rebased, the scalar base advances and the i32 offsets
// block is what the loop keeps: addptr(splat(base + offset), offsets).
// CHECK: %[[AOFF:.*]] = arith.addi %{{.*}} : tensor<64x32xi32>
// CHECK: %[[BOFF:.*]] = arith.addi %{{.*}} : tensor<32x64xi32>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[AO:.*]] = %c0_i64, %[[BO:.*]] = %c0_i64)
// CHECK-DAG: %[[ABASE:.*]] = kite.addptr %arg0, %[[AO]] : !kite.ptr<f32>, i64
// CHECK-DAG: %[[AS:.*]] = kite.splat %[[ABASE]] : !kite.ptr<f32> -> tensor<64x32x!kite.ptr<f32>>
// CHECK-DAG: %[[A:.*]] = kite.addptr %[[AS]], %[[AOFF]] : tensor<64x32x!kite.ptr<f32>>, tensor<64x32xi32>
// CHECK-DAG: %[[BBASE:.*]] = kite.addptr %arg1, %[[BO]] : !kite.ptr<f32>, i64
// CHECK-DAG: kite.load %[[A]]

// The same results bit for bit (ragged M, N, K over several programs and
// iterations, in the interpreter).
// RUN: kite-opt %examples/matmul.mlir --kite-to-ptx=stop-after=kite | kite-opt --kite-carry-pointer-offsets --canonicalize --loop-invariant-code-motion --kite-rebase-narrow-pointers --canonicalize --cse > %t.rebased.mlir
// RUN: kite-run %examples/matmul.kite --grid 6 a_ptr=randn:15000:1 b_ptr=randn:8000:2 c_ptr=zeros:12000 M=150 N=80 K=100 stride_am=100 stride_ak=1 stride_bk=80 stride_bn=1 stride_cm=80 stride_cn=1 --save c_ptr=%t.plain
// RUN: kite-run %t.rebased.mlir --grid 6 a_ptr=randn:15000:1 b_ptr=randn:8000:2 c_ptr=zeros:12000 M=150 N=80 K=100 stride_am=100 stride_ak=1 stride_bk=80 stride_bn=1 stride_cm=80 stride_cn=1 --save c_ptr=%t.rebased
// RUN: cmp %t.plain %t.rebased

// 16-byte accesses keep their invariant pointers (few addresses, read by
// cp.async or TMA): with the launch's facts nothing changes.
// RUN: kitec %examples/matmul.kite --specialize=stride_ak=1,stride_bn=1,stride_cn=1,a_ptr=div16,b_ptr=div16,c_ptr=div16,M=div16,N=div16,K=div16,stride_am=div16,stride_bk=div16,stride_cm=div16 --emit=mlir | kite-opt --kite-to-ptx=stop-after=kite > %t.aligned.mlir
// RUN: kite-opt %t.aligned.mlir --kite-carry-pointer-offsets --canonicalize --loop-invariant-code-motion --kite-rebase-narrow-pointers | FileCheck %s --check-prefix=WIDE
// WIDE: scf.for
// WIDE-NOT: kite.addptr %arg0, %{{.*}} : !kite.ptr<f32>, i64
// WIDE: scf.yield

// The odd-size tutorial matmul on sm_90a (f16, 128x128x64, 8 warps, as the
// runtime specializes it for 4095^3: unit strides, aligned bases, nothing
// else): no spills (160 bytes of stack before the rebase).
// REQUIRES: ptxas
// RUN: kitec %kite_src_root/bench/kernels/matmul_tutorial.kite --chip=sm_90a -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=64 --num-warps=8 --num-stages=3 --specialize=stride_ak=1,stride_bn=1,stride_cn=1,a_ptr=div16,b_ptr=div16,c_ptr=div16 -o %t.odd.ptx
// RUN: %ptxas -arch=sm_90a -v %t.odd.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL
// NOSPILL: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// B as an nn.Linear weight (N x K, K contiguous) at odd sizes: the load is
// turned to read K-contiguous runs (kite-stage-dot-operands' orientation
// step takes longer runs where the alignment allows no wider vectors), and
// each run's addresses come from its first (immediate offsets): the
// tutorial's Hopper configurations spill nothing but 128x256x64 (88 bytes;
// 576 to 1152 before, in each of them).
// RUN: kitec %kite_src_root/bench/kernels/matmul_tutorial.kite --chip=sm_90a -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=32 --num-warps=4 --num-stages=4 --specialize=stride_ak=1,stride_bk=1,stride_cn=1,a_ptr=div16,b_ptr=div16,c_ptr=div16 -o %t.nt.ptx
// RUN: %ptxas -arch=sm_90a -v %t.nt.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s --check-prefix=RUNS < %t.nt.ptx
// RUNS: @%kp ld.global.b16 {{%rs[0-9]+}}, [[[FIRST:%rd[0-9]+]]];
// RUNS: @%kp ld.global.b16 {{%rs[0-9]+}}, [[[FIRST]]+2];
// RUN: kitec %kite_src_root/bench/kernels/matmul_tutorial.kite --chip=sm_90a -D BLOCK_M=64 -D BLOCK_N=256 -D BLOCK_K=32 --num-warps=4 --num-stages=4 --specialize=stride_ak=1,stride_bk=1,stride_cn=1,a_ptr=div16,b_ptr=div16,c_ptr=div16 -o %t.nt2.ptx
// RUN: %ptxas -arch=sm_90a -v %t.nt2.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL
