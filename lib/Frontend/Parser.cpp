//===- Parser.cpp - Lexer and parser of the Kite language -----------------===//
//
// A Python-like grammar (docs/language.md) over the tokens of Lexer.h:
// indentation blocks, `def` with optional `@autotune(...)` and
// `@kernel(...)` decorators, assignments, `for ... in range()`,
// `if/elif/else`, `return`, expressions with Python's precedence. Hostile
// input (NUL bytes, invalid UTF-8, huge literals, deep nesting, enormous
// lines) gets a diagnostic, never a crash: recursion is bounded.
//
//===----------------------------------------------------------------------===//

#include "Parser.h"
#include "HostCode.h"
#include "Lexer.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace kite::ast;

namespace {

using namespace kite::ast::lexer;

/// Thrown inside the parser only, caught at statement level.
struct SyntaxError {};

class Parser {
public:
  Parser(std::vector<Token> toks, const ErrorFn &error, unsigned &errors)
      : toks(std::move(toks)), error(error), errors(errors) {}

  Module run() {
    Module m;
    while (!at(Tok::End) && errors < kMaxErrors) {
      if (accept(Tok::Newline))
        continue;
      try {
        if (at(Tok::Indent))
          fail(peek().loc, "unexpected indentation");
        if (atName("import") || atName("from") || atName("try") ||
            atName("if")) {
          importStatement(m);
          continue;
        }
        // A module-level constant: NAME [: annotation] = value.
        if (at(Tok::Name) && !atName("def")) {
          StmtPtr s = statement();
          if (s->kind != Stmt::Assign || s->names.size() != 1 || !s->op.empty())
            fail(s->loc, "at the top level Kite reads imports, functions and "
                         "constants (NAME = value, NAME: tl.constexpr = "
                         "value)");
          m.constants.push_back(std::move(s));
          continue;
        }
        m.functions.push_back(function());
      } catch (SyntaxError &) {
        recoverTopLevel();
      }
    }
    return m;
  }

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
    ++errors;
    error(loc, msg);
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
  void importLine(Module &m) {
    Loc l = peek().loc;
    bool from = next().text == "from";
    std::string module = dottedName("a module name");
    // What each module may be bound as: its Kite reading.
    static const struct {
      const char *module, *name;
    } known[] = {{"triton", "triton"},
                 {"triton.language", "tl"},
                 {"triton.language.extra.libdevice", "libdevice"},
                 {"triton.language.extra.cuda.libdevice", "libdevice"}};
    auto knownName = [&](const std::string &mod) -> const char * {
      for (auto k : known)
        if (mod == k.module)
          return k.name;
      return nullptr;
    };
    auto bindModule = [&](const std::string &mod, const std::string &name,
                          Loc at) {
      const char *kite = knownName(mod);
      if (!kite) {
        m.foreignNames.emplace(name, mod);
        return;
      }
      if (name != kite)
        fail(at, "import " + mod + " as '" + name +
                     "': Kite reads this module only under the name '" +
                     kite + "'");
    };
    if (!from) {
      std::string as;
      if (atName("as")) {
        next();
        as = expectName("a name after 'as'");
      }
      expectNewline();
      // `import a.b.c` binds `a`.
      bindModule(module, as.empty() ? (knownName(module) ? module
                                       : module.substr(0, module.find('.')))
                                    : as,
                 l);
      return;
    }
    if (!atName("import"))
      fail(peek().loc, "expected 'import' after 'from " + module +
                           "', found " + describe(peek()));
    next();
    bool paren = acceptOp("(");
    // The Triton modules whose functions may be imported one by one.
    std::string prefix = module == "triton.language.extra.libdevice" ||
                                 module == "triton.language.extra.cuda.libdevice" ||
                                 module == "triton.language.math" ||
                                 module == "triton.language.extra.cuda"
                             ? "libdevice"
                         : module == "triton.language" ? "tl"
                                                       : "";
    do {
      if (paren && atOp(")"))
        break;
      Loc nl = peek().loc;
      std::string name = expectName("a name to import");
      std::string as = name;
      if (atName("as")) {
        next();
        as = expectName("a name after 'as'");
      }
      std::string full = module + "." + name;
      if (knownName(full))
        bindModule(full, as, nl);
      else if (!prefix.empty())
        m.importedFunctions.emplace(as, prefix + "." + name);
      else
        m.foreignNames.emplace(as, module);
    } while (acceptOp(","));
    if (paren)
      expectOp(")", "to close the imported names");
    expectNewline();
  }

  /// A block of a top-level `try`/`except`/`if`/`else` that only imports
  /// (or passes), as libraries pick between Triton's module paths.
  void importBlock(Module &m) {
    expectNewline();
    if (!accept(Tok::Indent))
      fail(peek().loc, "expected an indented block");
    while (!at(Tok::Dedent) && !at(Tok::End)) {
      if (accept(Tok::Newline))
        continue;
      importStatement(m);
    }
    accept(Tok::Dedent);
  }

  /// `import`/`from` lines, `pass`, and `try`/`except`/`else`/`finally` or
  /// `if`/`elif`/`else` around them (the conditions are not evaluated: each
  /// branch binds what it imports, the first binding of a name winning).
  void importStatement(Module &m) {
    Loc l = peek().loc;
    if (atName("import") || atName("from"))
      return importLine(m);
    if (atName("pass")) {
      next();
      return expectNewline();
    }
    if (atName("try")) {
      next();
      expectOp(":", "after 'try'");
      importBlock(m);
      bool handler = false;
      while (atName("except") || atName("else") || atName("finally")) {
        handler |= peek().text != "else";
        next();
        while (!atOp(":") && !at(Tok::Newline) && !at(Tok::End))
          next(); // the exception's name, `as e`: not evaluated
        expectOp(":", "after the except clause");
        importBlock(m);
      }
      if (!handler)
        fail(l, "'try' without 'except' or 'finally'");
      return;
    }
    if (atName("if")) {
      next();
      (void)expr(); // a host condition (a version check): not evaluated
      expectOp(":", "after the if condition");
      importBlock(m);
      while (atName("elif") || atName("else")) {
        if (next().text == "elif")
          (void)expr();
        expectOp(":", "after 'elif'/'else'");
        importBlock(m);
      }
      return;
    }
    fail(l, "at the top level, a try or if block may hold only imports");
  }

  /// Skips to the next top-level `def` or `@`.
  void recoverTopLevel() {
    while (!at(Tok::End)) {
      if ((atName("def") || atOp("@")) && indentLevel == 0)
        return;
      if (at(Tok::Indent))
        ++indentLevel;
      if (at(Tok::Dedent) && indentLevel > 0)
        --indentLevel;
      next();
    }
  }

  std::unique_ptr<Function> function() {
    auto f = std::make_unique<Function>();
    while (acceptOp("@")) {
      Loc l = peek().loc;
      std::string d = expectName("a decorator name");
      // Triton's spellings: @triton.jit, @triton.autotune.
      if (d == "triton" && acceptOp("."))
        d = expectName("a decorator name");
      if (d == "jit") {
        d = "kernel";
        f->jit = true;
      }
      if (d == "heuristics") {
        // Host lambdas, not evaluated: the names they set are recorded
        // (string keys of the dict at the top level of the call).
        if (acceptOp("(")) {
          int nest = 1;
          while (!at(Tok::End) && nest > 0) {
            if (atOp("(") || atOp("[") || atOp("{"))
              ++nest;
            else if (atOp(")") || atOp("]") || atOp("}"))
              --nest;
            else if (nest == 2 && at(Tok::Str) && peek(1).kind == Tok::Op &&
                     peek(1).text == ":")
              f->heuristicNames.push_back(peek().text);
            next();
          }
        }
        expectNewline();
        while (accept(Tok::Newline)) {
        }
        continue;
      }
      if (d != "kernel" && d != "autotune")
        fail(l, "unknown decorator '@" + d +
                    "'; Kite knows '@kernel', '@autotune', and Triton's "
                    "'@triton.jit', '@triton.autotune', '@triton.heuristics'");
      if (d == "autotune" && (f->autotune || f->isKernel))
        fail(l, "@autotune goes once, above @kernel");
      if (d == "kernel" && f->isKernel)
        fail(l, "@kernel given twice");
      auto &args = d == "kernel" ? f->decoratorArgs : f->autotuneArgs;
      if (d == "kernel") {
        f->isKernel = true;
      } else {
        f->autotune = true;
        f->autotuneLoc = l;
      }
      if (acceptOp("(")) {
        while (!atOp(")")) {
          std::string key = expectName("a decorator argument name");
          expectOp("=", "after the argument name");
          args.emplace_back(key, ternary());
          if (!acceptOp(","))
            break;
        }
        expectOp(")", "to close the decorator arguments");
      }
      expectNewline();
      while (accept(Tok::Newline)) {
      }
    }
    if (f->autotune && !f->isKernel)
      fail(f->autotuneLoc, "@autotune applies to a kernel: put @kernel "
                           "below it");
    if (!atName("def"))
      fail(peek().loc, "expected 'def', found " + describe(peek()));
    f->loc = next().loc;
    f->name = expectName("a function name");
    expectOp("(", "after the function name");
    while (!atOp(")")) {
      Param p;
      p.loc = peek().loc;
      p.name = expectName("a parameter name");
      if (acceptOp(":")) {
        p.type = typeExpr();
        // Python's own annotations (`n: int`, `eps: float`) say nothing a
        // launch does not: the parameter is typed at launch, as in Triton.
        if (p.type->kind == Expr::Name &&
            (p.type->name == "int" || p.type->name == "float" ||
             p.type->name == "bool"))
          p.type = nullptr;
      }
      if (acceptOp("="))
        p.deflt = ternary();
      // As Python: a default is for the parameters from there on.
      if (!p.deflt && !f->params.empty() && f->params.back().deflt)
        fail(p.loc, "parameter '" + p.name +
                        "' without a default follows one with a default");
      f->params.push_back(std::move(p));
      if (!acceptOp(","))
        break;
    }
    expectOp(")", "to close the parameter list");
    if (acceptOp("->"))
      typeExpr();
    expectOp(":", "after the function signature");
    f->body = block();
    return f;
  }

  /// `*f32` (a pointer type) or an expression (`i32`, `constexpr`).
  ExprPtr typeExpr() {
    if (atOp("*")) {
      Loc l = next().loc;
      auto e = std::make_unique<Expr>(Expr::Unary, l);
      e->name = "*";
      e->args.push_back(typeExpr());
      return e;
    }
    return ternary();
  }

  Block block() {
    expectNewline();
    if (!accept(Tok::Indent))
      fail(peek().loc, "expected an indented block");
    if (indentLevel >= int(kMaxBlocks))
      fail(peek().loc, "blocks nested more than " + std::to_string(kMaxBlocks) +
                           " deep");
    ++indentLevel;
    Block b;
    while (!at(Tok::Dedent) && !at(Tok::End)) {
      if (accept(Tok::Newline))
        continue;
      try {
        b.push_back(statement());
      } catch (SyntaxError &) {
        if (errors >= kMaxErrors)
          throw;
        // Resume at the next line of this block.
        int nested = 0;
        while (!at(Tok::End)) {
          if (at(Tok::Indent))
            ++nested;
          if (at(Tok::Dedent)) {
            if (nested == 0)
              break;
            --nested;
          }
          if (at(Tok::Newline) && nested == 0) {
            next();
            break;
          }
          next();
        }
      }
    }
    accept(Tok::Dedent);
    --indentLevel;
    return b;
  }

  StmtPtr statement() {
    Loc l = peek().loc;
    if (at(Tok::Indent))
      fail(l, "unexpected indentation");
    if (atName("for")) {
      next();
      auto s = std::make_unique<Stmt>(Stmt::For, l);
      Loc vl = peek().loc;
      s->names.emplace_back(expectName("a loop variable"), vl);
      if (!atName("in"))
        fail(peek().loc, "expected 'in', found " + describe(peek()));
      next();
      s->value = expr();
      expectOp(":", "after the for header");
      s->body = block();
      return s;
    }
    if (atName("if"))
      return ifStatement();
    if (atName("elif") || atName("else"))
      fail(l, "'" + peek().text + "' without a matching 'if'");
    if (atName("while")) {
      next();
      auto s = std::make_unique<Stmt>(Stmt::While, l);
      s->value = expr();
      expectOp(":", "after the while condition");
      s->body = block();
      return s;
    }
    if (atName("def"))
      fail(l, "nested functions are not supported; define helpers at the "
              "top level");
    if (atName("return")) {
      next();
      auto s = std::make_unique<Stmt>(Stmt::Return, l);
      if (!at(Tok::Newline))
        s->value = expr();
      expectNewline();
      return s;
    }
    if (atName("pass")) {
      next();
      expectNewline();
      return std::make_unique<Stmt>(Stmt::Pass, l);
    }
    // Assignment (possibly to a tuple of names) or expression.
    ExprPtr e = expr();
    static const char *augmented[] = {"+=", "-=", "*=", "/=", "//=", "%=",
                                      "&=", "|=", "^=", "<<=", ">>="};
    for (const char *op : augmented)
      if (atOp(op)) {
        next();
        if (e->kind != Expr::Name)
          fail(e->loc, "can only assign to a name");
        auto s = std::make_unique<Stmt>(Stmt::Assign, l);
        s->names.emplace_back(e->name, e->loc);
        s->op = std::string(op).substr(0, std::string(op).size() - 1);
        s->value = expr();
        expectNewline();
        return s;
      }
    // An annotated assignment, `NAME: annotation = value` (Triton's
    // `BLOCK: tl.constexpr = 64`).
    if (e->kind == Expr::Name && acceptOp(":")) {
      auto s = std::make_unique<Stmt>(Stmt::Assign, l);
      s->names.emplace_back(e->name, e->loc);
      s->annotation = expr();
      expectOp("=", "after the annotation (an annotated name needs a value)");
      s->value = expr();
      expectNewline();
      return s;
    }
    if (acceptOp("=")) {
      auto s = std::make_unique<Stmt>(Stmt::Assign, l);
      std::vector<Expr *> targets;
      if (e->kind == Expr::Tuple)
        for (auto &a : e->args)
          targets.push_back(a.get());
      else
        targets.push_back(e.get());
      for (Expr *t : targets) {
        if (t->kind != Expr::Name)
          fail(t->loc, "can only assign to a name or a tuple of names");
        s->names.emplace_back(t->name, t->loc);
      }
      s->value = expr();
      expectNewline();
      return s;
    }
    auto s = std::make_unique<Stmt>(Stmt::ExprStmt, l);
    s->value = std::move(e);
    expectNewline();
    return s;
  }

  StmtPtr ifStatement(unsigned elifs = 0) {
    Loc l = next().loc; // if / elif
    // An elif is an if in the else branch of the one before: each nests
    // one level deeper for every pass after this one.
    if (elifs > kMaxElifs)
      fail(l, "an if with more than " + std::to_string(kMaxElifs) +
                  " elif branches (each nests one level deeper): use a "
                  "lookup (a loaded table, where()) instead");
    auto s = std::make_unique<Stmt>(Stmt::If, l);
    s->value = expr();
    expectOp(":", "after the if condition");
    s->body = block();
    if (atName("elif")) {
      s->orelse.push_back(ifStatement(elifs + 1));
    } else if (atName("else")) {
      next();
      expectOp(":", "after 'else'");
      s->orelse = block();
    }
    return s;
  }

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
  ExprPtr expr() {
    DepthGuard g(*this);
    ExprPtr first = ternary();
    if (!atOp(","))
      return first;
    auto t = std::make_unique<Expr>(Expr::Tuple, first->loc);
    t->args.push_back(std::move(first));
    while (acceptOp(",")) {
      if (at(Tok::Newline) || atOp("=") || atOp(")"))
        break;
      t->args.push_back(ternary());
    }
    return t;
  }

  ExprPtr ternary() {
    DepthGuard g(*this);
    ExprPtr value = orExpr();
    if (!atName("if"))
      return value;
    Loc l = next().loc;
    ExprPtr cond = orExpr();
    if (!atName("else"))
      fail(peek().loc, "expected 'else' in a conditional expression");
    next();
    auto t = std::make_unique<Expr>(Expr::Ternary, l);
    t->args.push_back(std::move(cond));
    t->args.push_back(std::move(value));
    t->args.push_back(ternary());
    return t;
  }

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
  void checkHeight(Expr &e) {
    unsigned h = 0;
    for (auto &a : e.args)
      h = std::max(h, a->height);
    for (auto &kw : e.kwargs)
      h = std::max(h, kw.second->height);
    e.height = h + 1;
    if (e.height > kMaxHeight)
      fail(e.loc, "expression too deep (more than " +
                      std::to_string(kMaxHeight) +
                      " nested operators); split it into several assignments");
  }

  ExprPtr orExpr() {
    ExprPtr e = andExpr();
    while (atName("or")) {
      Loc l = next().loc;
      e = binary(std::move(e), "or", andExpr(), l);
    }
    return e;
  }
  ExprPtr andExpr() {
    ExprPtr e = notExpr();
    while (atName("and")) {
      Loc l = next().loc;
      e = binary(std::move(e), "and", notExpr(), l);
    }
    return e;
  }
  ExprPtr notExpr() {
    DepthGuard g(*this);
    if (atName("not")) {
      Loc l = next().loc;
      auto e = std::make_unique<Expr>(Expr::Unary, l);
      e->name = "not";
      e->args.push_back(notExpr());
      return e;
    }
    return comparison();
  }
  ExprPtr comparison() {
    ExprPtr e = bitOr();
    static const char *ops[] = {"<", ">", "==", ">=", "<=", "!="};
    for (;;) {
      const char *found = nullptr;
      for (const char *op : ops)
        if (atOp(op))
          found = op;
      // `is` / `is not` (x is None, a constexpr's test): == / != on
      // compile-time values.
      if (!found && atName("is")) {
        Loc l = next().loc;
        bool negated = atName("not");
        if (negated)
          next();
        ExprPtr rhs = bitOr();
        e = binary(std::move(e), negated ? "!=" : "==", std::move(rhs), l,
                   Expr::Compare);
        continue;
      }
      if (!found)
        return e;
      Loc l = next().loc;
      ExprPtr rhs = bitOr();
      for (const char *op : ops)
        if (atOp(op))
          fail(peek().loc, "chained comparisons are not supported; combine "
                           "them with '&'");
      e = binary(std::move(e), found, std::move(rhs), l, Expr::Compare);
    }
  }
  template <typename Next>
  ExprPtr leftAssoc(std::initializer_list<const char *> ops, Next nextFn) {
    ExprPtr e = (this->*nextFn)();
    for (;;) {
      const char *found = nullptr;
      for (const char *op : ops)
        if (atOp(op))
          found = op;
      if (!found)
        return e;
      Loc l = next().loc;
      e = binary(std::move(e), found, (this->*nextFn)(), l);
    }
  }
  ExprPtr bitOr() { return leftAssoc({"|"}, &Parser::bitXor); }
  ExprPtr bitXor() { return leftAssoc({"^"}, &Parser::bitAnd); }
  ExprPtr bitAnd() { return leftAssoc({"&"}, &Parser::shift); }
  ExprPtr shift() { return leftAssoc({"<<", ">>"}, &Parser::arith); }
  ExprPtr arith() { return leftAssoc({"+", "-"}, &Parser::term); }
  ExprPtr term() { return leftAssoc({"*", "/", "//", "%"}, &Parser::unary); }

  ExprPtr unary() {
    DepthGuard g(*this);
    if (atOp("-") || atOp("+") || atOp("~")) {
      Token t = next();
      auto e = std::make_unique<Expr>(Expr::Unary, t.loc);
      e->name = t.text;
      e->args.push_back(unary());
      return e;
    }
    if (atOp("**"))
      fail(peek().loc, "'**' is not supported");
    ExprPtr e = postfix(atom());
    if (atOp("**"))
      fail(peek().loc, "'**' is not supported; multiply, or use exp/log");
    return e;
  }

  ExprPtr postfix(ExprPtr e) {
    for (;;) {
      if (atOp("(")) {
        next();
        // A call is located at its callee (the name the user reads).
        Loc l = e->kind == Expr::Attribute ? e->loc : e->loc;
        auto call = std::make_unique<Expr>(Expr::Call, l);
        call->args.push_back(std::move(e));
        while (!atOp(")")) {
          if (at(Tok::Name) && peek(1).kind == Tok::Op && peek(1).text == "=") {
            std::string key = next().text;
            next();
            call->kwargs.emplace_back(key, ternary());
          } else {
            if (!call->kwargs.empty())
              fail(peek().loc, "positional argument after keyword arguments");
            call->args.push_back(ternary());
          }
          if (!acceptOp(","))
            break;
        }
        expectOp(")", "to close the call");
        e = std::move(call);
        checkHeight(*e);
      } else if (atOp("[")) {
        Loc l = next().loc;
        auto sub = std::make_unique<Expr>(Expr::Subscript, l);
        sub->args.push_back(std::move(e));
        while (!atOp("]")) {
          if (atOp(":")) {
            sub->args.push_back(std::make_unique<Expr>(Expr::Slice, next().loc));
          } else {
            sub->args.push_back(ternary());
          }
          if (!acceptOp(","))
            break;
        }
        expectOp("]", "to close the subscript");
        e = std::move(sub);
        checkHeight(*e);
      } else if (atOp(".")) {
        next();
        auto attr = std::make_unique<Expr>(Expr::Attribute, peek().loc);
        attr->name = expectName("an attribute name after '.'");
        attr->args.push_back(std::move(e));
        e = std::move(attr);
        checkHeight(*e);
      } else {
        return e;
      }
    }
  }

  ExprPtr atom() {
    Token t = peek();
    switch (t.kind) {
    case Tok::Name: {
      next();
      if (t.text == "True" || t.text == "False") {
        auto e = std::make_unique<Expr>(Expr::Bool, t.loc);
        e->intValue = t.text == "True";
        return e;
      }
      if (t.text == "None")
        return std::make_unique<Expr>(Expr::NoneLit, t.loc);
      static const char *keywords[] = {"def", "for", "in", "if", "else",
                                       "elif", "return", "pass", "and", "or",
                                       "not", "while", "lambda"};
      for (const char *k : keywords)
        if (t.text == k)
          fail(t.loc, "unexpected keyword '" + t.text + "'");
      auto e = std::make_unique<Expr>(Expr::Name, t.loc);
      e->name = t.text;
      return e;
    }
    case Tok::Int: {
      next();
      auto e = std::make_unique<Expr>(Expr::Int, t.loc);
      errno = 0;
      char *end = nullptr;
      unsigned long long v = std::strtoull(t.text.c_str(), &end, 0);
      if (errno == ERANGE || v > uint64_t(INT64_MAX))
        fail(t.loc, "integer literal " + t.text.substr(0, 40) +
                        (t.text.size() > 40 ? "..." : "") +
                        " does not fit in 64 bits");
      e->intValue = int64_t(v);
      return e;
    }
    case Tok::Float: {
      next();
      auto e = std::make_unique<Expr>(Expr::Float, t.loc);
      e->floatValue = std::strtod(t.text.c_str(), nullptr);
      if (std::isinf(e->floatValue))
        fail(t.loc, "float literal is too large");
      return e;
    }
    case Tok::Str: {
      next();
      auto e = std::make_unique<Expr>(Expr::Str, t.loc);
      e->name = t.text;
      // Adjacent literals concatenate, as in Python ("a" "b" is "ab"):
      // multi-line PTX for inline_asm_elementwise.
      while (peek().kind == Tok::Str) {
        e->name += peek().text;
        next();
      }
      return e;
    }
    case Tok::Op:
      if (t.text == "(") {
        next();
        if (acceptOp(")"))
          return std::make_unique<Expr>(Expr::Tuple, t.loc);
        ExprPtr inner = expr();
        if (inner->kind == Expr::Tuple && atOp(")"))
          inner->loc = t.loc;
        expectOp(")", "to close the parenthesis");
        return inner;
      }
      if (t.text == "[") {
        next();
        auto list = std::make_unique<Expr>(Expr::Tuple, t.loc);
        while (!atOp("]")) {
          list->args.push_back(ternary());
          if (list->args.size() == 1 && atName("for")) {
            // A comprehension over compile-time lists (autotune configs).
            list->kind = Expr::ListComp;
            while (atName("for")) {
              next();
              auto target = std::make_unique<Expr>(Expr::Name, peek().loc);
              target->name = expectName("a loop variable after 'for'");
              if (!atName("in"))
                fail(peek().loc, "expected 'in' in the comprehension");
              next();
              list->args.push_back(std::move(target));
              list->args.push_back(bitOr());
            }
            if (atName("if"))
              fail(peek().loc, "'if' in a comprehension is not supported");
            break;
          }
          if (!acceptOp(","))
            break;
        }
        expectOp("]", "to close the list");
        return list;
      }
      if (t.text == "{") {
        next();
        auto dict = std::make_unique<Expr>(Expr::Dict, t.loc);
        while (!atOp("}")) {
          dict->args.push_back(ternary());
          expectOp(":", "after a dictionary key");
          dict->args.push_back(ternary());
          if (!acceptOp(","))
            break;
        }
        expectOp("}", "to close the dictionary");
        return dict;
      }
      break;
    default:
      break;
    }
    fail(t.loc, "expected an expression, found " + describe(t));
  }

  std::vector<Token> toks;
  const ErrorFn &error;
  unsigned &errors;
  size_t i = 0;
  unsigned depth = 0;
  int indentLevel = 0;
};

} // namespace

static Module parseText(llvm::StringRef source, const ErrorFn &error,
                        unsigned &errors) {
  Lexer lexer(source, error, errors);
  std::vector<Token> toks = lexer.run();
  Parser parser(std::move(toks), error, errors);
  try {
    return parser.run();
  } catch (SyntaxError &) {
    return Module();
  }
}

/// Whether one module-level statement parses as Kite (silently).
static bool parsesAsKite(llvm::StringRef statement) {
  unsigned errors = 0;
  ErrorFn quiet = [](Loc, const std::string &) {};
  (void)parseText(statement, quiet, errors);
  return errors == 0;
}

Module kite::ast::parse(llvm::StringRef source, const ErrorFn &error,
                        unsigned &errors) {
  // A file of Triton kernels: its host code blanked (HostCode.h).
  std::vector<HostStatement> host;
  std::string masked = maskHostCode(source, parsesAsKite, host);
  Module m = parseText(masked, error, errors);
  m.hostStatements = std::move(host);
  return m;
}
