//===- Pipeline.h - From kite IR to PTX ---------------------------*- C++ -*-===//
//
// The `kite-to-ptx` pipeline as one C++ entry point, shared by kite-opt
// (registered by name), kitec and the JIT runtime: target options and their
// validation, the pass pipeline builder with its inspection stages, and the
// compilation to PTX text plus launch metadata.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_PIPELINE_PIPELINE_H
#define KITE_PIPELINE_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kite {

/// Where the pipeline stops; each stage's IR can be inspected.
enum class Stage {
  Kite, ///< kite IR after inlining and canonicalization
  GPU,  ///< after convert-kite-to-gpu: gpu.func kernels, per-thread code
  LLVM, ///< the gpu.module lowered to the LLVM/NVVM dialects
  PTX,  ///< gpu.binary holding the PTX (the full pipeline)
};

/// Parses "kite", "gpu", "llvm" or "ptx".
std::optional<Stage> parseStage(llvm::StringRef name);

struct TargetOptions {
  std::string chip = "sm_90"; ///< sm_70 .. sm_120a
  std::string features;       ///< e.g. "+ptx80"; empty: the chip's default
  int numWarps = 4;           ///< for kernels without kite.num_warps
  int optLevel = 3;           ///< LLVM optimization level 0..3
  bool ieeeDivision = false;  ///< f32 `/` as div.rn.f32 (default: div.full)
  /// Multiplies and adds may fuse into fma (Triton's enable_fp_fusion).
  bool fpFusion = true;
  std::string libdevice;      ///< libdevice.10.bc; empty: searched for
  /// Descriptor-fed dots on sm_90a read their operands with TMA (tensor
  /// maps the launch encodes); off: cp.async, as for pointer blocks.
  bool tma = true;
  /// A TMA-staged loop gets a producer warp (kite-stage-dot-operands
  /// warp-specialize): the kernel then runs 32 x (num_warps + 1) threads.
  bool warpSpecialize = false;
  /// The quick tier of a tiered compile (planQuickTier): no full-block
  /// versioning (a second copy of the body is compile time the quick tier
  /// exists to save).
  bool quickTier = false;
};

/// Checks the chip, PTX features and levels before LLVM sees them (LLVM
/// aborts on some invalid combinations). Fills in default features.
llvm::Error validateTargetOptions(TargetOptions &options);

/// Adds the kite -> PTX passes, up to `stopAfter`, to a ModuleOp pass
/// manager. `options` must have been validated. With `startAfter`, the
/// stages up to it are left out: the input is that stage's output (kite-opt
/// `kite-to-ptx{start-after=gpu}` compiles a module of gpu.func kernels).
void buildKiteToPTXPipeline(mlir::OpPassManager &pm,
                            const TargetOptions &options,
                            Stage stopAfter = Stage::PTX,
                            std::optional<Stage> startAfter = std::nullopt);

/// The process-wide settings of LLVM's NVPTX code generation that Kite
/// makes (LLVM has them only as command-line options), applied on the first
/// pipeline built and described here for cache keys: 32-bit shared-memory
/// pointers, and loop strength reduction off (kitec --disable-lsr=false keeps it)
/// (docs/lowering.md, "LLVM's code generation").
std::string llvmCodegenSettings();

/// Registers the `kite-to-ptx` pipeline and `kite-check-target` pass.
void registerPipelines();

/// How a kernel is launched: what the runtime needs and no more.
struct KernelParam {
  enum class Kind { Pointer, Scalar };
  Kind kind;
  std::string type; ///< scalar type, or the pointee type of a pointer
  /// A host-made tensor descriptor's block shape (kite.descriptor): this
  /// pointer is its base, the next 2 x rank i32 parameters its sizes and
  /// strides. Empty otherwise.
  std::vector<int64_t> descriptorBlock = {};
};
struct KernelInfo {
  std::string name;
  std::vector<KernelParam> params; ///< in PTX order
  int threads = 128;               ///< threads per program (block), a
                                   ///< producer warp included
  /// Programs a cluster along x, y, z (@kernel(cluster_dims=...) on sm_90+;
  /// 1, 1, 1 otherwise): a launch's grid must be a multiple.
  std::array<int, 3> cluster = {1, 1, 1};
  int sharedBytes = 0;             ///< shared memory per program
  int dynamicSharedBytes = 0;      ///< of which dynamic: over 48 KB, the
                                   ///< launch passes this many bytes
};

struct CompiledModule {
  std::string ptx;
  std::vector<KernelInfo> kernels;
  /// Warnings of the compilation ("file:line:col: warning: ..." lines), e.g.
  /// a block that needs more registers a thread than there are.
  std::string warnings;
  /// The kernels' metadata as JSON (see docs/abi.md).
  std::string metadataJSON() const;
};

/// What the PTX of entry `kernel` declares for its launch: threads a
/// program (its .maxntid; 0 when there is none) and programs a cluster (its
/// .reqnctapercluster; 1, 1, 1 without).
struct EntryLaunchShape {
  unsigned threads = 0;
  std::array<unsigned, 3> cluster = {1, 1, 1};
};
EntryLaunchShape entryLaunchShape(std::string_view ptx,
                                  std::string_view kernel);

/// Reads the launch metadata of every kernel in a kite-dialect module.
std::vector<KernelInfo> collectKernelInfo(mlir::ModuleOp module,
                                          const TargetOptions &options);

/// Called with the module after each stage (for dumps and inspection).
using StageCallback = std::function<void(Stage, mlir::ModuleOp)>;

/// Lowers `module` (kite dialect, modified in place) to PTX. Diagnostics are
/// returned in the error, never printed or aborted on. With `onStage`, the
/// stages run one by one and `onStage` sees the module after each.
/// With `timing`, the pass manager's timing report goes to stderr.
llvm::Expected<CompiledModule> compileToPTX(mlir::ModuleOp module,
                                            TargetOptions options,
                                            const StageCallback &onStage = {},
                                            bool timing = false);

/// The quick tier of a tiered compile (lib/Pipeline/QuickTier.cpp,
/// docs/runtime.md): when every op of `module`'s kernel computes each
/// element on its own (no reduction, scan, sort, dot, atomic or debug
/// output) and a thread holds more than one element of its largest block,
/// sets the kernel's kite.num_warps to the warps that give each thread one
/// (at most 32) and returns them; else returns 0 and says why in `why`.
/// The results are the same bits either way; compile it with
/// TargetOptions::quickTier.
int planQuickTier(mlir::ModuleOp module, const TargetOptions &options,
                  std::string &why);

/// How a kernel parameter is specialized (like Triton's automatic
/// specialization of launch arguments).
enum class ParamFact {
  DivisibleBy16, ///< an integer or pointer known divisible by 16
  EqualToOne,    ///< an integer known to be 1: replaced by the constant
};

/// Applies `fact` to argument `index` of kernel function `kernel` (a
/// func.func); an argument the fact does not apply to is left alone.
void specializeArgument(mlir::Operation *kernel, unsigned index,
                        ParamFact fact);

} // namespace kite

#endif // KITE_PIPELINE_PIPELINE_H
