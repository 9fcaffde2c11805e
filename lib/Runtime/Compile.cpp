//===- Compile.cpp - The runtime's view of the compiler ---------------------===//

#include "Environment.h"
#include "Compile.h"
#include "KiteCompilerId.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Frontend/Frontend.h"
#include "kite/Interpreter/Interpreter.h"
#include "kite/Pipeline/Pipeline.h"
#include "kite/Pipeline/CrashRecovery.h"
#include "kite/Registration.h"
#include "kite/Support/InputFile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace mlir;
using ::kite::CompileOptions;
using ::kite::Error;
using ::kite::ErrorCode;
using ::kite::Expected;

#ifndef KITE_VERSION
#define KITE_VERSION "dev"
#endif

bool ::kite::detail::tracing() {
  static const bool on = ::kite::detail::readEnvironment().trace;
  return on;
}

const char *::kite::detail::compilerVersion() {
  return "kite-" KITE_VERSION " build-" KITE_COMPILER_ID
         " llvm-" LLVM_VERSION_STRING;
}

namespace {
/// One MLIRContext per thread, created on first use: compiles on different
/// threads never share one, and a thread's compiles reuse its dialects.
thread_local std::unique_ptr<MLIRContext> context;
MLIRContext &threadContext() {
  if (!context) {
    static std::once_flag once;
    std::call_once(once, [] { ::kite::registerPipelines(); });
    DialectRegistry registry;
    ::kite::registerAllDialects(registry);
    context = std::make_unique<MLIRContext>(registry,
                                            MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
  }
  return *context;
}

/// After a recovered crash in a compile (kite/Pipeline/CrashRecovery.h) the
/// thread's context is in an unknown state: it is leaked, never used or
/// destroyed again, and the thread's next compile makes a new one.
void abandonThreadContext() { (void)context.release(); }

/// Collects diagnostics as "file:line:col: error: message" text.
struct DiagnosticCollector {
  explicit DiagnosticCollector(MLIRContext &ctx)
      : handler(&ctx, [this](Diagnostic &d) {
          llvm::raw_string_ostream os(text);
          Location loc = d.getLocation();
          if (auto file = loc->findInstanceOf<FileLineColLoc>())
            os << file.getFilename().getValue() << ":" << file.getLine() << ":"
               << file.getColumn() << ": ";
          os << (d.getSeverity() == DiagnosticSeverity::Error ? "error: "
                                                               : "note: ")
             << d << "\n";
          return success();
        }) {}
  std::string text;
  ScopedDiagnosticHandler handler;
};

::kite::ScalarType paramTypeOf(Type t) {
  using ::kite::ScalarType;
  if (t.isInteger(1))
    return ScalarType::I1;
  if (t.isInteger(8))
    return ScalarType::I8;
  if (t.isInteger(16))
    return ScalarType::I16;
  if (t.isInteger(32))
    return ScalarType::I32;
  if (t.isInteger(64))
    return ScalarType::I64;
  if (t.isF16())
    return ScalarType::F16;
  if (t.isBF16())
    return ScalarType::BF16;
  if (t.isF32())
    return ScalarType::F32;
  if (t.isF64())
    return ScalarType::F64;
  if (isa<Float8E4M3FNType>(t))
    return ScalarType::F8E4M3;
  if (isa<Float8E5M2Type>(t))
    return ScalarType::F8E5M2;
  return ScalarType::Any;
}

std::string argName(func::FuncOp f, unsigned i) {
  if (auto n = f.getArgAttrOfType<StringAttr>(
          i, mlir::kite::KiteDialect::getArgNameAttrName()))
    return n.getValue().str();
  return "#" + std::to_string(i);
}
} // namespace

/// `text` as the main buffer of `sourceMgr`, named `sourceName` (the file
/// of diagnostics).
static void addSource(llvm::SourceMgr &sourceMgr, std::string_view text,
                      std::string_view sourceName) {
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(text.data(), text.size()),
          llvm::StringRef(sourceName.data(), sourceName.size())),
      llvm::SMLoc());
}

auto ::kite::detail::declareKernels(std::string_view text,
                                    std::string_view sourceName)
    -> Expected<std::vector<DeclaredKernel>> {
  MLIRContext &ctx = threadContext();
  DiagnosticCollector diags(ctx);
  llvm::SourceMgr sourceMgr;
  addSource(sourceMgr, text, sourceName);
  auto declared = ::kite::declaredKernels(sourceMgr, &ctx);
  if (!declared)
    return Error(ErrorCode::ParseError, diags.text.empty()
                                            ? "the kernel source does not parse"
                                            : diags.text);
  std::vector<DeclaredKernel> kernels;
  for (const ::kite::DeclaredKernel &k : *declared) {
    DeclaredKernel d;
    d.name = k.name;
    for (const ::kite::DeclaredParam &p : k.params)
      d.params.push_back(
          {p.name,
           p.kind == ::kite::DeclaredParam::Untyped     ? DeclaredParam::Untyped
           : p.kind == ::kite::DeclaredParam::Constexpr ? DeclaredParam::Constexpr
                                                        : DeclaredParam::Typed,
           p.hasDefault});
    d.heuristics = k.heuristics;
    kernels.push_back(std::move(d));
  }
  return kernels;
}

auto ::kite::detail::analyzeSource(std::string_view text,
                                   std::string_view sourceName,
                                   const CompileOptions &options, bool isKite)
    -> Expected<Analyzed> {
  MLIRContext &ctx = threadContext();
  DiagnosticCollector diags(ctx);
  llvm::SourceMgr sourceMgr;
  addSource(sourceMgr, text, sourceName);
  OwningOpRef<ModuleOp> module;
  if (isKite) {
    // Constants are the frontend's constexprs: they shape blocks.
    ::kite::FrontendOptions frontend;
    for (auto &[name, value] : options.constants) {
      char buf[64];
      if (value == double(int64_t(value)))
        std::snprintf(buf, sizeof buf, "%lld", (long long)value);
      else
        std::snprintf(buf, sizeof buf, "%.17g", value);
      frontend.defines[name] = buf;
    }
    for (auto &[name, value] : options.defines)
      frontend.defines[name] = value;
    frontend.signature = options.signature;
    // The default from the environment (Triton's TRITON_F32_DEFAULT), read
    // here at the runtime's boundary; AnalysisCache.cpp keys on it.
    frontend.inputPrecision = options.inputPrecision;
    if (frontend.inputPrecision.empty())
      if (auto f32Default = ::kite::detail::readEnvironment().f32Default) {
        frontend.inputPrecision = *f32Default;
        frontend.inputPrecisionOrigin = "KITE_F32_DEFAULT";
      }
    frontend.autotuneConfig = options.autotuneConfig;
    frontend.kernel = options.kernel;
    frontend.ignoreAutotune = !options.autotuneConfigs.empty();
    module = ::kite::importKiteSource(sourceMgr, &ctx, frontend);
  } else {
    unsigned line = 0, column = 0;
    const llvm::MemoryBuffer *buffer =
        sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
    std::string text = buffer->getBuffer().str();
    if (std::string hazard = ::kite::findMLIRParserHazard(text, line, column);
        !hazard.empty())
      return Error(ErrorCode::ParseError, buffer->getBufferIdentifier().str() +
                                              ":" + std::to_string(line) + ":" +
                                              std::to_string(column) +
                                              ": error: " + hazard);
    module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  }
  if (!module)
    return Error(ErrorCode::ParseError, diags.text.empty()
                                            ? "the kernel source does not parse"
                                            : diags.text);

  // Select the kernel.
  SmallVector<func::FuncOp> kernels;
  for (auto f : module->getOps<func::FuncOp>())
    if (mlir::kite::isKernel(f))
      kernels.push_back(f);
  func::FuncOp kernel;
  std::string names;
  for (auto f : kernels) {
    names += (names.empty() ? "" : ", ") + f.getSymName().str();
    if (f.getSymName() == options.kernel)
      kernel = f;
  }
  if (kernels.empty())
    return Error(ErrorCode::ParseError,
                 std::string(sourceName) + ": no kernel (a func.func marked "
                                           "kite.kernel) in the module");
  if (!kernel) {
    if (!options.kernel.empty())
      return Error(ErrorCode::InvalidArgument,
                   "no kernel named '" + options.kernel + "' (kernels: " +
                       names + ")");
    if (kernels.size() > 1)
      return Error(ErrorCode::InvalidArgument,
                   "the module has several kernels (" + names +
                       "): choose one with CompileOptions::kernel");
    kernel = kernels.front();
  }
  for (auto f : kernels)
    if (f != kernel)
      f.erase();
  // Autotuning configurations: those the host gives
  // (CompileOptions::autotuneConfigs, replacing the kernel's own; a chosen
  // one compileSource has applied already), else the kernel's, read and
  // taken off it. A chosen one of the kernel's (kite-dialect sources; the
  // frontend applies it itself) binds its constants and sets its warps and
  // stages.
  OpBuilder attrs(&ctx);
  std::vector<TuningConfig> configs = options.autotuneConfigs;
  std::vector<std::string> keyNames = options.autotuneKey;
  auto list = kernel->getAttrOfType<ArrayAttr>(
      mlir::kite::KiteDialect::getAutotuneAttrName());
  if (list && configs.empty()) {
    for (Attribute c : list) {
      TuningConfig config;
      for (NamedAttribute e : cast<DictionaryAttr>(c)) {
        std::string key = e.getName().str();
        if (key == "num_warps")
          config.numWarps = int(cast<IntegerAttr>(e.getValue()).getInt());
        else if (key == "num_stages")
          config.numStages = int(cast<IntegerAttr>(e.getValue()).getInt());
        else if (key == "maxnreg")
          config.maxRegisters = int(cast<IntegerAttr>(e.getValue()).getInt());
        else if (auto i = dyn_cast<IntegerAttr>(e.getValue()))
          config.constants[key] = double(i.getInt());
        else
          config.constants[key] =
              cast<FloatAttr>(e.getValue()).getValueAsDouble();
      }
      configs.push_back(std::move(config));
    }
    if (auto names = kernel->getAttrOfType<ArrayAttr>(
            mlir::kite::KiteDialect::getAutotuneKeyAttrName()))
      for (Attribute a : names)
        keyNames.push_back(cast<StringAttr>(a).str());
  }
  std::vector<int> tuneKey;
  for (const std::string &name : keyNames) {
    int found = -1, runtime = 0;
    for (unsigned i = 0; i < kernel.getNumArguments(); ++i) {
      if (kernel.getArgAttr(i, mlir::kite::KiteDialect::getConstexprAttrName()))
        continue;
      if (argName(kernel, i) == name)
        found = runtime;
      ++runtime;
    }
    if (found < 0)
      return Error(ErrorCode::InvalidArgument,
                   "autotune key '" + name +
                       "' is not a runtime parameter "
                       "of kernel '" +
                       kernel.getSymName().str() + "'");
    tuneKey.push_back(found);
  }
  kernel->removeAttr(mlir::kite::KiteDialect::getAutotuneAttrName());
  kernel->removeAttr(mlir::kite::KiteDialect::getAutotuneKeyAttrName());
  std::map<std::string, double> constants = options.constants;
  if (options.autotuneConfig >= 0 && !isKite) {
    if (size_t(options.autotuneConfig) >= configs.size())
      return Error(ErrorCode::InvalidArgument,
                   "kernel '" + kernel.getSymName().str() + "' has " +
                       std::to_string(configs.size()) +
                       " autotune configs; there is no config " +
                       std::to_string(options.autotuneConfig));
    const TuningConfig &c = configs[size_t(options.autotuneConfig)];
    for (auto &[name, value] : c.constants)
      constants[name] = value;
    if (c.numWarps)
      kernel->setAttr(mlir::kite::KiteDialect::getNumWarpsAttrName(),
                      attrs.getI32IntegerAttr(c.numWarps));
    if (c.numStages)
      kernel->setAttr(mlir::kite::KiteDialect::getNumStagesAttrName(),
                      attrs.getI32IntegerAttr(c.numStages));
    if (c.maxRegisters)
      kernel->setAttr(mlir::kite::KiteDialect::getMaxRegistersAttrName(),
                      attrs.getI32IntegerAttr(c.maxRegisters));
  } else if (!isKite && !configs.empty()) {
    // As written: the first configuration's values where none is given.
    for (auto &[name, value] : configs.front().constants)
      constants.emplace(name, value);
  }
  if (options.autotuneConfig >= 0)
    configs.clear(); // a plain kernel now

  // The options' warps and stages replace the kernel's own (they are then
  // part of the canonical module, hence of the cache keys).
  if (options.overrideNumWarps)
    kernel->setAttr(mlir::kite::KiteDialect::getNumWarpsAttrName(),
                    attrs.getI32IntegerAttr(options.overrideNumWarps));
  if (options.overrideNumStages)
    kernel->setAttr(mlir::kite::KiteDialect::getNumStagesAttrName(),
                    attrs.getI32IntegerAttr(options.overrideNumStages));
  if (options.overrideMaxRegisters)
    kernel->setAttr(mlir::kite::KiteDialect::getMaxRegistersAttrName(),
                    attrs.getI32IntegerAttr(options.overrideMaxRegisters));

  // Bind constexpr parameters.
  auto constexprName = mlir::kite::KiteDialect::getConstexprAttrName();
  std::map<std::string, double> unused =
      isKite ? std::map<std::string, double>() : constants;
  std::string available;
  OpBuilder b(kernel.getBody());
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i) {
    if (!kernel.getArgAttr(i, constexprName))
      continue;
    std::string name = argName(kernel, i);
    available += (available.empty() ? "" : ", ") + name;
    auto it = constants.find(name);
    if (it == constants.end())
      return Error(ErrorCode::InvalidArgument,
                   "constexpr parameter '" + name + "' of kernel '" +
                       kernel.getSymName().str() +
                       "' has no value: set CompileOptions::constants[\"" +
                       name + "\"]");
    unused.erase(name);
    BlockArgument arg = kernel.getArgument(i);
    Type t = arg.getType();
    Value c;
    if (isa<IntegerType>(t)) {
      double v = it->second;
      if (v != double(int64_t(v)))
        return Error(ErrorCode::InvalidArgument,
                     "constexpr parameter '" + name + "' is an integer (" +
                         [&] {
                           std::string s;
                           llvm::raw_string_ostream os(s);
                           os << t;
                           return s;
                         }() +
                         "), got " + std::to_string(v));
      c = arith::ConstantIntOp::create(b, arg.getLoc(), t, int64_t(v));
    } else {
      c = arith::ConstantFloatOp::create(
          b, arg.getLoc(), cast<FloatType>(t),
          APFloat(cast<FloatType>(t).getFloatSemantics(), std::to_string(it->second)));
    }
    arg.replaceAllUsesWith(c);
  }
  if (!unused.empty())
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + kernel.getSymName().str() +
                     "' has no constexpr parameter '" + unused.begin()->first +
                     "'" +
                     (available.empty() ? std::string(" (it has none)")
                                        : " (it has: " + available + ")"));
  if (failed(verify(*module)))
    return Error(ErrorCode::ParseError, diags.text);

  ::kite::detail::Analyzed result;
  ::kite::TargetOptions target;
  target.numWarps = options.numWarps;
  auto infos = ::kite::collectKernelInfo(*module, target);
  const ::kite::KernelInfo &info = infos.front();
  result.signature.name = info.name;
  result.signature.threads = info.threads;
  result.signature.sharedBytes = info.sharedBytes;
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i) {
    if (kernel.getArgAttr(i, constexprName))
      continue;
    Type t = kernel.getArgumentTypes()[i];
    ::kite::Param p;
    if (auto ptr = dyn_cast<mlir::kite::PointerType>(t)) {
      p.pointer = true;
      t = ptr.getPointeeType();
    }
    p.type = paramTypeOf(t);
    p.name = argName(kernel, i);
    p.isUnsigned = bool(kernel.getArgAttr(
        i, mlir::kite::KiteDialect::getArgUnsignedAttrName()));
    if (auto block = kernel.getArgAttrOfType<mlir::DenseI64ArrayAttr>(
            i, mlir::kite::KiteDialect::getArgDescriptorAttrName()))
      p.descriptorBlock.assign(block.asArrayRef().begin(),
                               block.asArrayRef().end());
    result.signature.params.push_back(p);
  }
  result.configs = std::move(configs);
  result.key = std::move(tuneKey);
  llvm::raw_string_ostream os(result.canonical);
  module->print(os, OpPrintingFlags().enableDebugInfo(true, false));
  llvm::raw_string_ostream keyOs(result.keySource);
  module->print(keyOs);
  return result;
}

static ::kite::IRStage publicStage(::kite::Stage s) {
  switch (s) {
  case ::kite::Stage::Kite:
    return ::kite::IRStage::Kite;
  case ::kite::Stage::GPU:
    return ::kite::IRStage::GPU;
  case ::kite::Stage::LLVM:
    return ::kite::IRStage::LLVM;
  case ::kite::Stage::PTX:
    return ::kite::IRStage::PTX;
  }
  return ::kite::IRStage::PTX;
}

auto ::kite::detail::lowerToPTX(const std::string &canonical,
                         const Signature &signature, Specialization spec,
                         const CompileOptions &options,
                         const std::string &chip, const StageFn &onStage,
                         QuickTier *quick)
    -> Expected<std::string> {
  MLIRContext &ctx = threadContext();
  DiagnosticCollector diags(ctx);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(canonical, ParserConfig(&ctx));
  if (!module)
    return Error(ErrorCode::CompileError,
                 "internal error: canonical module does not parse:\n" +
                     diags.text);
  // The specialization's facts, on the GPU parameters (constexprs skipped).
  for (auto f : module->getOps<func::FuncOp>()) {
    if (!mlir::kite::isKernel(f))
      continue;
    unsigned gpuIndex = 0;
    for (unsigned i = 0; i < f.getNumArguments(); ++i) {
      if (f.getArgAttr(i, mlir::kite::KiteDialect::getConstexprAttrName()))
        continue;
      if (gpuIndex < 64 && (spec.divisibleBy16 >> gpuIndex & 1))
        ::kite::specializeArgument(f, i, ::kite::ParamFact::DivisibleBy16);
      if (gpuIndex < 64 && (spec.equalToOne >> gpuIndex & 1))
        ::kite::specializeArgument(f, i, ::kite::ParamFact::EqualToOne);
      ++gpuIndex;
    }
  }
  (void)signature;
  ::kite::TargetOptions target;
  target.chip = chip;
  target.numWarps = options.numWarps;
  target.optLevel = options.optLevel;
  target.ieeeDivision = options.ieeeDivision;
  target.fpFusion = options.fpFusion;
  target.tma = ::kite::detail::tmaEnabled(options);
  target.warpSpecialize = ::kite::detail::warpSpecializeEnabled(options);
  if (quick) {
    quick->warps = ::kite::planQuickTier(*module, target, quick->why);
    target.quickTier = quick->warps > 0;
  }
  ::kite::StageCallback callback;
  if (onStage)
    callback = [&](::kite::Stage s, ModuleOp m) {
      std::string text;
      llvm::raw_string_ostream os(text);
      m.print(os);
      onStage(publicStage(s), text);
    };
  auto compiled = ::kite::compileToPTX(*module, target, callback);
  if (!compiled) {
    std::string message = llvm::toString(compiled.takeError());
    if (::kite::takeRecoveredCrash()) {
      (void)module.release();
      abandonThreadContext();
    }
    return Error(ErrorCode::CompileError, message);
  }
  // Compile warnings (e.g. a block that will spill) go to stderr with the
  // trace (KITE_TRACE); a library prints nothing otherwise.
  if (!compiled->warnings.empty())
    if (::kite::detail::readEnvironment().trace)
      std::fprintf(stderr, "%s", compiled->warnings.c_str());
  return std::move(compiled->ptx);
}

std::string (::kite::detail::interpret)(const std::string &canonical,
                                        const ::kite::Grid &grid,
                                        const std::vector<::kite::Arg> &args,
                                        const std::vector<::kite::Param> &params) {
  MLIRContext &ctx = threadContext();
  DiagnosticCollector diags(ctx);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(canonical, ParserConfig(&ctx));
  if (!module)
    return "internal error: canonical module does not parse:\n" + diags.text;
  // Inline helpers and canonicalize, as the GPU pipeline's first stage.
  PassManager pm(&ctx);
  ::kite::TargetOptions target;
  ::kite::buildKiteToPTXPipeline(pm, target, ::kite::Stage::Kite);
  if (failed(pm.run(*module)))
    return diags.text;
  func::FuncOp kernel;
  for (auto f : module->getOps<func::FuncOp>())
    if (mlir::kite::isKernel(f))
      kernel = f;
  // Constexpr parameters are bound already; they are not arguments.
  llvm::BitVector constexprs(kernel.getNumArguments());
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
    if (kernel.getArgAttr(i, mlir::kite::KiteDialect::getConstexprAttrName()))
      constexprs.set(i);
  if (constexprs.any())
    (void)kernel.eraseArguments(constexprs);

  ::kite::interp::Launch launch;
  launch.grid[0] = grid.x;
  launch.grid[1] = grid.y;
  launch.grid[2] = grid.z;
  for (size_t i = 0; i < args.size(); ++i) {
    const ::kite::Arg &a = args[i];
    ::kite::interp::Value v;
    uint64_t b = a.bits();
    using ST = ::kite::ScalarType;
    if (a.isPointer()) {
      v.i = int64_t(b);
      if (a.extentBytes() == 0)
        return "argument " + std::to_string(i) + " ('" + params[i].name +
               "'): the interpreter needs host memory with its size: pass a "
               "std::vector or kite::Arg::host(pointer, count)";
      launch.buffers.push_back({b, a.extentBytes(), params[i].name});
    } else {
      switch (a.type()) {
      case ST::I1:
        v.i = int64_t(b & 1);
        break;
      case ST::I8:
        v.i = int8_t(b);
        break;
      case ST::I16:
        v.i = int16_t(b);
        break;
      case ST::I32:
        v.i = int32_t(b);
        break;
      case ST::I64:
      case ST::Any:
        v.i = int64_t(b);
        break;
      case ST::F32: {
        float f;
        uint32_t u = uint32_t(b);
        std::memcpy(&f, &u, 4);
        v.isFloat = true;
        v.f = f;
        break;
      }
      case ST::F64: {
        double d;
        std::memcpy(&d, &b, 8);
        v.isFloat = true;
        v.f = d;
        break;
      }
      case ST::F16: {
        _Float16 h;
        uint16_t u = uint16_t(b);
        std::memcpy(&h, &u, 2);
        v.isFloat = true;
        v.f = double(float(h));
        break;
      }
      case ST::BF16: {
        uint32_t u = uint32_t(b & 0xffff) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        v.isFloat = true;
        v.f = f;
        break;
      }
      case ST::F8E4M3:
      case ST::F8E5M2:
        v.isFloat = true;
        v.f = llvm::APFloat(a.type() == ST::F8E4M3
                                ? llvm::APFloat::Float8E4M3FN()
                                : llvm::APFloat::Float8E5M2(),
                            llvm::APInt(8, b & 0xff))
                  .convertToDouble();
        break;
      }
    }
    launch.args.push_back(v);
  }
  return ::kite::interp::run(kernel, launch);
}

bool (::kite::detail::tmaEnabled)(const ::kite::CompileOptions &options) {
  return ::kite::detail::readEnvironment().tma.value_or(options.tma) && options.tma;
}

bool (::kite::detail::tieredEnabled)(const ::kite::CompileOptions &options) {
  return ::kite::detail::readEnvironment().tiered.value_or(options.tiered);
}

bool (::kite::detail::warpSpecializeEnabled)(
    const ::kite::CompileOptions &options) {
  return ::kite::detail::readEnvironment().warpSpecialize.value_or(options.warpSpecialize);
}
