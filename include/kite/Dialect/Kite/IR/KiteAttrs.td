//===- KiteAttrs.td - Kite dialect enums and attributes ----*- tablegen -*-===//
//
// Enumerations used by Kite ops: reduction kinds and dot input precisions.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_DIALECT_KITE_IR_KITEATTRS_TD
#define KITE_DIALECT_KITE_IR_KITEATTRS_TD

include "kite/Dialect/Kite/IR/KiteDialect.td"
include "mlir/IR/EnumAttr.td"

def Kite_ReduceKindAttr : I32EnumAttr<"ReduceKind", "reduction combiner", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"Xor", 3, "xor">,
    I32EnumAttrCase<"ArgMax", 4, "argmax">,
    I32EnumAttrCase<"ArgMin", 5, "argmin">,
    I32EnumAttrCase<"Custom", 6, "custom">,
    // Integers compared as unsigned (the frontend's u8 .. u64).
    I32EnumAttrCase<"UMax", 7, "umax">,
    I32EnumAttrCase<"UMin", 8, "umin">,
    I32EnumAttrCase<"ArgUMax", 9, "argumax">,
    I32EnumAttrCase<"ArgUMin", 10, "argumin">,
    // Bitwise or of integers (Triton's reduce_or).
    I32EnumAttrCase<"Or", 11, "or">]> {
  let cppNamespace = "::mlir::kite";
}

def Kite_ScanKindAttr : I32EnumAttr<"ScanKind", "scan combiner", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Prod", 1, "prod">,
    I32EnumAttrCase<"Custom", 2, "custom">]> {
  let cppNamespace = "::mlir::kite";
}

def Kite_AtomicKindAttr : I32EnumAttr<"AtomicKind",
    "atomic read-modify-write operation", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"And", 3, "and">,
    I32EnumAttrCase<"Or", 4, "or">,
    I32EnumAttrCase<"Xor", 5, "xor">,
    I32EnumAttrCase<"Xchg", 6, "xchg">,
    // Integers compared as unsigned (PTX atom.max.u32 / .u64).
    I32EnumAttrCase<"UMax", 7, "umax">,
    I32EnumAttrCase<"UMin", 8, "umin">]> {
  let cppNamespace = "::mlir::kite";
}

def Kite_MemSemanticAttr : I32EnumAttr<"MemSemantic",
    "memory ordering of an atomic (Triton's sem=)", [
    I32EnumAttrCase<"Relaxed", 0, "relaxed">,
    I32EnumAttrCase<"Acquire", 1, "acquire">,
    I32EnumAttrCase<"Release", 2, "release">,
    I32EnumAttrCase<"AcqRel", 3, "acq_rel">]> {
  let cppNamespace = "::mlir::kite";
}

def Kite_MemScopeAttr : I32EnumAttr<"MemScope",
    "the threads an atomic is atomic for (Triton's scope=)", [
    I32EnumAttrCase<"GPU", 0, "gpu">,
    I32EnumAttrCase<"CTA", 1, "cta">,
    I32EnumAttrCase<"Sys", 2, "sys">]> {
  let cppNamespace = "::mlir::kite";
}

def Kite_InputPrecisionAttr : I32EnumAttr<"InputPrecision",
    "how f32 dot operands are multiplied", [
    I32EnumAttrCase<"IEEE", 0, "ieee">,
    I32EnumAttrCase<"TF32", 1, "tf32">,
    I32EnumAttrCase<"TF32x3", 2, "tf32x3">]> {
  let cppNamespace = "::mlir::kite";
}

def Kite_DotEngineAttr : I32EnumAttr<"DotEngine",
    "the hardware a staged dot runs on", [
    I32EnumAttrCase<"FMA", 0, "fma">,
    I32EnumAttrCase<"WGMMA", 1, "wgmma">,
    I32EnumAttrCase<"MMA", 2, "mma">]> {
  let cppNamespace = "::mlir::kite";
}

#endif // KITE_DIALECT_KITE_IR_KITEATTRS_TD
