//===- ParserImpl.h - The parser of the Kite language, its class -*- C++ -*-===//
//
// The recursive-descent parser over the tokens of Lexer.h, shared by its
// three files: Parser.cpp (the top level: imports, decorators, functions),
// ParseStatements.cpp (blocks and statements) and ParseExpressions.cpp
// (expressions with Python's precedence). Errors throw SyntaxError, caught
// at statement level; recursion is bounded.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_FRONTEND_PARSERIMPL_H
#define KITE_LIB_FRONTEND_PARSERIMPL_H

#include "AST.h"
#include "Lexer.h"
#include "Parser.h"

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace kite::ast::detail {

using namespace ::kite::ast::lexer;

/// Thrown inside the parser only, caught at statement level.
struct SyntaxError {};

class Parser {
public:
  Parser(std::vector<Token> toks, const ErrorFn &error, unsigned &errors)
      : toks(std::move(toks)), error(error), errors(errors) {}

  Module run();

private:
  static constexpr unsigned kMaxErrors = 20;
  static constexpr unsigned kMaxDepth = 200;
  static constexpr unsigned kMaxHeight = 1000;
  static constexpr unsigned kMaxBlocks = 100;
  static constexpr unsigned kMaxElifs = 200;

  const Token &peek(size_t k = 0) const {
    return toks[std::min(i + k, toks.size() - 1)];
  }
  bool at(Tok k) const { return peek().kind == k; }
  bool atOp(const char *op) const {
    return peek().kind == Tok::Op && peek().text == op;
  }
  bool atName(const char *n) const {
    return peek().kind == Tok::Name && peek().text == n;
  }
  Token next() {
    Token t = peek();
    if (i < toks.size() - 1)
      ++i;
    return t;
  }
  bool accept(Tok k) {
    if (!at(k))
      return false;
    next();
    return true;
  }
  bool acceptOp(const char *op) {
    if (!atOp(op))
      return false;
    next();
    return true;
  }
  static std::string describe(const Token &t) {
    switch (t.kind) {
    case Tok::Name:
      return "'" + t.text + "'";
    case Tok::Int:
    case Tok::Float:
      return "number " + t.text;
    case Tok::Str:
      return "a string";
    case Tok::Op:
      return "'" + t.text + "'";
    case Tok::Newline:
      return "end of line";
    case Tok::Indent:
      return "indentation";
    case Tok::Dedent:
      return "end of block";
    case Tok::End:
      return "end of file";
    case Tok::Error:
      return "an invalid token";
    }
    return "?";
  }
  [[noreturn]] void fail(Loc loc, const std::string &msg) {
    if (!quiet) {
      ++errors;
      error(loc, msg);
    }
    throw SyntaxError();
  }
  void expectOp(const char *op, const char *what) {
    if (!acceptOp(op))
      fail(peek().loc, std::string("expected '") + op + "' " + what +
                           ", found " + describe(peek()));
  }
  std::string expectName(const char *what) {
    if (!at(Tok::Name))
      fail(peek().loc, std::string("expected ") + what + ", found " +
                           describe(peek()));
    return next().text;
  }
  void expectNewline() {
    if (!accept(Tok::Newline))
      fail(peek().loc, "expected end of line, found " + describe(peek()));
  }
  /// A dotted module name: NAME(.NAME)*.
  std::string dottedName(const char *what) {
    std::string name = expectName(what);
    while (acceptOp("."))
      name += "." + expectName(what);
    return name;
  }

  /// A top-level import, as a library of Triton kernels writes it:
  ///   - Triton's modules under their Kite names (`import triton`, `import
  ///     triton.language as tl`, `from triton.language.extra[.cuda] import
  ///     libdevice`), which Kite has built in (TritonSpellings.cpp);
  ///   - single functions of Triton's math modules (`from
  ///     triton.language.extra.libdevice import rsqrt`, also
  ///     `.extra.cuda.libdevice`, `triton.language.math`, and
  ///     `triton.language`), bound in `m.importedFunctions`;
  ///   - anything else (torch, the library's own modules): bound in
  ///     `m.foreignNames`, an error only where a kernel uses the name.
  /// The first binding of a name wins (the branches of a top-level `try` or
  /// `if` that pick between Triton's module paths bind the same function).
  void importLine(Module &m);

  /// A block of a top-level `try`/`except`/`if`/`else` that only imports
  /// (or passes), as libraries pick between Triton's module paths.
  void importBlock(Module &m);

  /// `import`/`from` lines, `pass`, and `try`/`except`/`else`/`finally` or
  /// `if`/`elif`/`else` around them (the conditions are not evaluated: each
  /// branch binds what it imports, the first binding of a name winning).
  void importStatement(Module &m);

  /// Skips to the next top-level `def` or `@`.
  void recoverTopLevel();

  std::unique_ptr<Function> function();
  /// `@triton.heuristics(` seen: reads `{"NAME": lambda args: EXPR, ...})`
  /// (or `values={...}`) into `f`; anything else is host code, skipped with
  /// the names it sets recorded.
  void heuristics(Function &f);

  /// `*f32` (a pointer type) or an expression (`i32`, `constexpr`).
  ExprPtr typeExpr();

  Block block();

  StmtPtr statement();

  StmtPtr ifStatement(unsigned elifs = 0);

  struct DepthGuard {
    DepthGuard(Parser &p) : p(p) {
      if (++p.depth > kMaxDepth)
        p.fail(p.peek().loc, "expression nested too deeply (more than " +
                                 std::to_string(kMaxDepth) + " levels)");
    }
    ~DepthGuard() { --p.depth; }
    Parser &p;
  };

  /// expr := ternary [',' ternary]*   (a tuple without parentheses)
  ExprPtr expr();

  ExprPtr ternary();

  ExprPtr binary(ExprPtr lhs, const std::string &op, ExprPtr rhs, Loc l,
                 Expr::Kind kind = Expr::Binary) {
    // Long operator chains make deep trees, which later passes walk
    // recursively: bound their height like parenthesis nesting.
    unsigned height = 1 + std::max(lhs->height, rhs->height);
    if (height > kMaxHeight)
      fail(l, "expression too deep (more than " + std::to_string(kMaxHeight) +
                  " nested operators); split it into several assignments");
    auto e = std::make_unique<Expr>(kind, l);
    e->height = height;
    e->name = op;
    e->args.push_back(std::move(lhs));
    e->args.push_back(std::move(rhs));
    return e;
  }

  /// Sets `e.height` from its children; refuses trees taller than
  /// kMaxHeight (later passes walk them recursively).
  void checkHeight(Expr &e);

  ExprPtr orExpr();
  ExprPtr andExpr();
  ExprPtr notExpr();
  ExprPtr comparison();
  template <typename Next>
  ExprPtr leftAssoc(std::initializer_list<const char *> ops, Next nextFn);
  ExprPtr bitOr() { return leftAssoc({"|"}, &Parser::bitXor); }
  ExprPtr bitXor() { return leftAssoc({"^"}, &Parser::bitAnd); }
  ExprPtr bitAnd() { return leftAssoc({"&"}, &Parser::shift); }
  ExprPtr shift() { return leftAssoc({"<<", ">>"}, &Parser::arith); }
  ExprPtr arith() { return leftAssoc({"+", "-"}, &Parser::term); }
  ExprPtr term() { return leftAssoc({"*", "/", "//", "%"}, &Parser::unary); }

  ExprPtr unary();

  ExprPtr postfix(ExprPtr e);

  ExprPtr atom();

  std::vector<Token> toks;
  const ErrorFn &error;
  unsigned &errors;
  size_t i = 0;
  /// Parsing speculatively: a syntax error only throws (heuristics()).
  bool quiet = false;
  unsigned depth = 0;
  int indentLevel = 0;
};

} // namespace kite::ast::detail

#endif // KITE_LIB_FRONTEND_PARSERIMPL_H
