//===- CodeGenExpr.cpp - Operators, names, arguments -------------------------===//
//
// Expressions: constant folding, binary/compare/unary operators with numpy
// broadcasting and type promotion, names, subscripts, and the binding of a
// call's arguments to a builtin's parameters.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace kite::frontend {

Val CodeGen::foldBinary(const std::string &op, const Val &a, const Val &c, Loc l) {
  bool fl = a.kind == Val::Float || c.kind == Val::Float;
  double x = a.kind == Val::Float ? a.f : double(a.i);
  double y = c.kind == Val::Float ? c.f : double(c.i);
  int64_t p = a.i, q = c.i;
  auto overflow = [&](bool o) {
    if (o)
      fail(l, "integer overflow in a constant expression");
  };
  if (op == "/") {
    if (y == 0)
      fail(l, "division by zero in a constant expression");
    return Val::floating(x / y);
  }
  if (fl) {
    if (op == "+")
      return Val::floating(x + y);
    if (op == "-")
      return Val::floating(x - y);
    if (op == "*")
      return Val::floating(x * y);
    if (op == "//" || op == "%") {
      if (y == 0)
        fail(l, "division by zero in a constant expression");
      double d = std::floor(x / y);
      return Val::floating(op == "//" ? d : x - d * y);
    }
    fail(l, "operator '" + op + "' does not apply to float constants");
  }
  int64_t r = 0;
  if (op == "+") {
    overflow(__builtin_add_overflow(p, q, &r));
    return Val::integer(r);
  }
  if (op == "-") {
    overflow(__builtin_sub_overflow(p, q, &r));
    return Val::integer(r);
  }
  if (op == "*") {
    overflow(__builtin_mul_overflow(p, q, &r));
    return Val::integer(r);
  }
  if (op == "//" || op == "%") {
    if (q == 0)
      fail(l, "division by zero in a constant expression");
    overflow(p == INT64_MIN && q == -1);
    int64_t d = p / q, m = p % q;
    if (m != 0 && ((m < 0) != (q < 0))) { // Python floors
      --d;
      m += q;
    }
    return Val::integer(op == "//" ? d : m);
  }
  if (op == "&" || op == "and")
    return a.kind == Val::Bool && c.kind == Val::Bool ? Val::boolean(p & q)
                                                      : Val::integer(p & q);
  if (op == "|" || op == "or")
    return a.kind == Val::Bool && c.kind == Val::Bool ? Val::boolean(p | q)
                                                      : Val::integer(p | q);
  if (op == "^")
    return Val::integer(p ^ q);
  if (op == "<<") {
    if (q < 0 || q > 63)
      fail(l, "shift count out of range in a constant expression");
    return Val::integer(int64_t(uint64_t(p) << q));
  }
  if (op == ">>") {
    if (q < 0 || q > 63)
      fail(l, "shift count out of range in a constant expression");
    return Val::integer(p >> q);
  }
  fail(l, "unknown operator '" + op + "'");
}

Val CodeGen::binary(const std::string &op, const Val &a, const Val &c, Loc l) {
  if (a.isConst() && c.isConst())
    return foldBinary(op, a, c, l);
  Location lc = loc(l);
  // Pointer arithmetic.
  auto ptrSide = [&](const Val &v) {
    return v.kind == Val::Runtime && isPtr(v.v.getType());
  };
  if ((op == "+" || op == "-") && (ptrSide(a) || ptrSide(c))) {
    if (ptrSide(a) && ptrSide(c))
      fail(l, "cannot " + std::string(op == "+" ? "add" : "subtract") +
                  " two pointers");
    if (op == "-" && ptrSide(c))
      fail(l, "cannot subtract a pointer from an integer");
    const Val &p = ptrSide(a) ? a : c;
    const Val &o = ptrSide(a) ? c : a;
    mlir::Value off = o.kind == Val::Runtime
                          ? o.v
                          : materialize(o, defaultType(o), l);
    if (!isInt(off.getType()) || elemOf(off.getType()).isInteger(1))
      fail(l, "pointer offsets must be integers, got " +
                  typeName(off.getType()));
    if (op == "-")
      off = arith::SubIOp::create(
          b, lc,
          splatTo(materialize(Val::integer(0), elemOf(off.getType()), l),
                  off.getType(), l),
          off);
    SmallVector<int64_t> shape =
        broadcastShape(shapeOf(p.v.getType()), shapeOf(off.getType()), l);
    mlir::Value ptr = broadcastTo(p.v, shape, l);
    off = broadcastTo(off, shape, l);
    return Val::runtime(
        kd::AddPtrOp::create(b, lc, ptr.getType(), ptr, off).getResult(),
        p.uns);
  }
  bool u = false; // the operands' (promoted) signedness
  auto [x, y] = unify(a, c, l, /*allowPtr=*/false, &u);
  Type elem = elemOf(x.getType());
  if (isFp8(elem)) { // fp8 is a storage type: arithmetic in f32
    elem = b.getF32Type();
    x = cast(x, elem, l);
    y = cast(y, elem, l);
  }
  bool fl = isa<FloatType>(elem);
  if (op == "/") {
    if (!fl) { // true division of integers
      Type f32 = b.getF32Type();
      x = cast(x, f32, l, u);
      y = cast(y, f32, l, u);
    }
    return Val::runtime(arith::DivFOp::create(b, lc, x, y));
  }
  if (op == "+")
    return Val::runtime(fl ? arith::AddFOp::create(b, lc, x, y).getResult()
                           : arith::AddIOp::create(b, lc, x, y).getResult(),
                        u);
  if (op == "-")
    return Val::runtime(fl ? arith::SubFOp::create(b, lc, x, y).getResult()
                           : arith::SubIOp::create(b, lc, x, y).getResult(),
                        u);
  if (op == "*")
    return Val::runtime(fl ? arith::MulFOp::create(b, lc, x, y).getResult()
                           : arith::MulIOp::create(b, lc, x, y).getResult(),
                        u);
  if (op == "//") {
    if (fl)
      return Val::runtime(math::FloorOp::create(
          b, lc, arith::DivFOp::create(b, lc, x, y)));
    if (u)
      return Val::runtime(arith::DivUIOp::create(b, lc, x, y), true);
    return Val::runtime(arith::DivSIOp::create(b, lc, x, y));
  }
  if (op == "%") {
    if (fl)
      return Val::runtime(arith::RemFOp::create(b, lc, x, y));
    if (u)
      return Val::runtime(arith::RemUIOp::create(b, lc, x, y), true);
    return Val::runtime(arith::RemSIOp::create(b, lc, x, y));
  }
  if (fl)
    fail(l, "operator '" + op + "' needs integer or boolean operands, got " +
                typeName(x.getType()));
  if (op == "&" || op == "and")
    return Val::runtime(arith::AndIOp::create(b, lc, x, y), u);
  if (op == "|" || op == "or")
    return Val::runtime(arith::OrIOp::create(b, lc, x, y), u);
  if (op == "^")
    return Val::runtime(arith::XOrIOp::create(b, lc, x, y), u);
  if (op == "<<")
    return Val::runtime(arith::ShLIOp::create(b, lc, x, y), u);
  if (op == ">>") // logical for unsigned integers, arithmetic for signed
    return u ? Val::runtime(arith::ShRUIOp::create(b, lc, x, y), true)
             : Val::runtime(arith::ShRSIOp::create(b, lc, x, y));
  fail(l, "unknown operator '" + op + "'");
}

Val CodeGen::compare(const std::string &op, const Val &a, const Val &c, Loc l) {
  if (a.kind == Val::Str || c.kind == Val::Str || a.kind == Val::None ||
      c.kind == Val::None) {
    // Strings and None (constexprs: `if reduction == "mean":`, `if weight
    // is None:`): compile-time equality.
    if (op != "==" && op != "!=")
      fail(l, "strings and None compare with ==, !=, is and is not, not " +
                  op);
    bool same = a.kind == c.kind && (a.kind != Val::Str || a.s == c.s);
    return Val::boolean(op == "==" ? same : !same);
  }
  if (a.kind == Val::DType || c.kind == Val::DType) {
    // x.dtype == tl.float16: compile-time, on the dtypes (signedness
    // included).
    if (a.kind != Val::DType || c.kind != Val::DType ||
        (op != "==" && op != "!="))
      fail(l, "dtypes compare with == and != to dtypes, not " + describe(a) +
                  " " + op + " " + describe(c));
    bool same = a.dtype == c.dtype && a.uns == c.uns;
    return Val::boolean(op == "==" ? same : !same);
  }
  if (a.isConst() && c.isConst()) {
    double x = a.kind == Val::Float ? a.f : double(a.i);
    double y = c.kind == Val::Float ? c.f : double(c.i);
    bool r = op == "<"    ? x < y
             : op == "<=" ? x <= y
             : op == ">"  ? x > y
             : op == ">=" ? x >= y
             : op == "==" ? x == y
                          : x != y;
    return Val::boolean(r);
  }
  bool u = false;
  auto [x, y] = unify(a, c, l, /*allowPtr=*/false, &u);
  Location lc = loc(l);
  if (isFp8(elemOf(x.getType()))) { // compared as f32 (exact)
    x = cast(x, b.getF32Type(), l);
    y = cast(y, b.getF32Type(), l);
  }
  if (isFloat(x.getType())) {
    using P = arith::CmpFPredicate;
    P p = op == "<"    ? P::OLT
          : op == "<=" ? P::OLE
          : op == ">"  ? P::OGT
          : op == ">=" ? P::OGE
          : op == "==" ? P::OEQ
                       : P::UNE;
    return Val::runtime(arith::CmpFOp::create(b, lc, p, x, y));
  }
  using P = arith::CmpIPredicate;
  P p = op == "<"    ? (u ? P::ult : P::slt)
        : op == "<=" ? (u ? P::ule : P::sle)
        : op == ">"  ? (u ? P::ugt : P::sgt)
        : op == ">=" ? (u ? P::uge : P::sge)
        : op == "==" ? P::eq
                     : P::ne;
  return Val::runtime(arith::CmpIOp::create(b, lc, p, x, y));
}

Val CodeGen::unary(const std::string &op, const Val &a, Loc l) {
  if (a.isConst()) {
    if (op == "-")
      return a.kind == Val::Float ? Val::floating(-a.f)
                                  : Val::integer(-a.i);
    if (op == "+")
      return a;
    if (op == "not")
      return Val::boolean(!(a.kind == Val::Float ? a.f != 0 : a.i != 0));
    if (op == "~")
      return Val::integer(~a.i);
  }
  if (a.kind != Val::Runtime)
    fail(l, "operator '" + op + "' does not apply to " + describe(a));
  Location lc = loc(l);
  Type t = a.v.getType();
  if (op == "+")
    return a;
  if (op == "-") {
    // fp8 is a storage type: negated in f32, as its other arithmetic.
    if (isFloat(t) && !isFp8(elemOf(t)))
      return Val::runtime(arith::NegFOp::create(b, lc, a.v));
    if (isFloat(t))
      return binary("-", Val::floating(0.0), a, l);
    return binary("-", Val::integer(0), a, l);
  }
  if (op == "not" || op == "~") {
    if (isFloat(t) || isPtr(t))
      fail(l, "operator '" + op + "' needs an integer or boolean operand");
    mlir::Value ones = splatTo(
        materialize(Val::integer(-1), elemOf(t), l), t, l);
    if (op == "not" && !elemOf(t).isInteger(1))
      fail(l, "'not' needs a boolean operand; compare with 0 first");
    return Val::runtime(arith::XOrIOp::create(b, lc, a.v, ones), a.uns);
  }
  fail(l, "unknown operator '" + op + "'");
}

Val CodeGen::moduleConstant(const std::string &name, Loc use) {
  if (auto it = constantValues.find(name); it != constantValues.end())
    return it->second;
  const Stmt &s = *constantDefs.at(name);
  if (!evaluating.insert(name).second)
    fail(s.loc, "module-level '" + name + "' is defined in terms of itself");
  // Evaluated at the module's level: no function's names are visible.
  Scope global;
  Scope *saved = scope;
  scope = &global;
  Val v;
  try {
    v = expr(*s.value);
  } catch (CodeGenError &) {
    scope = saved;
    evaluating.erase(name);
    fail(use, "'" + name + "' (a module-level constant, defined at line " +
                  std::to_string(s.loc.line) + ") cannot be evaluated");
  }
  scope = saved;
  evaluating.erase(name);
  if (!v.isConst() && v.kind != Val::DType)
    fail(s.loc, "module-level '" + name + "' must be a compile-time value (a "
                "number, a bool or a dtype), used at line " +
                    std::to_string(use.line));
  constantValues[name] = v;
  return v;
}

Val CodeGen::lookup(const std::string &name, Loc l) {
  auto it = scope->find(name);
  if (it != scope->end())
    return it->second;
  if (constantDefs.count(name))
    return moduleConstant(name, l);
  bool uns = false;
  if (auto t = dtypeNamed(name, &uns))
    return Val::dtypeOf(*t, uns);
  // Triton's tl.TRITON_MAX_TENSOR_NUMEL: the most elements a block holds
  // (arange's limit, Kite's too).
  if (name == "TRITON_MAX_TENSOR_NUMEL")
    return Val::integer(int64_t(1) << 20);
  auto f = functions.find(name);
  if (f != functions.end()) {
    if (f->second->isKernel)
      fail(l, "kernel '" + name + "' cannot be called from a kernel; "
              "remove @kernel to make it a helper");
    Val v;
    v.kind = Val::Helper;
    v.fn = f->second;
    return v;
  }
  if (isBuiltin(name))
    fail(l, "'" + name + "' is a builtin function; call it");
  if (auto it = module.foreignNames.find(name); it != module.foreignNames.end())
    fail(l, "'" + name + "' comes from module '" + it->second +
                "', which Kite does not read: a kernel may use only "
                "Triton's modules (triton, triton.language, libdevice) and "
                "the file's own functions and constants");
  for (const HostStatement &h : module.hostStatements)
    if (h.name == name)
      fail(l, "'" + name + "' is host code (line " + std::to_string(h.line) +
                  ": " + h.what + "), which Kite leaves out of a file of "
                  "Triton kernels: a kernel may call only @triton.jit "
                  "functions and use module constants");
  fail(l, "unknown name '" + name + "'");
}

bool CodeGen::isBuiltin(StringRef n) {
  static const char *names[] = {"program_id",
                                "constexpr",
                                "num_programs",
                                "arange",
                                "load",
                                "store",
                                "where",
                                "rand",
                                "randint",
                                "randn",
                                "zeros",
                                "full",
                                "cdiv",
                                "next_power_of_2",
                                "min",
                                "max",
                                "minimum",
                                "maximum",
                                "sum",
                                "dot",
                                "fdiv",
                                "range",
                                "static_assert",
                                "clamp",
                                "umulhi",
                                "float",
                                "zeros_like",
                                "full_like",
                                "static_range",
                                "debug_barrier",
                                "static_print",
                                "trans",
                                "permute",
                                "reshape",
                                "view",
                                "xor_sum",
                                "reduce_or",
                                "dot_scaled",
                                "load_tensor_descriptor",
                                "store_tensor_descriptor",
                                "softmax",
                                "add",
                                "sub",
                                "mul",
                                "argmax",
                                "argmin",
                                "cumsum",
                                "cumprod",
                                "multiple_of",
                                "max_contiguous",
                                "max_constancy",
                                "atomic_add",
                                "atomic_max",
                                "atomic_min",
                                "atomic_and",
                                "atomic_or",
                                "atomic_xor",
                                "atomic_xchg",
                                "atomic_cas",
                                "device_print",
                                "device_assert",
                                "randint4x",
                                "philox",
                                "rand4x",
                                "randn4x",
                                "cast",
                                "uint_to_uniform_float",
                                "pair_uniform_to_normal",
                                "flip",
                                "inline_asm_elementwise",
                                "reduce",
                                "associative_scan",
                                "map_elementwise",
                                "make_tensor_descriptor",
                                "swizzle2d",
                                "make_block_ptr",
                                "advance",
                                "assume"};
  for (const char *b : names)
    if (n == b)
      return true;
  return isShapeBuiltin(n) || isMathBuiltin(n);
}

Val CodeGen::expr(const Expr &e) {
  switch (e.kind) {
  case Expr::Name:
    return lookup(e.name, e.loc);
  case Expr::Int:
    return Val::integer(e.intValue);
  case Expr::Float:
    return Val::floating(e.floatValue);
  case Expr::Bool:
    return Val::boolean(e.intValue);
  case Expr::Str: {
    Val v;
    v.kind = Val::Str;
    v.s = e.name;
    return v;
  }
  case Expr::NoneLit:
    return Val();
  case Expr::Slice:
    fail(e.loc, "':' is only allowed in x[:, None]-style subscripts");
  case Expr::Unary:
    if (e.name == "*")
      fail(e.loc, "pointer types are only allowed in parameter annotations");
    return unary(e.name, expr(*e.args[0]), e.loc);
  case Expr::Binary: {
    Val a = expr(*e.args[0]);
    Val c = expr(*e.args[1]);
    if ((e.name == "and" || e.name == "or") &&
        ((a.kind == Val::Runtime && !elemOf(a.v.getType()).isInteger(1)) ||
         (c.kind == Val::Runtime && !elemOf(c.v.getType()).isInteger(1))))
      fail(e.loc, "'" + e.name + "' needs boolean operands (masks); got " +
                      describe(a) + " and " + describe(c));
    return binary(e.name, a, c, e.loc);
  }
  case Expr::Compare: {
    if (e.name == "in" || e.name == "not in") {
      // A compile-time value among a tuple's (Triton's constexprs).
      Val x = expr(*e.args[0]), set = expr(*e.args[1]);
      bool scalarX = x.isConst() || x.kind == Val::Str || x.kind == Val::None ||
                     x.kind == Val::DType;
      if (!scalarX || set.kind != Val::Tuple)
        fail(e.loc, "'" + e.name + "' needs a compile-time value and a tuple "
                    "of them; got " + describe(x) + " and " + describe(set));
      bool found = false;
      for (const Val &y : set.elems) {
        if (x.kind == Val::Str || y.kind == Val::Str)
          found |= x.kind == y.kind && x.s == y.s;
        else if (x.kind == Val::None || y.kind == Val::None)
          found |= x.kind == y.kind;
        else if (x.kind == Val::DType || y.kind == Val::DType)
          found |= x.kind == y.kind && x.dtype == y.dtype && x.uns == y.uns;
        else if (y.isConst())
          found |= (x.kind == Val::Float ? x.f : double(x.i)) ==
                   (y.kind == Val::Float ? y.f : double(y.i));
      }
      return Val::boolean(found == (e.name == "in"));
    }
    return compare(e.name, expr(*e.args[0]), expr(*e.args[1]), e.loc);
  }
  case Expr::Ternary: {
    Val cond = expr(*e.args[0]);
    if (cond.kind == Val::Runtime && !isa<RankedTensorType>(cond.v.getType())) {
      // A runtime scalar condition (`1.0 if a == b else 0.0`): both values,
      // then a select, as Triton does.
      mlir::Value c = asBool(cond, e.args[0]->loc, "the condition");
      bool u = false;
      auto [x, y] = unify(expr(*e.args[1]), expr(*e.args[2]), e.loc,
                          /*allowPtr=*/true, &u);
      if (isa<RankedTensorType>(x.getType()))
        fail(e.loc, "'x if c else y' of blocks: use where(c, x, y)");
      return Val::runtime(arith::SelectOp::create(b, loc(e.loc), c, x, y), u);
    }
    if (!cond.isConst())
      fail(e.loc, "'x if c else y' needs a scalar condition; use "
                  "where(c, x, y) for blocks");
    return expr(*e.args[(cond.kind == Val::Float ? cond.f != 0 : cond.i != 0)
                            ? 1
                            : 2]);
  }
  case Expr::Tuple: {
    Val v;
    v.kind = Val::Tuple;
    for (auto &a : e.args)
      v.elems.push_back(expr(*a));
    return v;
  }
  case Expr::Subscript:
    return subscript(e);
  case Expr::Attribute:
    // Triton's PropagateNan.NONE / .ALL (minimum/maximum's propagate_nan).
    if (e.args[0]->kind == Expr::Name && e.args[0]->name == "PropagateNan" &&
        !scope->count("PropagateNan")) {
      if (e.name == "NONE")
        return Val::integer(kPropagateNanNone);
      if (e.name == "ALL")
        return Val::integer(kPropagateNanAll);
      fail(e.loc, "PropagateNan has NONE and ALL, not '" + e.name + "'");
    }
    if (e.name == "T") { // x.T: the transpose of a 2-D block
      Val x = expr(*e.args[0]);
      return transpose(x, {}, e.loc, e.args[0]->loc);
    }
    if (e.name == "shape" || e.name == "dtype" || e.name == "numel" ||
        e.name == "element_ty")
      return typeAttribute(expr(*e.args[0]), e.name, e.loc);
    // An attribute of an imported module's name (np.pi, torch.float32):
    // the name says where it comes from.
    if (e.args[0]->kind == Expr::Name && !scope->count(e.args[0]->name) &&
        module.foreignNames.count(e.args[0]->name))
      (void)lookup(e.args[0]->name, e.args[0]->loc);
    fail(e.loc, "unknown attribute '" + e.name +
                    "' (blocks have .to(dtype), .T, .shape, .dtype, .numel, "
                    ".reshape(shape), .trans(*dims), .permute(dims))");
  case Expr::Call:
    return call(e);
  case Expr::Dict:
    fail(e.loc, "dictionaries are host code: a kernel cannot use one");
  case Expr::ListComp:
    fail(e.loc, "comprehensions are read only in @triton.autotune's configs");
  }
  fail(e.loc, "unsupported expression");
}

Val CodeGen::typeAttribute(const Val &x, const std::string &name, Loc l) {
  // Triton's x.shape (a tuple of constants; () for a scalar), x.numel,
  // x.dtype (a dtype; for pointers the pointer type, whose .element_ty is
  // the pointee's).
  if (name == "element_ty") {
    if (x.kind != Val::DType || !isa<kd::PointerType>(x.dtype))
      fail(l, ".element_ty is the pointee of a pointer dtype (p.dtype), not "
              "of " +
                  describe(x));
    return Val::dtypeOf(llvm::cast<kd::PointerType>(x.dtype).getPointeeType(),
                        x.uns);
  }
  if (x.kind != Val::Runtime)
    fail(l, "." + name +
                " is an attribute of blocks and runtime scalars, "
                "not of " +
                describe(x));
  ArrayRef<int64_t> shape = shapeOf(x.v.getType());
  if (name == "dtype")
    return Val::dtypeOf(elemOf(x.v.getType()), x.uns);
  if (name == "numel") {
    int64_t n = 1;
    for (int64_t dim : shape)
      n *= dim;
    return Val::integer(n);
  }
  Val t;
  t.kind = Val::Tuple;
  for (int64_t dim : shape)
    t.elems.push_back(Val::integer(dim));
  return t;
}

Val CodeGen::subscript(const Expr &e) {
  Val base = expr(*e.args[0]);
  if (base.kind == Val::Tuple) {
    if (e.args.size() != 2)
      fail(e.loc, "tuples take one index");
    Val idx = expr(*e.args[1]);
    if (idx.kind != Val::Int || idx.i < 0 ||
        idx.i >= int64_t(base.elems.size()))
      fail(e.args[1]->loc, "tuple index must be a constant in range");
    return base.elems[idx.i];
  }
  if (base.kind != Val::Runtime || !isa<RankedTensorType>(base.v.getType()))
    fail(e.loc, "only blocks can be indexed (x[:, None]), got " +
                    describe(base));
  auto shape = shapeOf(base.v.getType());
  size_t slices = 0;
  for (size_t k = 1; k < e.args.size(); ++k) {
    const Expr &a = *e.args[k];
    if (a.kind == Expr::Slice)
      ++slices;
    else if (a.kind != Expr::NoneLit)
      fail(a.loc, "block subscripts take ':' and None only (x[:, None])");
  }
  if (slices != shape.size())
    fail(e.loc, "subscript has " + std::to_string(slices) +
                    " ':' for a block of rank " +
                    std::to_string(shape.size()));
  mlir::Value v = base.v;
  int axis = 0;
  for (size_t k = 1; k < e.args.size(); ++k) {
    if (e.args[k]->kind == Expr::NoneLit) {
      SmallVector<int64_t> s(shapeOf(v.getType()));
      s.insert(s.begin() + axis, 1);
      v = kd::ExpandDimsOp::create(b, loc(e.loc),
                                   withShape(elemOf(v.getType()), s), v,
                                   b.getI32IntegerAttr(axis));
    }
    ++axis;
  }
  return Val::runtime(v, base.uns);
}

CodeGen::Args CodeGen::bindArgs(const Expr &call, const std::string &fname,
              ArrayRef<const char *> params, size_t required) {
  Args a;
  a.values.resize(params.size());
  a.locs.assign(params.size(), call.loc);
  a.given.assign(params.size(), false);
  if (call.args.size() - 1 > params.size())
    fail(call.loc, fname + "() takes at most " +
                       std::to_string(params.size()) + " argument(s), got " +
                       std::to_string(call.args.size() - 1));
  for (size_t k = 1; k < call.args.size(); ++k) {
    a.values[k - 1] = expr(*call.args[k]);
    a.locs[k - 1] = call.args[k]->loc;
    a.given[k - 1] = true;
  }
  for (auto &[key, value] : call.kwargs) {
    size_t idx = params.size();
    for (size_t k = 0; k < params.size(); ++k)
      if (key == params[k])
        idx = k;
    if (idx == params.size()) {
      std::string known;
      for (const char *p : params)
        known += (known.empty() ? "" : ", ") + std::string(p);
      fail(value->loc, fname + "() has no argument '" + key + "' (" +
                           known + ")");
    }
    if (a.given[idx])
      fail(value->loc, fname + "() got argument '" + key + "' twice");
    a.values[idx] = expr(*value);
    a.locs[idx] = value->loc;
    a.given[idx] = true;
  }
  for (size_t k = 0; k < required; ++k)
    if (!a.given[k])
      fail(call.loc, fname + "() is missing argument '" + params[k] + "'");
  return a;
}

int64_t CodeGen::axisArg(const Val &v, Loc l, int64_t rank, const char *what) {
  int64_t axis = constInt(v, l, what);
  if (axis < 0)
    axis += rank;
  // "the axis" is reported as "axis N is out of range ...".
  std::string name = std::string(what) == "the axis" ? "axis" : what;
  if (axis < 0 || axis >= rank)
    fail(l, name + " " + std::to_string(axis) +
                " is out of range for a block of rank " + std::to_string(rank));
  return axis;
}

bool CodeGen::flagArg(const Args &a, size_t i, const std::string &fname,
                      const char *what, bool deflt) {
  if (!a.given[i] || a.values[i].kind == Val::None)
    return deflt;
  const Val &v = a.values[i];
  if (v.kind != Val::Bool && v.kind != Val::Int)
    fail(a.locs[i], fname + "()'s " + what + " must be True or False");
  return v.i != 0;
}

int64_t CodeGen::constInt(const Val &v, Loc l, const char *what) {
  if (v.kind != Val::Int && v.kind != Val::Bool)
    fail(l, std::string(what) + " must be a compile-time integer (a literal "
                                "or a constexpr), got " +
                describe(v));
  return v.i;
}

Type CodeGen::dtypeArg(const Val &v, Loc l) {
  if (v.kind != Val::DType)
    fail(l, "expected a dtype (i32, f32, ...), got " + describe(v));
  return v.dtype;
}

SmallVector<int64_t> CodeGen::shapeArg(const Val &v, Loc l) {
  SmallVector<int64_t> s;
  if (v.kind == Val::Tuple) {
    for (const Val &e : v.elems)
      s.push_back(constInt(e, l, "a shape dimension"));
  } else {
    s.push_back(constInt(v, l, "a shape dimension"));
  }
  for (int64_t d : s)
    if (d <= 0 || d > (1 << 20) || (d & (d - 1)))
      fail(l, "block dimensions must be powers of two in [1, 2^20], got " +
                  std::to_string(d));
  checkBlockSize(s, l);
  return s;
}

mlir::Value CodeGen::asBool(const Val &v, Loc l, const char *what) {
  mlir::Value x = v.kind == Val::Runtime ? v.v : runtime(v, l);
  if (!elemOf(x.getType()).isInteger(1))
    fail(l, std::string(what) + " must be boolean (a comparison), got " +
                typeName(x.getType()));
  return x;
}

} // namespace kite::frontend
