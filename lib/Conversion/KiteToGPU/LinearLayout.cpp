//===- LinearLayout.cpp - Layouts as linear maps over GF(2) ---------------===//
//
// The GF(2) layout representation (LinearLayout.h), its construction from
// Kite's register layouts and from the tensor-core staging, and the IR that
// evaluates one on a runtime value.
//
//===----------------------------------------------------------------------===//

#include "kite/Conversion/KiteToGPU/LinearLayout.h"
#include "kite/Conversion/KiteToGPU/KiteToGPU.h"

#include "Scratch.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::kite;

LinearLayout::LinearLayout(ArrayRef<int64_t> registerBases,
                           ArrayRef<int64_t> threadBases) {
  basesOf[int(In::Register)].assign(registerBases.begin(),
                                    registerBases.end());
  basesOf[int(In::Thread)].assign(threadBases.begin(), threadBases.end());
}

/// Appends the moves of the bits of `digits` (lowest first) to `bits`;
/// false when a digit's size or stride is not a power of two.
static bool digitBits(ArrayRef<LayoutDigit> digits,
                      SmallVectorImpl<int64_t> &bits) {
  for (const LayoutDigit &d : digits) {
    if (!llvm::isPowerOf2_64(d.size) ||
        (d.stride != 0 && !llvm::isPowerOf2_64(d.stride)))
      return false;
    for (int64_t s = 1; s < d.size; s *= 2)
      bits.push_back(d.stride * s);
  }
  return true;
}

std::optional<LinearLayout> LinearLayout::of(const BlockedLayout &layout) {
  if (!llvm::isPowerOf2_64(layout.numel) ||
      !llvm::isPowerOf2_64(layout.numThreads) ||
      !llvm::isPowerOf2_64(layout.perThread))
    return std::nullopt;
  SmallVector<int64_t, 8> reg, thread;
  if (!digitBits(layout.registerDigits, reg) ||
      !digitBits(layout.threadDigits, thread))
    return std::nullopt;
  if (int64_t(1) << reg.size() != layout.perThread ||
      int64_t(1) << thread.size() != layout.numThreads)
    return std::nullopt;
  // A digit's moves are sums over the digit's bits; they are the XOR of
  // single-bit moves only when no two bits move an element alike.
  int64_t seen = 0;
  for (int64_t m : llvm::concat<int64_t>(reg, thread)) {
    if (m >= layout.numel || (seen & m))
      return std::nullopt;
    seen |= m;
  }
  return LinearLayout(reg, thread);
}

LinearLayout LinearLayout::probe(int64_t size,
                                 function_ref<int64_t(int64_t)> f) {
  LinearLayout l;
  for (int64_t bit = 1; bit < size; bit *= 2)
    l.basesOf[int(In::Index)].push_back(f(bit));
  return l;
}

int64_t LinearLayout::apply(In d, int64_t x) const {
  int64_t out = 0;
  ArrayRef<int64_t> b = bases(d);
  for (size_t i = 0; i < b.size() && (x >> i); ++i)
    if (x >> i & 1)
      out ^= b[i];
  return out;
}

int64_t LinearLayout::span(In d) const {
  int64_t s = 0;
  for (int64_t b : bases(d))
    s |= b;
  return s;
}

int64_t LinearLayout::replicatedThreads() const {
  int64_t mask = 0;
  ArrayRef<int64_t> b = bases(In::Thread);
  for (size_t j = 0; j < b.size(); ++j)
    if (b[j] == 0)
      mask |= int64_t(1) << j;
  return mask;
}

LinearLayout LinearLayout::compose(const LinearLayout &outer) const {
  LinearLayout l;
  for (int d = 0; d < kNumIns; ++d)
    for (int64_t b : basesOf[d])
      l.basesOf[d].push_back(outer.apply(In::Index, b));
  return l;
}

bool LinearLayout::isInjective() const {
  // Gaussian elimination over GF(2): a basis of the span so far, each
  // vector reduced by the others' leading bits.
  SmallVector<int64_t, 16> rows;
  for (int d = 0; d < kNumIns; ++d)
    for (int64_t b : basesOf[d]) {
      if (!b)
        continue;
      for (int64_t r : rows)
        b = std::min(b, b ^ r);
      if (!b)
        return false;
      rows.push_back(b);
      // Keep the rows sorted by leading bit, highest first, so that the
      // min() above clears leading bits in order.
      llvm::sort(rows, [](int64_t x, int64_t y) { return x > y; });
    }
  return true;
}

bool LinearLayout::operator==(const LinearLayout &other) const {
  for (int d = 0; d < kNumIns; ++d)
    if (basesOf[d] != other.basesOf[d])
      return false;
  return true;
}

std::string LinearLayout::str() const {
  static const char *names[] = {"register", "thread", "index"};
  std::string s;
  for (int d = 0; d < kNumIns; ++d) {
    if (basesOf[d].empty())
      continue;
    if (!s.empty())
      s += ", ";
    s += std::string(names[d]) + ": [";
    for (size_t i = 0; i < basesOf[d].size(); ++i)
      s += (i ? ", " : "") + std::to_string(basesOf[d][i]);
    s += "]";
  }
  return s;
}

LinearLayout SwizzledStaging::operandLayout(int operand,
                                            bool transposed) const {
  // The operand block as it is held in registers: A is M x K, B is K x N,
  // or N x K when it is read through its transposition; its element
  // (row, col) lies at aByte / bByte (relative to the operand's start).
  int64_t rows = operand == 0 ? (transposed ? K : M) : transposed ? N : K;
  int64_t cols = operand == 0 ? (transposed ? M : K) : transposed ? K : N;
  int64_t start = operand == 0 ? 0 : bOffset();
  return LinearLayout::probe(rows * cols, [&](int64_t lin) {
    int64_t row = lin / cols, col = lin % cols;
    int64_t byte = operand == 0  ? (transposed ? aByte(col, row)
                                               : aByte(row, col))
                   : transposed ? bByte(col, row)
                                : bByte(row, col);
    return byte - start;
  });
}

/// Bases step, 2 step, 4 step, ... for the bits of an index below
/// `count`.
static SmallVector<int64_t> bitsOf(int64_t count, int64_t step) {
  SmallVector<int64_t> v;
  for (int64_t i = 1; i < count; i *= 2)
    v.push_back(step * i);
  return v;
}

static SmallVector<int64_t>
concatBases(std::initializer_list<SmallVector<int64_t>> parts) {
  SmallVector<int64_t> v;
  for (const auto &p : parts)
    v.append(p.begin(), p.end());
  return v;
}

LinearLayout MmaTile::aLoads(int64_t K, int64_t elemBytes) const {
  int64_t kStep = elemBytes == 4 ? 8 : 16;
  return LinearLayout(
      concatBases({bitsOf(mRep, 16 * K), bitsOf(K / kStep, kStep)}),
      concatBases({bitsOf(16, K), {16 / elemBytes},
                   bitsOf(warpsM, warpRows() * K),
                   SmallVector<int64_t>(llvm::Log2_64(warpsN), 0)}));
}

LinearLayout MmaTile::aLoadsMMajor(int64_t K) const {
  return LinearLayout(
      concatBases({bitsOf(mRep, 16 * K), bitsOf(K / 16, 16)}),
      concatBases({bitsOf(8, 1), {8 * K}, {8},
                   bitsOf(warpsM, warpRows() * K),
                   SmallVector<int64_t>(llvm::Log2_64(warpsN), 0)}));
}

LinearLayout MmaTile::bLoadsKMajor(int64_t K) const {
  return LinearLayout(
      concatBases({bitsOf(nRep / 2, 16), bitsOf(K / 16, 16 * N)}),
      concatBases({bitsOf(8, 1), {8 * N}, {8},
                   SmallVector<int64_t>(llvm::Log2_64(warpsM), 0),
                   bitsOf(warpsN, warpCols())}));
}

LinearLayout MmaTile::bLoads(int64_t K, int64_t elemBytes) const {
  SmallVector<int64_t> warps =
      concatBases({SmallVector<int64_t>(llvm::Log2_64(warpsM), 0),
                   bitsOf(warpsN, warpCols())});
  if (elemBytes == 4)
    return LinearLayout(
        concatBases({{4 * N}, bitsOf(nRep, 8), bitsOf(K / 8, 8 * N)}),
        concatBases({bitsOf(4, N), bitsOf(8, 1), warps}));
  return LinearLayout(concatBases({bitsOf(nRep / 2, 16), bitsOf(K / 16, 16 * N)}),
                      concatBases({bitsOf(16, N), {8}, warps}));
}

Value mlir::kite::detail::applyLinear(OpBuilder &b, Location loc,
                                      const LinearLayout &layout,
                                      LinearLayout::In dim, Value x) {
  auto c = [&](int64_t v) { return i32Const(b, loc, v); };
  ArrayRef<int64_t> bases = layout.bases(dim);
  Value out;
  auto xorIn = [&](Value term) {
    out = out ? arith::XOrIOp::create(b, loc, out, term).getResult() : term;
  };
  // Runs of input bits j .. j+n-1 whose bases double from one to the next
  // and share no bit: their part of the image is the field's value times
  // the first basis (no carries), one shift, mask and multiply.
  for (size_t j = 0; j < bases.size();) {
    if (!bases[j]) {
      ++j;
      continue;
    }
    size_t n = 1;
    int64_t seen = bases[j];
    while (j + n < bases.size() && bases[j + n] == bases[j] << n &&
           !(seen & bases[j + n])) {
      seen |= bases[j + n];
      ++n;
    }
    Value field = x;
    if (j)
      field = arith::ShRUIOp::create(b, loc, field, c(j));
    field = arith::AndIOp::create(b, loc, field, c((int64_t(1) << n) - 1));
    if (llvm::isPowerOf2_64(bases[j]))
      field = arith::ShLIOp::create(b, loc, field, c(llvm::Log2_64(bases[j])));
    else
      field = arith::MulIOp::create(b, loc, field, c(bases[j]));
    xorIn(field);
    j += n;
  }
  return out ? out : c(0);
}

mlir::kite::detail::SharedAddresses::SharedAddresses(OpBuilder &b, Location loc,
                                         const LinearLayout &addr,
                                         int64_t start, Value base)
    : b(b), loc(loc), addr(addr), base(base),
      threadSpan(addr.span(LinearLayout::In::Thread)), start(start) {
  threadPart = applyLinear(b, loc, addr, LinearLayout::In::Thread,
                           threadId(b, loc));
}

Value mlir::kite::detail::SharedAddresses::at(int64_t reg) {
  int64_t r = addr.apply(LinearLayout::In::Register, reg);
  int64_t shared = r & threadSpan, rest = (r & ~threadSpan) + start;
  Value &ptr = xored[shared];
  if (!ptr) {
    Value offset = threadPart;
    if (shared)
      offset = arith::XOrIOp::create(b, loc, offset, i32Const(b, loc, shared));
    ptr = LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                              ValueRange{offset});
  }
  if (!rest)
    return ptr;
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), ptr,
                             ArrayRef<LLVM::GEPArg>{int32_t(rest)});
}

SmallVector<SmallVector<int64_t>> mlir::kite::detail::addressRuns(
    const LinearLayout &addr, int64_t start, int64_t perThread,
    int64_t elemBytes, int64_t maxBytes, const RegisterSubset *only) {
  using In = LinearLayout::In;
  ArrayRef<int64_t> regBases = addr.bases(In::Register);
  SmallVector<int64_t> used; // register bit of address bit j (from eb)
  for (int64_t bytes = elemBytes; bytes < maxBytes; bytes *= 2) {
    std::optional<int64_t> bit;
    for (int64_t r = 0; r < int64_t(regBases.size()) && !bit; ++r)
      if (regBases[r] == bytes && !llvm::is_contained(used, r) &&
          !(only && (only->layout.apply(In::Register, int64_t(1) << r) &
                     only->mask)))
        bit = r;
    if (!bit)
      break;
    used.push_back(*bit);
  }
  // The widest width whose low address bits nothing else sets.
  for (; !used.empty(); used.pop_back()) {
    int64_t low = (elemBytes << used.size()) - 1;
    bool clean = !(start & low);
    for (int64_t r = 0; r < int64_t(regBases.size()) && clean; ++r)
      if (!llvm::is_contained(used, r))
        clean = !(regBases[r] & low);
    for (int64_t t : addr.bases(In::Thread))
      clean = clean && !(t & low);
    if (clean)
      break;
  }
  int64_t usedMask = 0;
  for (int64_t r : used)
    usedMask |= int64_t(1) << r;
  SmallVector<SmallVector<int64_t>> groups(perThread);
  for (int64_t e = 0; e < perThread; ++e) {
    if (e & usedMask)
      continue;
    for (int64_t i = 0; i < (int64_t(1) << used.size()); ++i) {
      int64_t member = e;
      for (size_t j = 0; j < used.size(); ++j)
        if (i >> j & 1)
          member |= int64_t(1) << used[j];
      groups[e].push_back(member);
    }
  }
  return groups;
}

void mlir::kite::detail::storeRegisterRuns(OpBuilder &b, Location loc,
                                           const BlockedLayout &l, Value regs,
                                           int64_t elemBytes,
                                           SharedAddresses &at,
                                           const RegisterSubset *only) {
  SmallVector<SmallVector<int64_t>> runs = addressRuns(
      at.layout(), at.startOffset(), l.perThread, elemBytes, 16, only);
  bool perThread =
      only && (only->layout.span(LinearLayout::In::Thread) & only->mask);
  for (int64_t e = 0; e < l.perThread; ++e) {
    ArrayRef<int64_t> members = runs[e];
    int64_t w = members.size();
    if (!w)
      continue;
    int64_t bits = 0;
    if (only) {
      bits = only->layout.apply(LinearLayout::In::Register, e) & only->mask;
      if (!perThread && bits != only->value)
        continue;
    }
    // The address first: SharedAddresses keeps the pointers it makes for
    // later registers, which must not live in a branch.
    Value address = at.at(e);
    OpBuilder::InsertionGuard guard(b);
    if (perThread) {
      // This thread's part of the element's bits, with the register's.
      Value mine = arith::XOrIOp::create(
          b, loc,
          arith::AndIOp::create(b, loc, only->threadBits,
                                i32Const(b, loc, only->mask)),
          i32Const(b, loc, bits));
      auto ifOp = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, mine,
                                i32Const(b, loc, only->value)),
          /*withElse=*/false);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
    // A run of 2-byte or wider elements as one shuffle of the registers:
    // LLVM keeps a block whose users all take runs as a vector (a
    // loop-carried prefetch stays in packed registers, two elements a
    // register) where element extracts scalarize it, each element in a
    // register of its own. Bytes (fp8) stay extracts: NVPTX's byte
    // shuffles cost more.
    Value v;
    if (w == 1) {
      v = extractRegister(b, loc, regs, e);
    } else if (elemBytes >= 2) {
      v = vector::ShuffleOp::create(b, loc, regs, regs, members);
    } else {
      Type elem = cast<VectorType>(regs.getType()).getElementType();
      v = LLVM::UndefOp::create(b, loc, VectorType::get({w}, elem));
      for (int64_t i = 0; i < w; ++i)
        v = vector::InsertOp::create(
            b, loc, extractRegister(b, loc, regs, members[i]), v, i);
    }
    LLVM::StoreOp::create(b, loc, v, address, w * elemBytes);
  }
}

Value mlir::kite::detail::loadRegisterRuns(OpBuilder &b, Location loc,
                                           const BlockedLayout &l,
                                           VectorType type, int64_t rowLen,
                                           int64_t elemBytes,
                                           SharedAddresses &at) {
  Type elem = type.getElementType();
  Type mem = Scratch::memoryType(elem);
  SmallVector<int64_t> runs =
      registerRuns(l, rowLen, std::max<int64_t>(1, 16 / elemBytes));
  Value result = constantOf(b, loc, type, 0);
  for (int64_t e = 0; e < l.perThread; ++e) {
    int64_t w = runs[e];
    if (!w)
      continue;
    Type t = w == 1 ? mem : VectorType::get({w}, mem);
    Value v = LLVM::LoadOp::create(b, loc, t, at.at(e), w * elemBytes);
    for (int64_t i = 0; i < w; ++i) {
      Value x = w == 1 ? v : vector::ExtractOp::create(b, loc, v, i);
      if (elem.isInteger(1))
        x = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                  constantOf(b, loc, mem, 0));
      result = vector::InsertOp::create(b, loc, x, result, e + i);
    }
  }
  return result;
}

std::optional<LinearLayout>
mlir::kite::detail::linearLayoutOf(Operation *op, const BlockedLayout &l,
                                   StringRef what) {
  std::optional<LinearLayout> linear = LinearLayout::of(l);
  if (!linear)
    op->emitOpError() << "has " << what
                      << " whose layout does not factor into bits (every "
                         "layout Kite builds does; this is a compiler bug)";
  return linear;
}
