//===- CodeGen.h - The Kite AST to kite-dialect generator -------*- C++ -*-===//
//
// The CodeGen class (private to the frontend): values (Val), the scope, and
// the generator's members, defined by seam in
//   CodeGen.cpp          values, types, casts, broadcasting; the driver
//   CodeGenExpr.cpp      operators, names, subscripts, argument binding
//   CodeGenBuiltins.cpp  the builtin functions (the table; dot, casts...)
//   CodeGenMemory.cpp    load and store
//   CodeGenBlockPointers.cpp, CodeGenDescriptors.cpp
//                        Triton's block pointers; tensor descriptors
//   CodeGenShapes.cpp    join, split, interleave, broadcast_to, sort
//   CodeGenReductions.cpp, CodeGenCombine.cpp
//                        sum, max, argmax, ...; reduce and scans with a
//                        combine function
//   CodeGenDotScaled.cpp dot_scaled (microscaled operands)
//   CodeGenRandom.cpp    Triton's random numbers
//   CodeGenAtomics.cpp   atomics, debug ops, inline PTX
//   CodeGenMath.cpp      the math library (one table; libdevice.NAME)
//   CodeGenStmt.cpp      statements, loops, if, helpers
//   CodeGenKernel.cpp    the kernel: parameters, -D values, @kernel, @autotune
// See CodeGen.cpp for the semantics.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_FRONTEND_CODEGEN_H
#define KITE_LIB_FRONTEND_CODEGEN_H

#include "kite/Frontend/Frontend.h"

#include "AST.h"
#include "Parser.h"
#include "Returns.h"
#include "TritonSpellings.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include <cstdlib>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"

#include <cerrno>
#include <cmath>
#include <set>
#include <map>
#include <optional>

namespace kite::frontend {

using namespace mlir;
using namespace ::kite::ast;

using mlir::kite::isFp8;
namespace kd = mlir::kite;

/// Thrown to abandon the current kernel after a diagnostic.
struct CodeGenError {};

/// A value during code generation.
struct Val {
  enum Kind {
    None,
    Runtime,
    Int,
    Float,
    Bool,
    Str,
    DType,
    Tuple,
    Helper,
    Desc,
    BlockPtr
  };
  Kind kind = None;
  mlir::Value v;        ///< Runtime
  mlir::Type dtype;     ///< DType
  int64_t i = 0;        ///< Int, Bool
  double f = 0;         ///< Float
  std::string s;        ///< Str
  std::vector<Val> elems;       ///< Tuple
  std::vector<int64_t> block;   ///< Desc, BlockPtr: the block shape (Desc's
                                ///< v: the descriptor)
  /// BlockPtr (Triton's make_block_ptr): elems are the base pointer, then
  /// per dimension the shapes, the strides and the offsets (integer
  /// scalars), then its block of pointers; `order` its order argument.
  std::vector<int64_t> order;
  const Function *fn = nullptr;
  /// Signedness, a property of the frontend's types (the IR is signless, as
  /// MLIR's arith is; the operations chosen carry it: divui, shrui, cmpi
  /// ult, uitofp, ...). Runtime integers: an unsigned value (u8 .. u64);
  /// pointers and blocks of pointers: an unsigned pointee; DType: an
  /// unsigned dtype.
  bool uns = false;
  /// A local declared `NAME: constexpr = value`: bound once (assign()
  /// refuses another value for the name).
  bool constexprBound = false;

  static Val runtime(mlir::Value v, bool isUnsigned = false) {
    Val x;
    x.kind = Runtime;
    x.v = v;
    x.uns = isUnsigned;
    return x;
  }
  static Val integer(int64_t i) {
    Val x;
    x.kind = Int;
    x.i = i;
    return x;
  }
  static Val floating(double f) {
    Val x;
    x.kind = Float;
    x.f = f;
    return x;
  }
  static Val dtypeOf(mlir::Type t, bool isUnsigned = false) {
    Val x;
    x.kind = DType;
    x.dtype = t;
    x.uns = isUnsigned;
    return x;
  }
  static Val boolean(bool b) {
    Val x;
    x.kind = Bool;
    x.i = b;
    return x;
  }
  bool isConst() const { return kind == Int || kind == Float || kind == Bool; }
  /// An integer scalar, constant or runtime (what the shapes, strides and
  /// offsets of descriptors and block pointers must be).
  bool isScalarInt() const {
    return kind == Int ||
           (kind == Runtime &&
            !mlir::isa<mlir::RankedTensorType>(v.getType()) &&
            mlir::getElementTypeOrSelf(v.getType()).isSignlessInteger());
  }
};

class CodeGen {
public:
  CodeGen(MLIRContext *ctx, StringRef file, const Module &module,
          const ::kite::FrontendOptions &options)
      : ctx(ctx), b(ctx), file(file), module(module), options(options) {
    for (auto &f : module.functions)
      functions[f->name] = f.get();
    for (auto &s : module.constants)
      constantDefs[s->names[0].first] = s.get();
  }

  OwningOpRef<ModuleOp> run(unsigned &errors);

private:
  //===--------------------------------------------------------------------===//
  // Diagnostics and locations
  //===--------------------------------------------------------------------===//

  Location loc(Loc l) { return FileLineColLoc::get(ctx, file, l.line, l.col); }

  [[noreturn]] void fail(Loc l, const Twine &msg);

  /// `t` as the language spells it (u32 for an unsigned i32 when `uns`).
  std::string typeName(Type t, bool uns = false);

  std::string describe(const Val &v);

  //===--------------------------------------------------------------------===//
  // Types
  //===--------------------------------------------------------------------===//

  /// The dtype called `n` (i32, float16, uint8, ...); `*uns` is set to
  /// whether it is unsigned.
  std::optional<Type> dtypeNamed(StringRef n, bool *uns = nullptr);

  static ArrayRef<int64_t> shapeOf(Type t);
  static Type elemOf(Type t) { return getElementTypeOrSelf(t); }
  static bool isPtr(Type t) { return isa<kd::PointerType>(elemOf(t)); }
  static bool isFloat(Type t) { return isa<FloatType>(elemOf(t)); }
  static bool isInt(Type t) { return elemOf(t).isSignlessInteger(); }
  Type withShape(Type elem, ArrayRef<int64_t> shape);

  /// Triton's promotion of two element types; `ua`, `uc` their signedness
  /// and `*ru` the result's (C's usual arithmetic conversions: of two
  /// integers the wider wins, and at equal widths the unsigned one).
  Type promote(Type a, Type c, Loc l, bool ua = false, bool uc = false,
               bool *ru = nullptr);

  //===--------------------------------------------------------------------===//
  // Values
  //===--------------------------------------------------------------------===//

  /// The type a constant takes by itself (Python int -> i32 or i64, float ->
  /// f32, bool -> i1).
  Type defaultType(const Val &v);

  /// A runtime value of `v`, with element type `elem` for constants (`uns`:
  /// an unsigned integer type, whose range the constant must fit; negative
  /// constants wrap, as in C).
  mlir::Value materialize(const Val &v, Type elem, Loc l, bool uns = false);

  mlir::Value runtime(const Val &v, Loc l);

  /// `x` (scalar or block) converted to element type `elem`; `fromUns`,
  /// `toUns`: the signedness of the two (zero extension and uitofp from an
  /// unsigned integer, fptoui to one).
  mlir::Value cast(mlir::Value x, Type elem, Loc l, bool fromUns = false,
                   bool toUns = false);

  /// A scalar made a block of `like`'s shape (unchanged if already one).
  mlir::Value splatTo(mlir::Value x, Type like, Loc l);

  /// Numpy broadcasting of two shapes.
  SmallVector<int64_t> broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> c,
                                      Loc l);

  /// A block of more than 2^20 elements (Triton's limit, kd::kMaxBlockElements)
  /// is an error here, at its source, before anything is built: a block's
  /// registers and shared memory grow with it, and 2^32 elements would
  /// exhaust the host while compiling.
  void checkBlockSize(ArrayRef<int64_t> shape, Loc l);

  static std::string shapeText(ArrayRef<int64_t> s);

  /// `x` broadcast to `shape` (splat, expand_dims, broadcast).
  mlir::Value broadcastTo(mlir::Value x, ArrayRef<int64_t> shape, Loc l);

  /// Both operands as runtime values of one element type and shape;
  /// `*uns`: whether that type is unsigned (for pointers: the pointee).
  std::pair<mlir::Value, mlir::Value> unify(const Val &a, const Val &c, Loc l,
                                            bool allowPtr = false,
                                            bool *uns = nullptr);

  /// The type a constant takes next to a runtime operand of element `other`.
  /// (`otherUns`: `other` is unsigned.)
  Type weakType(const Val &k, Type other, bool otherUns = false);

  //===--------------------------------------------------------------------===//
  // Operators
  //===--------------------------------------------------------------------===//

  Val foldBinary(const std::string &op, const Val &a, const Val &c, Loc l);

  Val binary(const std::string &op, const Val &a, const Val &c, Loc l);

  Val compare(const std::string &op, const Val &a, const Val &c, Loc l);

  Val unary(const std::string &op, const Val &a, Loc l);

  //===--------------------------------------------------------------------===//
  // Expressions
  //===--------------------------------------------------------------------===//

  using Scope = std::map<std::string, Val>;

  Val lookup(const std::string &name, Loc l);

  static bool isBuiltin(StringRef n);

  Val expr(const Expr &e);

  Val subscript(const Expr &e);

  /// Positional and keyword arguments of a call, by parameter name.
  struct Args {
    std::vector<Val> values;
    std::vector<Loc> locs;
    std::vector<bool> given;
  };
  Args bindArgs(const Expr &call, const std::string &fname,
                ArrayRef<const char *> params, size_t required);

  int64_t constInt(const Val &v, Loc l, const char *what);
  /// An axis of a block of `rank` dimensions (negative: from the end);
  /// `what` names it in messages ("the axis", "softmax()'s dim").
  int64_t axisArg(const Val &v, Loc l, int64_t rank, const char *what);
  /// Argument i of `fname` as True/False: `deflt` when not given or None.
  bool flagArg(const Args &a, size_t i, const std::string &fname,
               const char *what, bool deflt = false);
  /// The integer constants of a tuple (or of one integer; none for None).
  SmallVector<int64_t> constInts(const Val &v, Loc l, const char *what);

  Type dtypeArg(const Val &v, Loc l);

  SmallVector<int64_t> shapeArg(const Val &v, Loc l);

  mlir::Value asBool(const Val &v, Loc l, const char *what);

  Val call(const Expr &e);
  /// atomic_add/max/min/and/or/xor/xchg/cas (CodeGenAtomics.cpp).
  Val atomic(const std::string &n, const Expr &e);
  /// device_print, device_assert (CodeGenAtomics.cpp).
  Val deviceDebug(const std::string &n, const Expr &e);
  /// x.shape, x.dtype, x.numel, dtype.element_ty (Triton's).
  Val typeAttribute(const Val &x, const std::string &name, Loc l);
  /// dot(a, b, acc, input_precision, allow_tf32, max_num_imprecise_acc,
  /// out_dtype): kite.dot (f32 accumulation).
  Val dotBuiltin(const Expr &e);
  /// x.to(dtype, fp_downcast_rounding=None, bitcast=False) and Triton's
  /// cast(x, ...): the arguments from a.values[first] on.
  Val convertTo(const Val &self, const Args &a, size_t first, Loc l);
  /// A float made a narrower float, rounded toward zero
  /// (fp_downcast_rounding="rtz").
  mlir::Value truncTowardZero(mlir::Value x, Type elem, Loc l);
  /// rand, randint, randn, randint4x, rand4x, randn4x,
  /// uint_to_uniform_float, pair_uniform_to_normal (CodeGenRandom.cpp).
  Val randomBuiltin(const std::string &n, const Expr &e);
  /// Triton's uint_to_uniform_float of an i32 or i64 value or block.
  mlir::Value uniformFloat(mlir::Value word, Loc l);
  /// Triton's pair_uniform_to_normal (Box-Muller) of two f32 uniforms.
  std::pair<mlir::Value, mlir::Value> uniformToNormal(mlir::Value u1,
                                                      mlir::Value u2, Loc l);
  /// reduce / associative_scan with a combine function (CodeGenCombine.cpp).
  Val combineBuiltin(const std::string &n, const Expr &e);
  /// map_elementwise(scalar_fn, *args, pack=1) (CodeGenCombine.cpp).
  Val mapElementwiseBuiltin(const Expr &e);
  /// inline_asm_elementwise (CodeGenAtomics.cpp).
  Val inlineAsm(const Expr &e);

  /// make_tensor_descriptor(base, shape, strides, block_shape), and a
  /// descriptor's methods (.load(offsets), .store(offsets, value)):
  /// CodeGenDescriptors.cpp.
  Val makeDescriptor(const Expr &e);
  /// Triton's load_tensor_descriptor / store_tensor_descriptor.
  Val descriptorFunction(const std::string &n, const Expr &e);
  /// A descriptor's load (offsets) or store (offsets, value), bound.
  Val descriptorAccess(const Val &desc, bool isLoad, const Args &a, Loc at);
  /// A descriptor of `base` with these sizes and strides (i32 or i64
  /// values) and block shape (powers of two, checked at `blockLoc`).
  Val descriptorValue(mlir::Value base, bool uns, ArrayRef<mlir::Value> shape,
                      ArrayRef<mlir::Value> strides,
                      const std::vector<Val> &block, Loc blockLoc, Loc at);
  /// Block pointers (CodeGenBlockPointers.cpp): make_block_ptr, advance,
  /// and the pointers and mask of a load or store through one.
  Val makeBlockPtr(const Expr &e);
  /// load and store (CodeGenMemory.cpp).
  Val memoryBuiltin(const std::string &n, const Expr &e);
  Val advanceBlockPtr(const Expr &e);
  /// load/store's cache_modifier, eviction_policy (and load's volatile),
  /// Args `first` on: checked, not used.
  void checkMemoryHints(const Args &a, size_t first, const std::string &fn);
  std::pair<mlir::Value, mlir::Value> blockPtrAccess(const Val &bp,
                                                     const Val &boundaryCheck,
                                                     bool checked, Loc l,
                                                     Loc checkLoc);
  Val blockPtrPointers(const Val &bp, Loc l);
  /// A block pointer access (its padding zero, the caller's check) as a
  /// tensor-descriptor access, where the two mean the same (every dimension
  /// in boundary_check, i32 offsets): the descriptor (made at the access;
  /// kite-lower-descriptors moves it out of the loops that do not change
  /// it) and the offsets. None otherwise.
  std::optional<std::pair<mlir::Value, SmallVector<mlir::Value>>>
  blockPtrDescriptor(const Val &bp, const Val &boundaryCheck, bool checked,
                     Loc l, Loc checkLoc);
  Val blockPtrIndex(const Val &bp, size_t d, Loc l);
  /// A loop-carried slot: a name's value, or element k of a block pointer
  /// ("name\x1fk").
  Val &carriedSlot(const std::string &key, Loc l);
  Val &slotIn(Scope &sc, const std::string &key, Loc l);
  Val descriptorMethod(const Val &desc, const std::string &name,
                       const Expr &e);
  /// join, split, interleave, broadcast_to (CodeGenShapes.cpp).
  static bool isShapeBuiltin(StringRef n);
  Val shapeBuiltin(const std::string &n, const Expr &e);

  /// `x` with its dimensions permuted: result dimension i is x's
  /// dimension dims[i] (no dims: a 2-D block transposed).
  Val transpose(const Val &x, SmallVector<int64_t> dims, Loc l, Loc xl);

  /// `x`'s elements in row-major order as a block of `shape`.
  Val reshapeTo(const Val &x, ArrayRef<int64_t> shape, Loc l, Loc xl);
  /// expand_dims(x, axis): `axis` an int or a tuple of them.
  Val expandDims(const Val &x, const Val &axis, Loc l, Loc xl, Loc axisLoc);

  /// Three values broadcast to one shape and promoted to one type.
  std::tuple<mlir::Value, mlir::Value, mlir::Value>
  unify3(const Val &a, const Val &c, const Val &d, Loc l);

  /// The math library (CodeGenMath.cpp): `n` called as a builtin, or as
  /// `libdevice.n` (which also reaches the functions that are not builtins).
  Val math(const std::string &n, const Expr &e, bool libdevice);
  /// Triton's fdiv(x, y, ieee_rounding=False).
  Val fdiv(const Expr &e);
  /// Whether `n` is a math function that is a builtin of its own.
  static bool isMathBuiltin(StringRef n);
  /// Whether `n` is a math function reached only as `libdevice.n`.
  static bool isLibdeviceOnly(StringRef n);
  /// The math library's names, for messages.
  static std::string libdeviceNames();

  Val minMax(bool isMin, const Expr &e, bool pythonBuiltin = false);
  /// minimum / maximum of two values (folded when both are constants).
  Val minOrMax(bool isMin, const Val &p, const Val &q, Loc l,
               bool propagateNan = false);
  /// Triton's PropagateNan values (PropagateNan.NONE / .ALL).
  static constexpr int64_t kPropagateNanNone = 0, kPropagateNanAll = 0xFFFF;

  /// Triton's dot_scaled (CodeGenDotScaled.cpp): microscaled operands
  /// upcast to bf16 and scaled, then a dot.
  Val dotScaled(const Expr &e);
  /// Reductions along an axis and softmax (CodeGenReductions.cpp).
  Val reduce(const std::string &n, const Expr &e);
  /// kite.reduce of `in` along `axis` for the builtin `what` (sum, max,
  /// min, xor_sum, reduce_or, argmax, argmin); the axis dropped.
  Val reduceAlong(const std::string &what, const Val &in, int64_t axis, Loc l);
  /// Triton's softmax(x, dim=None, keep_dims=False, ieee_rounding=False).
  Val softmax(const Expr &e);

  //===--------------------------------------------------------------------===//
  // Helpers (inlined)
  //===--------------------------------------------------------------------===//

  Val inlineHelper(const Function &f, const Expr &call);
  /// `f` inlined with its parameters bound to `values` (a combine function
  /// of reduce/associative_scan).
  Val inlineHelperWith(const Function &f, const std::vector<Val> &values,
                       Loc callLoc);

  //===--------------------------------------------------------------------===//
  // Statements
  //===--------------------------------------------------------------------===//

  void assign(const std::string &name, Loc l, Val v);

  void statement(const Stmt &s);

  /// `while cond: body` as scf.while: the names assigned in the body that
  /// exist before it go around the loop; the condition (a scalar) is
  /// evaluated before each iteration on their current values.
  void whileLoop(const Stmt &s);
  /// The names a loop's body assigns that exist before it (except the
  /// loop variable), with their values on entry: what the loop carries.
  void loopCarried(const Stmt &s, const std::string &loopVariable,
                   std::vector<std::string> &carried,
                   SmallVector<mlir::Value> &inits);
  /// The values the carried names have at the end of the body, checked
  /// against the types they entered the loop with (a scalar is splat).
  SmallVector<mlir::Value> loopYields(const Stmt &s,
                                      ArrayRef<std::string> carried,
                                      ArrayRef<Type> types,
                                      ArrayRef<bool> uns);

  /// Names assigned anywhere in `block` (recursively).
  static void assignedIn(const ::kite::ast::Block &block, std::vector<std::string> &out);

  /// `for i in static_range(...)`: Triton's unrolled loop. The bounds are
  /// compile-time integers and the body is emitted once per value with `i`
  /// a compile-time constant (so it may shape blocks); names assigned in the
  /// body stay visible after it, as in Python.
  void staticLoop(const Stmt &s);

  void forLoop(const Stmt &s);

  /// `tail`: the if is the kernel's last statement (or the last of such an
  /// if's branch): what its branches assign is read by nothing after it,
  /// so a name may take another type there (the rest of a kernel after an
  /// early `return` becomes such an if's other branch, Returns.cpp).
  void ifStatement(const Stmt &s, bool tail);
  /// Set for the statement() call of a kernel's last statement (read and
  /// cleared by statement()).
  bool atTail = false;

  //===--------------------------------------------------------------------===//
  // Kernels
  //===--------------------------------------------------------------------===//

  Val parseDefine(const std::string &text, Loc l, const std::string &name);
  /// Triton's descriptor signature type `tensordesc<fp16[64, 64]>` (of
  /// parameter `name`) as the annotation `tensor_descriptor(f16, [64, 64])`.
  ExprPtr descriptorAnnotation(const std::string &text, Loc l,
                               const std::string &name);

  void kernel(const Function &f);
  /// A configuration of @autotune's list: its config(...) call and the
  /// loop variables bound where it was built.
  using ConfigItem = std::pair<const Expr *, std::map<std::string, Val>>;
  /// `configs=NAME()`: the configurations host function NAME returns
  /// (CodeGenConfigs.cpp), evaluated as Python would where its body is
  /// literals, names, lists, comprehensions, range, arithmetic,
  /// comparisons, `for`, `if`, `append`/`extend` and `return`; false with
  /// `why` set where it is anything else.
  bool hostConfigs(const Function &fn, std::vector<ConfigItem> &items,
                   std::string &why);

  MLIRContext *ctx;
  OpBuilder b;
  StringRef file;
  const Module &module;
  const ::kite::FrontendOptions &options;
  std::map<std::string, const Function *> functions;
  /// Module-level constants: their statements, and the values of those
  /// evaluated so far (moduleConstant).
  std::map<std::string, const Stmt *> constantDefs;
  std::map<std::string, Val> constantValues;
  std::set<std::string> evaluating;
  /// The value of module-level constant `name` (a compile-time value),
  /// evaluated on first use; a located error where it is not one.
  Val moduleConstant(const std::string &name, Loc use);
  Scope *scope = nullptr;
  Scope *kernelScope = nullptr;
  std::set<std::string> constexprNames;
  int inlineDepth = 0;
  /// Unrolled static_range bodies and inlined helper calls of the kernel
  /// being generated, against kMaxExpansions (nested static_range, helpers
  /// fanning out: the code would grow exponentially).
  uint64_t expansions = 0;
  static constexpr uint64_t kMaxExpansions = uint64_t(1) << 16;
  /// Counts one more expansion at `l`; past kMaxExpansions a located error.
  void countExpansion(Loc l);
};

} // namespace kite::frontend

#endif // KITE_LIB_FRONTEND_CODEGEN_H
