//===- Parser.h - Lexer and parser of the Kite language ----------*- C++ -*-===//

#ifndef KITE_LIB_FRONTEND_PARSER_H
#define KITE_LIB_FRONTEND_PARSER_H

#include "AST.h"

#include "llvm/ADT/StringRef.h"

#include <functional>

namespace kite::ast {

using ErrorFn = std::function<void(Loc, const std::string &)>;

/// Parses a whole source file. Errors go to `error` (the parser resumes at
/// the next statement and stops after 20); the result holds whatever parsed.
Module parse(llvm::StringRef source, const ErrorFn &error, unsigned &errors);

} // namespace kite::ast

#endif // KITE_LIB_FRONTEND_PARSER_H
