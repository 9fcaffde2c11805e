//===- Runtime.cpp - Kernels, caches and launches ----------------------------===//
//
// A Kernel holds its canonical source and signature; compiled variants are
// keyed by (source, options, specialization, chip, compiler version):
//   1. in memory, process-wide (variantCache below);
//   2. on disk: the PTX under that key, and the cubin the driver's linker
//      made from it under (PTX key, driver version), so a new process loads
//      a cubin without compiling or JIT-ing anything.
// Each variant keeps one CUfunction per device, loaded on first launch.
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"
#include "kite/Pipeline/Pipeline.h"
#include "kite/Support/InputFile.h"

#include "Compile.h"
#include "CudaDriver.h"
#include "TensorMaps.h"
#include "AnalysisCache.h"
#include "Autotune.h"
#include "DiskCache.h"
#include "Ptxas.h"

#include <array>
#include <chrono>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <sstream>
#include <unordered_map>

using namespace kite;
using namespace kite::cuda;

const char *kite::errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::InvalidArgument:
    return "invalid argument";
  case ErrorCode::ParseError:
    return "parse error";
  case ErrorCode::CompileError:
    return "compile error";
  case ErrorCode::NoDriver:
    return "no CUDA driver";
  case ErrorCode::NoDevice:
    return "no such device";
  case ErrorCode::DriverError:
    return "CUDA driver error";
  case ErrorCode::IOError:
    return "I/O error";
  case ErrorCode::ExecutionError:
    return "execution error";
  }
  return "error";
}

const char *kite::scalarTypeName(ScalarType type) {
  static const char *names[] = {"i1",     "i8",     "i16", "i32",
                                "i64",    "f16",    "bf16", "f32",
                                "f64",    "f8e4m3", "f8e5m2", "any"};
  return names[unsigned(type)];
}

//===----------------------------------------------------------------------===//
// Variants and their caches
//===----------------------------------------------------------------------===//

namespace {
/// One compiled specialization of a kernel for one chip.
struct Variant {
  std::string key; ///< disk-cache key of the PTX
  std::string ptx;
  /// Dynamic shared memory a launch provides (the PTX's marker, see
  /// compileToPTX), set when a function is loaded.
  std::atomic<unsigned> dynamicShared{0};
  std::mutex loadMutex;
  /// CUfunction per device ordinal (null until loaded).
  std::array<std::atomic<CUfunction>, 64> functions{};
  /// A ptxas started while this variant's PTX was compiled, for the chip
  /// of the device that launches it (Ptxas.h); guarded by loadMutex.
  std::unique_ptr<detail::PtxasProcess> earlyPtxas;
};

std::mutex &variantMutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<std::string, std::shared_ptr<Variant>> &variantCache() {
  static std::unordered_map<std::string, std::shared_ptr<Variant>> cache;
  return cache;
}

bool dumpEnabled(std::string &where) {
  const char *d = std::getenv("KITE_DUMP_IR");
  if (!d || !*d || std::strcmp(d, "0") == 0)
    return false;
  where = std::strcmp(d, "1") == 0 ? "" : d;
  return true;
}


double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

struct TraceTimer {
  explicit TraceTimer(std::string what) : what(std::move(what)) {}
  ~TraceTimer() {
    if (!detail::tracing())
      return;
    double ms = msSince(start);
    std::fprintf(stderr, "kite: %s: %.2f ms%s\n", what.c_str(), ms,
                 note.empty() ? "" : (" (" + note + ")").c_str());
  }
  std::string what, note;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

const char *stageName(IRStage s) {
  switch (s) {
  case IRStage::Kite:
    return "kite";
  case IRStage::GPU:
    return "gpu";
  case IRStage::LLVM:
    return "llvm";
  case IRStage::PTX:
    return "ptx";
  }
  return "?";
}
} // namespace

namespace kite {
class KernelImpl {
public:
  detail::Analyzed source;
  CompileOptions options;
  /// Set when the kernel has autotuning configurations (Autotune.h).
  std::shared_ptr<detail::Tuning> tuning;
  std::atomic<int> lastOutcome{int(CacheOutcome::Compiled)};
  std::atomic<double> toPtxMs{0}, machineCodeMs{0}, loadMs{0};
  /// Variants this kernel already resolved, by (spec, chip): the launch
  /// path's lock-free-ish fast lookup.
  mutable std::shared_mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<Variant>> resolved;
  /// The chip per device, resolved once.
  std::array<std::string, 64> deviceChips;
  /// Launch fast path: (specialization, device) -> function, once loaded.
  struct Launchable {
    Specialization spec;
    int device;
    CUfunction function;
    unsigned dynamicShared;
    /// The tensor maps its launch encodes (TensorMaps.h).
    std::shared_ptr<const std::vector<detail::TensorMapRecipe>> tensorMaps;
    /// Threads a program (the PTX's .maxntid: a warp-specialized variant
    /// has a producer warp beyond num_warps).
    unsigned threads;
  };
  std::vector<Launchable> launchables; ///< guarded by `mutex`

  std::optional<Launchable> findLaunchable(Specialization spec,
                                           int device) const {
    std::shared_lock<std::shared_mutex> lock(mutex);
    for (const Launchable &l : launchables)
      if (l.spec == spec && l.device == device)
        return l;
    return std::nullopt;
  }

  std::string keyText(Specialization spec, const std::string &chip) const {
    std::ostringstream os;
    os << "compiler=" << detail::compilerVersion()
       << "\nllvm=" << ::kite::llvmCodegenSettings() << "\nchip=" << chip
       << "\nnum_warps=" << options.numWarps << "\nopt=" << options.optLevel
       << "\nieee_div=" << options.ieeeDivision
       << "\nfp_fusion=" << options.fpFusion
       << "\ntma=" << detail::tmaEnabled(options)
       << "\nws=" << detail::warpSpecializeEnabled(options)
       << "\nspec=" << spec.str() << "\nsource=\n"
       << source.keySource;
    return os.str();
  }

  Expected<std::string> chipFor(int device) {
    if (!options.chip.empty())
      return options.chip;
    return nativeChip(device);
  }

  /// The chip of `device` itself (what its machine code must be built
  /// for, whatever the PTX targets).
  Expected<std::string> nativeChip(int device) {
    if (device < 0 || device >= 64)
      return Error(ErrorCode::NoDevice,
                   "device " + std::to_string(device) + " is out of range");
    {
      std::shared_lock<std::shared_mutex> lock(mutex);
      if (!deviceChips[device].empty())
        return deviceChips[device];
    }
    auto chip = chipOf(device);
    if (!chip)
      return chip;
    std::unique_lock<std::shared_mutex> lock(mutex);
    deviceChips[device] = *chip;
    return chip;
  }

  /// The variant for (spec, chip): from this kernel, the process, the disk,
  /// or compiled. A compile for a launch on `device` (>= 0) starts ptxas
  /// for that device's chip beside it.
  Expected<std::shared_ptr<Variant>> variant(Specialization spec,
                                             const std::string &chip,
                                             int device = -1) {
    std::string local = spec.str() + "/" + chip;
    {
      std::shared_lock<std::shared_mutex> lock(mutex);
      auto it = resolved.find(local);
      if (it != resolved.end())
        return it->second;
    }
    std::string keyText = this->keyText(spec, chip);
    std::string key = cache::hashHex(keyText);
    std::shared_ptr<Variant> v;
    {
      std::lock_guard<std::mutex> lock(variantMutex());
      auto it = variantCache().find(key);
      if (it != variantCache().end())
        v = it->second;
    }
    TraceTimer trace(source.signature.name + " spec " +
                     spec.str() + " " + chip +
                     ": PTX");
    toPtxMs = machineCodeMs = loadMs = 0;
    if (v) {
      lastOutcome = int(CacheOutcome::MemoryHit);
      trace.note = "memory cache";
    } else if (auto ptx = cache::read(keyText, "ptx")) {
      trace.note = "disk cache " + key.substr(0, 12);
      v = std::make_shared<Variant>();
      v->key = key;
      v->ptx = std::move(*ptx);
      lastOutcome = int(CacheOutcome::DiskHit);
    } else {
      std::string where;
      detail::StageFn dump;
      if (dumpEnabled(where))
        dump = [&](IRStage s, const std::string &text) {
          std::string label = source.signature.name + "." + stageName(s);
          if (where.empty()) {
            std::fprintf(stderr, "// ----- kite IR: %s (%s)\n%s\n",
                         label.c_str(), key.c_str(), text.c_str());
          } else {
            std::ofstream(where + "/" + label + ".mlir") << text;
          }
        };
      // The PTX compiler's start-up overlaps the MLIR compile: the
      // in-process one's first use, or a ptxas process for the device.
      detail::prewarmPtxCompiler(chip);
      std::unique_ptr<detail::PtxasProcess> early;
      if (device >= 0 && detail::earlyPtxasEnabled())
        if (const auto &ptxas = detail::findPtxas();
            ptxas && !ptxas->inProcess)
          if (auto native = nativeChip(device)) {
            std::string ignored; // a failed start: ptxas runs later
            early = detail::PtxasProcess::start(*ptxas, *native, ignored);
          }
      auto compiled = detail::lowerToPTX(source.canonical, source.signature,
                                         spec, options, chip, dump);
      if (!compiled)
        return compiled.error();
      v = std::make_shared<Variant>();
      v->earlyPtxas = std::move(early);
      v->key = key;
      v->ptx = std::move(*compiled);
      cache::write(keyText, "ptx", v->ptx);
      if (!where.empty())
        std::ofstream(where + "/" + source.signature.name + ".ptx") << v->ptx;
      lastOutcome = int(CacheOutcome::Compiled);
      trace.note = "compiled, " + key.substr(0, 12);
      toPtxMs = msSince(trace.start);
    }
    {
      std::lock_guard<std::mutex> lock(variantMutex());
      auto [it, inserted] = variantCache().emplace(key, v);
      v = it->second; // first one wins
    }
    std::unique_lock<std::shared_mutex> lock(mutex);
    resolved.emplace(local, v);
    return v;
  }

  /// The variant's function on `device` (loading its module once).
  Expected<CUfunction> function(Variant &v, int device) {
    if (CUfunction f = v.functions[device].load(std::memory_order_acquire))
      return f;
    std::lock_guard<std::mutex> lock(v.loadMutex);
    if (CUfunction f = v.functions[device].load(std::memory_order_acquire))
      return f;
    auto drv = driverOn(device);
    if (!drv)
      return drv.error();
    const Driver &d = **drv;
    int version = 0;
    d.cuDriverGetVersion(&version);
    auto chip = chipFor(device);
    if (!chip)
      return chip.error();
    // Machine code compiled as a whole program (Ptxas.h): a cubin from a
    // toolkit's nvJitLink (in process) or ptxas, cached on disk for later
    // processes; else the PTX itself, compiled by the driver's JIT as the
    // module loads.
    std::string image;
    bool isPtx = false;
    {
      TraceTimer traceLink(source.signature.name + " device " +
                           std::to_string(device) + ": cubin");
      // ptxas builds for the device's own chip (PTX for sm_80 runs on an
      // H100 as an sm_90a cubin; an sm_80 cubin would not load).
      auto native = nativeChip(device);
      if (!native)
        return native.error();
      if (const auto &ptxas = detail::findPtxas()) {
        std::string cubinKey =
            "cubin of " + v.key + " for " + *native + " by " + ptxas->stamp;
        // The ptxas started with the compile, if it was for this chip.
        std::unique_ptr<detail::PtxasProcess> early = std::move(v.earlyPtxas);
        if (early && early->chip() != *native)
          early.reset();
        if (auto cached = cache::read(cubinKey, "cubin")) {
          image = std::move(*cached);
          traceLink.note = "disk cache";
        } else {
          std::string error;
          std::optional<std::string> cubin =
              early ? early->finish(v.ptx, error)
                    : detail::runPtxas(*ptxas, v.ptx, *native, error);
          if (cubin) {
            image = std::move(*cubin);
            traceLink.note = ptxas->inProcess ? "nvJitLink"
                             : early          ? "ptxas, started early"
                                              : "ptxas";
            cache::write(cubinKey, "cubin", image);
          } else {
            traceLink.note = "PTX compiler failed, the driver's JIT instead: " + error;
          }
        }
      }
      if (image.empty()) {
        image = v.ptx; // NUL-terminated by std::string
        isPtx = true;
        if (traceLink.note.empty())
          traceLink.note = "no nvJitLink or ptxas: the driver's JIT of the PTX";
      }
      machineCodeMs = msSince(traceLink.start);
    }
    CUmodule module;
    TraceTimer traceLoad(source.signature.name + " device " +
                         std::to_string(device) + ": module load");
    if (isPtx) {
      char log[8192] = {0};
      int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                       CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
      void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
      CUresult r = d.cuModuleLoadDataEx(&module, image.data(), 2, options,
                                        values);
      if (r != CUDA_SUCCESS)
        return Error(ErrorCode::DriverError,
                     d.describe("cuModuleLoadDataEx (JIT of the PTX)", r) +
                         (log[0] ? std::string("\n") + log : ""));
    } else if (auto ok = d.check("cuModuleLoadData",
                                 d.cuModuleLoadData(&module, image.data()));
               !ok) {
      return ok.error();
    }
    CUfunction f;
    if (auto ok = d.check("cuModuleGetFunction",
                          d.cuModuleGetFunction(
                              &f, module, source.signature.name.c_str()));
        !ok)
      return ok.error();
    // Dynamic shared memory (kernels beyond the 48 KB static limit).
    if (unsigned bytes = dynamicSharedOf(v.ptx, source.signature.name)) {
      CUdevice dev;
      int optin = 0;
      if (auto ok = d.check("cuDeviceGet", d.cuDeviceGet(&dev, device)); !ok)
        return ok.error();
      d.cuDeviceGetAttribute(
          &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
      if (optin > 0 && bytes > unsigned(optin))
        return Error(ErrorCode::CompileError,
                     "kernel '" + source.signature.name + "' needs " +
                         std::to_string(bytes) +
                         " bytes of shared memory per program; device " +
                         std::to_string(device) + " offers at most " +
                         std::to_string(optin) + " (use smaller blocks)");
      if (auto ok = d.check("cuFuncSetAttribute",
                            d.cuFuncSetAttribute(
                                f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                int(bytes)));
          !ok)
        return ok.error();
      v.dynamicShared.store(bytes);
    }
    loadMs = msSince(traceLoad.start);
    v.functions[device].store(f, std::memory_order_release);
    return f;
  }

  /// The bytes of dynamic shared memory the PTX's marker line gives for
  /// `name` ("// kite.dynamic_shared_memory NAME BYTES"), else 0.
  static unsigned dynamicSharedOf(const std::string &ptx,
                                  const std::string &name) {
    std::string marker = "// kite.dynamic_shared_memory " + name + " ";
    size_t at = ptx.find(marker);
    if (at == std::string::npos)
      return 0;
    return unsigned(std::strtoul(ptx.c_str() + at + marker.size(), nullptr, 10));
  }

};
} // namespace kite

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

const std::string &Kernel::name() const { return impl_->source.signature.name; }
const std::vector<TuningConfig> &Kernel::configs() const {
  return impl_->source.configs;
}

Expected<TuningConfig> Kernel::tune(const GridFn &grid,
                                    const std::vector<Arg> &args,
                                    const LaunchOptions &options) const {
  if (!impl_->tuning)
    return TuningConfig{};
  if (auto ok = checkArgs(args); !ok)
    return ok.error();
  auto index = detail::chooseConfig(*impl_->tuning, grid, args, options);
  if (!index)
    return index.error();
  return impl_->tuning->configs[*index];
}

Expected<void> Kernel::pruneConfigs(ConfigFilter keep) const {
  if (!impl_->tuning)
    return Error(ErrorCode::InvalidArgument,
                 "pruneConfigs: the kernel has no autotune configurations");
  std::lock_guard<std::mutex> lock(impl_->tuning->mutex);
  impl_->tuning->keep = std::move(keep);
  impl_->tuning->chosen.clear();
  return Success{};
}

Expected<void> Kernel::launch(const GridFn &grid, const std::vector<Arg> &args,
                              const LaunchOptions &options) const {
  if (!impl_->tuning)
    return launch(grid(TuningConfig{}), args, options);
  if (auto ok = checkArgs(args); !ok)
    return ok;
  auto index = detail::chooseConfig(*impl_->tuning, grid, args, options);
  if (!index)
    return index.error();
  auto k = detail::configKernel(*impl_->tuning, *index);
  if (!k)
    return k.error();
  return k->launch(grid(impl_->tuning->configs[*index]), args, options);
}

const std::vector<Param> &Kernel::params() const {
  return impl_->source.signature.params;
}
int Kernel::threadsPerProgram() const { return impl_->source.signature.threads; }
CompileTimes Kernel::lastCompileTimes() const {
  return {impl_->toPtxMs.load(), impl_->machineCodeMs.load(),
          impl_->loadMs.load()};
}

CacheOutcome Kernel::lastOutcome() const {
  return CacheOutcome(impl_->lastOutcome.load());
}

static std::string describe(const Param &p) {
  return p.pointer ? std::string("pointer to ") + scalarTypeName(p.type)
                   : std::string(scalarTypeName(p.type));
}

Expected<void> Kernel::checkArgs(const std::vector<Arg> &args) const {
  const auto &sig = impl_->source.signature;
  if (args.size() != sig.params.size())
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + sig.name + "' takes " +
                     std::to_string(sig.params.size()) + " argument(s), got " +
                     std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const Param &p = sig.params[i];
    const Arg &a = args[i];
    auto bad = [&](const std::string &got) -> Expected<void> {
      return Error(ErrorCode::InvalidArgument,
                   "kernel '" + sig.name + "', argument " + std::to_string(i) +
                       " ('" + p.name + "'): expected " + describe(p) +
                       ", got " + got);
    };
    if (p.pointer != a.isPointer())
      return bad(a.isPointer() ? "a pointer"
                               : std::string("a scalar ") +
                                     scalarTypeName(a.type()));
    if (p.pointer) {
      if (a.bits() == 0)
        return bad("a null pointer");
      if (a.type() != ScalarType::Any && a.type() != p.type &&
          !(p.type == ScalarType::I1 && a.type() == ScalarType::I8) &&
          !((p.type == ScalarType::F16 || p.type == ScalarType::BF16) &&
            a.type() == ScalarType::I16) &&
          !((p.type == ScalarType::F8E4M3 || p.type == ScalarType::F8E5M2) &&
            a.type() == ScalarType::I8))
        return bad(std::string("a pointer to ") + scalarTypeName(a.type()));
    } else if (a.type() != p.type) {
      return bad(std::string("a scalar ") + scalarTypeName(a.type()));
    }
  }
  return Success{};
}

Specialization Kernel::specializationFor(const std::vector<Arg> &args) const {
  Specialization spec;
  const auto &params = impl_->source.signature.params;
  for (size_t i = 0; i < args.size() && i < params.size() && i < 64; ++i) {
    const Arg &a = args[i];
    bool integer = a.type() == ScalarType::I32 || a.type() == ScalarType::I64;
    if ((a.isPointer() || integer) && a.bits() % 16 == 0)
      spec.divisibleBy16 |= uint64_t(1) << i;
    if (integer && a.bits() == 1)
      spec.equalToOne |= uint64_t(1) << i;
  }
  return spec;
}

static std::string defaultChip(KernelImpl &impl) {
  if (!impl.options.chip.empty())
    return impl.options.chip;
  if (auto chip = impl.chipFor(0))
    return *chip;
  return "sm_90";
}

Expected<std::string> Kernel::ptx(Specialization spec) const {
  auto v = impl_->variant(spec, defaultChip(*impl_));
  if (!v)
    return v.error();
  return (*v)->ptx;
}

Expected<std::string> Kernel::ir(IRStage stage, Specialization spec) const {
  std::string result;
  auto ptx = detail::lowerToPTX(
      impl_->source.canonical, impl_->source.signature, spec, impl_->options,
      defaultChip(*impl_), [&](IRStage s, const std::string &text) {
        if (s == stage)
          result = text;
      });
  if (!ptx)
    return ptx.error();
  return stage == IRStage::PTX ? *ptx : result;
}

std::string Kernel::cacheKey(Specialization spec) const {
  return cache::hashHex(impl_->keyText(spec, defaultChip(*impl_)));
}

Expected<void> Kernel::interpret(Grid grid, const std::vector<Arg> &args) const {
  if (auto ok = checkArgs(args); !ok)
    return ok;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return Error(ErrorCode::InvalidArgument,
                 "grid dimensions must be >= 1");
  std::string err = detail::interpret(impl_->source.canonical, grid, args,
                                      impl_->source.signature.params);
  if (!err.empty())
    return Error(err.rfind("argument ", 0) == 0 ? ErrorCode::InvalidArgument
                                                : ErrorCode::ExecutionError,
                 err);
  return Success{};
}

/// The threads a program of `kernel` in `ptx` (".maxntid N, 1, 1" after its
/// entry), 0 if not found.
static unsigned threadsOf(const std::string &ptx, const std::string &kernel) {
  size_t entry = ptx.find(".entry " + kernel + "(");
  if (entry == std::string::npos)
    return 0;
  size_t at = ptx.find(".maxntid ", entry);
  if (at == std::string::npos)
    return 0;
  return unsigned(std::strtoul(ptx.c_str() + at + 9, nullptr, 10));
}

Expected<void> Kernel::launch(Grid grid, const std::vector<Arg> &args,
                              const LaunchOptions &options) const {
  if (auto ok = checkArgs(args); !ok)
    return ok;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.y > 65535 ||
      grid.z > 65535)
    return Error(ErrorCode::InvalidArgument,
                 "grid (" + std::to_string(grid.x) + ", " +
                     std::to_string(grid.y) + ", " + std::to_string(grid.z) +
                     ") is invalid: every dimension must be >= 1, y and z "
                     "<= 65535");
  auto drv = driver();
  if (!drv)
    return drv.error();
  if (options.device < 0 || options.device >= 64)
    return Error(ErrorCode::NoDevice,
                 "device " + std::to_string(options.device) + " is out of range");
  if (auto ok = useDevice(options.device); !ok)
    return ok;
  Specialization spec = specializationFor(args);
  CUfunction function = nullptr;
  unsigned dynamicShared = 0;
  std::shared_ptr<const std::vector<detail::TensorMapRecipe>> tensorMaps;
  unsigned threads = impl_->source.signature.threads;
  if (auto l = impl_->findLaunchable(spec, options.device)) {
    function = l->function;
    dynamicShared = l->dynamicShared;
    tensorMaps = l->tensorMaps;
    threads = l->threads;
  } else {
    auto chip = impl_->chipFor(options.device);
    if (!chip)
      return chip.error();
    auto v = impl_->variant(spec, *chip, options.device);
    if (!v)
      return v.error();
    auto f = impl_->function(**v, options.device);
    if (!f)
      return f.error();
    function = *f;
    dynamicShared = (*v)->dynamicShared.load();
    auto recipes = detail::parseTensorMaps((*v)->ptx, name());
    if (!recipes)
      return recipes.error();
    if (!recipes->empty())
      tensorMaps = std::make_shared<const std::vector<detail::TensorMapRecipe>>(
          std::move(*recipes));
    if (unsigned t = threadsOf((*v)->ptx, name()))
      threads = t;
    std::unique_lock<std::shared_mutex> lock(impl_->mutex);
    impl_->launchables.push_back(
        {spec, options.device, function, dynamicShared, tensorMaps, threads});
  }
  void *params[64];
  for (size_t i = 0; i < args.size(); ++i)
    params[i] = const_cast<void *>(args[i].storage());
  const Driver &d = **drv;
  const auto &sig = impl_->source.signature;
  // TMA descriptors, after the kernel's own parameters (by value: the
  // launch copies them).
  std::array<detail::TensorMap, 4> maps;
  if (tensorMaps) {
    if (tensorMaps->size() > maps.size() ||
        args.size() + tensorMaps->size() > 64)
      return Error(ErrorCode::CompileError,
                   "kernel '" + sig.name + "' needs too many tensor maps");
    for (size_t j = 0; j < tensorMaps->size(); ++j) {
      const detail::TensorMapRecipe &r = (*tensorMaps)[j];
      if (r.param != args.size() + j)
        return Error(ErrorCode::CompileError,
                     "kernel '" + sig.name + "': tensor map " +
                         std::to_string(j) + " is parameter " +
                         std::to_string(r.param) + ", expected " +
                         std::to_string(args.size() + j));
      if (auto ok = detail::encodeTensorMap(d, r, args, sig.name, maps[j]);
          !ok)
        return ok;
      params[args.size() + j] = maps[j].bytes.data();
    }
  }
  cuda::noteLaunch(sig.name);
  return d.check("cuLaunchKernel",
                 d.cuLaunchKernel(function, grid.x, grid.y, grid.z, threads, 1, 1,
                                  dynamicShared,
                                  static_cast<CUstream>(options.stream), params,
                                  nullptr));
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

static bool isWarpCount(int n) { return n >= 1 && n <= 32 && !(n & (n - 1)); }

static Expected<void> checkOptions(const CompileOptions &o) {
  if (!isWarpCount(o.numWarps))
    return Error(ErrorCode::InvalidArgument,
                 "numWarps must be a power of two in [1, 32], got " +
                     std::to_string(o.numWarps));
  if (o.overrideNumWarps && !isWarpCount(o.overrideNumWarps))
    return Error(ErrorCode::InvalidArgument,
                 "overrideNumWarps must be 0 (the kernel's own) or a power of "
                 "two in [1, 32], got " +
                     std::to_string(o.overrideNumWarps));
  if (o.overrideNumStages < 0 || o.overrideNumStages > 8)
    return Error(ErrorCode::InvalidArgument,
                 "overrideNumStages must be 0 (the kernel's own) or in [1, 8], "
                 "got " + std::to_string(o.overrideNumStages));
  if (o.optLevel < 0 || o.optLevel > 3)
    return Error(ErrorCode::InvalidArgument,
                 "optLevel must be in [0, 3], got " +
                     std::to_string(o.optLevel));
  if (!o.chip.empty() && o.chip.rfind("sm_", 0) != 0)
    return Error(ErrorCode::InvalidArgument,
                 "chip must look like sm_90, got '" + o.chip + "'");
  return Success{};
}

static Expected<Kernel> compileSource(std::string_view text,
                                      const CompileOptions &options,
                                      std::string_view sourceName,
                                      bool isKite) {
  if (auto ok = checkOptions(options); !ok)
    return ok.error();
  // The analysis (parse, verify, select the kernel, bind constants) of the
  // same source, options and compiler comes from the disk cache when it is
  // there: a new process then reaches a cached cubin without creating an
  // MLIR context at all (the warm start).
  std::string analysisKey = detail::analysisKeyText(text, options, sourceName, isKite);
  std::optional<detail::Analyzed> analyzed;
  if (auto bytes = cache::read(analysisKey, "src"))
    analyzed = detail::deserializeAnalysis(*bytes);
  if (!analyzed) {
    auto fresh = detail::analyzeSource(text, sourceName, options, isKite);
    if (!fresh)
      return fresh.error();
    analyzed = std::move(*fresh);
    cache::write(analysisKey, "src", detail::serializeAnalysis(*analyzed));
  }
  auto impl = std::make_shared<KernelImpl>();
  impl->source = std::move(*analyzed);
  if (!impl->source.configs.empty()) {
    auto tuning = std::make_shared<detail::Tuning>();
    tuning->text = std::string(text);
    tuning->sourceName = std::string(sourceName);
    tuning->isKite = isKite;
    tuning->options = options;
    tuning->configs = impl->source.configs;
    tuning->key = impl->source.key;
    impl->tuning = std::move(tuning);
  }
  impl->options = options;
  if (impl->source.signature.params.size() > 64)
    return Error(ErrorCode::InvalidArgument,
                 "kernels take at most 64 parameters");
  return Kernel(impl);
}

Expected<Kernel> kite::compileMLIR(std::string_view text,
                                   const CompileOptions &options,
                                   std::string_view sourceName) {
  return compileSource(text, options, sourceName, /*isKite=*/false);
}

Expected<Kernel> kite::compileKite(std::string_view text,
                                   const CompileOptions &options,
                                   std::string_view sourceName) {
  return compileSource(text, options, sourceName, /*isKite=*/true);
}

Expected<Kernel> kite::compileFile(const std::string &path,
                                   const CompileOptions &options) {
  // Regular files of at most 64 MiB (kite/Support/InputFile.h): a
  // directory, FIFO or device is an error, never a hang or an abort.
  std::string text, error;
  if (!readInputFile(path, text, error))
    return Error(ErrorCode::IOError, error);
  bool isKite = path.size() >= 5 && path.compare(path.size() - 5, 5, ".kite") == 0;
  return compileSource(text, options, path, isKite);
}

void kite::clearMemoryCache() {
  std::lock_guard<std::mutex> lock(variantMutex());
  variantCache().clear();
}

std::string kite::cacheDirectory() { return cache::directory(); }
