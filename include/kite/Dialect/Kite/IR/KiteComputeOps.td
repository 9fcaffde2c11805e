//===- KiteComputeOps.td - Random numbers, dot, reductions --*- tablegen -*-===//
//
// Included by KiteOps.td (one dialect, one generated op list).
//
//===----------------------------------------------------------------------===//

#ifndef KITE_DIALECT_KITE_IR_KITECOMPUTEOPS_TD
#define KITE_DIALECT_KITE_IR_KITECOMPUTEOPS_TD

//===----------------------------------------------------------------------===//
// Random numbers (Philox4x32-10, bit-exact with Triton)
//===----------------------------------------------------------------------===//

// `rounds`: Philox's rounds (Triton's n_rounds, default 10), 1 .. 64.
class Kite_RandomOp<string mnemonic> : Kite_Op<mnemonic, [Pure]> {
  let arguments = (ins AnyTypeOf<[I32, I64]>:$seed, Kite_IntLike:$offset,
                       DefaultValuedAttr<I32Attr, "10">:$rounds);
  let results = (outs Kite_ScalarOrBlock:$result);
  let assemblyFormat = "$seed `,` $offset attr-dict `:` type($seed) `,` "
                       "type($offset) `->` type($result)";
  let hasVerifier = 1;
}

def Kite_RandIntOp : Kite_RandomOp<"randint"> {
  let summary = "Random 32-bit words (Philox4x32-10)";
  let description = [{
    For each offset, the first output word of Philox4x32 with 10 rounds,
    bit-exact with Triton's `tl.randint(seed, offset)`. Key: the seed
    sign-extended to 64 bits (k0 = low, k1 = high word). Counter: c0 = the
    offset's low 32 bits, c1 = its high 32 bits (0 for i32 offsets),
    c2 = c3 = 0. Offsets are i32 or i64; the result is i32 with the
    offsets' shape. `rounds` (default 10) is Triton's `n_rounds`: the
    same stream with that many rounds (the key raised after each), e.g.
    7 as FlashAttention-2's dropout uses.

    ```mlir
    %r = kite.randint %seed, %offs : i32, tensor<1024xi32> -> tensor<1024xi32>
    ```
  }];
}

def Kite_RandInt4xOp : Kite_Op<"randint4x", [Pure]> {
  let summary = "The four Philox4x32-10 words of each offset";
  let description = [{
    Triton's `tl.randint4x(seed, offset)`: all four output words of the
    Philox4x32-10 block of `kite.randint` (whose result is word 0), each an
    i32 with the offsets' shape. One Philox evaluation gives all four.

    ```mlir
    %a, %b, %c, %d = kite.randint4x %seed, %offs : i32, tensor<64xi32> -> tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[I32, I64]>:$seed, Kite_IntLike:$offset,
                       DefaultValuedAttr<I32Attr, "10">:$rounds);
  let results = (outs Kite_ScalarOrBlock:$r0, Kite_ScalarOrBlock:$r1,
                      Kite_ScalarOrBlock:$r2, Kite_ScalarOrBlock:$r3);
  let assemblyFormat = "$seed `,` $offset attr-dict `:` type($seed) `,` "
                       "type($offset) `->` type($r0) `,` type($r1) `,` "
                       "type($r2) `,` type($r3)";
  let hasVerifier = 1;
}

def Kite_PhiloxOp : Kite_Op<"philox", [Pure,
    AllTypesMatch<["c0", "c1", "c2", "c3", "r0", "r1", "r2", "r3"]>]> {
  let summary = "Philox4x32 of four counter words";
  let description = [{
    Triton's `tl.philox(seed, c0, c1, c2, c3, n_rounds)`: the four output
    words of Philox4x32 with `rounds` rounds (default 10) for the counter
    (c0, c1, c2, c3), i32 blocks of one shape (or scalars), and the key of
    `kite.randint` (the seed sign-extended to 64 bits). `kite.randint4x`
    is this with (offset low, offset high, 0, 0).

    ```mlir
    %a, %b, %c, %d = kite.philox %seed, %c0, %c1, %c2, %c3 : i32, tensor<64xi32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[I32, I64]>:$seed, Kite_IntLike:$c0,
                       Kite_IntLike:$c1, Kite_IntLike:$c2, Kite_IntLike:$c3,
                       DefaultValuedAttr<I32Attr, "10">:$rounds);
  let results = (outs Kite_ScalarOrBlock:$r0, Kite_ScalarOrBlock:$r1,
                      Kite_ScalarOrBlock:$r2, Kite_ScalarOrBlock:$r3);
  let assemblyFormat = "$seed `,` $c0 `,` $c1 `,` $c2 `,` $c3 attr-dict `:` "
                       "type($seed) `,` type($c0)";
  let hasVerifier = 1;
}

def Kite_RandOp : Kite_RandomOp<"rand"> {
  let summary = "Uniform random floats in [0, 1) (Philox4x32-10)";
  let description = [{
    `kite.randint`'s word x as a signed i32, mapped to `~x` when negative,
    converted to f32 and multiplied by 4.6566127342e-10 (bits 0x2FFFFFFF):
    bit-exact with Triton's `tl.rand`. The result is f32 with the offsets'
    shape.

    ```mlir
    %u = kite.rand %seed, %offs : i32, tensor<1024xi32> -> tensor<1024xf32>
    ```
  }];
}

def Kite_RandNOp : Kite_RandomOp<"randn"> {
  let summary = "Standard normal random floats (Philox4x32-10, Box-Muller)";
  let description = [{
    Words 0 and 1 of Philox4x32-10 mapped to uniforms u1, u2 as in
    `kite.rand`, then `sqrt(-2 ln max(u1, 1e-7)) * cos(2 pi u2)`, as Triton's
    `tl.randn`. The result is f32 with the offsets' shape.

    ```mlir
    %g = kite.randn %seed, %offs : i64, tensor<256xi64> -> tensor<256xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Dot and reductions
//===----------------------------------------------------------------------===//

def Kite_DotOp : Kite_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "Block matrix product with accumulation";
  let description = [{
    `result = a * b + acc` for 2-D blocks a (MxK), b (KxN) and acc (MxN).
    a and b have the same element type, f32, f16 or bf16; the accumulator
    and result are f32. `precision` says how f32 inputs are multiplied:
    `ieee` (exact f32 products, the default), `tf32` or `tf32x3`; it is
    ignored for f16/bf16 inputs. Unlike Triton, whose default is tf32, Kite
    defaults to IEEE.

    `engine` says where a dot whose operands are not staged by a K loop's
    pipeline runs: `fma` (the default: register-tiled FMAs, or the generic
    path), `wgmma` (sm_90a, f16/bf16 operands: the operands' registers are
    stored into the swizzled layouts of shared memory and the product is
    issued as warpgroup MMAs, complete when the op returns; the result
    takes the wgmma accumulator layout) or `mma` (sm_80+: the same staging
    read with ldmatrix into mma.sync fragments; the mma.sync accumulator
    layout). kite-stage-dot-operands chooses it.

    ```mlir
    %c = kite.dot %a, %b, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %d = kite.dot %x, %y, %acc precision = tf32 : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    %e = kite.dot %a, %b, %acc engine = wgmma : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Kite_FloatBlock:$a, Kite_FloatBlock:$b,
                       Kite_FloatBlock:$acc,
                       DefaultValuedAttr<Kite_InputPrecisionAttr,
                           "::mlir::kite::InputPrecision::IEEE">:$precision,
                       DefaultValuedAttr<Kite_DotEngineAttr,
                           "::mlir::kite::DotEngine::FMA">:$engine);
  let results = (outs Kite_FloatBlock:$result);
  let assemblyFormat = "$a `,` $b `,` $acc (`precision` `=` $precision^)? "
                       "(`engine` `=` $engine^)? "
                       "attr-dict `:` type($a) `,` type($b) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// f32 operands multiplied as tf32 (wgmma and mma.sync take them so;
    /// both operands have one element type).
    bool isTf32() {
      return getA().getType().getElementType().isF32() &&
             getPrecision() == ::mlir::kite::InputPrecision::TF32;
    }
  }];
}

def Kite_ReduceOp : Kite_Op<"reduce", [Pure]> {
  let summary = "Reduce a block along one axis";
  let description = [{
    Combines the elements of a block along `axis` with `sum`, `max` or `min`
    (Triton's `tl.sum`/`tl.max`/`tl.min`), `xor`, `argmax`/`argmin`, or
    `custom`: the `combine` region's function of two elements (Triton's
    `tl.reduce` with a combine function), which must be associative and
    commutative (the GPU combines in a tree). The result drops that
    dimension; a 1-D block reduces to a scalar. Floats and integers (not i1)
    are accepted; integer max/min are signed. Float max/min propagate NaN.

    A custom reduce may take several blocks of one shape (Triton's
    `tl.reduce` of a tuple, e.g. Welford's mean, M2 and count): element i
    of each is reduced together, the region taking the two sides' elements
    (all of the first side, then all of the second) and yielding one of
    each; one result per block.

    ```mlir
    %s = kite.reduce sum %x axis 1 : tensor<64x128xf32> -> tensor<64xf32>
    %m = kite.reduce max %v axis 0 : tensor<1024xf32> -> f32
    %p = kite.reduce custom %v axis 0 : tensor<16xi32> -> i32 combine {
    ^bb0(%a: i32, %b: i32):
      %c = arith.muli %a, %b : i32
      kite.yield %c : i32
    }
    %mx, %i = kite.reduce custom %v, %idx axis 0 : tensor<16xf32>, tensor<16xi32> -> f32, i32 combine {
    ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
      %gt = arith.cmpf ogt, %b, %a : f32
      %m = arith.select %gt, %b, %a : f32
      %j = arith.select %gt, %bi, %ai : i32
      kite.yield %m, %j : f32, i32
    }
    ```
  }];
  let arguments = (ins Variadic<Kite_Block>:$srcs, Kite_ReduceKindAttr:$kind,
                       I32Attr:$axis);
  let results = (outs Variadic<Kite_ScalarOrBlock>:$results);
  let regions = (region AnyRegion:$combiner);
  let assemblyFormat = "$kind $srcs `axis` $axis attr-dict `:` type($srcs) "
                       "`->` type($results) (`combine` $combiner^)?";
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$src,
                   "::mlir::kite::ReduceKindAttr":$kind,
                   "::mlir::IntegerAttr":$axis), [{
      build($_builder, $_state, ::mlir::TypeRange{result},
            ::mlir::ValueRange{src}, kind, axis);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The first (for all kinds but a custom one of several: the only)
    /// block reduced, and its result.
    ::mlir::TypedValue<::mlir::RankedTensorType> getSrc() {
      return ::llvm::cast<::mlir::TypedValue<::mlir::RankedTensorType>>(
          getSrcs().front());
    }
    ::mlir::Value getResult() { return getOperation()->getResult(0); }
    ::mlir::Type getType() { return getResult().getType(); }
  }];
  let hasVerifier = 1;
}

def Kite_YieldOp : Kite_Op<"yield", [Pure, Terminator,
    ParentOneOf<["ReduceOp", "ScanOp", "MapElementwiseOp"]>]> {
  let summary = "The values of a combine region";
  let arguments = (ins Variadic<Kite_Scalar>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
  let extraClassDeclaration = [{
    /// The first (for all but a custom reduce of several blocks: the only)
    /// value.
    ::mlir::Value getValue() { return getValues().front(); }
  }];
}

def Kite_HintOp : Kite_Op<"hint", [Pure, AllTypesMatch<["src", "result"]>]> {
  let summary = "Facts the user asserts about an integer block (Triton's hints)";
  let description = [{
    Returns `src` unchanged and tells the analyses (AxisInfo) facts along
    the block's row-major index that they may not prove: `divisibility`
    (Triton's `tl.multiple_of`: the first value of each run is a multiple),
    `contiguity` (`tl.max_contiguous`: runs of that many consecutive
    values) and `constancy` (`tl.max_constancy`: runs of equal values). The
    GPU lowering trusts them; the interpreter checks them and reports a
    false one.

    ```mlir
    %o = kite.hint %offs {divisibility = 16 : i64, contiguity = 128 : i64} : tensor<128xi32>
    ```
  }];
  let arguments = (ins Kite_IntLike:$src, OptionalAttr<I64Attr>:$divisibility,
                       OptionalAttr<I64Attr>:$contiguity,
                       OptionalAttr<I64Attr>:$constancy);
  let results = (outs Kite_IntLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Kite_MapElementwiseOp : Kite_Op<"map_elementwise", [Pure]> {
  let summary = "A scalar function applied to each element of blocks";
  let description = [{
    Triton's `tl.map_elementwise(scalar_fn, *args)`: the `body` region,
    whose arguments are one element of each block (all of one shape), is
    run for every element, and its `kite.yield` gives that element of each
    result (blocks of the same shape). Unlike elementwise ops on whole
    blocks, the body may branch on its elements (`scf.if`): only the branch
    taken runs. It may use scalars defined outside (the kernel's
    arguments); it may not touch memory.

    With `pack` N (a power of two, Triton's `pack=`), each run of the body
    takes N consecutive elements (row-major) of each block, its arguments
    block by block (the first block's N elements, then the second's, ...),
    and yields N elements of each result in the same order.

    ```mlir
    %r = kite.map_elementwise %x : tensor<128xf32> -> tensor<128xf32> {
    ^bb0(%e: f32):
      %pos = arith.cmpf ogt, %e, %zero : f32
      %v = scf.if %pos -> (f32) {
        scf.yield %e : f32
      } else {
        %x1 = math.exp %e : f32
        scf.yield %x1 : f32
      }
      kite.yield %v : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Kite_Block>:$srcs,
                       DefaultValuedAttr<I64Attr, "1">:$pack);
  let results = (outs Variadic<Kite_Block>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$srcs (`pack` $pack^)? attr-dict `:` type($srcs) `->` "
                       "type($results) $body";
  let hasVerifier = 1;
}

def Kite_ScanOp : Kite_Op<"scan", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "Inclusive prefix sums or products along one axis";
  let description = [{
    Triton's `tl.cumsum` / `tl.cumprod`: element i along `axis` is the sum
    (product) of elements 0..i (with `reverse`, i..end). Integers wrap.
    `custom`: the `combine` region's function of two elements (Triton's
    `tl.associative_scan`), which must be associative; a custom scan may
    take several blocks of one shape (a tuple: element i of each combined
    together, the region taking the two sides' elements, all of the first
    side, then all of the second, and yielding one of each), one result per
    block, each of its block's type.
    Floats accumulate in the element type: the interpreter in order, the GPU
    in a tree over the bits of the index (within rounding of each other;
    equal when the sums are exact).

    ```mlir
    %c = kite.scan sum %x axis 0 : tensor<128xf32>
    %r = kite.scan prod %y axis 1 reverse : tensor<4x8xi32>
    %m, %i = kite.scan custom %v, %idx axis 0 : tensor<16xf32>, tensor<16xi32> combine {
    ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
      %gt = arith.cmpf ogt, %b, %a : f32
      %m = arith.select %gt, %b, %a : f32
      %j = arith.select %gt, %bi, %ai : i32
      kite.yield %m, %j : f32, i32
    }
    ```
  }];
  let arguments = (ins Variadic<Kite_Block>:$srcs, Kite_ScanKindAttr:$kind,
                       I32Attr:$axis, UnitAttr:$reverse);
  let results = (outs Variadic<Kite_Block>:$results);
  let regions = (region AnyRegion:$combiner);
  let assemblyFormat = "$kind $srcs `axis` $axis (`reverse` $reverse^)? "
                       "attr-dict `:` type($srcs) (`combine` $combiner^)?";
  let extraClassDeclaration = [{
    /// The first (for all kinds but a custom one of several: the only)
    /// block scanned, and its result.
    ::mlir::TypedValue<::mlir::RankedTensorType> getSrc() {
      return ::llvm::cast<::mlir::TypedValue<::mlir::RankedTensorType>>(
          getSrcs().front());
    }
    ::mlir::TypedValue<::mlir::RankedTensorType> getResult() {
      return ::llvm::cast<::mlir::TypedValue<::mlir::RankedTensorType>>(
          getOperation()->getResult(0));
    }
    ::mlir::RankedTensorType getType() { return getResult().getType(); }
  }];
  let hasVerifier = 1;
}

#endif // KITE_DIALECT_KITE_IR_KITECOMPUTEOPS_TD
