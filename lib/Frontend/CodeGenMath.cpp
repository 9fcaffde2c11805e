//===- CodeGenMath.cpp - The math library: one table -------------------------===//
//
// Every elementwise math function of the language, in one table: its name,
// its parameters, whether it is a builtin of its own (Triton's `tl.` /
// `tl.math.` names) or only reached as `libdevice.NAME` (Triton's
// `triton.language.extra.libdevice`), and the ops it builds. The ops are
// MLIR's math/arith ops: the interpreter runs them (InterpreterArith.cpp),
// and on the GPU the ones without a PTX instruction become libdevice calls
// (convert-gpu-to-nvvm), linked only into modules that call them.
//
// Integer arguments are taken as f32 (Triton converts them the same way);
// f16/bf16 stay in their type (the GPU computes in f32 and rounds back).
// `abs` keeps integers. Two- and three-argument functions broadcast and
// promote their arguments like binary operators.
//
// Exact and approximate variants, as in Triton: `/` and `sqrt` are
// approximate on the GPU (div.full.f32, sqrt.approx.f32); `div_rn`,
// `sqrt_rn` and `fdiv(x, y, ieee_rounding=True)` round correctly. They are
// the same ops marked `kite.ieee`, which the GPU lowering honours
// (ElementwiseToGPU.cpp) and the interpreter needs not (it is exact).
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace kite::frontend {

namespace {

using Build = mlir::Value (*)(OpBuilder &, Location, ValueRange);

struct MathFunction {
  const char *name;
  unsigned arity;
  /// A builtin name of its own; otherwise only `libdevice.NAME`.
  bool builtin;
  Build build;
};

template <typename Op>
mlir::Value one(OpBuilder &b, Location l, ValueRange x) {
  return Op::create(b, l, x[0]);
}
template <typename Op>
mlir::Value two(OpBuilder &b, Location l, ValueRange x) {
  return Op::create(b, l, x[0], x[1]);
}

/// The op marked for correct rounding on the GPU.
mlir::Value ieee(mlir::Value v) {
  v.getDefiningOp()->setAttr(kd::kIeeeRoundingAttr,
                             UnitAttr::get(v.getContext()));
  return v;
}

mlir::Value sigmoid(OpBuilder &b, Location l, ValueRange x) {
  Type t = x[0].getType();
  auto oneAttr = b.getFloatAttr(getElementTypeOrSelf(t), 1.0);
  mlir::Value c1 = arith::ConstantOp::create(
      b, l, t,
      isa<ShapedType>(t)
          ? TypedAttr(DenseElementsAttr::get(cast<ShapedType>(t), oneAttr))
          : TypedAttr(oneAttr));
  mlir::Value e =
      math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x[0]));
  return arith::DivFOp::create(b, l, c1, arith::AddFOp::create(b, l, c1, e));
}

const MathFunction kMath[] = {
    // Triton's tl / tl.math functions.
    {"exp", 1, true, one<math::ExpOp>},
    {"exp2", 1, true, one<math::Exp2Op>},
    {"log", 1, true, one<math::LogOp>},
    {"log2", 1, true, one<math::Log2Op>},
    {"sqrt", 1, true, one<math::SqrtOp>},
    {"sqrt_rn", 1, true,
     [](OpBuilder &b, Location l, ValueRange x) {
       return ieee(math::SqrtOp::create(b, l, x[0]));
     }},
    {"rsqrt", 1, true, one<math::RsqrtOp>},
    {"abs", 1, true, one<math::AbsFOp>},
    {"sin", 1, true, one<math::SinOp>},
    {"cos", 1, true, one<math::CosOp>},
    {"tanh", 1, true, one<math::TanhOp>},
    {"erf", 1, true, one<math::ErfOp>},
    {"floor", 1, true, one<math::FloorOp>},
    {"ceil", 1, true, one<math::CeilOp>},
    {"sigmoid", 1, true, sigmoid},
    {"div_rn", 2, true,
     [](OpBuilder &b, Location l, ValueRange x) {
       return ieee(arith::DivFOp::create(b, l, x[0], x[1]));
     }},
    {"fma", 3, true,
     [](OpBuilder &b, Location l, ValueRange x) -> mlir::Value {
       return math::FmaOp::create(b, l, x[0], x[1], x[2]);
     }},
    // libdevice only (libdevice.NAME): Triton's libdevice module.
    {"asin", 1, false, one<math::AsinOp>},
    {"acos", 1, false, one<math::AcosOp>},
    {"atan", 1, false, one<math::AtanOp>},
    {"atan2", 2, false, two<math::Atan2Op>},
    {"sinh", 1, false, one<math::SinhOp>},
    {"cosh", 1, false, one<math::CoshOp>},
    {"tan", 1, false, one<math::TanOp>},
    {"asinh", 1, false, one<math::AsinhOp>},
    {"acosh", 1, false, one<math::AcoshOp>},
    {"atanh", 1, false, one<math::AtanhOp>},
    {"log10", 1, false, one<math::Log10Op>},
    {"log1p", 1, false, one<math::Log1pOp>},
    {"expm1", 1, false, one<math::ExpM1Op>},
    {"cbrt", 1, false, one<math::CbrtOp>},
    {"erfc", 1, false, one<math::ErfcOp>},
    {"pow", 2, false, two<math::PowFOp>},
    {"trunc", 1, false, one<math::TruncOp>},
    {"round", 1, false, one<math::RoundOp>},
    {"rint", 1, false, one<math::RoundEvenOp>},
    {"nearbyint", 1, false, one<math::RoundEvenOp>},
    {"copysign", 2, false, two<math::CopySignOp>},
    {"fmod", 2, false, two<arith::RemFOp>},
    {"fmin", 2, false, two<arith::MinNumFOp>},
    {"fmax", 2, false, two<arith::MaxNumFOp>},
};

const MathFunction *findMath(StringRef n) {
  for (const MathFunction &f : kMath)
    if (n == f.name)
      return &f;
  return nullptr;
}

const char *kParamNames[3][3] = {
    {"x", nullptr, nullptr}, {"x", "y", nullptr}, {"x", "y", "z"}};

} // namespace

bool CodeGen::isLibdeviceOnly(StringRef n) {
  const MathFunction *f = findMath(n);
  return f && !f->builtin;
}

bool CodeGen::isMathBuiltin(StringRef n) {
  const MathFunction *f = findMath(n);
  return f && f->builtin;
}

std::string CodeGen::libdeviceNames() {
  std::string s;
  for (const MathFunction &f : kMath)
    s += std::string(s.empty() ? "" : ", ") + f.name;
  return s;
}

Val CodeGen::math(const std::string &n, const Expr &e, bool libdevice) {
  const MathFunction *f = findMath(n);
  if (!f || (!libdevice && !f->builtin))
    fail(e.args[0]->loc,
         "unknown function 'libdevice." + n + "'; libdevice has " +
             libdeviceNames());
  std::string shown = libdevice ? "libdevice." + n : n;
  Args a = bindArgs(e, shown,
                    ArrayRef<const char *>(kParamNames[f->arity - 1],
                                           f->arity),
                    f->arity);
  Location lc = loc(e.loc);
  for (size_t k = 0; k < a.values.size(); ++k) {
    const Val &v = a.values[k];
    if (v.kind == Val::Runtime && isa<kd::PointerType>(elemOf(v.v.getType())))
      fail(a.locs[k], shown + "() takes numbers, got " +
                          typeName(v.v.getType()));
    if (v.kind != Val::Runtime && !v.isConst())
      fail(a.locs[k], shown + "() takes numbers, got " + describe(v));
  }
  // One shape and one element type for all arguments.
  SmallVector<mlir::Value> xs;
  bool u = false; // unsigned integer arguments
  if (f->arity == 1) {
    const Val &v = a.values[0];
    xs.push_back(v.kind == Val::Runtime ? v.v : runtime(v, a.locs[0]));
    u = v.kind == Val::Runtime && v.uns;
  } else if (f->arity == 2) {
    auto [x, y] = unify(a.values[0], a.values[1], e.loc, false, &u);
    xs = {x, y};
  } else {
    auto [x, y, z] = unify3(a.values[0], a.values[1], a.values[2], e.loc);
    xs = {x, y, z};
  }
  if (n == "abs" && isInt(xs[0].getType())) {
    if (u)
      return Val::runtime(xs[0], true); // |x| of an unsigned x is x
    if (elemOf(xs[0].getType()).isInteger(32))
      return Val::runtime(math::AbsIOp::create(b, lc, xs[0]));
    // Other widths: x < 0 ? 0 - x : x (the GPU lowering takes math.absi of
    // i32 only; LLVM makes this an abs again).
    mlir::Value zero = splatTo(
        materialize(Val::integer(0), elemOf(xs[0].getType()), e.loc),
        xs[0].getType(), e.loc);
    mlir::Value negative = arith::CmpIOp::create(
        b, lc, arith::CmpIPredicate::slt, xs[0], zero);
    return Val::runtime(arith::SelectOp::create(
        b, lc, negative, arith::SubIOp::create(b, lc, zero, xs[0]), xs[0]));
  }
  Type elem = elemOf(xs[0].getType());
  if (!isa<FloatType>(elem) || isFp8(elem))
    for (mlir::Value &x : xs)
      x = cast(x, b.getF32Type(), e.loc, u);
  return Val::runtime(f->build(b, lc, xs));
}

Val CodeGen::fdiv(const Expr &e) {
  // Triton's tl.fdiv(x, y, ieee_rounding=False).
  Args a = bindArgs(e, "fdiv", {"x", "y", "ieee_rounding"}, 2);
  bool exact = false;
  if (a.given[2]) {
    const Val &r = a.values[2];
    if (r.kind != Val::Bool && r.kind != Val::Int)
      fail(a.locs[2], "fdiv()'s ieee_rounding must be True or False");
    exact = r.i != 0;
  }
  auto [x, y] = unify(a.values[0], a.values[1], e.loc);
  if (!isFloat(x.getType()) || isFp8(elemOf(x.getType()))) {
    x = cast(x, b.getF32Type(), e.loc);
    y = cast(y, b.getF32Type(), e.loc);
  }
  mlir::Value q = arith::DivFOp::create(b, loc(e.loc), x, y);
  return Val::runtime(exact ? ieee(q) : q);
}

} // namespace kite::frontend
