//===- FrontendFuzzer.cpp - Fuzz target of the Kite language frontend ------===//
//
// LLVMFuzzerTestOneInput feeds arbitrary bytes to importKiteSource as a
// .kite file: it must return a verified module or diagnostics, and never
// crash, hang or abort.
//
// Two ways to run it:
//   - scripts/fuzz.sh: built with clang's libFuzzer and AddressSanitizer,
//     coverage-guided (KITE_LIBFUZZER defined);
//   - this file's own main() (any compiler, what ctest runs): mutates the
//     seed corpus (byte flips, insertions, deletions, splices, token
//     swaps) deterministically for a number of iterations.
//
//===----------------------------------------------------------------------===//

#include "kite/Frontend/Frontend.h"
#include "kite/Registration.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
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
  return 0;
}

#ifndef KITE_LIBFUZZER
#include <csignal>
#include <unistd.h>

static std::string current; ///< the input under test, saved on a crash

static void onCrash(int sig) {
  int fd = ::open("crash-input.kite", 0101 | 01000, 0644); // O_WRONLY|O_CREAT|O_TRUNC
  if (fd >= 0) {
    (void)!::write(fd, current.data(), current.size());
    ::close(fd);
  }
  const char msg[] = "crash: input saved to crash-input.kite\n";
  (void)!::write(2, msg, sizeof msg - 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

/// kite-frontend-fuzz ITERATIONS SEED_FILE...
int main(int argc, char **argv) {
  std::signal(SIGSEGV, onCrash);
  std::signal(SIGABRT, onCrash);
  std::signal(SIGBUS, onCrash);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ITERATIONS SEED.kite...\n", argv[0]);
    return 2;
  }
  long iterations = std::atol(argv[1]);
  std::vector<std::string> corpus;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    corpus.push_back(ss.str());
  }
  static const char *tokens[] = {
      "(", ")", "[", "]", ":", ",", "=", "+", "-", "*", "/", "//", "%",
      "<", ">=", "==", "&", "|", "not ", " and ", "\n", "\n    ", "    ",
      "None", ":, None", "0", "1", "1024", "-1", "0.5", "1e309",
      "99999999999999999999", "x", "offs", "arange(0, 16)", "load(",
      "store(", "where(", "dot(", "sum(", "for i in range(", "if ", "else:",
      "def ", "@kernel\n", "return ", ".to(f16)", "\t", "\0", "\xff",
      "BLOCK", "constexpr", "*f32", "zeros((16, 16), f32)", "rand(",
  };
  const char *seedEnv = std::getenv("KITE_FUZZ_SEED");
  std::mt19937_64 rng(seedEnv ? std::strtoull(seedEnv, nullptr, 10) : 12345);
  for (long it = 0; it < iterations; ++it) {
    std::string s = corpus[rng() % corpus.size()];
    int edits = 1 + int(rng() % 8);
    for (int e = 0; e < edits; ++e) {
      size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
      switch (rng() % 6) {
      case 0: // flip a byte
        if (!s.empty())
          s[pos % s.size()] ^= char(1 << (rng() % 8));
        break;
      case 1: // insert a token
        s.insert(pos, tokens[rng() % (sizeof tokens / sizeof *tokens)]);
        break;
      case 2: // delete a span
        if (!s.empty())
          s.erase(pos % s.size(), 1 + rng() % 16);
        break;
      case 3: { // splice from another seed
        const std::string &o = corpus[rng() % corpus.size()];
        if (!o.empty()) {
          size_t from = rng() % o.size();
          s.insert(pos, o.substr(from, 1 + rng() % 64));
        }
        break;
      }
      case 4: // duplicate a span (nesting, long lines)
        if (!s.empty()) {
          size_t from = pos % s.size();
          std::string span = s.substr(from, 1 + rng() % 32);
          for (int r = int(rng() % 64); r > 0; --r)
            s.insert(from, span);
        }
        break;
      default: // random byte
        s.insert(pos, 1, char(rng() % 256));
        break;
      }
    }
    current = s;
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(s.data()),
                           s.size());
  }
  std::printf("%ld inputs, no crash\n", iterations);
  return 0;
}
#endif
