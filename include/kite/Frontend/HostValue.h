//===- HostValue.h - Host values of @triton.heuristics lambdas --*- C++ -*-===//
//
// What a kernel's `@triton.heuristics({"NAME": lambda args: ...})` reads and
// returns: numbers, bools, strings and None, as Python has them. The
// frontend parses the lambdas (DeclaredHeuristic); the runtime evaluates
// them over each launch's arguments. No MLIR here: the runtime's headers
// include it.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_FRONTEND_HOSTVALUE_H
#define KITE_FRONTEND_HOSTVALUE_H

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace kite {

/// A value of host code as a `@triton.heuristics` lambda sees it.
struct HostValue {
  /// Object: an argument that is no number (a pointer, a descriptor):
  /// only `is None` / `is not None` and truth apply to it.
  enum Kind { None, Bool, Int, Float, Str, Object };
  Kind kind = None;
  int64_t i = 0; ///< Bool (0/1) and Int
  double f = 0;  ///< Float
  std::string s; ///< Str
  static HostValue integer(int64_t v) { return {Int, v, 0, {}}; }
  static HostValue boolean(bool v) { return {Bool, v, 0, {}}; }
  static HostValue floating(double v) { return {Float, 0, v, {}}; }
  static HostValue string(std::string v) { return {Str, 0, 0, std::move(v)}; }
  static HostValue object() { return {Object, 0, 0, {}}; }
  /// As Python writes it, a -D value: 3, 0.5, True, None, 'mean'.
  std::string python() const;
};

/// A constexpr value as Python writes it (kitec -D, CompileOptions::
/// defines): an integer (decimal or 0x), a float, True/False, None or a
/// quoted string ('mean'); none for anything else (a dtype, say).
std::optional<HostValue> parsePythonLiteral(const std::string &text);

/// One entry of a kernel's `@triton.heuristics({"NAME": lambda args: ...})`.
struct DeclaredHeuristic {
  std::string name; ///< the constexpr it sets
  /// The lambda's value where `values` (the launch's scalar arguments and
  /// the constexprs, by parameter name; earlier heuristics' results) hold
  /// what it reads; nullopt with `error` saying why otherwise (it reads a
  /// pointer, or does what Kite cannot evaluate).
  std::function<std::optional<HostValue>(
      const std::map<std::string, HostValue> &values, std::string &error)>
      evaluate;
};

} // namespace kite

#endif // KITE_FRONTEND_HOSTVALUE_H
