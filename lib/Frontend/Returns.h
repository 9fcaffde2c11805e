//===- Returns.h - `return` inside if/else in Kite source --------*- C++ -*-===//

#ifndef KITE_LIB_FRONTEND_RETURNS_H
#define KITE_LIB_FRONTEND_RETURNS_H

#include "AST.h"

namespace kite::ast {

/// Rewrites `return` inside `if`/`else` into one `return` at the end of
/// the function (Returns.cpp), as Triton accepts: `if c: return a` then
/// `return b` (or `else: return b`) in a helper, and an early `if pid >=
/// n: return` in a kernel.
void normalizeReturns(Module &module);

/// The name the returns of a helper are assigned to.
inline constexpr const char *kReturnName = "__kite_return";

} // namespace kite::ast

#endif // KITE_LIB_FRONTEND_RETURNS_H
