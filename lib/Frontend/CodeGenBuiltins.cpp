//===- CodeGenBuiltins.cpp - The builtin functions
//---------------------------===//
//
// Calls: methods (.to, .reshape, .trans), the builtins (program_id, arange,
// where, rand, dot, scans, shape ops, hints,
// debug ops) and helper calls (inlined: CodeGenStmt.cpp); load/store are
// CodeGenMemory.cpp's, reductions and softmax CodeGenReductions.cpp's.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace kite::frontend {

Val CodeGen::call(const Expr &e) {
  const Expr &callee = *e.args[0];
  Location lc = loc(e.loc);
  // Methods: x.to(dtype)
  if (callee.kind == Expr::Attribute) {
    // libdevice.NAME(...): the math library (Triton's
    // triton.language.extra.libdevice, imported as libdevice).
    if (callee.args[0]->kind == Expr::Name &&
        callee.args[0]->name == "libdevice" && !scope->count("libdevice"))
      return math(callee.name, e, /*libdevice=*/true);
    Val self = expr(*callee.args[0]);
    if (self.kind == Val::Desc)
      return descriptorMethod(self, callee.name, e);
    if (callee.name == "reshape" || callee.name == "view") {
      Args a = bindArgs(e, callee.name, {"shape"}, 1);
      return reshapeTo(self, shapeArg(a.values[0], a.locs[0]), e.loc,
                       callee.args[0]->loc);
    }
    if (callee.name == "trans" || callee.name == "permute") {
      SmallVector<int64_t> dims;
      for (size_t k = 1; k < e.args.size(); ++k) {
        Val d = expr(*e.args[k]);
        if (d.kind == Val::Tuple)
          for (const Val &x : d.elems)
            dims.push_back(constInt(x, e.args[k]->loc, "a dimension"));
        else
          dims.push_back(constInt(d, e.args[k]->loc, "a dimension"));
      }
      return transpose(self, dims, e.loc, callee.args[0]->loc);
    }
    if (callee.name != "to")
      fail(callee.loc, "unknown method '" + callee.name +
                           "' (blocks have .to(dtype), .reshape(shape), "
                           ".trans(*dims), .permute(dims), and Triton's "
                           "methods that are builtins: .sum(axis), .exp2(), "
                           ".expand_dims(axis), ... (docs/language.md))");
    Args a = bindArgs(e, "to", {"dtype", "fp_downcast_rounding", "bitcast"}, 1);
    return convertTo(self, a, 0, e.loc);
  }
  if (callee.kind != Expr::Name)
    fail(callee.loc, "only functions can be called");
  const std::string &n = callee.name;
  // A helper of the file (or a local function value) shadows a builtin of
  // its name, as in Python; `tl.NAME` is always Triton's builtin.
  if (!callee.fromTriton &&
      (scope->count(n) ||
       (functions.count(n) && (!isBuiltin(n) || !functions.at(n)->isKernel)))) {
    Val f = lookup(n, callee.loc);
    if (f.kind != Val::Helper)
      fail(callee.loc, "'" + n + "' is not a function");
    return inlineHelper(*f.fn, e);
  }
  if (!isBuiltin(n) && isLibdeviceOnly(n))
    fail(callee.loc, "unknown function '" + n + "'; the math library has it "
                     "as libdevice." + n + " (Triton's libdevice)");
  if (n.rfind("atomic_", 0) == 0)
    return atomic(n, e);
  if (n == "device_print" || n == "device_assert" || n == "assume")
    return deviceDebug(n, e);
  if (isShapeBuiltin(n))
    return shapeBuiltin(n, e);
  if (n == "inline_asm_elementwise")
    return inlineAsm(e);
  if (n == "make_tensor_descriptor")
    return makeDescriptor(e);
  if (n == "load_tensor_descriptor" || n == "store_tensor_descriptor")
    return descriptorFunction(n, e);
  if (n == "make_block_ptr")
    return makeBlockPtr(e);
  if (n == "advance")
    return advanceBlockPtr(e);
  if (n == "reduce" || n == "associative_scan")
    return combineBuiltin(n, e);
  if (n == "map_elementwise")
    return mapElementwiseBuiltin(e);
  if (n == "program_id" || n == "num_programs") {
    Args a = bindArgs(e, n, {"axis"}, 1);
    int64_t axis = constInt(a.values[0], a.locs[0], "the axis");
    if (axis < 0 || axis > 2)
      fail(a.locs[0], "axis must be 0, 1 or 2, got " + std::to_string(axis));
    if (n == "program_id")
      return Val::runtime(kd::ProgramIdOp::create(
          b, lc, b.getI32Type(), b.getI32IntegerAttr(axis)));
    return Val::runtime(kd::NumProgramsOp::create(
        b, lc, b.getI32Type(), b.getI32IntegerAttr(axis)));
  }
  if (n == "arange") {
    Args a = bindArgs(e, n, {"start", "end"}, 2);
    int64_t s = constInt(a.values[0], a.locs[0], "arange's start");
    int64_t t = constInt(a.values[1], a.locs[1], "arange's end");
    int64_t len = t - s;
    if (len <= 0 || len > (1 << 20) || (len & (len - 1)))
      fail(e.loc, "arange(" + std::to_string(s) + ", " + std::to_string(t) +
                      ") has length " + std::to_string(len) +
                      "; it must be a power of two in [1, 2^20]");
    if (s < INT32_MIN || t > INT32_MAX)
      fail(e.loc, "arange bounds must fit in i32");
    return Val::runtime(kd::ArangeOp::create(
        b, lc, RankedTensorType::get({len}, b.getI32Type()),
        b.getI32IntegerAttr(s), b.getI32IntegerAttr(t)));
  }
  if (n == "load" || n == "store")
    return memoryBuiltin(n, e);
  if (n == "where") {
    Args a = bindArgs(e, n, {"condition", "x", "y"}, 3);
    mlir::Value c = asBool(a.values[0], a.locs[0], "where()'s condition");
    bool u = false;
    auto [x, y] =
        unify(a.values[1], a.values[2], e.loc, /*allowPtr=*/true, &u);
    SmallVector<int64_t> shape = broadcastShape(
        shapeOf(c.getType()), shapeOf(x.getType()), e.loc);
    c = broadcastTo(c, shape, e.loc);
    x = broadcastTo(x, shape, e.loc);
    y = broadcastTo(y, shape, e.loc);
    return Val::runtime(arith::SelectOp::create(b, lc, c, x, y), u);
  }
  if (n == "rand" || n == "randint" || n == "randn" || n == "randint4x" ||
      n == "philox" ||
      n == "rand4x" || n == "randn4x" || n == "uint_to_uniform_float" ||
      n == "pair_uniform_to_normal")
    return randomBuiltin(n, e);
  if (n == "constexpr") {
    // Triton's tl.constexpr(value): the value, which must be known at
    // compile time (module-level constants are written so).
    Args a = bindArgs(e, n, {"value"}, 1);
    if (!a.values[0].isConst() && a.values[0].kind != Val::DType)
      fail(a.locs[0], "constexpr() needs a compile-time value (a number, a "
                      "bool or a dtype)");
    return a.values[0];
  }
  if (n == "cast") {
    // Triton's cast(input, dtype, fp_downcast_rounding=None, bitcast=False):
    // input.to(...).
    Args a = bindArgs(e, n,
                      {"input", "dtype", "fp_downcast_rounding", "bitcast"}, 2);
    return convertTo(a.values[0], a, 1, e.loc);
  }
  if (n == "zeros" || n == "full") {
    bool full = n == "full";
    Args a = full ? bindArgs(e, n, {"shape", "value", "dtype"}, 3)
                  : bindArgs(e, n, {"shape", "dtype"}, 2);
    SmallVector<int64_t> shape = shapeArg(a.values[0], a.locs[0]);
    Type t = dtypeArg(a.values[full ? 2 : 1], a.locs[full ? 2 : 1]);
    bool tu = a.values[full ? 2 : 1].uns;
    Val value = full ? a.values[1] : Val::integer(0);
    if (shape.empty()) { // full((), v, dtype): a scalar (Triton's 0-d)
      if (value.kind == Val::Runtime &&
          isa<RankedTensorType>(value.v.getType()))
        fail(a.locs[1], "full()'s value must be a scalar");
      if (value.kind == Val::Runtime)
        return Val::runtime(cast(value.v, t, a.locs[1], value.uns, tu), tu);
      if (value.kind == Val::Float && !isa<FloatType>(t))
        fail(a.locs[1], "a float value for an integer block");
      return Val::runtime(materialize(value, t, full ? a.locs[1] : e.loc, tu),
                          tu);
    }
    if (full && value.kind == Val::Runtime) {
      if (isa<RankedTensorType>(value.v.getType()))
        fail(a.locs[1], "full()'s value must be a scalar");
      return Val::runtime(
          broadcastTo(cast(value.v, t, a.locs[1], value.uns, tu), shape, e.loc),
          tu);
    }
    auto type = RankedTensorType::get(shape, t);
    TypedAttr scalar;
    if (auto ft = dyn_cast<FloatType>(t))
      scalar = b.getFloatAttr(ft, value.kind == Val::Float ? value.f
                                                           : double(value.i));
    else {
      if (value.kind == Val::Float)
        fail(a.locs[1], "a float value for an integer block");
      scalar = b.getIntegerAttr(t, value.i);
    }
    return Val::runtime(arith::ConstantOp::create(
                            b, lc, type, DenseElementsAttr::get(type, scalar)),
                        tu);
  }
  if (n == "zeros_like" || n == "full_like") {
    // A block of x's shape and (unless dtype=) element type.
    bool full = n == "full_like";
    Args a = full ? bindArgs(e, n, {"input", "fill_value", "dtype"}, 2)
                  : bindArgs(e, n, {"input", "dtype"}, 1);
    const Val &x = a.values[0];
    if (x.kind != Val::Runtime || !isa<RankedTensorType>(x.v.getType()))
      fail(a.locs[0], n + "() needs a block, got " + describe(x));
    unsigned dtypeArgIndex = full ? 2 : 1;
    bool dtypeGiven = a.given[dtypeArgIndex] &&
                      a.values[dtypeArgIndex].kind != Val::None;
    Type t = dtypeGiven
                 ? dtypeArg(a.values[dtypeArgIndex], a.locs[dtypeArgIndex])
                 : elemOf(x.v.getType());
    bool tu = dtypeGiven ? a.values[dtypeArgIndex].uns : x.uns;
    if (isa<kd::PointerType>(t))
      fail(a.locs[0], n + "() of a block of pointers");
    Val value = full ? a.values[1] : Val::integer(0);
    mlir::Value scalar =
        value.kind == Val::Runtime
            ? cast(value.v, t, a.locs[1], value.uns, tu)
            : materialize(value.kind == Val::Float && !isa<FloatType>(t)
                              ? Val::integer(int64_t(value.f))
                              : value,
                          t, full ? a.locs[1] : e.loc, tu);
    if (isa<RankedTensorType>(scalar.getType()))
      fail(a.locs[1], "full_like()'s value must be a scalar");
    return Val::runtime(
        broadcastTo(scalar, shapeOf(x.v.getType()), e.loc));
  }
  if (n == "cdiv") {
    Args a = bindArgs(e, n, {"x", "div"}, 2);
    Val one = Val::integer(1);
    return binary("//", binary("-", binary("+", a.values[0], a.values[1],
                                           e.loc),
                               one, e.loc),
                  a.values[1], e.loc);
  }
  if (n == "next_power_of_2") {
    // Triton's triton.next_power_of_2 on a compile-time integer.
    Args a = bindArgs(e, n, {"n"}, 1);
    const Val &v = a.values[0];
    if (v.kind != Val::Int)
      fail(a.locs[0], "next_power_of_2() takes a compile-time integer, got " +
                          describe(v));
    if (v.i > (int64_t(1) << 62))
      fail(a.locs[0], "next_power_of_2() of " + std::to_string(v.i) +
                          " does not fit in 64 bits");
    int64_t p = 1;
    while (p < v.i)
      p <<= 1;
    return Val::integer(p);
  }
  if (n == "swizzle2d") {
    // Triton's swizzle2d(i, j, size_i, size_j, size_g): (i, j) of a
    // size_i x size_j grid renumbered so that consecutive indices walk
    // groups of size_g rows column by column (the last group may be
    // shorter): the grouped order of tutorial 03's matmul.
    Args a = bindArgs(e, n, {"i", "j", "size_i", "size_j", "size_g"}, 5);
    Loc l = e.loc;
    const Val &i = a.values[0], &j = a.values[1], &sizeI = a.values[2],
              &sizeJ = a.values[3], &sizeG = a.values[4];
    Val linear = binary("+", binary("*", i, sizeJ, l), j, l);
    Val perGroup = binary("*", sizeG, sizeJ, l);
    Val firstRow = binary("*", binary("//", linear, perGroup, l), sizeG, l);
    Val rows = minOrMax(true, binary("-", sizeI, firstRow, l), sizeG, l);
    Val within = binary("%", linear, perGroup, l);
    Val out;
    out.kind = Val::Tuple;
    out.elems = {binary("+", firstRow, binary("%", within, rows, l), l),
                 binary("//", within, rows, l)};
    return out;
  }
  if ((n == "min" || n == "max") && e.args.size() == 3 && e.kwargs.empty())
    return minMax(n == "min", e, /*pythonBuiltin=*/true);
  if (n == "minimum" || n == "maximum")
    return minMax(n == "minimum", e);
  if (n == "sum" || n == "max" || n == "min" || n == "xor_sum" ||
      n == "reduce_or" || n == "argmax" || n == "argmin")
    return reduce(n, e);
  if (n == "softmax")
    return softmax(e);
  if (n == "add" || n == "sub" || n == "mul") {
    // Triton's tl.add / tl.sub / tl.mul(x, y, sanitize_overflow=True): the
    // operators (Kite's integers wrap; the sanitizer's checks are Triton's
    // debug mode).
    Args a = bindArgs(e, n, {"x", "y", "sanitize_overflow"}, 2);
    if (a.given[2])
      (void)constInt(a.values[2], a.locs[2], "sanitize_overflow");
    return binary(n == "add"   ? "+"
                  : n == "sub" ? "-"
                               : "*",
                  a.values[0], a.values[1], e.loc);
  }
  if (n == "dot")
    return dotBuiltin(e);
  if (n == "dot_scaled")
    return dotScaled(e);
  if (isMathBuiltin(n))
    return math(n, e, /*libdevice=*/false);
  if (n == "fdiv")
    return fdiv(e);
  if (n == "multiple_of" || n == "max_contiguous" || n == "max_constancy") {
    // Triton's hints: facts about an integer block the compiler may not
    // prove (per dimension in Triton; Kite's analysis works along the
    // row-major index, so the last dimension's value is used).
    Args a = bindArgs(e, n, {"input", "values"}, 2);
    const Val &in = a.values[0];
    if (in.kind != Val::Runtime || !isInt(in.v.getType()) ||
        elemOf(in.v.getType()).isInteger(1))
      fail(a.locs[0], n + "() applies to integer values, got " +
                          describe(in));
    const Val &vals = a.values[1];
    const Val &last = vals.kind == Val::Tuple && !vals.elems.empty()
                          ? vals.elems.back()
                          : vals;
    int64_t value = constInt(last, a.locs[1], "the hint's value");
    if (value < 1)
      fail(a.locs[1], n + "()'s value must be positive, got " +
                          std::to_string(value));
    int64_t elems = 1;
    for (int64_t d : shapeOf(in.v.getType()))
      elems *= d;
    if (n != "multiple_of" && (value > elems || elems % value))
      fail(a.locs[1], n + "(" + std::to_string(value) +
                          ") must divide the block's " +
                          std::to_string(elems) + " elements");
    auto attr = b.getI64IntegerAttr(value);
    auto h = kd::HintOp::create(
        b, lc, in.v.getType(), in.v,
        n == "multiple_of" ? attr : IntegerAttr(),
        n == "max_contiguous" ? attr : IntegerAttr(),
        n == "max_constancy" ? attr : IntegerAttr());
    return Val::runtime(h.getResult(), in.uns);
  }
  if (n == "cumsum" || n == "cumprod") {
    // Triton's tl.cumsum / tl.cumprod(input, axis=0, reverse=False).
    Args a = bindArgs(e, n, {"input", "axis", "reverse"}, 1);
    const Val &in = a.values[0];
    if (in.kind != Val::Runtime || !isa<RankedTensorType>(in.v.getType()))
      fail(a.locs[0], n + "() scans a block, got " + describe(in));
    auto shape = shapeOf(in.v.getType());
    int64_t axis =
        a.given[1] && a.values[1].kind != Val::None
            ? axisArg(a.values[1], a.locs[1], int64_t(shape.size()), "the axis")
            : 0;
    if (elemOf(in.v.getType()).isInteger(1))
      fail(a.locs[0], n + "() of a boolean block; convert it with .to(i32)");
    bool reverse = false;
    if (a.given[2]) {
      if (a.values[2].kind != Val::Bool && a.values[2].kind != Val::Int)
        fail(a.locs[2], n + "()'s reverse must be True or False");
      reverse = a.values[2].i != 0;
    }
    auto scan = kd::ScanOp::create(
        b, lc, in.v,
        kd::ScanKindAttr::get(ctx, n == "cumsum" ? kd::ScanKind::Sum
                                                 : kd::ScanKind::Prod),
        b.getI32IntegerAttr(axis), reverse ? b.getUnitAttr() : UnitAttr());
    return Val::runtime(scan.getResult(), in.uns);
  }
  if (n == "flip") {
    // flip(x, dim=None): reversed along dim (default: the last one).
    Args a = bindArgs(e, n, {"x", "dim"}, 1);
    Val x = a.values[0];
    if (x.kind != Val::Runtime || !isa<RankedTensorType>(x.v.getType()))
      fail(a.locs[0], "flip() needs a block, got " + describe(x));
    int64_t rank = llvm::cast<RankedTensorType>(x.v.getType()).getRank();
    int64_t dim = rank - 1;
    if (a.given[1] && a.values[1].kind != Val::None) {
      dim = constInt(a.values[1], a.locs[1], "flip()'s dim");
      if (dim < 0)
        dim += rank;
      if (dim < 0 || dim >= rank)
        fail(a.locs[1], "flip()'s dim is out of range for a rank-" +
                            std::to_string(rank) + " block");
    }
    return Val::runtime(kd::FlipOp::create(b, lc, x.v.getType(), x.v,
                                           b.getI32IntegerAttr(dim)),
                        x.uns);
  }
  if (n == "trans" || n == "permute") {
    // trans(x, *dims) / permute(x, dims): no dims swaps a 2-D block.
    if (e.args.size() < 2)
      fail(e.loc, n + "() needs a block");
    Val x = expr(*e.args[1]);
    SmallVector<int64_t> dims;
    for (size_t k = 2; k < e.args.size(); ++k) {
      Val d = expr(*e.args[k]);
      if (d.kind == Val::Tuple)
        for (const Val &v : d.elems)
          dims.push_back(constInt(v, e.args[k]->loc, "a dimension"));
      else
        dims.push_back(constInt(d, e.args[k]->loc, "a dimension"));
    }
    for (auto &kw : e.kwargs) {
      if (kw.first != "dims")
        fail(kw.second->loc, n + "() has no argument '" + kw.first + "'");
      Val d = expr(*kw.second);
      for (const Val &v : d.kind == Val::Tuple ? d.elems
                                               : std::vector<Val>{d})
        dims.push_back(constInt(v, kw.second->loc, "a dimension"));
    }
    if (n == "permute" && dims.empty())
      fail(e.loc, "permute() needs the new order of the dimensions");
    return transpose(x, dims, e.loc, e.args[1]->loc);
  }
  if (n == "reshape" || n == "view") {
    Args a = bindArgs(e, n, {"input", "shape", "can_reorder"}, 2);
    return reshapeTo(a.values[0], shapeArg(a.values[1], a.locs[1]), e.loc,
                     a.locs[0]);
  }
  if (n == "debug_barrier") {
    bindArgs(e, n, {}, 0);
    kd::DebugBarrierOp::create(b, lc);
    return Val();
  }
  if (n == "static_print") {
    // Prints its arguments when the kernel is compiled (a remark at the
    // call): constants by value, blocks and scalars by type.
    if (!e.kwargs.empty())
      fail(e.loc, "static_print() takes positional arguments only");
    std::string text;
    for (size_t k = 1; k < e.args.size(); ++k) {
      Val v = expr(*e.args[k]);
      std::string item;
      if (v.kind == Val::Str)
        item = v.s;
      else if (v.kind == Val::Int)
        item = std::to_string(v.i);
      else if (v.kind == Val::Bool)
        item = v.i ? "True" : "False";
      else if (v.kind == Val::Float) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", v.f);
        item = buf;
      } else
        item = describe(v);
      text += (k > 1 ? " " : "") + item;
    }
    emitRemark(lc) << "static_print: " << text;
    return Val();
  }
  if (n == "float") {
    // Python's float() of a constant: float('inf'), float('-inf'),
    // float('nan'), float(3).
    Args a = bindArgs(e, n, {"x"}, 1);
    const Val &v = a.values[0];
    if (v.kind == Val::Int || v.kind == Val::Bool)
      return Val::floating(double(v.i));
    if (v.kind == Val::Float)
      return v;
    if (v.kind == Val::Str) {
      std::string s = StringRef(v.s).trim().lower();
      bool neg = !s.empty() && s[0] == '-';
      if (!s.empty() && (s[0] == '-' || s[0] == '+'))
        s = s.substr(1);
      if (s == "inf" || s == "infinity")
        return Val::floating(neg ? -INFINITY : INFINITY);
      if (s == "nan")
        return Val::floating(NAN);
      char *end = nullptr;
      std::string full = (neg ? "-" : "") + s;
      double d = std::strtod(full.c_str(), &end);
      if (!full.empty() && !*end)
        return Val::floating(d);
    }
    fail(a.locs[0], "float() takes a number or a string such as 'inf', "
                    "'-inf' or 'nan', got " +
                        (v.kind == Val::Str ? "'" + v.s + "'" : describe(v)));
  }
  if (n == "clamp") {
    // Triton's tl.clamp(x, min, max): max(min(...)) with NaN in x not
    // propagated; min <= max is the caller's to keep.
    Args a = bindArgs(e, n, {"x", "min", "max"}, 3);
    auto [x, lo, hi] = unify3(a.values[0], a.values[1], a.values[2], e.loc);
    if (isFloat(x.getType()))
      return Val::runtime(arith::MinNumFOp::create(
          b, lc, arith::MaxNumFOp::create(b, lc, x, lo), hi));
    if (a.values[0].uns || a.values[1].uns || a.values[2].uns)
      return Val::runtime(arith::MinUIOp::create(
                              b, lc, arith::MaxUIOp::create(b, lc, x, lo), hi),
                          true);
    return Val::runtime(arith::MinSIOp::create(
        b, lc, arith::MaxSIOp::create(b, lc, x, lo), hi));
  }
  if (n == "umulhi") {
    // The high 32 bits of the unsigned 64-bit product of two i32 values.
    Args a = bindArgs(e, n, {"x", "y"}, 2);
    bool u = false;
    auto [x, y] = unify(a.values[0], a.values[1], e.loc, false, &u);
    if (!elemOf(x.getType()).isInteger(32))
      fail(e.loc, "umulhi() takes i32 values, got " + typeName(x.getType()));
    Type i64 = withShape(b.getI64Type(), shapeOf(x.getType()));
    mlir::Value wx = arith::ExtUIOp::create(b, lc, i64, x);
    mlir::Value wy = arith::ExtUIOp::create(b, lc, i64, y);
    mlir::Value p = arith::MulIOp::create(b, lc, wx, wy);
    mlir::Value sh = splatTo(
        arith::ConstantOp::create(b, lc, b.getI64Type(),
                                  b.getI64IntegerAttr(32)),
        p.getType(), e.loc);
    mlir::Value hi = arith::ShRUIOp::create(b, lc, p, sh);
    return Val::runtime(arith::TruncIOp::create(b, lc, x.getType(), hi), u);
  }
  if (n == "static_assert") {
    Args a = bindArgs(e, n, {"condition", "message"}, 1);
    const Val &c = a.values[0];
    if (!c.isConst())
      fail(a.locs[0], "static_assert() needs a compile-time condition");
    if (!c.i)
      fail(e.loc, "static_assert failed" +
                      (a.given[1] && a.values[1].kind == Val::Str
                           ? ": " + a.values[1].s
                           : std::string()));
    return Val();
  }
  if (n == "range")
    fail(e.loc, "range() is only allowed in 'for ... in range(...)'");
  // A dtype called on a value (Triton's tl.float32(x)): the value as that
  // type, a constant made in it, a block or scalar cast.
  {
    bool uns = false;
    if (auto t = dtypeNamed(n, &uns)) {
      if (e.args.size() != 2 || !e.kwargs.empty())
        fail(e.loc, n + "(x) takes one value");
      Val v = expr(*e.args[1]);
      if (v.kind != Val::Runtime)
        return Val::runtime(materialize(v, *t, e.args[1]->loc, uns), uns);
      return Val::runtime(cast(v.v, *t, e.loc, v.uns, uns), uns);
    }
  }
  lookup(n, callee.loc); // unknown name
  fail(e.loc, "cannot call '" + n + "'");
}

Val CodeGen::convertTo(const Val &self, const Args &a, size_t first, Loc l) {
  Location lc = loc(l);
  const Val &dtype = a.values[first];
  Type t = dtypeArg(dtype, a.locs[first]);
  bool tu = dtype.uns;
  bool bitcast = false;
  if (a.given[first + 2]) {
    const Val &bc = a.values[first + 2];
    if (bc.kind != Val::Bool && bc.kind != Val::Int)
      fail(a.locs[first + 2], "bitcast must be True or False");
    bitcast = bc.i != 0;
  }
  // fp_downcast_rounding: "rtne" (the default: round to nearest, ties to
  // even) or "rtz" (toward zero), for a float made a narrower float.
  bool towardZero = false;
  if (a.given[first + 1] && a.values[first + 1].kind != Val::None) {
    const Val &r = a.values[first + 1];
    if (r.kind != Val::Str || (r.s != "rtne" && r.s != "rtz"))
      fail(a.locs[first + 1],
           "fp_downcast_rounding must be \"rtne\" or "
           "\"rtz\", got " +
               (r.kind == Val::Str ? "\"" + r.s + "\"" : describe(r)));
    towardZero = r.s == "rtz";
  }
  if (bitcast) {
    if (a.given[first + 1] && a.values[first + 1].kind != Val::None)
      fail(a.locs[first + 1], "a bitcast takes no fp_downcast_rounding");
    // The same bits read as another type of the same width.
    mlir::Value x = self.kind == Val::Runtime ? self.v : runtime(self, l);
    Type from = elemOf(x.getType());
    if (isa<kd::PointerType>(from) || isa<kd::PointerType>(t) ||
        from.getIntOrFloatBitWidth() != t.getIntOrFloatBitWidth())
      fail(l, ".to(" + typeName(t) + ", bitcast=True) of " +
                  typeName(x.getType()) +
                  ": a bitcast needs types of the same width");
    if (from == t)
      return Val::runtime(x, tu);
    return Val::runtime(
        arith::BitcastOp::create(b, lc, withShape(t, shapeOf(x.getType())), x),
        tu);
  }
  if (self.isConst())
    return Val::runtime(materialize(self, t, l, tu), tu);
  if (self.kind != Val::Runtime)
    fail(l, ".to() applies to numbers and blocks, got " + describe(self));
  Type from = elemOf(self.v.getType());
  if (towardZero) {
    if (!isa<FloatType>(from) || !isa<FloatType>(t) ||
        from.getIntOrFloatBitWidth() <= t.getIntOrFloatBitWidth() || isFp8(t) ||
        isFp8(from))
      fail(a.locs[first + 1],
           "fp_downcast_rounding=\"rtz\" rounds a float to a narrower float "
           "(f32 or f64 to f16, bf16 or f32), not " +
               typeName(self.v.getType()) + " to " + typeName(t));
    return Val::runtime(truncTowardZero(self.v, t, l));
  }
  return Val::runtime(cast(self.v, t, l, self.uns, tu), tu);
}

mlir::Value CodeGen::truncTowardZero(mlir::Value x, Type elem, Loc l) {
  // Round to nearest even, then where that moved away from zero, take the
  // next value toward zero: the magnitude's bits less one (|y| > |x| >= 0,
  // so y is not a zero; an overflow to infinity becomes the largest finite
  // value; NaN compares false and stays NaN).
  Location lc = loc(l);
  Type to = withShape(elem, shapeOf(x.getType()));
  Type bitsType = withShape(b.getIntegerType(elem.getIntOrFloatBitWidth()),
                            shapeOf(x.getType()));
  mlir::Value y = arith::TruncFOp::create(b, lc, to, x);
  mlir::Value back = arith::ExtFOp::create(b, lc, x.getType(), y);
  mlir::Value away = arith::CmpFOp::create(b, lc, arith::CmpFPredicate::OGT,
                                           math::AbsFOp::create(b, lc, back),
                                           math::AbsFOp::create(b, lc, x));
  mlir::Value bits = arith::BitcastOp::create(b, lc, bitsType, y);
  mlir::Value one =
      splatTo(materialize(Val::integer(1), elemOf(bitsType), l), bitsType, l);
  mlir::Value lower = arith::BitcastOp::create(
      b, lc, to, arith::SubIOp::create(b, lc, bits, one));
  return arith::SelectOp::create(b, lc, away, lower, y);
}

Val CodeGen::transpose(const Val &x, SmallVector<int64_t> dims, Loc l, Loc xl) {
  if (x.kind != Val::Runtime || !isa<RankedTensorType>(x.v.getType()))
    fail(xl, "trans() needs a block, got " + describe(x));
  auto shape = shapeOf(x.v.getType());
  int64_t rank = shape.size();
  if (dims.empty()) {
    if (rank != 2)
      fail(l, "trans() of a " + std::to_string(rank) +
                  "-D block needs the order of its dimensions");
    dims = {1, 0};
  }
  if (int64_t(dims.size()) != rank)
    fail(l, "the order " + shapeText(dims) + " does not permute the " +
                std::to_string(rank) + " dimensions of " +
                shapeText(shape));
  SmallVector<bool> seen(rank, false);
  SmallVector<int32_t> order;
  SmallVector<int64_t> out;
  for (int64_t d : dims) {
    if (d < 0)
      d += rank;
    if (d < 0 || d >= rank || seen[d])
      fail(l, "the order " + shapeText(dims) + " does not permute the " +
                  std::to_string(rank) + " dimensions of " +
                  shapeText(shape));
    seen[d] = true;
    order.push_back(int32_t(d));
    out.push_back(shape[d]);
  }
  return Val::runtime(kd::TransOp::create(
                          b, loc(l), withShape(elemOf(x.v.getType()), out),
                          x.v, b.getDenseI32ArrayAttr(order)),
                      x.uns);
}

Val CodeGen::reshapeTo(const Val &x, ArrayRef<int64_t> shape, Loc l, Loc xl) {
  if (x.kind != Val::Runtime || !isa<RankedTensorType>(x.v.getType()))
    fail(xl, "reshape() needs a block, got " + describe(x));
  auto from = shapeOf(x.v.getType());
  int64_t n = 1, m = 1;
  for (int64_t d : from)
    n *= d;
  for (int64_t d : shape)
    m *= d;
  if (n != m)
    fail(l, "reshape() of " + shapeText(from) + " (" + std::to_string(n) +
                " elements) to " + shapeText(shape) + " (" +
                std::to_string(m) + ")");
  return Val::runtime(kd::ReshapeOp::create(
                          b, loc(l), withShape(elemOf(x.v.getType()), shape),
                          x.v),
                      x.uns);
}

std::tuple<mlir::Value, mlir::Value, mlir::Value>
CodeGen::unify3(const Val &a, const Val &c, const Val &d, Loc l) {
  auto [x, y] = unify(a, c, l);
  auto [x2, z] = unify(Val::runtime(x), d, l);
  auto [y2, z2] = unify(Val::runtime(y), Val::runtime(z), l);
  auto [x3, z3] = unify(Val::runtime(x2), Val::runtime(z2), l);
  return {x3, y2, z3};
}

Val CodeGen::minMax(bool isMin, const Expr &e, bool pythonBuiltin) {
  std::string n = isMin ? "minimum" : "maximum";
  Args a = pythonBuiltin ? bindArgs(e, n, {"x", "y"}, 2)
                         : bindArgs(e, n, {"x", "y", "propagate_nan"}, 2);
  // Triton's propagate_nan: PropagateNan.NONE (the default: a NaN operand
  // gives the other one, arith.minnumf) or PropagateNan.ALL (a NaN gives
  // NaN, arith.minimumf).
  bool propagateNan = false;
  if (!pythonBuiltin && a.given[2]) {
    int64_t mode = constInt(a.values[2], a.locs[2], "propagate_nan");
    if (mode != kPropagateNanNone && mode != kPropagateNanAll)
      fail(a.locs[2], n + "()'s propagate_nan must be PropagateNan.NONE or "
                          "PropagateNan.ALL");
    propagateNan = mode == kPropagateNanAll;
  }
  // Python's min/max are elementwise; a block and an integer literal is
  // most often a port of Triton's tl.max(x, 1), which reduces.
  if (pythonBuiltin && e.args[2]->kind == Expr::Int &&
      a.values[0].kind == Val::Runtime &&
      isa<RankedTensorType>(a.values[0].v.getType())) {
    std::string py = isMin ? "min" : "max";
    std::string axis = std::to_string(e.args[2]->intValue);
    emitWarning(loc(e.loc))
        << py << "(block, " << axis << ") is the elementwise " << n
        << " (Python's " << py << "); for the reduction along axis " << axis
        << " write " << py << "(x, axis=" << axis << ") or tl." << py
        << "(x, " << axis << ")";
  }
  return minOrMax(isMin, a.values[0], a.values[1], e.loc, propagateNan);
}

Val CodeGen::minOrMax(bool isMin, const Val &p, const Val &q, Loc l,
                      bool propagateNan) {
  if (p.isConst() && q.isConst()) {
    Val lt = compare("<", p, q, l);
    return (lt.i != 0) == isMin ? p : q;
  }
  bool u = false;
  auto [x, y] = unify(p, q, l, false, &u);
  Location lc = loc(l);
  if (u)
    return Val::runtime(isMin ? arith::MinUIOp::create(b, lc, x, y).getResult()
                              : arith::MaxUIOp::create(b, lc, x, y).getResult(),
                        true);
  Type elem = elemOf(x.getType());
  if (isFp8(elem)) {
    // fp8 is a storage type: compared in f32, the chosen operand converted
    // back (exactly: it is an fp8 value).
    Val r = minOrMax(isMin, Val::runtime(cast(x, b.getF32Type(), l)),
                     Val::runtime(cast(y, b.getF32Type(), l)), l,
                     propagateNan);
    return Val::runtime(cast(r.v, elem, l));
  }
  if (isFloat(x.getType()) && propagateNan)
    return Val::runtime(isMin ? arith::MinimumFOp::create(b, lc, x, y).getResult()
                              : arith::MaximumFOp::create(b, lc, x, y).getResult());
  if (isFloat(x.getType()))
    return Val::runtime(
        isMin ? arith::MinNumFOp::create(b, lc, x, y).getResult()
              : arith::MaxNumFOp::create(b, lc, x, y).getResult());
  return Val::runtime(isMin ? arith::MinSIOp::create(b, lc, x, y).getResult()
                            : arith::MaxSIOp::create(b, lc, x, y).getResult());
}

Val CodeGen::dotBuiltin(const Expr &e) {
  // Triton's dot(a, b, acc=None, input_precision=None, allow_tf32=None,
  // max_num_imprecise_acc=None, out_dtype=float32).
  const std::string n = "dot";
  Location lc = loc(e.loc);
  Args a = bindArgs(e, n,
                    {"a", "b", "acc", "input_precision", "allow_tf32",
                     "max_num_imprecise_acc", "out_dtype"},
                    2);
  mlir::Value x = a.values[0].kind == Val::Runtime ? a.values[0].v : Value();
  mlir::Value y = a.values[1].kind == Val::Runtime ? a.values[1].v : Value();
  if (!x || shapeOf(x.getType()).size() != 2 || !isFloat(x.getType()))
    fail(a.locs[0],
         "dot()'s a must be a 2-D float block, got " + describe(a.values[0]));
  if (!y || shapeOf(y.getType()).size() != 2 || !isFloat(y.getType()))
    fail(a.locs[1],
         "dot()'s b must be a 2-D float block, got " + describe(a.values[1]));
  auto sa = shapeOf(x.getType()), sb = shapeOf(y.getType());
  if (sa[1] != sb[0])
    fail(e.loc, "dot() of " + shapeText(sa) + " and " + shapeText(sb) +
                    ": inner dimensions differ");
  if (elemOf(x.getType()) != elemOf(y.getType()))
    fail(e.loc, "dot() operands have different types: " +
                    typeName(x.getType()) + " and " + typeName(y.getType()));
  if (sa[0] < 16 || sa[1] < 16 || sb[1] < 16)
    fail(e.loc, "dot() needs every dimension >= 16, got " + shapeText(sa) +
                    " x " + shapeText(sb));
  // out_dtype: f32 (the default), or f16 for f16 and fp8 operands. Kite
  // accumulates in f32 either way and rounds the result to f16 (more
  // accurate than the f16 accumulation of Triton's hardware path; not bit
  // for bit the same).
  Type outElem = b.getF32Type();
  if (a.given[6] && a.values[6].kind != Val::None) {
    outElem = dtypeArg(a.values[6], a.locs[6]);
    Type in = elemOf(x.getType());
    if (!outElem.isF32() && !(outElem.isF16() && (in.isF16() || isFp8(in))))
      fail(a.locs[6], "dot()'s out_dtype must be f32, or f16 for f16 and fp8 "
                      "operands, got " +
                          typeName(outElem) + " for " + typeName(in));
  }
  auto accType = RankedTensorType::get({sa[0], sb[1]}, b.getF32Type());
  auto outType = RankedTensorType::get({sa[0], sb[1]}, outElem);
  mlir::Value acc;
  if (a.given[2] && a.values[2].kind != Val::None) {
    if (a.values[2].kind != Val::Runtime ||
        a.values[2].v.getType() != Type(outType))
      fail(a.locs[2], "dot()'s acc must be " + typeName(outType) + ", got " +
                          describe(a.values[2]));
    acc = cast(a.values[2].v, b.getF32Type(), a.locs[2]);
  } else {
    acc = arith::ConstantOp::create(
        b, lc, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  }
  // max_num_imprecise_acc (Triton's fp8 knob: how many products the
  // hardware may add at reduced precision): Kite adds every product at f32,
  // so any value is met.
  if (a.given[5] && a.values[5].kind != Val::None &&
      constInt(a.values[5], a.locs[5], "max_num_imprecise_acc") < 0)
    fail(a.locs[5], "dot()'s max_num_imprecise_acc must be >= 0");
  // f32 operands without input_precision: the configured default
  // (Triton's tf32 unless KITE_F32_DEFAULT says otherwise); allow_tf32
  // (Triton's older spelling) True is tf32, False ieee.
  auto precision = elemOf(x.getType()).isF32()
                       ? *kd::symbolizeInputPrecision(options.inputPrecision)
                       : kd::InputPrecision::IEEE;
  bool givenPrecision = a.given[3] && a.values[3].kind != Val::None;
  bool givenTf32 = a.given[4] && a.values[4].kind != Val::None;
  if (givenPrecision && givenTf32)
    fail(a.locs[4], "dot() takes input_precision or allow_tf32, not both");
  if (givenPrecision) {
    const Val &p = a.values[3];
    if (p.kind != Val::Str || !kd::symbolizeInputPrecision(p.s).has_value())
      fail(a.locs[3], "input_precision must be \"ieee\", \"tf32\" or "
                      "\"tf32x3\"");
    precision = *kd::symbolizeInputPrecision(p.s);
  }
  if (givenTf32 && elemOf(x.getType()).isF32()) {
    const Val &t = a.values[4];
    if (t.kind != Val::Bool && t.kind != Val::Int)
      fail(a.locs[4], "dot()'s allow_tf32 must be True or False");
    precision = t.i ? kd::InputPrecision::TF32 : kd::InputPrecision::IEEE;
  }
  mlir::Value r = kd::DotOp::create(
      b, lc, accType, x, y, acc, kd::InputPrecisionAttr::get(ctx, precision));
  return Val::runtime(cast(r, outElem, e.loc));
}

} // namespace kite::frontend
