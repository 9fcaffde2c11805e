//===- ParseExpressions.cpp - The Kite parser: expressions ----------------===//
//
// Members of the parser (ParserImpl.h) for expressions.
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

ExprPtr Parser::expr() {
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

ExprPtr Parser::ternary() {
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

void Parser::checkHeight(Expr &e) {
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

ExprPtr Parser::orExpr() {
  ExprPtr e = andExpr();
  while (atName("or")) {
    Loc l = next().loc;
    e = binary(std::move(e), "or", andExpr(), l);
  }
  return e;
}

ExprPtr Parser::andExpr() {
  ExprPtr e = notExpr();
  while (atName("and")) {
    Loc l = next().loc;
    e = binary(std::move(e), "and", notExpr(), l);
  }
  return e;
}

ExprPtr Parser::notExpr() {
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

ExprPtr Parser::comparison() {
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
    // `in` / `not in` (a constexpr among a tuple's values; host code that
    // picks configurations).
    if (!found && (atName("in") || (atName("not") && peek(1).kind == Tok::Name &&
                                    peek(1).text == "in"))) {
      bool negated = atName("not");
      Loc l = next().loc;
      if (negated)
        next();
      ExprPtr rhs = bitOr();
      e = binary(std::move(e), negated ? "not in" : "in", std::move(rhs), l,
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
ExprPtr Parser::leftAssoc(std::initializer_list<const char *> ops, Next nextFn) {
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

ExprPtr Parser::unary() {
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

ExprPtr Parser::postfix(ExprPtr e) {
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

ExprPtr Parser::atom() {
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
