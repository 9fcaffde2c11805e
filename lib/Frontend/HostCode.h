//===- HostCode.h - Host code of a file of Triton kernels -------*- C++ -*-===//
//
// A Python file of Triton kernels as a library ships it holds host code
// beside the kernels: the autograd functions that launch them, classes,
// docstrings, dictionaries, `if __name__ == ...`. maskHostCode blanks the
// top-level statements that are host code before the Kite lexer sees the
// file (line and column numbers stay), so only what a kernel can reach must
// be Kite.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_FRONTEND_HOSTCODE_H
#define KITE_LIB_FRONTEND_HOSTCODE_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace kite::ast {

/// A top-level statement left out as host code.
struct HostStatement {
  unsigned line = 0;  ///< its first line (1-based)
  std::string name;   ///< the name it defines (def, class, NAME = ...), if any
  std::string what;   ///< "a function without @triton.jit", "a class", ...
  /// Its source, preceded by as many newlines as lines above it (parsed
  /// alone, its locations are the file's).
  std::string text;
};

/// Whether `source` is a file of Triton kernels: it marks functions
/// @triton.jit / @jit and none @kernel. Kite's own files (@kernel, with
/// undecorated helpers) are not, and keep every top-level statement an
/// error unless it is Kite.
bool isTritonFile(llvm::StringRef source);

/// In a file of Triton kernels (isTritonFile), `source` with its host code
/// blanked (spaces; newlines kept): top-level functions whose decorators
/// are not Kite's or Triton's (@triton.jit, @jit, @triton.autotune,
/// @triton.heuristics, @kernel, @autotune), undecorated functions, classes,
/// docstrings and other statements, `try`/`if` blocks that do more than
/// import, and module-level assignments that `isKite` says are not Kite
/// (a dict, a call into torch). Imports, module constants and the kernels
/// and helpers stay. `skipped` gets what was left out. Other files come
/// back as they are.
std::string maskHostCode(llvm::StringRef source,
                         bool (*isKite)(llvm::StringRef statement),
                         std::vector<HostStatement> &skipped);

} // namespace kite::ast

#endif // KITE_LIB_FRONTEND_HOSTCODE_H
