//===- AST.h - Syntax tree of the Kite language ------------------*- C++ -*-===//

#ifndef KITE_LIB_FRONTEND_AST_H
#define KITE_LIB_FRONTEND_AST_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "HostCode.h"

namespace kite::ast {

/// A position in the source: 1-based line and column.
struct Loc {
  unsigned line = 0, col = 0;
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum Kind {
    Name,      ///< name
    Int,       ///< intValue
    Float,     ///< floatValue
    Bool,      ///< intValue (0/1)
    Str,       ///< name (the text)
    NoneLit,   ///< None
    Slice,     ///< `:` inside a subscript
    Unary,     ///< op args[0]        (-, ~, not)
    Binary,    ///< args[0] op args[1] (arithmetic, bitwise, and/or)
    Compare,   ///< args[0] op args[1]
    Call,      ///< args[0](args[1..], kwargs)
    Attribute, ///< args[0].name
    Subscript, ///< args[0][args[1..]]
    Tuple,     ///< (args...)
    Ternary,   ///< args[1] if args[0] else args[2]
    Dict,      ///< {args[0]: args[1], args[2]: args[3], ...}
    /// [args[0] for args[1] in args[2] for args[3] in args[4] ...]
    ListComp,
  };
  Kind kind;
  Loc loc;
  std::string name; ///< Name, Str, Attribute member; op for Unary/Binary/Compare
  int64_t intValue = 0;
  double floatValue = 0;
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  unsigned height = 1; ///< of the tree below (bounded by the parser)
  /// A Name written `tl.NAME` (TritonSpellings.cpp): Triton's builtin,
  /// never a helper of the file with that name.
  bool fromTriton = false;

  Expr(Kind kind, Loc loc) : kind(kind), loc(loc) {}
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

struct Stmt {
  enum Kind {
    Assign,   ///< names = value (op: "" or the augmented operator)
    ExprStmt, ///< value
    For,      ///< for names[0] in value: body
    If,       ///< if value: body else orelse
    While,    ///< while value: body
    Return,   ///< return value (may be null)
    Pass,
  };
  Kind kind;
  Loc loc;
  std::vector<std::pair<std::string, Loc>> names; ///< targets / loop variable
  std::string op;
  ExprPtr value;
  /// `name: annotation = value` (Assign): `constexpr` makes the name a
  /// compile-time constant; other annotations are ignored, as in Triton.
  ExprPtr annotation;
  Block body, orelse;
  /// An `if` one of whose branches returns and the other took the rest of
  /// its block (Returns.cpp): nothing after it in that block.
  bool tookRest = false;

  Stmt(Kind kind, Loc loc) : kind(kind), loc(loc) {}
};

struct Param {
  std::string name;
  Loc loc;
  ExprPtr type;    ///< annotation (null for helpers' untyped parameters)
  ExprPtr deflt;   ///< default value (constexpr parameters)
};

struct Function {
  std::string name;
  Loc loc;
  bool isKernel = false;
  /// Marked `@triton.jit` / `@jit` (Triton's spelling, which marks kernels
  /// and helpers alike), not `@kernel`.
  bool jit = false;
  std::vector<std::pair<std::string, ExprPtr>> decoratorArgs;
  /// `@autotune(configs=[config(...), ...], key=[...])` above `@kernel`.
  bool autotune = false;
  Loc autotuneLoc;
  std::vector<std::pair<std::string, ExprPtr>> autotuneArgs;
  /// `@triton.heuristics({"NAME": lambda args: ...})`: the constexprs it
  /// sets, in order, and where each lambda is one expression Kite reads
  /// (HostValues.h evaluates it at launch), the lambda: its parameter's name
  /// and body. A dict Kite does not read leaves `heuristics` empty.
  std::vector<std::string> heuristicNames;
  struct Heuristic {
    std::string name, arg;
    ExprPtr body;
    Loc loc;
  };
  std::vector<Heuristic> heuristics;
  std::vector<Param> params;
  Block body;
};

struct Module {
  std::vector<std::unique_ptr<Function>> functions;
  /// Module-level constants, `NAME = value` or `NAME: tl.constexpr =
  /// tl.constexpr(value)` (Assign statements of one name), in order: the
  /// functions read them as compile-time values (evaluated when first
  /// used).
  std::vector<std::unique_ptr<Stmt>> constants;
  /// Functions imported one by one from Triton's modules (`from
  /// triton.language.extra.libdevice import rsqrt`): local name ->
  /// "libdevice.rsqrt" or "tl.NAME".
  std::map<std::string, std::string> importedFunctions;
  /// Names imported from other modules (torch, the library's own): local
  /// name -> module. A kernel using one is an error that says so.
  std::map<std::string, std::string> foreignNames;
  /// Top-level host code of a file of Triton kernels, left out
  /// (HostCode.h): a kernel naming what one defines is told so.
  std::vector<HostStatement> hostStatements;
  /// Those of them that are functions which parse as Kite's syntax (a
  /// host function that builds @triton.autotune's configs), by name: read
  /// only where a decorator calls one, never compiled.
  std::map<std::string, std::unique_ptr<Function>> hostFunctions;
};

} // namespace kite::ast

#endif // KITE_LIB_FRONTEND_AST_H
