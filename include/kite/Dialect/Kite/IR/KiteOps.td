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

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def Kite_AddPtrOp : Kite_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "Pointer plus element offsets";
  let description = [{
    Advances a pointer (or each pointer of a block) by an integer offset
    counted in elements of the pointee type, like `ptr + offsets` in Triton.
    A block of pointers takes a block of offsets of the same shape; a scalar
    pointer a scalar offset. Offsets are i32 or i64.

    ```mlir
    %q = kite.addptr %p, %offs : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    %s = kite.addptr %base, %n : !kite.ptr<f16>, i64
    ```
  }];
  let arguments = (ins Kite_PtrLike:$ptr, Kite_IntLike:$offset);
  let results = (outs Kite_PtrLike:$result);
  let assemblyFormat =
      "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kite_LoadOp : Kite_Op<"load", [AttrSizedOperandSegments,
                                   MemoryEffects<[MemRead]>]> {
  let summary = "Load from global memory, optionally masked";
  let description = [{
    Loads the value behind a pointer, or behind each pointer of a block.
    With a `mask` (i1, same shape as the pointers), masked-off elements are
    not read and take the value of `other`, a scalar or block of the loaded
    type (undefined when `other` is absent). `other` requires a mask.

    Custom syntax: operands are positional, `ptr[, mask[, other]]`; the mask,
    other and result types follow from the pointer type.

    ```mlir
    %x = kite.load %ptrs : tensor<1024x!kite.ptr<f32>>
    %y = kite.load %ptrs, %mask : tensor<1024x!kite.ptr<f32>>
    %z = kite.load %ptrs, %mask, %zero : tensor<1024x!kite.ptr<f32>>
    %s = kite.load %p : !kite.ptr<i32>
    ```
  }];
  let arguments = (ins Kite_PtrLike:$ptr, Optional<Kite_BoolLike>:$mask,
                       Optional<Kite_ScalarOrBlock>:$other);
  let results = (outs Kite_ScalarOrBlock:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$ptr, CArg<"::mlir::Value", "{}">:$mask,
                   CArg<"::mlir::Value", "{}">:$other)>
  ];
}

def Kite_StoreOp : Kite_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "Store to global memory, optionally masked";
  let description = [{
    Stores a value behind a pointer, or each element of a block behind the
    matching pointer. With a `mask` (i1, same shape), masked-off elements are
    not written. The value's type is the pointee type with the pointers'
    shape.

    Custom syntax: operands are positional, `ptr, value[, mask]`.

    ```mlir
    kite.store %ptrs, %v, %mask : tensor<1024x!kite.ptr<f32>>
    kite.store %p, %s : !kite.ptr<f32>
    ```
  }];
  let arguments = (ins Kite_PtrLike:$ptr, Kite_ScalarOrBlock:$value,
                       Optional<Kite_BoolLike>:$mask);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Kite_AtomicRMWOp : Kite_Op<"atomic_rmw",
                                [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Atomic read-modify-write of global memory (Triton's atomic_*)";
  let description = [{
    For each (unmasked) element, atomically replaces the value behind the
    pointer with `kind`(old, value) and returns the old value (masked-off
    elements return 0). Kinds: `add` (integers, f16, bf16, f32, f64), `max`
    and `min` (signed integers, f32, f64), `and`/`or`/`xor` (integers),
    `xchg` (32- and 64-bit types). `sem` orders it (relaxed, acquire,
    release, acq_rel; default acq_rel) and `scope` says for whom it is
    atomic (gpu, cta, sys; default gpu), as Triton's. In the IR they are
    the enums' numbers: sem relaxed 0, acquire 1, release 2, acq_rel 3;
    scope gpu 0, cta 1, sys 2.

    ```mlir
    %old = kite.atomic_rmw add %ptrs, %v, %mask : tensor<128x!kite.ptr<f32>>, tensor<128xf32>, tensor<128xi1> -> tensor<128xf32>
    %c = kite.atomic_rmw xchg %lock, %one {sem = 1 : i32} : !kite.ptr<i32>, i32 -> i32
    ```
  }];
  let arguments = (ins Kite_AtomicKindAttr:$kind, Kite_PtrLike:$ptr,
                       Kite_ScalarOrBlock:$value,
                       Optional<Kite_BoolLike>:$mask,
                       DefaultValuedAttr<Kite_MemSemanticAttr,
                                         "::mlir::kite::MemSemantic::AcqRel">:$sem,
                       DefaultValuedAttr<Kite_MemScopeAttr,
                                         "::mlir::kite::MemScope::GPU">:$scope);
  let results = (outs Kite_ScalarOrBlock:$result);
  let assemblyFormat = "$kind $ptr `,` $value (`,` $mask^)? attr-dict `:` "
                       "type($ptr) `,` type($value) (`,` type($mask)^)? "
                       "`->` type($result)";
  let hasVerifier = 1;
}

def Kite_AtomicCASOp : Kite_Op<"atomic_cas",
                               [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Atomic compare-and-swap (Triton's atomic_cas)";
  let description = [{
    For each element, atomically: if the value behind the pointer equals
    `cmp`, store `value`; return the old value. 32- and 64-bit types.

    ```mlir
    %old = kite.atomic_cas %lock, %zero, %one : !kite.ptr<i32>, i32, i32 -> i32
    ```
  }];
  let arguments = (ins Kite_PtrLike:$ptr, Kite_ScalarOrBlock:$cmp,
                       Kite_ScalarOrBlock:$value,
                       DefaultValuedAttr<Kite_MemSemanticAttr,
                                         "::mlir::kite::MemSemantic::AcqRel">:$sem,
                       DefaultValuedAttr<Kite_MemScopeAttr,
                                         "::mlir::kite::MemScope::GPU">:$scope);
  let results = (outs Kite_ScalarOrBlock:$result);
  let assemblyFormat = "$ptr `,` $cmp `,` $value attr-dict `:` type($ptr) `,` "
                       "type($cmp) `,` type($value) `->` type($result)";
  let hasVerifier = 1;
}

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

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

def Kite_MakeTensorDescOp : Kite_Op<"make_tensor_descriptor",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "A tensor descriptor from a base pointer, shape and strides";
  let description = [{
    Describes the tensor at `base` with `shape` and `strides` (in elements,
    one each per dimension of the result's block type), read and written in
    blocks of the block type's shape. The pointee is the block's element
    type.

    ```mlir
    %d = kite.make_tensor_descriptor %a, [%M, %K], [%sm, %c1] : !kite.ptr<f16>, [i32, i32], [i32, i64] -> !kite.tensordesc<tensor<128x64xf16>>
    ```
  }];
  let arguments = (ins Kite_PointerType:$base, Variadic<Kite_Int>:$shape,
                       Variadic<Kite_Int>:$strides);
  let results = (outs Kite_TensorDescType:$result);
  let assemblyFormat = "$base `,` `[` $shape `]` `,` `[` $strides `]` attr-dict "
                       "`:` type($base) `,` `[` type($shape) `]` `,` `[` type($strides) `]` "
                       "`->` type($result)";
  let hasVerifier = 1;
}

def Kite_DescriptorLoadOp : Kite_Op<"descriptor_load",
    [MemoryEffects<[MemRead]>]> {
  let summary = "Load the block of a tensor descriptor at some offsets";
  let description = [{
    The block of the descriptor's block shape whose first element is at
    `offsets` (i32, one per dimension); elements outside [0, shape) read as
    zero.

    ```mlir
    %x = kite.descriptor_load %d[%i, %k] : !kite.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Kite_TensorDescType:$desc, Variadic<I32>:$offsets);
  let results = (outs Kite_Block:$result);
  let assemblyFormat = "$desc `[` $offsets `]` attr-dict `:` type($desc) `->` type($result)";
  let hasVerifier = 1;
}

def Kite_DescriptorStoreOp : Kite_Op<"descriptor_store",
    [MemoryEffects<[MemWrite]>]> {
  let summary = "Store a block through a tensor descriptor at some offsets";
  let description = [{
    Writes `value` (of the descriptor's block type) at `offsets`; elements
    outside [0, shape) are not written.

    ```mlir
    kite.descriptor_store %d[%i, %j], %v : !kite.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16>
    ```
  }];
  let arguments = (ins Kite_TensorDescType:$desc, Variadic<I32>:$offsets,
                       Kite_Block:$value);
  let assemblyFormat = "$desc `[` $offsets `]` `,` $value attr-dict `:` type($desc) `,` type($value)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// TMA staging of dot operands (sm_90a)
//===----------------------------------------------------------------------===//
// Made by kite-stage-dot-operands from a K loop whose dot reads two
// descriptor loads; not meant to be written by hand. The descriptors are
// kernel parameters the runtime encodes as CUtensorMaps (the kernel's
// kite.tensor_maps attribute says how); each staging slot has an mbarrier.

def Kite_TmaInitOp : Kite_Op<"tma_init", [MemoryEffects<[MemWrite]>]> {
  let summary = "Initialize the staging slots' mbarriers";
  let description = [{
    One thread initializes `slots` "full" mbarriers, each completing a
    phase after `arrivals` arrivals and their bytes, and with
    `consumer_arrivals` > 0 as many "empty" ones (a warp-specialized loop:
    each consumer warp arrives when done with a slot); then every thread of
    the program (the producer warp included) synchronizes. With
    `cluster_size` > 1 (a kernel whose programs run in clusters, where
    copies are multicast and slots released across the cluster), every
    thread of the cluster synchronizes instead (barrier.cluster), so no
    program's copies reach a peer's barriers before they exist.
  }];
  let arguments = (ins I64Attr:$slots, I64Attr:$arrivals,
                       DefaultValuedAttr<I64Attr, "0">:$consumer_arrivals,
                       DefaultValuedAttr<I64Attr, "1">:$cluster_size);
  let assemblyFormat = "`slots` $slots `arrivals` $arrivals attr-dict";
  let hasVerifier = 1;
}

def Kite_WarpIsProducerOp : Kite_Op<"warp_is_producer", [Pure]> {
  let summary = "Whether this thread is in the producer warp";
  let description = [{
    In a warp-specialized kernel the program has one warp beyond its
    `num_warps` (which compute the blocks): the producer, which issues the
    TMA copies of a K loop (kite.tma_stage ... producer) and exits.
  }];
  let results = (outs I1:$result);
  let assemblyFormat = "attr-dict";
}

def Kite_ExitOp : Kite_Op<"exit", [MemoryEffects<[MemWrite]>]> {
  let summary = "End this thread (the producer warp, its copies issued)";
  let assemblyFormat = "attr-dict";
}

def Kite_ConsumerGroupOp : Kite_Op<"consumer_group", [Pure]> {
  let summary = "The consumer group of this thread (ping-pong)";
  let description = [{
    In a kernel whose tile loop runs on several consumer groups
    (`kite.consumer_groups` = G, `range(..., ping_pong=True)`), each group
    of `num_warps` warps computes every G-th tile; this is the group's
    index (0 .. G - 1), 0 in a kernel of one group.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

def Kite_TurnWaitOp : Kite_Op<"turn_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait until it is this consumer group's turn";
  let description = [{
    Ping-pong consumer groups issue their tiles' products in turns: a group
    waits here (before its K loop) until the group before it has passed it
    the turn (kite.turn_pass); group 0's first turn is passed by the last
    group at the kernel's start.
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Kite_TurnPassOp : Kite_Op<"turn_pass", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Pass the turn to the next consumer group";
  let description = [{
    Group g hands the turn to group (g + 1) % G without waiting (after its
    K loop has issued its last product, before waiting for it, so that the
    next group's products queue behind this one's and this group's
    epilogue runs while they do).
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Kite_ClusterBarrierOp : Kite_Op<"cluster_barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Synchronize every thread of the cluster (barrier.cluster)";
  let description = [{
    Each thread arrives (release) and waits (acquire) until every thread of
    its cluster that has not exited has arrived. Placed before a clustered
    kernel returns, so that no program exits while a peer may still
    release its slots (remote mbarrier arrivals) or copy into them.
  }];
  let assemblyFormat = "attr-dict";
}

def Kite_TmaReleaseOp : Kite_Op<"tma_release", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "A consumer warp is done with a staging slot";
  let description = [{
    When `pred` holds, each warp of the program arrives (once) on slot
    `slot`'s empty mbarrier: the producer may refill it. With
    `cluster_size` > 1 it arrives on that barrier of every program of its
    cluster (whose producers multicast into this program's slots).
  }];
  let arguments = (ins I32:$slot, I1:$pred,
                       DefaultValuedAttr<I64Attr, "1">:$cluster_size);
  let assemblyFormat = "`slot` $slot `if` $pred attr-dict";
}

def Kite_TmaStageOp : Kite_Op<"tma_stage", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Start the TMA copy of a dot operand block into a staging slot";
  let description = [{
    When `pred` holds, one thread of the program expects the block's bytes
    on slot `slot`'s mbarrier (an arrival) and starts TMA copies
    (cp.async.bulk.tensor) of the descriptor's block at `offsets` into
    operand `operand` (0: A, 1: B) of the slot, in the swizzled layout
    wgmma reads (SwizzledStaging of a dot of shape `dot_shape`); elements
    outside the tensor become zero. `desc` is a kernel parameter (a
    CUtensorMap). With `producer`, the producer warp's first thread issues
    them (a warp-specialized loop). With `transposed` (B only) the block is
    B's transpose, N x K, staged K-major. With `multicast` = n > 1 (a
    kernel in clusters of n programs, which all stage this very block at
    this point: kite-stage-dot-operands proved it) each program copies 1/n
    of the block's panels into the slot of every program of the cluster
    (`.multicast::cluster`), signalling each one's barrier; each program
    still expects the whole block's bytes.
  }];
  let arguments = (ins Kite_TensorDescType:$desc, Variadic<I32>:$offsets,
                       I1:$pred, I32:$slot, I32Attr:$operand,
                       DenseI64ArrayAttr:$dot_shape, UnitAttr:$producer,
                       UnitAttr:$transposed,
                       DefaultValuedAttr<I64Attr, "1">:$multicast);
  let assemblyFormat = "$desc `[` $offsets `]` `if` $pred `slot` $slot "
                       "`operand` $operand `dot` $dot_shape (`producer` $producer^)? "
                       "(`transposed` $transposed^)? attr-dict `:` type($desc)";
  let hasVerifier = 1;
}

def Kite_TmaStoreOp : Kite_Op<"tma_store", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Store a block through a tensor map with TMA";
  let description = [{
    kite.descriptor_store on sm_90a, made by kite-lower-descriptors when the
    descriptor can be a CUtensorMap (a kernel parameter, as for
    kite.tma_stage): every thread writes its registers of `value` into
    shared memory in the swizzled panels a TMA box reads (the layout of a
    SwizzledStaging A operand of `value`'s shape), then one thread stores
    the panels with cp.async.bulk.tensor and waits until they have been
    read. Elements outside the tensor are not written.

    ```mlir
    kite.tma_store %map[%i, %j], %v : !kite.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16>
    ```
  }];
  let arguments = (ins Kite_TensorDescType:$desc, Variadic<I32>:$offsets,
                       Kite_Block:$value);
  let assemblyFormat = "$desc `[` $offsets `]` `,` $value attr-dict `:` type($desc) `,` type($value)";
  let hasVerifier = 1;
}

def Kite_TmaWaitOp : Kite_Op<"tma_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait for a staging slot's TMA copies, then synchronize";
  let description = [{
    Waits until slot `slot`'s mbarrier (the full one; with `empty`, the
    empty one) has completed the phase of parity `phase`, then, unless
    `nosync`, synchronizes all threads of the program (everyone is done with
    the slot about to be refilled).
  }];
  let arguments = (ins I32:$slot, I32:$phase, UnitAttr:$empty,
                       UnitAttr:$nosync);
  let assemblyFormat = "`slot` $slot `phase` $phase (`empty` $empty^)? "
                       "(`nosync` $nosync^)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Asynchronous staging of dot operands (GPU scheduling)
//===----------------------------------------------------------------------===//
// Made by kite-stage-dot-operands from a K loop's loads and dot; not meant
// to be written by hand. A dot of shape [M, N, K] owns `num_stages` slots of
// shared memory, each holding its A block (row-major, rows padded to K + 4
// elements) and its B block (row-major), as f32.

def Kite_AsyncStageOp : Kite_Op<"async_stage",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Start copying a dot operand block into a staging slot";
  let description = [{
    Starts asynchronous copies (cp.async) of the block behind `ptr` into
    operand `operand` (0: A, 1: B) of staging slot `slot` of a dot of shape
    `dot_shape` = [M, N, K]. Masked-off elements (`mask`, same shape) are
    not read and become 0. The copies complete at a later kite.async_wait.
    `engine` says which staging layout the slot has: `fma` (the default:
    f32 blocks, the register-tiled FMA dot's DotStaging), `wgmma` (f16 or
    bf16 blocks in the swizzled layouts wgmma reads, SwizzledStaging; f32
    blocks multiplied as tf32 likewise, but B K-major, as wgmma cannot
    transpose tf32), or `mma` (the same swizzled layouts, B N-major).
    With `transposed` (B, wgmma only) the block is B's transpose, N x K
    with K contiguous (`dot(a, trans(b))`): it is staged K-major, each row
    of the block a row of the staging.
    With `b_place = [offset, bytes]` (B, wgmma only) the slot holds no A
    (the dot reads A from registers): B lies at `offset` bytes into slots
    of `bytes` each, which may hold the Bs of several dots of a loop.

    ```mlir
    kite.async_stage %a_ptrs, %mask slot %s operand 0 dot [128, 128, 32] : tensor<128x32x!kite.ptr<f32>>, tensor<128x32xi1>
    kite.async_stage %b_ptrs, %mask slot %s operand 1 dot [128, 128, 64] engine = wgmma : tensor<64x128x!kite.ptr<f16>>, tensor<64x128xi1>
    ```
  }];
  let arguments = (ins RankedTensorOf<[Kite_PointerType]>:$ptr,
                       RankedTensorOf<[I1]>:$mask, I32:$slot,
                       I32Attr:$operand, DenseI64ArrayAttr:$dot_shape,
                       DefaultValuedAttr<Kite_DotEngineAttr,
                           "::mlir::kite::DotEngine::FMA">:$engine,
                       UnitAttr:$transposed,
                       OptionalAttr<DenseI64ArrayAttr>:$b_place);
  let assemblyFormat = "$ptr `,` $mask `slot` $slot `operand` $operand "
                       "`dot` $dot_shape (`engine` `=` $engine^)? "
                       "(`transposed` $transposed^)? "
                       "(`b_place` $b_place^)? attr-dict "
                       "`:` type($ptr) `,` type($mask)";
  let hasVerifier = 1;
}

def Kite_AsyncCopyOp : Kite_Op<"async_copy",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Start copying a block into a ring of shared-memory slots";
  let description = [{
    Starts asynchronous copies (cp.async, 4 to 16 bytes each) of the block
    behind `ptr` into slot `slot` of a ring of `slots` slots of `place[1]`
    bytes each, at `place[0]` bytes into the slot, in the block staging
    layout (row-major, 16-byte chunks swizzled within 128-byte lines:
    docs/lowering.md, "Staged loads"). Masked-off elements are not read
    and become 0. The copies complete at a later kite.async_wait; a
    kite.staged_load of the same place reads the block back in any layout.
    kite-stage-dot-operands makes these for the loads a dot's operands are
    computed from (dot_scaled's bytes): the loads then run iterations ahead
    of the conversions that read them.

    ```mlir
    kite.async_copy %ptrs, %mask slot %s place [0, 16384] slots 3 : tensor<128x64x!kite.ptr<i8>>, tensor<128x64xi1>
    ```
  }];
  let arguments = (ins RankedTensorOf<[Kite_PointerType]>:$ptr,
                       RankedTensorOf<[I1]>:$mask, I32:$slot,
                       DenseI64ArrayAttr:$place, I64Attr:$slots);
  let assemblyFormat = "$ptr `,` $mask `slot` $slot `place` $place "
                       "`slots` $slots attr-dict `:` type($ptr) `,` type($mask)";
  let hasVerifier = 1;
}

def Kite_StagedLoadOp : Kite_Op<"staged_load", [MemoryEffects<[MemRead]>]> {
  let summary = "Read a block from a ring slot that kite.async_copy filled";
  let description = [{
    The block kite.async_copy placed at `place` ([offset, slot bytes]) of
    slot `slot` of a ring of `slots`, read into registers in the result's
    own layout (vector loads of each thread's contiguous runs). The copies
    must have completed (a kite.async_wait in between).

    ```mlir
    %a = kite.staged_load slot %s place [0, 16384] slots 3 : tensor<128x64xi8>
    ```
  }];
  let arguments = (ins I32:$slot, DenseI64ArrayAttr:$place, I64Attr:$slots);
  let results = (outs RankedTensorOf<[Kite_Float, Kite_Int]>:$result);
  let assemblyFormat = "`slot` $slot `place` $place `slots` $slots attr-dict "
                       "`:` type($result)";
  let hasVerifier = 1;
}

def Kite_StageOperandOp : Kite_Op<"stage_operand",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Store a dot operand from registers into a ring slot";
  let description = [{
    Stores `value`, operand `operand` (0: A, M x K; 1: B, K x N) of a dot
    of shape `dot_shape` = [M, N, K], into slot `slot` of a ring of
    `slots` slots of `place[1]` bytes, in the swizzled operand layout wgmma
    reads (SwizzledStaging: A K-major, B N-major), then fences the stores
    for the async proxy and waits for every thread of the program: after
    it a kite.dot_staged reading the same place may be issued. Slot s lies
    at `place[0] + s * place[1]` bytes into the staging: a place[0] below
    place[1] puts the block inside the slots of another ring, a larger
    one starts a ring of its own there. kite-stage-dot-operands
    makes these for a K loop's dot whose B is computed in the loop (an int8
    weight block converted to f16): the product then runs asynchronously,
    waited for one iteration later, while the next block is converted.

    ```mlir
    kite.stage_operand %b slot %s place [98304, 16384] slots 2 operand 1 dot [128, 128, 64] : tensor<64x128xf16>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F16, BF16]>:$value, I32:$slot,
                       DenseI64ArrayAttr:$place, I64Attr:$slots,
                       I32Attr:$operand, DenseI64ArrayAttr:$dot_shape);
  let assemblyFormat = "$value `slot` $slot `place` $place `slots` $slots "
                       "`operand` $operand `dot` $dot_shape attr-dict `:` "
                       "type($value)";
  let hasVerifier = 1;
}

def Kite_PrintOp : Kite_Op<"print", [MemoryEffects<[MemWrite]>]> {
  let summary = "Print values from the device (Triton's device_print)";
  let description = [{
    Prints each element of each argument on its own line:
    `pid (x, y, z) idx (i, j) PREFIX: VALUE` (scalars without `idx`), in
    hexadecimal with `hex`; `unsigned_args` (one flag an argument) prints
    those integers as unsigned. On the GPU through `vprintf` (the output
    appears when the host synchronizes); in the interpreter on standard
    output.

    ```mlir
    kite.print "x" %x : tensor<4xf32>
    ```
  }];
  let arguments = (ins StrAttr:$prefix, UnitAttr:$hex,
                       Variadic<Kite_ScalarOrBlock>:$args,
                       OptionalAttr<DenseBoolArrayAttr>:$unsigned_args);
  let assemblyFormat = "$prefix (`hex` $hex^)? ($args^ `:` type($args))? attr-dict";
}

def Kite_AssertOp : Kite_Op<"assert", [MemoryEffects<[MemWrite]>]> {
  let summary = "Check a condition on the device (Triton's device_assert)";
  let description = [{
    Fails the launch when an element of `condition` is false, naming the
    message, the source location, the program and the element: on the GPU
    through `__assertfail` (the launch then fails with
    CUDA_ERROR_ASSERT), in the interpreter as an error at the op.

    ```mlir
    kite.assert %ok, "x must be positive" : tensor<128xi1>
    ```
  }];
  let arguments = (ins Kite_BoolLike:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` type($condition)";
}

def Kite_AssumeOp : Kite_Op<"assume", [MemoryEffects<[MemWrite]>]> {
  let summary = "A condition the compiler may take as true (Triton's tl.assume)";
  let description = [{
    Every element of `condition` is true; code after it may be compiled on
    that premise (`llvm.intr.assume` on the GPU: `pid >= 0` lets a division
    by a constant be unsigned, `n % 16 == 0` ...). A false condition is
    undefined behaviour on the GPU; the interpreter reports it.

    ```mlir
    kite.assume %nonneg : i1
    ```
  }];
  let arguments = (ins Kite_BoolLike:$condition);
  let assemblyFormat = "$condition attr-dict `:` type($condition)";
}

def Kite_DebugBarrierOp : Kite_Op<"debug_barrier",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Synchronize the threads of a program (Triton's debug_barrier)";
  let description = [{
    Every thread of the program waits here until all have arrived, and
    their earlier memory accesses are visible to each other (`bar.sync` on
    the GPU; nothing to do in the interpreter, which runs a program's
    block operations one after another). Like Triton's, it must be reached
    by all threads (not under a condition that differs between them).

    ```mlir
    kite.debug_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Kite_AsyncCommitOp : Kite_Op<"async_commit",
    [MemoryEffects<[MemWrite]>]> {
  let summary = "Close the group of copies started since the last commit";
  let assemblyFormat = "attr-dict";
}

def Kite_AsyncWaitOp : Kite_Op<"async_wait",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait for staged copies, then synchronize the program";
  let description = [{
    Waits until at most `pending` of this thread's committed copy groups are
    still in flight, then synchronizes all threads of the program: the
    completed groups are visible to every thread, and every thread has
    finished what it did before (reads of a slot about to be refilled).
    With `async_proxy`, the completed copies are also made visible to the
    async proxy (fence.proxy.async) before the barrier: wgmma reads shared
    memory through it.
  }];
  let arguments = (ins I32Attr:$pending, UnitAttr:$async_proxy);
  let assemblyFormat = "$pending (`async_proxy` $async_proxy^)? attr-dict";
}

def Kite_DotStagedOp : Kite_Op<"dot_staged", [MemoryEffects<[MemRead]>,
    AllTypesMatch<["acc", "result"]>, AttrSizedOperandSegments]> {
  let summary = "Block matrix product of the operands in a staging slot";
  let description = [{
    `result = A * B + acc` with A (MxK) and B (KxN) the operands staged in
    slot `slot` of `stages` (M and N from the accumulator, K = `k`).
    With `engine = wgmma` the operands are `operand_type` (f16 or bf16, or
    f32 multiplied as tf32) in the swizzled staging and the product is issued as asynchronous warpgroup
    MMAs: the result may only be read after a kite.dot_wait of it (which
    the loop that carries it also passes through). With `engine = mma` the
    operands are `operand_type` (f16, bf16, or f32 multiplied as tf32) in
    the same swizzled staging, read with ldmatrix (and ld.shared for tf32's
    B) into the fragments of warp-synchronous mma.sync instructions; the
    result is complete when the op returns. `b_k_major` (wgmma only): the
    slot's B is K-major (tf32, which wgmma cannot transpose, and a B staged
    from its transpose); otherwise N-major.
    With `a` (wgmma, f16 or bf16) A is that block, read from registers
    (wgmma's register layout for A; attention's q and p), and the slot
    holds only B, placed as `b_place = [offset, bytes]` says (see
    kite.async_stage). With `a_place` (and `b_place`) A lies in the slot at
    that offset instead (a block kite.async_copy placed in the block
    staging layout where that is wgmma's K-major swizzle). With `b_slot`
    (and both places) B lies in a ring of its own, which a
    kite.stage_operand filled: slot `b_slot`, `b_place = [start, slot
    bytes]`, the ring starting `start` bytes into the staging (after
    A's ring). The rings of such a dot are sized by the ops that fill them.
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$acc, I32:$slot, I64Attr:$k,
                       I64Attr:$stages,
                       DefaultValuedAttr<Kite_DotEngineAttr,
                           "::mlir::kite::DotEngine::FMA">:$engine,
                       OptionalAttr<TypeAttr>:$operand_type,
                       UnitAttr:$b_k_major,
                       Optional<RankedTensorOf<[F16, BF16]>>:$a,
                       OptionalAttr<DenseI64ArrayAttr>:$b_place,
                       OptionalAttr<DenseI64ArrayAttr>:$a_place,
                       Optional<I32>:$b_slot);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = "$acc (`a` $a^ `:` type($a))? `slot` $slot "
                       "(`b_slot` $b_slot^)? `of` $stages `k` $k "
                       "(`engine` `=` $engine^)? (`b_k_major` $b_k_major^)? "
                       "(`a_place` $a_place^)? (`b_place` $b_place^)? "
                       "attr-dict `:` type($acc)";
  let hasVerifier = 1;
}

def Kite_DotWaitOp : Kite_Op<"dot_wait", [MemoryEffects<[MemRead, MemWrite]>,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "Wait for asynchronous dots (wgmma) to complete";
  let description = [{
    Waits until at most `pending` of the asynchronous dots this thread
    issued (kite.dot_staged with engine = wgmma) are still running; returns
    `acc`, which is then complete (pending = 0) or still being accumulated
    into by the most recent `pending` dots. Uses of the accumulator go
    through the result, so they cannot move above the wait.

    ```mlir
    %r = kite.dot_wait %acc pending 1 : tensor<128x128xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$acc, I32Attr:$pending);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = "$acc `pending` $pending attr-dict `:` type($acc)";
}

#endif // KITE_DIALECT_KITE_IR_KITEOPS_TD
