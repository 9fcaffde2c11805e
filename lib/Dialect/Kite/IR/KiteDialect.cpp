//===- KiteDialect.cpp - Kite dialect registration and attributes ---------===//
//
// Registers the `kite` dialect's types, attributes and operations, verifies
// the kernel attributes it owns (`kite.kernel`, `kite.num_warps`,
// `kite.constexpr`, `kite.divisibility`) and materializes folded constants.
//
//===----------------------------------------------------------------------===//

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::kite;

#include "kite/Dialect/Kite/IR/KiteDialect.cpp.inc"
#include "kite/Dialect/Kite/IR/KiteEnums.cpp.inc"


#define GET_TYPEDEF_CLASSES
#include "kite/Dialect/Kite/IR/KiteTypes.cpp.inc"

void KiteDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "kite/Dialect/Kite/IR/KiteOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "kite/Dialect/Kite/IR/KiteTypes.cpp.inc"
      >();
}

Operation *KiteDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

//===----------------------------------------------------------------------===//
// Pointer type
//===----------------------------------------------------------------------===//

bool PointerType::isValidPointeeType(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type))
    return intType.isSignless() &&
           llvm::is_contained({1u, 8u, 16u, 32u, 64u}, intType.getWidth());
  return mlir::kite::isFp8(type) || type.isF16() ||
         type.isBF16() || type.isF32() || type.isF64();
}

LogicalResult
PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                    Type pointeeType) {
  if (!isValidPointeeType(pointeeType))
    return emitError() << "!kite.ptr cannot point to " << pointeeType
                       << "; expected i1, i8, i16, i32, i64, f8E4M3FN, "
                          "f8E5M2, f16, bf16, f32 or f64";
  return success();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Type mlir::kite::getTypeWithShapeOf(Type like, Type elementType) {
  if (auto tensor = dyn_cast<RankedTensorType>(like))
    return RankedTensorType::get(tensor.getShape(), elementType);
  return elementType;
}

bool mlir::kite::isKernel(Operation *op) {
  return isa<func::FuncOp>(op) &&
         op->hasAttr(KiteDialect::getKernelAttrName());
}

//===----------------------------------------------------------------------===//
// Kernel attribute verification
//===----------------------------------------------------------------------===//

static bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// A kernel attribute named `name` is only valid on a kite.kernel.
static LogicalResult verifyOnKernel(Operation *op, StringRef name) {
  if (!isKernel(op))
    return op->emitError() << "'" << name
                           << "' requires a func.func marked 'kite.kernel'";
  return success();
}

/// A kernel attribute that is an i32 accepted by `valid` (described as
/// `expected` in the error).
static LogicalResult verifyKernelI32(Operation *op, StringRef name,
                                     Attribute attr,
                                     llvm::function_ref<bool(int64_t)> valid,
                                     StringRef expected) {
  auto value = dyn_cast<IntegerAttr>(attr);
  if (!value || !value.getType().isInteger(32))
    return op->emitError() << "'" << name << "' must be an i32 attribute";
  if (!valid(value.getInt()))
    return op->emitError() << "'" << name << "' must be " << expected
                           << ", got " << value.getInt();
  return verifyOnKernel(op, name);
}

LogicalResult KiteDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == getKernelAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func)
      return op->emitError() << "'" << name
                             << "' may only be attached to a func.func";
    // The symbol becomes a PTX .entry name (LLVM's NVPTX backend aborts on
    // a space; ptxas rejects a leading digit).
    StringRef sym = func.getSymName();
    if (sym.empty() || !(llvm::isAlpha(sym[0]) || sym[0] == '_') ||
        !llvm::all_of(sym, [](char c) {
          return llvm::isAlnum(c) || c == '_' || c == '$';
        }))
      return op->emitError()
             << "kernel name '" << sym
             << "' is not a PTX identifier (a letter or '_', then letters, "
                "digits, '_' or '$')";
    if (func.getFunctionType().getNumResults() != 0)
      return op->emitError() << "kernel '" << func.getSymName()
                             << "' must not return values";
    for (auto [i, t] : llvm::enumerate(func.getArgumentTypes())) {
      if (isa<RankedTensorType>(t))
        return op->emitError()
               << "kernel '" << func.getSymName()
               << "' takes a block argument of type " << t
               << "; kernel parameters are scalars or pointers";
      // What the runtime can pass and the GPU lowering can take (LLVM's
      // NVPTX backend aborts on some others, i0 and f80 among them).
      if (!isa<PointerType, TensorDescType>(t) &&
          !PointerType::isValidPointeeType(t))
        return op->emitError()
               << "kernel '" << func.getSymName() << "' parameter #" << i
               << " has type " << t
               << "; kernel parameters are pointers (!kite.ptr), tensor "
                  "descriptors or scalars of i1, i8, i16, i32, i64, "
                  "f8E4M3FN, f8E5M2, f16, bf16, f32 or f64";
    }
    // Blocks beyond kMaxBlockElements: reported at the op that makes one.
    Operation *tooBig = nullptr;
    RankedTensorType bigType;
    func.walk([&](Operation *inner) -> WalkResult {
      for (Type t : inner->getResultTypes()) {
        auto type = dyn_cast<RankedTensorType>(t);
        if (!type || !type.hasStaticShape())
          continue;
        int64_t n = 1;
        bool over = false;
        for (int64_t d : type.getShape()) {
          if (d > kMaxBlockElements || n > kMaxBlockElements / std::max<int64_t>(d, 1)) {
            over = true;
            break;
          }
          n *= d;
        }
        if (over) {
          tooBig = inner;
          bigType = type;
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (tooBig)
      return tooBig->emitOpError()
             << "makes a block of type " << bigType
             << ", more than 2^20 elements (the limit of a block)";
    return success();
  }
  if (name == getNumWarpsAttrName())
    return verifyKernelI32(
        op, name, attr.getValue(),
        [](int64_t v) { return isPowerOfTwo(v) && v <= 32; },
        "a power of two in [1, 32]");
  if (name == getConsumerGroupsAttrName())
    return verifyKernelI32(
        op, name, attr.getValue(), [](int64_t v) { return v == 1 || v == 2; },
        "1 or 2");
  if (name == getMaxRegistersAttrName())
    return verifyKernelI32(
        op, name, attr.getValue(),
        [](int64_t v) { return v >= 24 && v <= 255; }, "in [24, 255]");
  if (name == getClusterDimsAttrName()) {
    auto value = dyn_cast<DenseI32ArrayAttr>(attr.getValue());
    int64_t size = 1;
    bool ok = value && value.size() == 3;
    if (ok)
      for (int32_t d : value.asArrayRef()) {
        ok &= d >= 1;
        size *= std::max<int32_t>(d, 1);
      }
    if (!ok || size > 8)
      return op->emitError() << "'" << name
                             << "' must be array<i32: x, y, z> of positive "
                                "sizes, at most 8 programs a cluster";
    return verifyOnKernel(op, name);
  }
  // A loop's own pipeline depth and producer warp (range(..., num_stages=,
  // warp_specialize=)); the dialect does not depend on SCF, hence the name.
  bool onLoop = op->getName().getStringRef() == "scf.for";
  if (name == getNumStagesAttrName()) {
    if (onLoop) {
      auto value = dyn_cast<IntegerAttr>(attr.getValue());
      if (!value || !value.getType().isInteger(32) || value.getInt() < 1 ||
          value.getInt() > 8)
        return op->emitError() << "'" << name
                               << "' must be an i32 attribute in [1, 8]";
      return success();
    }
    return verifyKernelI32(
        op, name, attr.getValue(), [](int64_t v) { return v >= 1 && v <= 8; },
        "in [1, 8]");
  }
  if (name == getLoopUnrollFactorAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!onLoop || !value || !value.getType().isInteger(32) ||
        value.getInt() < 1 || value.getInt() > 64)
      return op->emitError() << "'" << name
                             << "' must be an i32 attribute in [1, 64] on an "
                                "scf.for";
    return success();
  }
  if (name == getWarpSpecializeAttrName() || name == getPingPongAttrName()) {
    if (!onLoop || !isa<BoolAttr>(attr.getValue()))
      return op->emitError() << "'" << name
                             << "' must be a bool attribute on an scf.for";
    return success();
  }
  if (name == getDotTileAttrName()) {
    auto value = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!value || value.size() != 2 ||
        !llvm::all_of(value.asArrayRef(),
                      [](int64_t v) { return v > 0 && isPowerOfTwo(v); }))
      return op->emitError() << "'" << name
                             << "' must be array<i64: rows, cols> of powers "
                                "of two";
    return verifyOnKernel(op, name);
  }
  if (name == getAutotuneAttrName()) {
    auto configs = dyn_cast<ArrayAttr>(attr.getValue());
    if (!configs || configs.empty())
      return op->emitError() << "'" << name
                             << "' must be a non-empty array of dictionaries";
    for (Attribute c : configs) {
      auto dict = dyn_cast<DictionaryAttr>(c);
      if (!dict)
        return op->emitError() << "'" << name
                               << "' must be an array of dictionaries";
      for (NamedAttribute e : dict) {
        StringRef key = e.getName().getValue();
        if (key == "num_warps" || key == "num_stages") {
          auto v = dyn_cast<IntegerAttr>(e.getValue());
          bool ok = v && (key == "num_warps"
                              ? isPowerOfTwo(v.getInt()) && v.getInt() <= 32
                              : v.getInt() >= 1 && v.getInt() <= 8);
          if (!ok)
            return op->emitError()
                   << "'" << name << "': " << key << " must be "
                   << (key == "num_warps" ? "a power of two in [1, 32]"
                                          : "in [1, 8]");
          continue;
        }
        if (!isa<IntegerAttr, FloatAttr>(e.getValue()))
          return op->emitError() << "'" << name << "': the value of '" << key
                                 << "' must be an integer or float";
      }
    }
    return verifyOnKernel(op, name);
  }
  if (name == getAutotuneKeyAttrName()) {
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    if (!names || !llvm::all_of(names, [](Attribute a) {
          return isa<StringAttr>(a);
        }))
      return op->emitError() << "'" << name
                             << "' must be an array of parameter names";
    return verifyOnKernel(op, name);
  }
  if (name == getDynamicSharedMemoryAttrName() ||
      name == getSharedMemoryAttrName()) {
    // Set by the GPU lowering on the module: kernel name -> bytes of dynamic
    // shared memory its launch must provide / of shared memory it uses.
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict || !isa<ModuleOp>(op) ||
        !llvm::all_of(dict, [](NamedAttribute a) {
          return isa<IntegerAttr>(a.getValue());
        }))
      return op->emitError() << "'" << name
                             << "' must be a dictionary of integers on a module";
    return success();
  }
  if (name == getOccupancyRegistersAttrName()) {
    // Set by the GPU lowering on the module: kernel name -> [the registers
    // a thread that let two of its programs share an SM, the spill bytes a
    // thread that may buy it] (the runtime's second ptxas run).
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict || !isa<ModuleOp>(op) ||
        !llvm::all_of(dict, [](NamedAttribute a) {
          auto pair = dyn_cast<DenseI64ArrayAttr>(a.getValue());
          return pair && pair.size() == 2 && pair[0] > 0 && pair[1] >= 0;
        }))
      return op->emitError()
             << "'" << name
             << "' must be a dictionary of [registers, spill bytes] on a "
                "module";
    return success();
  }
  if (name == getTensorMapsAttrName()) {
    // Set by the GPU lowering on the module: kernel name -> the lines that
    // tell the runtime how to encode its tensor maps.
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict || !isa<ModuleOp>(op) ||
        !llvm::all_of(dict, [](NamedAttribute a) {
          auto lines = dyn_cast<ArrayAttr>(a.getValue());
          return lines && llvm::all_of(lines, [](Attribute line) {
                   return isa<StringAttr>(line);
                 });
        }))
      return op->emitError() << "'" << name
                             << "' must be a dictionary of arrays of strings "
                                "on a module";
    return success();
  }
  if (name == kIeeeRoundingAttr) {
    // div_rn / sqrt_rn: a unit attribute on the f32 op to round correctly.
    if (!isa<UnitAttr>(attr.getValue()) ||
        !isa<arith::DivFOp, math::SqrtOp>(op))
      return op->emitError() << "'" << name
                             << "' is a unit attribute of arith.divf and "
                                "math.sqrt";
    return success();
  }
  if (name == getRaisedAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<MakeTensorDescOp>(op))
      return op->emitError() << "'" << name
                             << "' is a unit attribute of "
                                "kite.make_tensor_descriptor";
    return success();
  }
  if (name == kFullBlocksAttr) {
    if (!isa<UnitAttr>(attr.getValue()) ||
        op->getName().getStringRef() != "scf.if")
      return op->emitError() << "'" << name
                             << "' is a unit attribute of scf.if";
    return success();
  }
  return op->emitError() << "unknown Kite attribute '" << name << "'";
}

LogicalResult KiteDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    return op->emitError() << "'" << name
                           << "' may only be attached to func.func arguments";
  Type argType = func.getArgumentTypes()[argIndex];
  if (name == getConstexprAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    if (!isa<IntegerType, FloatType>(argType))
      return op->emitError() << "constexpr argument #" << argIndex
                             << " must be an integer or float scalar, got "
                             << argType;
    return success();
  }
  if (name == getDivisibilityAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || !value.getType().isInteger(32))
      return op->emitError() << "'" << name << "' must be an i32 attribute";
    if (!isPowerOfTwo(value.getInt()))
      return op->emitError() << "'" << name << "' of argument #" << argIndex
                             << " must be a positive power of two, got "
                             << value.getInt();
    if (!isa<PointerType, IntegerType>(argType))
      return op->emitError() << "'" << name << "' of argument #" << argIndex
                             << " requires a pointer or integer argument, got "
                             << argType;
    return success();
  }
  if (name == getArgNameAttrName()) {
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!value || value.getValue().empty())
      return op->emitError() << "'" << name << "' of argument #" << argIndex
                             << " must be a non-empty string";
    return success();
  }
  if (name == getArgUnsignedAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    Type scalar = argType;
    if (auto ptr = dyn_cast<PointerType>(argType))
      scalar = ptr.getPointeeType();
    if (!scalar.isSignlessInteger() || scalar.isInteger(1))
      return op->emitError() << "'" << name << "' of argument #" << argIndex
                             << " needs an integer or a pointer to integers, "
                                "got "
                             << argType;
    return success();
  }
  if (name == getArgDescriptorAttrName()) {
    auto block = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!block || block.empty() || block.size() > 5)
      return op->emitError() << "'" << name << "' of argument #" << argIndex
                             << " must be an array<i64> of 1 to 5 block sizes";
    for (int64_t n : block.asArrayRef())
      if (!isPowerOfTwo(n))
        return op->emitError()
               << "'" << name << "' of argument #" << argIndex
               << ": block sizes must be powers of two, got " << n;
    if (!isa<PointerType>(argType))
      return op->emitError()
             << "'" << name << "' of argument #" << argIndex
             << " needs a pointer argument (the base), got " << argType;
    size_t rank = block.size();
    if (argIndex + 2 * rank >= func.getNumArguments())
      return op->emitError()
             << "'" << name << "' of argument #" << argIndex << " needs "
             << 2 * rank << " i32 arguments after it (sizes, strides)";
    for (size_t k = 1; k <= 2 * rank; ++k)
      if (!func.getArgumentTypes()[argIndex + k].isInteger(32))
        return op->emitError()
               << "'" << name << "' of argument #" << argIndex << ": argument #"
               << argIndex + k << " (a size or stride) must be i32, got "
               << func.getArgumentTypes()[argIndex + k];
    return success();
  }
  if (name == getTensorMapAttrName()) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict || !isa<TensorDescType>(argType))
      return op->emitError() << "'" << name << "' of argument #" << argIndex
                             << " must be a dictionary on a !kite.tensordesc "
                                "argument";
    for (StringRef key : {"shape", "strides", "box"})
      if (!dyn_cast_or_null<DenseI64ArrayAttr>(dict.get(key)))
        return op->emitError() << "'" << name << "' of argument #" << argIndex
                               << " needs an array<i64> '" << key << "'";
    for (StringRef key : {"base", "swizzle"})
      if (!dyn_cast_or_null<IntegerAttr>(dict.get(key)))
        return op->emitError() << "'" << name << "' of argument #" << argIndex
                               << " needs an integer '" << key << "'";
    return success();
  }
  return op->emitError() << "unknown Kite argument attribute '" << name << "'";
}
