//===- InterpreterComputeOps.cpp - Philox, dot, reductions ------*- C++ -*-===//
//
// The kite ops that compute over whole blocks: Triton's Philox stream
// (rand, randn, randint, randint4x), dot (and its rounding of each
// precision) and reductions with a combine region.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kite::interp::detail {

void Interpreter::philox(uint32_t k0, uint32_t k1, uint32_t c[4], int rounds) {
  for (int r = 0; r < rounds; ++r) {
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

float Interpreter::uniform(uint32_t word) {
  int32_t x = int32_t(word);
  if (x < 0)
    x = ~x;
  return float(x) * 4.6566127342e-10f;
}

void Interpreter::random(Operation *op) {
  if (auto ph = dyn_cast<kd::PhiloxOp>(op)) {
    // The counter given word by word (tl.philox).
    uint64_t key = uint64_t(get(ph.getSeed())->iv[0]);
    ArrayRef_ in[4] = {get(ph.getC0()), get(ph.getC1()), get(ph.getC2()),
                       get(ph.getC3())};
    ArrayRef_ out[4];
    for (int w = 0; w < 4; ++w)
      out[w] = make(op->getResult(w).getType());
    for (size_t k = 0; k < out[0]->size(); ++k) {
      uint32_t c[4];
      for (int w = 0; w < 4; ++w)
        c[w] = uint32_t(in[w]->iv[k]);
      philox(uint32_t(key), uint32_t(key >> 32), c, int(ph.getRounds()));
      for (int w = 0; w < 4; ++w)
        out[w]->iv[k] = wrap(int64_t(c[w]), 32);
    }
    for (int w = 0; w < 4; ++w)
      values[op->getResult(w)] = out[w];
    return;
  }
  ArrayRef_ seed = get(op->getOperand(0)), off = get(op->getOperand(1));
  auto r = make(op->getResult(0).getType());
  bool four = isa<kd::RandInt4xOp>(op);
  SmallVector<ArrayRef_, 3> more; // randint4x's words 1-3
  for (unsigned i = 1; four && i < 4; ++i)
    more.push_back(make(op->getResult(i).getType()));
  uint64_t key = uint64_t(seed->iv[0]); // sign-extended already
  uint32_t k0 = uint32_t(key), k1 = uint32_t(key >> 32);
  bool wide = widthOf(off->elem) == 64;
  int rounds = 10;
  if (auto attr = op->getAttrOfType<IntegerAttr>("rounds"))
    rounds = int(attr.getInt());
  for (size_t k = 0; k < r->size(); ++k) {
    uint64_t o = uint64_t(off->iv[k]);
    uint32_t c[4] = {uint32_t(o), wide ? uint32_t(o >> 32) : 0u, 0, 0};
    philox(k0, k1, c, rounds);
    if (four) {
      r->iv[k] = wrap(int64_t(c[0]), 32);
      for (unsigned i = 1; i < 4; ++i)
        more[i - 1]->iv[k] = wrap(int64_t(c[i]), 32);
    } else if (isa<kd::RandIntOp>(op)) {
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
  for (unsigned i = 1; four && i < 4; ++i)
    values[op->getResult(i)] = more[i - 1];
}

void Interpreter::dot(kd::DotOp d) {
  ArrayRef_ a = get(d.getA()), b = get(d.getB()), acc = get(d.getAcc());
  auto r = make(d.getType());
  int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
  // tf32x3 (three tf32 products) is as close to f32 as the GPU's FMA
  // path that runs it: f32 products here.
  bool tf32 = d.isTf32();
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

void Interpreter::reduce(kd::ReduceOp op) {
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
  if (kind == kd::ReduceKind::Custom) {
    // In index order (the GPU combines in a tree: the function must be
    // associative and commutative, as Triton asks); several blocks
    // together, element by element.
    std::vector<ArrayRef_> srcs, rs;
    for (auto [k, s] : llvm::enumerate(op.getSrcs())) {
      srcs.push_back(get(s));
      rs.push_back(make(op->getResult(k).getType()));
    }
    auto elements = [&](int64_t at) {
      std::vector<ArrayRef_> e;
      for (const ArrayRef_ &s : srcs)
        e.push_back(elementOf(*s, size_t(at)));
      return e;
    };
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        std::vector<ArrayRef_> acc = elements(o * len * inner + i);
        for (int64_t k = 1; k < len; ++k)
          acc = combine(op.getCombiner(), acc,
                        elements((o * len + k) * inner + i));
        size_t out = size_t(o * inner + i);
        for (size_t n = 0; n < rs.size(); ++n)
          setElement(*rs[n], out, *acc[n]);
      }
    for (size_t n = 0; n < rs.size(); ++n)
      values[op->getResult(n)] = rs[n];
    return;
  }
  // Unsigned kinds compare the bits of the element's width as unsigned.
  const bool uns = kd::isUnsignedReduce(kind);
  const uint64_t umask =
      fl || w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
  auto intAbove = [&](int64_t x, int64_t y) {
    return uns ? (uint64_t(x) & umask) > (uint64_t(y) & umask) : x > y;
  };
  if (kd::isArgReduce(kind)) {
    // The first index of the largest (smallest) value; a NaN wins, as
    // NaN propagates through max/min.
    bool isMax = kd::isMaxReduce(kind);
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
            better = isMax ? intAbove(x, y) : intAbove(y, x);
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
          else if (kind == kd::ReduceKind::Or)
            ia = wrap(int64_t(uint64_t(ia) | uint64_t(x)), w);
          else if (kd::isMaxReduce(kind))
            ia = intAbove(x, ia) ? x : ia;
          else
            ia = intAbove(ia, x) ? x : ia;
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


} // namespace kite::interp::detail
