//===- DropUnusedDeviceLibraries.cpp - Link libdevice only when called ----===//
//
// kite-drop-unused-device-libraries: see Passes.td.
//
// The NVVM target of each gpu.module carries the bitcode files
// gpu-module-to-binary links (libdevice.10.bc). Reading and linking it costs
// a cold compile about 2 ms, for nothing when the module calls no external
// function: most kernels use inline PTX or NVVM intrinsics only. (MLIR's
// serializer also appends the libdevice of a toolkit it finds through
// $CUDA_HOME and the like; that one only a serializer of Kite's own could
// skip.)
//
//===----------------------------------------------------------------------===//

#include "kite/Pipeline/Pipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace kite {
#define GEN_PASS_DECL_DROPUNUSEDDEVICELIBRARIES
#define GEN_PASS_DEF_DROPUNUSEDDEVICELIBRARIES
#include "kite/Pipeline/Passes.h.inc"
} // namespace kite

using namespace mlir;

namespace {
struct DropUnusedDeviceLibraries
    : ::kite::impl::DropUnusedDeviceLibrariesBase<DropUnusedDeviceLibraries> {
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUModuleOp module) {
      ArrayAttr targets = module.getTargetsAttr();
      if (!targets)
        return;
      bool callsOut = llvm::any_of(
          module.getOps<LLVM::LLVMFuncOp>(),
          [](LLVM::LLVMFuncOp f) { return f.isExternal(); });
      if (callsOut)
        return;
      SmallVector<Attribute> kept;
      bool changed = false;
      for (Attribute a : targets) {
        auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(a);
        if (!nvvm || !nvvm.getLink() || nvvm.getLink().empty()) {
          kept.push_back(a);
          continue;
        }
        kept.push_back(NVVM::NVVMTargetAttr::get(
            nvvm.getContext(), nvvm.getO(), nvvm.getTriple(), nvvm.getChip(),
            nvvm.getFeatures(), nvvm.getFlags(), /*linkFiles=*/nullptr,
            nvvm.getVerifyTarget()));
        changed = true;
      }
      if (changed)
        module.setTargetsAttr(ArrayAttr::get(module.getContext(), kept));
    });
  }
};
} // namespace
