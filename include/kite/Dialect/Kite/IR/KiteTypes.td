//===- KiteTypes.td - Kite dialect types -------------------*- tablegen -*-===//
//
// The global pointer type and the type constraints shared by Kite's ops.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_DIALECT_KITE_IR_KITETYPES_TD
#define KITE_DIALECT_KITE_IR_KITETYPES_TD

include "kite/Dialect/Kite/IR/KiteDialect.td"
include "mlir/IR/BuiltinTypes.td"

class Kite_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Kite_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Kite_PointerType : Kite_Type<"Pointer", "ptr"> {
  let summary = "Pointer into global memory";
  let description = [{
    A pointer to a scalar in the GPU's global memory. The pointee is one of
    i1, i8, i16, i32, i64, f16, bf16, f32 or f64. Blocks of pointers are
    ranked tensors of this type, e.g. `tensor<1024x!kite.ptr<f32>>`.

    ```mlir
    !kite.ptr<f32>
    ```
  }];
  let parameters = (ins "::mlir::Type":$pointeeType);
  let assemblyFormat = "`<` $pointeeType `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether `type` may be pointed to by a `!kite.ptr`.
    static bool isValidPointeeType(::mlir::Type type);
  }];
}

def Kite_TensorDescType : Kite_Type<"TensorDesc", "tensordesc"> {
  let summary = "Tensor descriptor: a strided tensor in global memory read and written in blocks";
  let description = [{
    Triton's tensor descriptor: a base pointer, a shape and strides (in
    elements) of a tensor in global memory, read and written in blocks of
    `blockType`'s shape (kite.descriptor_load / descriptor_store); elements
    outside the shape read as zero and are not written. Made in the kernel
    (kite.make_tensor_descriptor); on sm_90a a descriptor whose operands are
    kernel parameters can become a TMA tensor map the runtime encodes
    (docs/lowering.md).

    ```mlir
    !kite.tensordesc<tensor<128x64xf16>>
    ```
  }];
  let parameters = (ins "::mlir::RankedTensorType":$blockType);
  let assemblyFormat = "`<` $blockType `>`";
}

// Scalars a block may hold (besides pointers).
def Kite_Float : AnyTypeOf<[F8E4M3FN, F8E5M2, F16, BF16, F32, F64],
    "floating-point (f8E4M3FN, f8E5M2, f16, bf16, f32, f64)">;
def Kite_Int : AnyTypeOf<[I1, I8, I16, I32, I64], "integer (i1, i8, i16, i32, i64)">;
def Kite_Scalar : AnyTypeOf<[Kite_Float, Kite_Int, Kite_PointerType], "Kite scalar">;
def Kite_Block : RankedTensorOf<[Kite_Float, Kite_Int, Kite_PointerType]>;
def Kite_ScalarOrBlock : AnyTypeOf<[Kite_Scalar, Kite_Block], "Kite scalar or block">;

def Kite_PtrLike : AnyTypeOf<[Kite_PointerType, RankedTensorOf<[Kite_PointerType]>],
                             "pointer or block of pointers">;
def Kite_IntLike : AnyTypeOf<[Kite_Int, RankedTensorOf<[Kite_Int]>],
                             "integer or block of integers">;
def Kite_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>], "i1 or block of i1">;
def Kite_FloatBlock : RankedTensorOf<[F8E4M3FN, F8E5M2, F16, BF16, F32]>;

#endif // KITE_DIALECT_KITE_IR_KITETYPES_TD
