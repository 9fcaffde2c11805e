//===- InterpreterArith.cpp - Constants and arith/math -----------------------===//
//
// Constants, and arith/math ops element by element with integer wrapping
// and float rounding to the element type.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

namespace kite::interp::detail {

void Interpreter::constant(arith::ConstantOp op) {
  auto a = make(op.getType());
  Attribute attr = op.getValue();
  auto setAll = [&](Attribute e, size_t k) {
    if (auto i = dyn_cast<IntegerAttr>(e))
      a->iv[k] = wrap(i.getValue().getSExtValue(), widthOf(a->elem));
    else if (auto f = dyn_cast<FloatAttr>(e))
      a->fv[k] = f.getValueAsDouble();
    else if (auto b = dyn_cast<BoolAttr>(e))
      a->iv[k] = b.getValue();
    else
      fail(op, "unsupported constant");
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat()) {
      Attribute s = dense.getSplatValue<Attribute>();
      for (size_t k = 0; k < a->size(); ++k)
        setAll(s, k);
    } else {
      size_t k = 0;
      for (Attribute e : dense.getValues<Attribute>())
        setAll(e, k++);
    }
  } else {
    setAll(attr, 0);
  }
  values[op.getResult()] = a;
}

template <typename F> void Interpreter::mapInt(Operation *op, F f) {
  ArrayRef_ a = get(op->getOperand(0));
  auto r = make(op->getResult(0).getType());
  unsigned w = widthOf(a->elem), rw = widthOf(r->elem);
  if (op->getNumOperands() == 1) {
    for (size_t k = 0; k < r->iv.size(); ++k)
      r->iv[k] = wrap(f(a->iv[k], 0, w), rw);
  } else {
    ArrayRef_ b = get(op->getOperand(1));
    for (size_t k = 0; k < r->iv.size(); ++k)
      r->iv[k] = wrap(f(a->iv[k], b->iv[k], w), rw);
  }
  values[op->getResult(0)] = r;
}

template <typename F> void Interpreter::mapFloat(Operation *op, F f) {
  ArrayRef_ a = get(op->getOperand(0));
  auto r = make(op->getResult(0).getType());
  Type t = r->elem;
  if (op->getNumOperands() == 1) {
    for (size_t k = 0; k < r->fv.size(); ++k)
      r->fv[k] = roundTo(f(a->fv[k], 0.0), t);
  } else {
    ArrayRef_ b = get(op->getOperand(1));
    for (size_t k = 0; k < r->fv.size(); ++k)
      r->fv[k] = roundTo(f(a->fv[k], b->fv[k]), t);
  }
  values[op->getResult(0)] = r;
}

template <typename F> void Interpreter::mapMath(Operation *op, F f) {
  bool f64 = getElementTypeOrSelf(op->getResult(0).getType()).isF64();
  mapFloat(op, [&](double a, double b) {
    return f64 ? double(f(a, b)) : double(f(float(a), float(b)));
  });
}

void Interpreter::elementwise(Operation *op) {
  using namespace arith;
  if (isa<AddIOp>(op))
    return mapInt(op, [](int64_t a, int64_t b, unsigned) { return int64_t(uint64_t(a) + uint64_t(b)); });
  if (isa<SubIOp>(op))
    return mapInt(op, [](int64_t a, int64_t b, unsigned) { return int64_t(uint64_t(a) - uint64_t(b)); });
  if (isa<MulIOp>(op))
    return mapInt(op, [](int64_t a, int64_t b, unsigned) { return int64_t(uint64_t(a) * uint64_t(b)); });
  if (isa<DivSIOp, RemSIOp, FloorDivSIOp, CeilDivSIOp, DivUIOp, RemUIOp>(op)) {
    ArrayRef_ b = get(op->getOperand(1));
    for (int64_t d : b->iv)
      if (d == 0)
        fail(op, "integer division by zero");
    if (isa<DivSIOp>(op))
      return mapInt(op, [](int64_t a, int64_t b, unsigned w) {
        return (w >= 64 && a == INT64_MIN && b == -1) ? a : a / b;
      });
    if (isa<RemSIOp>(op))
      return mapInt(op, [](int64_t a, int64_t b, unsigned) {
        return b == -1 ? 0 : a % b;
      });
    if (isa<FloorDivSIOp>(op))
      return mapInt(op, [](int64_t a, int64_t b, unsigned) {
        if (b == -1)
          return int64_t(0 - uint64_t(a));
        int64_t q = a / b;
        return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
      });
    if (isa<CeilDivSIOp>(op))
      return mapInt(op, [](int64_t a, int64_t b, unsigned) {
        if (b == -1)
          return int64_t(0 - uint64_t(a));
        int64_t q = a / b;
        return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
      });
    if (isa<DivUIOp>(op))
      return mapInt(op, [](int64_t a, int64_t b, unsigned w) {
        return int64_t(zext(a, w) / zext(b, w));
      });
    return mapInt(op, [](int64_t a, int64_t b, unsigned w) {
      return int64_t(zext(a, w) % zext(b, w));
    });
  }
  if (isa<AndIOp>(op))
    return mapInt(op, [](int64_t a, int64_t b, unsigned) { return a & b; });
  if (isa<OrIOp>(op))
    return mapInt(op, [](int64_t a, int64_t b, unsigned) { return a | b; });
  if (isa<XOrIOp>(op))
    return mapInt(op, [](int64_t a, int64_t b, unsigned) { return a ^ b; });
  if (isa<ShLIOp>(op))
    return mapInt(op, [](int64_t a, int64_t b, unsigned w) {
      return uint64_t(b) >= w ? int64_t(0) : int64_t(uint64_t(a) << b);
    });
  if (isa<ShRSIOp>(op))
    return mapInt(op, [](int64_t a, int64_t b, unsigned w) {
      return uint64_t(b) >= w ? (a < 0 ? int64_t(-1) : int64_t(0)) : a >> b;
    });
  if (isa<ShRUIOp>(op))
    return mapInt(op, [](int64_t a, int64_t b, unsigned w) {
      return uint64_t(b) >= w ? int64_t(0) : int64_t(zext(a, w) >> b);
    });
  if (isa<MaxSIOp>(op))
    return mapInt(op, [](int64_t a, int64_t b, unsigned) { return std::max(a, b); });
  if (isa<MinSIOp>(op))
    return mapInt(op, [](int64_t a, int64_t b, unsigned) { return std::min(a, b); });
  if (isa<MaxUIOp>(op))
    return mapInt(op, [](int64_t a, int64_t b, unsigned w) { return zext(a, w) >= zext(b, w) ? a : b; });
  if (isa<MinUIOp>(op))
    return mapInt(op, [](int64_t a, int64_t b, unsigned w) { return zext(a, w) <= zext(b, w) ? a : b; });
  if (isa<ExtSIOp, TruncIOp, IndexCastOp>(op))
    return mapInt(op, [](int64_t a, int64_t, unsigned) { return a; });
  if (isa<ExtUIOp, IndexCastUIOp>(op))
    return mapInt(op, [](int64_t a, int64_t, unsigned w) { return int64_t(zext(a, w)); });
  if (auto cmp = dyn_cast<CmpIOp>(op)) {
    auto p = cmp.getPredicate();
    return mapInt(op, [p](int64_t a, int64_t b, unsigned w) -> int64_t {
      uint64_t ua = zext(a, w), ub = zext(b, w);
      switch (p) {
      case CmpIPredicate::eq: return a == b;
      case CmpIPredicate::ne: return a != b;
      case CmpIPredicate::slt: return a < b;
      case CmpIPredicate::sle: return a <= b;
      case CmpIPredicate::sgt: return a > b;
      case CmpIPredicate::sge: return a >= b;
      case CmpIPredicate::ult: return ua < ub;
      case CmpIPredicate::ule: return ua <= ub;
      case CmpIPredicate::ugt: return ua > ub;
      case CmpIPredicate::uge: return ua >= ub;
      }
      return 0;
    });
  }
  if (isa<AddFOp>(op))
    return mapFloat(op, [](double a, double b) { return a + b; });
  if (isa<SubFOp>(op))
    return mapFloat(op, [](double a, double b) { return a - b; });
  if (isa<MulFOp>(op))
    return mapFloat(op, [](double a, double b) { return a * b; });
  if (isa<DivFOp>(op))
    return mapFloat(op, [](double a, double b) { return a / b; });
  if (isa<RemFOp>(op))
    return mapFloat(op, [](double a, double b) { return std::fmod(a, b); });
  if (isa<NegFOp>(op))
    return mapFloat(op, [](double a, double) { return -a; });
  if (isa<MaximumFOp>(op))
    return mapFloat(op, [](double a, double b) {
      return (std::isnan(a) || std::isnan(b)) ? NAN : std::max(a, b);
    });
  if (isa<MinimumFOp>(op))
    return mapFloat(op, [](double a, double b) {
      return (std::isnan(a) || std::isnan(b)) ? NAN : std::min(a, b);
    });
  if (isa<MaxNumFOp>(op))
    return mapFloat(op, [](double a, double b) { return std::fmax(a, b); });
  if (isa<MinNumFOp>(op))
    return mapFloat(op, [](double a, double b) { return std::fmin(a, b); });
  if (isa<ExtFOp, TruncFOp>(op))
    return mapFloat(op, [](double a, double) { return a; });
  if (isa<math::SqrtOp>(op))
    return mapFloat(op, [](double a, double) { return std::sqrt(a); });
  if (isa<math::AbsFOp>(op))
    return mapFloat(op, [](double a, double) { return std::fabs(a); });
  if (isa<math::FloorOp>(op))
    return mapFloat(op, [](double a, double) { return std::floor(a); });
  if (isa<math::CeilOp>(op))
    return mapFloat(op, [](double a, double) { return std::ceil(a); });
  if (isa<math::TruncOp>(op))
    return mapFloat(op, [](double a, double) { return std::trunc(a); });
  if (isa<math::RoundOp>(op))
    return mapFloat(op, [](double a, double) { return std::round(a); });
  if (isa<math::RoundEvenOp>(op))
    return mapFloat(op, [](double a, double) { return std::nearbyint(a); });
  if (isa<math::CopySignOp>(op))
    return mapFloat(op, [](double a, double b) { return std::copysign(a, b); });
  if (isa<math::RsqrtOp>(op))
    return mapMath(op, [](auto a, auto) { return 1 / std::sqrt(a); });
  // Transcendentals (the frontend's CodeGenMath.cpp): in float for f32, f16 and
  // bf16, as on the GPU (libdevice's f32 results are within an ulp or two
  // of the host's); in double for f64.
  if (isa<math::ExpOp>(op))
    return mapMath(op, [](auto a, auto) { return std::exp(a); });
  if (isa<math::Exp2Op>(op))
    return mapMath(op, [](auto a, auto) { return std::exp2(a); });
  if (isa<math::ExpM1Op>(op))
    return mapMath(op, [](auto a, auto) { return std::expm1(a); });
  if (isa<math::LogOp>(op))
    return mapMath(op, [](auto a, auto) { return std::log(a); });
  if (isa<math::Log2Op>(op))
    return mapMath(op, [](auto a, auto) { return std::log2(a); });
  if (isa<math::Log10Op>(op))
    return mapMath(op, [](auto a, auto) { return std::log10(a); });
  if (isa<math::Log1pOp>(op))
    return mapMath(op, [](auto a, auto) { return std::log1p(a); });
  if (isa<math::SinOp>(op))
    return mapMath(op, [](auto a, auto) { return std::sin(a); });
  if (isa<math::CosOp>(op))
    return mapMath(op, [](auto a, auto) { return std::cos(a); });
  if (isa<math::TanOp>(op))
    return mapMath(op, [](auto a, auto) { return std::tan(a); });
  if (isa<math::AsinOp>(op))
    return mapMath(op, [](auto a, auto) { return std::asin(a); });
  if (isa<math::AcosOp>(op))
    return mapMath(op, [](auto a, auto) { return std::acos(a); });
  if (isa<math::AtanOp>(op))
    return mapMath(op, [](auto a, auto) { return std::atan(a); });
  if (isa<math::Atan2Op>(op))
    return mapMath(op, [](auto a, auto b) { return std::atan2(a, b); });
  if (isa<math::SinhOp>(op))
    return mapMath(op, [](auto a, auto) { return std::sinh(a); });
  if (isa<math::CoshOp>(op))
    return mapMath(op, [](auto a, auto) { return std::cosh(a); });
  if (isa<math::TanhOp>(op))
    return mapMath(op, [](auto a, auto) { return std::tanh(a); });
  if (isa<math::AsinhOp>(op))
    return mapMath(op, [](auto a, auto) { return std::asinh(a); });
  if (isa<math::AcoshOp>(op))
    return mapMath(op, [](auto a, auto) { return std::acosh(a); });
  if (isa<math::AtanhOp>(op))
    return mapMath(op, [](auto a, auto) { return std::atanh(a); });
  if (isa<math::ErfOp>(op))
    return mapMath(op, [](auto a, auto) { return std::erf(a); });
  if (isa<math::ErfcOp>(op))
    return mapMath(op, [](auto a, auto) { return std::erfc(a); });
  if (isa<math::CbrtOp>(op))
    return mapMath(op, [](auto a, auto) { return std::cbrt(a); });
  if (isa<math::PowFOp>(op))
    return mapMath(op, [](auto a, auto b) { return std::pow(a, b); });
  if (isa<math::FmaOp>(op)) {
    ArrayRef_ x = get(op->getOperand(0)), y = get(op->getOperand(1)),
              z = get(op->getOperand(2));
    auto r = make(op->getResult(0).getType());
    for (size_t k = 0; k < r->fv.size(); ++k)
      r->fv[k] = r->elem.isF32()
                     ? double(std::fma(float(x->fv[k]), float(y->fv[k]),
                                       float(z->fv[k])))
                     : roundTo(std::fma(x->fv[k], y->fv[k], z->fv[k]),
                               r->elem);
    values[op->getResult(0)] = r;
    return;
  }
  if (isa<math::AbsIOp>(op))
    return mapInt(op, [](int64_t a, int64_t, unsigned) { return a < 0 ? int64_t(0 - uint64_t(a)) : a; });
  if (auto cmp = dyn_cast<CmpFOp>(op)) {
    ArrayRef_ a = get(op->getOperand(0)), b = get(op->getOperand(1));
    auto r = make(op->getResult(0).getType());
    auto p = cmp.getPredicate();
    for (size_t k = 0; k < r->iv.size(); ++k) {
      double x = a->fv[k], y = b->fv[k];
      bool unord = std::isnan(x) || std::isnan(y);
      bool v = false;
      switch (p) {
      case CmpFPredicate::OEQ: v = !unord && x == y; break;
      case CmpFPredicate::ONE: v = !unord && x != y; break;
      case CmpFPredicate::OLT: v = !unord && x < y; break;
      case CmpFPredicate::OLE: v = !unord && x <= y; break;
      case CmpFPredicate::OGT: v = !unord && x > y; break;
      case CmpFPredicate::OGE: v = !unord && x >= y; break;
      case CmpFPredicate::UEQ: v = unord || x == y; break;
      case CmpFPredicate::UNE: v = unord || x != y; break;
      case CmpFPredicate::ULT: v = unord || x < y; break;
      case CmpFPredicate::ULE: v = unord || x <= y; break;
      case CmpFPredicate::UGT: v = unord || x > y; break;
      case CmpFPredicate::UGE: v = unord || x >= y; break;
      case CmpFPredicate::ORD: v = !unord; break;
      case CmpFPredicate::UNO: v = unord; break;
      case CmpFPredicate::AlwaysTrue: v = true; break;
      case CmpFPredicate::AlwaysFalse: v = false; break;
      }
      r->iv[k] = v;
    }
    values[op->getResult(0)] = r;
    return;
  }
  if (isa<SIToFPOp, UIToFPOp>(op)) {
    ArrayRef_ a = get(op->getOperand(0));
    auto r = make(op->getResult(0).getType());
    unsigned w = widthOf(a->elem);
    bool u = isa<UIToFPOp>(op);
    for (size_t k = 0; k < r->fv.size(); ++k) {
      // Integer -> float rounds once, to the target type.
      double v;
      if (r->elem.isF32())
        v = u ? double(float(zext(a->iv[k], w))) : double(float(a->iv[k]));
      else
        v = roundTo(u ? double(zext(a->iv[k], w)) : double(a->iv[k]), r->elem);
      r->fv[k] = v;
    }
    values[op->getResult(0)] = r;
    return;
  }
  if (isa<FPToSIOp, FPToUIOp>(op)) {
    ArrayRef_ a = get(op->getOperand(0));
    auto r = make(op->getResult(0).getType());
    unsigned w = widthOf(r->elem);
    for (size_t k = 0; k < r->iv.size(); ++k) {
      double v = a->fv[k];
      if (std::isnan(v) || std::fabs(v) >= 9.2e18)
        fail(op, "float to integer conversion of an out-of-range value");
      r->iv[k] = wrap(int64_t(v), w);
    }
    values[op->getResult(0)] = r;
    return;
  }
  if (auto sel = dyn_cast<SelectOp>(op)) {
    ArrayRef_ c = get(sel.getCondition());
    ArrayRef_ t = get(sel.getTrueValue()), f = get(sel.getFalseValue());
    auto r = make(op->getResult(0).getType());
    bool scalarCond = c->shape.empty();
    for (size_t k = 0; k < r->size(); ++k) {
      bool take = c->iv[scalarCond ? 0 : k] != 0;
      if (r->kind == Kind::Float)
        r->fv[k] = take ? t->fv[k] : f->fv[k];
      else
        r->iv[k] = take ? t->iv[k] : f->iv[k];
    }
    values[op->getResult(0)] = r;
    return;
  }
  if (isa<BitcastOp>(op)) {
    ArrayRef_ a = get(op->getOperand(0));
    auto r = make(op->getResult(0).getType());
    for (size_t k = 0; k < r->size(); ++k)
      setBits(*r, k, bitsOf(*a, k));
    values[op->getResult(0)] = r;
    return;
  }
  fail(op, "the interpreter does not support this operation");
}

uint64_t Interpreter::bitsOf(const Array &a, size_t k) {
  Type t = a.elem;
  if (a.kind != Kind::Float)
    return zext(a.iv[k], widthOf(t) == 1 ? 8 : widthOf(t));
  double v = a.fv[k];
  if (t.isF64()) {
    uint64_t u;
    std::memcpy(&u, &v, 8);
    return u;
  }
  if (t.isF32()) {
    float f = float(v);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  }
  if (t.isF16()) {
    _Float16 h = _Float16(float(v));
    uint16_t u;
    std::memcpy(&u, &h, 2);
    return u;
  }
  if (!t.isBF16()) // fp8
    return apFloatBits(v, cast<FloatType>(t));
  float f = float(v); // bf16: the high half of the (already rounded) f32
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u >> 16;
}

void Interpreter::setBits(Array &a, size_t k, uint64_t u) {
  Type t = a.elem;
  if (a.kind != Kind::Float) {
    a.iv[k] = wrap(int64_t(u), widthOf(t));
    return;
  }
  if (t.isF64()) {
    std::memcpy(&a.fv[k], &u, 8);
  } else if (t.isF32()) {
    uint32_t v = uint32_t(u);
    float f;
    std::memcpy(&f, &v, 4);
    a.fv[k] = f;
  } else if (t.isF16()) {
    uint16_t v = uint16_t(u);
    _Float16 h;
    std::memcpy(&h, &v, 2);
    a.fv[k] = double(float(h));
  } else if (!t.isBF16()) { // fp8
    a.fv[k] = apFloatValue(u, cast<FloatType>(t));
  } else {
    uint32_t v = uint32_t(u & 0xffff) << 16;
    float f;
    std::memcpy(&f, &v, 4);
    a.fv[k] = f;
  }
}

} // namespace kite::interp::detail
