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

#include "kite/Frontend/HostValue.h"

#include <map>
#include <optional>
#include <vector>
#include <string>

namespace kite {

struct FrontendOptions {
  /// Values of constexpr parameters (-D NAME=VALUE), overriding defaults;
  /// also of unannotated parameters (Triton's untyped ones), which a value
  /// here makes constexprs (as Triton makes a None argument one).
  std::map<std::string, std::string> defines;
  /// Types of unannotated kernel parameters (Triton's kernels type them at
  /// launch): NAME -> "*bf16", "i32", "f32", ... (Triton's spellings too:
  /// "*fp16", "fp32"). kitec --signature, the runtime from the launch's
  /// arguments.
  std::map<std::string, std::string> signature;
  /// Remarks for what a file of Triton kernels leaves out as host code.
  bool verbose = false;
  /// How f32 dots without `input_precision=` multiply: "tf32" (Triton's
  /// default), "ieee" or "tf32x3"; empty: tf32. The frontend reads no
  /// environment: kitec and the runtime fill this from --input-precision,
  /// CompileOptions or $KITE_F32_DEFAULT.
  std::string inputPrecision;
  /// Where `inputPrecision` came from, for the error on a bad value (e.g.
  /// "KITE_F32_DEFAULT"); empty: the caller's option.
  std::string inputPrecisionOrigin;
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

/// A kernel's parameters as declared (parsed, not generated): annotated
/// with a type, constexpr, or unannotated (typed at launch, Triton's form).
struct DeclaredParam {
  enum Kind { Typed, Constexpr, Untyped };
  std::string name;
  Kind kind = Typed;
  bool hasDefault = false;
};
struct DeclaredKernel {
  std::string name;
  std::vector<DeclaredParam> params;
  /// `@triton.heuristics` lambdas Kite evaluates, in order; the names set
  /// by a heuristics call Kite does not read are only in `heuristicNames`.
  std::vector<DeclaredHeuristic> heuristics;
  std::vector<std::string> heuristicNames;
};
/// The kernels of the main buffer of `sourceMgr` (helpers excluded), in
/// order, or nullopt after diagnostics (syntax errors).
std::optional<std::vector<DeclaredKernel>>
declaredKernels(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context);

/// A signature type as kitec --signature and Triton spell it ("*fp16",
/// "tl.float32", "bf16") in Kite's spelling ("*f16", "f32", "bf16").
std::string normalizeSignatureType(const std::string &type);

/// The kernels (and nothing else: helpers are inlined) of the main buffer
/// of `sourceMgr`, or null after diagnostics.
mlir::OwningOpRef<mlir::ModuleOp>
importKiteSource(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
                 const FrontendOptions &options = {});

} // namespace kite

#endif // KITE_FRONTEND_FRONTEND_H
