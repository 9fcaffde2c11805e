//===- CodeGenDotScaled.cpp - dot_scaled: microscaled operands ------------===//
//
// Triton's dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale,
// rhs_format, acc=None, fast_math=False, lhs_k_pack=True, rhs_k_pack=True,
// out_dtype=float32): the product of two blocks in OCP microscaling
// formats, as Triton runs it on GPUs without native microscaled MMA
// (Hopper, Ampere): each operand is upcast to bf16 (f16 when both are fp16)
// and multiplied by its scales, then an ordinary `dot` with f32
// accumulation. Here that is Kite ops the rest of the compiler already
// knows (conversions, broadcasts, reshapes, a kite.dot on the tensor
// cores):
//   - formats: "e4m3" / "e5m2" (fp8 blocks, or their bits as u8/i8),
//     "e2m1" (fp4: two a byte, the first element in the low nibble, packed
//     along K, or along M / N with lhs_k_pack / rhs_k_pack False), "bf16",
//     "fp16";
//   - scales: u8 e8m0 (2^(s - 127); 255 is NaN), one per 32 elements along
//     K: lhs_scale is [M, K / 32], rhs_scale [N, K / 32] (not transposed,
//     as in Triton), or None (a scale of 1).
// fp8 and fp4 values times a power of two are exact in bf16 (within its
// range), so the products are exact and summed in f32; fp16 operands
// beside another format round to bf16, as Triton's emulation does.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace kite::frontend {

namespace {

int64_t formatBits(const std::string &f) {
  if (f == "e2m1")
    return 4;
  if (f == "e4m3" || f == "e5m2")
    return 8;
  if (f == "bf16" || f == "fp16")
    return 16;
  return 0;
}

} // namespace

Val CodeGen::dotScaled(const Expr &e) {
  const std::string n = "dot_scaled";
  Location lc = loc(e.loc);
  Args a = bindArgs(e, n,
                    {"lhs", "lhs_scale", "lhs_format", "rhs", "rhs_scale",
                     "rhs_format", "acc", "fast_math", "lhs_k_pack",
                     "rhs_k_pack", "out_dtype"},
                    6);
  // fast_math: the products are exact either way.
  (void)flagArg(a, 7, n, "fast_math");
  if (a.given[10] && a.values[10].kind != Val::None &&
      !dtypeArg(a.values[10], a.locs[10]).isF32())
    fail(a.locs[10], n + "()'s out_dtype must be f32 (the accumulator's)");

  struct Operand {
    const char *name;
    size_t value, scale, format, pack;
    std::string fmt;
    mlir::Value v;   ///< the operand as written
    mlir::Value f32; ///< [M, K] (lhs) or [K, N] (rhs) in f32
  };
  Operand ops[2] = {{"lhs", 0, 1, 2, 8, "", {}, {}},
                    {"rhs", 3, 4, 5, 9, "", {}, {}}};
  for (Operand &o : ops) {
    const Val &f = a.values[o.format];
    if (f.kind != Val::Str || !formatBits(f.s))
      fail(a.locs[o.format], n + "()'s " + o.name +
                                 "_format must be \"e2m1\", \"e4m3\", "
                                 "\"e5m2\", \"bf16\" or \"fp16\"");
    o.fmt = f.s;
    const Val &x = a.values[o.value];
    if (x.kind != Val::Runtime || !isa<RankedTensorType>(x.v.getType()) ||
        shapeOf(x.v.getType()).size() != 2)
      fail(a.locs[o.value],
           n + "()'s " + o.name + " must be a 2-D block, got " + describe(x));
    Type el = elemOf(x.v.getType());
    bool bytes = el.isInteger(8);
    bool ok = o.fmt == "e2m1"   ? bytes
              : o.fmt == "e4m3" ? bytes || isa<Float8E4M3FNType>(el)
              : o.fmt == "e5m2" ? bytes || isa<Float8E5M2Type>(el)
              : o.fmt == "bf16" ? el.isBF16()
                                : el.isF16();
    if (!ok)
      fail(a.locs[o.value],
           n + "()'s " + o.name + " in format " + o.fmt +
               " must be a block of " +
               (o.fmt == "e2m1"   ? "u8 (two fp4 values a byte)"
                : o.fmt == "e4m3" ? "f8e4m3 (or its bits as u8)"
                : o.fmt == "e5m2" ? "f8e5m2 (or its bits as u8)"
                : o.fmt == "bf16" ? "bf16"
                                  : "f16") +
               ", got " + describe(x));
    o.v = x.v;
  }

  // Upcast each operand to f32 values of its logical shape.
  auto i32Block = [&](mlir::Value x, Loc l) {
    return cast(x, b.getI32Type(), l, /*fromUns=*/true);
  };
  auto constLike = [&](mlir::Value like, int64_t v) {
    auto t = llvm::cast<RankedTensorType>(like.getType());
    return arith::ConstantOp::create(
               b, lc, t,
               DenseElementsAttr::get(t,
                                      b.getIntegerAttr(t.getElementType(), v)))
        .getResult();
  };
  for (Operand &o : ops) {
    Loc l = a.locs[o.value];
    bool lhs = &o == &ops[0];
    if (o.fmt == "bf16" || o.fmt == "fp16") {
      o.f32 = cast(o.v, b.getF32Type(), l);
      continue;
    }
    if (o.fmt == "e4m3" || o.fmt == "e5m2") {
      mlir::Value x = o.v;
      if (elemOf(x.getType()).isInteger(8)) {
        Type f8 = o.fmt == "e4m3" ? Type(b.getType<Float8E4M3FNType>())
                                  : Type(b.getType<Float8E5M2Type>());
        x = arith::BitcastOp::create(b, lc, withShape(f8, shapeOf(x.getType())),
                                     x);
      }
      o.f32 = cast(x, b.getF32Type(), l);
      continue;
    }
    // e2m1: sign, 2 exponent bits (bias 1), 1 mantissa bit; each byte's low
    // nibble first. Its f32 bits: e == 0 ? (m ? 0.5 : 0) : 2^(e - 1) * (1 + m /
    // 2).
    mlir::Value bytesI32 = i32Block(o.v, l);
    auto nibble = [&](bool high) {
      mlir::Value x = bytesI32;
      if (high)
        x = arith::ShRUIOp::create(b, lc, x, constLike(x, 4));
      x = arith::AndIOp::create(b, lc, x, constLike(x, 15));
      mlir::Value ex = arith::AndIOp::create(
          b, lc, arith::ShRUIOp::create(b, lc, x, constLike(x, 1)),
          constLike(x, 3));
      mlir::Value m = arith::AndIOp::create(b, lc, x, constLike(x, 1));
      mlir::Value sign = arith::ShLIOp::create(
          b, lc, arith::ShRUIOp::create(b, lc, x, constLike(x, 3)),
          constLike(x, 31));
      mlir::Value normal = arith::OrIOp::create(
          b, lc,
          arith::ShLIOp::create(
              b, lc, arith::AddIOp::create(b, lc, ex, constLike(x, 126)),
              constLike(x, 23)),
          arith::ShLIOp::create(b, lc, m, constLike(x, 22)));
      mlir::Value sub =
          arith::MulIOp::create(b, lc, m, constLike(x, 0x3F000000));
      mlir::Value isSub = arith::CmpIOp::create(b, lc, arith::CmpIPredicate::eq,
                                                ex, constLike(x, 0));
      mlir::Value bits = arith::OrIOp::create(
          b, lc, arith::SelectOp::create(b, lc, isSub, sub, normal), sign);
      return arith::BitcastOp::create(
                 b, lc, withShape(b.getF32Type(), shapeOf(x.getType())), bits)
          .getResult();
    };
    mlir::Value lo = nibble(false), hi = nibble(true);
    SmallVector<int64_t> s(shapeOf(lo.getType()));
    SmallVector<int64_t> joined{s[0], s[1], 2};
    mlir::Value j =
        kd::JoinOp::create(b, lc, withShape(b.getF32Type(), joined), lo, hi);
    bool alongK = flagArg(a, o.pack, n, lhs ? "lhs_k_pack" : "rhs_k_pack",
                          /*deflt=*/true);
    // The packed dimension doubles: the last for lhs along K and rhs along
    // N, the first otherwise ([d0, d1, 2] -> [d0, 2, d1] -> [2 d0, d1]).
    bool packedLast = lhs ? alongK : !alongK;
    Val v = Val::runtime(j);
    if (packedLast) {
      v = reshapeTo(v, {s[0], s[1] * 2}, e.loc, l);
    } else {
      v = transpose(v, {0, 2, 1}, e.loc, l);
      v = reshapeTo(v, {s[0] * 2, s[1]}, e.loc, l);
    }
    o.f32 = v.v;
  }
  auto sa = shapeOf(ops[0].f32.getType()), sb = shapeOf(ops[1].f32.getType());
  int64_t M = sa[0], K = sa[1], N = sb[1];
  if (sb[0] != K)
    fail(e.loc, n + "(): the lhs holds " + shapeText(sa) +
                    " values and the rhs " + shapeText(sb) +
                    ": inner dimensions differ");
  if (M < 16 || N < 16 || K < 16)
    fail(e.loc, n + "() needs every dimension >= 16, got " + shapeText(sa) +
                    " x " + shapeText(sb));

  // Scales: 2^(s - 127) per 32 elements along K.
  for (Operand &o : ops) {
    const Val &sv = a.values[o.scale];
    if (!a.given[o.scale] || sv.kind == Val::None)
      continue;
    Loc l = a.locs[o.scale];
    bool lhs = &o == &ops[0];
    int64_t rows = lhs ? M : N;
    if (K % 32)
      fail(l, n + "(): scales need K a multiple of 32, got K = " +
                  std::to_string(K));
    if (sv.kind != Val::Runtime || !isa<RankedTensorType>(sv.v.getType()) ||
        !elemOf(sv.v.getType()).isInteger(8) ||
        shapeOf(sv.v.getType()) != ArrayRef<int64_t>{rows, K / 32})
      fail(l, n + "()'s " + o.name + "_scale must be a u8 block of shape [" +
                  std::to_string(rows) + ", " + std::to_string(K / 32) +
                  "] (e8m0, one per 32 elements along K" +
                  (lhs ? "" : "; rhs_scale is [N, K / 32], not transposed") +
                  "), got " + describe(sv));
    mlir::Value s32 = i32Block(sv.v, l);
    mlir::Value bits = arith::ShLIOp::create(b, lc, s32, constLike(s32, 23));
    // 0: 2^-127 (an f32 subnormal); 255: NaN.
    bits = arith::SelectOp::create(
        b, lc,
        arith::CmpIOp::create(b, lc, arith::CmpIPredicate::eq, s32,
                              constLike(s32, 0)),
        constLike(s32, 0x00400000), bits);
    bits = arith::SelectOp::create(
        b, lc,
        arith::CmpIOp::create(b, lc, arith::CmpIPredicate::eq, s32,
                              constLike(s32, 255)),
        constLike(s32, 0x7FC00000), bits);
    mlir::Value f = arith::BitcastOp::create(
        b, lc, withShape(b.getF32Type(), shapeOf(s32.getType())), bits);
    // lhs: [M, K/32] -> [M, K/32, 32] -> [M, K]; rhs: the small block
    // transposed first, [N, K/32] -> [K/32, N] -> [K/32, 32, N] -> [K, N].
    Val fv = Val::runtime(f);
    if (lhs) {
      fv = expandDims(fv, Val::integer(2), e.loc, l, l);
      fv = Val::runtime(broadcastTo(fv.v, {rows, K / 32, 32}, l));
      fv = reshapeTo(fv, {rows, K}, e.loc, l);
    } else {
      fv = transpose(fv, {1, 0}, e.loc, l);
      fv = expandDims(fv, Val::integer(1), e.loc, l, l);
      fv = Val::runtime(broadcastTo(fv.v, {K / 32, 32, rows}, l));
      fv = reshapeTo(fv, {K, rows}, e.loc, l);
    }
    o.f32 = arith::MulFOp::create(b, lc, o.f32, fv.v);
  }

  Type opElem = ops[0].fmt == "fp16" && ops[1].fmt == "fp16"
                    ? Type(b.getF16Type())
                    : Type(b.getBF16Type());
  mlir::Value x = cast(ops[0].f32, opElem, e.loc);
  mlir::Value y = cast(ops[1].f32, opElem, e.loc);
  auto accType = RankedTensorType::get({M, N}, b.getF32Type());
  mlir::Value acc;
  if (a.given[6] && a.values[6].kind != Val::None) {
    if (a.values[6].kind != Val::Runtime ||
        a.values[6].v.getType() != Type(accType))
      fail(a.locs[6], n + "()'s acc must be " + typeName(accType) + ", got " +
                          describe(a.values[6]));
    acc = a.values[6].v;
  } else {
    acc = arith::ConstantOp::create(
        b, lc, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  }
  return Val::runtime(kd::DotOp::create(
      b, lc, accType, x, y, acc,
      kd::InputPrecisionAttr::get(ctx, kd::InputPrecision::IEEE)));
}

} // namespace kite::frontend
