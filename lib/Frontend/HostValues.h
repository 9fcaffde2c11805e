//===- HostValues.h - @triton.heuristics lambdas, evaluated -----*- C++ -*-===//
//
// See HostValues.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_FRONTEND_HOSTVALUES_H
#define KITE_LIB_FRONTEND_HOSTVALUES_H

#include "kite/Frontend/Frontend.h"

#include <map>
#include <optional>
#include <string>

namespace kite::ast {
struct Expr;

/// `body` of `lambda arg: body` evaluated over `values` (what `arg[...]`
/// reads); nullopt with `error` saying why it cannot be.
std::optional<HostValue>
evaluateHostExpr(const Expr &body, const std::string &arg,
                 const std::map<std::string, HostValue> &values,
                 std::string &error);
} // namespace kite::ast

#endif // KITE_LIB_FRONTEND_HOSTVALUES_H
