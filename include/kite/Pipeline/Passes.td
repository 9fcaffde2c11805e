//===- Passes.td - Kite pipeline passes --------------------*- tablegen -*-===//
//
// Passes that belong to the kite-to-ptx pipeline itself rather than to a
// dialect or a conversion: the target check, and the steps after the
// lowering to the LLVM dialect (tensor-map parameters, byte-select packing,
// dropping unused device libraries). The kite dialect's own transforms are
// in include/kite/Dialect/Kite/Transforms/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_PIPELINE_PASSES_TD
#define KITE_PIPELINE_PASSES_TD

include "mlir/Pass/PassBase.td"

def CheckTarget : Pass<"kite-check-target", "::mlir::ModuleOp"> {
  let summary = "Reject an invalid chip, PTX feature set or pipeline stage";
  let description = [{
    Runs first in kite-to-ptx: LLVM's NVPTX backend aborts the process on
    some invalid chip/PTX combinations, so they are diagnosed here, with the
    accepted values, before any LLVM code sees them.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target chip">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "PTX features">,
    Option<"optLevel", "opt-level", "int", /*default=*/"3",
           "Optimization level">,
    Option<"numWarps", "num-warps", "int", /*default=*/"4",
           "Default warps per program">,
    Option<"stage", "stop-after", "std::string", /*default=*/"\"ptx\"",
           "Pipeline stage">,
    Option<"startAfter", "start-after", "std::string", /*default=*/"\"\"",
           "The stage the input comes from (empty: the kite source)">,
  ];
}

def TensorMapParams : Pass<"kite-tensor-map-params", "::mlir::ModuleOp"> {
  let summary = "Pass tensor maps as __grid_constant__ .param kernel arguments";
  let description = [{
    Runs after the lowering to the LLVM dialect. A kernel parameter that
    kite-to-gpu marked as a tensor map (a generic pointer with llvm.align 64
    and llvm.dereferenceable 128; the GPU to NVVM conversion drops byval)
    becomes `llvm.byval = !llvm.array<128 x i8>` with `nvvm.grid_constant`:
    PTX `.param .align 64 .b8 p[128]`, read in place through its generic
    address (cvta.param) by the TMA copies, as nvcc passes a
    `const __grid_constant__ CUtensorMap`. The program's first thread
    prefetches each map (`prefetch.tensormap`) at the kernel's start.
  }];
}

def PackByteSelects : Pass<"kite-pack-byte-selects", "::mlir::ModuleOp"> {
  let summary = "Select pairs of 16-bit floats on byte thresholds as one "
                "packed compare";
  let description = [{
    Runs after the lowering to the LLVM dialect. A pair of f16 or bf16
    values packed for one 32-bit register, each `x` if a byte of an i32 word
    is at least a threshold and +0.0 otherwise (`where(byte >= t, p, 0.0)`
    then `.to(f16)`, the keep decisions of FlashAttention-style dropout),
    becomes the packed convert of the two values and an `and` with a mask
    from one `prmt` (the two bytes to the two 16-bit halves) and one
    `set.ge.u32.f16x2` against the thresholds clamped to [0, 256] (bytes
    and such thresholds are +0 or positive subnormals as f16, ordered as
    integers). Four instructions for two elements instead of nine.
  }];
}

def DropUnusedDeviceLibraries
    : Pass<"kite-drop-unused-device-libraries", "::mlir::ModuleOp"> {
  let summary = "Do not link libdevice into GPU modules that call nothing";
  let description = [{
    Runs after the lowering to the LLVM dialect. A gpu.module whose NVVM
    target lists files to link (libdevice.10.bc, attached by
    nvvm-attach-target) but which declares no external function has
    nothing to resolve from them: the list is dropped, so that
    gpu-module-to-binary does not read and link that bitcode (about 2 ms
    of a cold compile). Modules that call libdevice (`__nv_expf`, ...)
    keep it. (MLIR's NVVM serializer still adds the libdevice of a CUDA
    toolkit it finds by itself, through $CUDA_HOME, $CUDA_PATH or
    $CUDA_ROOT.)
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect"];
}

#endif // KITE_PIPELINE_PASSES_TD
