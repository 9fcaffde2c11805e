//===- ExportC.h - Ahead-of-time export of a kernel to C --------*- C++ -*-===//
//
// `kitec --emit=c`: a kernel compiled ahead of time into a C header and
// source that need only the CUDA driver (loaded with dlopen at run time):
// cubins for the requested chips and their PTX embedded, typed functions to
// load, launch and unload it, and a dispatcher that launches the
// specialized variant when the arguments have its facts (16-byte aligned
// pointers, integers divisible by 16 or equal to 1), else the generic one.
// docs/runtime.md, "Ahead of time: C".
//
//===----------------------------------------------------------------------===//

#ifndef KITE_AOT_EXPORTC_H
#define KITE_AOT_EXPORTC_H

#include "kite/Pipeline/Pipeline.h"
#include "kite/Support/MachineCode.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace kite::aot {

/// One compiled image of a variant: a cubin for `chip`, or its PTX (which
/// the driver compiles for newer GPUs).
struct Image {
  std::string chip; ///< sm_80, sm_90a, ...
  bool ptx = false;
  std::string bytes;
  int dynamicSharedBytes = 0; ///< what a launch of this image passes
};

/// One compilation of the kernel: the facts it assumes of the arguments
/// (none for the generic variant) and its images.
struct Variant {
  std::string name; ///< a C identifier: "spec", "generic"
  std::vector<std::pair<unsigned, ParamFact>> facts;
  std::vector<Image> images;
};

struct ExportedKernel {
  std::string prefix;     ///< of the C functions: <prefix>_load, ...
  std::string entry;      ///< the PTX entry (the kernel's name)
  std::string sourceName; ///< where it came from, for the comments
  std::vector<std::string> paramNames;
  std::vector<KernelParam> params;
  int threads = 128;
  /// Programs a cluster (@kernel(cluster_dims=...)) where an image has them
  /// (sm_90+): the launcher refuses other grids.
  std::array<int, 3> cluster = {1, 1, 1};
  /// Tried in order at launch: the first whose facts the arguments have;
  /// the last must have none.
  std::vector<Variant> variants;
};

/// `name` as a C identifier (other characters become '_'; a leading digit
/// gets a '_').
std::string cIdentifier(llvm::StringRef name);

/// The header and the source of `kernel` (header first). Errors: a variant
/// list that does not end in a generic variant, an image-less variant, a
/// parameter type C cannot take.
llvm::Expected<std::pair<std::string, std::string>>
emitC(const ExportedKernel &kernel, llvm::StringRef headerName);

/// A specialized variant to export: a C identifier and the facts it
/// assumes of the arguments.
struct FactSet {
  std::string name;
  std::vector<std::pair<unsigned, ParamFact>> facts;
};

/// Compiles `kernel`'s module ahead of time: a variant for each fact set
/// of `specializations` (in order: the launcher tries them first to last;
/// empty sets are skipped), then the generic variant (no argument facts),
/// each for every chip of `chips` (a cubin through ptxas, and the PTX).
/// The module holds one kernel; it is cloned, not changed.
llvm::Expected<ExportedKernel>
exportKernel(mlir::ModuleOp generic, const std::vector<FactSet> &specializations,
             const std::vector<std::string> &chips, TargetOptions options,
             llvm::StringRef ptxas, llvm::StringRef sourceName,
             llvm::StringRef prefix, bool occupancyRetry = true);

/// Compiles PTX to a cubin for `chip` with the ptxas at `ptxas` (a path or
/// a name looked up in PATH). With `notes`: ptxas' "Potential Performance
/// Loss" lines for the cubin returned (e.g. wgmma serialized, C7510-C7515).
/// `occupancyRetry`: the occupancy retry of kite/Support/MachineCode.h.
llvm::Expected<std::string>
compileWithPtxas(llvm::StringRef ptx, llvm::StringRef chip,
                 llvm::StringRef ptxas,
                 support::PerformanceNotes *notes = nullptr,
                 bool occupancyRetry = true);

} // namespace kite::aot

#endif // KITE_AOT_EXPORTC_H
