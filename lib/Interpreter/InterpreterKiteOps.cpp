//===- InterpreterKiteOps.cpp - The kite ops ---------------------------------===//
//
// The kite ops' dispatch, and the block ops: program ids, aranges, splats
// and broadcasts, hints, elementwise maps, scans, trans/reshape, gathers,
// histograms, flips. Memory, atomics and the debug ops are in
// InterpreterMemoryOps.cpp; Philox, dot and reductions in
// InterpreterComputeOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kite::interp::detail {

void Interpreter::kiteOp(Operation *op) {
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
  if (auto f = dyn_cast<kd::FlipOp>(op))
    return flip(f);
  if (auto g = dyn_cast<kd::GatherOp>(op))
    return gather(g);
  if (auto h = dyn_cast<kd::HistogramOp>(op))
    return histogram(h);
  if (auto sc = dyn_cast<kd::ScanOp>(op))
    return scan(sc);
  if (auto m = dyn_cast<kd::MapElementwiseOp>(op))
    return mapElementwise(m);
  if (auto h = dyn_cast<kd::HintOp>(op))
    return hint(h);
  if (auto so = dyn_cast<kd::SortOp>(op)) {
    // The GPU's total order (SortToGPU.cpp): NaNs last (as the positive
    // quiet NaN), -0.0 before 0.0. With k, the first k of each row.
    auto r = std::make_shared<Array>(*get(so.getSrc()));
    int64_t n = r->shape.back();
    bool desc = so.getDescending();
    // The order: floats NaN last, -0.0 before 0.0; integers signed or, with
    // unsigned, by their bits.
    unsigned w = widthOf(r->elem);
    uint64_t mask = w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
    auto lessF = [](double a, double b) {
      if (std::isnan(a))
        return false;
      if (std::isnan(b))
        return true;
      if (a != b)
        return a < b;
      return std::signbit(a) && !std::signbit(b);
    };
    auto lessI = [&](int64_t a, int64_t b) {
      if (so.getUnsignedOrder())
        return (uint64_t(a) & mask) < (uint64_t(b) & mask);
      return a < b;
    };
    // bitonic_merge: the network's last stage, exactly (an element moves
    // only when its pair is out of order).
    auto mergeRow = [&](auto first, auto less) {
      for (int64_t j = n / 2; j >= 1; j /= 2)
        for (int64_t i = 0; i < n; ++i) {
          if (i & j)
            continue;
          auto &x = first[i], &y = first[i | j];
          if (desc ? less(x, y) : less(y, x))
            std::swap(x, y);
        }
    };
    for (size_t row = 0; row < r->size() / size_t(n); ++row) {
      if (r->kind == Kind::Float) {
        auto first = r->fv.begin() + row * n;
        for (auto it = first; it != first + n; ++it)
          if (std::isnan(*it))
            *it = std::numeric_limits<double>::quiet_NaN();
        if (so.getMerge()) {
          mergeRow(first, lessF);
          continue;
        }
        std::sort(first, first + n, lessF);
        if (desc)
          std::reverse(first, first + n);
      } else {
        auto first = r->iv.begin() + row * n;
        if (so.getMerge()) {
          mergeRow(first, lessI);
          continue;
        }
        std::sort(first, first + n, lessI);
        if (desc)
          std::reverse(first, first + n);
      }
    }
    int64_t k = so.getType().getShape().back();
    if (k != n) {
      auto out = make(so.getType());
      for (size_t i = 0; i < out->size(); ++i) {
        size_t from = i / size_t(k) * size_t(n) + i % size_t(k);
        if (r->kind == Kind::Float)
          out->fv[i] = r->fv[from];
        else
          out->iv[i] = r->iv[from];
      }
      r = out;
    }
    values[so.getResult()] = r;
    return;
  }
  if (isa<kd::InlineAsmOp>(op))
    fail(op, "inline_asm_elementwise runs PTX, which only the GPU can run; "
             "the interpreter cannot execute this kernel");
  if (auto j = dyn_cast<kd::JoinOp>(op)) {
    // result[..., k] = (k ? rhs : lhs)[...]
    ArrayRef_ l = get(j.getLhs()), r = get(j.getRhs());
    auto out = make(j.getType());
    for (size_t k = 0; k < out->size(); ++k) {
      const Array &from = k % 2 ? *r : *l;
      if (out->kind == Kind::Float)
        out->fv[k] = from.fv[k / 2];
      else
        out->iv[k] = from.iv[k / 2];
    }
    values[j.getResult()] = out;
    return;
  }
  if (auto sp = dyn_cast<kd::SplitOp>(op)) {
    ArrayRef_ src = get(sp.getSrc());
    for (int half = 0; half < 2; ++half) {
      mlir::Value result = half ? sp.getRhs() : sp.getLhs();
      auto out = make(cast<RankedTensorType>(result.getType()));
      for (size_t k = 0; k < out->size(); ++k) {
        if (out->kind == Kind::Float)
          out->fv[k] = src->fv[2 * k + half];
        else
          out->iv[k] = src->iv[2 * k + half];
      }
      values[result] = out;
    }
    return;
  }
  if (auto c = dyn_cast<kd::ConvertLayoutOp>(op)) {
    values[c.getResult()] = std::make_shared<Array>(*get(c.getSrc()));
    return;
  }
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
  if (isa<kd::AtomicRMWOp, kd::AtomicCASOp>(op))
    return atomic(op);
  if (auto p = dyn_cast<kd::PrintOp>(op))
    return print(p);
  if (auto a = dyn_cast<kd::AssertOp>(op))
    return assertion(a);
  if (auto a = dyn_cast<kd::AssumeOp>(op))
    return assume(a);
  if (isa<kd::RandOp, kd::RandIntOp, kd::RandNOp, kd::RandInt4xOp,
          kd::PhiloxOp>(op))
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

void Interpreter::hint(kd::HintOp op) {
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

void Interpreter::mapElementwise(kd::MapElementwiseOp op) {
  // The body once per `pack` consecutive elements, in index order.
  std::vector<ArrayRef_> srcs, rs;
  for (mlir::Value v : op.getSrcs())
    srcs.push_back(get(v));
  for (mlir::Value v : op.getResults())
    rs.push_back(make(v.getType()));
  Block &body = op.getBody().front();
  size_t pack = size_t(op.getPack());
  for (size_t i = 0; i < srcs[0]->size(); i += pack) {
    for (auto [k, src] : llvm::enumerate(srcs))
      for (size_t j = 0; j < pack; ++j)
        values[body.getArgument(unsigned(k * pack + j))] =
            elementOf(*src, i + j);
    auto out = runBlock(body);
    for (size_t k = 0; k < rs.size(); ++k)
      for (size_t j = 0; j < pack; ++j)
        setElement(*rs[k], i + j, *out[k * pack + j]);
  }
  for (auto [k, r] : llvm::enumerate(rs))
    values[op->getResult(k)] = r;
}

void Interpreter::scan(kd::ScanOp op) {
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
  if (op.getKind() == kd::ScanKind::Custom) {
    // In index order: acc op x going forward, x op acc going backward;
    // several blocks together, element by element.
    std::vector<ArrayRef_> srcs, rs;
    for (auto [n, s] : llvm::enumerate(op.getSrcs())) {
      srcs.push_back(get(s));
      rs.push_back(make(op->getResult(n).getType()));
    }
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        std::vector<ArrayRef_> acc;
        for (int64_t s = 0; s < len; ++s) {
          int64_t k = rev ? len - 1 - s : s;
          size_t at = size_t((o * len + k) * inner + i);
          std::vector<ArrayRef_> x;
          for (const ArrayRef_ &src : srcs)
            x.push_back(elementOf(*src, at));
          acc = acc.empty() ? x
                : rev       ? combine(op.getCombiner(), x, acc)
                            : combine(op.getCombiner(), acc, x);
          for (size_t n = 0; n < rs.size(); ++n)
            setElement(*rs[n], at, *acc[n]);
        }
      }
    for (size_t n = 0; n < rs.size(); ++n)
      values[op->getResult(n)] = rs[n];
    return;
  }
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

std::vector<ArrayRef_> Interpreter::combine(Region &region,
                                            ArrayRef<ArrayRef_> a,
                                            ArrayRef<ArrayRef_> b) {
  Block &block = region.front();
  for (size_t k = 0; k < a.size(); ++k) {
    values[block.getArgument(k)] = a[k];
    values[block.getArgument(a.size() + k)] = b[k];
  }
  auto out = runBlock(block);
  return std::vector<ArrayRef_>(out.begin(), out.end());
}

void Interpreter::gatherStrided(const Array &src, Array &r,
                                ArrayRef<int64_t> stride) {
  size_t rank = r.shape.size();
  SmallVector<int64_t> idx(rank, 0);
  for (size_t k = 0; k < r.size(); ++k) {
    int64_t from = 0;
    for (size_t d = 0; d < rank; ++d)
      from += idx[d] * stride[d];
    if (r.kind == Kind::Float)
      r.fv[k] = src.fv[from];
    else
      r.iv[k] = src.iv[from];
    for (int d = int(rank) - 1; d >= 0; --d) {
      if (++idx[d] < r.shape[d])
        break;
      idx[d] = 0;
    }
  }
}

void Interpreter::trans(kd::TransOp t) {
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
  gatherStrided(*src, *r, stride);
  values[t.getResult()] = r;
}

void Interpreter::gather(kd::GatherOp op) {
  ArrayRef_ src = get(op.getSrc()), index = get(op.getIndex());
  auto r = make(op.getType());
  int64_t axis = op.getAxis(), rank = int64_t(src->shape.size());
  int64_t len = src->shape[axis];
  // Strides of the source and of the index (row-major).
  std::vector<int64_t> srcStride(rank, 1), idxStride(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d) {
    srcStride[d] = srcStride[d + 1] * src->shape[d + 1];
    idxStride[d] = idxStride[d + 1] * index->shape[d + 1];
  }
  for (size_t k = 0; k < r->size(); ++k) {
    int64_t at = 0, rest = int64_t(k);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t c = rest / idxStride[d];
      rest %= idxStride[d];
      if (d == axis) {
        c = index->iv[k];
        if (c < 0 || c >= len)
          fail(op, "gather() index " + std::to_string(c) +
                       " is out of range for the source's " +
                       std::to_string(len) + " elements along axis " +
                       std::to_string(axis) + elementIndex(*index, k));
      }
      at += c * srcStride[d];
    }
    if (r->kind == Kind::Float)
      r->fv[k] = src->fv[size_t(at)];
    else
      r->iv[k] = src->iv[size_t(at)];
  }
  values[op.getResult()] = r;
}

void Interpreter::histogram(kd::HistogramOp op) {
  ArrayRef_ src = get(op.getSrc());
  ArrayRef_ mask = op.getMask() ? get(op.getMask()) : nullptr;
  auto r = make(op.getType());
  int64_t bins = int64_t(r->size());
  for (size_t k = 0; k < src->size(); ++k) {
    int64_t v = src->iv[k];
    if ((!mask || mask->iv[k]) && v >= 0 && v < bins)
      ++r->iv[size_t(v)];
  }
  values[op.getResult()] = r;
}

void Interpreter::flip(kd::FlipOp f) {
  ArrayRef_ src = get(f.getSrc());
  auto r = make(f.getType());
  int64_t dim = f.getDim(), n = src->shape[dim], inner = 1;
  for (size_t d = size_t(dim) + 1; d < src->shape.size(); ++d)
    inner *= src->shape[d];
  for (size_t k = 0; k < r->size(); ++k) {
    int64_t i = (int64_t(k) / inner) % n;
    size_t from = size_t(int64_t(k) + (n - 1 - 2 * i) * inner);
    if (r->kind == Kind::Float)
      r->fv[k] = src->fv[from];
    else
      r->iv[k] = src->iv[from];
  }
  values[f.getResult()] = r;
}

void Interpreter::broadcast(kd::BroadcastOp b) {
  ArrayRef_ src = get(b.getSrc());
  auto r = make(b.getType());
  size_t rank = r->shape.size();
  SmallVector<int64_t> srcStride(rank, 0);
  int64_t s = 1;
  for (int d = int(rank) - 1; d >= 0; --d) {
    srcStride[d] = src->shape[d] == 1 ? 0 : s;
    s *= src->shape[d];
  }
  gatherStrided(*src, *r, srcStride);
  values[b.getResult()] = r;
}


} // namespace kite::interp::detail
