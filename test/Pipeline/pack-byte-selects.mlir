// RUN: kite-opt %s -kite-pack-byte-selects | FileCheck %s

// Bytes 0 and 1 of one word, kept when at least %t (unsigned), the select
// before the convert (attention.kite's dropout): one packed compare.
// CHECK-LABEL: llvm.func @one_word
// CHECK-NOT: llvm.select
// CHECK: %[[A:.*]] = llvm.fptrunc %arg1 : f32 to f16
// CHECK: %[[B:.*]] = llvm.fptrunc %arg2 : f32 to f16
// CHECK: %[[V0:.*]] = llvm.insertelement %[[A]]
// CHECK: %[[V:.*]] = llvm.insertelement %[[B]], %[[V0]]
// CHECK: %[[T:.*]] = llvm.intr.umin(%arg3, %{{.*}}) : (i32, i32) -> i32
// CHECK-NOT: umin
// CHECK: %[[SH:.*]] = llvm.shl %[[T]]
// CHECK: %[[TT:.*]] = llvm.or %[[T]], %[[SH]]
// CHECK: %[[M:.*]] = llvm.inline_asm "{ .reg .b32 %kb; prmt.b32 %kb, $1, $2, 16704; set.ge.u32.f16x2 $0, %kb, $3; }", "=r,r,r,r" %arg0, %{{.*}}, %[[TT]]
// CHECK: %[[BITS:.*]] = llvm.bitcast %[[V]] : vector<2xf16> to i32
// CHECK: %[[AND:.*]] = llvm.and %[[BITS]], %[[M]]
// CHECK: %[[R:.*]] = llvm.bitcast %[[AND]] : i32 to vector<2xf16>
// CHECK: llvm.return %[[R]]
llvm.func @one_word(%w: i32, %x0: f32, %x1: f32, %t: i32) -> vector<2xf16> {
  %c8 = llvm.mlir.constant(8 : i32) : i32
  %c255 = llvm.mlir.constant(255 : i32) : i32
  %zero = llvm.mlir.constant(0.0 : f32) : f32
  %p0 = llvm.mlir.constant(0 : i64) : i64
  %p1 = llvm.mlir.constant(1 : i64) : i64
  %undef = llvm.mlir.undef : vector<2xf16>
  %b0 = llvm.and %w, %c255 : i32
  %k0 = llvm.icmp "uge" %b0, %t : i32
  %s0 = llvm.select %k0, %x0, %zero : i1, f32
  %h0 = llvm.fptrunc %s0 : f32 to f16
  %sh = llvm.lshr %w, %c8 : i32
  %b1 = llvm.and %sh, %c255 : i32
  %k1 = llvm.icmp "uge" %b1, %t : i32
  %s1 = llvm.select %k1, %x1, %zero : i1, f32
  %h1 = llvm.fptrunc %s1 : f32 to f16
  %v0 = llvm.insertelement %h0, %undef[%p0 : i64] : vector<2xf16>
  %v1 = llvm.insertelement %h1, %v0[%p1 : i64] : vector<2xf16>
  llvm.return %v1 : vector<2xf16>
}

// Bytes 3 and 2 of two words, dropped when below %t (signed: the threshold
// clamped to [0, 256] from both sides), bf16 values selected after their
// convert, the zero first: the second word's byte is selector 4 + 2, the
// halves masked to their low bytes.
// CHECK-LABEL: llvm.func @two_words
// CHECK-NOT: llvm.select
// CHECK: llvm.intr.smax(%arg2
// CHECK: llvm.intr.smin
// CHECK: llvm.inline_asm "{ .reg .b32 %kb; prmt.b32 %kb, $1, $2, 1539; and.b32 %kb, %kb, 0x00FF00FF; set.ge.u32.f16x2 $0, %kb, $3; }", "=r,r,r,r" %arg0, %arg1
// CHECK: llvm.and
// CHECK: llvm.bitcast %{{.*}} : i32 to vector<2xbf16>
llvm.func @two_words(%w0: i32, %w1: i32, %t: i32, %y0: bf16, %y1: bf16) -> vector<2xbf16> {
  %c16 = llvm.mlir.constant(16 : i32) : i32
  %c24 = llvm.mlir.constant(24 : i32) : i32
  %c255 = llvm.mlir.constant(255 : i32) : i32
  %zero = llvm.mlir.constant(0.0 : bf16) : bf16
  %p0 = llvm.mlir.constant(0 : i64) : i64
  %p1 = llvm.mlir.constant(1 : i64) : i64
  %undef = llvm.mlir.undef : vector<2xbf16>
  %b0 = llvm.lshr %w0, %c24 : i32
  %k0 = llvm.icmp "slt" %b0, %t : i32
  %h0 = llvm.select %k0, %zero, %y0 : i1, bf16
  %sh = llvm.lshr %w1, %c16 : i32
  %b1 = llvm.and %c255, %sh : i32
  %k1 = llvm.icmp "sgt" %t, %b1 : i32
  %h1 = llvm.select %k1, %zero, %y1 : i1, bf16
  %v0 = llvm.insertelement %h0, %undef[%p0 : i64] : vector<2xbf16>
  %v1 = llvm.insertelement %h1, %v0[%p1 : i64] : vector<2xbf16>
  llvm.return %v1 : vector<2xbf16>
}

// Left alone: a negative zero (the mask would give +0), a strict compare
// (byte > t), a shift that is not a whole byte, a mask wider than a byte.
// CHECK-LABEL: llvm.func @not_these
// CHECK-NOT: llvm.inline_asm
// CHECK-COUNT-4: llvm.select
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.return
llvm.func @not_these(%w: i32, %x: f32, %t: i32) -> !llvm.array<2 x vector<2xf16>> {
  %c4 = llvm.mlir.constant(4 : i32) : i32
  %c255 = llvm.mlir.constant(255 : i32) : i32
  %c511 = llvm.mlir.constant(511 : i32) : i32
  %zero = llvm.mlir.constant(0.0 : f32) : f32
  %nzero = llvm.mlir.constant(-0.0 : f32) : f32
  %p0 = llvm.mlir.constant(0 : i64) : i64
  %p1 = llvm.mlir.constant(1 : i64) : i64
  %undef = llvm.mlir.undef : vector<2xf16>
  %b0 = llvm.and %w, %c255 : i32
  %k0 = llvm.icmp "uge" %b0, %t : i32
  %s0 = llvm.select %k0, %x, %nzero : i1, f32
  %h0 = llvm.fptrunc %s0 : f32 to f16
  %k1 = llvm.icmp "ugt" %b0, %t : i32
  %s1 = llvm.select %k1, %x, %zero : i1, f32
  %h1 = llvm.fptrunc %s1 : f32 to f16
  %v0 = llvm.insertelement %h0, %undef[%p0 : i64] : vector<2xf16>
  %v1 = llvm.insertelement %h1, %v0[%p1 : i64] : vector<2xf16>
  %sh = llvm.lshr %w, %c4 : i32
  %b2 = llvm.and %sh, %c255 : i32
  %k2 = llvm.icmp "uge" %b2, %t : i32
  %s2 = llvm.select %k2, %x, %zero : i1, f32
  %h2 = llvm.fptrunc %s2 : f32 to f16
  %b3 = llvm.and %w, %c511 : i32
  %k3 = llvm.icmp "uge" %b3, %t : i32
  %s3 = llvm.select %k3, %x, %zero : i1, f32
  %h3 = llvm.fptrunc %s3 : f32 to f16
  %u0 = llvm.insertelement %h2, %undef[%p0 : i64] : vector<2xf16>
  %u1 = llvm.insertelement %h3, %u0[%p1 : i64] : vector<2xf16>
  %a0 = llvm.mlir.undef : !llvm.array<2 x vector<2xf16>>
  %a1 = llvm.insertvalue %v1, %a0[0] : !llvm.array<2 x vector<2xf16>>
  %a2 = llvm.insertvalue %u1, %a1[1] : !llvm.array<2 x vector<2xf16>>
  llvm.return %a2 : !llvm.array<2 x vector<2xf16>>
}
