//===- CodeGenConfigs.cpp - @triton.autotune configs built by host code ---===//
//
// Libraries build their autotuning lists in a host function:
//
//   def _get_configs():
//       configs = []
//       for bn in [64, 128]:
//           for nw in [4, 8]:
//               configs.append(triton.Config({"BLOCK_N": bn}, num_warps=nw))
//       return configs
//
//   @triton.autotune(configs=_get_configs(), key=["N"])
//
// The parser keeps such a function where it reads as Kite's syntax
// (Module::hostFunctions); hostConfigs runs its body as Python would over
// compile-time values: numbers, bools, strings, None, lists, the
// configurations themselves, module constants, range, arithmetic,
// comparisons (`in` a list too), `and`/`or`/`not`, comprehensions, `for`,
// `if`/`else`, `append`/`extend`/`+=` on lists, `return`, a string's
// lower()/upper()/strip(), and `os.environ.get(NAME, DEFAULT)`, taken at
// its default (a library's switch: the kernel compiles alike whatever the
// environment). Anything else (a call into torch, a device query) is a
// reason, not an error: the kernel then needs its constexprs from -D.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "mlir/IR/Diagnostics.h"

#include <cctype>
#include <set>

namespace kite::frontend {

namespace {

/// A value of the host function: a compile-time scalar (Val), a list, or a
/// configuration (its config(...) call and the loop variables bound).
struct HostItem {
  enum Kind { Scalar, List, Config } kind = Scalar;
  Val scalar;
  std::vector<HostItem> list;
  const Expr *config = nullptr;
  std::map<std::string, Val> bound;
};

struct Unsupported {
  std::string why;
};

class ConfigEvaluator {
public:
  ConfigEvaluator(const std::function<std::optional<Val>(const std::string &,
                                                         Loc)> &constant,
                  const std::map<std::string, const Stmt *> &constantDefs)
      : constant(constant), constantDefs(constantDefs) {}

  std::vector<HostItem> run(const Function &fn) {
    std::optional<HostItem> result;
    block(fn.body, result);
    if (!result)
      throw Unsupported{"it returns nothing Kite can read"};
    if (result->kind != HostItem::List)
      throw Unsupported{"it returns no list"};
    return result->list;
  }

private:
  const std::function<std::optional<Val>(const std::string &, Loc)> &constant;
  const std::map<std::string, const Stmt *> &constantDefs;
  /// Module constants the kernel side could not evaluate, evaluated here
  /// (an environment switch): their values, and those being evaluated.
  std::map<std::string, HostItem> hostConstants;
  std::set<std::string> evaluatingConstants;
  std::map<std::string, HostItem> env;
  int64_t steps = 0;

  void step() {
    if (++steps > 100000)
      throw Unsupported{"it runs more than 100000 steps"};
  }

  static bool truthy(const HostItem &v) {
    if (v.kind == HostItem::List)
      return !v.list.empty();
    if (v.kind == HostItem::Config)
      return true;
    switch (v.scalar.kind) {
    case Val::Int:
    case Val::Bool:
      return v.scalar.i != 0;
    case Val::Float:
      return v.scalar.f != 0;
    case Val::Str:
      return !v.scalar.s.empty();
    case Val::None:
      return false;
    default:
      throw Unsupported{"a condition is not a compile-time value"};
    }
  }

  static HostItem scalar(Val v) {
    HostItem h;
    h.scalar = std::move(v);
    return h;
  }

  /// Runs `stmts`; sets `result` (and stops) at a `return`.
  void block(const Block &stmts, std::optional<HostItem> &result) {
    for (const StmtPtr &s : stmts) {
      step();
      if (result)
        return;
      statement(*s, result);
      if (result)
        return;
    }
  }

  void statement(const Stmt &s, std::optional<HostItem> &result) {
    switch (s.kind) {
    case Stmt::Pass:
      return;
    case Stmt::Return:
      result = s.value ? expr(*s.value) : scalar(Val());
      return;
    case Stmt::Assign: {
      if (s.names.size() != 1)
        throw Unsupported{"line " + std::to_string(s.loc.line) +
                          " assigns several names"};
      HostItem v = expr(*s.value);
      const std::string &name = s.names[0].first;
      if (s.op.empty()) {
        env[name] = std::move(v);
        return;
      }
      auto it = env.find(name);
      if (s.op == "+" && it != env.end() && it->second.kind == HostItem::List &&
          v.kind == HostItem::List) {
        for (HostItem &x : v.list)
          it->second.list.push_back(std::move(x));
        return;
      }
      if (it == env.end())
        throw Unsupported{"'" + name + "' is not bound"};
      it->second = binary(s.op, it->second, v, s.loc);
      return;
    }
    case Stmt::ExprStmt: {
      const Expr &e = *s.value;
      if (e.kind == Expr::Str) // a docstring
        return;
      if (e.kind == Expr::Call && e.args[0]->kind == Expr::Attribute &&
          e.args[0]->args[0]->kind == Expr::Name &&
          (e.args[0]->name == "append" || e.args[0]->name == "extend") &&
          e.args.size() == 2 && e.kwargs.empty()) {
        auto it = env.find(e.args[0]->args[0]->name);
        if (it == env.end() || it->second.kind != HostItem::List)
          throw Unsupported{"'" + e.args[0]->args[0]->name +
                            "' is not a list"};
        HostItem v = expr(*e.args[1]);
        if (e.args[0]->name == "append") {
          it->second.list.push_back(std::move(v));
        } else {
          if (v.kind != HostItem::List)
            throw Unsupported{"extend takes a list"};
          for (HostItem &x : v.list)
            it->second.list.push_back(std::move(x));
        }
        return;
      }
      throw Unsupported{"line " + std::to_string(s.loc.line) +
                        " is a call Kite does not evaluate"};
    }
    case Stmt::For: {
      if (s.names.size() != 1)
        throw Unsupported{"a loop unpacks several names"};
      HostItem over = expr(*s.value);
      if (over.kind != HostItem::List)
        throw Unsupported{"a loop goes over something not a list"};
      for (HostItem &x : over.list) {
        env[s.names[0].first] = x;
        block(s.body, result);
        if (result)
          return;
      }
      return;
    }
    case Stmt::If:
      block(truthy(expr(*s.value)) ? s.body : s.orelse, result);
      return;
    case Stmt::While:
      throw Unsupported{"it has a while loop"};
    }
  }

  HostItem binary(const std::string &op, const HostItem &a, const HostItem &b,
                  Loc l) {
    if (op == "+" && a.kind == HostItem::List && b.kind == HostItem::List) {
      HostItem r = a;
      r.list.insert(r.list.end(), b.list.begin(), b.list.end());
      return r;
    }
    if (a.kind != HostItem::Scalar || b.kind != HostItem::Scalar ||
        (a.scalar.kind != Val::Int && a.scalar.kind != Val::Bool) ||
        (b.scalar.kind != Val::Int && b.scalar.kind != Val::Bool))
      throw Unsupported{"line " + std::to_string(l.line) +
                        ": arithmetic Kite evaluates here is on integers"};
    int64_t x = a.scalar.i, y = b.scalar.i, r = 0;
    bool overflow = false;
    if (op == "+")
      overflow = __builtin_add_overflow(x, y, &r);
    else if (op == "-")
      overflow = __builtin_sub_overflow(x, y, &r);
    else if (op == "*")
      overflow = __builtin_mul_overflow(x, y, &r);
    else if (op == "//" || op == "%") {
      if (y == 0 || (x == INT64_MIN && y == -1))
        throw Unsupported{"line " + std::to_string(l.line) +
                          ": division by zero or overflow"};
      int64_t q = x / y, m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) { // Python floors
        q -= 1;
        m += y;
      }
      r = op == "//" ? q : m;
    } else if (op == "<<" && y >= 0 && y < 62 && x >= 0 && x < (int64_t(1) << (62 - y)))
      r = x << y;
    else
      throw Unsupported{"line " + std::to_string(l.line) + ": operator '" +
                        op + "'"};
    if (overflow)
      throw Unsupported{"line " + std::to_string(l.line) + ": overflow"};
    return scalar(Val::integer(r));
  }

  static bool equal(const Val &a, const Val &b) {
    auto num = [](const Val &v) { return v.kind == Val::Float ? v.f : double(v.i); };
    if (a.kind == Val::Str || b.kind == Val::Str)
      return a.kind == b.kind && a.s == b.s;
    if (a.kind == Val::None || b.kind == Val::None)
      return a.kind == b.kind;
    return num(a) == num(b);
  }

  HostItem compare(const Expr &e) {
    HostItem a = expr(*e.args[0]), b = expr(*e.args[1]);
    if ((e.name == "in" || e.name == "not in") && a.kind == HostItem::Scalar &&
        b.kind == HostItem::List) {
      bool found = false;
      for (const HostItem &x : b.list)
        found |= x.kind == HostItem::Scalar && equal(a.scalar, x.scalar);
      return scalar(Val::boolean(found == (e.name == "in")));
    }
    if (a.kind != HostItem::Scalar || b.kind != HostItem::Scalar)
      throw Unsupported{"line " + std::to_string(e.loc.line) +
                        " compares lists"};
    const Val &x = a.scalar, &y = b.scalar;
    const std::string &op = e.name;
    if (op == "==" || op == "is")
      return scalar(Val::boolean(equal(x, y)));
    if (op == "!=" || op == "is not")
      return scalar(Val::boolean(!equal(x, y)));
    if (!x.isConst() || !y.isConst())
      throw Unsupported{"line " + std::to_string(e.loc.line) +
                        " orders values that are not numbers"};
    double p = x.kind == Val::Float ? x.f : double(x.i);
    double q = y.kind == Val::Float ? y.f : double(y.i);
    if (op == "<")
      return scalar(Val::boolean(p < q));
    if (op == "<=")
      return scalar(Val::boolean(p <= q));
    if (op == ">")
      return scalar(Val::boolean(p > q));
    if (op == ">=")
      return scalar(Val::boolean(p >= q));
    throw Unsupported{"line " + std::to_string(e.loc.line) + ": '" + op + "'"};
  }

  /// Each combination of a comprehension's clauses from `clause` on.
  void comprehension(const Expr &e, size_t clause, std::vector<HostItem> &out) {
    if (clause + 1 >= e.args.size()) {
      out.push_back(expr(*e.args[0]));
      return;
    }
    HostItem over = expr(*e.args[clause + 1]);
    if (over.kind != HostItem::List)
      throw Unsupported{"a comprehension goes over something not a list"};
    const std::string &name = e.args[clause]->name;
    std::optional<HostItem> saved;
    if (auto it = env.find(name); it != env.end())
      saved = it->second;
    for (HostItem &x : over.list) {
      step();
      env[name] = x;
      comprehension(e, clause + 2, out);
    }
    if (saved)
      env[name] = *saved;
    else
      env.erase(name);
  }

  HostItem expr(const Expr &e) {
    step();
    switch (e.kind) {
    case Expr::Int:
      return scalar(Val::integer(e.intValue));
    case Expr::Float:
      return scalar(Val::floating(e.floatValue));
    case Expr::Bool:
      return scalar(Val::boolean(e.intValue != 0));
    case Expr::Str: {
      Val v;
      v.kind = Val::Str;
      v.s = e.name;
      return scalar(v);
    }
    case Expr::NoneLit:
      return scalar(Val());
    case Expr::Name: {
      if (auto it = env.find(e.name); it != env.end())
        return it->second;
      if (auto v = constant(e.name, e.loc))
        return scalar(*v);
      if (auto it = hostConstants.find(e.name); it != hostConstants.end())
        return it->second;
      auto def = constantDefs.find(e.name);
      if (def != constantDefs.end() && def->second->value &&
          evaluatingConstants.insert(e.name).second) {
        // Evaluated at the module's level: no local names.
        std::map<std::string, HostItem> saved;
        std::swap(saved, env);
        try {
          HostItem v = expr(*def->second->value);
          std::swap(saved, env);
          evaluatingConstants.erase(e.name);
          return hostConstants[e.name] = v;
        } catch (Unsupported &) {
          std::swap(saved, env);
          evaluatingConstants.erase(e.name);
        }
      }
      throw Unsupported{"'" + e.name + "' (line " + std::to_string(e.loc.line) +
                        ") is not a compile-time value"};
    }
    case Expr::Tuple: {
      HostItem list;
      list.kind = HostItem::List;
      for (const ExprPtr &x : e.args)
        list.list.push_back(expr(*x));
      return list;
    }
    case Expr::ListComp: {
      HostItem list;
      list.kind = HostItem::List;
      comprehension(e, 1, list.list);
      return list;
    }
    case Expr::Unary: {
      HostItem v = expr(*e.args[0]);
      if (e.name == "not")
        return scalar(Val::boolean(!truthy(v)));
      if (e.name == "-" && v.kind == HostItem::Scalar &&
          v.scalar.kind == Val::Int && v.scalar.i != INT64_MIN)
        return scalar(Val::integer(-v.scalar.i));
      if (e.name == "-" && v.kind == HostItem::Scalar &&
          v.scalar.kind == Val::Float)
        return scalar(Val::floating(-v.scalar.f));
      throw Unsupported{"line " + std::to_string(e.loc.line) + ": unary '" +
                        e.name + "'"};
    }
    case Expr::Binary: {
      if (e.name == "and" || e.name == "or") {
        HostItem a = expr(*e.args[0]);
        bool t = truthy(a);
        if ((e.name == "and") != t)
          return a;
        return expr(*e.args[1]);
      }
      return binary(e.name, expr(*e.args[0]), expr(*e.args[1]), e.loc);
    }
    case Expr::Compare:
      return compare(e);
    case Expr::Ternary:
      return expr(truthy(expr(*e.args[0])) ? *e.args[1] : *e.args[2]);
    case Expr::Call: {
      const Expr &callee = *e.args[0];
      bool isConfig =
          (callee.kind == Expr::Name && callee.name == "config") ||
          (callee.kind == Expr::Attribute &&
           (callee.name == "Config" || callee.name == "config"));
      if (isConfig) {
        HostItem c;
        c.kind = HostItem::Config;
        c.config = &e;
        for (auto &[name, v] : env)
          if (v.kind == HostItem::Scalar && v.scalar.isConst())
            c.bound[name] = v.scalar;
        return c;
      }
      // os.environ.get(NAME, DEFAULT) (or os.getenv): a library's
      // environment switch, taken at its default, so that a kernel compiles
      // alike whatever the environment (docs/language.md).
      if (callee.kind == Expr::Attribute && e.kwargs.empty() &&
          ((callee.name == "get" && callee.args[0]->kind == Expr::Attribute &&
            callee.args[0]->name == "environ" &&
            callee.args[0]->args[0]->kind == Expr::Name &&
            callee.args[0]->args[0]->name == "os") ||
           (callee.name == "getenv" && callee.args[0]->kind == Expr::Name &&
            callee.args[0]->name == "os"))) {
        if (e.args.size() == 3)
          return expr(*e.args[2]);
        if (e.args.size() == 2)
          return scalar(Val());
        throw Unsupported{"line " + std::to_string(e.loc.line) +
                          ": os.environ.get takes a name and a default"};
      }
      // A string's lower(), upper(), strip().
      if (callee.kind == Expr::Attribute && e.args.size() == 1 &&
          e.kwargs.empty() &&
          (callee.name == "lower" || callee.name == "upper" ||
           callee.name == "strip")) {
        HostItem v = expr(*callee.args[0]);
        if (v.kind != HostItem::Scalar || v.scalar.kind != Val::Str)
          throw Unsupported{"line " + std::to_string(e.loc.line) + ": " +
                            callee.name + "() of something not a string"};
        std::string &t = v.scalar.s;
        if (callee.name == "lower")
          for (char &c : t)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        else if (callee.name == "upper")
          for (char &c : t)
            c = char(std::toupper(static_cast<unsigned char>(c)));
        else {
          size_t b = t.find_first_not_of(" \t\n\r");
          size_t l = t.find_last_not_of(" \t\n\r");
          t = b == std::string::npos ? "" : t.substr(b, l - b + 1);
        }
        return v;
      }
      if (callee.kind == Expr::Name && callee.name == "range" &&
          e.kwargs.empty() && e.args.size() >= 2 && e.args.size() <= 4) {
        int64_t bounds[3] = {0, 0, 1};
        for (size_t i = 1; i < e.args.size(); ++i) {
          HostItem v = expr(*e.args[i]);
          if (v.kind != HostItem::Scalar || v.scalar.kind != Val::Int)
            throw Unsupported{"range takes integers"};
          bounds[e.args.size() == 2 ? 1 : i - 1] = v.scalar.i;
        }
        if (bounds[2] == 0)
          throw Unsupported{"range's step is 0"};
        HostItem list;
        list.kind = HostItem::List;
        for (int64_t i = bounds[0];
             bounds[2] > 0 ? i < bounds[1] : i > bounds[1]; i += bounds[2]) {
          step();
          list.list.push_back(scalar(Val::integer(i)));
        }
        return list;
      }
      throw Unsupported{"line " + std::to_string(e.loc.line) +
                        " calls something Kite does not evaluate"};
    }
    default:
      throw Unsupported{"line " + std::to_string(e.loc.line) +
                        " is an expression Kite does not evaluate"};
    }
  }
};

} // namespace

bool CodeGen::hostConfigs(const Function &fn, std::vector<ConfigItem> &items,
                          std::string &why) {
  // Module constants that are compile-time values; a name the module
  // computes otherwise is a reason, not an error.
  std::function<std::optional<Val>(const std::string &, Loc)> constant =
      [&](const std::string &name, Loc l) -> std::optional<Val> {
    if (!constantDefs.count(name))
      return std::nullopt;
    // Probed silently: a constant the module computes at run time
    // (os.environ) is a reason here, not an error of its own.
    mlir::ScopedDiagnosticHandler silence(
        ctx, [](mlir::Diagnostic &) { return mlir::success(); });
    try {
      Val v = moduleConstant(name, l);
      if (v.isConst() || v.kind == Val::Str || v.kind == Val::None)
        return v;
    } catch (CodeGenError &) {
    }
    return std::nullopt;
  };
  try {
    ConfigEvaluator evaluator(constant, constantDefs);
    for (HostItem &x : evaluator.run(fn)) {
      if (x.kind != HostItem::Config) {
        why = "'" + fn.name + "' returns a list of something other than "
              "configurations";
        return false;
      }
      items.emplace_back(x.config, std::move(x.bound));
    }
    return true;
  } catch (Unsupported &u) {
    why = "'" + fn.name + "': " + u.why;
    return false;
  }
}

} // namespace kite::frontend
