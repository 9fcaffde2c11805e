//===- Runtime.h - Compile, cache and launch Kite kernels -----*- C++ -*-===//
//
// The host C++ API of Kite (docs/runtime.md):
//
//   auto k = kite::compileFile("seeded_dropout.mlir").value();
//   auto x = kite::DeviceBuffer<float>::fromHost(host).value();
//   auto y = kite::DeviceBuffer<float>::allocate(n).value();
//   k.launch(kite::cdiv(n, 1024), {x, y, int32_t(n), 0.5f, int32_t(123)})
//       .value();
//
// A Kernel is compiled lazily per *specialization* (which pointer and
// integer arguments are divisible by 16, like Triton) and per device; every
// compiled variant is cached in memory and on disk (docs/runtime.md lists
// the environment switches). The CUDA driver is loaded at run time, so
// everything but launching works without a GPU. All calls are thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_RUNTIME_RUNTIME_H
#define KITE_RUNTIME_RUNTIME_H

#include "kite/Runtime/Error.h"

#include <cstdint>
#include <initializer_list>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kite {

/// One autotuning configuration (`@autotune(configs=[config(...)])`, or a
/// kernel's `kite.autotune` attribute): constexpr values, and warps,
/// stages and register limit (0: the kernel's own).
struct TuningConfig {
  std::map<std::string, double> constants;
  int numWarps = 0;
  int numStages = 0;
  int maxRegisters = 0; ///< maxnreg: registers a thread, [24, 255]
  /// "BLOCK_M=128, BLOCK_N=256, num_warps=8, num_stages=3".
  KITE_API std::string str() const;
};

/// Compile-time options of a kernel.
struct CompileOptions {
  /// The kernel to take from a module with several; empty: the only one.
  std::string kernel;
  /// Values of `kite.constexpr` parameters, by their `kite.name`.
  std::map<std::string, double> constants;
  /// Constexpr values of any kind for `.kite`/`.py` sources, as Python
  /// writes them (kitec -D): "None", "True", "'mean'", "tl.bfloat16",
  /// "0.5"; they also make unannotated parameters constexprs. A name in
  /// both this and `constants` takes this value.
  std::map<std::string, std::string> defines;
  /// Types of a `.kite`/`.py` kernel's unannotated parameters (Triton's
  /// untyped kernels), by name: "*bf16", "i32", "f32", ... (kitec
  /// --signature). Left empty, such a kernel is typed at each launch from
  /// its arguments, one compiled kernel per signature (docs/runtime.md,
  /// "Kernels typed at launch").
  std::map<std::string, std::string> signature;
  /// Warps per program for kernels without kite.num_warps (1..32).
  int numWarps = 4;
  /// Replace the kernel's own warps per program and dot pipeline stages
  /// (`@kernel(num_warps=..., num_stages=...)`, kite.num_warps,
  /// kite.num_stages) when nonzero: a power of two in [1, 32], and [1, 8].
  /// Block sizes and warps go together: e.g. the tutorial matmul with
  /// 128x256x16 blocks wants 8 warps and 2 stages.
  int overrideNumWarps = 0;
  int overrideNumStages = 0;
  /// Registers a thread ptxas may use (`@kernel(maxnreg=...)`, Triton's
  /// maxnreg; `.maxnreg` in the PTX) when nonzero, in [24, 255]; replaces
  /// the kernel's own. A kernel with a limit is not compiled again for
  /// occupancy (docs/runtime.md, "Occupancy").
  int overrideMaxRegisters = 0;
  /// Target chip, e.g. "sm_90"; empty: the launching device's.
  std::string chip;
  int optLevel = 3;          ///< LLVM optimization level 0..3
  bool ieeeDivision = false; ///< f32 `/` as IEEE div.rn (default div.full)
  /// A float multiply and an add may fuse into one fma (one rounding), as
  /// in Triton (enable_fp_fusion, default on); false: each rounds on its
  /// own, like the interpreter.
  bool fpFusion = true;
  /// On sm_90a, a K loop's dot fed by tensor descriptors reads them with
  /// TMA (tensor maps encoded at launch); false (or KITE_TMA=0): cp.async.
  bool tma = true;
  /// With TMA, a producer warp issues the K loop's copies (warp
  /// specialization; the program runs one more warp). KITE_WS=1 / 0
  /// overrides.
  bool warpSpecialize = false;
  /// How `.kite` f32 dots without `input_precision=` multiply: "tf32"
  /// (Triton's default: tensor cores on sm_80+), "ieee" (exact f32
  /// products) or "tf32x3"; empty: $KITE_F32_DEFAULT, else tf32. Read when
  /// the kernel is created (it is part of the cache keys).
  std::string inputPrecision;
  /// >= 0: compile that @autotune configuration of the kernel (its
  /// constexpr values, warps and stages) as a plain kernel; -1: the kernel
  /// as written (autotuned at launch when it has configurations).
  int autotuneConfig = -1;
  /// Autotuning configurations given by the host, as Triton's
  /// `triton.autotune(configs, key)` applied to a kernel: they replace the
  /// kernel's own `@autotune` list (a kernel without one is tuned too), and
  /// `autotuneKey` names the runtime parameters whose values key the
  /// choice. Each configuration's constants, warps, stages and register
  /// limit replace the kernel's; the kernel compiled as written takes the
  /// first configuration's constants where `constants` gives none.
  std::vector<TuningConfig> autotuneConfigs;
  std::vector<std::string> autotuneKey;
  /// Tiered compilation (docs/runtime.md): a first launch that has to
  /// compile an elementwise kernel runs its quick tier (the same results,
  /// compiled in about half the time) while the optimized code compiles on
  /// a background thread; a later launch switches to it once it is ready
  /// (Kernel::finishCompiles waits for that). KITE_TIERED=0 / 1 overrides.
  bool tiered = true;
};

/// Scalar and pointee types of kernel parameters.
/// F8E4M3 and F8E5M2: Triton's float8e4nv and float8e5 (pointees only: a
/// DeviceBuffer<uint8_t> of their bits passes for them).
enum class ScalarType : uint8_t {
  I1, I8, I16, I32, I64, F16, BF16, F32, F64, F8E4M3, F8E5M2, Any
};
KITE_API const char *scalarTypeName(ScalarType type);
/// Bytes of one element of `type` (0 for Any).
KITE_API int scalarTypeBytes(ScalarType type);

/// One kernel parameter, as the GPU sees it (constexprs excluded).
struct Param {
  bool pointer = false;
  ScalarType type = ScalarType::I32; ///< the scalar, or the pointee
  std::string name;                  ///< `kite.name`, or "#<index>"
  /// An unsigned integer in the source (u32, *u8, ...). The launch checks
  /// widths only: int32_t and uint32_t arguments both pass for i32 and u32.
  bool isUnsigned = false;
  /// The block shape of a host-made tensor descriptor (a
  /// `tensor_descriptor(dtype, [...])` parameter): this parameter is its
  /// base (a pointer to `type`), the next rank its sizes and the rank after
  /// those its strides (i32). Empty for every other parameter.
  std::vector<int64_t> descriptorBlock;
};

template <typename T> class DeviceBuffer;

/// Element types without a C++ arithmetic type, as storage (their bits):
/// DeviceBuffer<kite::bfloat16> and bfloat16* arguments are pointers to
/// bf16, which is what types an unannotated parameter at launch.
struct half {
  uint16_t bits;
};
struct bfloat16 {
  uint16_t bits;
};
struct float8e4m3 {
  uint8_t bits;
};
struct float8e5m2 {
  uint8_t bits;
};

namespace detail {
template <typename T> constexpr ScalarType scalarTypeOf() {
  if constexpr (std::is_same_v<T, half>)
    return ScalarType::F16;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return ScalarType::BF16;
  else if constexpr (std::is_same_v<T, float8e4m3>)
    return ScalarType::F8E4M3;
  else if constexpr (std::is_same_v<T, float8e5m2>)
    return ScalarType::F8E5M2;
  else if constexpr (std::is_same_v<T, float>)
    return ScalarType::F32;
  else if constexpr (std::is_same_v<T, double>)
    return ScalarType::F64;
  else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> ||
                     std::is_same_v<T, char> || std::is_same_v<T, bool>)
    return ScalarType::I8;
  else if constexpr (std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t>)
    return ScalarType::I16;
  else if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t>)
    return ScalarType::I32;
  else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>)
    return ScalarType::I64;
  else
    return ScalarType::Any;
}
} // namespace detail

class TensorDescriptor;

/// A launch argument: a device pointer (typed by its C++ pointee, or
/// untyped), a scalar, or a tensor descriptor (for a
/// `tensor_descriptor(...)` parameter; it must outlive the call it is
/// passed to). Scalars must match the parameter's type exactly: pass
/// int32_t(n) for an i32 parameter.
class Arg {
public:
  Arg(const TensorDescriptor &d) : type_(ScalarType::Any), descriptor_(&d) {}
  Arg(int32_t v) : type_(ScalarType::I32) { set(v); }
  Arg(uint32_t v) : type_(ScalarType::I32) { set(v); }
  Arg(int64_t v) : type_(ScalarType::I64) { set(v); }
  Arg(uint64_t v) : type_(ScalarType::I64) { set(v); }
  Arg(float v) : type_(ScalarType::F32) { set(v); }
  Arg(double v) : type_(ScalarType::F64) { set(v); }
  Arg(bool v) : type_(ScalarType::I1) { set(uint8_t(v)); }
  template <typename T>
  Arg(T *p) : pointer_(true), type_(detail::scalarTypeOf<T>()) {
    set(reinterpret_cast<uint64_t>(p));
  }
  template <typename T>
  Arg(const DeviceBuffer<T> &b) : Arg(static_cast<T *>(b.data())) {}
  /// Host memory for Kernel::interpret: a vector (its whole extent)...
  template <typename T>
  Arg(std::vector<T> &v) : Arg(v.data()) {
    extent_ = v.size() * sizeof(T);
  }
  /// ... or `count` elements at `p`.
  template <typename T> static Arg host(T *p, size_t count) {
    Arg a(p);
    a.extent_ = count * sizeof(T);
    return a;
  }
  /// Untyped host memory of `bytes` bytes, for Kernel::interpret.
  static Arg hostBytes(void *p, uint64_t bytes) {
    Arg a = pointer(reinterpret_cast<uint64_t>(p));
    a.extent_ = bytes;
    return a;
  }
  /// An untyped device address (CUdeviceptr).
  static Arg pointer(uint64_t address) {
    Arg a(address);
    a.pointer_ = true;
    a.type_ = ScalarType::Any;
    return a;
  }
  /// A device address of elements of `type` (what types an unannotated
  /// parameter, as a torch tensor's dtype does in Triton).
  static Arg pointer(uint64_t address, ScalarType type) {
    Arg a = pointer(address);
    a.type_ = type;
    return a;
  }
  /// Python's None for an unannotated parameter of a kernel typed at
  /// launch: the parameter becomes a constexpr None (Triton's rule), and
  /// the compiled kernel does not take it.
  static Arg none() {
    Arg a(int32_t(0));
    a.type_ = ScalarType::Any;
    a.none_ = true;
    return a;
  }
  bool isNone() const { return none_; }
  /// An f16/bf16 scalar from its bits.
  static Arg f16Bits(uint16_t bits) { return Arg(ScalarType::F16, bits); }
  static Arg bf16Bits(uint16_t bits) { return Arg(ScalarType::BF16, bits); }

  bool isPointer() const { return pointer_; }
  ScalarType type() const { return type_; }
  const void *storage() const { return &bits_; }
  uint64_t bits() const { return bits_; }
  /// Bytes of host memory behind a pointer (0: unknown, e.g. device memory).
  uint64_t extentBytes() const { return extent_; }
  /// The tensor descriptor this argument passes, or null.
  const TensorDescriptor *descriptor() const { return descriptor_; }

private:
  Arg(ScalarType t, uint16_t bits) : type_(t) { set(bits); }
  template <typename V> void set(V v) {
    static_assert(sizeof(V) <= sizeof(bits_));
    bits_ = 0;
    __builtin_memcpy(&bits_, &v, sizeof(V));
  }
  bool pointer_ = false;
  bool none_ = false;
  ScalarType type_;
  uint64_t bits_ = 0;
  uint64_t extent_ = 0;
  const TensorDescriptor *descriptor_ = nullptr;
};

/// A tensor as a kernel's `tensor_descriptor(dtype, [block sizes])`
/// parameter takes it (Triton's host TensorDescriptor): its base, its sizes
/// and strides in elements (row-major order of dimensions, the last stride
/// 1) and the block shape the kernel's loads and stores move. On sm_90a the
/// kernel reads it with TMA, encoded at launch (docs/runtime.md).
class KITE_API TensorDescriptor {
public:
  /// `base` is a typed pointer argument: device memory, or host memory for
  /// Kernel::interpret. InvalidArgument naming the rule broken: 1 to 5
  /// dimensions, as many strides and block sizes as sizes; sizes in
  /// [1, 2^31); the last stride 1, the others in [1, 2^31) and multiples
  /// of 16 bytes; the base a multiple of 16 bytes; block sizes powers of
  /// two up to 256 (TMA's rules: a descriptor that breaks them would fail
  /// only at launch, or hang there).
  static Expected<TensorDescriptor> create(const Arg &base,
                                           std::vector<int64_t> shape,
                                           std::vector<int64_t> strides,
                                           std::vector<int64_t> blockShape);

  const Arg &base() const { return base_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  const std::vector<int64_t> &strides() const { return strides_; }
  const std::vector<int64_t> &blockShape() const { return block_; }

private:
  explicit TensorDescriptor(const Arg &base) : base_(base) {}
  Arg base_;
  std::vector<int64_t> shape_, strides_, block_;
};

/// Grid of programs (CUDA blocks), 1-3 dimensions.
struct Grid {
  Grid(uint32_t x, uint32_t y = 1, uint32_t z = 1) : x(x), y(y), z(z) {}
  uint32_t x, y, z;
};

struct LaunchOptions {
  int device = 0;         ///< CUDA device ordinal
  void *stream = nullptr; ///< CUstream; null: the default stream
};

/// Which parameters are known divisible by 16 (bit i: GPU parameter i).
struct Specialization {
  uint64_t divisibleBy16 = 0;
  /// Which integer parameters equal 1 (bit i: GPU parameter i); the kernel
  /// is compiled with the constant 1 in their place (unit strides make
  /// accesses contiguous), like Triton.
  uint64_t equalToOne = 0;
  bool operator==(const Specialization &o) const {
    return divisibleBy16 == o.divisibleBy16 && equalToOne == o.equalToOne;
  }
  /// A short text naming the specialization ("d<mask>.o<mask>").
  std::string str() const {
    return "d" + std::to_string(divisibleBy16) + ".o" +
           std::to_string(equalToOne);
  }
};

/// Where a compiled variant came from (most recent compile of a Kernel).
enum class CacheOutcome {
  Compiled,
  MemoryHit,
  DiskHit,
  /// Compiled the kernel's quick tier (CompileOptions::tiered); the
  /// optimized code compiles in the background.
  QuickTier,
};

/// Where the host time of a Kernel's most recent variant went, in
/// milliseconds (zero for a part a cache provided).
struct CompileTimes {
  double toPtx = 0; ///< MLIR and LLVM to PTX (the analysis is compileFile's)
  /// ptxas or nvJitLink, from the PTX being ready to the cubin (a ptxas
  /// started early has part of its run hidden in toPtx).
  double machineCode = 0;
  double load = 0; ///< the driver loading the module
};

/// IR stages a kernel can show.
enum class IRStage { Kite, GPU, LLVM, PTX };

class KernelImpl;

/// A compiled kernel. Cheap to copy (shared); thread-safe.
class KITE_API Kernel {
public:
  const std::string &name() const;
  const std::vector<Param> &params() const;
  int threadsPerProgram() const;

  /// Checks `args` against the signature (count, kinds, types) without
  /// launching; the error names the parameter.
  Expected<void> checkArgs(const std::vector<Arg> &args) const;
  /// The specialization `args` select.
  Specialization specializationFor(const std::vector<Arg> &args) const;

  /// The PTX of a variant (compiled, or from the caches, if needed).
  Expected<std::string> ptx(Specialization spec = {}) const;
  /// The IR of a variant after `stage` (always compiled afresh).
  Expected<std::string> ir(IRStage stage, Specialization spec = {}) const;
  /// The disk-cache key of a variant's PTX (hex SHA-256).
  std::string cacheKey(Specialization spec = {}) const;
  /// How the last variant this Kernel needed was obtained.
  CacheOutcome lastOutcome() const;
  /// Waits for the background compiles of this kernel's tiered launches
  /// (CompileOptions::tiered): the launches after it run the optimized
  /// code. A CompileError if one failed (its quick tier keeps running).
  Expected<void> finishCompiles() const;
  /// The phases of the most recent variant compiled or loaded.
  CompileTimes lastCompileTimes() const;

  /// Runs the kernel in the interpreter (no GPU needed) on host memory:
  /// pointer arguments are std::vectors or Arg::host(ptr, count). Loads and
  /// stores outside them are reported (file:line:col of the op), not done.
  Expected<void> interpret(Grid grid, const std::vector<Arg> &args) const;
  Expected<void> interpret(Grid grid, std::initializer_list<Arg> args) const {
    return interpret(grid, std::vector<Arg>(args));
  }

  /// Launches on `grid` with `args`, after checking them; asynchronous.
  Expected<void> launch(Grid grid, const std::vector<Arg> &args,
                        const LaunchOptions &options = {}) const;
  /// How many programs of this kernel, as launched with `args` (the
  /// variant they select, compiled and loaded if need be), run at once on
  /// the device: the grid of a persistent kernel (Triton's NUM_SMS, which
  /// assumes one program an SM). A kernel in clusters counts whole
  /// clusters that fit at once (cuOccupancyMaxActiveClusters) times their
  /// programs. DriverError where the driver cannot tell.
  Expected<int> maxActivePrograms(const std::vector<Arg> &args,
                                  const LaunchOptions &options = {}) const;
  Expected<void> launch(Grid grid, std::initializer_list<Arg> args,
                        const LaunchOptions &options = {}) const {
    return launch(grid, std::vector<Arg>(args), options);
  }

  /// Autotuning (`@autotune`, docs/runtime.md): the kernel's
  /// configurations (empty: none), and the grid each needs.
  const std::vector<TuningConfig> &configs() const;
  /// The runtime parameters whose values key the autotuning choice
  /// (`@autotune(key=[...])`, or CompileOptions::autotuneKey).
  std::vector<std::string> autotuneKey() const;
  using GridFn = std::function<Grid(const TuningConfig &)>;
  /// The configuration for `args`: from memory, the disk (a result of any
  /// earlier process on this device), or chosen now by compiling every
  /// configuration (in parallel) and timing each on `args` (outputs restored
  /// afterwards; the L2 flushed before each run; the median of a few). The
  /// choice depends on the values of the kernel's key parameters.
  /// KITE_AUTOTUNE=0: the first configuration, untimed.
  Expected<TuningConfig> tune(const GridFn &grid, const std::vector<Arg> &args,
                              const LaunchOptions &options = {}) const;
  /// A predicate over the configurations (true: keep), applied before any
  /// is compiled or timed, e.g. to drop blocks larger than the problem or
  /// shapes a device cannot hold (Triton's prune_configs_by). It sees the
  /// launch's arguments and should depend only on the key parameters'
  /// values: choices are remembered per key. Setting (or clearing, with an
  /// empty function) forgets the choices this process made; it applies to
  /// every handle of the kernel. A kernel without configurations: an
  /// InvalidArgument error. Every configuration pruned: tune() and launch()
  /// fail with InvalidArgument.
  using ConfigFilter =
      std::function<bool(const TuningConfig &, const std::vector<Arg> &)>;
  Expected<void> pruneConfigs(ConfigFilter keep) const;
  /// Launches the configuration tune() gives for `args` on grid(config); a
  /// kernel without configurations launches itself on grid({}).
  Expected<void> launch(const GridFn &grid, const std::vector<Arg> &args,
                        const LaunchOptions &options = {}) const;

  explicit Kernel(std::shared_ptr<KernelImpl> impl) : impl_(std::move(impl)) {}

private:
  std::shared_ptr<KernelImpl> impl_;
};

/// Autotuning results (every configuration time in the disk cache) as one
/// file, e.g. for a deployment to ship: the number of entries written.
KITE_API Expected<size_t> exportTuning(const std::string &path);
/// Reads a file exportTuning wrote into the disk cache (entries already
/// there are replaced): the number of entries read. A damaged file is an
/// error and changes nothing.
KITE_API Expected<size_t> importTuning(const std::string &path);

namespace detail {
/// Tests: time autotuning trials with `timer` (milliseconds of config
/// `index`) instead of the GPU, and name the device `device` in tuning
/// keys; an empty function restores the GPU.
KITE_API void setTuningTimerForTesting(
    std::function<double(const TuningConfig &config, int index)> timer,
    const std::string &device = "test-device");
} // namespace detail

/// Compiles a kernel from kite-dialect MLIR text. `sourceName` names it in
/// diagnostics (file:line:col).
KITE_API Expected<Kernel> compileMLIR(std::string_view text,
                                      const CompileOptions &options = {},
                                      std::string_view sourceName = "<mlir>");
/// Compiles a kernel from Kite language source (docs/language.md);
/// `CompileOptions::constants` give constexpr values (like kitec -D).
KITE_API Expected<Kernel> compileKite(std::string_view text,
                                      const CompileOptions &options = {},
                                      std::string_view sourceName = "<kite>");
/// Compiles a kernel from a file: .kite (the language), else kite dialect.
KITE_API Expected<Kernel> compileFile(const std::string &path,
                                      const CompileOptions &options = {});

/// Forgets every compiled variant held in memory (the disk cache stays).
KITE_API void clearMemoryCache();
/// The disk-cache directory in use; empty when the disk cache is disabled.
KITE_API std::string cacheDirectory();

/// The compiler the runtime turns PTX into machine code with (see
/// docs/runtime.md): "nvJitLink <version> <library> ..." (in process),
/// "<ptxas binary> ..." (a process), or empty when there is none (the
/// driver's JIT compiles the PTX as modules load).
KITE_API std::string machineCodeCompiler();
/// Compiles PTX to a cubin for `chip` (e.g. "sm_90a") with that compiler;
/// no GPU needed. CompileError with the compiler's message on bad PTX;
/// NoDriver when there is no compiler. Kernels the PTX marks for two
/// programs an SM are compiled again under that register limit when they
/// exceed it, as launches do (docs/runtime.md, "Occupancy").
KITE_API Expected<std::string> compilePtxToCubin(const std::string &ptx,
                                                 const std::string &chip);

/// What a cubin's function uses (Triton's n_regs and n_spills).
struct MachineCodeInfo {
  int registers = 0;  ///< registers a thread
  int stackBytes = 0; ///< stack frame a thread: spills and local arrays
};
/// `kernel`'s resources in `cubin` (from compilePtxToCubin); InvalidArgument
/// if the image is not a cubin or has no such function.
KITE_API Expected<MachineCodeInfo> machineCodeInfo(const std::string &cubin,
                                                   const std::string &kernel);

/// Number of CUDA devices (NoDriver error without a driver).
KITE_API Expected<int> deviceCount();
/// "sm_XY" of a device.
KITE_API Expected<std::string> deviceChip(int device = 0);
/// The number of SMs of a device: a persistent kernel's grid (Triton's
/// NUM_SMS).
KITE_API Expected<int> deviceMultiprocessors(int device = 0);
/// Waits for all work on a device.
KITE_API Expected<void> synchronize(int device = 0);

/// ceil(a / b), for grids.
constexpr uint32_t cdiv(uint64_t a, uint64_t b) { return uint32_t((a + b - 1) / b); }

// Untyped device memory (used by DeviceBuffer).
KITE_API Expected<uint64_t> deviceAlloc(size_t bytes, int device = 0);
KITE_API void deviceFree(uint64_t address, int device = 0);
KITE_API Expected<void> copyToDevice(uint64_t dst, const void *src,
                                     size_t bytes, int device = 0);
KITE_API Expected<void> copyToHost(void *dst, uint64_t src, size_t bytes,
                                   int device = 0);

KITE_API Expected<void> copyDeviceToDevice(uint64_t dst, uint64_t src,
                                           size_t bytes, int device = 0);
KITE_API Expected<void> memsetDevice(uint64_t dst, uint8_t value,
                                     size_t bytes, int device = 0);

/// A CUDA event, for timing work on the GPU (benchmarks).
class KITE_API Event {
public:
  static Expected<Event> create(int device = 0);
  /// Records the event on `stream` (default stream when null).
  Expected<void> record(void *stream = nullptr);
  /// Milliseconds between two recorded events (waits for `end`).
  static Expected<float> elapsedMs(const Event &start, const Event &end);
  Event(Event &&o) noexcept : event_(o.event_), device_(o.device_) {
    o.event_ = nullptr;
  }
  Event &operator=(Event &&o) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event();

private:
  Event(void *event, int device) : event_(event), device_(device) {}
  void *event_;
  int device_;
};

/// Device memory for `size` elements of T, freed on destruction.
template <typename T> class DeviceBuffer {
public:
  static Expected<DeviceBuffer> allocate(size_t size, int device = 0) {
    size_t bytes = size * sizeof(T);
    auto address = deviceAlloc(bytes > 0 ? bytes : 1, device);
    if (!address)
      return address.error();
    return DeviceBuffer(*address, size, device);
  }
  static Expected<DeviceBuffer> fromHost(const std::vector<T> &host,
                                         int device = 0) {
    auto buffer = allocate(host.size(), device);
    if (!buffer)
      return buffer;
    if (auto ok = buffer->copyFrom(host); !ok)
      return ok.error();
    return buffer;
  }
  Expected<void> copyFrom(const std::vector<T> &host) {
    if (host.size() > size_)
      return Error(ErrorCode::InvalidArgument,
                   "copyFrom: " + std::to_string(host.size()) +
                       " elements do not fit in a buffer of " +
                       std::to_string(size_));
    return copyToDevice(address_, host.data(), host.size() * sizeof(T), device_);
  }
  Expected<std::vector<T>> toHost() const {
    std::vector<T> host(size_);
    if (auto ok = copyToHost(host.data(), address_, size_ * sizeof(T), device_);
        !ok)
      return ok.error();
    return host;
  }
  T *data() const { return reinterpret_cast<T *>(address_); }
  size_t size() const { return size_; }

  DeviceBuffer(DeviceBuffer &&o) noexcept
      : address_(o.address_), size_(o.size_), device_(o.device_) {
    o.address_ = 0;
  }
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept {
    std::swap(address_, o.address_);
    std::swap(size_, o.size_);
    std::swap(device_, o.device_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() {
    if (address_)
      deviceFree(address_, device_);
  }

private:
  DeviceBuffer(uint64_t address, size_t size, int device)
      : address_(address), size_(size), device_(device) {}
  uint64_t address_;
  size_t size_;
  int device_;
};

} // namespace kite

#endif // KITE_RUNTIME_RUNTIME_H
