//===- Returns.h - `return` inside if/else in Kite source --------*- C++ -*-===//

#ifndef KITE_LIB_FRONTEND_RETURNS_H
#define KITE_LIB_FRONTEND_RETURNS_H

#include "AST.h"

#include <optional>

namespace kite::ast {

/// Rewrites `return` inside `if`/`else` into one `return` at the end of
/// the function (Returns.cpp), as Triton accepts: `if c: return a` then
/// `return b` (or `else: return b`) in a helper, and an early `if pid >=
/// n: return` in a kernel.
/// The rewrite nests what follows an early return into the other branch,
/// so a kernel of N such `if`s nests N levels deep: past kMaxReturnNesting
/// it stops and returns the location of the `if` it stopped at (the caller
/// reports it), instead of building a tree every later pass would recurse
/// through.
std::optional<Loc> normalizeReturns(Module &module);
inline constexpr unsigned kMaxReturnNesting = 256;

/// The name the returns of a helper are assigned to.
inline constexpr const char *kReturnName = "__kite_return";

} // namespace kite::ast

#endif // KITE_LIB_FRONTEND_RETURNS_H
