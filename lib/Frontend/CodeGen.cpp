//===- CodeGen.cpp - Kite AST to the kite dialect ---------------------------===//
//
// Walks the AST of each `@kernel` function and emits a kite-dialect
// func.func. Semantics follow Triton (docs/language.md):
//   - values are scalars or blocks (ranked tensors); Python literals and
//     constexprs are compile-time values that fold and adopt the type of
//     the other operand ("weak" types);
//   - binary operators broadcast shapes like numpy (kite.splat for scalars,
//     kite.expand_dims + kite.broadcast for size-1 dimensions) and promote
//     element types (int < float; wider wins; bf16 with f16 gives f32);
//   - helper functions (no decorator) are inlined at each call by emitting
//     their body again with the arguments bound;
//   - `for` loops become scf.for, `if` on a runtime scalar scf.if, carrying
//     the variables they assign; constexpr conditions choose a branch.
// Errors are emitted at the offending expression and abort the current
// kernel (other kernels are still checked).
//
//===----------------------------------------------------------------------===//

#include "kite/Frontend/Frontend.h"

#include "AST.h"
#include "Parser.h"
#include "TritonSpellings.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include <cstdlib>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"

#include <cerrno>
#include <cmath>
#include <set>
#include <map>
#include <optional>

using namespace mlir;
using namespace ::kite::ast;
namespace kd = mlir::kite;

namespace {

/// Thrown to abandon the current kernel after a diagnostic.
struct CodeGenError {};

/// A value during code generation.
struct Val {
  enum Kind { None, Runtime, Int, Float, Bool, Str, DType, Tuple, Helper };
  Kind kind = None;
  mlir::Value v;        ///< Runtime
  mlir::Type dtype;     ///< DType
  int64_t i = 0;        ///< Int, Bool
  double f = 0;         ///< Float
  std::string s;        ///< Str
  std::vector<Val> elems;
  const Function *fn = nullptr;

  static Val runtime(mlir::Value v) {
    Val x;
    x.kind = Runtime;
    x.v = v;
    return x;
  }
  static Val integer(int64_t i) {
    Val x;
    x.kind = Int;
    x.i = i;
    return x;
  }
  static Val floating(double f) {
    Val x;
    x.kind = Float;
    x.f = f;
    return x;
  }
  static Val boolean(bool b) {
    Val x;
    x.kind = Bool;
    x.i = b;
    return x;
  }
  bool isConst() const { return kind == Int || kind == Float || kind == Bool; }
};

class CodeGen {
public:
  CodeGen(MLIRContext *ctx, StringRef file, const Module &module,
          const ::kite::FrontendOptions &options)
      : ctx(ctx), b(ctx), file(file), module(module), options(options) {
    for (auto &f : module.functions)
      functions[f->name] = f.get();
  }

  OwningOpRef<ModuleOp> run(unsigned &errors) {
    OwningOpRef<ModuleOp> m = ModuleOp::create(loc({1, 1}));
    bool anyKernel = false;
    for (auto &f : module.functions) {
      if (!f->isKernel)
        continue;
      anyKernel = true;
      try {
        b.setInsertionPointToEnd(m->getBody());
        kernel(*f);
      } catch (CodeGenError &) {
        ++errors;
      }
    }
    if (!anyKernel && errors == 0) {
      emitError(loc({1, 1})) << "no kernel in this file: mark a function "
                                "with @kernel";
      ++errors;
    }
    return m;
  }

private:
  //===--------------------------------------------------------------------===//
  // Diagnostics and locations
  //===--------------------------------------------------------------------===//

  Location loc(Loc l) { return FileLineColLoc::get(ctx, file, l.line, l.col); }

  [[noreturn]] void fail(Loc l, const Twine &msg) {
    emitError(loc(l)) << msg;
    throw CodeGenError();
  }

  std::string typeName(Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    if (auto p = dyn_cast<kd::PointerType>(t)) {
      os << "*" << p.getPointeeType();
      return s;
    }
    t.print(os);
    return s;
  }

  std::string describe(const Val &v) {
    switch (v.kind) {
    case Val::None:
      return "None";
    case Val::Runtime:
      return typeName(v.v.getType());
    case Val::Int:
      return "int constant " + std::to_string(v.i);
    case Val::Float:
      return "float constant";
    case Val::Bool:
      return "bool constant";
    case Val::Str:
      return "string";
    case Val::DType:
      return "dtype " + typeName(v.dtype);
    case Val::Tuple:
      return "tuple";
    case Val::Helper:
      return "function '" + v.fn->name + "'";
    }
    return "?";
  }

  //===--------------------------------------------------------------------===//
  // Types
  //===--------------------------------------------------------------------===//

  std::optional<Type> dtypeNamed(StringRef n) {
    if (n == "i1" || n == "bool" || n == "int1")
      return b.getI1Type();
    if (n == "i8" || n == "int8")
      return b.getI8Type();
    if (n == "i16" || n == "int16")
      return b.getI16Type();
    if (n == "i32" || n == "int32")
      return b.getI32Type();
    if (n == "i64" || n == "int64")
      return b.getI64Type();
    if (n == "f16" || n == "float16")
      return b.getF16Type();
    if (n == "bf16" || n == "bfloat16")
      return b.getBF16Type();
    if (n == "f32" || n == "float32")
      return b.getF32Type();
    if (n == "f64" || n == "float64")
      return b.getF64Type();
    return std::nullopt;
  }

  static ArrayRef<int64_t> shapeOf(Type t) {
    if (auto r = dyn_cast<RankedTensorType>(t))
      return r.getShape();
    return {};
  }
  static Type elemOf(Type t) { return getElementTypeOrSelf(t); }
  static bool isPtr(Type t) { return isa<kd::PointerType>(elemOf(t)); }
  static bool isFloat(Type t) { return isa<FloatType>(elemOf(t)); }
  static bool isInt(Type t) { return elemOf(t).isSignlessInteger(); }
  Type withShape(Type elem, ArrayRef<int64_t> shape) {
    if (shape.empty())
      return elem;
    return RankedTensorType::get(shape, elem);
  }

  /// Triton's promotion of two element types.
  Type promote(Type a, Type c, Loc l) {
    if (a == c)
      return a;
    bool fa = isa<FloatType>(a), fc = isa<FloatType>(c);
    if (fa && fc) {
      unsigned wa = a.getIntOrFloatBitWidth(), wc = c.getIntOrFloatBitWidth();
      if (wa == wc) // f16 with bf16
        return b.getF32Type();
      return wa > wc ? a : c;
    }
    if (fa)
      return a;
    if (fc)
      return c;
    if (a.isInteger(1))
      return c;
    if (c.isInteger(1))
      return a;
    return a.getIntOrFloatBitWidth() >= c.getIntOrFloatBitWidth() ? a : c;
  }

  //===--------------------------------------------------------------------===//
  // Values
  //===--------------------------------------------------------------------===//

  /// The type a constant takes by itself (Python int -> i32 or i64, float ->
  /// f32, bool -> i1).
  Type defaultType(const Val &v) {
    if (v.kind == Val::Float)
      return b.getF32Type();
    if (v.kind == Val::Bool)
      return b.getI1Type();
    return (v.i >= INT32_MIN && v.i <= INT32_MAX) ? b.getI32Type()
                                                 : b.getI64Type();
  }

  /// A runtime value of `v`, with element type `elem` for constants.
  mlir::Value materialize(const Val &v, Type elem, Loc l) {
    if (v.kind == Val::Runtime)
      return v.v;
    Location lc = loc(l);
    if (!v.isConst())
      fail(l, "expected a number or a block, got " + describe(v));
    if (auto ft = dyn_cast<FloatType>(elem)) {
      double d = v.kind == Val::Float ? v.f : double(v.i);
      return arith::ConstantOp::create(b, lc, ft, b.getFloatAttr(ft, d));
    }
    if (auto it = dyn_cast<IntegerType>(elem)) {
      if (v.kind == Val::Float)
        fail(l, "a float constant cannot become " + typeName(elem) +
                    "; use .to() on a block or an int literal");
      int64_t x = v.i;
      unsigned w = it.getWidth();
      if (w < 64 && w > 1 &&
          (x > (int64_t(1) << (w - 1)) - 1 + (int64_t(1) << (w - 1)) ||
           x < -(int64_t(1) << (w - 1))))
        fail(l, "constant " + std::to_string(x) + " does not fit in " +
                    typeName(elem));
      return arith::ConstantOp::create(b, lc, it, b.getIntegerAttr(it, x));
    }
    fail(l, "cannot make a constant of type " + typeName(elem));
  }

  mlir::Value runtime(const Val &v, Loc l) {
    return materialize(v, defaultType(v), l);
  }

  /// `x` (scalar or block) converted to element type `elem`.
  mlir::Value cast(mlir::Value x, Type elem, Loc l) {
    Type from = elemOf(x.getType());
    if (from == elem)
      return x;
    Location lc = loc(l);
    Type to = withShape(elem, shapeOf(x.getType()));
    if (isa<kd::PointerType>(from) || isa<kd::PointerType>(elem))
      fail(l, "cannot convert " + typeName(x.getType()) + " to " +
                  typeName(elem));
    bool ff = isa<FloatType>(from), ft = isa<FloatType>(elem);
    if (ff && ft) {
      if (from.getIntOrFloatBitWidth() < elem.getIntOrFloatBitWidth())
        return arith::ExtFOp::create(b, lc, to, x);
      if (from.getIntOrFloatBitWidth() > elem.getIntOrFloatBitWidth())
        return arith::TruncFOp::create(b, lc, to, x);
      // f16 <-> bf16 through f32
      mlir::Value wide = cast(x, b.getF32Type(), l);
      return arith::TruncFOp::create(b, lc, to, wide);
    }
    if (!ff && ft) {
      if (from.isInteger(1))
        return arith::UIToFPOp::create(b, lc, to, x);
      return arith::SIToFPOp::create(b, lc, to, x);
    }
    if (ff && !ft) {
      if (elem.isInteger(1)) {
        mlir::Value zero = splatTo(materialize(Val::floating(0), from, l),
                                   x.getType(), l);
        return arith::CmpFOp::create(b, lc, arith::CmpFPredicate::UNE, x, zero);
      }
      return arith::FPToSIOp::create(b, lc, to, x);
    }
    unsigned wf = from.getIntOrFloatBitWidth(), wt = elem.getIntOrFloatBitWidth();
    if (wt == 1) {
      mlir::Value zero = splatTo(materialize(Val::integer(0), from, l),
                                 x.getType(), l);
      return arith::CmpIOp::create(b, lc, arith::CmpIPredicate::ne, x, zero);
    }
    if (wf < wt)
      return wf == 1 ? arith::ExtUIOp::create(b, lc, to, x).getResult()
                     : arith::ExtSIOp::create(b, lc, to, x).getResult();
    return arith::TruncIOp::create(b, lc, to, x);
  }

  /// A scalar made a block of `like`'s shape (unchanged if already one).
  mlir::Value splatTo(mlir::Value x, Type like, Loc l) {
    ArrayRef<int64_t> shape = shapeOf(like);
    if (shape.empty() || isa<RankedTensorType>(x.getType()))
      return x;
    return kd::SplatOp::create(b, loc(l), withShape(x.getType(), shape), x);
  }

  /// Numpy broadcasting of two shapes.
  SmallVector<int64_t> broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> c,
                                      Loc l) {
    size_t n = std::max(a.size(), c.size());
    SmallVector<int64_t> out(n);
    for (size_t k = 0; k < n; ++k) {
      int64_t da = k < n - a.size() ? 1 : a[k - (n - a.size())];
      int64_t dc = k < n - c.size() ? 1 : c[k - (n - c.size())];
      if (da != dc && da != 1 && dc != 1)
        fail(l, "shapes " + shapeText(a) + " and " + shapeText(c) +
                    " do not broadcast (dimension " + std::to_string(k) +
                    ": " + std::to_string(da) + " vs " + std::to_string(dc) +
                    ")");
      out[k] = std::max(da, dc);
    }
    checkBlockSize(out, l);
    return out;
  }

  /// A block of more than 2^20 elements (Triton's limit, kd::kMaxBlockElements)
  /// is an error here, at its source, before anything is built: a block's
  /// registers and shared memory grow with it, and 2^32 elements would
  /// exhaust the host while compiling.
  void checkBlockSize(ArrayRef<int64_t> shape, Loc l) {
    int64_t n = 1;
    for (int64_t d : shape) {
      if (d > kd::kMaxBlockElements || n > kd::kMaxBlockElements / d) {
        n = -1;
        break;
      }
      n *= d;
    }
    if (n < 0)
      fail(l, "a block of shape " + shapeText(shape) +
                  " has more than 2^20 elements, the limit of a block; use "
                  "smaller blocks or a loop");
  }

  static std::string shapeText(ArrayRef<int64_t> s) {
    if (s.empty())
      return "scalar";
    std::string t = "[";
    for (size_t k = 0; k < s.size(); ++k)
      t += (k ? ", " : "") + std::to_string(s[k]);
    return t + "]";
  }

  /// `x` broadcast to `shape` (splat, expand_dims, broadcast).
  mlir::Value broadcastTo(mlir::Value x, ArrayRef<int64_t> shape, Loc l) {
    ArrayRef<int64_t> have = shapeOf(x.getType());
    if (have == shape)
      return x;
    Type elem = elemOf(x.getType());
    if (have.empty())
      return kd::SplatOp::create(b, loc(l), withShape(elem, shape), x);
    // Leading size-1 dimensions, then repeat the size-1 ones.
    while (shapeOf(x.getType()).size() < shape.size()) {
      SmallVector<int64_t> s(shapeOf(x.getType()));
      s.insert(s.begin(), 1);
      x = kd::ExpandDimsOp::create(b, loc(l), withShape(elem, s), x,
                                   b.getI32IntegerAttr(0));
    }
    if (shapeOf(x.getType()) != shape)
      x = kd::BroadcastOp::create(b, loc(l), withShape(elem, shape), x);
    return x;
  }

  /// Both operands as runtime values of one element type and shape.
  std::pair<mlir::Value, mlir::Value> unify(const Val &a, const Val &c, Loc l,
                                            bool allowPtr = false) {
    if (!a.isConst() && a.kind != Val::Runtime)
      fail(l, "expected a number or a block, got " + describe(a));
    if (!c.isConst() && c.kind != Val::Runtime)
      fail(l, "expected a number or a block, got " + describe(c));
    bool pa = a.kind == Val::Runtime && isPtr(a.v.getType());
    bool pc = c.kind == Val::Runtime && isPtr(c.v.getType());
    if (pa || pc) {
      if (!allowPtr)
        fail(l, "this operator does not apply to pointers (" + describe(a) +
                    ", " + describe(c) + ")");
      if (!pa || !pc || elemOf(a.v.getType()) != elemOf(c.v.getType()))
        fail(l, "cannot mix " + describe(a) + " and " + describe(c));
    }
    Type ea, ec;
    if (pa && pc) {
      ea = ec = elemOf(a.v.getType());
    } else if (a.kind == Val::Runtime && c.kind == Val::Runtime) {
      ea = elemOf(a.v.getType());
      ec = elemOf(c.v.getType());
      ea = ec = promote(ea, ec, l);
    } else if (a.kind == Val::Runtime) {
      ea = elemOf(a.v.getType());
      ec = weakType(c, ea);
      ea = ec = promote(ea, ec, l);
    } else if (c.kind == Val::Runtime) {
      ec = elemOf(c.v.getType());
      ea = weakType(a, ec);
      ea = ec = promote(ea, ec, l);
    } else {
      ea = ec = promote(defaultType(a), defaultType(c), l);
    }
    mlir::Value x = materialize(a, ea, l), y = materialize(c, ec, l);
    x = cast(x, ea, l);
    y = cast(y, ec, l);
    SmallVector<int64_t> shape =
        broadcastShape(shapeOf(x.getType()), shapeOf(y.getType()), l);
    return {broadcastTo(x, shape, l), broadcastTo(y, shape, l)};
  }

  /// The type a constant takes next to a runtime operand of element `other`.
  Type weakType(const Val &k, Type other) {
    if (isPtr(other))
      return defaultType(k);
    if (k.kind == Val::Float)
      return isa<FloatType>(other) ? other : b.getF32Type();
    if (k.kind == Val::Bool)
      return other.isInteger(1) ? other : b.getI1Type();
    if (isa<FloatType>(other) || other.isInteger(1))
      return isa<FloatType>(other) ? other : defaultType(k);
    if (k.i < INT32_MIN || k.i > INT32_MAX)
      return b.getI64Type().getWidth() >= other.getIntOrFloatBitWidth()
                 ? Type(b.getI64Type())
                 : other;
    return other;
  }

  //===--------------------------------------------------------------------===//
  // Operators
  //===--------------------------------------------------------------------===//

  Val foldBinary(const std::string &op, const Val &a, const Val &c, Loc l) {
    bool fl = a.kind == Val::Float || c.kind == Val::Float;
    double x = a.kind == Val::Float ? a.f : double(a.i);
    double y = c.kind == Val::Float ? c.f : double(c.i);
    int64_t p = a.i, q = c.i;
    auto overflow = [&](bool o) {
      if (o)
        fail(l, "integer overflow in a constant expression");
    };
    if (op == "/") {
      if (y == 0)
        fail(l, "division by zero in a constant expression");
      return Val::floating(x / y);
    }
    if (fl) {
      if (op == "+")
        return Val::floating(x + y);
      if (op == "-")
        return Val::floating(x - y);
      if (op == "*")
        return Val::floating(x * y);
      if (op == "//" || op == "%") {
        if (y == 0)
          fail(l, "division by zero in a constant expression");
        double d = std::floor(x / y);
        return Val::floating(op == "//" ? d : x - d * y);
      }
      fail(l, "operator '" + op + "' does not apply to float constants");
    }
    int64_t r = 0;
    if (op == "+") {
      overflow(__builtin_add_overflow(p, q, &r));
      return Val::integer(r);
    }
    if (op == "-") {
      overflow(__builtin_sub_overflow(p, q, &r));
      return Val::integer(r);
    }
    if (op == "*") {
      overflow(__builtin_mul_overflow(p, q, &r));
      return Val::integer(r);
    }
    if (op == "//" || op == "%") {
      if (q == 0)
        fail(l, "division by zero in a constant expression");
      overflow(p == INT64_MIN && q == -1);
      int64_t d = p / q, m = p % q;
      if (m != 0 && ((m < 0) != (q < 0))) { // Python floors
        --d;
        m += q;
      }
      return Val::integer(op == "//" ? d : m);
    }
    if (op == "&" || op == "and")
      return a.kind == Val::Bool && c.kind == Val::Bool ? Val::boolean(p & q)
                                                        : Val::integer(p & q);
    if (op == "|" || op == "or")
      return a.kind == Val::Bool && c.kind == Val::Bool ? Val::boolean(p | q)
                                                        : Val::integer(p | q);
    if (op == "^")
      return Val::integer(p ^ q);
    if (op == "<<") {
      if (q < 0 || q > 63)
        fail(l, "shift count out of range in a constant expression");
      return Val::integer(int64_t(uint64_t(p) << q));
    }
    if (op == ">>") {
      if (q < 0 || q > 63)
        fail(l, "shift count out of range in a constant expression");
      return Val::integer(p >> q);
    }
    fail(l, "unknown operator '" + op + "'");
  }

  Val binary(const std::string &op, const Val &a, const Val &c, Loc l) {
    if (a.isConst() && c.isConst())
      return foldBinary(op, a, c, l);
    Location lc = loc(l);
    // Pointer arithmetic.
    auto ptrSide = [&](const Val &v) {
      return v.kind == Val::Runtime && isPtr(v.v.getType());
    };
    if ((op == "+" || op == "-") && (ptrSide(a) || ptrSide(c))) {
      if (ptrSide(a) && ptrSide(c))
        fail(l, "cannot " + std::string(op == "+" ? "add" : "subtract") +
                    " two pointers");
      if (op == "-" && ptrSide(c))
        fail(l, "cannot subtract a pointer from an integer");
      const Val &p = ptrSide(a) ? a : c;
      const Val &o = ptrSide(a) ? c : a;
      mlir::Value off = o.kind == Val::Runtime
                            ? o.v
                            : materialize(o, defaultType(o), l);
      if (!isInt(off.getType()) || elemOf(off.getType()).isInteger(1))
        fail(l, "pointer offsets must be integers, got " +
                    typeName(off.getType()));
      if (op == "-")
        off = arith::SubIOp::create(
            b, lc,
            splatTo(materialize(Val::integer(0), elemOf(off.getType()), l),
                    off.getType(), l),
            off);
      SmallVector<int64_t> shape =
          broadcastShape(shapeOf(p.v.getType()), shapeOf(off.getType()), l);
      mlir::Value ptr = broadcastTo(p.v, shape, l);
      off = broadcastTo(off, shape, l);
      return Val::runtime(
          kd::AddPtrOp::create(b, lc, ptr.getType(), ptr, off).getResult());
    }
    auto [x, y] = unify(a, c, l);
    Type elem = elemOf(x.getType());
    bool fl = isa<FloatType>(elem);
    if (op == "/") {
      if (!fl) { // true division of integers
        Type f32 = b.getF32Type();
        x = cast(x, f32, l);
        y = cast(y, f32, l);
      }
      return Val::runtime(arith::DivFOp::create(b, lc, x, y));
    }
    if (op == "+")
      return Val::runtime(fl ? arith::AddFOp::create(b, lc, x, y).getResult()
                             : arith::AddIOp::create(b, lc, x, y).getResult());
    if (op == "-")
      return Val::runtime(fl ? arith::SubFOp::create(b, lc, x, y).getResult()
                             : arith::SubIOp::create(b, lc, x, y).getResult());
    if (op == "*")
      return Val::runtime(fl ? arith::MulFOp::create(b, lc, x, y).getResult()
                             : arith::MulIOp::create(b, lc, x, y).getResult());
    if (op == "//") {
      if (fl)
        return Val::runtime(math::FloorOp::create(
            b, lc, arith::DivFOp::create(b, lc, x, y)));
      return Val::runtime(arith::DivSIOp::create(b, lc, x, y));
    }
    if (op == "%")
      return Val::runtime(fl ? arith::RemFOp::create(b, lc, x, y).getResult()
                             : arith::RemSIOp::create(b, lc, x, y).getResult());
    if (fl)
      fail(l, "operator '" + op + "' needs integer or boolean operands, got " +
                  typeName(x.getType()));
    if (op == "&" || op == "and")
      return Val::runtime(arith::AndIOp::create(b, lc, x, y));
    if (op == "|" || op == "or")
      return Val::runtime(arith::OrIOp::create(b, lc, x, y));
    if (op == "^")
      return Val::runtime(arith::XOrIOp::create(b, lc, x, y));
    if (op == "<<")
      return Val::runtime(arith::ShLIOp::create(b, lc, x, y));
    if (op == ">>")
      return Val::runtime(arith::ShRSIOp::create(b, lc, x, y));
    fail(l, "unknown operator '" + op + "'");
  }

  Val compare(const std::string &op, const Val &a, const Val &c, Loc l) {
    if (a.isConst() && c.isConst()) {
      double x = a.kind == Val::Float ? a.f : double(a.i);
      double y = c.kind == Val::Float ? c.f : double(c.i);
      bool r = op == "<"    ? x < y
               : op == "<=" ? x <= y
               : op == ">"  ? x > y
               : op == ">=" ? x >= y
               : op == "==" ? x == y
                            : x != y;
      return Val::boolean(r);
    }
    auto [x, y] = unify(a, c, l);
    Location lc = loc(l);
    if (isFloat(x.getType())) {
      using P = arith::CmpFPredicate;
      P p = op == "<"    ? P::OLT
            : op == "<=" ? P::OLE
            : op == ">"  ? P::OGT
            : op == ">=" ? P::OGE
            : op == "==" ? P::OEQ
                         : P::UNE;
      return Val::runtime(arith::CmpFOp::create(b, lc, p, x, y));
    }
    using P = arith::CmpIPredicate;
    P p = op == "<"    ? P::slt
          : op == "<=" ? P::sle
          : op == ">"  ? P::sgt
          : op == ">=" ? P::sge
          : op == "==" ? P::eq
                       : P::ne;
    return Val::runtime(arith::CmpIOp::create(b, lc, p, x, y));
  }

  Val unary(const std::string &op, const Val &a, Loc l) {
    if (a.isConst()) {
      if (op == "-")
        return a.kind == Val::Float ? Val::floating(-a.f)
                                    : Val::integer(-a.i);
      if (op == "+")
        return a;
      if (op == "not")
        return Val::boolean(!(a.kind == Val::Float ? a.f != 0 : a.i != 0));
      if (op == "~")
        return Val::integer(~a.i);
    }
    if (a.kind != Val::Runtime)
      fail(l, "operator '" + op + "' does not apply to " + describe(a));
    Location lc = loc(l);
    Type t = a.v.getType();
    if (op == "+")
      return a;
    if (op == "-") {
      if (isFloat(t))
        return Val::runtime(arith::NegFOp::create(b, lc, a.v));
      return binary("-", Val::integer(0), a, l);
    }
    if (op == "not" || op == "~") {
      if (isFloat(t) || isPtr(t))
        fail(l, "operator '" + op + "' needs an integer or boolean operand");
      mlir::Value ones = splatTo(
          materialize(Val::integer(-1), elemOf(t), l), t, l);
      if (op == "not" && !elemOf(t).isInteger(1))
        fail(l, "'not' needs a boolean operand; compare with 0 first");
      return Val::runtime(arith::XOrIOp::create(b, lc, a.v, ones));
    }
    fail(l, "unknown operator '" + op + "'");
  }

  //===--------------------------------------------------------------------===//
  // Expressions
  //===--------------------------------------------------------------------===//

  using Scope = std::map<std::string, Val>;

  Val lookup(const std::string &name, Loc l) {
    auto it = scope->find(name);
    if (it != scope->end())
      return it->second;
    if (auto t = dtypeNamed(name)) {
      Val v;
      v.kind = Val::DType;
      v.dtype = *t;
      return v;
    }
    auto f = functions.find(name);
    if (f != functions.end()) {
      if (f->second->isKernel)
        fail(l, "kernel '" + name + "' cannot be called from a kernel; "
                "remove @kernel to make it a helper");
      Val v;
      v.kind = Val::Helper;
      v.fn = f->second;
      return v;
    }
    if (isBuiltin(name))
      fail(l, "'" + name + "' is a builtin function; call it");
    fail(l, "unknown name '" + name + "'");
  }

  static bool isBuiltin(StringRef n) {
    static const char *names[] = {
        "program_id", "num_programs", "arange", "load",  "store",
        "where",      "rand",         "randint", "randn", "zeros",
        "full",       "cdiv",         "min",    "max",   "minimum",
        "maximum",    "sum",          "dot",    "exp",   "log",
        "sqrt",       "abs",          "range",  "static_assert",
        "exp2",       "log2",         "sin",    "cos",   "tanh",
        "erf",        "rsqrt",        "floor",  "ceil",  "sigmoid",
        "fma",        "clamp",        "umulhi", "float",
        "zeros_like", "full_like",    "static_range", "debug_barrier",
        "static_print", "trans",      "permute", "reshape", "view",
        "xor_sum",    "argmax",       "argmin",  "cumsum",  "cumprod",
        "multiple_of", "max_contiguous", "max_constancy"};
    for (const char *b : names)
      if (n == b)
        return true;
    return false;
  }

  Val expr(const Expr &e) {
    switch (e.kind) {
    case Expr::Name:
      return lookup(e.name, e.loc);
    case Expr::Int:
      return Val::integer(e.intValue);
    case Expr::Float:
      return Val::floating(e.floatValue);
    case Expr::Bool:
      return Val::boolean(e.intValue);
    case Expr::Str: {
      Val v;
      v.kind = Val::Str;
      v.s = e.name;
      return v;
    }
    case Expr::NoneLit:
      return Val();
    case Expr::Slice:
      fail(e.loc, "':' is only allowed in x[:, None]-style subscripts");
    case Expr::Unary:
      if (e.name == "*")
        fail(e.loc, "pointer types are only allowed in parameter annotations");
      return unary(e.name, expr(*e.args[0]), e.loc);
    case Expr::Binary: {
      Val a = expr(*e.args[0]);
      Val c = expr(*e.args[1]);
      if ((e.name == "and" || e.name == "or") &&
          ((a.kind == Val::Runtime && !elemOf(a.v.getType()).isInteger(1)) ||
           (c.kind == Val::Runtime && !elemOf(c.v.getType()).isInteger(1))))
        fail(e.loc, "'" + e.name + "' needs boolean operands (masks); got " +
                        describe(a) + " and " + describe(c));
      return binary(e.name, a, c, e.loc);
    }
    case Expr::Compare:
      return compare(e.name, expr(*e.args[0]), expr(*e.args[1]), e.loc);
    case Expr::Ternary: {
      Val cond = expr(*e.args[0]);
      if (!cond.isConst())
        fail(e.loc, "'x if c else y' needs a compile-time condition; use "
                    "where(c, x, y) for blocks");
      return expr(*e.args[(cond.kind == Val::Float ? cond.f != 0 : cond.i != 0)
                              ? 1
                              : 2]);
    }
    case Expr::Tuple: {
      Val v;
      v.kind = Val::Tuple;
      for (auto &a : e.args)
        v.elems.push_back(expr(*a));
      return v;
    }
    case Expr::Subscript:
      return subscript(e);
    case Expr::Attribute:
      if (e.name == "T") { // x.T: the transpose of a 2-D block
        Val x = expr(*e.args[0]);
        return transpose(x, {}, e.loc, e.args[0]->loc);
      }
      fail(e.loc, "unknown attribute '" + e.name +
                      "' (blocks have .to(dtype), .T, .reshape(shape), "
                      ".trans(*dims), .permute(dims))");
    case Expr::Call:
      return call(e);
    }
    fail(e.loc, "unsupported expression");
  }

  Val subscript(const Expr &e) {
    Val base = expr(*e.args[0]);
    if (base.kind == Val::Tuple) {
      if (e.args.size() != 2)
        fail(e.loc, "tuples take one index");
      Val idx = expr(*e.args[1]);
      if (idx.kind != Val::Int || idx.i < 0 ||
          idx.i >= int64_t(base.elems.size()))
        fail(e.args[1]->loc, "tuple index must be a constant in range");
      return base.elems[idx.i];
    }
    if (base.kind != Val::Runtime || !isa<RankedTensorType>(base.v.getType()))
      fail(e.loc, "only blocks can be indexed (x[:, None]), got " +
                      describe(base));
    auto shape = shapeOf(base.v.getType());
    size_t slices = 0;
    for (size_t k = 1; k < e.args.size(); ++k) {
      const Expr &a = *e.args[k];
      if (a.kind == Expr::Slice)
        ++slices;
      else if (a.kind != Expr::NoneLit)
        fail(a.loc, "block subscripts take ':' and None only (x[:, None])");
    }
    if (slices != shape.size())
      fail(e.loc, "subscript has " + std::to_string(slices) +
                      " ':' for a block of rank " +
                      std::to_string(shape.size()));
    mlir::Value v = base.v;
    int axis = 0;
    for (size_t k = 1; k < e.args.size(); ++k) {
      if (e.args[k]->kind == Expr::NoneLit) {
        SmallVector<int64_t> s(shapeOf(v.getType()));
        s.insert(s.begin() + axis, 1);
        v = kd::ExpandDimsOp::create(b, loc(e.loc),
                                     withShape(elemOf(v.getType()), s), v,
                                     b.getI32IntegerAttr(axis));
      }
      ++axis;
    }
    return Val::runtime(v);
  }

  /// Positional and keyword arguments of a call, by parameter name.
  struct Args {
    std::vector<Val> values;
    std::vector<Loc> locs;
    std::vector<bool> given;
  };
  Args bindArgs(const Expr &call, const std::string &fname,
                ArrayRef<const char *> params, size_t required) {
    Args a;
    a.values.resize(params.size());
    a.locs.assign(params.size(), call.loc);
    a.given.assign(params.size(), false);
    if (call.args.size() - 1 > params.size())
      fail(call.loc, fname + "() takes at most " +
                         std::to_string(params.size()) + " argument(s), got " +
                         std::to_string(call.args.size() - 1));
    for (size_t k = 1; k < call.args.size(); ++k) {
      a.values[k - 1] = expr(*call.args[k]);
      a.locs[k - 1] = call.args[k]->loc;
      a.given[k - 1] = true;
    }
    for (auto &[key, value] : call.kwargs) {
      size_t idx = params.size();
      for (size_t k = 0; k < params.size(); ++k)
        if (key == params[k])
          idx = k;
      if (idx == params.size()) {
        std::string known;
        for (const char *p : params)
          known += (known.empty() ? "" : ", ") + std::string(p);
        fail(value->loc, fname + "() has no argument '" + key + "' (" +
                             known + ")");
      }
      if (a.given[idx])
        fail(value->loc, fname + "() got argument '" + key + "' twice");
      a.values[idx] = expr(*value);
      a.locs[idx] = value->loc;
      a.given[idx] = true;
    }
    for (size_t k = 0; k < required; ++k)
      if (!a.given[k])
        fail(call.loc, fname + "() is missing argument '" + params[k] + "'");
    return a;
  }

  int64_t constInt(const Val &v, Loc l, const char *what) {
    if (v.kind != Val::Int && v.kind != Val::Bool)
      fail(l, std::string(what) + " must be a compile-time integer (a literal "
                                  "or a constexpr), got " +
                  describe(v));
    return v.i;
  }

  Type dtypeArg(const Val &v, Loc l) {
    if (v.kind != Val::DType)
      fail(l, "expected a dtype (i32, f32, ...), got " + describe(v));
    return v.dtype;
  }

  SmallVector<int64_t> shapeArg(const Val &v, Loc l) {
    SmallVector<int64_t> s;
    if (v.kind == Val::Tuple) {
      for (const Val &e : v.elems)
        s.push_back(constInt(e, l, "a shape dimension"));
    } else {
      s.push_back(constInt(v, l, "a shape dimension"));
    }
    for (int64_t d : s)
      if (d <= 0 || d > (1 << 20) || (d & (d - 1)))
        fail(l, "block dimensions must be powers of two in [1, 2^20], got " +
                    std::to_string(d));
    checkBlockSize(s, l);
    return s;
  }

  mlir::Value asBool(const Val &v, Loc l, const char *what) {
    mlir::Value x = v.kind == Val::Runtime ? v.v : runtime(v, l);
    if (!elemOf(x.getType()).isInteger(1))
      fail(l, std::string(what) + " must be boolean (a comparison), got " +
                  typeName(x.getType()));
    return x;
  }

  Val call(const Expr &e) {
    const Expr &callee = *e.args[0];
    Location lc = loc(e.loc);
    // Methods: x.to(dtype)
    if (callee.kind == Expr::Attribute) {
      Val self = expr(*callee.args[0]);
      if (callee.name == "reshape" || callee.name == "view") {
        Args a = bindArgs(e, callee.name, {"shape"}, 1);
        return reshapeTo(self, shapeArg(a.values[0], a.locs[0]), e.loc,
                         callee.args[0]->loc);
      }
      if (callee.name == "trans" || callee.name == "permute") {
        SmallVector<int64_t> dims;
        for (size_t k = 1; k < e.args.size(); ++k) {
          Val d = expr(*e.args[k]);
          if (d.kind == Val::Tuple)
            for (const Val &x : d.elems)
              dims.push_back(constInt(x, e.args[k]->loc, "a dimension"));
          else
            dims.push_back(constInt(d, e.args[k]->loc, "a dimension"));
        }
        return transpose(self, dims, e.loc, callee.args[0]->loc);
      }
      if (callee.name != "to")
        fail(callee.loc, "unknown method '" + callee.name + "' (blocks have "
                         ".to(dtype), .reshape(shape), .trans(*dims), "
                         ".permute(dims))");
      Args a = bindArgs(e, "to", {"dtype", "bitcast"}, 1);
      Type t = dtypeArg(a.values[0], a.locs[0]);
      bool bitcast = false;
      if (a.given[1]) {
        const Val &bc = a.values[1];
        if (bc.kind != Val::Bool && bc.kind != Val::Int)
          fail(a.locs[1], ".to()'s bitcast must be True or False");
        bitcast = bc.i != 0;
      }
      if (bitcast) {
        // The same bits read as another type of the same width.
        mlir::Value x = self.kind == Val::Runtime ? self.v : runtime(self, e.loc);
        Type from = elemOf(x.getType());
        if (isa<kd::PointerType>(from) || isa<kd::PointerType>(t) ||
            from.getIntOrFloatBitWidth() != t.getIntOrFloatBitWidth())
          fail(e.loc, ".to(" + typeName(t) + ", bitcast=True) of " +
                          typeName(x.getType()) +
                          ": a bitcast needs types of the same width");
        if (from == t)
          return Val::runtime(x);
        return Val::runtime(arith::BitcastOp::create(
            b, lc, withShape(t, shapeOf(x.getType())), x));
      }
      if (self.isConst())
        return Val::runtime(materialize(self, t, e.loc));
      if (self.kind != Val::Runtime)
        fail(e.loc, ".to() applies to numbers and blocks, got " +
                        describe(self));
      return Val::runtime(cast(self.v, t, e.loc));
    }
    if (callee.kind != Expr::Name)
      fail(callee.loc, "only functions can be called");
    const std::string &n = callee.name;
    if (scope->count(n) || (!isBuiltin(n) && functions.count(n))) {
      Val f = lookup(n, callee.loc);
      if (f.kind != Val::Helper)
        fail(callee.loc, "'" + n + "' is not a function");
      return inlineHelper(*f.fn, e);
    }
    if (n == "program_id" || n == "num_programs") {
      Args a = bindArgs(e, n, {"axis"}, 1);
      int64_t axis = constInt(a.values[0], a.locs[0], "the axis");
      if (axis < 0 || axis > 2)
        fail(a.locs[0], "axis must be 0, 1 or 2, got " + std::to_string(axis));
      if (n == "program_id")
        return Val::runtime(kd::ProgramIdOp::create(
            b, lc, b.getI32Type(), b.getI32IntegerAttr(axis)));
      return Val::runtime(kd::NumProgramsOp::create(
          b, lc, b.getI32Type(), b.getI32IntegerAttr(axis)));
    }
    if (n == "arange") {
      Args a = bindArgs(e, n, {"start", "end"}, 2);
      int64_t s = constInt(a.values[0], a.locs[0], "arange's start");
      int64_t t = constInt(a.values[1], a.locs[1], "arange's end");
      int64_t len = t - s;
      if (len <= 0 || len > (1 << 20) || (len & (len - 1)))
        fail(e.loc, "arange(" + std::to_string(s) + ", " + std::to_string(t) +
                        ") has length " + std::to_string(len) +
                        "; it must be a power of two in [1, 2^20]");
      if (s < INT32_MIN || t > INT32_MAX)
        fail(e.loc, "arange bounds must fit in i32");
      return Val::runtime(kd::ArangeOp::create(
          b, lc, RankedTensorType::get({len}, b.getI32Type()),
          b.getI32IntegerAttr(s), b.getI32IntegerAttr(t)));
    }
    if (n == "load") {
      Args a = bindArgs(e, n, {"pointer", "mask", "other"}, 1);
      Val p = a.values[0];
      if (p.kind != Val::Runtime || !isPtr(p.v.getType()))
        fail(a.locs[0], "load() needs a pointer or a block of pointers, got " +
                            describe(p));
      mlir::Value ptr = p.v, mask, other;
      Type pointee = llvm::cast<kd::PointerType>(elemOf(ptr.getType())).getPointeeType();
      if (a.given[1] && a.values[1].kind != Val::None) {
        mask = asBool(a.values[1], a.locs[1], "load()'s mask");
        SmallVector<int64_t> shape = broadcastShape(
            shapeOf(ptr.getType()), shapeOf(mask.getType()), a.locs[1]);
        ptr = broadcastTo(ptr, shape, e.loc);
        mask = broadcastTo(mask, shape, e.loc);
      }
      if (a.given[2] && a.values[2].kind != Val::None) {
        if (!mask)
          fail(a.locs[2], "load()'s other needs a mask");
        Val o = a.values[2];
        mlir::Value ov = o.kind == Val::Runtime ? cast(o.v, pointee, a.locs[2])
                                                : materialize(o, pointee, a.locs[2]);
        other = broadcastTo(ov, shapeOf(ptr.getType()), a.locs[2]);
        if (shapeOf(other.getType()) != shapeOf(ptr.getType()))
          fail(a.locs[2], "load()'s other has shape " +
                              shapeText(shapeOf(other.getType())) +
                              ", the pointers " +
                              shapeText(shapeOf(ptr.getType())));
      }
      return Val::runtime(kd::LoadOp::create(b, lc, ptr, mask, other));
    }
    if (n == "store") {
      Args a = bindArgs(e, n, {"pointer", "value", "mask"}, 2);
      Val p = a.values[0];
      if (p.kind != Val::Runtime || !isPtr(p.v.getType()))
        fail(a.locs[0], "store() needs a pointer or a block of pointers, got " +
                            describe(p));
      mlir::Value ptr = p.v;
      Type pointee = llvm::cast<kd::PointerType>(elemOf(ptr.getType())).getPointeeType();
      Val v = a.values[1];
      mlir::Value value = v.kind == Val::Runtime
                              ? cast(v.v, pointee, a.locs[1])
                              : materialize(v, pointee, a.locs[1]);
      mlir::Value mask;
      SmallVector<int64_t> shape(shapeOf(ptr.getType()));
      if (a.given[2] && a.values[2].kind != Val::None) {
        mask = asBool(a.values[2], a.locs[2], "store()'s mask");
        shape = broadcastShape(shape, shapeOf(mask.getType()), a.locs[2]);
      }
      shape = broadcastShape(shape, shapeOf(value.getType()), a.locs[1]);
      ptr = broadcastTo(ptr, shape, e.loc);
      value = broadcastTo(value, shape, e.loc);
      if (mask)
        mask = broadcastTo(mask, shape, e.loc);
      kd::StoreOp::create(b, lc, ptr, value, mask);
      return Val();
    }
    if (n == "where") {
      Args a = bindArgs(e, n, {"condition", "x", "y"}, 3);
      mlir::Value c = asBool(a.values[0], a.locs[0], "where()'s condition");
      auto [x, y] = unify(a.values[1], a.values[2], e.loc, /*allowPtr=*/true);
      SmallVector<int64_t> shape = broadcastShape(
          shapeOf(c.getType()), shapeOf(x.getType()), e.loc);
      c = broadcastTo(c, shape, e.loc);
      x = broadcastTo(x, shape, e.loc);
      y = broadcastTo(y, shape, e.loc);
      return Val::runtime(arith::SelectOp::create(b, lc, c, x, y));
    }
    if (n == "rand" || n == "randint" || n == "randn") {
      Args a = bindArgs(e, n, {"seed", "offset"}, 2);
      Val s = a.values[0];
      mlir::Value seed = s.kind == Val::Runtime ? s.v : runtime(s, a.locs[0]);
      if (!isa<RankedTensorType>(seed.getType()) &&
          !(seed.getType().isInteger(32) || seed.getType().isInteger(64)))
        fail(a.locs[0], n + "()'s seed must be an i32 or i64 scalar, got " +
                            typeName(seed.getType()));
      if (isa<RankedTensorType>(seed.getType()))
        fail(a.locs[0], n + "()'s seed must be a scalar");
      Val o = a.values[1];
      mlir::Value off = o.kind == Val::Runtime ? o.v : runtime(o, a.locs[1]);
      Type oe = elemOf(off.getType());
      if (!(oe.isInteger(32) || oe.isInteger(64)))
        fail(a.locs[1], n + "()'s offsets must be i32 or i64, got " +
                            typeName(off.getType()));
      Type result = withShape(n == "randint" ? Type(b.getI32Type()) : Type(b.getF32Type()),
                              shapeOf(off.getType()));
      if (n == "rand")
        return Val::runtime(kd::RandOp::create(b, lc, result, seed, off));
      if (n == "randn")
        return Val::runtime(kd::RandNOp::create(b, lc, result, seed, off));
      return Val::runtime(kd::RandIntOp::create(b, lc, result, seed, off));
    }
    if (n == "zeros" || n == "full") {
      bool full = n == "full";
      Args a = full ? bindArgs(e, n, {"shape", "value", "dtype"}, 3)
                    : bindArgs(e, n, {"shape", "dtype"}, 2);
      SmallVector<int64_t> shape = shapeArg(a.values[0], a.locs[0]);
      Type t = dtypeArg(a.values[full ? 2 : 1], a.locs[full ? 2 : 1]);
      Val value = full ? a.values[1] : Val::integer(0);
      if (full && value.kind == Val::Runtime) {
        if (isa<RankedTensorType>(value.v.getType()))
          fail(a.locs[1], "full()'s value must be a scalar");
        return Val::runtime(broadcastTo(cast(value.v, t, a.locs[1]), shape, e.loc));
      }
      auto type = RankedTensorType::get(shape, t);
      TypedAttr scalar;
      if (auto ft = dyn_cast<FloatType>(t))
        scalar = b.getFloatAttr(ft, value.kind == Val::Float ? value.f
                                                             : double(value.i));
      else {
        if (value.kind == Val::Float)
          fail(a.locs[1], "a float value for an integer block");
        scalar = b.getIntegerAttr(t, value.i);
      }
      return Val::runtime(arith::ConstantOp::create(
          b, lc, type, DenseElementsAttr::get(type, scalar)));
    }
    if (n == "zeros_like" || n == "full_like") {
      // A block of x's shape and (unless dtype=) element type.
      bool full = n == "full_like";
      Args a = full ? bindArgs(e, n, {"input", "fill_value", "dtype"}, 2)
                    : bindArgs(e, n, {"input", "dtype"}, 1);
      const Val &x = a.values[0];
      if (x.kind != Val::Runtime || !isa<RankedTensorType>(x.v.getType()))
        fail(a.locs[0], n + "() needs a block, got " + describe(x));
      unsigned dtypeArgIndex = full ? 2 : 1;
      Type t = a.given[dtypeArgIndex] &&
                       a.values[dtypeArgIndex].kind != Val::None
                   ? dtypeArg(a.values[dtypeArgIndex], a.locs[dtypeArgIndex])
                   : elemOf(x.v.getType());
      if (isa<kd::PointerType>(t))
        fail(a.locs[0], n + "() of a block of pointers");
      Val value = full ? a.values[1] : Val::integer(0);
      mlir::Value scalar =
          value.kind == Val::Runtime
              ? cast(value.v, t, a.locs[1])
              : materialize(value.kind == Val::Float && !isa<FloatType>(t)
                                ? Val::integer(int64_t(value.f))
                                : value,
                            t, full ? a.locs[1] : e.loc);
      if (isa<RankedTensorType>(scalar.getType()))
        fail(a.locs[1], "full_like()'s value must be a scalar");
      return Val::runtime(
          broadcastTo(scalar, shapeOf(x.v.getType()), e.loc));
    }
    if (n == "cdiv") {
      Args a = bindArgs(e, n, {"x", "div"}, 2);
      Val one = Val::integer(1);
      return binary("//", binary("-", binary("+", a.values[0], a.values[1],
                                             e.loc),
                                 one, e.loc),
                    a.values[1], e.loc);
    }
    if ((n == "min" || n == "max") && e.args.size() == 3 && e.kwargs.empty())
      return minMax(n == "min", e, /*pythonBuiltin=*/true);
    if (n == "minimum" || n == "maximum")
      return minMax(n == "minimum", e);
    if (n == "sum" || n == "max" || n == "min" || n == "xor_sum" ||
        n == "argmax" || n == "argmin")
      return reduce(n, e);
    if (n == "dot") {
      Args a = bindArgs(e, n, {"a", "b", "acc", "input_precision"}, 2);
      mlir::Value x = a.values[0].kind == Val::Runtime ? a.values[0].v : Value();
      mlir::Value y = a.values[1].kind == Val::Runtime ? a.values[1].v : Value();
      if (!x || shapeOf(x.getType()).size() != 2 || !isFloat(x.getType()))
        fail(a.locs[0], "dot()'s a must be a 2-D float block, got " +
                            describe(a.values[0]));
      if (!y || shapeOf(y.getType()).size() != 2 || !isFloat(y.getType()))
        fail(a.locs[1], "dot()'s b must be a 2-D float block, got " +
                            describe(a.values[1]));
      auto sa = shapeOf(x.getType()), sb = shapeOf(y.getType());
      if (sa[1] != sb[0])
        fail(e.loc, "dot() of " + shapeText(sa) + " and " + shapeText(sb) +
                        ": inner dimensions differ");
      if (elemOf(x.getType()) != elemOf(y.getType()))
        fail(e.loc, "dot() operands have different types: " +
                        typeName(x.getType()) + " and " + typeName(y.getType()));
      if (sa[0] < 16 || sa[1] < 16 || sb[1] < 16)
        fail(e.loc, "dot() needs every dimension >= 16, got " + shapeText(sa) +
                        " x " + shapeText(sb));
      auto accType = RankedTensorType::get({sa[0], sb[1]}, b.getF32Type());
      mlir::Value acc;
      if (a.given[2] && a.values[2].kind != Val::None) {
        if (a.values[2].kind != Val::Runtime ||
            a.values[2].v.getType() != Type(accType))
          fail(a.locs[2], "dot()'s acc must be " + typeName(accType) +
                              ", got " + describe(a.values[2]));
        acc = a.values[2].v;
      } else {
        acc = arith::ConstantOp::create(
            b, lc, accType,
            DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
      }
      // f32 operands without input_precision: the configured default
      // (Triton's tf32 unless KITE_F32_DEFAULT says otherwise).
      auto precision = elemOf(x.getType()).isF32()
                           ? *kd::symbolizeInputPrecision(
                                 options.inputPrecision)
                           : kd::InputPrecision::IEEE;
      if (a.given[3]) {
        const Val &p = a.values[3];
        if (p.kind != Val::Str ||
            !kd::symbolizeInputPrecision(p.s).has_value())
          fail(a.locs[3], "input_precision must be \"ieee\", \"tf32\" or "
                          "\"tf32x3\"");
        precision = *kd::symbolizeInputPrecision(p.s);
      }
      return Val::runtime(kd::DotOp::create(
          b, lc, accType, x, y, acc,
          kd::InputPrecisionAttr::get(ctx, precision)));
    }
    if (n == "exp" || n == "log" || n == "sqrt" || n == "abs") {
      Args a = bindArgs(e, n, {"x"}, 1);
      Val v = a.values[0];
      mlir::Value x = v.kind == Val::Runtime ? v.v : runtime(v, a.locs[0]);
      if (n == "abs" && isInt(x.getType()))
        return Val::runtime(math::AbsIOp::create(b, lc, x));
      if (!isFloat(x.getType()))
        x = cast(x, b.getF32Type(), a.locs[0]);
      if (n == "exp")
        return Val::runtime(math::ExpOp::create(b, lc, x));
      if (n == "log")
        return Val::runtime(math::LogOp::create(b, lc, x));
      if (n == "sqrt")
        return Val::runtime(math::SqrtOp::create(b, lc, x));
      return Val::runtime(math::AbsFOp::create(b, lc, x));
    }
    if (n == "exp2" || n == "log2" || n == "sin" || n == "cos" ||
        n == "tanh" || n == "erf" || n == "rsqrt" || n == "floor" ||
        n == "ceil" || n == "sigmoid")
      return mathUnary(n, e);
    if (n == "multiple_of" || n == "max_contiguous" || n == "max_constancy") {
      // Triton's hints: facts about an integer block the compiler may not
      // prove (per dimension in Triton; Kite's analysis works along the
      // row-major index, so the last dimension's value is used).
      Args a = bindArgs(e, n, {"input", "values"}, 2);
      const Val &in = a.values[0];
      if (in.kind != Val::Runtime || !isInt(in.v.getType()) ||
          elemOf(in.v.getType()).isInteger(1))
        fail(a.locs[0], n + "() applies to integer values, got " +
                            describe(in));
      const Val &vals = a.values[1];
      const Val &last = vals.kind == Val::Tuple && !vals.elems.empty()
                            ? vals.elems.back()
                            : vals;
      int64_t value = constInt(last, a.locs[1], "the hint's value");
      if (value < 1)
        fail(a.locs[1], n + "()'s value must be positive, got " +
                            std::to_string(value));
      int64_t elems = 1;
      for (int64_t d : shapeOf(in.v.getType()))
        elems *= d;
      if (n != "multiple_of" && (value > elems || elems % value))
        fail(a.locs[1], n + "(" + std::to_string(value) +
                            ") must divide the block's " +
                            std::to_string(elems) + " elements");
      auto attr = b.getI64IntegerAttr(value);
      auto h = kd::HintOp::create(
          b, lc, in.v.getType(), in.v,
          n == "multiple_of" ? attr : IntegerAttr(),
          n == "max_contiguous" ? attr : IntegerAttr(),
          n == "max_constancy" ? attr : IntegerAttr());
      return Val::runtime(h.getResult());
    }
    if (n == "cumsum" || n == "cumprod") {
      // Triton's tl.cumsum / tl.cumprod(input, axis=0, reverse=False).
      Args a = bindArgs(e, n, {"input", "axis", "reverse"}, 1);
      const Val &in = a.values[0];
      if (in.kind != Val::Runtime || !isa<RankedTensorType>(in.v.getType()))
        fail(a.locs[0], n + "() scans a block, got " + describe(in));
      auto shape = shapeOf(in.v.getType());
      int64_t axis = a.given[1] && a.values[1].kind != Val::None
                         ? constInt(a.values[1], a.locs[1], "the axis")
                         : 0;
      if (axis < 0)
        axis += shape.size();
      if (axis < 0 || axis >= int64_t(shape.size()))
        fail(a.locs[1], "axis " + std::to_string(axis) +
                            " is out of range for a block of rank " +
                            std::to_string(shape.size()));
      if (elemOf(in.v.getType()).isInteger(1))
        fail(a.locs[0], n + "() of a boolean block; convert it with .to(i32)");
      bool reverse = false;
      if (a.given[2]) {
        if (a.values[2].kind != Val::Bool && a.values[2].kind != Val::Int)
          fail(a.locs[2], n + "()'s reverse must be True or False");
        reverse = a.values[2].i != 0;
      }
      auto scan = kd::ScanOp::create(
          b, lc, in.v.getType(), in.v,
          kd::ScanKindAttr::get(ctx, n == "cumsum" ? kd::ScanKind::Sum
                                                   : kd::ScanKind::Prod),
          b.getI32IntegerAttr(axis), reverse ? b.getUnitAttr() : UnitAttr());
      return Val::runtime(scan.getResult());
    }
    if (n == "trans" || n == "permute") {
      // trans(x, *dims) / permute(x, dims): no dims swaps a 2-D block.
      if (e.args.size() < 2)
        fail(e.loc, n + "() needs a block");
      Val x = expr(*e.args[1]);
      SmallVector<int64_t> dims;
      for (size_t k = 2; k < e.args.size(); ++k) {
        Val d = expr(*e.args[k]);
        if (d.kind == Val::Tuple)
          for (const Val &v : d.elems)
            dims.push_back(constInt(v, e.args[k]->loc, "a dimension"));
        else
          dims.push_back(constInt(d, e.args[k]->loc, "a dimension"));
      }
      for (auto &kw : e.kwargs) {
        if (kw.first != "dims")
          fail(kw.second->loc, n + "() has no argument '" + kw.first + "'");
        Val d = expr(*kw.second);
        for (const Val &v : d.kind == Val::Tuple ? d.elems
                                                 : std::vector<Val>{d})
          dims.push_back(constInt(v, kw.second->loc, "a dimension"));
      }
      if (n == "permute" && dims.empty())
        fail(e.loc, "permute() needs the new order of the dimensions");
      return transpose(x, dims, e.loc, e.args[1]->loc);
    }
    if (n == "reshape" || n == "view") {
      Args a = bindArgs(e, n, {"input", "shape", "can_reorder"}, 2);
      return reshapeTo(a.values[0], shapeArg(a.values[1], a.locs[1]), e.loc,
                       a.locs[0]);
    }
    if (n == "debug_barrier") {
      bindArgs(e, n, {}, 0);
      kd::DebugBarrierOp::create(b, lc);
      return Val();
    }
    if (n == "static_print") {
      // Prints its arguments when the kernel is compiled (a remark at the
      // call): constants by value, blocks and scalars by type.
      if (!e.kwargs.empty())
        fail(e.loc, "static_print() takes positional arguments only");
      std::string text;
      for (size_t k = 1; k < e.args.size(); ++k) {
        Val v = expr(*e.args[k]);
        std::string item;
        if (v.kind == Val::Str)
          item = v.s;
        else if (v.kind == Val::Int)
          item = std::to_string(v.i);
        else if (v.kind == Val::Bool)
          item = v.i ? "True" : "False";
        else if (v.kind == Val::Float) {
          char buf[32];
          std::snprintf(buf, sizeof buf, "%g", v.f);
          item = buf;
        } else
          item = describe(v);
        text += (k > 1 ? " " : "") + item;
      }
      emitRemark(lc) << "static_print: " << text;
      return Val();
    }
    if (n == "float") {
      // Python's float() of a constant: float('inf'), float('-inf'),
      // float('nan'), float(3).
      Args a = bindArgs(e, n, {"x"}, 1);
      const Val &v = a.values[0];
      if (v.kind == Val::Int || v.kind == Val::Bool)
        return Val::floating(double(v.i));
      if (v.kind == Val::Float)
        return v;
      if (v.kind == Val::Str) {
        std::string s = StringRef(v.s).trim().lower();
        bool neg = !s.empty() && s[0] == '-';
        if (!s.empty() && (s[0] == '-' || s[0] == '+'))
          s = s.substr(1);
        if (s == "inf" || s == "infinity")
          return Val::floating(neg ? -INFINITY : INFINITY);
        if (s == "nan")
          return Val::floating(NAN);
        char *end = nullptr;
        std::string full = (neg ? "-" : "") + s;
        double d = std::strtod(full.c_str(), &end);
        if (!full.empty() && !*end)
          return Val::floating(d);
      }
      fail(a.locs[0], "float() takes a number or a string such as 'inf', "
                      "'-inf' or 'nan', got " +
                          (v.kind == Val::Str ? "'" + v.s + "'" : describe(v)));
    }
    if (n == "fma") {
      Args a = bindArgs(e, n, {"x", "y", "z"}, 3);
      auto [x, y, z] = unify3(a.values[0], a.values[1], a.values[2], e.loc);
      if (!isFloat(z.getType())) {
        Type f32 = b.getF32Type();
        x = cast(x, f32, e.loc);
        y = cast(y, f32, e.loc);
        z = cast(z, f32, e.loc);
      }
      return Val::runtime(math::FmaOp::create(b, lc, x, y, z));
    }
    if (n == "clamp") {
      // Triton's tl.clamp(x, min, max): max(min(...)) with NaN in x not
      // propagated; min <= max is the caller's to keep.
      Args a = bindArgs(e, n, {"x", "min", "max"}, 3);
      auto [x, lo, hi] = unify3(a.values[0], a.values[1], a.values[2], e.loc);
      if (isFloat(x.getType()))
        return Val::runtime(arith::MinNumFOp::create(
            b, lc, arith::MaxNumFOp::create(b, lc, x, lo), hi));
      return Val::runtime(arith::MinSIOp::create(
          b, lc, arith::MaxSIOp::create(b, lc, x, lo), hi));
    }
    if (n == "umulhi") {
      // The high 32 bits of the unsigned 64-bit product of two i32 values.
      Args a = bindArgs(e, n, {"x", "y"}, 2);
      auto [x, y] = unify(a.values[0], a.values[1], e.loc);
      if (!elemOf(x.getType()).isInteger(32))
        fail(e.loc, "umulhi() takes i32 values, got " + typeName(x.getType()));
      Type i64 = withShape(b.getI64Type(), shapeOf(x.getType()));
      mlir::Value wx = arith::ExtUIOp::create(b, lc, i64, x);
      mlir::Value wy = arith::ExtUIOp::create(b, lc, i64, y);
      mlir::Value p = arith::MulIOp::create(b, lc, wx, wy);
      mlir::Value sh = splatTo(
          arith::ConstantOp::create(b, lc, b.getI64Type(),
                                    b.getI64IntegerAttr(32)),
          p.getType(), e.loc);
      mlir::Value hi = arith::ShRUIOp::create(b, lc, p, sh);
      return Val::runtime(arith::TruncIOp::create(b, lc, x.getType(), hi));
    }
    if (n == "static_assert") {
      Args a = bindArgs(e, n, {"condition", "message"}, 1);
      const Val &c = a.values[0];
      if (!c.isConst())
        fail(a.locs[0], "static_assert() needs a compile-time condition");
      if (!c.i)
        fail(e.loc, "static_assert failed" +
                        (a.given[1] && a.values[1].kind == Val::Str
                             ? ": " + a.values[1].s
                             : std::string()));
      return Val();
    }
    if (n == "range")
      fail(e.loc, "range() is only allowed in 'for ... in range(...)'");
    lookup(n, callee.loc); // unknown name
    fail(e.loc, "cannot call '" + n + "'");
  }

  /// `x` with its dimensions permuted: result dimension i is x's
  /// dimension dims[i] (no dims: a 2-D block transposed).
  Val transpose(const Val &x, SmallVector<int64_t> dims, Loc l, Loc xl) {
    if (x.kind != Val::Runtime || !isa<RankedTensorType>(x.v.getType()))
      fail(xl, "trans() needs a block, got " + describe(x));
    auto shape = shapeOf(x.v.getType());
    int64_t rank = shape.size();
    if (dims.empty()) {
      if (rank != 2)
        fail(l, "trans() of a " + std::to_string(rank) +
                    "-D block needs the order of its dimensions");
      dims = {1, 0};
    }
    if (int64_t(dims.size()) != rank)
      fail(l, "the order " + shapeText(dims) + " does not permute the " +
                  std::to_string(rank) + " dimensions of " +
                  shapeText(shape));
    SmallVector<bool> seen(rank, false);
    SmallVector<int32_t> order;
    SmallVector<int64_t> out;
    for (int64_t d : dims) {
      if (d < 0)
        d += rank;
      if (d < 0 || d >= rank || seen[d])
        fail(l, "the order " + shapeText(dims) + " does not permute the " +
                    std::to_string(rank) + " dimensions of " +
                    shapeText(shape));
      seen[d] = true;
      order.push_back(int32_t(d));
      out.push_back(shape[d]);
    }
    return Val::runtime(kd::TransOp::create(
        b, loc(l), withShape(elemOf(x.v.getType()), out), x.v,
        b.getDenseI32ArrayAttr(order)));
  }

  /// `x`'s elements in row-major order as a block of `shape`.
  Val reshapeTo(const Val &x, ArrayRef<int64_t> shape, Loc l, Loc xl) {
    if (x.kind != Val::Runtime || !isa<RankedTensorType>(x.v.getType()))
      fail(xl, "reshape() needs a block, got " + describe(x));
    auto from = shapeOf(x.v.getType());
    int64_t n = 1, m = 1;
    for (int64_t d : from)
      n *= d;
    for (int64_t d : shape)
      m *= d;
    if (n != m)
      fail(l, "reshape() of " + shapeText(from) + " (" + std::to_string(n) +
                  " elements) to " + shapeText(shape) + " (" +
                  std::to_string(m) + ")");
    return Val::runtime(kd::ReshapeOp::create(
        b, loc(l), withShape(elemOf(x.v.getType()), shape), x.v));
  }

  /// Three values broadcast to one shape and promoted to one type.
  std::tuple<mlir::Value, mlir::Value, mlir::Value>
  unify3(const Val &a, const Val &c, const Val &d, Loc l) {
    auto [x, y] = unify(a, c, l);
    auto [x2, z] = unify(Val::runtime(x), d, l);
    auto [y2, z2] = unify(Val::runtime(y), Val::runtime(z), l);
    auto [x3, z3] = unify(Val::runtime(x2), Val::runtime(z2), l);
    return {x3, y2, z3};
  }

  /// Triton's unary math builtins (ints are taken as f32): exp2, log2, sin,
  /// cos, tanh, erf, rsqrt, floor, ceil, sigmoid (1 / (1 + exp(-x))).
  Val mathUnary(const std::string &n, const Expr &e) {
    Args a = bindArgs(e, n, {"x"}, 1);
    Val v = a.values[0];
    mlir::Value x = v.kind == Val::Runtime ? v.v : runtime(v, a.locs[0]);
    if (!isFloat(x.getType()))
      x = cast(x, b.getF32Type(), a.locs[0]);
    Location lc = loc(e.loc);
    if (n == "exp2")
      return Val::runtime(math::Exp2Op::create(b, lc, x));
    if (n == "log2")
      return Val::runtime(math::Log2Op::create(b, lc, x));
    if (n == "sin")
      return Val::runtime(math::SinOp::create(b, lc, x));
    if (n == "cos")
      return Val::runtime(math::CosOp::create(b, lc, x));
    if (n == "tanh")
      return Val::runtime(math::TanhOp::create(b, lc, x));
    if (n == "erf")
      return Val::runtime(math::ErfOp::create(b, lc, x));
    if (n == "rsqrt")
      return Val::runtime(math::RsqrtOp::create(b, lc, x));
    if (n == "floor")
      return Val::runtime(math::FloorOp::create(b, lc, x));
    if (n == "ceil")
      return Val::runtime(math::CeilOp::create(b, lc, x));
    // sigmoid
    mlir::Value negated = arith::NegFOp::create(b, lc, x);
    Val denom = binary("+", Val::floating(1),
                       Val::runtime(math::ExpOp::create(b, lc, negated)),
                       e.loc);
    return binary("/", Val::floating(1), denom, e.loc);
  }

  Val minMax(bool isMin, const Expr &e, bool pythonBuiltin = false) {
    std::string n = isMin ? "minimum" : "maximum";
    Args a = bindArgs(e, n, {"x", "y"}, 2);
    // Python's min/max are elementwise; a block and an integer literal is
    // most often a port of Triton's tl.max(x, 1), which reduces.
    if (pythonBuiltin && e.args[2]->kind == Expr::Int &&
        a.values[0].kind == Val::Runtime &&
        isa<RankedTensorType>(a.values[0].v.getType())) {
      std::string py = isMin ? "min" : "max";
      std::string axis = std::to_string(e.args[2]->intValue);
      emitWarning(loc(e.loc))
          << py << "(block, " << axis << ") is the elementwise " << n
          << " (Python's " << py << "); for the reduction along axis " << axis
          << " write " << py << "(x, axis=" << axis << ") or tl." << py
          << "(x, " << axis << ")";
    }
    if (a.values[0].isConst() && a.values[1].isConst()) {
      Val lt = compare("<", a.values[0], a.values[1], e.loc);
      return (lt.i != 0) == isMin ? a.values[0] : a.values[1];
    }
    auto [x, y] = unify(a.values[0], a.values[1], e.loc);
    Location lc = loc(e.loc);
    if (isFloat(x.getType()))
      return Val::runtime(isMin ? arith::MinimumFOp::create(b, lc, x, y).getResult()
                                : arith::MaximumFOp::create(b, lc, x, y).getResult());
    return Val::runtime(isMin ? arith::MinSIOp::create(b, lc, x, y).getResult()
                              : arith::MaxSIOp::create(b, lc, x, y).getResult());
  }

  Val reduce(const std::string &n, const Expr &e) {
    bool argKind = n == "argmax" || n == "argmin";
    Args a = argKind ? bindArgs(e, n, {"input", "axis", "tie_break_left"}, 2)
                     : bindArgs(e, n, {"input", "axis"}, 1);
    if (argKind && a.given[2] &&
        !(a.values[2].kind == Val::Bool && a.values[2].i))
      fail(a.locs[2], n + "() supports tie_break_left=True only (the first "
                          "index of equal values)");
    const Val &in = a.values[0];
    if (in.kind != Val::Runtime || !isa<RankedTensorType>(in.v.getType()))
      fail(a.locs[0], n + "() reduces a block, got " + describe(in));
    auto shape = shapeOf(in.v.getType());
    int64_t axis = 0;
    if (a.given[1] && a.values[1].kind != Val::None)
      axis = constInt(a.values[1], a.locs[1], "the axis");
    else if (shape.size() != 1)
      fail(e.loc, n + "() of a " + std::to_string(shape.size()) +
                      "-D block needs axis=");
    if (axis < 0)
      axis += shape.size();
    if (axis < 0 || axis >= int64_t(shape.size()))
      fail(a.locs[1], "axis " + std::to_string(axis) + " is out of range for "
                      "a block of rank " + std::to_string(shape.size()));
    if (elemOf(in.v.getType()).isInteger(1))
      fail(a.locs[0], n + "() of a boolean block; convert it with .to(i32)");
    SmallVector<int64_t> out(shape);
    out.erase(out.begin() + axis);
    auto kind = n == "sum"      ? kd::ReduceKind::Sum
                : n == "max"    ? kd::ReduceKind::Max
                : n == "min"    ? kd::ReduceKind::Min
                : n == "xor_sum" ? kd::ReduceKind::Xor
                : n == "argmax" ? kd::ReduceKind::ArgMax
                                : kd::ReduceKind::ArgMin;
    bool arg = kind == kd::ReduceKind::ArgMax || kind == kd::ReduceKind::ArgMin;
    if (kind == kd::ReduceKind::Xor && !isInt(in.v.getType()))
      fail(a.locs[0], "xor_sum() reduces integers, got " + describe(in));
    Type resultElem = arg ? Type(b.getI32Type()) : elemOf(in.v.getType());
    return Val::runtime(kd::ReduceOp::create(
        b, loc(e.loc), withShape(resultElem, out), in.v,
        kd::ReduceKindAttr::get(ctx, kind), b.getI32IntegerAttr(axis)));
  }

  //===--------------------------------------------------------------------===//
  // Helpers (inlined)
  //===--------------------------------------------------------------------===//

  Val inlineHelper(const Function &f, const Expr &call) {
    if (++inlineDepth > 64)
      fail(call.loc, "helper calls nested more than 64 deep (recursion?)");
    std::vector<const char *> names;
    for (const Param &p : f.params)
      names.push_back(p.name.c_str());
    size_t required = 0;
    while (required < f.params.size() && !f.params[required].deflt)
      ++required;
    Args a = bindArgs(call, f.name, names, required);
    Scope inner;
    for (size_t k = 0; k < f.params.size(); ++k)
      inner[f.params[k].name] =
          a.given[k] ? a.values[k] : expr(*f.params[k].deflt);
    Scope *saved = scope;
    scope = &inner;
    std::optional<Val> result;
    try {
      for (size_t k = 0; k < f.body.size(); ++k) {
        const Stmt &s = *f.body[k];
        if (s.kind == Stmt::Return) {
          if (k + 1 != f.body.size())
            fail(s.loc, "'return' must be the last statement of a helper");
          result = s.value ? expr(*s.value) : Val();
          break;
        }
        statement(s);
      }
    } catch (CodeGenError &) {
      scope = saved;
      --inlineDepth;
      emitError(loc(call.loc)) << "note: in the call of '" << f.name << "'";
      throw;
    }
    scope = saved;
    --inlineDepth;
    return result ? *result : Val();
  }

  //===--------------------------------------------------------------------===//
  // Statements
  //===--------------------------------------------------------------------===//

  void assign(const std::string &name, Loc l, Val v) {
    if (isBuiltin(name) || dtypeNamed(name))
      fail(l, "cannot assign to '" + name + "': it names a builtin");
    auto it = scope->find(name);
    if (it != scope->end() && constexprNames.count(name) &&
        scope == kernelScope)
      fail(l, "cannot assign to constexpr parameter '" + name + "'");
    (*scope)[name] = std::move(v);
  }

  void statement(const Stmt &s) {
    switch (s.kind) {
    case Stmt::Pass:
      return;
    case Stmt::Return:
      if (inlineDepth == 0) {
        if (s.value)
          fail(s.loc, "kernels cannot return a value");
        fail(s.loc, "'return' in a kernel is not supported; guard the code "
                    "with masks or 'if'");
      }
      fail(s.loc, "'return' must be the last statement of a helper");
    case Stmt::ExprStmt: {
      expr(*s.value);
      return;
    }
    case Stmt::Assign: {
      Val v = expr(*s.value);
      if (!s.op.empty()) {
        Val old = lookup(s.names[0].first, s.names[0].second);
        v = binary(s.op, old, v, s.loc);
      }
      if (s.names.size() == 1) {
        assign(s.names[0].first, s.names[0].second, std::move(v));
        return;
      }
      if (v.kind != Val::Tuple || v.elems.size() != s.names.size())
        fail(s.loc, "cannot unpack " + describe(v) + " into " +
                        std::to_string(s.names.size()) + " names");
      for (size_t k = 0; k < s.names.size(); ++k)
        assign(s.names[k].first, s.names[k].second, v.elems[k]);
      return;
    }
    case Stmt::For:
      return forLoop(s);
    case Stmt::If:
      return ifStatement(s);
    case Stmt::While:
      return whileLoop(s);
    }
  }

  /// `while cond: body` as scf.while: the names assigned in the body that
  /// exist before it go around the loop; the condition (a scalar) is
  /// evaluated before each iteration on their current values.
  void whileLoop(const Stmt &s) {
    std::vector<std::string> assigned;
    assignedIn(s.body, assigned);
    std::vector<std::string> carried;
    SmallVector<mlir::Value> inits;
    for (const std::string &n : assigned) {
      auto found = scope->find(n);
      if (found == scope->end())
        continue;
      Val &v = found->second;
      if (v.isConst())
        v = Val::runtime(runtime(v, s.loc));
      if (v.kind != Val::Runtime)
        continue;
      carried.push_back(n);
      inits.push_back(v.v);
    }
    SmallVector<Type> types;
    for (mlir::Value v : inits)
      types.push_back(v.getType());
    Location lc = loc(s.loc);
    auto loop = scf::WhileOp::create(b, lc, types, inits);
    Scope saved = *scope;
    SmallVector<Location> locs(types.size(), lc);
    {
      // Before: the condition on the current values.
      OpBuilder::InsertionGuard guard(b);
      mlir::Block *before = b.createBlock(&loop.getBefore(), {}, types, locs);
      for (size_t k = 0; k < carried.size(); ++k)
        (*scope)[carried[k]] = Val::runtime(before->getArgument(k));
      Val cond = expr(*s.value);
      if (cond.isConst())
        fail(s.value->loc, "the while condition is a constant; the loop would "
                           "run never or forever (Kite has no break)");
      if (cond.kind != Val::Runtime ||
          isa<RankedTensorType>(cond.v.getType()))
        fail(s.value->loc, "'while' needs a scalar condition, got " +
                               describe(cond));
      mlir::Value c = cond.v;
      if (!c.getType().isInteger(1))
        c = cast(c, b.getI1Type(), s.value->loc);
      scf::ConditionOp::create(b, lc, c, before->getArguments());
    }
    {
      // After: the body, then the new values.
      OpBuilder::InsertionGuard guard(b);
      mlir::Block *after = b.createBlock(&loop.getAfter(), {}, types, locs);
      *scope = saved;
      for (size_t k = 0; k < carried.size(); ++k)
        (*scope)[carried[k]] = Val::runtime(after->getArgument(k));
      for (auto &st : s.body)
        statement(*st);
      SmallVector<mlir::Value> yields;
      for (size_t k = 0; k < carried.size(); ++k) {
        Val v = (*scope)[carried[k]];
        Type want = types[k];
        mlir::Value y = v.kind == Val::Runtime ? v.v : Value();
        if (v.isConst())
          y = materialize(v, elemOf(want), s.loc);
        if (!y)
          fail(s.loc, "'" + carried[k] + "' changes kind inside the loop");
        if (y.getType() != want && shapeOf(y.getType()).empty() &&
            elemOf(y.getType()) == elemOf(want))
          y = broadcastTo(y, shapeOf(want), s.loc);
        if (y.getType() != want)
          fail(s.loc, "loop-carried '" + carried[k] + "' is " +
                          typeName(want) + " before the loop but " +
                          typeName(y.getType()) + " after an iteration");
        yields.push_back(y);
      }
      scf::YieldOp::create(b, lc, yields);
    }
    *scope = saved;
    for (size_t k = 0; k < carried.size(); ++k)
      (*scope)[carried[k]] = Val::runtime(loop.getResult(k));
  }

  /// Names assigned anywhere in `block` (recursively).
  static void assignedIn(const ::kite::ast::Block &block, std::vector<std::string> &out) {
    for (auto &s : block) {
      if (s->kind == Stmt::Assign || s->kind == Stmt::For)
        for (auto &n : s->names)
          if (std::find(out.begin(), out.end(), n.first) == out.end())
            out.push_back(n.first);
      assignedIn(s->body, out);
      assignedIn(s->orelse, out);
    }
  }

  /// `for i in static_range(...)`: Triton's unrolled loop. The bounds are
  /// compile-time integers and the body is emitted once per value with `i`
  /// a compile-time constant (so it may shape blocks); names assigned in the
  /// body stay visible after it, as in Python.
  void staticLoop(const Stmt &s) {
    const Expr &r = *s.value;
    Args a = bindArgs(r, "static_range", {"start", "stop", "step"}, 1);
    int64_t start = 0, stop, step = 1;
    if (a.given[1]) {
      start = constInt(a.values[0], a.locs[0], "static_range()'s start");
      stop = constInt(a.values[1], a.locs[1], "static_range()'s stop");
    } else {
      stop = constInt(a.values[0], a.locs[0], "static_range()'s stop");
    }
    if (a.given[2])
      step = constInt(a.values[2], a.locs[2], "static_range()'s step");
    if (step == 0)
      fail(a.locs[2], "static_range() step must not be 0");
    int64_t count = step > 0 ? (stop - start + step - 1) / step
                             : (start - stop - step - 1) / -step;
    if (count > 4096)
      fail(r.loc, "static_range() of " + std::to_string(count) +
                      " iterations; at most 4096 are unrolled (use range())");
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      (*scope)[s.names[0].first] = Val::integer(i);
      for (auto &st : s.body)
        statement(*st);
    }
  }

  void forLoop(const Stmt &s) {
    const Expr &r = *s.value;
    if (r.kind == Expr::Call && r.args[0]->kind == Expr::Name &&
        r.args[0]->name == "static_range")
      return staticLoop(s);
    if (r.kind != Expr::Call || r.args[0]->kind != Expr::Name ||
        r.args[0]->name != "range")
      fail(r.loc, "for loops iterate over range(...) or static_range(...) "
                  "only");
    Args a = bindArgs(r, "range", {"start", "stop", "step"}, 1);
    Val start = Val::integer(0), stop = a.values[0], step = Val::integer(1);
    if (a.given[1]) {
      start = a.values[0];
      stop = a.values[1];
    }
    if (a.given[2])
      step = a.values[2];
    if (step.kind == Val::Int && step.i <= 0)
      fail(a.locs[2], "range() step must be positive");
    for (const Val *v : {&start, &stop, &step})
      if (v->kind == Val::Runtime && (!v->v.getType().isSignlessInteger() ||
                                      isa<RankedTensorType>(v->v.getType())))
        fail(r.loc, "range() bounds must be integer scalars");
    Type it = b.getI32Type();
    for (const Val *v : {&start, &stop, &step})
      if (v->kind == Val::Runtime && v->v.getType().isInteger(64))
        it = b.getI64Type();
    Location lc = loc(s.loc);
    mlir::Value lo = cast(materialize(start, it, r.loc), it, r.loc);
    mlir::Value hi = cast(materialize(stop, it, r.loc), it, r.loc);
    mlir::Value st = cast(materialize(step, it, r.loc), it, r.loc);

    // Loop-carried: variables defined before the loop and assigned in it.
    std::vector<std::string> assigned;
    assignedIn(s.body, assigned);
    std::vector<std::string> carried;
    SmallVector<mlir::Value> inits;
    for (const std::string &n : assigned) {
      auto found = scope->find(n);
      if (found == scope->end() || n == s.names[0].first)
        continue;
      Val &v = found->second;
      if (v.isConst()) // a constant changed by the loop becomes a value
        v = Val::runtime(runtime(v, s.loc));
      if (v.kind != Val::Runtime)
        continue;
      carried.push_back(n);
      inits.push_back(v.v);
    }
    auto loop = scf::ForOp::create(b, lc, lo, hi, st, inits);
    // Without carried values the builder adds an empty scf.yield; the one
    // built below replaces it.
    if (loop.getBody()->mightHaveTerminator())
      loop.getBody()->getTerminator()->erase();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Scope saved = *scope;
    (*scope)[s.names[0].first] = Val::runtime(loop.getInductionVar());
    for (size_t k = 0; k < carried.size(); ++k)
      (*scope)[carried[k]] = Val::runtime(loop.getRegionIterArgs()[k]);
    for (auto &st2 : s.body)
      statement(*st2);
    SmallVector<mlir::Value> yields;
    for (size_t k = 0; k < carried.size(); ++k) {
      Val v = (*scope)[carried[k]];
      Type want = inits[k].getType();
      mlir::Value y = v.kind == Val::Runtime ? v.v : Value();
      if (v.isConst())
        y = materialize(v, elemOf(want), s.loc);
      if (!y)
        fail(s.loc, "'" + carried[k] + "' changes kind inside the loop");
      // A scalar assigned to a carried block is splat; types never change.
      if (y.getType() != want && shapeOf(y.getType()).empty() &&
          elemOf(y.getType()) == elemOf(want))
        y = broadcastTo(y, shapeOf(want), s.loc);
      if (y.getType() != want)
        fail(s.loc, "loop-carried '" + carried[k] + "' is " + typeName(want) +
                        " before the loop but " + typeName(y.getType()) +
                        " after an iteration");
      yields.push_back(y);
    }
    scf::YieldOp::create(b, lc, yields);
    // After the loop: carried values are the loop's results; names first
    // assigned inside the loop are not visible.
    *scope = saved;
    for (size_t k = 0; k < carried.size(); ++k)
      (*scope)[carried[k]] = Val::runtime(loop.getResult(k));
  }

  void ifStatement(const Stmt &s) {
    Val cond = expr(*s.value);
    if (cond.isConst()) { // resolved at compile time
      bool taken = cond.kind == Val::Float ? cond.f != 0 : cond.i != 0;
      for (auto &st : taken ? s.body : s.orelse)
        statement(*st);
      return;
    }
    if (cond.kind != Val::Runtime || isa<RankedTensorType>(cond.v.getType()))
      fail(s.value->loc, "'if' needs a scalar condition (use where() or masks "
                         "for blocks), got " + describe(cond));
    mlir::Value c = cond.v;
    if (!c.getType().isInteger(1))
      c = cast(c, b.getI1Type(), s.value->loc);
    std::vector<std::string> assigned;
    assignedIn(s.body, assigned);
    assignedIn(s.orelse, assigned);
    // Names visible before the if and assigned in a branch are its results.
    std::vector<std::string> results;
    for (const std::string &n : assigned) {
      auto found = scope->find(n);
      if (found == scope->end())
        continue;
      if (found->second.isConst())
        found->second = Val::runtime(runtime(found->second, s.loc));
      if (found->second.kind == Val::Runtime)
        results.push_back(n);
    }
    Location lc = loc(s.loc);
    Scope before = *scope;
    auto emitBranch = [&](const ::kite::ast::Block &body, Scope &out) {
      *scope = before;
      for (auto &st : body)
        statement(*st);
      out = *scope;
    };
    SmallVector<Type> types;
    for (const std::string &n : results)
      types.push_back(before[n].v.getType());
    auto ifOp = scf::IfOp::create(b, lc, types, c, /*withElse=*/true);
    Scope thenScope, elseScope;
    auto finish = [&](mlir::Block *block, const ::kite::ast::Block &body, Scope &out) {
      OpBuilder::InsertionGuard guard(b);
      if (types.empty()) {
        b.setInsertionPoint(block->getTerminator());
        emitBranch(body, out);
        return;
      }
      b.setInsertionPointToStart(block);
      emitBranch(body, out);
      SmallVector<mlir::Value> yields;
      for (size_t k = 0; k < results.size(); ++k) {
        Val v = out[results[k]];
        mlir::Value y = v.kind == Val::Runtime ? v.v : Value();
        if (v.isConst())
          y = materialize(v, elemOf(types[k]), s.loc);
        if (y && y.getType() != types[k] && shapeOf(y.getType()).empty() &&
            elemOf(y.getType()) == elemOf(types[k]))
          y = broadcastTo(y, shapeOf(types[k]), s.loc);
        if (!y || y.getType() != types[k])
          fail(s.loc, "'" + results[k] + "' is " + typeName(types[k]) +
                          " before the 'if' but " +
                          (y ? typeName(y.getType()) : describe(v)) +
                          " in a branch");
        yields.push_back(y);
      }
      scf::YieldOp::create(b, lc, yields);
    };
    finish(ifOp.thenBlock(), s.body, thenScope);
    finish(ifOp.elseBlock(), s.orelse, elseScope);
    *scope = before;
    for (size_t k = 0; k < results.size(); ++k)
      (*scope)[results[k]] = Val::runtime(ifOp.getResult(k));
  }

  //===--------------------------------------------------------------------===//
  // Kernels
  //===--------------------------------------------------------------------===//

  Val parseDefine(const std::string &text, Loc l, const std::string &name) {
    char *end = nullptr;
    errno = 0;
    long long iv = std::strtoll(text.c_str(), &end, 0);
    if (!text.empty() && *end == 0 && errno == 0)
      return Val::integer(iv);
    double dv = std::strtod(text.c_str(), &end);
    if (!text.empty() && *end == 0)
      return Val::floating(dv);
    if (text == "True" || text == "False")
      return Val::boolean(text == "True");
    fail(l, "-D " + name + "=" + text + ": not a number");
  }

  void kernel(const Function &f) {
    Scope top;
    scope = &top;
    kernelScope = &top;
    constexprNames.clear();
    SmallVector<Type> argTypes;
    std::vector<const Param *> runtimeParams;
    int64_t numWarps = 4, numStages = 0;
    for (auto &[key, value] : f.decoratorArgs) {
      Val v = expr(*value);
      if (key == "num_warps") {
        numWarps = constInt(v, value->loc, "num_warps");
        if (numWarps < 1 || numWarps > 32 || (numWarps & (numWarps - 1)))
          fail(value->loc, "num_warps must be a power of two in [1, 32], "
                           "got " + std::to_string(numWarps));
      } else if (key == "num_stages") {
        numStages = constInt(v, value->loc, "num_stages");
        if (numStages < 1 || numStages > 8)
          fail(value->loc, "num_stages must be in [1, 8], got " +
                               std::to_string(numStages));
      } else {
        fail(value->loc, "unknown @kernel argument '" + key +
                             "' (known: num_warps, num_stages)");
      }
    }
    std::set<std::string> seen;
    for (const Param &p : f.params) {
      if (!seen.insert(p.name).second)
        fail(p.loc, "duplicate parameter '" + p.name + "'");
      if (!p.type)
        fail(p.loc, "kernel parameter '" + p.name + "' needs a type: *f32, "
                    "i32, f32, ... or constexpr");
      const Expr &t = *p.type;
      if (t.kind == Expr::Name && t.name == "constexpr") {
        constexprNames.insert(p.name);
        auto d = options.defines.find(p.name);
        if (d != options.defines.end())
          top[p.name] = parseDefine(d->second, p.loc, p.name);
        else if (p.deflt)
          top[p.name] = expr(*p.deflt);
        else
          fail(p.loc, "constexpr parameter '" + p.name + "' of kernel '" +
                          f.name + "' has no value: give it a default or "
                          "pass -D " + p.name + "=VALUE");
        if (!top[p.name].isConst())
          fail(p.loc, "constexpr parameter '" + p.name +
                          "' must be a number or a bool");
        continue;
      }
      if (p.deflt)
        fail(p.deflt->loc, "only constexpr parameters take defaults");
      Type type;
      if (t.kind == Expr::Unary && t.name == "*") {
        const Expr &inner = *t.args[0];
        std::optional<Type> pointee;
        if (inner.kind == Expr::Name)
          pointee = dtypeNamed(inner.name);
        if (!pointee)
          fail(inner.loc, "unknown pointee type; expected i1, i8, i16, i32, "
                          "i64, f16, bf16, f32 or f64");
        type = kd::PointerType::get(ctx, *pointee);
      } else if (t.kind == Expr::Name && dtypeNamed(t.name)) {
        type = *dtypeNamed(t.name);
        if (type.isInteger(1))
          fail(t.loc, "i1 parameters are not supported; pass an i32");
      } else {
        fail(t.loc, "unknown parameter type; expected *T, a scalar type "
                    "(i32, f32, ...) or constexpr");
      }
      argTypes.push_back(type);
      runtimeParams.push_back(&p);
    }
    for (auto &[name, value] : options.defines)
      (void)name, (void)value; // unknown -D names are checked by the caller

    auto funcType = b.getFunctionType(argTypes, {});
    auto func = func::FuncOp::create(b, loc(f.loc), f.name, funcType);
    func->setAttr(kd::KiteDialect::getKernelAttrName(), b.getUnitAttr());
    func->setAttr(kd::KiteDialect::getNumWarpsAttrName(),
                  b.getI32IntegerAttr(numWarps));
    if (numStages)
      func->setAttr(kd::KiteDialect::getNumStagesAttrName(),
                    b.getI32IntegerAttr(numStages));
    mlir::Block *entry = func.addEntryBlock();
    for (size_t k = 0; k < runtimeParams.size(); ++k) {
      func.setArgAttr(k, kd::KiteDialect::getArgNameAttrName(),
                      b.getStringAttr(runtimeParams[k]->name));
      entry->getArgument(k).setLoc(loc(runtimeParams[k]->loc));
      top[runtimeParams[k]->name] = Val::runtime(entry->getArgument(k));
    }
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    try {
      for (auto &s : f.body)
        statement(*s);
    } catch (CodeGenError &) {
      func.erase();
      throw;
    }
    func::ReturnOp::create(b, loc(f.loc));
  }

  MLIRContext *ctx;
  OpBuilder b;
  StringRef file;
  const Module &module;
  const ::kite::FrontendOptions &options;
  std::map<std::string, const Function *> functions;
  Scope *scope = nullptr;
  Scope *kernelScope = nullptr;
  std::set<std::string> constexprNames;
  int inlineDepth = 0;
};

} // namespace

auto ::kite::defaultInputPrecision() -> std::string {
  if (const char *env = std::getenv("KITE_F32_DEFAULT"))
    return env;
  return "tf32";
}

auto ::kite::importKiteSource(llvm::SourceMgr &sourceMgr,
                              MLIRContext *context,
                              const FrontendOptions &options)
    -> OwningOpRef<ModuleOp> {
  context->loadDialect<kd::KiteDialect, arith::ArithDialect,
                       func::FuncDialect, math::MathDialect, scf::SCFDialect>();
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  StringRef file = buffer->getBufferIdentifier();
  unsigned errors = 0;
  ::kite::ast::Module module = ::kite::ast::parse(
      buffer->getBuffer(),
      [&](::kite::ast::Loc l, const std::string &msg) {
        emitError(FileLineColLoc::get(context, file, l.line, l.col)) << msg;
      },
      errors);
  if (errors)
    return nullptr;
  ::kite::ast::normalizeTritonSpellings(module);
  // Unknown -D names.
  for (auto &[name, value] : options.defines) {
    bool known = false;
    for (auto &f : module.functions)
      for (auto &p : f->params)
        known |= p.name == name && p.type && p.type->kind == Expr::Name &&
                 p.type->name == "constexpr";
    if (!known) {
      emitError(FileLineColLoc::get(context, file, 1, 1))
          << "-D " << name << ": no kernel has a constexpr parameter '"
          << name << "'";
      ++errors;
    }
  }
  FrontendOptions resolved = options;
  if (resolved.inputPrecision.empty())
    resolved.inputPrecision = defaultInputPrecision();
  if (!mlir::kite::symbolizeInputPrecision(resolved.inputPrecision)) {
    emitError(FileLineColLoc::get(context, file, 1, 1))
        << "the default input precision of f32 dots must be ieee, tf32 or "
           "tf32x3, got '"
        << resolved.inputPrecision << "'"
        << (options.inputPrecision.empty() ? " (from KITE_F32_DEFAULT)" : "");
    ++errors;
  }
  if (errors)
    return nullptr;
  CodeGen gen(context, file, module, resolved);
  OwningOpRef<ModuleOp> result = gen.run(errors);
  if (errors)
    return nullptr;
  if (failed(verify(*result)))
    return nullptr;
  return result;
}
