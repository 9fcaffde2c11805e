//===- InputFile.h - Reading the files a user hands Kite ---------*- C++ -*-===//
//
// One way to read a file named on a command line or passed to the runtime
// (kernel sources, kite-run's `file:` buffers), safe against inputs that
// would hang or exhaust the process: only regular files (a directory, a
// FIFO, a device or a socket is a clear error, and nothing blocks on
// opening one), and at most a size checked before reading. "-" is standard
// input, read up to the same limit. Plain C++ (no LLVM types): the runtime's
// API and the tools share it.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_SUPPORT_INPUTFILE_H
#define KITE_SUPPORT_INPUTFILE_H

#include <cstdint>
#include <string>

namespace kite {

/// The largest kernel source Kite reads: 64 MiB.
inline constexpr uint64_t kMaxSourceBytes = uint64_t(64) << 20;

/// Reads the whole of `path` ("-": standard input) into `contents`. On
/// failure returns false with `error` set to a message that names the path
/// (not found, a directory, not a regular file, larger than `maxBytes`).
bool readInputFile(const std::string &path, std::string &contents,
                   std::string &error, uint64_t maxBytes = kMaxSourceBytes);

/// MLIR text that MLIR 22's own parser crashes on instead of reporting
/// (a dense array of `index`, `array<index: ...>`: it asks index for a bit
/// width). Returns an error message and sets `line`, `column` (1-based)
/// where one is found; empty when the text has none. Kite's readers of
/// MLIR (kite-opt, kitec, the runtime) check this before parsing.
std::string findMLIRParserHazard(const std::string &text, unsigned &line,
                                 unsigned &column);

/// "64 MiB", "512 KiB", "17 bytes": a byte count for messages.
std::string describeBytes(uint64_t bytes);

} // namespace kite

#endif // KITE_SUPPORT_INPUTFILE_H
