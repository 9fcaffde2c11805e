//===- HostCode.cpp - Host code of a file of Triton kernels ---------------===//
//
// See HostCode.h. The file is split into top-level statements by Python's
// own rules (a statement goes on through indented lines, open brackets,
// strings spanning lines and backslash continuations; decorators belong to
// the def below them; elif/else/except/finally to their if or try), each
// kept or blanked as a whole.
//
//===----------------------------------------------------------------------===//

#include "HostCode.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace kite::ast;
using llvm::StringRef;

namespace {

/// Lines of `source`, each without its newline.
llvm::SmallVector<StringRef> splitLines(StringRef source) {
  llvm::SmallVector<StringRef> lines;
  source.split(lines, '\n', -1, /*KeepEmpty=*/true);
  return lines;
}

/// The first word of a line: an identifier, or the first character.
StringRef firstWord(StringRef line) {
  line = line.ltrim(" \t");
  size_t n = 0;
  while (n < line.size() &&
         (llvm::isAlnum(line[n]) || line[n] == '_' || line[n] == '.'))
    ++n;
  return n ? line.take_front(n) : line.take_front(1);
}

/// Tracks strings, brackets and continuations across physical lines.
struct LineState {
  char triple = 0;   ///< an open ''' or """ string
  int brackets = 0;  ///< open ( [ {
  bool continued = false; ///< the line ended in a backslash

  bool open() const { return triple || brackets > 0 || continued; }

  void scan(StringRef line) {
    continued = false;
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (triple) {
        if (c == '\\') {
          ++i;
          continue;
        }
        if (c == triple && line.substr(i, 3) == std::string(3, triple)) {
          triple = 0;
          i += 2;
        }
        continue;
      }
      if (c == '#')
        return;
      if (c == '\'' || c == '"') {
        if (line.substr(i, 3) == std::string(3, c)) {
          triple = c;
          i += 2;
          continue;
        }
        // A one-line string: to its closing quote.
        for (++i; i < line.size() && line[i] != c; ++i)
          if (line[i] == '\\')
            ++i;
        continue;
      }
      if (c == '(' || c == '[' || c == '{')
        ++brackets;
      else if ((c == ')' || c == ']' || c == '}') && brackets > 0)
        --brackets;
      else if (c == '\\' && i + 1 == line.size())
        continued = true;
    }
  }
};

struct Statement {
  size_t first, last; ///< line indices, inclusive
};

bool startsBlockClause(StringRef word) {
  return word == "elif" || word == "else" || word == "except" ||
         word == "finally";
}

/// The decorator's dotted name: `@triton.autotune(...)` -> triton.autotune.
StringRef decoratorName(StringRef line) {
  line = line.ltrim(" \t").drop_front(); // '@'
  size_t n = 0;
  while (n < line.size() &&
         (llvm::isAlnum(line[n]) || line[n] == '_' || line[n] == '.'))
    ++n;
  return line.take_front(n);
}

bool kiteDecorator(StringRef name) {
  return name == "triton.jit" || name == "jit" || name == "kernel" ||
         name == "autotune" || name == "triton.autotune" ||
         name == "heuristics" || name == "triton.heuristics";
}

/// `def NAME(` / `class NAME` / `NAME =` / `NAME: ... =`: NAME.
std::string definedName(StringRef line) {
  line = line.ltrim(" \t");
  if (line.consume_front("def ") || line.consume_front("class "))
    line = line.ltrim(" ");
  size_t n = 0;
  while (n < line.size() && (llvm::isAlnum(line[n]) || line[n] == '_'))
    ++n;
  return line.take_front(n).str();
}

bool isAssignment(StringRef line) {
  std::string name = definedName(line);
  if (name.empty())
    return false;
  StringRef rest = line.ltrim(" \t").drop_front(name.size()).ltrim(" ");
  if (rest.starts_with(":"))
    return rest.contains('=');
  return rest.starts_with("=") && !rest.starts_with("==");
}

} // namespace

bool kite::ast::isTritonFile(StringRef source) {
  bool jit = false;
  for (StringRef line : splitLines(source)) {
    if (line.starts_with("@kernel"))
      return false; // Kite's own style: undecorated functions are helpers
    jit |= line.starts_with("@triton.jit") || line.starts_with("@jit");
  }
  return jit;
}

std::string kite::ast::maskHostCode(StringRef source,
                                    bool (*isKite)(StringRef),
                                    std::vector<HostStatement> &skipped) {
  if (!isTritonFile(source))
    return source.str();
  llvm::SmallVector<StringRef> lines = splitLines(source);
  // Top-level statements.
  std::vector<Statement> statements;
  LineState state;
  bool decorators = false; // the statement so far is decorators only
  for (size_t i = 0; i < lines.size(); ++i) {
    StringRef line = lines[i];
    bool wasOpen = state.open();
    state.scan(line);
    StringRef t = line.ltrim(" \t");
    bool blank = t.empty() || t.starts_with("#");
    if (wasOpen || blank || line.size() != t.size()) {
      // A statement's continuation or indented body.
      if (!statements.empty() && !blank)
        statements.back().last = i;
      continue;
    }
    if (!statements.empty() &&
        (decorators || startsBlockClause(firstWord(t)))) {
      statements.back().last = i;
      decorators = decorators && t.starts_with("@");
      continue;
    }
    statements.push_back({i, i});
    decorators = t.starts_with("@");
  }
  std::string out = source.str();
  // Line i's offset in `source`.
  std::vector<size_t> offsets(lines.size());
  for (size_t i = 0, at = 0; i < lines.size(); ++i) {
    offsets[i] = at;
    at += lines[i].size() + 1;
  }
  auto blankOut = [&](const Statement &s, std::string name, std::string what) {
    // The statement's text, its line numbers kept (blank lines above).
    std::string text(s.first, '\n');
    for (size_t i = s.first; i <= s.last; ++i)
      text += lines[i].str() + "\n";
    skipped.push_back({unsigned(s.first + 1), std::move(name), std::move(what),
                       std::move(text)});
    for (size_t i = s.first; i <= s.last; ++i)
      for (size_t k = 0; k < lines[i].size(); ++k)
        if (out[offsets[i] + k] != '\r')
          out[offsets[i] + k] = ' ';
  };
  for (const Statement &s : statements) {
    StringRef head = lines[s.first].ltrim(" \t");
    StringRef word = firstWord(head);
    if (word == "import" || word == "from")
      continue;
    if (head.starts_with("@")) {
      // Decorators, then the def (or class) they decorate.
      size_t def = s.first;
      bool kite = true;
      for (; def <= s.last; ++def) {
        StringRef l = lines[def].ltrim(" \t");
        if (l.starts_with("def ") || l.starts_with("class "))
          break;
        if (l.starts_with("@") && lines[def].size() == l.size())
          kite &= kiteDecorator(decoratorName(l));
      }
      std::string name = def <= s.last ? definedName(lines[def]) : "";
      bool isClass = def <= s.last &&
                     lines[def].ltrim(" \t").starts_with("class ");
      if (!kite || isClass)
        blankOut(s, name,
                 isClass ? "a class"
                         : "a function whose decorators are not Triton's "
                           "(@triton.jit, @triton.autotune, "
                           "@triton.heuristics)");
      continue;
    }
    if (word == "def") {
      blankOut(s, definedName(head), "a function without @triton.jit");
      continue;
    }
    if (word == "class") {
      blankOut(s, definedName(head), "a class");
      continue;
    }
    if (word == "try" || word == "if") {
      // Kept when it only imports (picking a module path); else host code.
      bool imports = true;
      LineState inner;
      for (size_t i = s.first + 1; i <= s.last; ++i) {
        StringRef l = lines[i].ltrim(" \t");
        bool continued = inner.open();
        inner.scan(lines[i]);
        if (continued || l.empty() || l.starts_with("#"))
          continue;
        StringRef w = firstWord(l);
        imports &= w == "import" || w == "from" || w == "pass" ||
                   w == "try" || w == "if" || startsBlockClause(w);
      }
      if (!imports)
        blankOut(s, "", "a top-level '" + word.str() +
                            "' block that does more than import");
      continue;
    }
    if (isAssignment(head)) {
      std::string text;
      for (size_t i = s.first; i <= s.last; ++i)
        text += lines[i].str() + "\n";
      if (!isKite(text))
        blankOut(s, definedName(head), "a module-level value that is not Kite");
      continue;
    }
    blankOut(s, "", "a top-level statement");
  }
  return out;
}
