//===- Lexer.h - Tokens of the Kite language --------------------*- C++ -*-===//
//
// Private to the frontend: turns source text into tokens (names, numbers,
// strings, operators, NEWLINE/INDENT/DEDENT as Python's tokenizer does).
// Hostile input (NUL bytes, invalid UTF-8, huge literals, enormous lines)
// gets a diagnostic, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_FRONTEND_LEXER_H
#define KITE_LIB_FRONTEND_LEXER_H

#include "Parser.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace kite::ast::lexer {

enum class Tok {
  Name, Int, Float, Str, Op, Newline, Indent, Dedent, End, Error
};

struct Token {
  Tok kind;
  std::string text;
  Loc loc;
};

class Lexer {
public:
  Lexer(llvm::StringRef src, const ErrorFn &error, unsigned &errors)
      : src(src), error(error), errors(errors) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    indents.push_back(0);
    bool lineStart = true;
    while (pos < src.size()) {
      if (lineStart) {
        lineStart = false;
        // Measure indentation; skip blank and comment-only lines.
        unsigned width = 0;
        size_t p = pos;
        bool tab = false;
        while (p < src.size() && (src[p] == ' ' || src[p] == '\t')) {
          tab |= src[p] == '\t';
          ++width;
          ++p;
        }
        if (p >= src.size() || src[p] == '\n' || src[p] == '#' ||
            (src[p] == '\r' && p + 1 < src.size() && src[p + 1] == '\n')) {
          while (p < src.size() && src[p] != '\n')
            ++p;
          advanceTo(p);
          if (pos < src.size())
            newline();
          lineStart = true;
          continue;
        }
        advanceTo(p);
        if (depth == 0) {
          if (tab)
            report(here(), "tabs are not allowed in indentation; use spaces");
          if (width > indents.back()) {
            indents.push_back(width);
            out.push_back({Tok::Indent, "", here()});
          } else {
            while (width < indents.back()) {
              indents.pop_back();
              out.push_back({Tok::Dedent, "", here()});
            }
            if (width != indents.back())
              report(here(), "unindent does not match any outer indentation "
                             "level");
          }
        }
      }
      char c = src[pos];
      Loc loc = here();
      if (c == '\n') {
        if (depth == 0)
          out.push_back({Tok::Newline, "", loc});
        newline();
        lineStart = depth == 0;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        advance(1);
        continue;
      }
      if (c == '#') {
        while (pos < src.size() && src[pos] != '\n')
          advance(1);
        continue;
      }
      if (c == '\\' && pos + 1 < src.size() && src[pos + 1] == '\n') {
        advance(1);
        newline();
        continue;
      }
      if (isalpha(uc(c)) || c == '_') {
        size_t p = pos;
        while (p < src.size() && (isalnum(uc(src[p])) || src[p] == '_'))
          ++p;
        out.push_back({Tok::Name, src.substr(pos, p - pos).str(), loc});
        advanceTo(p);
        continue;
      }
      if (isdigit(uc(c)) ||
          (c == '.' && pos + 1 < src.size() && isdigit(uc(src[pos + 1])))) {
        out.push_back(number(loc));
        continue;
      }
      if ((c == '"' || c == '\'') && src.substr(pos, 3) == std::string(3, c)) {
        // A triple-quoted string (Python's): it may span lines (multi-line
        // PTX for inline_asm_elementwise, as Triton code writes it).
        size_t close = src.find(std::string(3, c), pos + 3);
        if (close == llvm::StringRef::npos) {
          report(loc, "unterminated triple-quoted string");
          while (pos < src.size())
            src[pos] == '\n' ? newline() : advance(1);
          continue;
        }
        std::string text = src.substr(pos + 3, close - pos - 3).str();
        advance(3);
        while (pos < close)
          src[pos] == '\n' ? newline() : advance(1);
        advance(3);
        out.push_back({Tok::Str, std::move(text), loc});
        continue;
      }
      if (c == '"' || c == '\'') {
        size_t p = pos + 1;
        while (p < src.size() && src[p] != c && src[p] != '\n')
          ++p;
        if (p >= src.size() || src[p] != c) {
          report(loc, "unterminated string");
          advanceTo(p);
          continue;
        }
        out.push_back({Tok::Str, src.substr(pos + 1, p - pos - 1).str(), loc});
        advanceTo(p + 1);
        continue;
      }
      static const char *ops3[] = {"//=", "**=", ">>=", "<<="};
      static const char *ops2[] = {"==", "!=", "<=", ">=", "//", "**", "<<",
                                   ">>", "+=", "-=", "*=", "/=", "%=", "&=",
                                   "|=", "^=", "->"};
      std::string op;
      for (const char *o : ops3)
        if (src.substr(pos).starts_with(o))
          op = o;
      if (op.empty())
        for (const char *o : ops2)
          if (src.substr(pos).starts_with(o))
            op = o;
      if (op.empty() && llvm::StringRef("+-*/%<>=()[]{},:.@&|^~").contains(c))
        op = std::string(1, c);
      if (op.empty()) {
        if (uc(c) >= 0x80)
          report(loc, "unexpected non-ASCII byte 0x" + hex(uc(c)) +
                          " (Kite source is ASCII outside strings and "
                          "comments)");
        else
          report(loc, "unexpected character 0x" + hex(uc(c)));
        advance(1);
        continue;
      }
      if (op == "(" || op == "[" || op == "{")
        ++depth;
      if ((op == ")" || op == "]" || op == "}") && depth > 0)
        --depth;
      out.push_back({Tok::Op, op, loc});
      advance(op.size());
    }
    Loc end = here();
    if (!out.empty() && out.back().kind != Tok::Newline)
      out.push_back({Tok::Newline, "", end});
    while (indents.size() > 1) {
      indents.pop_back();
      out.push_back({Tok::Dedent, "", end});
    }
    out.push_back({Tok::End, "", end});
    return out;
  }

private:
  static unsigned char uc(char c) { return static_cast<unsigned char>(c); }
  static std::string hex(unsigned v) {
    const char *d = "0123456789abcdef";
    return {d[(v >> 4) & 15], d[v & 15]};
  }
  Loc here() const { return {line, col}; }
  void advance(size_t n) {
    pos += n;
    col += n;
  }
  void advanceTo(size_t p) { advance(p - pos); }
  void newline() {
    ++pos;
    ++line;
    col = 1;
  }
  void report(Loc loc, const std::string &msg) {
    ++errors;
    error(loc, msg);
  }

  Token number(Loc loc) {
    size_t p = pos;
    bool isFloat = false;
    if (src.substr(p).starts_with("0x") || src.substr(p).starts_with("0X")) {
      p += 2;
      while (p < src.size() && isxdigit(uc(src[p])))
        ++p;
    } else {
      while (p < src.size() && (isdigit(uc(src[p])) || src[p] == '_'))
        ++p;
      if (p < src.size() && src[p] == '.') {
        isFloat = true;
        ++p;
        while (p < src.size() && isdigit(uc(src[p])))
          ++p;
      }
      if (p < src.size() && (src[p] == 'e' || src[p] == 'E')) {
        size_t q = p + 1;
        if (q < src.size() && (src[q] == '+' || src[q] == '-'))
          ++q;
        if (q < src.size() && isdigit(uc(src[q]))) {
          isFloat = true;
          p = q;
          while (p < src.size() && isdigit(uc(src[p])))
            ++p;
        }
      }
    }
    std::string text = src.substr(pos, p - pos).str();
    advanceTo(p);
    if (p < src.size() && (isalpha(uc(src[p])) || src[p] == '_')) {
      report(loc, "invalid number literal '" + text + src[p] + "...'");
      while (pos < src.size() && (isalnum(uc(src[pos])) || src[pos] == '_'))
        advance(1);
      return {Tok::Error, text, loc};
    }
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    return {isFloat ? Tok::Float : Tok::Int, text, loc};
  }

  llvm::StringRef src;
  const ErrorFn &error;
  unsigned &errors;
  size_t pos = 0;
  unsigned line = 1, col = 1;
  int depth = 0;
  std::vector<unsigned> indents;
};

} // namespace kite::ast::lexer

#endif // KITE_LIB_FRONTEND_LEXER_H
