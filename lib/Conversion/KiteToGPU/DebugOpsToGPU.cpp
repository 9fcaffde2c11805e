//===- DebugOpsToGPU.cpp - kite.print and kite.assert ----------------------===//
//
// kite.print: each element printed once, by the thread that owns it (thread
// 0 for scalars), with gpu.printf (vprintf): "pid (x, y, z) idx (i, j)
// PREFIX: VALUE" (floats as %f of the value widened to f64, integers as %d
// or %lld, hex as the bits). kite.assert: a register whose condition is
// false calls __assertfail(message, file, line, kernel, 1), which prints
// "file:line: kernel: block [...], thread [...] Assertion `message` failed."
// and fails the launch (CUDA_ERROR_ASSERT).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

namespace {

/// Runs `body` under `pred` (directly when null).
void under(OpBuilder &b, Location loc, Value pred,
           function_ref<void()> body) {
  if (!pred) {
    body();
    return;
  }
  auto branch = scf::IfOp::create(b, loc, pred, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  body();
}

/// The coordinates (i32) of register `e` of a block of `shape` in `layout`.
SmallVector<Value> coordinatesOf(OpBuilder &b, Location loc,
                                 const BlockedLayout &layout,
                                 ArrayRef<int64_t> shape, int64_t e) {
  Value lin = arith::AddIOp::create(b, loc, threadBase(b, loc, layout),
                                    i32Const(b, loc, layout.registerOffset(e)));
  SmallVector<Value> c(shape.size());
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    c[d] = arith::RemUIOp::create(b, loc, lin, i32Const(b, loc, shape[d]));
    lin = arith::DivUIOp::create(b, loc, lin, i32Const(b, loc, shape[d]));
  }
  return c;
}

SmallVector<Value> programIds(OpBuilder &b, Location loc) {
  SmallVector<Value> ids;
  for (auto d : {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z})
    ids.push_back(arith::IndexCastUIOp::create(
        b, loc, b.getI32Type(), gpu::BlockIdOp::create(b, loc, d)));
  return ids;
}

struct PrintLowering : OpConversionPattern<PrintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    Location loc = op.getLoc();
    // The prefix inside a printf format: '%' doubled.
    std::string prefix;
    for (char ch : op.getPrefix())
      prefix += ch == '%' ? std::string("%%") : std::string(1, ch);
    SmallVector<Value> pids = programIds(b, loc);
    std::optional<ArrayRef<bool>> unsignedArgs = op.getUnsignedArgs();
    for (auto [i, orig, value] :
         llvm::enumerate(op.getArgs(), adaptor.getArgs())) {
      bool uns = unsignedArgs && i < unsignedArgs->size() && (*unsignedArgs)[i];
      auto block = dyn_cast<RankedTensorType>(orig.getType());
      std::optional<BlockedLayout> layout;
      if (block)
        layout = conv.getLayout(orig);
      Type elem = getElementTypeOrSelf(value.getType());
      unsigned bits = elem.getIntOrFloatBitWidth();
      std::string valueFormat;
      auto formatted = [&](Value v) -> Value {
        if (op.getHex()) {
          Type asInt = b.getIntegerType(bits);
          if (isa<FloatType>(elem))
            v = arith::BitcastOp::create(b, loc, asInt, v);
          if (bits > 32) {
            valueFormat = "0x%llx";
            return v;
          }
          valueFormat = "0x%x";
          return bits == 32 ? v
                            : arith::ExtUIOp::create(b, loc, b.getI32Type(), v)
                                  .getResult();
        }
        if (isa<FloatType>(elem)) {
          valueFormat = "%f";
          return bits == 64 ? v
                            : arith::ExtFOp::create(b, loc, b.getF64Type(), v)
                                  .getResult();
        }
        if (bits > 32) {
          valueFormat = uns ? "%llu" : "%lld";
          return v;
        }
        valueFormat = uns ? "%u" : "%d";
        if (bits == 32)
          return v;
        return uns ? arith::ExtUIOp::create(b, loc, b.getI32Type(), v)
                         .getResult()
                   : arith::ExtSIOp::create(b, loc, b.getI32Type(), v)
                         .getResult();
      };
      int64_t n = layout ? layout->perThread : 1;
      Value owner = ownerPredicate(b, loc, layout);
      for (int64_t e = 0; e < n; ++e) {
        under(b, loc, owner, [&] {
          SmallVector<Value> args(pids);
          std::string idx;
          if (block) {
            SmallVector<Value> c =
                coordinatesOf(b, loc, *layout, block.getShape(), e);
            idx = " idx (";
            for (size_t d = 0; d < c.size(); ++d) {
              idx += d ? ", %d" : "%d";
              args.push_back(c[d]);
            }
            idx += ")";
          }
          args.push_back(formatted(extractRegister(b, loc, value, e)));
          std::string format = "pid (%d, %d, %d)" + idx + " " + prefix +
                               ": " + valueFormat + "\n";
          gpu::PrintfOp::create(b, loc, b.getStringAttr(format), args);
        });
      }
    }
    b.eraseOp(op);
    return success();
  }
};

/// A constant NUL-terminated string in the gpu.module, as a generic pointer.
Value stringConstant(OpBuilder &b, Location loc, Operation *module,
                     StringRef text, StringRef stem) {
  std::string name;
  for (int i = 0;; ++i) {
    name = (stem + "_" + std::to_string(i)).str();
    if (!SymbolTable::lookupSymbolIn(module, name))
      break;
  }
  std::string bytes = text.str();
  bytes.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&module->getRegion(0).front());
    LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name,
                           b.getStringAttr(bytes));
  }
  return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                                   name);
}

struct AssertLowering : OpConversionPattern<AssertOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AssertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    Location loc = op.getLoc();
    Operation *module = op->getParentOfType<gpu::GPUModuleOp>();
    if (!module)
      return op.emitOpError() << "must be inside a gpu.module when lowered";
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
    // void __assertfail(const char *message, const char *file, unsigned line,
    //                   const char *function, size_t charSize)
    auto fail = SymbolTable::lookupSymbolIn(module, "__assertfail");
    if (!fail) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&module->getRegion(0).front());
      LLVM::LLVMFuncOp::create(
          b, loc, "__assertfail",
          LLVM::LLVMFunctionType::get(
              LLVM::LLVMVoidType::get(b.getContext()),
              {ptrType, ptrType, b.getI32Type(), ptrType, b.getI64Type()}));
    }
    std::string file = "<unknown>";
    unsigned line = 0;
    if (auto fl = dyn_cast<FileLineColLoc>(loc)) {
      file = fl.getFilename().str();
      line = fl.getLine();
    }
    std::string kernel = "kernel";
    if (auto f = op->getParentOfType<gpu::GPUFuncOp>())
      kernel = f.getName().str();
    Value cond = adaptor.getCondition();
    auto block = dyn_cast<RankedTensorType>(op.getCondition().getType());
    std::optional<BlockedLayout> layout;
    if (block)
      layout = conv.getLayout(op.getCondition());
    int64_t n = layout ? layout->perThread : 1;
    Value msg = stringConstant(b, loc, module, op.getMessage(), "kite_assert_msg");
    Value fileStr = stringConstant(b, loc, module, file, "kite_assert_file");
    Value func = stringConstant(b, loc, module, kernel, "kite_assert_func");
    Value owner = ownerPredicate(b, loc, layout);
    for (int64_t e = 0; e < n; ++e) {
      Value ok = extractRegister(b, loc, cond, e);
      Value bad = arith::XOrIOp::create(
          b, loc, ok, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
      if (owner)
        bad = arith::AndIOp::create(b, loc, bad, owner);
      under(b, loc, bad, [&] {
        LLVM::CallOp::create(
            b, loc, TypeRange{}, "__assertfail",
            ValueRange{msg, fileStr, i32Const(b, loc, line), func,
                       arith::ConstantIntOp::create(b, loc, b.getI64Type(), 1)});
      });
    }
    b.eraseOp(op);
    return success();
  }
};

} // namespace

/// kite.assume: llvm.intr.assume on each register of the condition.
struct AssumeLowering : OpConversionPattern<AssumeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AssumeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Value cond = adaptor.getCondition();
    int64_t n = 1;
    if (auto v = dyn_cast<VectorType>(cond.getType()))
      n = v.getNumElements();
    for (int64_t e = 0; e < n; ++e)
      LLVM::AssumeOp::create(b, op.getLoc(),
                             extractRegister(b, op.getLoc(), cond, e));
    b.eraseOp(op);
    return success();
  }
};

void mlir::kite::populateDebugOpPatterns(KiteTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<PrintLowering, AssertLowering, AssumeLowering>(
      converter, patterns.getContext());
}
