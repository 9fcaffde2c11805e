//===- DialectFuzzer.cpp - Fuzz target of the kite-dialect path ------------===//
//
// LLVMFuzzerTestOneInput feeds arbitrary bytes to the MLIR parser as kite
// dialect IR (what kite-opt, kitec on .mlir files and compileMLIR take);
// what parses and verifies runs in the interpreter (each kernel on zeroed
// buffers and small scalars, under a work limit) and is lowered to PTX
// (compileToPTX: every pass of the pipeline). Each step may fail with
// diagnostics or an error, but must never crash, hang or abort.
//
// Run by ctest with unittests/Fuzz/MutationDriver.h over the kite-dialect
// tests and examples (split at "// -----"), briefly; KITE_LIBFUZZER builds it
// for libFuzzer instead.
//
//===----------------------------------------------------------------------===//

#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Interpreter/Interpreter.h"
#include "kite/Pipeline/Pipeline.h"
#include "kite/Registration.h"
#include "kite/Support/InputFile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace kite {
/// How far the inputs got (printed by the driver at the end).
struct FuzzStats {
  long verified = 0, compiled = 0, interpreted = 0;
};
inline FuzzStats &fuzzStats() {
  static FuzzStats s;
  return s;
}
} // namespace kite

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
  std::string text(reinterpret_cast<const char *>(data), size);
  unsigned line, column; // what Kite's readers reject before parsing
  if (!kite::findMLIRParserHazard(text, line, column).empty())
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, context);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  ++kite::fuzzStats().verified;
  // The interpreter first (the lowering rewrites the module): each kernel
  // on two programs, 64 KB zeroed buffers, small scalars, a work limit.
  module->walk([&](mlir::func::FuncOp f) {
    if (!f->hasAttr(mlir::kite::KiteDialect::getKernelAttrName()) ||
        f.isExternal())
      return;
    kite::interp::Launch launch;
    launch.grid[0] = 2;
    launch.maxWork = uint64_t(1) << 22;
    std::vector<std::vector<uint8_t>> memory;
    for (auto [i, arg] : llvm::enumerate(f.getArguments())) {
      if (f.getArgAttr(i, mlir::kite::KiteDialect::getConstexprAttrName()))
        return; // bound by a caller; not a fuzz case
      kite::interp::Value v;
      if (llvm::isa<mlir::kite::PointerType>(arg.getType())) {
        memory.emplace_back(1 << 16, 0);
        v.i = int64_t(reinterpret_cast<uintptr_t>(memory.back().data()));
        launch.buffers.push_back(
            {uint64_t(v.i), uint64_t(memory.back().size()), "p" + std::to_string(i)});
      } else if (llvm::isa<mlir::FloatType>(arg.getType())) {
        v.isFloat = true;
        v.f = 0.5;
      } else {
        v.i = 7;
      }
      launch.args.push_back(v);
    }
    (void)kite::interp::run(f, launch);
    ++kite::fuzzStats().interpreted;
  });
  kite::TargetOptions options;
  options.chip = size % 2 ? "sm_90a" : "sm_80"; // both tensor-core paths
  if (llvm::Error e = kite::validateTargetOptions(options)) {
    llvm::consumeError(std::move(e));
    return 0;
  }
  auto compiled = kite::compileToPTX(*module, options);
  if (!compiled)
    llvm::consumeError(compiled.takeError());
  else
    ++kite::fuzzStats().compiled;
  return 0;
}

#ifndef KITE_LIBFUZZER
#include "MutationDriver.h"

/// kite-dialect-fuzz ITERATIONS SEED.mlir...
int main(int argc, char **argv) {
  static const std::vector<std::string> tokens = {
      "%", "%0", "%x", "(", ")", "<", ">", "{", "}", ":", ",", "=", "x",
      "tensor<16xf32>", "tensor<16x16xf16>", "tensor<0xi32>", "tensor<1xi1>",
      "!kite.ptr<f32>", "!kite.ptr<i1>", "f16", "bf16", "i64", "index",
      "0", "1", "-1", "16", "1024", "4294967296", "axis 1", "axis 0",
      "kite.arange 0, 16", "kite.splat ", "kite.load ", "kite.store ",
      "kite.dot ", "kite.reduce sum ", "kite.scan sum ", "kite.trans ",
      "kite.flip ", "kite.sort ", "kite.join ", "kite.split ",
      "kite.convert_layout ", "kite.atomic_rmw ", "kite.inline_asm ",
      "scf.for ", "scf.yield", "scf.if ", "arith.addi ", "arith.divf ",
      "{kite.kernel}", "{kite.num_warps = 8 : i32}", "kite.num_warps = 3",
      "{kite.divisibility = 16 : i32}", "order [1, 0]", "dim 0", "\n",
      "// -----\n", "\"", "#", std::string("\0", 1), "\xff",
  };
  // Few edits an input: MLIR's parser rejects most heavily mutated text,
  // and what gets past it is what exercises the passes.
  int rc = kite::fuzz::runMutations(argc, argv, tokens, "crash-input.mlir",
                                    "// -----", /*maxEdits=*/2);
  std::printf("%ld verified, %ld kernels interpreted, %ld lowered to PTX\n",
              kite::fuzzStats().verified, kite::fuzzStats().interpreted,
              kite::fuzzStats().compiled);
  return rc;
}
#endif
