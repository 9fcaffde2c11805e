//===- Parser.cpp - Lexer and parser of the Kite language -----------------===//
//
// A Python-like grammar (docs/language.md) over the tokens of Lexer.h:
// indentation blocks, `def` with optional `@autotune(...)` and
// `@kernel(...)` decorators, assignments, `for ... in range()`,
// `if/elif/else`, `return`, expressions with Python's precedence. Hostile
// input (NUL bytes, invalid UTF-8, huge literals, deep nesting, enormous
// lines) gets a diagnostic, never a crash: recursion is bounded. This file:
// the top level (imports, decorators, functions) and parse(); statements
// and expressions are in ParseStatements.cpp and ParseExpressions.cpp.
//
//===----------------------------------------------------------------------===//

#include "Parser.h"
#include "HostCode.h"
#include "ParserImpl.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace kite::ast;
using kite::ast::detail::Parser;
using kite::ast::detail::SyntaxError;
using namespace kite::ast::lexer;

Module Parser::run() {
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

void Parser::importLine(Module &m) {
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

void Parser::importBlock(Module &m) {
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

void Parser::importStatement(Module &m) {
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

void Parser::recoverTopLevel() {
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

std::unique_ptr<Function> Parser::function() {
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
      heuristics(*f);
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

void Parser::heuristics(Function &f) {
  size_t start = i;
  try {
    quiet = true;
    expectOp("(", "after @triton.heuristics");
    if (atName("values") && peek(1).kind == Tok::Op && peek(1).text == "=") {
      next();
      next();
    }
    expectOp("{", "(a dict of lambdas)");
    while (!acceptOp("}")) {
      if (!at(Tok::Str))
        fail(peek().loc, "a constexpr's name");
      Function::Heuristic h;
      h.loc = peek().loc;
      h.name = next().text;
      expectOp(":", "after the name");
      if (!atName("lambda"))
        fail(peek().loc, "a lambda");
      next();
      h.arg = expectName("the lambda's parameter");
      expectOp(":", "after the lambda's parameter");
      h.body = ternary(); // one expression: a comma ends the entry
      f.heuristicNames.push_back(h.name);
      f.heuristics.push_back(std::move(h));
      if (!acceptOp(",")) {
        expectOp("}", "after the dict");
        break;
      }
    }
    expectOp(")", "after the dict");
    quiet = false;
  } catch (SyntaxError &) {
    // Host code Kite does not read: skip the call, recording the names it
    // sets (string keys of the dict at the top level of the call).
    quiet = false;
    i = start;
    f.heuristics.clear();
    f.heuristicNames.clear();
    if (acceptOp("(")) {
      int nest = 1;
      while (!at(Tok::End) && nest > 0) {
        if (atOp("(") || atOp("[") || atOp("{"))
          ++nest;
        else if (atOp(")") || atOp("]") || atOp("}"))
          --nest;
        else if (nest == 2 && at(Tok::Str) && peek(1).kind == Tok::Op &&
                 peek(1).text == ":")
          f.heuristicNames.push_back(peek().text);
        next();
      }
    }
  }
  expectNewline();
  while (accept(Tok::Newline)) {
  }
}

ExprPtr Parser::typeExpr() {
  if (atOp("*")) {
    Loc l = next().loc;
    auto e = std::make_unique<Expr>(Expr::Unary, l);
    e->name = "*";
    e->args.push_back(typeExpr());
    return e;
  }
  return ternary();
}

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
  // Host functions that read as Kite (e.g. one returning @triton.autotune's
  // configs), parsed alone and silently: kept for the decorators to call.
  for (const HostStatement &h : host) {
    if (h.name.empty() || h.text.find("def ") == std::string::npos)
      continue;
    unsigned hostErrors = 0;
    ErrorFn quiet = [](Loc, const std::string &) {};
    Module alone = parseText(h.text, quiet, hostErrors);
    if (hostErrors || alone.functions.size() != 1 ||
        alone.functions[0]->name != h.name || alone.functions[0]->isKernel ||
        !alone.functions[0]->params.empty())
      continue;
    m.hostFunctions[h.name] = std::move(alone.functions[0]);
  }
  m.hostStatements = std::move(host);
  return m;
}
