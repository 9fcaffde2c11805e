//===- InterpreterKiteOps.cpp - The kite ops ---------------------------------===//
//
// The kite ops: program ids, aranges, splats and broadcasts, memory with
// bounds checks, Philox, dot, reductions, scans, trans/reshape, hints.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kite::interp::detail {

/// Element `at` of `src` as a scalar array.
static ArrayRef_ elementOf(const Array &src, size_t at) {
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
static void setElement(Array &dst, size_t at, const Array &e) {
  if (dst.kind == Kind::Float)
    dst.fv[at] = e.fv[0];
  else
    dst.iv[at] = e.iv[0];
}

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

const ::kite::interp::Buffer *Interpreter::bufferFor(uint64_t address, unsigned bytes) {
  if (lastBuffer && address >= lastBuffer->address &&
      address + bytes <= lastBuffer->address + lastBuffer->bytes)
    return lastBuffer;
  for (const auto &b : launch.buffers)
    if (address >= b.address && address + bytes <= b.address + b.bytes)
      return lastBuffer = &b;
  return nullptr;
}

std::string Interpreter::describeAddress(uint64_t address, unsigned bytes) {
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

/// The coordinates of element `k` of `a`, "i, j".
static std::string coordinatesOf(const Array &a, size_t k) {
  SmallVector<int64_t> idx(a.shape.size());
  for (int d = int(a.shape.size()) - 1; d >= 0; --d) {
    idx[d] = int64_t(k) % a.shape[d];
    k /= a.shape[d];
  }
  std::string s;
  for (size_t d = 0; d < idx.size(); ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s;
}

std::string Interpreter::elementIndex(const Array &a, size_t k) {
  if (a.shape.empty())
    return "";
  return " at element [" + coordinatesOf(a, k) + "]";
}

void Interpreter::load(kd::LoadOp l) {
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

void Interpreter::store(kd::StoreOp s) {
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

void Interpreter::atomic(Operation *op) {
  auto rmw = dyn_cast<kd::AtomicRMWOp>(op);
  auto cas = dyn_cast<kd::AtomicCASOp>(op);
  ArrayRef_ p = get(rmw ? rmw.getPtr() : cas.getPtr());
  ArrayRef_ v = get(rmw ? rmw.getValue() : cas.getValue());
  ArrayRef_ c = cas ? get(cas.getCmp()) : nullptr;
  ArrayRef_ m = rmw && rmw.getMask() ? get(rmw.getMask()) : nullptr;
  auto r = make(op->getResult(0).getType());
  Type pointee = r->elem;
  unsigned bytes = bytesOf(pointee);
  unsigned width = pointee.getIntOrFloatBitWidth();
  for (size_t k = 0; k < r->size(); ++k) {
    if (m && !m->iv[k])
      continue;
    uint64_t address = uint64_t(p->iv[k]);
    if (!bufferFor(address, bytes))
      fail(op, "out-of-bounds atomic" + elementIndex(*p, k) + ": " +
                   describeAddress(address, bytes));
  }
  Array next; // one element: the new value, for its in-memory bits
  next.kind = r->kind;
  next.elem = pointee;
  next.iv.assign(r->kind == Kind::Float ? 0 : 1, 0);
  next.fv.assign(r->kind == Kind::Float ? 1 : 0, 0);
  for (size_t k = 0; k < r->size(); ++k) {
    if (m && !m->iv[k])
      continue; // masked off: 0
    void *at = reinterpret_cast<void *>(uint64_t(p->iv[k]));
    uint64_t oldBits = 0;
    std::memcpy(&oldBits, at, bytes);
    setBits(*r, k, oldBits);
    if (cas) {
      // Compares bits, as the hardware does.
      if (oldBits == bitsOf(*c, k)) {
        uint64_t newBits = bitsOf(*v, k);
        std::memcpy(at, &newBits, bytes);
      }
      continue;
    }
    kd::AtomicKind kind = rmw.getKind();
    if (r->kind == Kind::Float) {
      double a = r->fv[k], x = v->fv[k], n = x;
      switch (kind) {
      case kd::AtomicKind::Add:
        n = a + x;
        break;
      case kd::AtomicKind::Max:
        n = std::isnan(a) || x <= a ? a : x;
        break;
      case kd::AtomicKind::Min:
        n = std::isnan(a) || x >= a ? a : x;
        break;
      default:
        break; // xchg
      }
      next.fv[0] = n;
    } else {
      int64_t a = r->iv[k], x = v->iv[k], n = x;
      switch (kind) {
      case kd::AtomicKind::Add:
        n = wrap(int64_t(uint64_t(a) + uint64_t(x)), width);
        break;
      case kd::AtomicKind::Max:
        n = std::max(a, x);
        break;
      case kd::AtomicKind::Min:
        n = std::min(a, x);
        break;
      case kd::AtomicKind::UMax: // compared as the unsigned bits
      case kd::AtomicKind::UMin: {
        uint64_t mask = width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
        bool xAbove = (uint64_t(x) & mask) > (uint64_t(a) & mask);
        n = (kind == kd::AtomicKind::UMax) == xAbove ? x : a;
        break;
      }
      case kd::AtomicKind::And:
        n = a & x;
        break;
      case kd::AtomicKind::Or:
        n = a | x;
        break;
      case kd::AtomicKind::Xor:
        n = a ^ x;
        break;
      case kd::AtomicKind::Xchg:
        break;
      }
      next.iv[0] = n;
    }
    uint64_t newBits = bitsOf(next, 0);
    std::memcpy(at, &newBits, bytes);
  }
  values[op->getResult(0)] = r;
}

void Interpreter::print(kd::PrintOp op) {
  std::string pids = "pid (" + std::to_string(pid[0]) + ", " +
                     std::to_string(pid[1]) + ", " + std::to_string(pid[2]) +
                     ")";
  std::optional<ArrayRef<bool>> unsignedArgs = op.getUnsignedArgs();
  for (auto [i, v] : llvm::enumerate(op.getArgs())) {
    ArrayRef_ a = get(v);
    bool uns = unsignedArgs && i < unsignedArgs->size() && (*unsignedArgs)[i];
    for (size_t k = 0; k < a->size(); ++k) {
      std::string value;
      char buf[64];
      if (op.getHex() || (uns && a->kind != Kind::Float)) {
        std::snprintf(buf, sizeof buf, op.getHex() ? "0x%llx" : "%llu",
                      (unsigned long long)bitsOf(*a, k));
      } else if (a->kind == Kind::Float) {
        std::snprintf(buf, sizeof buf, "%f", a->fv[k]);
      } else {
        std::snprintf(buf, sizeof buf, "%lld", (long long)a->iv[k]);
      }
      value = buf;
      std::printf("%s%s %s: %s\n", pids.c_str(),
                  a->shape.empty() ? ""
                                  : (" idx (" + coordinatesOf(*a, k) + ")").c_str(),
                  op.getPrefix().str().c_str(), value.c_str());
    }
  }
  std::fflush(stdout);
}

void Interpreter::assertion(kd::AssertOp op) {
  ArrayRef_ c = get(op.getCondition());
  for (size_t k = 0; k < c->size(); ++k)
    if (!c->iv[k])
      fail(op, "device_assert failed" +
                   (op.getMessage().empty() ? std::string()
                                            : ": " + op.getMessage().str()) +
                   elementIndex(*c, k));
}

void Interpreter::assume(kd::AssumeOp op) {
  // Undefined behaviour on the GPU when false: reported here.
  ArrayRef_ c = get(op.getCondition());
  for (size_t k = 0; k < c->size(); ++k)
    if (!c->iv[k])
      fail(op, "assume() does not hold" + elementIndex(*c, k));
}

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
