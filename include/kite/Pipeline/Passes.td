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

def PipelineLoads : Pass<"kite-pipeline-loads", "::mlir::ModuleOp"> {
  let summary = "Issue the loads that feed a dot one loop iteration early";
  let description = [{
    In an scf.for whose body loads blocks only consumed by kite.dot (the
    K loop of a matmul), the loads of iteration k+1 are issued before the
    dot of iteration k and carried in the loop, so their memory latency
    overlaps the dot's arithmetic. The loads of the first iteration move
    before the loop; the extra last-iteration loads are masked off (their
    mask is ANDed with "k + step < upper bound"), so nothing outside the
    original accesses is read. Applies when the loads' operands are
    computed by side-effect-free ops from the loop's induction variable,
    its iteration arguments (advanced by side-effect-free ops) and values
    defined outside.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // KITE_PIPELINE_PASSES_TD
