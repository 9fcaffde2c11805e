//===- Passes.td - Kite conversion passes ------------------*- tablegen -*-===//
//
// Conversions from the kite dialect towards PTX. Kept alphabetical.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_CONVERSION_PASSES_TD
#define KITE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertKiteToGPU : Pass<"convert-kite-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower kite kernels to gpu.func kernels over per-thread values";
  let description = [{
    Moves every `kite.kernel` function into a `gpu.module` as a `gpu.func`
    kernel (one parameter per pointer and scalar, in source order) and lowers
    the kite ops, and arith/math ops on blocks, to per-thread code: each block
    becomes a vector of the elements the thread owns under a blocked layout.
    Contiguity and alignment facts (kite.divisibility) turn accesses into
    16-byte vector loads and stores. Helper functions must have been inlined.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
  let options = [
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"4",
           "Warps per program for kernels without kite.num_warps">,
    Option<"ieeeDivision", "ieee-div", "bool", /*default=*/"false",
           "Lower f32 division to IEEE div.rn.f32 instead of Triton's "
           "approximate div.full.f32">,
    Option<"fpFusion", "fp-fusion", "bool", /*default=*/"true",
           "Let f32/f16 multiplies and adds fuse into fma (Triton's "
           "enable_fp_fusion)">,
    Option<"occupancyHint", "occupancy-hint", "bool", /*default=*/"false",
           "Record, for kernels without a dot on 256 threads or more, the "
           "registers a thread that two programs per SM allow "
           "(kite.occupancy_registers), for the runtime's second ptxas run">,
    Option<"coalesceUnaligned", "coalesce-unaligned", "bool",
           /*default=*/"false",
           "A kernel without a dot "
           "whose block accesses mostly cannot use vectors (unaligned rows) "
           "spreads its blocks one element a thread in turn (consecutive "
           "lanes: coalesced scalar accesses) instead of 16-byte chunks">,
    Option<"moduleName", "module-name", "std::string", /*default=*/"\"kite\"",
           "Name of the gpu.module that receives the kernels">,
  ];
}

#endif // KITE_CONVERSION_PASSES_TD
