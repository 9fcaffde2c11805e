// Shared by the host programs of the dsl-examples: where the kernel sources
// are, and failing with Kite's error text.
#ifndef KITE_DSL_EXAMPLES_COMMON_H
#define KITE_DSL_EXAMPLES_COMMON_H

#include "kite/Runtime/Runtime.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>

namespace examples {

/// The path of dsl-examples/<file>: $KITE_EXAMPLES_DIR, the source tree this
/// program was built from, or ./dsl-examples (running from a checkout).
inline std::string source(const std::string &file) {
  struct stat st;
  for (std::string dir : {std::string(std::getenv("KITE_EXAMPLES_DIR")
                                          ? std::getenv("KITE_EXAMPLES_DIR")
                                          : ""),
                          std::string(KITE_EXAMPLES_DIR),
                          std::string("dsl-examples")}) {
    if (dir.empty())
      continue;
    std::string path = dir + "/" + file;
    if (stat(path.c_str(), &st) == 0)
      return path;
  }
  return "dsl-examples/" + file;
}

/// Exits with 77 ("skipped") and the reason when there is no GPU.
inline void requireGPU() {
  auto count = kite::deviceCount();
  if (!count || *count == 0) {
    std::fprintf(stderr, "no GPU: %s\n",
                 count ? "the driver reports 0 devices"
                       : count.error().str().c_str());
    std::exit(77);
  }
}

} // namespace examples

#endif
