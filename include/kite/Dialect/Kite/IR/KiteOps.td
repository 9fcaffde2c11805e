//===- KiteOps.td - Kite dialect operations ----------------*- tablegen -*-===//
//
// The operations of the `kite` dialect. Their semantics follow Triton's `tt`
// dialect: a program reads its position in the grid (program_id), builds
// blocks of offsets (arange, splat, broadcast, expand_dims), turns them into
// blocks of pointers (addptr), moves data (load, store), and computes
// (arith/math on tensors, rand, dot, reduce).
//
//===----------------------------------------------------------------------===//

#ifndef KITE_DIALECT_KITE_IR_KITEOPS_TD
#define KITE_DIALECT_KITE_IR_KITEOPS_TD

include "kite/Dialect/Kite/IR/KiteDialect.td"
include "kite/Dialect/Kite/IR/KiteTypes.td"
include "kite/Dialect/Kite/IR/KiteAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// Grid
//===----------------------------------------------------------------------===//

class Kite_GridOp<string mnemonic> : Kite_Op<mnemonic, [Pure]> {
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
  let hasVerifier = 1;
}

def Kite_ProgramIdOp : Kite_GridOp<"program_id"> {
  let summary = "Index of this program along a grid axis";
  let description = [{
    Returns the index (i32) of the running program along grid axis 0, 1 or 2,
    like Triton's `tl.program_id(axis)`.

    ```mlir
    %pid = kite.program_id 0
    ```
  }];
}

def Kite_NumProgramsOp : Kite_GridOp<"num_programs"> {
  let summary = "Number of programs along a grid axis";
  let description = [{
    Returns the number of programs (i32) launched along grid axis 0, 1 or 2,
    like Triton's `tl.num_programs(axis)`.

    ```mlir
    %n = kite.num_programs 1
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Block construction
//===----------------------------------------------------------------------===//

def Kite_ArangeOp : Kite_Op<"arange", [Pure]> {
  let summary = "Block of consecutive integers";
  let description = [{
    Returns the 1-D block `[start, start+1, ..., end-1]` of i32. The bounds
    are constants and the length `end - start` is a power of two (at most
    2^20), as for Triton's `tl.arange`.

    ```mlir
    %r = kite.arange 0, 1024 : tensor<1024xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "$start `,` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Kite_SplatOp : Kite_Op<"splat", [Pure]> {
  let summary = "Block filled with one scalar";
  let description = [{
    Returns a block whose every element is the scalar operand. The result's
    element type is the operand's type.

    ```mlir
    %b = kite.splat %x : f32 -> tensor<1024xf32>
    %p = kite.splat %ptr : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    ```
  }];
  let arguments = (ins Kite_Scalar:$src);
  let results = (outs Kite_Block:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kite_BroadcastOp : Kite_Op<"broadcast", [Pure]> {
  let summary = "Broadcast a block along its size-1 dimensions";
  let description = [{
    Repeats the operand along each dimension where it has size 1 to reach the
    result's shape. Operand and result have the same rank and element type;
    every other dimension must match.

    ```mlir
    %b = kite.broadcast %a : tensor<1x64xf32> -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins Kite_Block:$src);
  let results = (outs Kite_Block:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Kite_TransOp : Kite_Op<"trans", [Pure]> {
  let summary = "Permute the dimensions of a block (Triton's tl.trans / permute)";
  let description = [{
    Result dimension i is operand dimension `order[i]`: element
    result[c_0, ..., c_n] = operand[c'] with c'[order[i]] = c_i. `order` is
    a permutation of the operand's dimensions; the element type is kept. On
    the GPU the elements move between threads through shared memory.

    ```mlir
    %t = kite.trans %a order [1, 0] : tensor<32x64xf32> -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Kite_Block:$src, DenseI32ArrayAttr:$order);
  let results = (outs Kite_Block:$result);
  let assemblyFormat = "$src `order` $order attr-dict `:` type($src) `->` "
                       "type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kite_GatherOp : Kite_Op<"gather", [Pure]> {
  let summary = "Elements of a block picked by an index block (Triton's tl.gather)";
  let description = [{
    `result[i0, .., ik, ..] = src[i0, .., index[i0, .., ik, ..], ..]` with
    `k` the axis: the result has the index's shape and the source's element
    type; index and source have one rank and agree on every dimension but
    the axis. An index outside `[0, src.shape[axis])` reads an unspecified
    element on the GPU (the interpreter reports it). On the GPU the source
    goes through shared memory once; each thread reads its elements.

    ```mlir
    %r = kite.gather %src[%idx] axis 1 : tensor<4x64xf32>, tensor<4x16xi32> -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Kite_Block:$src, Kite_Block:$index, I32Attr:$axis);
  let results = (outs Kite_Block:$result);
  let assemblyFormat = "$src `[` $index `]` `axis` $axis attr-dict `:` "
                       "type($src) `,` type($index) `->` type($result)";
  let hasVerifier = 1;
}

def Kite_HistogramOp : Kite_Op<"histogram", [Pure]> {
  let summary = "Counts of the values 0 .. n-1 in a 1-D block (Triton's tl.histogram)";
  let description = [{
    `result[b]` counts the elements of `src` equal to `b` (bins of width 1
    from 0; the result's length n is the number of bins), among those whose
    `mask` is set. Values outside `[0, n)` are not counted. On the GPU
    through shared-memory atomics.

    ```mlir
    %h = kite.histogram %x, %m : tensor<1024xi32>, tensor<1024xi1> -> tensor<64xi32>
    ```
  }];
  let arguments = (ins Kite_Block:$src, Optional<RankedTensorOf<[I1]>>:$mask);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "$src (`,` $mask^)? attr-dict `:` type($src) "
                       "(`,` type($mask)^)? `->` type($result)";
  let hasVerifier = 1;
}

def Kite_SortOp : Kite_Op<"sort", [Pure, InferTypeOpAdaptor]> {
  let summary = "A block sorted along its last dimension (Triton's tl.sort, tl.topk)";
  let description = [{
    Each row (along the last dimension, a power of two long) sorted in
    ascending order, or descending with `descending`. Floats in a total
    order: NaNs after every number (first when descending), -0.0 before
    0.0; a NaN comes out as the positive quiet NaN. Integers compare as
    signed, or as unsigned with `unsigned` (the frontend's u8 .. u64).

    With `k` (a power of two, at most the row's length) only the first k
    of each sorted row are kept: the result's last dimension is k
    (Triton's `tl.topk(x, k)` is `descending k`).

    With `merge` only the network's last stage runs (compare-exchanges at
    distances n/2, n/4, ..., 1 in the sort's direction): the sort of a row
    that is bitonic (ascending then descending, or the reverse), and that
    stage's output on any other row (Triton's `tl.bitonic_merge`).

    On the GPU a bitonic network over the block's layout: steps between
    a thread's registers, lane shuffles, and an exchange through shared
    memory for the bits that lie across warps.

    ```mlir
    %r = kite.sort %x dim 1 descending : tensor<4x64xf32>
    %u = kite.sort %y dim 0 unsigned : tensor<64xi32>
    %t = kite.sort %x dim 1 descending k 8 : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins Kite_Block:$src, I32Attr:$dim, UnitAttr:$descending,
                       UnitAttr:$unsigned_order, OptionalAttr<I64Attr>:$k,
                       UnitAttr:$merge);
  let results = (outs Kite_Block:$result);
  let assemblyFormat = "$src `dim` $dim (`descending` $descending^)? "
                       "(`unsigned` $unsigned_order^)? (`k` $k^)? "
                       "(`merge` $merge^)? attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Kite_FlipOp : Kite_Op<"flip", [Pure, AllTypesMatch<["src", "result"]>]> {
  let summary = "Reverse a block along one dimension (Triton's tl.flip)";
  let description = [{
    result[..., i, ...] = src[..., n - 1 - i, ...] along `dim` (of size n).
    On the GPU the elements move between threads through shared memory.

    ```mlir
    %r = kite.flip %x dim 0 : tensor<128xf32>
    ```
  }];
  let arguments = (ins Kite_Block:$src, I32Attr:$dim);
  let results = (outs Kite_Block:$result);
  let assemblyFormat = "$src `dim` $dim attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Kite_ConvertLayoutOp : Kite_Op<"convert_layout",
    [Pure, AllTypesMatch<["src", "result"]>]> {
  let summary = "The same block, spread over the threads another way";
  let description = [{
    The value of its operand. It marks where a block may change how its
    elements are spread over threads and registers: the operand keeps its
    producer's layout and the result takes its users' (Triton's
    ttg.convert_layout, without the layouts in the type). The GPU lowering
    moves the elements through shared memory when the two layouts differ,
    in vectors of up to 16 bytes with rows padded against bank conflicts;
    it is free when they agree.

    The KiteToGPU pass puts one before each store of a tensor-core dot's
    result (the epilogue), so that the accumulator's fragment layout is
    written out in 16-byte row-contiguous stores.

    ```mlir
    %c = kite.convert_layout %acc : tensor<128x128xf32>
    ```
  }];
  let arguments = (ins Kite_Block:$src);
  let results = (outs Kite_Block:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
}

def Kite_JoinOp : Kite_Op<"join", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "Two blocks side by side along a new last dimension of 2";
  let description = [{
    Triton's tl.join: result[..., 0] = lhs[...], result[..., 1] = rhs[...]
    (the operands have one shape and type; the result that shape with a
    trailing 2). On the GPU the elements move through shared memory.

    ```mlir
    %r = kite.join %a, %b : tensor<64xf32> -> tensor<64x2xf32>
    ```
  }];
  let arguments = (ins Kite_Block:$lhs, Kite_Block:$rhs);
  let results = (outs Kite_Block:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` "
                       "type($result)";
  let hasVerifier = 1;
}

def Kite_SplitOp : Kite_Op<"split", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "A block's last dimension of 2 taken apart";
  let description = [{
    Triton's tl.split, join's inverse: lhs[...] = src[..., 0],
    rhs[...] = src[..., 1] (the operand's last dimension has size 2). On the
    GPU the elements move through shared memory.

    ```mlir
    %a, %b = kite.split %x : tensor<64x2xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Kite_Block:$src);
  let results = (outs Kite_Block:$lhs, Kite_Block:$rhs);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($lhs)";
  let hasVerifier = 1;
}

def Kite_InlineAsmOp : Kite_Op<"inline_asm", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "PTX run once per element (Triton's inline_asm_elementwise)";
  let description = [{
    Runs `asm` (PTX, operands numbered as in CUDA's asm(): results first,
    then the arguments) with the LLVM `constraints` ("=r,r,r": one result,
    two 32-bit inputs) once per element of its operands, which are blocks of
    one shape or scalars; each result has that shape. `pure`: no side
    effects (it may be moved or removed); otherwise it runs as written.
    `pack` elements a call (Triton's): with pack > 1 every operand is a
    block, and each call takes `pack` elements of each operand and result,
    as registers: elements narrower than 32 bits packed into 32-bit ones
    (pack x bits a multiple of 32: f16 pairs, i8 quads), wider ones one a
    register; the constraints name every register. The interpreter cannot
    run it.

    ```mlir
    %r = kite.inline_asm "shf.l.wrap.b32 $0, $1, $2, $3;" "=r,r,r,r"
           pure (%a, %b, %c) : (tensor<128xi32>, tensor<128xi32>, i32)
           -> tensor<128xi32>
    ```
  }];
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints,
                       UnitAttr:$pure, DefaultValuedAttr<I32Attr, "1">:$pack,
                       Variadic<Kite_ScalarOrBlock>:$args);
  let results = (outs Variadic<Kite_ScalarOrBlock>:$results);
  let assemblyFormat = "$asm_string $constraints (`pure` $pure^)? "
                       "`(` $args `)` attr-dict `:` functional-type($args, $results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The outputs ("=..." entries) and inputs an LLVM constraint string
    /// names (the verifier and the frontend check them alike).
    static std::pair<size_t, size_t> countConstraints(::llvm::StringRef c);
    /// The registers a value of element type `element` takes in one call
    /// with `pack` elements: pack x bits / 32 below 32 bits, else pack (0
    /// when pack x bits is not a multiple of 32 below 32 bits).
    static int64_t registersPerCall(::mlir::Type element, int64_t pack);
  }];
}

def Kite_ReshapeOp : Kite_Op<"reshape", [Pure]> {
  let summary = "The same elements in row-major order, another shape";
  let description = [{
    Triton's tl.reshape / view: the operand's elements, in row-major order,
    as a block of the result's shape (same element count and type). Free
    when both layouts place the elements alike (the linear layouts do),
    else through shared memory.

    ```mlir
    %r = kite.reshape %a : tensor<4x16xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Kite_Block:$src);
  let results = (outs Kite_Block:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Kite_ExpandDimsOp : Kite_Op<"expand_dims", [Pure]> {
  let summary = "Insert a size-1 dimension";
  let description = [{
    Returns the operand with a new dimension of size 1 inserted at `axis`
    (0 <= axis <= rank), like `x[:, None]` (axis 1) or `x[None, :]` (axis 0).

    ```mlir
    %c = kite.expand_dims %r axis 1 : tensor<64xi32> -> tensor<64x1xi32>
    ```
  }];
  let arguments = (ins Kite_Block:$src, I32Attr:$axis);
  let results = (outs Kite_Block:$result);
  let assemblyFormat =
      "$src `axis` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

// The other ops, by seam: memory, tensor descriptors and the debug ops;
// random numbers, dots and reductions; and the ops the GPU schedules make
// (kite-stage-dot-operands, the TMA and warp-specialized schedules: not
// meant to be written by hand).
include "kite/Dialect/Kite/IR/KiteMemoryOps.td"
include "kite/Dialect/Kite/IR/KiteComputeOps.td"
include "kite/Dialect/Kite/IR/KiteScheduleOps.td"

#endif // KITE_DIALECT_KITE_IR_KITEOPS_TD
