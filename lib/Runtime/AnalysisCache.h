//===- AnalysisCache.h - Analyses of kernel sources on disk -----*- C++ -*-===//
//
// The disk cache's `.src` entries: what analyzing a source gave, keyed by
// everything the analysis depends on.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_ANALYSISCACHE_H
#define KITE_LIB_RUNTIME_ANALYSISCACHE_H

#include "Compile.h"

#include <optional>
#include <string>
#include <string_view>

namespace kite::detail {

/// The key text of analyzing `text` (named `sourceName`) with `options`:
/// the compiler, the source, its name, every option the analysis reads and
/// $KITE_F32_DEFAULT.
std::string analysisKeyText(std::string_view text, const CompileOptions &options,
                            std::string_view sourceName, bool isKite);

/// An analysis as bytes (length-prefixed fields) and back; none for bytes
/// that do not parse.
std::string serializeAnalysis(const Analyzed &analysis);
std::optional<Analyzed> deserializeAnalysis(const std::string &bytes);

} // namespace kite::detail

#endif
