//===- Passes.td - Kite pipeline passes --------------------*- tablegen -*-===//
//
// Passes that belong to the kite-to-ptx pipeline itself rather than to a
// dialect or a conversion.
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
  ];
}

#endif // KITE_PIPELINE_PASSES_TD
