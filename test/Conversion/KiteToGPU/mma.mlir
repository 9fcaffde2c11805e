// RUN: kite-opt %s -convert-kite-to-gpu | FileCheck %s
// The mma.sync engine: a 64x64 result on 4 warps is a 2x2 grid of 32x32
// warp tiles, 2 x 4 m16n8 instructions each. f16, k 32: per k16 step one
// ldmatrix.x4 per 16 rows of A and one ldmatrix.x4.trans per 16 columns of
// B, then 8 mma.sync m16n8k16 (16 in all). f32 as tf32, k 16: per k8 step
// ldmatrix for A (b16 pairs), two 32-bit shared loads per 8 columns of B,
// 8 mma.sync m16n8k8 (16 in all). The staging is 1024-byte aligned (the
// swizzle is on address bits).

// CHECK: llvm.mlir.global internal @kite_smem_mma() {addr_space = 3 : i32, alignment = 1024 : i64}
// CHECK-LABEL: gpu.func @mma
// CHECK-COUNT-2: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>
// CHECK-COUNT-2: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// CHECK-COUNT-16: nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK-NOT: k = 16>}
// CHECK-COUNT-2: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>
// CHECK-NOT: mma_layout<col>
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<3> -> i32
// CHECK-COUNT-16: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32)
// CHECK-NOT: nvvm.mma.sync
func.func @mma(%s: i32) attributes {kite.kernel, kite.num_warps = 4 : i32} {
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = kite.dot_staged %acc slot %s of 3 k 32 engine = mma {operand_type = f16} : tensor<64x64xf32>
  %t = kite.dot_staged %r slot %s of 3 k 16 engine = mma {operand_type = f32} : tensor<64x64xf32>
  return
}
