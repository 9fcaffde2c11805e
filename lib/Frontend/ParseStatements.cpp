//===- ParseStatements.cpp - The Kite parser: statements ------------------===//
//
// Members of the parser (ParserImpl.h) for statements.
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace kite::ast;
using kite::ast::detail::Parser;
using kite::ast::detail::SyntaxError;
using namespace kite::ast::lexer;

Block Parser::block() {
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

StmtPtr Parser::statement() {
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

StmtPtr Parser::ifStatement(unsigned elifs) {
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
