//===- FrontendFuzzer.cpp - Fuzz target of the Kite language frontend
//------===//
//
// LLVMFuzzerTestOneInput feeds arbitrary bytes to importKiteSource as a
// .kite file: it must return a verified module or diagnostics, and never
// crash, hang or abort. A quarter of what verifies (chosen by the input's
// size) then goes through the pipeline up to the LLVM dialect (every Kite
// pass: scheduling, staging, the GPU lowering; not LLVM's code
// generation), its integer and pointer parameters specialized as divisible
// by 16 as the runtime does for aligned arguments, on sm_90a or sm_80: it
// may fail with diagnostics, never crash.
//
// Two ways to run it:
//   - scripts/fuzz.sh: built with clang's libFuzzer and AddressSanitizer,
//     coverage-guided (KITE_LIBFUZZER defined);
//   - this file's own main() (any compiler, what ctest runs): mutates the
//     seed corpus (byte flips, insertions, deletions, splices, token
//     swaps) deterministically for a number of iterations.
//
//===----------------------------------------------------------------------===//

#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Frontend/Frontend.h"
#include "kite/Pipeline/Pipeline.h"
#include "kite/Registration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <fcntl.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    kite::registerAllDialects(registry);
    auto *ctx = new mlir::MLIRContext(registry);
    ctx->loadAllAvailableDialects();
    ctx->disableMultithreading();
    return ctx;
  }();
  // Diagnostics are expected; swallow them.
  mlir::ScopedDiagnosticHandler quiet(context, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.kite"),
      llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      kite::importKiteSource(sourceMgr, context);
  if (module && mlir::failed(mlir::verify(*module))) {
    std::fprintf(stderr, "frontend produced IR that does not verify\n");
    std::abort();
  }
  if (!module || size % 4)
    return 0;
  module->walk([](mlir::func::FuncOp f) {
    if (!f->hasAttr(mlir::kite::KiteDialect::getKernelAttrName()))
      return;
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      kite::specializeArgument(f, i, kite::ParamFact::DivisibleBy16);
  });
  kite::TargetOptions options;
  options.chip = size % 8 ? "sm_80" : "sm_90a";
  if (llvm::Error e = kite::validateTargetOptions(options)) {
    llvm::consumeError(std::move(e));
    return 0;
  }
  mlir::PassManager pm(context);
  kite::buildKiteToPTXPipeline(pm, options, kite::Stage::LLVM);
  (void)pm.run(*module);
  return 0;
}

#ifndef KITE_LIBFUZZER
#include "../Fuzz/MutationDriver.h"

/// kite-frontend-fuzz ITERATIONS SEED_FILE...
int main(int argc, char **argv) {
  static const std::vector<std::string> tokens = {
      "(", ")", "[", "]", ":", ",", "=", "+", "-", "*", "/", "//", "%",
      "<", ">=", "==", "&", "|", "not ", " and ", "\n", "\n    ", "    ",
      "None", ":, None", "0", "1", "1024", "-1", "0.5", "1e309",
      "99999999999999999999", "x", "offs", "arange(0, 16)", "load(",
      "store(", "where(", "dot(", "sum(", "for i in range(", "if ", "else:",
      "def ", "@kernel\n", "return ", ".to(f16)", "\t", std::string("\0", 1), "\xff",
      "BLOCK", "constexpr", "*f32", "zeros((16, 16), f32)", "rand(",
      // inline asm's constraints and operand references, unrolling,
      // chains of branches and early returns, Triton library forms.
      "inline_asm_elementwise(\"mov.b32 $0, $1;\", \"=r,r\", [x], i32, True)",
      "\"=r,r,\"", "\"=r,1\"", "\"{r1}\"", "\"=f,f,f\"", "$7", "$",
      "${0}", "$$", "static_range(", "static_range(0, 64)", "elif ",
      "if n == 0:\n        return\n    ", "tl.", "tl.constexpr(1)",
      "import triton.language as tl\n", "from triton.language.math import rsqrt\n",
      "try:\n", "except ImportError:\n", " is None", " is not None",
      "'mean'", ".cast(", " if x else ",
  };
  return kite::fuzz::runMutations(argc, argv, tokens, "crash-input.kite");
}
#endif
