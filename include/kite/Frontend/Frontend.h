//===- Frontend.h - .kite source to the kite dialect ------------*- C++ -*-===//
//
// The Kite language (docs/language.md): Python-like kernels in the style of
// Triton's tutorials. importKiteSource lexes, parses, checks and lowers a
// .kite file to a kite-dialect module. Every problem is an MLIR diagnostic at
// its file:line:col (a SourceMgrDiagnosticHandler prints the source line and
// a caret); several are reported per run where the parser can resume.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_FRONTEND_FRONTEND_H
#define KITE_FRONTEND_FRONTEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <map>
#include <string>

namespace kite {

struct FrontendOptions {
  /// Values of constexpr parameters (-D NAME=VALUE), overriding defaults.
  std::map<std::string, std::string> defines;
};

/// The kernels (and nothing else: helpers are inlined) of the main buffer
/// of `sourceMgr`, or null after diagnostics.
mlir::OwningOpRef<mlir::ModuleOp>
importKiteSource(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
                 const FrontendOptions &options = {});

} // namespace kite

#endif // KITE_FRONTEND_FRONTEND_H
