//===- CodeGenRandom.cpp - Triton's random numbers ----------------------------===//
//
// rand, randint, randn (kite.rand / randint / randn: the GPU lowering and
// the interpreter run Philox), randint4x / rand4x / randn4x (the four words
// of one Philox evaluation, kite.randint4x, mapped here as Triton's
// triton.language.random does), and Triton's helpers uint_to_uniform_float
// and pair_uniform_to_normal, built from arith and math ops so that rand4x
// and randn4x agree bit for bit with rand and randn.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace kite::frontend {

mlir::Value CodeGen::uniformFloat(mlir::Value word, Loc l) {
  // x < 0 ? ~x : x (as signed), to f32, times the largest scale with
  // MAX_INT * scale < 1: 2^-31 (1 - 2^-24) for 32 bits, about 2^-63 for 64.
  Location lc = loc(l);
  Type it = elemOf(word.getType());
  bool wide = it.isInteger(64);
  auto c = [&](int64_t v) {
    return splatTo(materialize(Val::integer(v), it, l), word.getType(), l);
  };
  mlir::Value neg =
      arith::CmpIOp::create(b, lc, arith::CmpIPredicate::slt, word, c(0));
  mlir::Value flipped = arith::XOrIOp::create(b, lc, word, c(-1));
  mlir::Value x = arith::SelectOp::create(b, lc, neg, flipped, word);
  Type f32 = withShape(b.getF32Type(), shapeOf(word.getType()));
  mlir::Value f = arith::SIToFPOp::create(b, lc, f32, x);
  mlir::Value scale = splatTo(
      materialize(Val::floating(wide ? 1.0842020432385337e-19
                                     : double(4.6566127342e-10f)),
                  b.getF32Type(), l),
      f32, l);
  return arith::MulFOp::create(b, lc, f, scale);
}

std::pair<mlir::Value, mlir::Value>
CodeGen::uniformToNormal(mlir::Value u1, mlir::Value u2, Loc l) {
  // Box-Muller, as Triton's pair_uniform_to_normal (and kite.randn's
  // lowering, whose value is the first).
  Location lc = loc(l);
  auto c = [&](double v) {
    return splatTo(materialize(Val::floating(v), b.getF32Type(), l),
                   u1.getType(), l);
  };
  u1 = arith::MaximumFOp::create(b, lc, c(1.0e-7), u1);
  mlir::Value th = arith::MulFOp::create(b, lc, c(6.283185307179586), u2);
  mlir::Value r = math::SqrtOp::create(
      b, lc,
      arith::MulFOp::create(b, lc, c(-2.0), math::LogOp::create(b, lc, u1)));
  return {arith::MulFOp::create(b, lc, r, math::CosOp::create(b, lc, th)),
          arith::MulFOp::create(b, lc, r, math::SinOp::create(b, lc, th))};
}

Val CodeGen::randomBuiltin(const std::string &n, const Expr &e) {
  Location lc = loc(e.loc);
  if (n == "uint_to_uniform_float") {
    Args a = bindArgs(e, n, {"x"}, 1);
    const Val &x = a.values[0];
    mlir::Value v = x.kind == Val::Runtime ? x.v : runtime(x, a.locs[0]);
    Type t = elemOf(v.getType());
    if (!(t.isInteger(32) || t.isInteger(64)))
      fail(a.locs[0], n + "() takes 32- or 64-bit integers, got " +
                          describe(x));
    return Val::runtime(uniformFloat(v, e.loc));
  }
  if (n == "pair_uniform_to_normal") {
    Args a = bindArgs(e, n, {"u1", "u2"}, 2);
    auto [u1, u2] = unify(a.values[0], a.values[1], e.loc);
    if (!elemOf(u1.getType()).isF32())
      fail(e.loc, n + "() takes f32 uniforms, got " + typeName(u1.getType()));
    auto [n1, n2] = uniformToNormal(u1, u2, e.loc);
    Val out;
    out.kind = Val::Tuple;
    out.elems = {Val::runtime(n1), Val::runtime(n2)};
    return out;
  }
  bool words = n == "philox";
  Args a = words ? bindArgs(e, n, {"seed", "c0", "c1", "c2", "c3", "n_rounds"},
                            5)
                 : bindArgs(e, n, {"seed", "offset", "n_rounds"}, 2);
  size_t roundsAt = words ? 5 : 2;
  // Triton's n_rounds: Philox's rounds, a constexpr (default 10).
  int32_t rounds = 10;
  if (a.given[roundsAt]) {
    int64_t r = constInt(a.values[roundsAt], a.locs[roundsAt], "n_rounds");
    if (r < 1 || r > 64)
      fail(a.locs[roundsAt],
           n + "()'s n_rounds must be 1 .. 64, got " + std::to_string(r));
    rounds = int32_t(r);
  }
  Val s = a.values[0];
  mlir::Value seed = s.kind == Val::Runtime ? s.v : runtime(s, a.locs[0]);
  if (!isa<RankedTensorType>(seed.getType()) &&
      !(seed.getType().isInteger(32) || seed.getType().isInteger(64)))
    fail(a.locs[0], n + "()'s seed must be an i32 or i64 scalar, got " +
                        typeName(seed.getType()));
  if (isa<RankedTensorType>(seed.getType()))
    fail(a.locs[0], n + "()'s seed must be a scalar");
  if (words) {
    // Triton's philox(seed, c0, c1, c2, c3, n_rounds): the counter word by
    // word (32-bit integers, broadcast together), four uint32 words out.
    mlir::Value c[4];
    SmallVector<int64_t> shape;
    for (int w = 0; w < 4; ++w) {
      const Val &v = a.values[1 + w];
      c[w] = v.kind == Val::Runtime ? v.v
                                    : materialize(v, b.getI32Type(), a.locs[1 + w]);
      if (!elemOf(c[w].getType()).isInteger(32))
        fail(a.locs[1 + w], "philox()'s counter words must be 32-bit "
                            "integers, got " + typeName(c[w].getType()));
      shape = broadcastShape(shape, shapeOf(c[w].getType()), a.locs[1 + w]);
    }
    for (int w = 0; w < 4; ++w)
      if (shapeOf(c[w].getType()) != ArrayRef<int64_t>(shape))
        c[w] = broadcastTo(c[w], shape, a.locs[1 + w]);
    auto op = kd::PhiloxOp::create(b, lc, c[0].getType(), c[0].getType(),
                                   c[0].getType(), c[0].getType(), seed, c[0],
                                   c[1], c[2], c[3], rounds);
    Val out;
    out.kind = Val::Tuple;
    for (mlir::Value r : op.getResults())
      out.elems.push_back(Val::runtime(r, /*isUnsigned=*/true));
    return out;
  }
  Val o = a.values[1];
  mlir::Value off = o.kind == Val::Runtime ? o.v : runtime(o, a.locs[1]);
  Type oe = elemOf(off.getType());
  if (!(oe.isInteger(32) || oe.isInteger(64)))
    fail(a.locs[1], n + "()'s offsets must be i32 or i64, got " +
                        typeName(off.getType()));
  Type result = withShape(n == "randint" ? Type(b.getI32Type()) : Type(b.getF32Type()),
                          shapeOf(off.getType()));
  if (n == "randint4x" || n == "rand4x" || n == "randn4x") {
    // The four words of one Philox block; rand4x maps each as rand does
    // (Triton's uint_to_uniform_float, bit-exact with kite.rand), randn4x
    // pairs those as Triton's does (words 0 and 1, 2 and 3: Box-Muller;
    // its first is randn's).
    Type words = withShape(b.getI32Type(), shapeOf(off.getType()));
    auto op = kd::RandInt4xOp::create(b, lc, words, words, words, words, seed,
                                      off, rounds);
    Val out;
    out.kind = Val::Tuple;
    if (n == "randn4x") {
      auto [n0, n1] = uniformToNormal(uniformFloat(op.getResult(0), e.loc),
                                      uniformFloat(op.getResult(1), e.loc),
                                      e.loc);
      auto [n2, n3] = uniformToNormal(uniformFloat(op.getResult(2), e.loc),
                                      uniformFloat(op.getResult(3), e.loc),
                                      e.loc);
      for (mlir::Value x : {n0, n1, n2, n3})
        out.elems.push_back(Val::runtime(x));
      return out;
    }
    for (mlir::Value w : op.getResults()) {
      if (n == "randint4x") // uint32, as Triton's
        out.elems.push_back(Val::runtime(w, /*isUnsigned=*/true));
      else
        out.elems.push_back(Val::runtime(uniformFloat(w, e.loc)));
    }
    return out;
  }
  if (n == "rand")
    return Val::runtime(kd::RandOp::create(b, lc, result, seed, off, rounds));
  if (n == "randn")
    return Val::runtime(
        kd::RandNOp::create(b, lc, result, seed, off, rounds));
  // uint32, as Triton's randint (r >> 24 is a logical shift).
  return Val::runtime(
      kd::RandIntOp::create(b, lc, result, seed, off, rounds),
      /*isUnsigned=*/true);

}

} // namespace kite::frontend
