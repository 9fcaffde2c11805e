//===- MutationDriver.h - The fuzz targets' own mutation driver -*- C++ -*-===//
//
// What ctest runs of a fuzz target (any compiler, no libFuzzer): the seed
// corpus mutated deterministically (byte flips, token insertions, deletions,
// splices, repeated spans) for a number of iterations, each input passed to
// LLVMFuzzerTestOneInput. A crash saves the input to crash-input.<ext>.
// KITE_FUZZ_SEED picks another random sequence.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_UNITTESTS_FUZZ_MUTATIONDRIVER_H
#define KITE_UNITTESTS_FUZZ_MUTATIONDRIVER_H

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace kite::fuzz {

inline std::string &currentInput() {
  static std::string s;
  return s;
}
inline std::string &crashFile() {
  static std::string s = "crash-input.txt";
  return s;
}

inline void onCrash(int sig) {
  int fd = ::open(crashFile().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    (void)!::write(fd, currentInput().data(), currentInput().size());
    ::close(fd);
  }
  const char msg[] = "crash: input saved (see crash-input.*)\n";
  (void)!::write(2, msg, sizeof msg - 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

/// `prog ITERATIONS SEED_FILE...`: each seed file split into pieces at
/// `splitMarker` lines (when not empty), then mutated with `tokens`, 1 to
/// `maxEdits` edits an input.
inline int runMutations(int argc, char **argv,
                        const std::vector<std::string> &tokens,
                        const std::string &crashName,
                        const std::string &splitMarker = "",
                        int maxEdits = 8) {
  crashFile() = crashName;
  std::signal(SIGSEGV, onCrash);
  std::signal(SIGABRT, onCrash);
  std::signal(SIGBUS, onCrash);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ITERATIONS SEED...\n", argv[0]);
    return 2;
  }
  long iterations = std::atol(argv[1]);
  std::vector<std::string> corpus;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    if (splitMarker.empty()) {
      corpus.push_back(text);
      continue;
    }
    size_t from = 0;
    while (true) {
      size_t at = text.find(splitMarker, from);
      corpus.push_back(text.substr(from, at == std::string::npos
                                             ? std::string::npos
                                             : at - from));
      if (at == std::string::npos)
        break;
      from = at + splitMarker.size();
    }
  }
  const char *seedEnv = std::getenv("KITE_FUZZ_SEED");
  std::mt19937_64 rng(seedEnv ? std::strtoull(seedEnv, nullptr, 10) : 12345);
  for (long it = 0; it < iterations; ++it) {
    std::string s = corpus[rng() % corpus.size()];
    int edits = 1 + int(rng() % maxEdits);
    for (int e = 0; e < edits; ++e) {
      size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
      switch (rng() % 6) {
      case 0: // flip a byte
        if (!s.empty())
          s[pos % s.size()] ^= char(1 << (rng() % 8));
        break;
      case 1: // insert a token
        s.insert(pos, tokens[rng() % tokens.size()]);
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
    currentInput() = s;
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(s.data()),
                           s.size());
  }
  std::printf("%ld inputs, no crash\n", iterations);
  return 0;
}

} // namespace kite::fuzz

#endif
