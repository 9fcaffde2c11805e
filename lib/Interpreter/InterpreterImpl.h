//===- InterpreterImpl.h - The interpreter's state and ops ------*- C++ -*-===//
//
// The Interpreter class (private to lib/Interpreter): host arrays for SSA
// values, and its members, defined by seam in
//   Interpreter.cpp          the driver, values, control flow (for, while, if)
//   InterpreterArith.cpp     constants and arith/math ops
//   InterpreterKiteOps.cpp   the kite ops' dispatch, block and shape ops,
//                            scans, sort, hints
//   InterpreterMemoryOps.cpp loads, stores and atomics (bounds-checked),
//                            device_print, device_assert, assume
//   InterpreterComputeOps.cpp Philox, dot, reductions
// See Interpreter.cpp for the semantics.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_INTERPRETER_INTERPRETERIMPL_H
#define KITE_LIB_INTERPRETER_INTERPRETERIMPL_H

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
#include <map>
#include <memory>

namespace kite::interp::detail {

using namespace mlir;
namespace kd = mlir::kite;

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

inline int64_t numElements(ArrayRef<int64_t> shape) {
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
  if (auto ft = dyn_cast<FloatType>(t)) { // fp8: round to nearest even
    llvm::APFloat v(x);
    bool lost;
    v.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return v.convertToDouble();
  }
  return x;
}

/// The bits of `x` (already a value of the float type `t`) for the types
/// without a C++ counterpart (fp8), and back.
inline uint64_t apFloatBits(double x, FloatType t) {
  llvm::APFloat v(x);
  bool lost;
  v.convert(t.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return v.bitcastToAPInt().getZExtValue();
}
inline double apFloatValue(uint64_t bits, FloatType t) {
  llvm::APFloat v(t.getFloatSemantics(),
                  llvm::APInt(t.getWidth(), bits & ((1u << t.getWidth()) - 1)));
  return v.convertToDouble();
}

class Interpreter {
public:
  Interpreter(const ::kite::interp::Launch &launch) : launch(launch) {}
  uint64_t work = 0; ///< element operations so far (Launch::maxWork)
  /// Programs run and loop iterations so far, against kMaxSteps: a launch
  /// of 2^31 programs or a loop of 2^62 iterations stops with an error
  /// instead of running for days.
  uint64_t steps = 0;
  static constexpr uint64_t kMaxSteps = uint64_t(1) << 30;
  /// Counts `n` more steps (programs or iterations) of `op`; past kMaxSteps
  /// an error on `op` saying what.
  void countSteps(Operation *op, uint64_t n, const char *what);

  void runKernel(func::FuncOp kernel);

private:
  //===--------------------------------------------------------------------===//
  // Helpers
  //===--------------------------------------------------------------------===//

  [[noreturn]] void fail(Operation *op, const std::string &msg);

  ArrayRef_ get(mlir::Value v);

  ArrayRef_ make(Type type);

  static unsigned widthOf(Type t);

  static unsigned bytesOf(Type pointee);

  //===--------------------------------------------------------------------===//
  // Control flow
  //===--------------------------------------------------------------------===//

  /// Runs the ops of `block`; returns the operands of its terminator.
  SmallVector<ArrayRef_> runBlock(Block &block);

  /// A custom reduce/scan's combine region applied to the two sides `a`
  /// and `b`, one element (a scalar array) of each block combined.
  std::vector<ArrayRef_> combine(Region &region, ArrayRef<ArrayRef_> a,
                                 ArrayRef<ArrayRef_> b);

  void execute(Operation *op);

  void forOp(scf::ForOp loop);

  void whileOp(scf::WhileOp loop);

  void ifOp(scf::IfOp op);

  //===--------------------------------------------------------------------===//
  // Constants and elementwise ops
  //===--------------------------------------------------------------------===//

  void constant(arith::ConstantOp op);

  template <typename F> void mapInt(Operation *op, F f);

  template <typename F> void mapFloat(Operation *op, F f);
  /// mapFloat computing `f` in float (f32, f16, bf16 results, as the GPU
  /// does) or in double (f64); `f` takes (a, b) of either type.
  template <typename F> void mapMath(Operation *op, F f);

  void elementwise(Operation *op);

  /// The in-memory bits of element `k` (as stored by a store of its type).
  static uint64_t bitsOf(const Array &a, size_t k);

  static void setBits(Array &a, size_t k, uint64_t u);

  //===--------------------------------------------------------------------===//
  // Kite ops
  //===--------------------------------------------------------------------===//

  void kiteOp(Operation *op);

  /// kite.hint: the value itself, after checking the asserted facts along
  /// the row-major index (a false hint would make the GPU code wrong).
  void hint(kd::HintOp op);

  void scan(kd::ScanOp op);
  void mapElementwise(kd::MapElementwiseOp op);

  /// Fills `r` (in row-major order) with src's element at the sum over
  /// dimensions of r's index times `stride` (0: broadcast along it).
  static void gatherStrided(const Array &src, Array &r,
                            ArrayRef<int64_t> stride);
  void trans(kd::TransOp t);

  void flip(kd::FlipOp f);
  void gather(kd::GatherOp op);
  void histogram(kd::HistogramOp op);

  void broadcast(kd::BroadcastOp b);

  /// The buffer holding [address, address + bytes), or an error message.
  const ::kite::interp::Buffer *bufferFor(uint64_t address, unsigned bytes);

  std::string describeAddress(uint64_t address, unsigned bytes);

  std::string elementIndex(const Array &a, size_t k);

  void load(kd::LoadOp l);

  void store(kd::StoreOp s);

  /// kite.atomic_rmw / kite.atomic_cas: element by element, in row-major
  /// order (one program runs at a time: atomic by construction).
  void atomic(Operation *op);

  /// kite.print: a line per element on standard output; kite.assert: an
  /// error at the op naming the message, the program and the element.
  void print(kd::PrintOp op);
  void assertion(kd::AssertOp op);
  void assume(kd::AssumeOp op);

  static void philox(uint32_t k0, uint32_t k1, uint32_t c[4], int rounds);

  static float uniform(uint32_t word);

  void random(Operation *op);

  void dot(kd::DotOp d);

  void reduce(kd::ReduceOp op);

  const ::kite::interp::Launch &launch;
  std::vector<ArrayRef_> params;
  llvm::DenseMap<mlir::Value, ArrayRef_> values;
  /// Per block: for each of its ops, the values of the block (its arguments
  /// and results of its ops) whose last use is that op (or a use nested in
  /// it), dropped once it has run, so that an unrolled kernel's
  /// intermediate blocks are freed as they die (deadAfter).
  /// (A std::map: runBlock holds a reference while nested blocks add theirs.)
  std::map<Block *, std::vector<SmallVector<mlir::Value, 2>>> deadValues;
  const std::vector<SmallVector<mlir::Value, 2>> &deadAfter(Block &block);
  uint32_t pid[3] = {0, 0, 0};
  const ::kite::interp::Buffer *lastBuffer = nullptr;
};

/// Element `at` of `src` as a scalar array.
inline ArrayRef_ elementOf(const Array &src, size_t at) {
  auto e = std::make_shared<Array>();
  e->kind = src.kind;
  e->elem = src.elem;
  if (src.kind == Kind::Float)
    e->fv.assign(1, src.fv[at]);
  else
    e->iv.assign(1, src.iv[at]);
  return e;
}

/// Element `at` of `dst` set to the scalar array `e` (elementOf's inverse).
inline void setElement(Array &dst, size_t at, const Array &e) {
  if (dst.kind == Kind::Float)
    dst.fv[at] = e.fv[0];
  else
    dst.iv[at] = e.iv[0];
}

} // namespace kite::interp::detail

#endif // KITE_LIB_INTERPRETER_INTERPRETERIMPL_H
