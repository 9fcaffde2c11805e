//===- Pipeline.cpp - The kite-to-ptx pipeline ----------------------------===//
//
// Assembles the pass pipeline from the kite dialect to PTX, in four stages
// (kitec --emit=kite|gpu|llvm|ptx shows the IR after each):
//   kite  inline, symbol-dce, canonicalize, cse; kite-raise-to-descriptors
//         (with TMA); kite-lower-descriptors (what TMA will not stage). The
//         interpreter runs this stage's output.
//   gpu   the kite dialect's scheduling (lib/Dialect/Kite/Transforms):
//         kite-version-full-blocks, kite-rematerialize-broadcasts,
//         kite-carry-pointer-offsets, canonicalize, loop-invariant-code-motion,
//         kite-stage-dot-operands, kite-rebase-narrow-pointers,
//         kite-lower-descriptors, kite-pipeline-loads, kite-unroll-loops,
//         canonicalize, cse; then convert-kite-to-gpu, canonicalize, cse.
//   llvm  nvvm-attach-target; in the gpu.module scf->cf, gpu->nvvm,
//         nvvm->llvm, canonicalize, cse, reconcile-unrealized-casts; then
//         kite-tensor-map-params, kite-pack-byte-selects,
//         kite-drop-unused-device-libraries.
//   ptx   gpu-module-to-binary{format=isa}.
// kite-check-target runs first. Registers the whole as `kite-to-ptx` and
// drives it from C++ (compileToPTX, under the crash guard of
// CrashRecovery.h), returning diagnostics as errors.
//
//===----------------------------------------------------------------------===//

#include "kite/Pipeline/Pipeline.h"
#include "kite/Pipeline/CrashRecovery.h"
#include "kite/Dialect/Kite/Transforms/Passes.h"
#include "kite/Conversion/KiteToGPU/KiteToGPU.h"

#include "kite/Conversion/Passes.h"
#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <mutex>
#include <optional>
#include <string_view>

namespace kite {
#define GEN_PASS_DECL_CHECKTARGET
#define GEN_PASS_DECL_DROPUNUSEDDEVICELIBRARIES
#define GEN_PASS_DECL_TENSORMAPPARAMS
#define GEN_PASS_DECL_PACKBYTESELECTS
#define GEN_PASS_REGISTRATION
#include "kite/Pipeline/Passes.h.inc"
} // namespace kite

using namespace ::kite;
using namespace mlir;

/// libdevice.10.bc: the option, $KITE_LIBDEVICE, $CUDA_HOME, /usr/local/cuda.
static std::string findLibdevice(const TargetOptions &options) {
  if (!options.libdevice.empty())
    return options.libdevice;
  if (const char *env = std::getenv("KITE_LIBDEVICE"))
    return env;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"}) {
    if (const char *root = std::getenv(var)) {
      llvm::SmallString<256> path(root);
      llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
      if (llvm::sys::fs::exists(path))
        return std::string(path);
    }
  }
  const char *fallback = "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";
  return llvm::sys::fs::exists(fallback) ? fallback : "";
}

/// kite-check-target for `options`, the stage name `stage` and, when
/// given, the start-after stage name.
static std::unique_ptr<Pass>
createCheckTargetPass(const TargetOptions &options, StringRef stage,
                      StringRef startAfter = "") {
  CheckTargetOptions check;
  check.chip = options.chip;
  check.features = options.features;
  check.optLevel = options.optLevel;
  check.numWarps = options.numWarps;
  check.stage = stage.str();
  check.startAfter = startAfter.str();
  return createCheckTarget(check);
}

/// Adds the passes of one stage (those after the previous stage's).
static void buildStage(OpPassManager &pm, const TargetOptions &options,
                       Stage stage) {
  switch (stage) {
  case Stage::Kite: {
    pm.addPass(createInlinerPass());
    pm.addPass(createSymbolDCEPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (options.tma) {
      // Tutorial 03's pointer loads of a K loop's dot operands as
      // descriptor loads where TMA can take them.
      RaiseToDescriptorsOptions raise;
      raise.chip = options.chip;
      raise.numWarps = options.numWarps;
      pm.addPass(createRaiseToDescriptors(raise));
      pm.addPass(createCanonicalizerPass());
    }
    {
      // Descriptor accesses become pointer blocks here, except the dot
      // operands TMA will stage (on sm_90a); the interpreter runs this
      // stage's output.
      LowerDescriptorsOptions lower;
      lower.keepTma = options.tma;
      lower.chip = options.chip;
      lower.numWarps = options.numWarps;
      pm.addPass(createLowerDescriptors(lower));
    }
    return;
  }

  case Stage::GPU: {
    // Kite-level scheduling for the GPU, then the lowering.
    if (!options.quickTier) {
      pm.addPass(createVersionFullBlocks());
      pm.addPass(createSplitFullIterations());
    }
    pm.addPass(createRematerializeBroadcasts());
    pm.addPass(createCarryPointerOffsets());
    pm.addPass(createCanonicalizerPass());
    {
      FoldScalesOptions fold;
      fold.foldExp = options.fpFusion; // a reassociation, like fusion
      pm.addPass(createFoldScales(fold));
    }
    pm.addPass(createLoopInvariantCodeMotionPass());
    {
      StageDotOperandsOptions stage;
      stage.numWarps = options.numWarps;
      stage.chip = options.chip;
      stage.warpSpecialize = options.warpSpecialize;
      pm.addPass(createStageDotOperands(stage));
    }
    pm.addPass(createRebaseNarrowPointers());
    // What the staging did not take after all (none expected).
    pm.addPass(createLowerDescriptors());
    pm.addPass(createPipelineLoads());
    pm.addPass(createUnrollLoops());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    mlir::kite::ConvertKiteToGPUOptions lower;
    lower.numWarps = options.numWarps;
    lower.ieeeDivision = options.ieeeDivision;
    lower.fpFusion = options.fpFusion;
    lower.occupancyHint = !options.quickTier;
    lower.coalesceUnaligned = true;
    pm.addPass(mlir::kite::createConvertKiteToGPU(lower));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    return;
  }
  case Stage::LLVM: {
    GpuNVVMAttachTargetOptions target;
    target.chip = options.chip;
    target.features = options.features;
    target.optLevel = options.optLevel;
    std::string libdevice = findLibdevice(options);
    if (!libdevice.empty())
      target.linkLibs.push_back(libdevice);
    pm.addPass(createGpuNVVMAttachTarget(target));
    OpPassManager &gpu = pm.nest<gpu::GPUModuleOp>();
    gpu.addPass(createSCFToControlFlowPass());
    ConvertGpuOpsToNVVMOpsOptions toNVVM;
    toNVVM.useBarePtrCallConv = true;
    gpu.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
    gpu.addPass(createConvertNVVMToLLVMPass());
    gpu.addPass(createCanonicalizerPass());
    gpu.addPass(createCSEPass());
    gpu.addPass(createReconcileUnrealizedCastsPass());
    pm.addPass(createTensorMapParams());
    pm.addPass(createPackByteSelects());
    pm.addPass(createDropUnusedDeviceLibraries());
    return;
  }
  case Stage::PTX: {
    GpuModuleToBinaryPassOptions binary;
    binary.compilationTarget = "isa";
    pm.addPass(createGpuModuleToBinaryPass(binary));
    return;
  }
  }
}

static constexpr Stage kStages[] = {Stage::Kite, Stage::GPU, Stage::LLVM,
                                    Stage::PTX};

/// Sets a boolean LLVM command-line option, unless it is absent or was
/// given on the command line (kitec --disable-lsr=false).
static void setLLVMFlag(llvm::StringRef name, bool value) {
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  if (it != options.end() && it->second->getNumOccurrences() == 0)
    *static_cast<llvm::cl::opt<bool> *>(it->second) = value;
}


/// LLVM's NVPTX code generation as Kite wants it, set once for the process
/// (LLVM has these only as command-line options; Triton sets the first too):
///   - nvptx-short-ptr: shared-memory (and local/const) pointers as 32
///     bits, as the hardware addresses them: halves the registers and the
///     integer work of shared addresses (the staging slots' cp.async,
///     ldmatrix and ld.shared addresses);
///   - disable-lsr: loop strength reduction rewrote a pipelined K loop's
///     addresses (one carried offset per operand plus loop-invariant
///     pointers) into one pointer per copy, each advanced every iteration,
///     which ptxas then shuffled between registers: at 4096x4096x512 f16
///     on wgmma 322.6 -> 338.9 TFLOP/s without it, 4096^3 474.8 -> 523.7
///     (128x128x32, 4 warps; H100). `kitec --disable-lsr=false` keeps it
///     (a flag given on the command line is left alone).
static void applyLLVMCodegenSettings() {
  static std::once_flag once;
  std::call_once(once, [] {
    setLLVMFlag("nvptx-short-ptr", true);
    setLLVMFlag("disable-lsr", true);
  });
}

std::string(::kite::llvmCodegenSettings)() { return "short-ptr,no-lsr"; }

void ::kite::buildKiteToPTXPipeline(OpPassManager &pm,
                                  const TargetOptions &options,
                                  Stage stopAfter,
                                  std::optional<Stage> startAfter) {
  applyLLVMCodegenSettings();
  pm.addPass(createCheckTargetPass(options, "ptx"));
  bool skipping = startAfter.has_value();
  for (Stage stage : kStages) {
    if (skipping) {
      skipping = stage != *startAfter;
      continue;
    }
    buildStage(pm, options, stage);
    if (stage == stopAfter)
      return;
  }
}

namespace {
struct KiteToPTXPipelineOptions
    : public PassPipelineOptions<KiteToPTXPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("Target chip"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features, e.g. +ptx80 (default: the chip's)"),
      llvm::cl::init("")};
  Option<int> numWarps{*this, "num-warps",
                       llvm::cl::desc("Warps per program by default"),
                       llvm::cl::init(4)};
  Option<int> optLevel{*this, "opt-level",
                       llvm::cl::desc("LLVM optimization level 0..3"),
                       llvm::cl::init(3)};
  Option<bool> ieeeDiv{*this, "ieee-div",
                       llvm::cl::desc("IEEE f32 division (div.rn.f32)"),
                       llvm::cl::init(false)};
  Option<bool> fpFusion{*this, "fp-fusion",
                        llvm::cl::desc("Multiplies and adds may fuse into "
                                       "fma (Triton's enable_fp_fusion)"),
                        llvm::cl::init(true)};
  Option<std::string> libdevice{*this, "libdevice",
                                llvm::cl::desc("Path of libdevice.10.bc"),
                                llvm::cl::init("")};
  Option<std::string> stopAfter{
      *this, "stop-after",
      llvm::cl::desc("Last stage: kite, gpu, llvm or ptx"),
      llvm::cl::init("ptx")};
  Option<std::string> startAfter{
      *this, "start-after",
      llvm::cl::desc("The input is this stage's output (kite, gpu or llvm): "
                     "the stages up to it are left out"),
      llvm::cl::init("")};
  Option<bool> tma{*this, "tma",
                   llvm::cl::desc("On sm_90a, K loops may read their dot "
                                  "operands with TMA (kitec --tma)"),
                   llvm::cl::init(true)};
};
} // namespace

void ::kite::registerPipelines() {
  registerKitePipelinePasses();
  registerKiteTransformsPasses();
  PassPipelineRegistration<KiteToPTXPipelineOptions>(
      "kite-to-ptx", "Lower kite kernels to PTX (a gpu.binary)",
      [](OpPassManager &pm, const KiteToPTXPipelineOptions &o) {
        TargetOptions options;
        options.chip = o.chip;
        options.features = o.features;
        options.numWarps = o.numWarps;
        options.optLevel = o.optLevel;
        options.ieeeDivision = o.ieeeDiv;
        options.fpFusion = o.fpFusion;
        options.libdevice = o.libdevice;
        options.tma = o.tma;
        std::optional<Stage> stage = parseStage(o.stopAfter);
        std::optional<Stage> start;
        if (!o.startAfter.empty())
          start = parseStage(o.startAfter);
        // Invalid options are diagnosed by kite-check-target, which runs
        // first; nothing after it runs then.
        if (llvm::Error err = validateTargetOptions(options); err || !stage) {
          llvm::consumeError(std::move(err));
          pm.addPass(createCheckTargetPass(options, o.stopAfter));
          return;
        }
        // A start stage must come before the last one (so never ptx).
        if (!o.startAfter.empty() && (!start || *start >= *stage)) {
          pm.addPass(createCheckTargetPass(options, o.stopAfter, o.startAfter));
          return;
        }
        ::kite::buildKiteToPTXPipeline(pm, options, *stage, start);
      });
}

static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

namespace kite {
EntryLaunchShape entryLaunchShape(std::string_view ptx,
                                  std::string_view kernel) {
  EntryLaunchShape shape;
  size_t entry = ptx.find(".entry " + std::string(kernel) + "(");
  if (entry == std::string_view::npos)
    return shape;
  // The directives between the parameter list and the body.
  size_t body = ptx.find('{', entry);
  std::string_view head = ptx.substr(entry, body - entry);
  auto numbers = [&](std::string_view directive, unsigned *out, int n) {
    size_t at = head.find(directive);
    if (at == std::string_view::npos)
      return;
    std::string text(head.substr(at + directive.size(), 48));
    const char *p = text.c_str();
    for (int i = 0; i < n; ++i) {
      char *end = nullptr;
      unsigned long v = std::strtoul(p, &end, 10);
      if (end == p)
        return;
      out[i] = unsigned(v);
      p = end;
      while (*p == ',' || *p == ' ')
        ++p;
    }
  };
  numbers(".maxntid ", &shape.threads, 1);
  numbers(".reqnctapercluster ", shape.cluster.data(), 3);
  for (unsigned &d : shape.cluster)
    d = std::max(d, 1u);
  return shape;
}

std::vector<KernelInfo> collectKernelInfo(ModuleOp module,
                                          const TargetOptions &options) {
  std::vector<KernelInfo> kernels;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!mlir::kite::isKernel(func))
      continue;
    KernelInfo info;
    info.name = func.getSymName().str();
    int warps = options.numWarps;
    if (auto attr = func->getAttrOfType<IntegerAttr>(
            mlir::kite::KiteDialect::getNumWarpsAttrName()))
      warps = attr.getInt();
    info.threads = 32 * warps;
    // Shared memory as the kite-level module bounds it (the exchanges
    // between threads, SharedMemoryOpsToGPU.cpp, before the layouts are
    // known); compileToPTX replaces it by what the GPU stage allocates
    // (kite.shared_memory: the dot staging slots included).
    info.sharedBytes = int(mlir::kite::kernelSharedMemoryBytes(func));
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      if (func.getArgAttr(i, mlir::kite::KiteDialect::getConstexprAttrName()))
        continue;
      // Unsigned integers (kite.unsigned: u32, *u8, ...) as the source
      // spells them.
      bool uns = bool(
          func.getArgAttr(i, mlir::kite::KiteDialect::getArgUnsignedAttrName()));
      auto named = [&](Type t) {
        std::string n = typeName(t);
        return uns && n.size() > 1 && n[0] == 'i' ? "u" + n.substr(1) : n;
      };
      if (auto ptr = dyn_cast<mlir::kite::PointerType>(type)) {
        info.params.push_back(
            {KernelParam::Kind::Pointer, named(ptr.getPointeeType())});
        if (auto block = func.getArgAttrOfType<DenseI64ArrayAttr>(
                i, mlir::kite::KiteDialect::getArgDescriptorAttrName()))
          info.params.back().descriptorBlock.assign(block.asArrayRef().begin(),
                                                    block.asArrayRef().end());
      } else
        info.params.push_back({KernelParam::Kind::Scalar, named(type)});
    }
    kernels.push_back(std::move(info));
  }
  return kernels;
}
} // namespace kite

std::string CompiledModule::metadataJSON() const {
  llvm::json::Array array;
  for (const KernelInfo &k : kernels) {
    llvm::json::Array params;
    for (const KernelParam &p : k.params) {
      llvm::json::Object o{
          {"kind", p.kind == KernelParam::Kind::Pointer ? "pointer" : "scalar"},
          {"type", p.type}};
      // A host descriptor's base: its block shape (its sizes and strides
      // are the parameters after it).
      if (!p.descriptorBlock.empty()) {
        llvm::json::Array block;
        for (int64_t n : p.descriptorBlock)
          block.push_back(n);
        o["descriptor_block"] = std::move(block);
      }
      params.push_back(std::move(o));
    }
    array.push_back(llvm::json::Object{
        {"name", k.name},
        {"threads", k.threads},
        {"cluster",
         llvm::json::Array{k.cluster[0], k.cluster[1], k.cluster[2]}},
        {"shared_bytes", k.sharedBytes},
        {"dynamic_shared_bytes", k.dynamicSharedBytes},
        {"params", std::move(params)}});
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}",
                      llvm::json::Value(llvm::json::Object{
                          {"kernels", std::move(array)}}));
  return s;
}

namespace {
llvm::Expected<::kite::CompiledModule>
compileToPTXUnguarded(ModuleOp module, ::kite::TargetOptions options,
                      const ::kite::StageCallback &onStage, bool timing);
} // namespace

namespace kite {
llvm::Expected<CompiledModule> compileToPTX(ModuleOp module,
                                            TargetOptions options,
                                            const StageCallback &onStage,
                                            bool timing) {
  // An LLVM fatal error or crash none of the checks before LLVM caught
  // becomes an error here instead of ending the host process.
  std::optional<llvm::Expected<CompiledModule>> result;
  if (llvm::Error crash = runRecoverable("kite-to-ptx", [&] {
        result.emplace(compileToPTXUnguarded(module, options, onStage, timing));
      }))
    return std::move(crash);
  return std::move(*result);
}
} // namespace kite

namespace {
using namespace ::kite;
llvm::Expected<CompiledModule> compileToPTXUnguarded(ModuleOp module,
                                                     TargetOptions options,
                                                     const StageCallback &onStage,
                                                     bool timing) {
  if (llvm::Error err = validateTargetOptions(options))
    return std::move(err);
  CompiledModule result;
  result.kernels = ::kite::collectKernelInfo(module, options);

  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  // file:line:col where the location has one.
  auto printLoc = [&](Location loc) {
    if (auto file = loc->findInstanceOf<FileLineColLoc>())
      os << file.getFilename().getValue() << ":" << file.getLine() << ":"
         << file.getColumn();
    else
      os << loc;
  };
  std::string warnings;
  llvm::raw_string_ostream ws(warnings);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Warning) {
      if (auto file = d.getLocation()->findInstanceOf<FileLineColLoc>())
        ws << file.getFilename().getValue() << ":" << file.getLine() << ":"
           << file.getColumn();
      else
        ws << d.getLocation();
      ws << ": warning: " << d << "\n";
      return success();
    }
    if (d.getSeverity() == DiagnosticSeverity::Error) {
      printLoc(d.getLocation());
      os << ": error: " << d << "\n";
      for (Diagnostic &note : d.getNotes()) {
        if (StringRef(note.str()).starts_with("see current operation"))
          continue;
        printLoc(note.getLocation());
        os << ": note: " << note << "\n";
      }
    }
    return success();
  });
  auto failure = [&]() {
    return llvm::createStringError(diagnostics.empty()
                                       ? std::string("kite-to-ptx failed")
                                       : diagnostics);
  };
  if (!onStage) {
    PassManager pm(module.getContext());
    if (timing)
      pm.enableTiming();
    ::kite::buildKiteToPTXPipeline(pm, options, Stage::PTX);
    if (failed(pm.run(module)))
      return failure();
  } else {
    // Stage by stage, showing the module after each.
    PassManager check(module.getContext());
    check.addPass(createCheckTargetPass(options, "ptx"));
    if (failed(check.run(module)))
      return failure();
    for (Stage stage : kStages) {
      PassManager pm(module.getContext());
      buildStage(pm, options, stage);
      if (failed(pm.run(module)))
        return failure();
      onStage(stage, module);
    }
  }
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute attr : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(attr))
        result.ptx += object.getObject().getValue().str();
  if (result.ptx.empty())
    return llvm::createStringError("kite-to-ptx produced no PTX (does the "
                                   "module contain a kite.kernel?)");
  // Threads a program (a producer warp's too) and clusters, as the PTX
  // declares them.
  for (KernelInfo &k : result.kernels) {
    EntryLaunchShape shape = entryLaunchShape(result.ptx, k.name);
    if (shape.threads)
      k.threads = int(shape.threads);
    for (int i = 0; i < 3; ++i)
      k.cluster[i] = int(shape.cluster[i]);
  }
  // The shared memory each kernel's program uses, as the GPU stage
  // allocated it.
  if (auto sizes = module->getAttrOfType<DictionaryAttr>(
          mlir::kite::KiteDialect::getSharedMemoryAttrName()))
    for (NamedAttribute entry : sizes)
      for (KernelInfo &k : result.kernels)
        if (k.name == entry.getName().strref())
          k.sharedBytes = int(cast<IntegerAttr>(entry.getValue()).getInt());
  // Kernels whose shared memory is dynamic: the launch must provide it. The
  // PTX says so in a comment line, so that it travels with the PTX (caches).
  if (auto sizes = module->getAttrOfType<DictionaryAttr>(
          mlir::kite::KiteDialect::getDynamicSharedMemoryAttrName())) {
    std::string header;
    for (NamedAttribute entry : sizes) {
      int64_t bytes = cast<IntegerAttr>(entry.getValue()).getInt();
      header += "// kite.dynamic_shared_memory " + entry.getName().str() +
                " " + std::to_string(bytes) + "\n";
      for (KernelInfo &k : result.kernels)
        if (k.name == entry.getName().strref()) {
          k.sharedBytes = int(bytes);
          k.dynamicSharedBytes = int(bytes);
        }
    }
    result.ptx = header + result.ptx;
  }
  // Kernels the runtime compiles again for two programs an SM when ptxas
  // gives them more registers (kite-convert-to-gpu's occupancy hint).
  if (auto limits = module->getAttrOfType<DictionaryAttr>(
          mlir::kite::KiteDialect::getOccupancyRegistersAttrName())) {
    std::string header;
    for (NamedAttribute entry : limits) {
      auto pair = cast<DenseI64ArrayAttr>(entry.getValue());
      header += "// kite.occupancy_registers " + entry.getName().str() + " " +
                std::to_string(pair[0]) + " " + std::to_string(pair[1]) + "\n";
    }
    result.ptx = header + result.ptx;
  }
  // Tensor maps the launch encodes (kite-stage-dot-operands' TMA staging),
  // also in comment lines.
  if (auto maps = module->getAttrOfType<DictionaryAttr>(
          mlir::kite::KiteDialect::getTensorMapsAttrName())) {
    std::string header;
    for (NamedAttribute entry : maps)
      for (Attribute line : cast<ArrayAttr>(entry.getValue()))
        header += cast<StringAttr>(line).getValue().str() + "\n";
    result.ptx = header + result.ptx;
  }
  result.warnings = warnings;
  return result;
}
} // namespace

void ::kite::specializeArgument(Operation *kernel, unsigned index,
                                ParamFact fact) {
  auto f = dyn_cast<func::FuncOp>(kernel);
  if (!f || f.isExternal() || index >= f.getNumArguments())
    return;
  BlockArgument arg = f.getArgument(index);
  switch (fact) {
  case ParamFact::DivisibleBy16:
    if (!f.getArgAttr(index, mlir::kite::KiteDialect::getDivisibilityAttrName()))
      f.setArgAttr(index, mlir::kite::KiteDialect::getDivisibilityAttrName(),
                   IntegerAttr::get(IntegerType::get(f.getContext(), 32), 16));
    return;
  case ParamFact::EqualToOne: {
    // The parameter stays in the signature, unused.
    if (!isa<IntegerType>(arg.getType()) || arg.use_empty())
      return;
    OpBuilder b(&f.getBody().front(), f.getBody().front().begin());
    Value one = arith::ConstantIntOp::create(b, arg.getLoc(), arg.getType(), 1);
    arg.replaceAllUsesWith(one);
    return;
  }
  }
}
