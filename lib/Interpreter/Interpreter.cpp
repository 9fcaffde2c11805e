//===- Interpreter.cpp - Run kite-dialect kernels on the host ---------------===//
//
// A direct interpreter over the IR: every SSA value is a dense host array
// (a scalar is a 0-d one). Integers are kept sign-extended in int64 and
// wrapped to their width after every op; floats are doubles rounded to
// their type (f32 through float, f16 through _Float16, bf16 by bit
// rounding) after every op, which reproduces IEEE single-precision results
// for +, -, *, /, sqrt and fma exactly. Programs run one after another.
//
//===----------------------------------------------------------------------===//

#include "kite/Interpreter/Interpreter.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <memory>

using namespace mlir;
namespace kd = mlir::kite;

namespace {

/// Thrown with a finished message; caught in run().
struct Failure {
  std::string message;
};

enum class Kind { Int, Float, Ptr };

struct Array {
  SmallVector<int64_t, 2> shape;
  Kind kind = Kind::Int;
  Type elem;                 ///< element type (pointer: !kite.ptr<T>)
  std::vector<int64_t> iv;   ///< Int, Ptr
  std::vector<double> fv;    ///< Float
  size_t size() const { return kind == Kind::Float ? fv.size() : iv.size(); }
};
using ArrayRef_ = std::shared_ptr<Array>;

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Wraps an integer to `width` bits, sign-extended (i1: 0 or 1).
inline int64_t wrap(int64_t x, unsigned width) {
  if (width == 1)
    return x & 1;
  if (width >= 64)
    return x;
  unsigned s = 64 - width;
  return int64_t(uint64_t(x) << s) >> s;
}
inline uint64_t zext(int64_t x, unsigned width) {
  if (width >= 64)
    return uint64_t(x);
  return uint64_t(x) & ((uint64_t(1) << width) - 1);
}

inline double roundBF16(double x) {
  float f = float(x);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu)) // NaN stays NaN
    u |= 0x400000u;
  else
    u += 0x7fffu + ((u >> 16) & 1);
  u &= 0xffff0000u;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Rounds `x` to the float type `t`.
inline double roundTo(double x, Type t) {
  if (t.isF64())
    return x;
  if (t.isF32())
    return double(float(x));
  if (t.isF16())
    return double(float(_Float16(float(x))));
  if (t.isBF16())
    return roundBF16(x);
  return x;
}

class Interpreter {
public:
  Interpreter(const ::kite::interp::Launch &launch) : launch(launch) {}

  void runKernel(func::FuncOp kernel) {
    Block &entry = kernel.getBody().front();
    unsigned gpuArg = 0;
    for (BlockArgument arg : entry.getArguments()) {
      if (gpuArg >= launch.args.size())
        throw Failure{"the kernel takes more arguments than were given"};
      const ::kite::interp::Value &v = launch.args[gpuArg++];
      Type t = arg.getType();
      auto a = std::make_shared<Array>();
      a->elem = t;
      if (isa<kd::PointerType>(t)) {
        a->kind = Kind::Ptr;
        a->iv = {v.i};
      } else if (isa<FloatType>(t)) {
        a->kind = Kind::Float;
        a->fv = {roundTo(v.isFloat ? v.f : double(v.i), t)};
      } else {
        a->kind = Kind::Int;
        a->iv = {wrap(v.isFloat ? int64_t(v.f) : v.i, t.getIntOrFloatBitWidth())};
      }
      params.push_back(a);
    }
    for (uint32_t z = 0; z < launch.grid[2]; ++z)
      for (uint32_t y = 0; y < launch.grid[1]; ++y)
        for (uint32_t x = 0; x < launch.grid[0]; ++x) {
          pid[0] = x;
          pid[1] = y;
          pid[2] = z;
          values.clear();
          for (unsigned k = 0; k < entry.getNumArguments(); ++k)
            values[entry.getArgument(k)] = params[k];
          runBlock(entry);
        }
  }

private:
  //===--------------------------------------------------------------------===//
  // Helpers
  //===--------------------------------------------------------------------===//

  [[noreturn]] void fail(Operation *op, const std::string &msg) {
    std::string s;
    llvm::raw_string_ostream os(s);
    if (auto loc = op->getLoc()->findInstanceOf<FileLineColLoc>())
      os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
         << loc.getColumn() << ": ";
    os << "error: " << msg << " (in '" << op->getName() << "', program ("
       << pid[0] << ", " << pid[1] << ", " << pid[2] << "))";
    throw Failure{s};
  }

  ArrayRef_ get(mlir::Value v) {
    auto it = values.find(v);
    if (it == values.end())
      throw Failure{"internal error: value used before definition"};
    return it->second;
  }

  ArrayRef_ make(Type type) {
    auto a = std::make_shared<Array>();
    if (auto r = dyn_cast<RankedTensorType>(type)) {
      a->shape.assign(r.getShape().begin(), r.getShape().end());
      a->elem = r.getElementType();
    } else {
      a->elem = type;
    }
    int64_t n = numElements(a->shape);
    if (isa<kd::PointerType>(a->elem)) {
      a->kind = Kind::Ptr;
      a->iv.assign(n, 0);
    } else if (isa<FloatType>(a->elem)) {
      a->kind = Kind::Float;
      a->fv.assign(n, 0);
    } else {
      a->kind = Kind::Int;
      a->iv.assign(n, 0);
    }
    return a;
  }

  static unsigned widthOf(Type t) {
    if (isa<kd::PointerType>(t))
      return 64;
    if (isa<IndexType>(t))
      return 64;
    return t.getIntOrFloatBitWidth();
  }

  static unsigned bytesOf(Type pointee) {
    return pointee.isInteger(1) ? 1 : std::max(1u, pointee.getIntOrFloatBitWidth() / 8);
  }

  //===--------------------------------------------------------------------===//
  // Control flow
  //===--------------------------------------------------------------------===//

  /// Runs the ops of `block`; returns the operands of its terminator.
  SmallVector<ArrayRef_> runBlock(Block &block) {
    for (Operation &op : block) {
      if (op.hasTrait<OpTrait::IsTerminator>()) {
        SmallVector<ArrayRef_> out;
        for (mlir::Value v : op.getOperands())
          out.push_back(get(v));
        return out;
      }
      execute(&op);
    }
    return {};
  }

  void execute(Operation *op) {
    if (auto f = dyn_cast<scf::ForOp>(op))
      return forOp(f);
    if (auto i = dyn_cast<scf::IfOp>(op))
      return ifOp(i);
    if (auto w = dyn_cast<scf::WhileOp>(op))
      return whileOp(w);
    if (isa<kd::KiteDialect>(op->getDialect()))
      return kiteOp(op);
    if (auto c = dyn_cast<arith::ConstantOp>(op))
      return constant(c);
    if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
      return elementwise(op);
    fail(op, "the interpreter does not support this operation");
  }

  void forOp(scf::ForOp loop) {
    int64_t lo = get(loop.getLowerBound())->iv[0];
    int64_t hi = get(loop.getUpperBound())->iv[0];
    int64_t step = get(loop.getStep())->iv[0];
    if (step <= 0)
      fail(loop, "scf.for with a non-positive step");
    SmallVector<ArrayRef_> carried;
    for (mlir::Value v : loop.getInitArgs())
      carried.push_back(get(v));
    Block &body = *loop.getBody();
    Type ivType = loop.getInductionVar().getType();
    for (int64_t i = lo; i < hi; i += step) {
      auto iv = make(ivType);
      iv->iv[0] = i;
      values[loop.getInductionVar()] = iv;
      for (unsigned k = 0; k < carried.size(); ++k)
        values[loop.getRegionIterArgs()[k]] = carried[k];
      carried = runBlock(body);
    }
    for (unsigned k = 0; k < carried.size(); ++k)
      values[loop.getResult(k)] = carried[k];
  }

  void whileOp(scf::WhileOp loop) {
    SmallVector<ArrayRef_> args;
    for (mlir::Value v : loop.getInits())
      args.push_back(get(v));
    Block &before = loop.getBefore().front(), &after = loop.getAfter().front();
    // A loop whose condition never turns false would hang the host.
    constexpr int64_t kMaxIterations = int64_t(1) << 24;
    for (int64_t n = 0;; ++n) {
      if (n == kMaxIterations)
        fail(loop, "while loop ran 2^24 iterations; stopped (does its "
                   "condition ever become false?)");
      for (unsigned k = 0; k < args.size(); ++k)
        values[before.getArgument(k)] = args[k];
      SmallVector<ArrayRef_> cond = runBlock(before);
      // scf.condition: the flag, then the values passed on.
      SmallVector<ArrayRef_> passed(cond.begin() + 1, cond.end());
      if (cond[0]->iv[0] == 0) {
        for (unsigned k = 0; k < loop.getNumResults(); ++k)
          values[loop.getResult(k)] = passed[k];
        return;
      }
      for (unsigned k = 0; k < passed.size(); ++k)
        values[after.getArgument(k)] = passed[k];
      args = runBlock(after);
    }
  }

  void ifOp(scf::IfOp op) {
    bool c = get(op.getCondition())->iv[0] != 0;
    Region &region = c ? op.getThenRegion() : op.getElseRegion();
    SmallVector<ArrayRef_> out;
    if (!region.empty())
      out = runBlock(region.front());
    for (unsigned k = 0; k < op.getNumResults(); ++k)
      values[op.getResult(k)] = out[k];
  }

  //===--------------------------------------------------------------------===//
  // Constants and elementwise ops
  //===--------------------------------------------------------------------===//

  void constant(arith::ConstantOp op) {
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

  template <typename F> void mapInt(Operation *op, F f) {
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

  template <typename F> void mapFloat(Operation *op, F f) {
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

  void elementwise(Operation *op) {
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
    if (isa<math::ExpOp>(op))
      return mapFloat(op, [](double a, double) { return double(std::exp(float(a))); });
    if (isa<math::LogOp>(op))
      return mapFloat(op, [](double a, double) { return double(std::log(float(a))); });
    if (isa<math::SqrtOp>(op))
      return mapFloat(op, [](double a, double) { return std::sqrt(a); });
    if (isa<math::AbsFOp>(op))
      return mapFloat(op, [](double a, double) { return std::fabs(a); });
    if (isa<math::FloorOp>(op))
      return mapFloat(op, [](double a, double) { return std::floor(a); });
    if (isa<math::CeilOp>(op))
      return mapFloat(op, [](double a, double) { return std::ceil(a); });
    // Transcendentals in f32, as on the GPU (libdevice's results are within
    // an ulp or two of these).
    if (isa<math::Exp2Op>(op))
      return mapFloat(op, [](double a, double) { return double(std::exp2(float(a))); });
    if (isa<math::Log2Op>(op))
      return mapFloat(op, [](double a, double) { return double(std::log2(float(a))); });
    if (isa<math::TanhOp>(op))
      return mapFloat(op, [](double a, double) { return double(std::tanh(float(a))); });
    if (isa<math::ErfOp>(op))
      return mapFloat(op, [](double a, double) { return double(std::erf(float(a))); });
    if (isa<math::RsqrtOp>(op))
      return mapFloat(op, [](double a, double) {
        return double(1.0f / std::sqrt(float(a)));
      });
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
    if (isa<math::CosOp>(op))
      return mapFloat(op, [](double a, double) { return double(std::cos(float(a))); });
    if (isa<math::SinOp>(op))
      return mapFloat(op, [](double a, double) { return double(std::sin(float(a))); });
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

  /// The in-memory bits of element `k` (as stored by a store of its type).
  static uint64_t bitsOf(const Array &a, size_t k) {
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
    float f = float(v); // bf16: the high half of the (already rounded) f32
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u >> 16;
  }

  static void setBits(Array &a, size_t k, uint64_t u) {
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
    } else {
      uint32_t v = uint32_t(u & 0xffff) << 16;
      float f;
      std::memcpy(&f, &v, 4);
      a.fv[k] = f;
    }
  }

  //===--------------------------------------------------------------------===//
  // Kite ops
  //===--------------------------------------------------------------------===//

  void kiteOp(Operation *op) {
    if (auto p = dyn_cast<kd::ProgramIdOp>(op)) {
      auto r = make(p.getType());
      r->iv[0] = pid[p.getAxis()];
      values[p.getResult()] = r;
      return;
    }
    if (auto p = dyn_cast<kd::NumProgramsOp>(op)) {
      auto r = make(p.getType());
      r->iv[0] = launch.grid[p.getAxis()];
      values[p.getResult()] = r;
      return;
    }
    if (auto a = dyn_cast<kd::ArangeOp>(op)) {
      auto r = make(a.getType());
      for (size_t k = 0; k < r->iv.size(); ++k)
        r->iv[k] = a.getStart() + int64_t(k);
      values[a.getResult()] = r;
      return;
    }
    if (auto s = dyn_cast<kd::SplatOp>(op)) {
      ArrayRef_ src = get(s.getSrc());
      auto r = make(s.getType());
      if (r->kind == Kind::Float)
        std::fill(r->fv.begin(), r->fv.end(), src->fv[0]);
      else
        std::fill(r->iv.begin(), r->iv.end(), src->iv[0]);
      values[s.getResult()] = r;
      return;
    }
    if (auto e = dyn_cast<kd::ExpandDimsOp>(op)) {
      auto r = std::make_shared<Array>(*get(e.getSrc()));
      auto shape = cast<RankedTensorType>(e.getType()).getShape();
      r->shape.assign(shape.begin(), shape.end());
      values[e.getResult()] = r;
      return;
    }
    if (auto t = dyn_cast<kd::TransOp>(op))
      return trans(t);
    if (auto sc = dyn_cast<kd::ScanOp>(op))
      return scan(sc);
    if (auto h = dyn_cast<kd::HintOp>(op))
      return hint(h);
    if (auto rs = dyn_cast<kd::ReshapeOp>(op)) {
      // The same elements in row-major order.
      auto r = std::make_shared<Array>(*get(rs.getSrc()));
      auto type = cast<RankedTensorType>(rs.getType());
      r->shape.assign(type.getShape().begin(), type.getShape().end());
      values[rs.getResult()] = r;
      return;
    }
    if (auto b = dyn_cast<kd::BroadcastOp>(op))
      return broadcast(b);
    if (auto a = dyn_cast<kd::AddPtrOp>(op)) {
      ArrayRef_ p = get(a.getPtr()), o = get(a.getOffset());
      auto r = make(a.getType());
      Type pointee = cast<kd::PointerType>(getElementTypeOrSelf(a.getType()))
                         .getPointeeType();
      int64_t bytes = bytesOf(pointee);
      for (size_t k = 0; k < r->iv.size(); ++k)
        r->iv[k] = int64_t(uint64_t(p->iv[p->shape.empty() ? 0 : k]) +
                           uint64_t(o->iv[o->shape.empty() ? 0 : k] * bytes));
      values[a.getResult()] = r;
      return;
    }
    if (auto l = dyn_cast<kd::LoadOp>(op))
      return load(l);
    if (auto s = dyn_cast<kd::StoreOp>(op))
      return store(s);
    if (isa<kd::RandOp, kd::RandIntOp, kd::RandNOp>(op))
      return random(op);
    if (auto d = dyn_cast<kd::DotOp>(op))
      return dot(d);
    if (auto r = dyn_cast<kd::ReduceOp>(op))
      return reduce(r);
    // Block operations run one after another: every thread has "arrived".
    if (isa<kd::DebugBarrierOp>(op))
      return;
    fail(op, "the interpreter does not support this operation");
  }

  /// kite.hint: the value itself, after checking the asserted facts along
  /// the row-major index (a false hint would make the GPU code wrong).
  void hint(kd::HintOp op) {
    ArrayRef_ src = get(op.getSrc());
    const std::vector<int64_t> &v = src->iv;
    int64_t n = int64_t(v.size());
    auto wrong = [&](const std::string &what, int64_t at) {
      fail(op, what + " does not hold: element [" + std::to_string(at) +
                   "] is " + std::to_string(v[size_t(at)]));
    };
    if (auto raw = op.getContiguity()) {
      int64_t c = int64_t(*raw);
      for (int64_t i = 0; i < n; ++i)
        if (i % c && v[size_t(i)] != v[size_t(i - 1)] + 1)
          wrong("max_contiguous(" + std::to_string(c) + ")", i);
    }
    if (auto raw = op.getConstancy()) {
      int64_t k = int64_t(*raw);
      for (int64_t i = 0; i < n; ++i)
        if (i % k && v[size_t(i)] != v[size_t(i - 1)])
          wrong("max_constancy(" + std::to_string(k) + ")", i);
    }
    if (auto raw = op.getDivisibility()) {
      // Divisibility is of the first value of each run of consecutive
      // values (AxisInfo's meaning; Triton writes multiple_of(offsets, B)
      // for offsets pid * B + arange(0, B)): checked at the starts of the
      // longest aligned power-of-two runs the values really have.
      int64_t d = int64_t(*raw);
      int64_t run = 1;
      for (int64_t c = 2; c <= n && n % c == 0; c *= 2) {
        bool consecutive = true;
        for (int64_t i = 0; i < n && consecutive; ++i)
          consecutive = i % c == 0 || v[size_t(i)] == v[size_t(i - 1)] + 1;
        if (!consecutive)
          break;
        run = c;
      }
      for (int64_t i = 0; i < n; i += run)
        if (v[size_t(i)] % d)
          wrong("multiple_of(" + std::to_string(d) + ")", i);
    }
    values[op.getResult()] = src;
  }

  void scan(kd::ScanOp op) {
    ArrayRef_ src = get(op.getSrc());
    auto r = make(op.getType());
    int64_t axis = op.getAxis();
    int64_t outer = 1, inner = 1, len = src->shape[axis];
    for (int64_t d = 0; d < axis; ++d)
      outer *= src->shape[d];
    for (size_t d = axis + 1; d < src->shape.size(); ++d)
      inner *= src->shape[d];
    bool sum = op.getKind() == kd::ScanKind::Sum, rev = op.getReverse();
    bool fl = src->kind == Kind::Float;
    unsigned w = widthOf(src->elem);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        double fa = sum ? 0 : 1;
        int64_t ia = sum ? 0 : 1;
        for (int64_t s = 0; s < len; ++s) {
          int64_t k = rev ? len - 1 - s : s;
          size_t at = size_t((o * len + k) * inner + i);
          if (fl) {
            fa = roundTo(sum ? fa + src->fv[at] : fa * src->fv[at], src->elem);
            r->fv[at] = fa;
          } else {
            ia = wrap(sum ? int64_t(uint64_t(ia) + uint64_t(src->iv[at]))
                          : int64_t(uint64_t(ia) * uint64_t(src->iv[at])),
                      w);
            r->iv[at] = ia;
          }
        }
      }
    values[op.getResult()] = r;
  }

  void trans(kd::TransOp t) {
    ArrayRef_ src = get(t.getSrc());
    auto r = make(t.getType());
    size_t rank = r->shape.size();
    ArrayRef<int32_t> order = t.getOrder();
    // Strides of the operand, read in the result's dimension order.
    SmallVector<int64_t> srcStride(rank), stride(rank);
    int64_t s = 1;
    for (int d = int(rank) - 1; d >= 0; --d) {
      srcStride[d] = s;
      s *= src->shape[d];
    }
    for (size_t i = 0; i < rank; ++i)
      stride[i] = srcStride[order[i]];
    SmallVector<int64_t> idx(rank, 0);
    for (size_t k = 0; k < r->size(); ++k) {
      int64_t from = 0;
      for (size_t d = 0; d < rank; ++d)
        from += idx[d] * stride[d];
      if (r->kind == Kind::Float)
        r->fv[k] = src->fv[from];
      else
        r->iv[k] = src->iv[from];
      for (int d = int(rank) - 1; d >= 0; --d) {
        if (++idx[d] < r->shape[d])
          break;
        idx[d] = 0;
      }
    }
    values[t.getResult()] = r;
  }

  void broadcast(kd::BroadcastOp b) {
    ArrayRef_ src = get(b.getSrc());
    auto r = make(b.getType());
    size_t rank = r->shape.size();
    SmallVector<int64_t> srcStride(rank, 0);
    int64_t s = 1;
    for (int d = int(rank) - 1; d >= 0; --d) {
      srcStride[d] = src->shape[d] == 1 ? 0 : s;
      s *= src->shape[d];
    }
    SmallVector<int64_t> idx(rank, 0);
    for (size_t k = 0; k < r->size(); ++k) {
      int64_t from = 0;
      for (size_t d = 0; d < rank; ++d)
        from += idx[d] * srcStride[d];
      if (r->kind == Kind::Float)
        r->fv[k] = src->fv[from];
      else
        r->iv[k] = src->iv[from];
      for (int d = int(rank) - 1; d >= 0; --d) {
        if (++idx[d] < r->shape[d])
          break;
        idx[d] = 0;
      }
    }
    values[b.getResult()] = r;
  }

  /// The buffer holding [address, address + bytes), or an error message.
  const ::kite::interp::Buffer *bufferFor(uint64_t address, unsigned bytes) {
    if (lastBuffer && address >= lastBuffer->address &&
        address + bytes <= lastBuffer->address + lastBuffer->bytes)
      return lastBuffer;
    for (const auto &b : launch.buffers)
      if (address >= b.address && address + bytes <= b.address + b.bytes)
        return lastBuffer = &b;
    return nullptr;
  }

  std::string describeAddress(uint64_t address, unsigned bytes) {
    // The buffer whose extent is nearest to the access.
    const ::kite::interp::Buffer *nearest = nullptr;
    uint64_t best = UINT64_MAX;
    for (const auto &b : launch.buffers) {
      uint64_t end = b.address + b.bytes;
      uint64_t d = address < b.address ? b.address - address
                   : address + bytes > end ? address + bytes - end
                                           : 0;
      if (d < best) {
        best = d;
        nearest = &b;
      }
    }
    std::string s = "address 0x" + llvm::utohexstr(address);
    if (!nearest)
      return s + " (no buffers were given)";
    std::string which = "buffer '" + nearest->name + "' (" +
                        std::to_string(nearest->bytes) + " bytes)";
    if (address < nearest->address)
      return s + ", " + std::to_string(nearest->address - address) +
             " bytes before " + which;
    if (address >= nearest->address + nearest->bytes)
      return s + ", " +
             std::to_string(address - nearest->address - nearest->bytes) +
             " bytes past the end of " + which;
    return s + ", byte " + std::to_string(address - nearest->address) +
           " of " + which + ": the " + std::to_string(bytes) +
           "-byte access overruns it";
  }

  std::string elementIndex(const Array &a, size_t k) {
    if (a.shape.empty())
      return "";
    std::string s = " at element [";
    SmallVector<int64_t> idx(a.shape.size());
    for (int d = int(a.shape.size()) - 1; d >= 0; --d) {
      idx[d] = int64_t(k) % a.shape[d];
      k /= a.shape[d];
    }
    for (size_t d = 0; d < idx.size(); ++d)
      s += (d ? ", " : "") + std::to_string(idx[d]);
    return s + "]";
  }

  void load(kd::LoadOp l) {
    ArrayRef_ p = get(l.getPtr());
    ArrayRef_ m = l.getMask() ? get(l.getMask()) : nullptr;
    ArrayRef_ o = l.getOther() ? get(l.getOther()) : nullptr;
    auto r = make(l.getType());
    Type pointee = r->elem;
    unsigned bytes = bytesOf(pointee);
    for (size_t k = 0; k < r->size(); ++k) {
      if (m && !m->iv[k]) {
        if (o) {
          if (r->kind == Kind::Float)
            r->fv[k] = o->fv[k];
          else
            r->iv[k] = o->iv[k];
        }
        continue;
      }
      uint64_t address = uint64_t(p->iv[k]);
      if (!bufferFor(address, bytes))
        fail(l, "out-of-bounds load" + elementIndex(*p, k) + ": " +
                    describeAddress(address, bytes));
      uint64_t u = 0;
      std::memcpy(&u, reinterpret_cast<const void *>(address), bytes);
      if (pointee.isInteger(1))
        u = u != 0;
      setBits(*r, k, u);
    }
    values[l.getResult()] = r;
  }

  void store(kd::StoreOp s) {
    ArrayRef_ p = get(s.getPtr()), v = get(s.getValue());
    ArrayRef_ m = s.getMask() ? get(s.getMask()) : nullptr;
    Type pointee = v->elem;
    unsigned bytes = bytesOf(pointee);
    // Check every address first: an out-of-bounds store writes nothing.
    for (size_t k = 0; k < v->size(); ++k) {
      if (m && !m->iv[k])
        continue;
      uint64_t address = uint64_t(p->iv[k]);
      if (!bufferFor(address, bytes))
        fail(s, "out-of-bounds store" + elementIndex(*p, k) + ": " +
                    describeAddress(address, bytes));
    }
    for (size_t k = 0; k < v->size(); ++k) {
      if (m && !m->iv[k])
        continue;
      uint64_t u = bitsOf(*v, k);
      std::memcpy(reinterpret_cast<void *>(uint64_t(p->iv[k])), &u, bytes);
    }
  }

  static void philox(uint32_t k0, uint32_t k1, uint32_t c[4]) {
    for (int r = 0; r < 10; ++r) {
      uint64_t pb = uint64_t(0xCD9E8D57u) * c[2], pa = uint64_t(0xD2511F53u) * c[0];
      uint32_t n0 = uint32_t(pb >> 32) ^ c[1] ^ k0;
      uint32_t n2 = uint32_t(pa >> 32) ^ c[3] ^ k1;
      c[1] = uint32_t(pb);
      c[3] = uint32_t(pa);
      c[0] = n0;
      c[2] = n2;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
  }

  static float uniform(uint32_t word) {
    int32_t x = int32_t(word);
    if (x < 0)
      x = ~x;
    return float(x) * 4.6566127342e-10f;
  }

  void random(Operation *op) {
    ArrayRef_ seed = get(op->getOperand(0)), off = get(op->getOperand(1));
    auto r = make(op->getResult(0).getType());
    uint64_t key = uint64_t(seed->iv[0]); // sign-extended already
    uint32_t k0 = uint32_t(key), k1 = uint32_t(key >> 32);
    bool wide = widthOf(off->elem) == 64;
    for (size_t k = 0; k < r->size(); ++k) {
      uint64_t o = uint64_t(off->iv[k]);
      uint32_t c[4] = {uint32_t(o), wide ? uint32_t(o >> 32) : 0u, 0, 0};
      philox(k0, k1, c);
      if (isa<kd::RandIntOp>(op)) {
        r->iv[k] = wrap(int64_t(c[0]), 32);
      } else if (isa<kd::RandOp>(op)) {
        r->fv[k] = uniform(c[0]);
      } else {
        float u1 = std::max(1.0e-7f, uniform(c[0])), u2 = uniform(c[1]);
        float th = 6.283185307179586f * u2;
        float rr = std::sqrt(-2.0f * std::log(u1));
        r->fv[k] = rr * std::cos(th);
      }
    }
    values[op->getResult(0)] = r;
  }

  void dot(kd::DotOp d) {
    ArrayRef_ a = get(d.getA()), b = get(d.getB()), acc = get(d.getAcc());
    auto r = make(d.getType());
    int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
    // tf32x3 (three tf32 products) is as close to f32 as the GPU's FMA
    // path that runs it: f32 products here.
    bool tf32 = d.getPrecision() == kd::InputPrecision::TF32 &&
                cast<RankedTensorType>(d.getA().getType())
                    .getElementType()
                    .isF32();
    auto in = [&](double x) {
      if (!tf32)
        return float(x);
      // tf32: the tensor cores read the top 19 bits of an f32 operand
      // (sign, exponent, 10 mantissa bits): the rest is dropped, i.e.
      // rounded toward zero. (Dots that the GPU computes on the FMA path
      // keep full f32 products: within the same bound.)
      float f = float(x);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      u &= 0xffffe000u;
      std::memcpy(&f, &u, 4);
      return f;
    };
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        float s = float(acc->fv[i * N + j]);
        for (int64_t k = 0; k < K; ++k)
          s = std::fma(in(a->fv[i * K + k]), in(b->fv[k * N + j]), s);
        r->fv[i * N + j] = s;
      }
    values[d.getResult()] = r;
  }

  void reduce(kd::ReduceOp op) {
    ArrayRef_ src = get(op.getSrc());
    auto r = make(op.getType());
    int64_t axis = op.getAxis();
    int64_t outer = 1, inner = 1, len = src->shape[axis];
    for (int64_t d = 0; d < axis; ++d)
      outer *= src->shape[d];
    for (size_t d = axis + 1; d < src->shape.size(); ++d)
      inner *= src->shape[d];
    auto kind = op.getKind();
    bool fl = src->kind == Kind::Float;
    unsigned w = widthOf(src->elem);
    if (kind == kd::ReduceKind::ArgMax || kind == kd::ReduceKind::ArgMin) {
      // The first index of the largest (smallest) value; a NaN wins, as
      // NaN propagates through max/min.
      bool isMax = kind == kd::ReduceKind::ArgMax;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          int64_t best = 0;
          for (int64_t k = 1; k < len; ++k) {
            size_t at = size_t((o * len + k) * inner + i);
            size_t bt = size_t((o * len + best) * inner + i);
            bool better;
            if (fl) {
              double x = src->fv[at], y = src->fv[bt];
              better = (isMax ? x > y : x < y) ||
                       (std::isnan(x) && !std::isnan(y));
            } else {
              int64_t x = src->iv[at], y = src->iv[bt];
              better = isMax ? x > y : x < y;
            }
            if (better)
              best = k;
          }
          r->iv[size_t(o * inner + i)] = best;
        }
      values[op.getResult()] = r;
      return;
    }
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        double fa = 0;
        int64_t ia = 0;
        for (int64_t k = 0; k < len; ++k) {
          size_t at = size_t((o * len + k) * inner + i);
          if (fl) {
            double x = src->fv[at];
            if (k == 0 && kind != kd::ReduceKind::Sum)
              fa = x;
            else if (kind == kd::ReduceKind::Sum)
              fa = roundTo(fa + x, src->elem);
            else if (std::isnan(x) || std::isnan(fa))
              fa = NAN;
            else
              fa = kind == kd::ReduceKind::Max ? std::max(fa, x) : std::min(fa, x);
          } else {
            int64_t x = src->iv[at];
            if (k == 0 && kind != kd::ReduceKind::Sum)
              ia = x;
            else if (kind == kd::ReduceKind::Sum)
              ia = wrap(int64_t(uint64_t(ia) + uint64_t(x)), w);
            else if (kind == kd::ReduceKind::Xor)
              ia = wrap(int64_t(uint64_t(ia) ^ uint64_t(x)), w);
            else
              ia = kind == kd::ReduceKind::Max ? std::max(ia, x) : std::min(ia, x);
          }
        }
        size_t out = size_t(o * inner + i);
        if (fl)
          r->fv[out] = fa;
        else
          r->iv[out] = ia;
      }
    values[op.getResult()] = r;
  }

  const ::kite::interp::Launch &launch;
  std::vector<ArrayRef_> params;
  llvm::DenseMap<mlir::Value, ArrayRef_> values;
  uint32_t pid[3] = {0, 0, 0};
  const ::kite::interp::Buffer *lastBuffer = nullptr;
};

} // namespace

std::string (::kite::interp::run)(func::FuncOp kernel, const Launch &launch) {
  try {
    Interpreter interp(launch);
    interp.runKernel(kernel);
    return "";
  } catch (Failure &f) {
    return f.message;
  }
}
