// Bad target options are diagnosed before LLVM sees them: no abort.
// RUN: not kite-opt %s --kite-to-ptx="chip=sm_91" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not kite-opt %s --kite-to-ptx="chip=sm_90 features=+ptx60" 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not kite-opt %s --kite-to-ptx="features=bogus" 2>&1 | FileCheck %s --check-prefix=FEAT
// RUN: not kite-opt %s --kite-to-ptx="stop-after=asm" 2>&1 | FileCheck %s --check-prefix=STAGE
// RUN: not kite-opt %s --kite-to-ptx="num-warps=3" 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not kitec %s --chip=sm_90 --features=+ptx60 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not kitec %s --num-warps=3 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not kitec %s --emit=asm 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not kitec %s -O7 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: kite-opt %s --kite-to-ptx="stop-after=gpu" | FileCheck %s --check-prefix=GPU
// RUN: kite-opt %s --kite-to-ptx="stop-after=llvm" | FileCheck %s --check-prefix=LLVM
// RUN: kite-opt %s --kite-to-ptx="stop-after=kite" | FileCheck %s --check-prefix=KITE
// RUN: kitec %s --emit=gpu | FileCheck %s --check-prefix=GPU
// RUN: not kite-opt %s --kite-to-ptx="start-after=ptx" 2>&1 | FileCheck %s --check-prefix=START
// RUN: not kite-opt %s --kite-to-ptx="start-after=bogus" 2>&1 | FileCheck %s --check-prefix=START-BAD
// RUN: not kite-opt %s --kite-to-ptx="start-after=llvm stop-after=gpu" 2>&1 | FileCheck %s --check-prefix=START-LATE
// The back half alone: a module of gpu.func kernels (the gpu stage's
// output) to the LLVM stage and to PTX.
// RUN: kite-opt %s --kite-to-ptx="stop-after=gpu" -o %t.gpu.mlir
// RUN: kite-opt %t.gpu.mlir --kite-to-ptx="start-after=gpu stop-after=llvm" | FileCheck %s --check-prefix=LLVM
// RUN: kite-opt %t.gpu.mlir --kite-to-ptx="start-after=gpu" | FileCheck %s --check-prefix=BACK-PTX

// CHIP: error: kite-to-ptx: unknown chip 'sm_91'; expected one of sm_70,
// PTX: PTX ISA 6.0 (+ptx60) does not support sm_90; it needs +ptx78 or later
// FEAT: unsupported PTX features 'bogus'; expected +ptxNN
// STAGE: unknown stage 'asm'; expected kite, gpu, llvm or ptx
// WARPS: num_warps must be a power of two in 1..32, got 3
// EMIT: unknown --emit=asm; expected mlir, kite, gpu, llvm, ptx, cubin, metadata or c
// OPT: optimization level must be 0..3, got 7
// START: unknown start-after stage 'ptx'; expected kite, gpu or llvm
// START-BAD: unknown start-after stage 'bogus'; expected kite, gpu or llvm
// START-LATE: start-after=llvm is not before stop-after=gpu: nothing would run
// BACK-PTX: gpu.binary @kite
// BACK-PTX: st.global.b32
// KITE: func.func @k
// KITE: kite.store
// GPU: gpu.func @k
// LLVM: llvm.func @k
// LLVM: st.global.b32

func.func @k(%p: !kite.ptr<f32>, %x: f32) attributes {kite.kernel} {
  kite.store %p, %x : !kite.ptr<f32>
  return
}
