//===- KernelImpl.cpp - Compiling, caching and loading variants -----------===//

#include "Environment.h"
#include "KernelImpl.h"
#include "CudaDriver.h"
#include "DiskCache.h"
#include "Ptxas.h"
#include "kite/Support/MachineCode.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

using namespace kite;
using namespace kite::cuda;

using detail::variantCache;
using detail::variantMutex;

std::mutex &detail::variantMutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<std::string, std::shared_ptr<Variant>> &
detail::variantCache() {
  static std::unordered_map<std::string, std::shared_ptr<Variant>> cache;
  return cache;
}

std::string detail::cubinKeyText(const std::string &ptxKey,
                                 const std::string &chip,
                                 const detail::Ptxas &ptxas) {
  return "cubin of " + ptxKey + " for " + chip + " by " + ptxas.stamp +
         (::kite::detail::readEnvironment().occupancyRetry ? "" : ", no occupancy retry");
}

namespace {
bool dumpEnabled(std::string &where) {
  std::optional<std::string> d = ::kite::detail::readEnvironment().dumpIr;
  if (!d)
    return false;
  where = *d;
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
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
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
Expected<std::shared_ptr<Variant>>
KernelImpl::variant(Specialization spec, const std::string &chip, int device) {
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
  TraceTimer trace(source.signature.name + " spec " + spec.str() + " " + chip +
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
          std::fprintf(stderr, "// ----- kite IR: %s (%s)\n%s\n", label.c_str(),
                       key.c_str(), text.c_str());
        } else {
          std::ofstream(where + "/" + label + ".mlir") << text;
        }
      };
    // The PTX compiler's start-up overlaps the MLIR compile: the
    // in-process one's first use, or a ptxas process for the device.
    detail::prewarmPtxCompiler(chip);
    std::unique_ptr<detail::PtxasProcess> early;
    if (device >= 0 && detail::earlyPtxasEnabled())
      if (const auto &ptxas = detail::findPtxas(); ptxas && !ptxas->inProcess)
        if (auto native = nativeChip(device)) {
          std::string ignored; // a failed start: ptxas runs later
          early = detail::PtxasProcess::start(*ptxas, *native, ignored);
        }
    // Tiered: a kernel with a quick tier launches that first (a compile
    // for a launch, no IR dump asked for).
    // Not without a PTX compiler (ptxas or nvJitLink) for the background
    // compile: the driver's JIT of the optimized PTX would then run on a
    // later launch's thread and stall it.
    bool tiered = device >= 0 && !dump && detail::tieredEnabled(options) &&
                  detail::findPtxas().has_value();
    detail::QuickTier quick;
    auto compiled =
        detail::lowerToPTX(source.canonical, source.signature, spec, options,
                           chip, dump, tiered ? &quick : nullptr);
    if (!compiled && quick.warps > 0) {
      // The quick form must never fail a launch that the optimized one
      // serves: compile untiered (its own error, if any, is the user's).
      quick = detail::QuickTier();
      quick.why = "its quick form did not compile";
      compiled = detail::lowerToPTX(source.canonical, source.signature, spec,
                                    options, chip, dump, nullptr);
    }
    if (!compiled)
      return compiled.error();
    v = std::make_shared<Variant>();
    v->earlyPtxas = std::move(early);
    v->key = key;
    v->ptx = std::move(*compiled);
    toPtxMs = msSince(trace.start);
    if (quick.warps > 0) {
      auto native = nativeChip(device);
      if (!native)
        return native.error();
      v->quick = true;
      v->tierUp = detail::startTierUp({source.canonical, source.signature, spec,
                                       options, chip, *native, keyText, key});
      lastOutcome = int(CacheOutcome::QuickTier);
      trace.note = "quick tier on " + std::to_string(quick.warps) +
                   " warps; the optimized code compiles in the background";
      std::unique_lock<std::shared_mutex> lock(mutex);
      pending.push_back(v->tierUp);
      return v; // neither cached nor resolved: a launchable holds it
    }
    cache::write(keyText, "ptx", v->ptx);
    if (!where.empty())
      std::ofstream(where + "/" + source.signature.name + ".ptx") << v->ptx;
    lastOutcome = int(CacheOutcome::Compiled);
    trace.note = "compiled, " + key.substr(0, 12) +
                 (tiered ? "; no quick tier: " + quick.why : "");
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

Expected<CUfunction> KernelImpl::function(Variant &v, int device) {
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
    if (!v.image.empty() && v.imageChip == *native) {
      image = std::move(v.image); // a tier-up's ptxas made it
      v.image.clear();
      traceLink.note = "made with the optimized PTX";
    } else if (const auto &ptxas = detail::findPtxas()) {
      // A quick tier's cubin is not cached: its key is the optimized one's.
      std::string cubinKey =
          v.quick ? "" : detail::cubinKeyText(v.key, *native, *ptxas);
      // The ptxas started with the compile, if it was for this chip.
      std::unique_ptr<detail::PtxasProcess> early = std::move(v.earlyPtxas);
      if (early && early->chip() != *native)
        early.reset();
      std::optional<std::string> cached;
      if (!v.quick)
        cached = cache::read(cubinKey, "cubin");
      if (cached) {
        image = std::move(*cached);
        traceLink.note = "disk cache";
      } else {
        std::string error;
        support::PerformanceNotes notes;
        support::PerformanceNotes *wanted =
            detail::tracing() ? &notes : nullptr;
        std::optional<std::string> cubin =
            early ? early->finish(v.ptx, error, wanted)
                  : detail::runPtxas(*ptxas, v.ptx, *native, error, wanted);
        if (cubin) {
          image = std::move(*cubin);
          traceLink.note = ptxas->inProcess ? "nvJitLink"
                           : early          ? "ptxas, started early"
                                            : "ptxas";
          if (std::string more =
                  detail::raiseOccupancy(*ptxas, v.ptx, *native, image, wanted);
              !more.empty())
            traceLink.note += "; " + more;
          // What ptxas says costs speed (KITE_TRACE): e.g. "(C7515)
          // Potential Performance Loss: wgmma.mma_async instructions are
          // serialized ...".
          for (const std::string &note : notes)
            traceLink.note += "; ptxas: " + note;
          if (!v.quick)
            cache::write(cubinKey, "cubin", image);
        } else {
          traceLink.note =
              "PTX compiler failed, the driver's JIT instead: " + error;
        }
      }
    }
    if (image.empty()) {
      image = v.ptx; // NUL-terminated by std::string
      isPtx = true;
      if (traceLink.note.empty())
        traceLink.note = "no nvJitLink or ptxas: the driver's JIT of the PTX";
    } else if (detail::tracing()) {
      // What the machine code uses (Triton's n_regs, n_spills).
      auto functions = support::cubinFunctions(image);
      auto it = functions.find(source.signature.name);
      if (it != functions.end())
        traceLink.note += "; " + std::to_string(it->second.registers) +
                          " registers a thread, " +
                          std::to_string(it->second.stackBytes) +
                          " bytes of stack";
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
    CUresult r =
        d.cuModuleLoadDataEx(&module, image.data(), 2, options, values);
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
  if (auto ok = d.check(
          "cuModuleGetFunction",
          d.cuModuleGetFunction(&f, module, source.signature.name.c_str()));
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
    if (auto ok =
            d.check("cuFuncSetAttribute",
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

Expected<KernelImpl::Launchable>
KernelImpl::makeLaunchable(Specialization spec, int device,
                           const std::shared_ptr<Variant> &v) {
  auto f = function(*v, device);
  if (!f)
    return f.error();
  Launchable l{spec,     device,
               *f,       v->dynamicShared.load(),
               nullptr,  unsigned(source.signature.threads),
               v->tierUp};
  auto recipes = detail::parseTensorMaps(v->ptx, source.signature.name);
  if (!recipes)
    return recipes.error();
  if (!recipes->empty())
    l.tensorMaps = std::make_shared<const std::vector<detail::TensorMapRecipe>>(
        std::move(*recipes));
  EntryLaunchShape shape = entryLaunchShape(v->ptx, source.signature.name);
  if (shape.threads)
    l.threads = shape.threads;
  l.cluster = shape.cluster;
  return l;
}

KernelImpl::Launchable KernelImpl::applyTierUp(const Launchable &quick) {
  const TierUp &up = *quick.tierUp;
  Launchable next = quick;
  next.tierUp = nullptr;
  std::string failure = up.error;
  if (up.variant) {
    std::shared_ptr<Variant> v;
    {
      std::lock_guard<std::mutex> lock(variantMutex());
      v = variantCache().emplace(up.variant->key, up.variant).first->second;
    }
    if (auto made = makeLaunchable(quick.spec, quick.device, v))
      next = *made;
    else
      failure = made.error().message();
  }
  if (detail::tracing()) {
    if (failure.empty())
      std::fprintf(stderr,
                   "kite: %s spec %s device %d: the optimized code replaces "
                   "the quick tier (ready %.2f ms after it was queued)\n",
                   source.signature.name.c_str(), quick.spec.str().c_str(),
                   quick.device, up.ms);
    else
      std::fprintf(stderr,
                   "kite: %s spec %s device %d: the optimized compile "
                   "failed; the quick tier stays: %s\n",
                   source.signature.name.c_str(), quick.spec.str().c_str(),
                   quick.device, failure.c_str());
  }
  std::unique_lock<std::shared_mutex> lock(mutex);
  for (Launchable &l : launchables)
    if (l.spec == quick.spec && l.device == quick.device) {
      if (l.tierUp == quick.tierUp) // else another thread switched it
        l = next;
      return l;
    }
  launchables.push_back(next);
  return next;
}
} // namespace kite
