//===- ExportKernel.cpp - Compiling a kernel's variants ahead of time -----===//
//
// kite::aot::exportKernel (ExportC.h): each variant module, for each chip,
// cloned and lowered to PTX (compileToPTX), then ptxas for the cubin; the
// parameter names from the kernel's kite.name argument attributes.
//
//===----------------------------------------------------------------------===//

#include "kite/AOT/ExportC.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Pipeline/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace llvm;

namespace {

/// The one kernel of `module`.
Expected<mlir::func::FuncOp> onlyKernel(mlir::ModuleOp module) {
  mlir::func::FuncOp found;
  int count = 0;
  for (auto f : module.getOps<mlir::func::FuncOp>())
    if (mlir::kite::isKernel(f)) {
      found = f;
      ++count;
    }
  if (count != 1)
    return createStringError(
        "--emit=c exports one kernel; the input has " + std::to_string(count) +
        (count ? " (choose one with --kernel)" : ""));
  return found;
}

} // namespace

Expected<kite::aot::ExportedKernel> kite::aot::exportKernel(
    mlir::ModuleOp generic, const std::vector<FactSet> &specializations,
    const std::vector<std::string> &chips, TargetOptions options,
    StringRef ptxas, StringRef sourceName, StringRef prefix,
    bool occupancyRetry) {
  auto kernel = onlyKernel(generic);
  if (!kernel)
    return kernel.takeError();
  if (chips.empty())
    return createStringError("--emit=c needs at least one chip (--chip)");
  ExportedKernel out;
  out.prefix = cIdentifier(prefix);
  out.entry = kernel->getSymName().str();
  out.sourceName = sourceName.str();
  for (unsigned i = 0; i < kernel->getNumArguments(); ++i) {
    auto name = kernel->getArgAttrOfType<mlir::StringAttr>(
        i, mlir::kite::KiteDialect::getArgNameAttrName());
    out.paramNames.push_back(name ? name.getValue().str()
                                  : "arg" + std::to_string(i));
  }
  std::vector<FactSet> sources;
  for (const FactSet &set : specializations)
    if (!set.facts.empty())
      sources.push_back(set);
  sources.push_back({"generic", {}});
  for (FactSet &src : sources) {
    Variant v;
    v.name = cIdentifier(src.name);
    v.facts = src.facts;
    // The generic module with this variant's facts.
    mlir::OwningOpRef<mlir::ModuleOp> variantModule = generic.clone();
    if (auto f = onlyKernel(*variantModule))
      for (auto &[index, fact] : src.facts)
        specializeArgument(*f, index, fact);
    for (const std::string &chip : chips) {
      TargetOptions o = options;
      o.chip = chip;
      o.features.clear();
      // The C launcher passes the kernel's own parameters only: no TMA
      // tensor maps (descriptor-fed dots take cp.async instead).
      o.tma = false;
      if (Error err = validateTargetOptions(o))
        return std::move(err);
      mlir::OwningOpRef<mlir::ModuleOp> copy = variantModule->clone();
      auto compiled = compileToPTX(*copy, o);
      if (!compiled)
        return compiled.takeError();
      if (compiled->kernels.size() != 1)
        return createStringError("--emit=c: the compiled module has " +
                                 std::to_string(compiled->kernels.size()) +
                                 " kernels");
      const KernelInfo &info = compiled->kernels.front();
      if (info.cluster != std::array<int, 3>{1, 1, 1})
        out.cluster = info.cluster;
      if (out.params.empty()) {
        out.params = info.params;
        out.threads = info.threads;
        if (out.params.size() != out.paramNames.size())
          return createStringError(
              "--emit=c: the kernel's parameters and its PTX's differ");
      } else if (info.threads != out.threads) {
        return createStringError("--emit=c: the chips' compilations differ "
                                 "in threads per program");
      }
      auto cubin = compileWithPtxas(compiled->ptx, chip, ptxas,
                                    /*notes=*/nullptr, occupancyRetry);
      if (!cubin)
        return cubin.takeError();
      v.images.push_back({chip, false, std::move(*cubin),
                          info.dynamicSharedBytes});
      v.images.push_back({chip, true, compiled->ptx, info.dynamicSharedBytes});
    }
    out.variants.push_back(std::move(v));
  }
  return out;
}
