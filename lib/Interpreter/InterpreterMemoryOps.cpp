//===- InterpreterMemoryOps.cpp - Memory, atomics, debug ops ----*- C++ -*-===//
//
// The kite ops that touch memory or the outside: loads and stores with
// bounds checks against the launch's buffers (and messages that name the
// element and the buffer), atomics, device_print, device_assert, assume.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kite::interp::detail {

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


} // namespace kite::interp::detail
