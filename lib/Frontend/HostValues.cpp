//===- HostValues.cpp - @triton.heuristics lambdas, evaluated ---------===//
//
// A heuristics lambda (`lambda args: triton.next_power_of_2(args["N"])`) is
// host code over the launch's arguments: its body, parsed as a Kite
// expression, is evaluated here with Python's semantics on numbers, bools,
// None and strings (arithmetic with true division, floor division and
// modulo as Python's, comparisons, `and`/`or`/`not` on truthiness, `x if c
// else y`, and triton.next_power_of_2, triton.cdiv, min, max, int, float,
// bool, abs). Reading anything else (a pointer's dtype, a tensor) is an
// error that says what the lambda read.
//
//===----------------------------------------------------------------------===//

#include "AST.h"
#include "HostValues.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cmath>
#include <cstdint>
#include <sstream>

using namespace kite;
using namespace kite::ast;

std::string HostValue::python() const {
  switch (kind) {
  case None:
    return "None";
  case Bool:
    return i ? "True" : "False";
  case Int:
    return std::to_string(i);
  case Float: {
    std::ostringstream os;
    os.precision(17);
    os << f;
    std::string t = os.str();
    if (t.find_first_of(".eEn") == std::string::npos)
      t += ".0";
    return t;
  }
  case Str:
    return "'" + s + "'";
  case Object:
    return "<object>";
  }
  return "None";
}

std::optional<HostValue> kite::parsePythonLiteral(const std::string &text) {
  if (text.empty())
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  long long iv = std::strtoll(text.c_str(), &end, 0);
  if (*end == 0 && errno == 0)
    return HostValue::integer(iv);
  double dv = std::strtod(text.c_str(), &end);
  if (*end == 0)
    return HostValue::floating(dv);
  if (text == "True" || text == "False")
    return HostValue::boolean(text == "True");
  if (text == "None")
    return HostValue();
  if (text.size() >= 2 && (text[0] == '\'' || text[0] == '"') &&
      text.back() == text[0])
    return HostValue::string(text.substr(1, text.size() - 2));
  return std::nullopt;
}

namespace {
struct EvalError {
  std::string message;
};

class Evaluator {
public:
  Evaluator(const std::string &arg,
            const std::map<std::string, HostValue> &values)
      : arg(arg), values(values) {}

  HostValue eval(const Expr &e) {
    switch (e.kind) {
    case Expr::Int:
      return HostValue::integer(e.intValue);
    case Expr::Float:
      return HostValue::floating(e.floatValue);
    case Expr::Bool:
      return HostValue::boolean(e.intValue != 0);
    case Expr::Str:
      return HostValue::string(e.name);
    case Expr::NoneLit:
      return HostValue();
    case Expr::Subscript:
      return lookup(e);
    case Expr::Unary:
      return unary(e.name, eval(*e.args[0]));
    case Expr::Binary:
      if (e.name == "and" || e.name == "or") {
        HostValue l = eval(*e.args[0]);
        bool t = truth(l);
        return (e.name == "and") == t ? eval(*e.args[1]) : l;
      }
      return binary(e.name, eval(*e.args[0]), eval(*e.args[1]));
    case Expr::Compare:
      return compare(e.name, eval(*e.args[0]), eval(*e.args[1]));
    case Expr::Ternary:
      return truth(eval(*e.args[0])) ? eval(*e.args[1]) : eval(*e.args[2]);
    case Expr::Call:
      return call(e);
    default:
      throw EvalError{"it uses an expression Kite does not evaluate in host "
                      "code"};
    }
  }

private:
  const std::string &arg;
  const std::map<std::string, HostValue> &values;

  HostValue lookup(const Expr &e) {
    if (e.args.size() != 2 || e.args[0]->kind != Expr::Name ||
        e.args[0]->name != arg || e.args[1]->kind != Expr::Str)
      throw EvalError{"it indexes something other than " + arg +
                      "['NAME']"};
    auto it = values.find(e.args[1]->name);
    if (it == values.end())
      throw EvalError{"it reads " + arg + "['" + e.args[1]->name +
                      "'], which is not an argument or constexpr of this "
                      "launch"};
    return it->second;
  }

  static bool truth(const HostValue &v) {
    switch (v.kind) {
    case HostValue::None:
      return false;
    case HostValue::Bool:
    case HostValue::Int:
      return v.i != 0;
    case HostValue::Float:
      return v.f != 0;
    case HostValue::Str:
      return !v.s.empty();
    case HostValue::Object:
      return true;
    }
    return false;
  }
  static bool numeric(const HostValue &v) {
    return v.kind == HostValue::Bool || v.kind == HostValue::Int ||
           v.kind == HostValue::Float;
  }
  static double real(const HostValue &v) {
    return v.kind == HostValue::Float ? v.f : double(v.i);
  }
  static void needNumbers(const std::string &op, const HostValue &a,
                          const HostValue &b) {
    if (!numeric(a) || !numeric(b))
      throw EvalError{"'" + op + "' needs numbers"};
  }

  HostValue unary(const std::string &op, const HostValue &v) {
    if (op == "not")
      return HostValue::boolean(!truth(v));
    if (!numeric(v))
      throw EvalError{"'" + op + "' needs a number"};
    if (op == "+")
      return v.kind == HostValue::Bool ? HostValue::integer(v.i) : v;
    if (op == "-") {
      if (v.kind != HostValue::Float && v.i == INT64_MIN)
        throw EvalError{"'-' overflows 64-bit integers"};
      return v.kind == HostValue::Float ? HostValue::floating(-v.f)
                                        : HostValue::integer(-v.i);
    }
    if (op == "~" && v.kind != HostValue::Float)
      return HostValue::integer(~v.i);
    throw EvalError{"'" + op + "' on this value"};
  }

  HostValue binary(const std::string &op, const HostValue &a,
                   const HostValue &b) {
    if (op == "+" && a.kind == HostValue::Str && b.kind == HostValue::Str)
      return HostValue::string(a.s + b.s);
    needNumbers(op, a, b);
    bool ints = a.kind != HostValue::Float && b.kind != HostValue::Float;
    if (op == "/") {
      if (real(b) == 0)
        throw EvalError{"it divides by zero"};
      return HostValue::floating(real(a) / real(b));
    }
    if (ints) {
      int64_t x = a.i, y = b.i, r = 0;
      // Python's integers do not overflow; 64 bits do: an error, not a
      // wrapped value.
      auto checked = [&](bool overflowed) {
        if (overflowed)
          throw EvalError{"'" + op + "' overflows 64-bit integers"};
        return HostValue::integer(r);
      };
      if (op == "+")
        return checked(__builtin_add_overflow(x, y, &r));
      if (op == "-")
        return checked(__builtin_sub_overflow(x, y, &r));
      if (op == "*")
        return checked(__builtin_mul_overflow(x, y, &r));
      if (op == "//" || op == "%") {
        if (y == 0)
          throw EvalError{"it divides by zero"};
        if (x == INT64_MIN && y == -1)
          throw EvalError{"'" + op + "' overflows 64-bit integers"};
        int64_t q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) { // Python floors
          --q;
          m += y;
        }
        return HostValue::integer(op == "//" ? q : m);
      }
      if (op == "&")
        return HostValue::integer(x & y);
      if (op == "|")
        return HostValue::integer(x | y);
      if (op == "^")
        return HostValue::integer(x ^ y);
      if (op == "<<" && y >= 0 && y < 63) {
        if (x != 0 && (x > (INT64_MAX >> y) || x < (INT64_MIN >> y)))
          throw EvalError{"'<<' overflows 64-bit integers"};
        return HostValue::integer(int64_t(uint64_t(x) << y));
      }
      if (op == ">>" && y >= 0)
        return HostValue::integer(y >= 63 ? (x < 0 ? -1 : 0) : x >> y);
    } else {
      double x = real(a), y = real(b);
      if (op == "+")
        return HostValue::floating(x + y);
      if (op == "-")
        return HostValue::floating(x - y);
      if (op == "*")
        return HostValue::floating(x * y);
      if (op == "//" || op == "%") {
        if (y == 0)
          throw EvalError{"it divides by zero"};
        double q = std::floor(x / y);
        return HostValue::floating(op == "//" ? q : x - q * y);
      }
    }
    throw EvalError{"'" + op + "' on these values"};
  }

  HostValue compare(const std::string &op, const HostValue &a,
                    const HostValue &b) {
    int c;
    if (numeric(a) && numeric(b)) {
      double x = real(a), y = real(b);
      if (a.kind != HostValue::Float && b.kind != HostValue::Float)
        c = a.i < b.i ? -1 : a.i > b.i;
      else
        c = x < y ? -1 : x > y;
    } else if (a.kind == HostValue::Str && b.kind == HostValue::Str) {
      c = a.s < b.s ? -1 : a.s > b.s;
    } else {
      // None, or values of different kinds: only (in)equality.
      bool equal = a.kind == b.kind;
      if (op == "==")
        return HostValue::boolean(equal);
      if (op == "!=")
        return HostValue::boolean(!equal);
      throw EvalError{"'" + op + "' between values of different kinds"};
    }
    if (op == "==")
      return HostValue::boolean(c == 0);
    if (op == "!=")
      return HostValue::boolean(c != 0);
    if (op == "<")
      return HostValue::boolean(c < 0);
    if (op == "<=")
      return HostValue::boolean(c <= 0);
    if (op == ">")
      return HostValue::boolean(c > 0);
    return HostValue::boolean(c >= 0); // >=
  }

  HostValue call(const Expr &e) {
    const Expr &callee = *e.args[0];
    std::string name;
    if (callee.kind == Expr::Name)
      name = callee.name;
    else if (callee.kind == Expr::Attribute && callee.args[0]->kind ==
                                                   Expr::Name &&
             callee.args[0]->name == "triton")
      name = callee.name;
    if (!e.kwargs.empty())
      throw EvalError{"it calls " + name + " with keyword arguments"};
    std::vector<HostValue> a;
    for (size_t k = 1; k < e.args.size(); ++k)
      a.push_back(eval(*e.args[k]));
    auto one = [&]() -> const HostValue & {
      if (a.size() != 1)
        throw EvalError{name + "() takes one argument"};
      return a[0];
    };
    if (name == "next_power_of_2") {
      const HostValue &v = one();
      if (v.kind != HostValue::Int && v.kind != HostValue::Bool)
        throw EvalError{"next_power_of_2() takes an integer"};
      int64_t p = 1;
      while (p < v.i && p < (int64_t(1) << 62))
        p <<= 1;
      return HostValue::integer(p);
    }
    if (name == "cdiv") {
      if (a.size() != 2)
        throw EvalError{"cdiv() takes two arguments"};
      HostValue sum = binary("+", a[0], a[1]);
      sum = binary("-", sum, HostValue::integer(1));
      return binary("//", sum, a[1]);
    }
    if (name == "min" || name == "max") {
      if (a.empty())
        throw EvalError{name + "() takes arguments"};
      HostValue best = a[0];
      for (size_t k = 1; k < a.size(); ++k)
        if (truth(compare(name == "min" ? "<" : ">", a[k], best)))
          best = a[k];
      return best;
    }
    if (name == "int") {
      const HostValue &v = one();
      if (v.kind == HostValue::Float) {
        if (!std::isfinite(v.f) || std::fabs(v.f) >= 9.2e18)
          throw EvalError{"int() of " + v.python()};
        return HostValue::integer(int64_t(std::trunc(v.f)));
      }
      if (numeric(v))
        return HostValue::integer(v.i);
    }
    if (name == "float" && numeric(one()))
      return HostValue::floating(real(one()));
    if (name == "bool")
      return HostValue::boolean(truth(one()));
    if (name == "abs" && numeric(one()))
      return one().kind == HostValue::Float
                 ? HostValue::floating(std::fabs(one().f))
                 : unary("-", one().i < 0 ? one() : unary("-", one()));
    throw EvalError{"it calls " + (name.empty() ? "a function" : name + "()") +
                    ", which Kite does not evaluate in host code"};
  }
};
} // namespace

std::optional<HostValue>
kite::ast::evaluateHostExpr(const Expr &body, const std::string &arg,
                            const std::map<std::string, HostValue> &values,
                            std::string &error) {
  try {
    return Evaluator(arg, values).eval(body);
  } catch (EvalError &e) {
    error = e.message;
    return std::nullopt;
  }
}
