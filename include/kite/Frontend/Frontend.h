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
  /// How f32 dots without `input_precision=` multiply: "tf32" (Triton's
  /// default), "ieee" or "tf32x3"; empty: defaultInputPrecision().
  std::string inputPrecision;
  /// >= 0: compile the kernel's @autotune configuration of that index (its
  /// constexpr values, num_warps and num_stages) as a plain kernel.
  int autotuneConfig = -1;
  /// The host gives the configurations (CompileOptions::autotuneConfigs):
  /// a kernel's own @autotune is checked but not applied.
  bool ignoreAutotune = false;
  /// When a kernel of the file has this name, only it is generated (the
  /// others are parsed, not generated: their constexprs need no values, as
  /// Triton compiles only the kernel launched); else every kernel is.
  std::string kernel;
};

/// The default input precision of f32 dots: $KITE_F32_DEFAULT when set
/// (like Triton's TRITON_F32_DEFAULT), else "tf32". The value is not
/// checked here: importKiteSource reports a bad one.
std::string defaultInputPrecision();

/// The kernels (and nothing else: helpers are inlined) of the main buffer
/// of `sourceMgr`, or null after diagnostics.
mlir::OwningOpRef<mlir::ModuleOp>
importKiteSource(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
                 const FrontendOptions &options = {});

} // namespace kite

#endif // KITE_FRONTEND_FRONTEND_H
