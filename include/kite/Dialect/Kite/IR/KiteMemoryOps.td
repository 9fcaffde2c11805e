//===- KiteMemoryOps.td - Memory, descriptors, debugging ----*- tablegen -*-===//
//
// Included by KiteOps.td (one dialect, one generated op list).
//
//===----------------------------------------------------------------------===//

#ifndef KITE_DIALECT_KITE_IR_KITEMEMORYOPS_TD
#define KITE_DIALECT_KITE_IR_KITEMEMORYOPS_TD

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
// Debugging
//===----------------------------------------------------------------------===//

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

#endif // KITE_DIALECT_KITE_IR_KITEMEMORYOPS_TD
