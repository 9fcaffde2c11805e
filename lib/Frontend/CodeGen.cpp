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

#include "HostValues.h"
#include "CodeGen.h"

#include <cstdlib>

namespace kite::frontend {

OwningOpRef<ModuleOp> CodeGen::run(unsigned &errors) {
  OwningOpRef<ModuleOp> m = ModuleOp::create(loc({1, 1}));
  bool anyKernel = false;
  bool named = false;
  for (auto &f : module.functions)
    named |= f->isKernel && f->name == options.kernel;
  for (auto &f : module.functions) {
    if (!f->isKernel || (named && f->name != options.kernel))
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

[[noreturn]] void CodeGen::fail(Loc l, const Twine &msg) {
  emitError(loc(l)) << msg;
  throw CodeGenError();
}

std::string CodeGen::typeName(Type t, bool uns) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto p = dyn_cast<kd::PointerType>(t)) {
    os << "*" << typeName(p.getPointeeType(), uns);
    return s;
  }
  auto r = dyn_cast<RankedTensorType>(t);
  if (r && uns && r.getElementType().isSignlessInteger()) {
    os << "tensor<";
    for (int64_t d : r.getShape())
      os << d << "x";
    os << typeName(r.getElementType(), uns) << ">";
    return s;
  }
  if (uns && t.isSignlessInteger() && !t.isInteger(1)) {
    os << "u" << t.getIntOrFloatBitWidth();
    return s;
  }
  t.print(os);
  return s;
}

std::string CodeGen::describe(const Val &v) {
  switch (v.kind) {
  case Val::None:
    return "None";
  case Val::Runtime:
    return typeName(v.v.getType(), v.uns);
  case Val::Int:
    return "int constant " + std::to_string(v.i);
  case Val::Float:
    return "float constant";
  case Val::Bool:
    return "bool constant";
  case Val::Str:
    return "string";
  case Val::DType:
    return "dtype " + typeName(v.dtype, v.uns);
  case Val::Tuple:
    return "tuple";
  case Val::Helper:
    return "function '" + v.fn->name + "'";
  case Val::Desc:
    return "tensor descriptor";
  case Val::BlockPtr:
    return "block pointer";
  }
  return "?";
}

std::optional<Type> CodeGen::dtypeNamed(StringRef n, bool *uns) {
  if (uns)
    *uns = false;
  // Unsigned integers (Triton's uint8 .. uint64): signless in the IR, the
  // signedness kept by the frontend (Val::uns).
  int64_t width = 0;
  if (n == "u8" || n == "uint8")
    width = 8;
  else if (n == "u16" || n == "uint16")
    width = 16;
  else if (n == "u32" || n == "uint32")
    width = 32;
  else if (n == "u64" || n == "uint64")
    width = 64;
  if (width) {
    if (uns)
      *uns = true;
    return b.getIntegerType(width);
  }
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
  // fp8 (Triton's float8e4nv and float8e5): storage, .to(), dot.
  if (n == "f8e4m3" || n == "float8e4nv")
    return b.getType<Float8E4M3FNType>();
  if (n == "f8e5m2" || n == "float8e5")
    return b.getType<Float8E5M2Type>();
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

ArrayRef<int64_t> CodeGen::shapeOf(Type t) {
  if (auto r = dyn_cast<RankedTensorType>(t))
    return r.getShape();
  return {};
}

Type CodeGen::withShape(Type elem, ArrayRef<int64_t> shape) {
  if (shape.empty())
    return elem;
  return RankedTensorType::get(shape, elem);
}

Type CodeGen::promote(Type a, Type c, Loc l, bool ua, bool uc, bool *ru) {
  if (ru) {
    // Of two integers the wider one's signedness; at equal widths unsigned
    // wins (C's usual arithmetic conversions, Triton's
    // integer_promote_impl). Floats and i1 have none.
    bool ia = a.isSignlessInteger() && !a.isInteger(1);
    bool ic = c.isSignlessInteger() && !c.isInteger(1);
    if (ia && ic) {
      unsigned wa = a.getIntOrFloatBitWidth(), wc = c.getIntOrFloatBitWidth();
      *ru = wa == wc ? (ua || uc) : (wa > wc ? ua : uc);
    } else {
      *ru = (ia && ua && !isa<FloatType>(c)) || (ic && uc && !isa<FloatType>(a));
    }
  }
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

Type CodeGen::defaultType(const Val &v) {
  if (v.kind == Val::Float)
    return b.getF32Type();
  if (v.kind == Val::Bool)
    return b.getI1Type();
  return (v.i >= INT32_MIN && v.i <= INT32_MAX) ? b.getI32Type()
                                               : b.getI64Type();
}

mlir::Value CodeGen::materialize(const Val &v, Type elem, Loc l, bool uns) {
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
    // Signed types take [-2^(w-1), 2^w - 1] (a literal like 0xFFFFFFFF
    // gives i32's bits), unsigned ones the same (a negative literal wraps).
    if (w < 64 && w > 1 &&
        (x > (int64_t(1) << (w - 1)) - 1 + (int64_t(1) << (w - 1)) ||
         x < -(int64_t(1) << (w - 1))))
      fail(l, "constant " + std::to_string(x) + " does not fit in " +
                  typeName(elem, uns));
    return arith::ConstantOp::create(b, lc, it, b.getIntegerAttr(it, x));
  }
  fail(l, "cannot make a constant of type " + typeName(elem));
}

mlir::Value CodeGen::runtime(const Val &v, Loc l) {
  return materialize(v, defaultType(v), l);
}

mlir::Value CodeGen::cast(mlir::Value x, Type elem, Loc l, bool fromUns,
                          bool toUns) {
  Type from = elemOf(x.getType());
  if (from == elem)
    return x; // i32 <-> u32: the same bits
  fromUns &= from.isSignlessInteger() && !from.isInteger(1);
  toUns &= elem.isSignlessInteger() && !elem.isInteger(1);
  Location lc = loc(l);
  Type to = withShape(elem, shapeOf(x.getType()));
  if (isa<kd::PointerType>(from) || isa<kd::PointerType>(elem))
    fail(l, "cannot convert " + typeName(x.getType()) + " to " +
                typeName(elem));
  bool ff = isa<FloatType>(from), ft = isa<FloatType>(elem);
  // fp8 goes through f32 both ways (the hardware converts f32 and f16);
  // to fp8: round to nearest even, saturating to the largest finite value
  // (Triton's, and the hardware's .satfinite), NaN staying NaN.
  if (isFp8(elem) && !from.isF32()) {
    if (!ff && !isa<IntegerType>(from))
      fail(l, "cannot convert " + typeName(x.getType()) + " to " +
                  typeName(elem));
    return cast(cast(x, b.getF32Type(), l, fromUns), elem, l);
  }
  if (isFp8(from) && !elem.isF32() && !elem.isF16())
    return cast(cast(x, b.getF32Type(), l), elem, l, false, toUns);
  if (isFp8(elem)) {
    auto fe = llvm::cast<FloatType>(elem);
    double max = APFloat::getLargest(fe.getFloatSemantics()).convertToDouble();
    mlir::Value hi = splatTo(materialize(Val::floating(max), from, l),
                             x.getType(), l);
    mlir::Value lo = splatTo(materialize(Val::floating(-max), from, l),
                             x.getType(), l);
    mlir::Value clamped = arith::MaximumFOp::create(
        b, lc, arith::MinimumFOp::create(b, lc, x, hi), lo);
    return arith::TruncFOp::create(b, lc, to, clamped);
  }
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
    if (from.isInteger(1) || fromUns)
      return arith::UIToFPOp::create(b, lc, to, x);
    return arith::SIToFPOp::create(b, lc, to, x);
  }
  if (ff && !ft) {
    if (elem.isInteger(1)) {
      mlir::Value zero = splatTo(materialize(Val::floating(0), from, l),
                                 x.getType(), l);
      return arith::CmpFOp::create(b, lc, arith::CmpFPredicate::UNE, x, zero);
    }
    if (toUns)
      return arith::FPToUIOp::create(b, lc, to, x);
    return arith::FPToSIOp::create(b, lc, to, x);
  }
  unsigned wf = from.getIntOrFloatBitWidth(), wt = elem.getIntOrFloatBitWidth();
  if (wt == 1) {
    mlir::Value zero = splatTo(materialize(Val::integer(0), from, l),
                               x.getType(), l);
    return arith::CmpIOp::create(b, lc, arith::CmpIPredicate::ne, x, zero);
  }
  if (wf < wt) // widening by the source's signedness
    return wf == 1 || fromUns
               ? arith::ExtUIOp::create(b, lc, to, x).getResult()
               : arith::ExtSIOp::create(b, lc, to, x).getResult();
  return arith::TruncIOp::create(b, lc, to, x);
}

mlir::Value CodeGen::splatTo(mlir::Value x, Type like, Loc l) {
  ArrayRef<int64_t> shape = shapeOf(like);
  if (shape.empty() || isa<RankedTensorType>(x.getType()))
    return x;
  return kd::SplatOp::create(b, loc(l), withShape(x.getType(), shape), x);
}

SmallVector<int64_t> CodeGen::broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> c,
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

void CodeGen::checkBlockSize(ArrayRef<int64_t> shape, Loc l) {
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

std::string CodeGen::shapeText(ArrayRef<int64_t> s) {
  if (s.empty())
    return "scalar";
  std::string t = "[";
  for (size_t k = 0; k < s.size(); ++k)
    t += (k ? ", " : "") + std::to_string(s[k]);
  return t + "]";
}

mlir::Value CodeGen::broadcastTo(mlir::Value x, ArrayRef<int64_t> shape, Loc l) {
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

std::pair<mlir::Value, mlir::Value> CodeGen::unify(const Val &a, const Val &c, Loc l,
                                          bool allowPtr, bool *uns) {
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
    if (!pa || !pc || elemOf(a.v.getType()) != elemOf(c.v.getType()) ||
        a.uns != c.uns)
      fail(l, "cannot mix " + describe(a) + " and " + describe(c));
  }
  Type ea, ec;
  // A constant beside a runtime operand takes its type and signedness
  // where it fits (weakType).
  bool ua = a.uns, uc = c.uns, ru = false;
  if (pa && pc) {
    ea = ec = elemOf(a.v.getType());
    ru = a.uns;
  } else if (a.kind == Val::Runtime && c.kind == Val::Runtime) {
    ea = elemOf(a.v.getType());
    ec = elemOf(c.v.getType());
    ea = ec = promote(ea, ec, l, ua, uc, &ru);
  } else if (a.kind == Val::Runtime) {
    ea = elemOf(a.v.getType());
    ec = weakType(c, ea, ua);
    uc = ec == ea && ua;
    ea = ec = promote(ea, ec, l, ua, uc, &ru);
  } else if (c.kind == Val::Runtime) {
    ec = elemOf(c.v.getType());
    ea = weakType(a, ec, uc);
    ua = ea == ec && uc;
    ea = ec = promote(ea, ec, l, ua, uc, &ru);
  } else {
    ea = ec = promote(defaultType(a), defaultType(c), l);
  }
  if (uns)
    *uns = ru;
  mlir::Value x = materialize(a, ea, l, ru), y = materialize(c, ec, l, ru);
  x = cast(x, ea, l, ua, ru);
  y = cast(y, ec, l, uc, ru);
  SmallVector<int64_t> shape =
      broadcastShape(shapeOf(x.getType()), shapeOf(y.getType()), l);
  return {broadcastTo(x, shape, l), broadcastTo(y, shape, l)};
}

Type CodeGen::weakType(const Val &k, Type other, bool otherUns) {
  if (isPtr(other))
    return defaultType(k);
  if (k.kind == Val::Float)
    return isa<FloatType>(other) ? other : b.getF32Type();
  if (k.kind == Val::Bool)
    return other.isInteger(1) ? other : b.getI1Type();
  if (isa<FloatType>(other) || other.isInteger(1))
    return isa<FloatType>(other) ? other : defaultType(k);
  if (otherUns) { // what fits an unsigned type's bits (negatives wrap)
    unsigned w = other.getIntOrFloatBitWidth();
    if (w == 64 || (k.i >= -(int64_t(1) << (w - 1)) &&
                    k.i <= int64_t((uint64_t(1) << w) - 1)))
      return other;
  }
  if (k.i < INT32_MIN || k.i > INT32_MAX)
    return b.getI64Type().getWidth() >= other.getIntOrFloatBitWidth()
               ? Type(b.getI64Type())
               : other;
  return other;
}

} // namespace kite::frontend

using namespace mlir;
using namespace ::kite::ast;
namespace kd = mlir::kite;
using ::kite::frontend::CodeGen;

auto ::kite::normalizeSignatureType(const std::string &type) -> std::string {
  std::string t = type;
  while (!t.empty() && t.front() == ' ')
    t.erase(t.begin());
  while (!t.empty() && t.back() == ' ')
    t.pop_back();
  std::string star;
  if (!t.empty() && t[0] == '*') {
    star = "*";
    t = t.substr(1);
  }
  if (t.rfind("tl.", 0) == 0)
    t = t.substr(3);
  static const std::pair<const char *, const char *> triton[] = {
      {"fp16", "f16"},        {"fp32", "f32"},     {"fp64", "f64"},
      {"fp8e4nv", "f8e4m3"},  {"fp8e5", "f8e5m2"}, {"u1", "i1"},
  };
  for (auto &[from, to] : triton)
    if (t == from)
      t = to;
  return star + t;
}

/// The main buffer of `sourceMgr` parsed, syntax errors emitted as MLIR
/// diagnostics at their file:line:col; `errors` counts them.
static ::kite::ast::Module parseMainBuffer(llvm::SourceMgr &sourceMgr,
                                           MLIRContext *context,
                                           unsigned &errors) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  StringRef file = buffer->getBufferIdentifier();
  return ::kite::ast::parse(
      buffer->getBuffer(),
      [&](::kite::ast::Loc l, const std::string &msg) {
        emitError(FileLineColLoc::get(context, file, l.line, l.col)) << msg;
      },
      errors);
}

auto ::kite::declaredKernels(llvm::SourceMgr &sourceMgr, MLIRContext *context)
    -> std::optional<std::vector<DeclaredKernel>> {
  unsigned errors = 0;
  ::kite::ast::Module module = parseMainBuffer(sourceMgr, context, errors);
  if (errors)
    return std::nullopt;
  ::kite::ast::normalizeTritonSpellings(module);
  ::kite::ast::markJitHelpers(module);
  std::vector<DeclaredKernel> kernels;
  for (auto &f : module.functions) {
    if (!f->isKernel)
      continue;
    DeclaredKernel k;
    k.name = f->name;
    for (const ::kite::ast::Param &p : f->params) {
      DeclaredParam d;
      d.name = p.name;
      d.hasDefault = p.deflt != nullptr;
      d.kind = !p.type ? DeclaredParam::Untyped
               : p.type->kind == Expr::Name && p.type->name == "constexpr"
                   ? DeclaredParam::Constexpr
                   : DeclaredParam::Typed;
      k.params.push_back(d);
    }
    k.heuristicNames = f->heuristicNames;
    for (auto &h : f->heuristics) {
      // The lambda's body outlives the module: the evaluator owns it.
      std::shared_ptr<const Expr> body(std::move(h.body));
      std::string arg = h.arg;
      k.heuristics.push_back(
          {h.name, [body, arg](const std::map<std::string, HostValue> &values,
                               std::string &error) {
             return ::kite::ast::evaluateHostExpr(*body, arg, values, error);
           }});
    }
    kernels.push_back(std::move(k));
  }
  return kernels;
}

auto ::kite::importKiteSource(llvm::SourceMgr &sourceMgr,
                              MLIRContext *context,
                              const FrontendOptions &options)
    -> OwningOpRef<ModuleOp> {
  context->loadDialect<kd::KiteDialect, arith::ArithDialect,
                       func::FuncDialect, math::MathDialect, scf::SCFDialect>();
  StringRef file =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferIdentifier();
  unsigned errors = 0;
  ::kite::ast::Module module = parseMainBuffer(sourceMgr, context, errors);
  if (errors)
    return nullptr;
  if (options.verbose)
    for (const ::kite::ast::HostStatement &h : module.hostStatements)
      emitRemark(FileLineColLoc::get(context, file, h.line, 1))
          << "left out as host code: " << h.what
          << (h.name.empty() ? std::string() : " ('" + h.name + "')");
  ::kite::ast::normalizeTritonSpellings(module);
  ::kite::ast::markJitHelpers(module);
  if (std::optional<::kite::ast::Loc> at = ::kite::ast::normalizeReturns(module)) {
    emitError(FileLineColLoc::get(context, file, at->line, at->col))
        << "control flow nested more than " << ::kite::ast::kMaxReturnNesting
        << " levels deep: each `if` after an early `return` nests the rest "
           "of the function in its other branch; merge the conditions "
           "(`if a or b: return`)";
    return nullptr;
  }
  // Unknown -D names (constexpr or unannotated parameters of kernels) and
  // --signature names (unannotated parameters).
  for (auto &[name, value] : options.defines) {
    bool known = false;
    for (auto &f : module.functions)
      for (auto &p : f->params)
        known |= p.name == name &&
                 (!p.type || (p.type->kind == Expr::Name &&
                              p.type->name == "constexpr"));
    if (!known) {
      emitError(FileLineColLoc::get(context, file, 1, 1))
          << "-D " << name << ": no kernel has a constexpr parameter '"
          << name << "'";
      ++errors;
    }
  }
  for (auto &[name, type] : options.signature) {
    bool known = false, annotated = false;
    for (auto &f : module.functions) {
      if (!f->isKernel ||
          (!options.kernel.empty() && f->name != options.kernel))
        continue;
      for (auto &p : f->params)
        if (p.name == name) {
          known |= !p.type;
          annotated |= p.type != nullptr;
        }
    }
    if (!known) {
      emitError(FileLineColLoc::get(context, file, 1, 1))
          << "--signature " << name << "=" << type << ": "
          << (annotated ? "the parameter '" + name +
                              "' has a type annotation already (the "
                              "signature types unannotated parameters)"
                        : "no kernel has a parameter '" + name + "'");
      ++errors;
    }
  }
  FrontendOptions resolved = options;
  if (resolved.inputPrecision.empty())
    resolved.inputPrecision = "tf32";
  if (!mlir::kite::symbolizeInputPrecision(resolved.inputPrecision)) {
    emitError(FileLineColLoc::get(context, file, 1, 1))
        << "the default input precision of f32 dots must be ieee, tf32 or "
           "tf32x3, got '"
        << resolved.inputPrecision << "'"
        << (options.inputPrecisionOrigin.empty()
                ? std::string()
                : " (from " + options.inputPrecisionOrigin + ")");
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
