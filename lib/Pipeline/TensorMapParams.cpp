//===- TensorMapParams.cpp - Tensor maps as __grid_constant__ params ------===//
//
// kite-tensor-map-params: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "kite/Pipeline/Pipeline.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

#include <cstdlib>
#include <string_view>

namespace kite {
#define GEN_PASS_DECL_TENSORMAPPARAMS
#define GEN_PASS_DEF_TENSORMAPPARAMS
#include "kite/Pipeline/Passes.h.inc"
} // namespace kite

using namespace mlir;

namespace {
struct TensorMapParams : ::kite::impl::TensorMapParamsBase<TensorMapParams> {
  void runOnOperation() override {
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
        return;
      MLIRContext *ctx = func.getContext();
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        auto ptr = dyn_cast<LLVM::LLVMPointerType>(func.getArgumentTypes()[i]);
        auto align = func.getArgAttrOfType<IntegerAttr>(
            i, LLVM::LLVMDialect::getAlignAttrName());
        auto size = func.getArgAttrOfType<IntegerAttr>(
            i, LLVM::LLVMDialect::getDereferenceableAttrName());
        if (!ptr || ptr.getAddressSpace() != 0 || !align || !size ||
            align.getInt() != 64 || size.getInt() != 128)
          continue;
        func.removeArgAttr(i, LLVM::LLVMDialect::getDereferenceableAttrName());
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(LLVM::LLVMArrayType::get(
                            IntegerType::get(ctx, 8), 128)));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        UnitAttr::get(ctx));
        // The program's first thread prefetches the map at the start, so
        // that its first copies do not wait for the descriptor's fetch
        // (as CUTLASS's producers do).
        OpBuilder b(ctx);
        Block &entry = func.getBody().front();
        b.setInsertionPointToStart(&entry);
        Location loc = func.getLoc();
        Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
        Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                              b.getI32IntegerAttr(0));
        Value first = LLVM::ZExtOp::create(
            b, loc, b.getI32Type(),
            LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, tid, zero));
        // Inline PTX: nvvm.prefetch drops its predicate once lowered.
        LLVM::InlineAsmOp::create(
            b, loc, /*resultTypes=*/TypeRange(),
            ValueRange{entry.getArgument(i), first},
            "{ .reg .pred p; setp.ne.b32 p, $1, 0; @p prefetch.tensormap [$0]; }",
            "l,r", /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::tailcallkind::TailCallKind::None,
            /*asm_dialect=*/LLVM::AsmDialectAttr(),
            /*operand_attrs=*/ArrayAttr());
      }
    });
  }
};
} // namespace
