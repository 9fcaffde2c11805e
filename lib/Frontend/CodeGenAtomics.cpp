//===- CodeGenAtomics.cpp - Atomics, debugging, inline PTX
//------------------===//
//
// atomic_add/max/min/and/or/xor/xchg(pointer, val, mask=None, sem=None,
// scope=None) and atomic_cas(pointer, cmp, val, sem=None, scope=None):
// values converted to the pointee type and broadcast with the pointers and
// the mask; sem in relaxed/acquire/release/acq_rel, scope in gpu/cta/sys.
// device_print(prefix, *values, hex=False), device_assert(cond, msg="")
// and assume(cond): the side effects that run on the device.
// inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack=1): PTX
// once per element.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace kite::frontend {

Val CodeGen::atomic(const std::string &n, const Expr &e) {
  Location lc = loc(e.loc);
  std::string kindName = n.substr(7);
  bool cas = kindName == "cas";
  std::optional<kd::AtomicKind> kind;
  if (!cas) {
    kind = kd::symbolizeAtomicKind(kindName);
    if (kind == kd::AtomicKind::UMax || kind == kd::AtomicKind::UMin)
      kind = std::nullopt; // from the pointee's signedness, not a name
    if (!kind)
      fail(e.loc, "unknown atomic '" + n + "' (atomic_add, atomic_max, "
                  "atomic_min, atomic_and, atomic_or, atomic_xor, "
                  "atomic_xchg, atomic_cas)");
  }
  Args a = cas ? bindArgs(e, n, {"pointer", "cmp", "val", "sem", "scope"}, 3)
               : bindArgs(e, n, {"pointer", "val", "mask", "sem", "scope"}, 2);
  Val p = a.values[0];
  if (p.kind != Val::Runtime || !isPtr(p.v.getType()))
    fail(a.locs[0], n + "() needs a pointer or a block of pointers, got " +
                        describe(p));
  mlir::Value ptr = p.v;
  Type pointee =
      llvm::cast<kd::PointerType>(elemOf(ptr.getType())).getPointeeType();
  // Unsigned integers order as unsigned (atom.max.u32).
  if (p.uns && kind == kd::AtomicKind::Max)
    kind = kd::AtomicKind::UMax;
  if (p.uns && kind == kd::AtomicKind::Min)
    kind = kd::AtomicKind::UMin;
  {
    // Which element types each atomic takes (the hardware's).
    unsigned bits = pointee.isIntOrFloat() ? pointee.getIntOrFloatBitWidth() : 0;
    bool wideInt = isa<IntegerType>(pointee) && bits >= 32;
    bool wideFloat = pointee.isF32() || pointee.isF64();
    const char *takes = nullptr;
    if (kindName == "add" && !(wideInt || wideFloat || pointee.isF16() ||
                               pointee.isBF16()))
      takes = "32- or 64-bit integers, f16, bf16, f32 or f64";
    else if ((kindName == "max" || kindName == "min") && !(wideInt || wideFloat))
      takes = "32- or 64-bit integers, f32 or f64";
    else if ((kindName == "and" || kindName == "or" || kindName == "xor") &&
             !wideInt)
      takes = "32- or 64-bit integers";
    else if ((kindName == "xchg" || cas) && !(wideInt || wideFloat))
      takes = "32- or 64-bit integers or floats";
    if (takes)
      fail(a.locs[0], n + "() takes pointers to " + takes + ", got a pointer "
                      "to " + typeName(pointee));
  }
  auto operand = [&](size_t i) -> mlir::Value {
    const Val &v = a.values[i];
    return v.kind == Val::Runtime ? cast(v.v, pointee, a.locs[i], v.uns, p.uns)
                                  : materialize(v, pointee, a.locs[i], p.uns);
  };
  // sem= and scope=: Triton's strings.
  auto word = [&](size_t i, const char *what) -> std::optional<std::string> {
    if (!a.given[i] || a.values[i].kind == Val::None)
      return std::nullopt;
    if (a.values[i].kind != Val::Str)
      fail(a.locs[i], n + "()'s " + what + " must be a string");
    return a.values[i].s;
  };
  size_t semAt = 3, scopeAt = 4;
  kd::MemSemantic sem = kd::MemSemantic::AcqRel;
  if (auto w = word(semAt, "sem")) {
    auto s = kd::symbolizeMemSemantic(*w);
    if (!s)
      fail(a.locs[semAt], "sem must be 'relaxed', 'acquire', 'release' or "
                          "'acq_rel', got '" + *w + "'");
    sem = *s;
  }
  kd::MemScope memScope = kd::MemScope::GPU;
  if (auto w = word(scopeAt, "scope")) {
    auto s = kd::symbolizeMemScope(*w);
    if (!s)
      fail(a.locs[scopeAt], "scope must be 'gpu', 'cta' or 'sys', got '" +
                                *w + "'");
    memScope = *s;
  }
  SmallVector<int64_t> shape(shapeOf(ptr.getType()));
  mlir::Value x = operand(1), y, mask;
  if (cas)
    y = operand(2);
  else if (a.given[2] && a.values[2].kind != Val::None) {
    mask = asBool(a.values[2], a.locs[2], (n + "()'s mask").c_str());
    shape = broadcastShape(shape, shapeOf(mask.getType()), a.locs[2]);
  }
  shape = broadcastShape(shape, shapeOf(x.getType()), a.locs[1]);
  if (y)
    shape = broadcastShape(shape, shapeOf(y.getType()), a.locs[2]);
  ptr = broadcastTo(ptr, shape, e.loc);
  x = broadcastTo(x, shape, e.loc);
  if (y)
    y = broadcastTo(y, shape, e.loc);
  if (mask)
    mask = broadcastTo(mask, shape, e.loc);
  Type result = withShape(pointee, shape);
  auto semAttr = kd::MemSemanticAttr::get(ctx, sem);
  auto scopeAttr = kd::MemScopeAttr::get(ctx, memScope);
  Operation *op;
  if (cas)
    op = kd::AtomicCASOp::create(b, lc, result, ptr, x, y, semAttr, scopeAttr);
  else
    op = kd::AtomicRMWOp::create(b, lc, result,
                                 kd::AtomicKindAttr::get(ctx, *kind), ptr, x,
                                 mask, semAttr, scopeAttr);
  return Val::runtime(op->getResult(0), p.uns);
}

Val CodeGen::deviceDebug(const std::string &n, const Expr &e) {
  Location lc = loc(e.loc);
  if (n == "device_print") {
    bool hex = false;
    for (auto &[key, value] : e.kwargs) {
      if (key != "hex")
        fail(value->loc, "device_print() takes hex= and positional values, "
                         "not '" + key + "='");
      Val h = expr(*value);
      if (h.kind != Val::Bool && h.kind != Val::Int)
        fail(value->loc, "device_print()'s hex must be True or False");
      hex = h.i != 0;
    }
    if (e.args.size() < 2)
      fail(e.loc, "device_print(prefix, *values) needs a prefix string");
    Val prefix = expr(*e.args[1]);
    if (prefix.kind != Val::Str)
      fail(e.args[1]->loc, "device_print()'s first argument is its prefix, a "
                           "string");
    SmallVector<mlir::Value> values;
    SmallVector<bool> uns;
    for (size_t k = 2; k < e.args.size(); ++k) {
      Val v = expr(*e.args[k]);
      mlir::Value x = v.kind == Val::Runtime ? v.v : runtime(v, e.args[k]->loc);
      if (isPtr(x.getType()))
        fail(e.args[k]->loc, "device_print() prints numbers, not pointers");
      values.push_back(x);
      uns.push_back(v.kind == Val::Runtime && v.uns);
    }
    bool anyUnsigned = llvm::is_contained(uns, true);
    kd::PrintOp::create(b, lc, b.getStringAttr(prefix.s),
                        hex ? b.getUnitAttr() : UnitAttr(), values,
                        anyUnsigned ? b.getDenseBoolArrayAttr(uns)
                                    : DenseBoolArrayAttr());
    return Val();
  }
  if (n == "assume") {
    // Triton's assume(cond): a premise for the compiler (a constant true
    // one is dropped; a constant false one is an error here).
    Args a = bindArgs(e, n, {"cond"}, 1);
    const Val &c = a.values[0];
    if (c.isConst()) {
      if (!(c.kind == Val::Float ? c.f != 0 : c.i != 0))
        fail(a.locs[0], "assume() of a condition that is false at compile "
                        "time");
      return Val();
    }
    kd::AssumeOp::create(b, lc, asBool(c, a.locs[0], "assume()'s cond"));
    return Val();
  }
  // device_assert(cond, msg="")
  Args a = bindArgs(e, n, {"cond", "msg"}, 1);
  mlir::Value cond = asBool(a.values[0], a.locs[0], "device_assert()'s cond");
  std::string message;
  if (a.given[1]) {
    if (a.values[1].kind != Val::Str)
      fail(a.locs[1], "device_assert()'s msg must be a string");
    message = a.values[1].s;
  }
  kd::AssertOp::create(b, lc, cond, b.getStringAttr(message));
  return Val();
}

Val CodeGen::inlineAsm(const Expr &e) {
  const std::string n = "inline_asm_elementwise";
  Args a = bindArgs(e, n, {"asm", "constraints", "args", "dtype", "is_pure",
                           "pack"},
                    5);
  if (a.values[0].kind != Val::Str)
    fail(a.locs[0], n + "()'s asm must be a string (the PTX)");
  if (a.values[1].kind != Val::Str)
    fail(a.locs[1], n + "()'s constraints must be a string, e.g. \"=r,r\"");
  // The arguments: values, broadcast to one shape (scalars stay scalars).
  std::vector<Val> args = a.values[2].kind == Val::Tuple
                              ? a.values[2].elems
                              : std::vector<Val>{a.values[2]};
  SmallVector<mlir::Value> operands;
  SmallVector<int64_t> shape;
  for (const Val &v : args) {
    if (v.kind != Val::Runtime && !v.isConst())
      fail(a.locs[2], n + "()'s args must be numbers or blocks, got " +
                          describe(v));
    mlir::Value x = v.kind == Val::Runtime ? v.v : runtime(v, a.locs[2]);
    if (isPtr(x.getType()))
      fail(a.locs[2], n + "() does not take pointers; load the values "
                          "first");
    shape = broadcastShape(shape, shapeOf(x.getType()), a.locs[2]);
    operands.push_back(x);
  }
  for (mlir::Value &x : operands)
    if (isa<RankedTensorType>(x.getType()))
      x = broadcastTo(x, shape, e.loc);
  // The result types: one dtype or a tuple of them.
  std::vector<Val> dtypes = a.values[3].kind == Val::Tuple
                                ? a.values[3].elems
                                : std::vector<Val>{a.values[3]};
  SmallVector<Type> results;
  for (const Val &d : dtypes) {
    Type t = dtypeArg(d, a.locs[3]);
    if (isa<kd::PointerType>(t) || t.isInteger(1))
      fail(a.locs[3], n + "() results are numbers (not pointers or i1)");
    results.push_back(shape.empty() ? t : withShape(t, shape));
  }
  const Val &pure = a.values[4];
  if (pure.kind != Val::Bool && pure.kind != Val::Int)
    fail(a.locs[4], n + "()'s is_pure must be True or False");
  int64_t pack = 1;
  if (a.given[5])
    pack = constInt(a.values[5], a.locs[5], "pack");
  if (pack < 1 || pack > 64 || (pack & (pack - 1)))
    fail(a.locs[5], n + "()'s pack must be a power of two in [1, 64], got " +
                        std::to_string(pack));
  if (pack > 1) {
    // Each call takes pack elements of every operand: scalars become
    // blocks (as in Triton, where every argument is a tensor).
    if (shape.empty())
      fail(a.locs[5], n + "() with pack=" + std::to_string(pack) +
                          " needs a block argument (pack groups elements "
                          "of blocks)");
    for (mlir::Value &x : operands)
      if (!isa<RankedTensorType>(x.getType()))
        x = broadcastTo(x, shape, e.loc);
  }
  // "=..." outputs, then one input a register (LLVM would crash on a
  // mismatch): with pack > 1, pack elements of each operand, those
  // narrower than 32 bits packed into 32-bit registers.
  size_t wantOutputs = 0, wantInputs = 0;
  auto registers = [&](Type t, Loc l) -> size_t {
    Type element = getElementTypeOrSelf(t);
    if (pack > 1 && element.isInteger(1))
      fail(l, n + "() with pack=" + std::to_string(pack) +
                  ": i1 blocks cannot be packed; convert them to i8 or i32 "
                  "first");
    int64_t regs = kd::InlineAsmOp::registersPerCall(element, pack);
    if (!regs) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << element;
      fail(l, n + "() with pack=" + std::to_string(pack) + ": " + s +
                  " elements do not fill 32-bit registers (pack x bits must "
                  "be a multiple of 32)");
    }
    return size_t(regs);
  };
  for (Type t : results)
    wantOutputs += registers(t, a.locs[3]);
  for (mlir::Value x : operands)
    wantInputs += registers(x.getType(), a.locs[2]);
  auto [outputs, inputs] = kd::InlineAsmOp::countConstraints(a.values[1].s);
  if (outputs != wantOutputs || inputs != wantInputs)
    fail(a.locs[1],
         n + "()'s constraints \"" + a.values[1].s + "\" name " +
             std::to_string(outputs) + " outputs and " +
             std::to_string(inputs) + " inputs; " +
             (pack == 1 ? "the call has " + std::to_string(results.size()) +
                              " results (dtype) and " +
                              std::to_string(operands.size()) + " arguments"
                        : "with pack=" + std::to_string(pack) +
                              " the call needs " + std::to_string(wantOutputs) +
                              " output and " + std::to_string(wantInputs) +
                              " input registers (narrower than 32 bits: " +
                              "packed into 32-bit ones)"));
  auto op = kd::InlineAsmOp::create(
      b, loc(e.loc), results, b.getStringAttr(a.values[0].s),
      b.getStringAttr(a.values[1].s), pure.i ? b.getUnitAttr() : UnitAttr(),
      b.getI32IntegerAttr(int32_t(pack)), operands);
  // Each result takes its dtype's signedness (uint32, ...).
  if (results.size() == 1)
    return Val::runtime(op.getResult(0), dtypes[0].uns);
  Val out;
  out.kind = Val::Tuple;
  for (auto [r, d] : llvm::zip(op.getResults(), dtypes))
    out.elems.push_back(Val::runtime(r, d.uns));
  return out;
}

} // namespace kite::frontend
