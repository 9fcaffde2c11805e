//===- Runtime.cpp - Kernels and launches ------------------------------------===//
//
// The public Kernel API and the compile entry points. How variants are
// compiled, cached and loaded: KernelImpl.h.
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"
#include "kite/Pipeline/Pipeline.h"
#include "kite/Support/Clusters.h"
#include "kite/Support/InputFile.h"

#include "AnalysisCache.h"
#include "DiskCache.h"
#include "HostDescriptors.h"
#include "KernelImpl.h"

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

int kite::scalarTypeBytes(ScalarType t) {
  switch (t) {
  case ScalarType::I1:
  case ScalarType::I8:
  case ScalarType::F8E4M3:
  case ScalarType::F8E5M2:
    return 1;
  case ScalarType::I16:
  case ScalarType::F16:
  case ScalarType::BF16:
    return 2;
  case ScalarType::I32:
  case ScalarType::F32:
    return 4;
  case ScalarType::I64:
  case ScalarType::F64:
    return 8;
  case ScalarType::Any:
    return 0;
  }
  return 0;
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


//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

static Expected<const std::vector<Arg> *> gpuArgs(const KernelImpl &impl,
                                                  const std::vector<Arg> &args,
                                                  std::vector<Arg> &storage);

/// A tuned kernel's arguments as the GPU takes them (gpuArgs) and the
/// configuration chosen for them.
struct ChosenConfig {
  const std::vector<Arg> *gpu;
  int index;
};
static Expected<ChosenConfig> chooseFor(const KernelImpl &impl,
                                        const Kernel::GridFn &grid,
                                        const std::vector<Arg> &args,
                                        std::vector<Arg> &storage,
                                        const LaunchOptions &options) {
  auto gpu = gpuArgs(impl, args, storage);
  if (!gpu)
    return gpu.error();
  auto index = detail::chooseConfig(*impl.tuning, grid, **gpu, options);
  if (!index)
    return index.error();
  return ChosenConfig{*gpu, *index};
}

/// A kernel typed at launch (LaunchTyping.h): the typed kernel of `args`,
/// and in `forwarded` what it takes.
#define KITE_TYPED_AT_LAUNCH(args, forwarded, typed)                           \
  std::vector<Arg> forwarded;                                                  \
  auto typed = detail::typedKernel(*impl_->generic, args, forwarded);          \
  if (!typed)                                                                  \
    return typed.error();

/// The most recent typed kernel of a generic one, if any.
static std::optional<Kernel> lastTyped(const KernelImpl &impl) {
  std::lock_guard<std::mutex> lock(impl.generic->mutex);
  return impl.generic->last;
}

static Error typedAtLaunch(const KernelImpl &impl, const char *what) {
  std::string names;
  for (size_t i : impl.generic->argParams) {
    const detail::DeclaredParam &p = impl.generic->kernel.params[i];
    if (p.kind == detail::DeclaredParam::Untyped)
      names += (names.empty() ? "" : ", ") + p.name;
  }
  return Error(ErrorCode::InvalidArgument,
               std::string("kernel '") + impl.generic->kernel.name +
                   "' is typed at launch (unannotated parameters: " + names +
                   "): its " + what +
                   " exists per signature; give the types with "
                   "CompileOptions::signature (kitec --signature)");
}

const std::string &Kernel::name() const { return impl_->source.signature.name; }
const std::vector<TuningConfig> &Kernel::configs() const {
  if (impl_->generic)
    if (auto k = lastTyped(*impl_))
      return k->configs(); // kept alive by the generic kernel's map
  return impl_->source.configs;
}

std::vector<std::string> Kernel::autotuneKey() const {
  if (impl_->generic)
    if (auto k = lastTyped(*impl_))
      return k->autotuneKey();
  std::vector<std::string> names;
  const std::vector<Param> &ps = params();
  for (int i : impl_->source.key)
    if (i >= 0 && size_t(i) < ps.size())
      names.push_back(ps[size_t(i)].name);
  return names;
}

Expected<TuningConfig> Kernel::tune(const GridFn &grid,
                                    const std::vector<Arg> &args,
                                    const LaunchOptions &options) const {
  if (impl_->generic) {
    KITE_TYPED_AT_LAUNCH(args, forwarded, typed)
    return typed->tune(grid, forwarded, options);
  }
  if (!impl_->tuning)
    return TuningConfig{};
  std::vector<Arg> storage;
  auto chosen = chooseFor(*impl_, grid, args, storage, options);
  if (!chosen)
    return chosen.error();
  return impl_->tuning->configs[chosen->index];
}

Expected<void> Kernel::pruneConfigs(ConfigFilter keep) const {
  if (impl_->generic) {
    // Every typed kernel with configurations, now and later.
    std::lock_guard<std::mutex> lock(impl_->generic->mutex);
    impl_->generic->keep = keep;
    for (auto &[key, k] : impl_->generic->typed)
      if (!k.configs().empty())
        if (auto ok = k.pruneConfigs(keep); !ok)
          return ok.error();
    return Success{};
  }
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
  if (impl_->generic) {
    KITE_TYPED_AT_LAUNCH(args, forwarded, typed)
    return typed->launch(grid, forwarded, options);
  }
  if (!impl_->tuning)
    return launch(grid(TuningConfig{}), args, options);
  std::vector<Arg> storage;
  auto chosen = chooseFor(*impl_, grid, args, storage, options);
  if (!chosen)
    return chosen.error();
  auto k = detail::configKernel(*impl_->tuning, chosen->index);
  if (!k)
    return k.error();
  return k->launch(grid(impl_->tuning->configs[chosen->index]), *chosen->gpu,
                   options);
}

Expected<void> Kernel::finishCompiles() const {
  if (impl_->generic) {
    std::vector<Kernel> typed;
    {
      std::lock_guard<std::mutex> lock(impl_->generic->mutex);
      for (auto &[key, k] : impl_->generic->typed)
        typed.push_back(k);
    }
    for (const Kernel &k : typed)
      if (auto ok = k.finishCompiles(); !ok)
        return ok.error();
    return Success{};
  }
  std::vector<std::shared_ptr<TierUp>> pending;
  {
    std::shared_lock<std::shared_mutex> lock(impl_->mutex);
    pending = impl_->pending;
  }
  for (const auto &up : pending) {
    up->wait();
    if (!up->variant)
      return Error(ErrorCode::CompileError,
                   "kernel '" + name() +
                       "': the optimized compile failed (its quick tier "
                       "runs): " + up->error);
  }
  return Success{};
}

const std::vector<Param> &Kernel::params() const {
  return impl_->source.signature.params;
}
int Kernel::threadsPerProgram() const { return impl_->source.signature.threads; }
CompileTimes Kernel::lastCompileTimes() const {
  if (impl_->generic)
    if (auto k = lastTyped(*impl_))
      return k->lastCompileTimes();
  return {impl_->toPtxMs.load(), impl_->machineCodeMs.load(),
          impl_->loadMs.load()};
}

CacheOutcome Kernel::lastOutcome() const {
  if (impl_->generic)
    if (auto k = lastTyped(*impl_))
      return k->lastOutcome();
  return CacheOutcome(impl_->lastOutcome.load());
}

static std::string describe(const Param &p) {
  return p.pointer ? std::string("pointer to ") + scalarTypeName(p.type)
                   : std::string(scalarTypeName(p.type));
}

/// `args` (one per GPU parameter: descriptors expanded) against `sig`.
static Expected<void> checkGpuArgs(const detail::Signature &sig,
                                   const std::vector<Arg> &args) {
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

/// `args` as the GPU takes them (host descriptors expanded, in `storage`),
/// checked against the signature.
/// An autotuned kernel's configurations may set a descriptor's block
/// shape (each builds its descriptors with its own), so there a
/// descriptor's block is not held against the signature's.
static Expected<const std::vector<Arg> *> gpuArgs(const KernelImpl &impl,
                                                  const std::vector<Arg> &args,
                                                  std::vector<Arg> &storage) {
  const detail::Signature &sig = impl.source.signature;
  const bool autotuned = bool(impl.tuning);
  auto expanded = detail::expandDescriptorArgs(sig.name, sig.params, args,
                                               storage, !autotuned);
  if (!expanded)
    return expanded.error();
  if (auto ok = checkGpuArgs(sig, **expanded); !ok)
    return ok.error();
  return *expanded;
}

Expected<void> Kernel::checkArgs(const std::vector<Arg> &args) const {
  if (impl_->generic) {
    KITE_TYPED_AT_LAUNCH(args, forwarded, typed)
    return typed->checkArgs(forwarded);
  }
  std::vector<Arg> storage;
  auto ok = gpuArgs(*impl_, args, storage);
  if (!ok)
    return ok.error();
  return Success{};
}

Specialization Kernel::specializationFor(const std::vector<Arg> &args) const {
  if (impl_->generic) {
    std::vector<Arg> forwarded;
    auto typed = detail::typedKernel(*impl_->generic, args, forwarded);
    return typed ? typed->specializationFor(forwarded) : Specialization{};
  }
  Specialization spec;
  const auto &params = impl_->source.signature.params;
  for (size_t i = 0; i < args.size() && i < params.size() && i < 64; ++i) {
    const Arg &a = args[i];
    bool integer = a.type() == ScalarType::I32 || a.type() == ScalarType::I64;
    // Integers: positive multiples of 16 (a stride or size the compiler may
    // also take for a tensor map's, which must be positive: a row stride of
    // 0 or below keeps the general code).
    int64_t value = a.type() == ScalarType::I32 ? int64_t(int32_t(a.bits()))
                                                : int64_t(a.bits());
    if ((a.isPointer() && a.bits() % 16 == 0) ||
        (integer && !a.isPointer() && value > 0 && value % 16 == 0))
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
  if (impl_->generic)
    return typedAtLaunch(*impl_, "PTX");
  auto v = impl_->variant(spec, defaultChip(*impl_));
  if (!v)
    return v.error();
  return (*v)->ptx;
}

Expected<std::string> Kernel::ir(IRStage stage, Specialization spec) const {
  if (impl_->generic)
    return typedAtLaunch(*impl_, "IR");
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
  if (impl_->generic)
    return ""; // per signature
  return cache::hashHex(impl_->keyText(spec, defaultChip(*impl_)));
}

Expected<void> Kernel::interpret(Grid grid,
                                 const std::vector<Arg> &userArgs) const {
  if (impl_->generic) {
    KITE_TYPED_AT_LAUNCH(userArgs, forwarded, typed)
    return typed->interpret(grid, forwarded);
  }
  std::vector<Arg> storage;
  auto gpu = gpuArgs(*impl_, userArgs, storage);
  if (!gpu)
    return gpu.error();
  const std::vector<Arg> &args = **gpu;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return Error(ErrorCode::InvalidArgument,
                 "grid dimensions must be >= 1");
  std::string err = detail::interpret(impl_->source.canonical, grid, args,
                                      impl_->source.signature.params);
  if (!err.empty())
    return Error(err.rfind("argument ", 0) == 0 || err.rfind("grid ", 0) == 0
                     ? ErrorCode::InvalidArgument
                     : ErrorCode::ExecutionError,
                 err);
  return Success{};
}

/// The loaded variant `args` select on `options.device` (compiled and
/// loaded if need be; a ready tier-up switched to).
static Expected<KernelImpl::Launchable>
launchableFor(KernelImpl &impl, Specialization spec,
              const LaunchOptions &options) {
  auto drv = driver();
  if (!drv)
    return drv.error();
  if (options.device < 0 || options.device >= 64)
    return Error(ErrorCode::NoDevice, "device " +
                                          std::to_string(options.device) +
                                          " is out of range");
  if (auto ok = useDevice(options.device); !ok)
    return ok.error();
  std::optional<KernelImpl::Launchable> l =
      impl.findLaunchable(spec, options.device);
  if (l && l->tierUp && l->tierUp->ready())
    l = impl.applyTierUp(*l);
  if (l)
    return *l;
  auto chip = impl.chipFor(options.device);
  if (!chip)
    return chip.error();
  auto v = impl.variant(spec, *chip, options.device);
  if (!v)
    return v.error();
  auto made = impl.makeLaunchable(spec, options.device, *v);
  if (!made)
    return made.error();
  std::unique_lock<std::shared_mutex> lock(impl.mutex);
  impl.launchables.push_back(*made);
  return *made;
}

Expected<int> Kernel::maxActivePrograms(const std::vector<Arg> &userArgs,
                                        const LaunchOptions &options) const {
  if (impl_->generic) {
    KITE_TYPED_AT_LAUNCH(userArgs, forwarded, typed)
    return typed->maxActivePrograms(forwarded, options);
  }
  std::vector<Arg> storage;
  auto gpu = gpuArgs(*impl_, userArgs, storage);
  if (!gpu)
    return gpu.error();
  const std::vector<Arg> &args = **gpu;
  auto l = launchableFor(*impl_, specializationFor(args), options);
  if (!l)
    return l.error();
  const Driver &d = *driver().value();
  int clusterSize = int(l->cluster[0] * l->cluster[1] * l->cluster[2]);
  if (clusterSize > 1) {
    if (!d.cuOccupancyMaxActiveClusters)
      return Error(ErrorCode::DriverError,
                   "the driver lacks cuOccupancyMaxActiveClusters");
    // The kernel's own cluster (.reqnctapercluster); a grid of one
    // cluster's worth of programs is enough for the query.
    cuda::CUlaunchConfig config{l->cluster[0],
                                l->cluster[1],
                                l->cluster[2],
                                l->threads,
                                1,
                                1,
                                l->dynamicShared,
                                static_cast<CUstream>(options.stream),
                                nullptr,
                                0};
    int clusters = 0;
    if (auto ok = d.check(
            "cuOccupancyMaxActiveClusters",
            d.cuOccupancyMaxActiveClusters(&clusters, l->function, &config));
        !ok)
      return ok.error();
    return clusters * clusterSize;
  }
  if (!d.cuOccupancyMaxActiveBlocksPerMultiprocessor)
    return Error(
        ErrorCode::DriverError,
        "the driver lacks cuOccupancyMaxActiveBlocksPerMultiprocessor");
  int perSM = 0;
  if (auto ok =
          d.check("cuOccupancyMaxActiveBlocksPerMultiprocessor",
                  d.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                      &perSM, l->function, int(l->threads), l->dynamicShared));
      !ok)
    return ok.error();
  auto sms = deviceMultiprocessors(options.device);
  if (!sms)
    return sms.error();
  return perSM * *sms;
}

Expected<void> Kernel::launch(Grid grid, const std::vector<Arg> &userArgs,
                              const LaunchOptions &options) const {
  if (impl_->generic) {
    KITE_TYPED_AT_LAUNCH(userArgs, forwarded, typed)
    return typed->launch(grid, forwarded, options);
  }
  std::vector<Arg> storage;
  auto gpu = gpuArgs(*impl_, userArgs, storage);
  if (!gpu)
    return gpu.error();
  const std::vector<Arg> &args = **gpu;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.y > 65535 ||
      grid.z > 65535)
    return Error(ErrorCode::InvalidArgument,
                 "grid (" + std::to_string(grid.x) + ", " +
                     std::to_string(grid.y) + ", " + std::to_string(grid.z) +
                     ") is invalid: every dimension must be >= 1, y and z "
                     "<= 65535");
  auto l = launchableFor(*impl_, specializationFor(args), options);
  if (!l)
    return l.error();
  const Driver &d = *driver().value();
  const uint32_t programs[3] = {grid.x, grid.y, grid.z};
  if (std::string err = clusterGridError(programs, l->cluster.data(),
                                         impl_->source.signature.name);
      !err.empty())
    return Error(ErrorCode::InvalidArgument, err);
  CUfunction function = l->function;
  unsigned dynamicShared = l->dynamicShared;
  const auto &tensorMaps = l->tensorMaps;
  unsigned threads = l->threads;
  void *params[64];
  for (size_t i = 0; i < args.size(); ++i)
    params[i] = const_cast<void *>(args[i].storage());
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
  if (o.overrideMaxRegisters &&
      (o.overrideMaxRegisters < 24 || o.overrideMaxRegisters > 255))
    return Error(ErrorCode::InvalidArgument,
                 "overrideMaxRegisters must be 0 (the kernel's own) or in "
                 "[24, 255], got " +
                     std::to_string(o.overrideMaxRegisters));
  if (o.optLevel < 0 || o.optLevel > 3)
    return Error(ErrorCode::InvalidArgument,
                 "optLevel must be in [0, 3], got " +
                     std::to_string(o.optLevel));
  if (!o.chip.empty() && o.chip.rfind("sm_", 0) != 0)
    return Error(ErrorCode::InvalidArgument,
                 "chip must look like sm_90, got '" + o.chip + "'");
  for (size_t i = 0; i < o.autotuneConfigs.size(); ++i) {
    const TuningConfig &c = o.autotuneConfigs[i];
    std::string which =
        "autotuneConfigs[" + std::to_string(i) + "] (" + c.str() + "): ";
    if (c.numWarps && !isWarpCount(c.numWarps))
      return Error(ErrorCode::InvalidArgument,
                   which + "num_warps must be 0 (the kernel's own) or a power "
                           "of two in [1, 32]");
    if (c.numStages < 0 || c.numStages > 8)
      return Error(ErrorCode::InvalidArgument,
                   which + "num_stages must be 0 (the kernel's own) or in "
                           "[1, 8]");
    if (c.maxRegisters && (c.maxRegisters < 24 || c.maxRegisters > 255))
      return Error(ErrorCode::InvalidArgument,
                   which + "maxnreg must be 0 (the kernel's own) or in "
                           "[24, 255]");
  }
  if (o.autotuneConfigs.empty() && !o.autotuneKey.empty())
    return Error(ErrorCode::InvalidArgument,
                 "autotuneKey needs autotuneConfigs");
  if (!o.autotuneConfigs.empty() &&
      o.autotuneConfig >= int(o.autotuneConfigs.size()))
    return Error(ErrorCode::InvalidArgument,
                 "autotuneConfig " + std::to_string(o.autotuneConfig) +
                     ": there are " + std::to_string(o.autotuneConfigs.size()) +
                     " autotuneConfigs");
  return Success{};
}

/// The host's autotuning configurations resolved: with `autotuneConfig`
/// set, that configuration applied as constants and overrides (a plain
/// kernel: the tuner's trials); else, the first configuration's constants
/// where the options give none (the kernel as written).
static CompileOptions applyHostConfigs(const CompileOptions &options) {
  CompileOptions o = options;
  if (o.autotuneConfigs.empty())
    return o;
  if (o.autotuneConfig >= 0) {
    const TuningConfig &c = o.autotuneConfigs[size_t(o.autotuneConfig)];
    for (auto &[name, value] : c.constants)
      o.constants[name] = value;
    if (c.numWarps)
      o.overrideNumWarps = c.numWarps;
    if (c.numStages)
      o.overrideNumStages = c.numStages;
    if (c.maxRegisters)
      o.overrideMaxRegisters = c.maxRegisters;
    o.autotuneConfigs.clear();
    o.autotuneKey.clear();
    o.autotuneConfig = -1;
    return o;
  }
  for (auto &[name, value] : o.autotuneConfigs.front().constants)
    o.constants.emplace(name, value);
  return o;
}

static Expected<Kernel> compileSource(std::string_view text,
                                      const CompileOptions &given,
                                      std::string_view sourceName,
                                      bool isKite) {
  if (auto ok = checkOptions(given); !ok)
    return ok.error();
  const CompileOptions options = applyHostConfigs(given);
  // The analysis (parse, verify, select the kernel, bind constants) of the
  // same source, options and compiler comes from the disk cache when it is
  // there: a new process then reaches a cached cubin without creating an
  // MLIR context at all (the warm start).
  std::string analysisKey = detail::analysisKeyText(text, options, sourceName, isKite);
  std::optional<detail::Analyzed> analyzed;
  if (auto bytes = cache::read(analysisKey, "src"))
    analyzed = detail::deserializeAnalysis(*bytes);
  if (!analyzed && isKite) {
    // Unannotated parameters the options do not type: typed at launch.
    auto generic = detail::genericKernel(text, sourceName, given);
    if (!generic)
      return generic.error();
    if (*generic) {
      auto impl = std::make_shared<KernelImpl>();
      impl->options = options;
      impl->generic = *generic;
      impl->source.signature.name = (*generic)->kernel.name;
      impl->source.signature.threads = 0;
      for (size_t i : (*generic)->argParams) {
        Param p;
        p.name = (*generic)->kernel.params[i].name;
        p.type = ScalarType::Any;
        impl->source.signature.params.push_back(p);
      }
      return Kernel(impl);
    }
  }
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
    // The options as given: each trial applies its own configuration
    // (not the first one's constants, which the kernel as written took).
    tuning->options = given;
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
  auto endsWith = [&](const char *ext) {
    size_t n = std::strlen(ext);
    return path.size() >= n && path.compare(path.size() - n, n, ext) == 0;
  };
  // .kite, and Python files of Triton kernels (.py), are the language.
  bool isKite = endsWith(".kite") || endsWith(".py");
  return compileSource(text, options, path, isKite);
}

void kite::clearMemoryCache() {
  std::lock_guard<std::mutex> lock(detail::variantMutex());
  detail::variantCache().clear();
}

std::string kite::cacheDirectory() { return cache::directory(); }
