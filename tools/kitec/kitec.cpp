//===- kitec.cpp - The Kite compiler driver -------------------------------===//
//
// kitec compiles Kite sources (.kite, through the frontend) and kite-dialect
// modules (.mlir) to the kite dialect, PTX, cubin, launch metadata or the IR
// of any pipeline stage. The work is done by KiteFrontend and KitePipeline;
// this file maps command-line options onto them and reports errors with
// exit codes:
//   0 success, 1 invalid input (diagnostics printed), 2 bad usage/options,
//   3 I/O or external tool failure.
//
//===----------------------------------------------------------------------===//

#include "kite/AOT/ExportC.h"
#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Frontend/Frontend.h"
#include "kite/Pipeline/Pipeline.h"
#include "kite/Registration.h"
#include "kite/Support/InputFile.h"
#include "kite/Support/MachineCode.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/CommandLine.h"
#include <chrono>
#include <map>
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {
enum ExitCode { Success = 0, InvalidInput = 1, BadUsage = 2, IOError = 3 };

cl::OptionCategory category("kitec options");
cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .kite or .mlir, or - for stdin>"),
                               cl::init("-"), cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output file (- for stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(category));
cl::opt<std::string> emit("emit",
                          cl::desc("What to produce: mlir (the input as the "
                                   "kite dialect), kite, gpu, llvm (the IR "
                                   "after that stage), ptx, cubin, metadata, "
                                   "c (-o DIR/NAME writes NAME.h and NAME.c: "
                                   "the kernel ahead of time, for the CUDA "
                                   "driver alone; --chip may list chips)"),
                          cl::init("ptx"), cl::cat(category));
cl::list<std::string> defines("D", cl::Prefix,
                               cl::desc("Value of a constexpr parameter "
                                        "(.kite input)"),
                               cl::value_desc("NAME=VALUE"), cl::cat(category));
cl::list<std::string> specializations(
    "specialize", cl::CommaSeparated,
    cl::desc("Compile as the runtime would for such arguments: NAME=1 (an "
             "integer parameter that is 1) or NAME=div16 (an integer or "
             "pointer divisible by 16); auto: every pointer and integer "
             "divisible by 16 (with --emit=c: that variant, one with the "
             "pointers' facts alone, and the generic one)"),
    cl::value_desc("NAME=1|NAME=div16|auto"), cl::cat(category));
cl::opt<std::string> signatureOpt(
    "signature",
    cl::desc("Types of the kernel's unannotated parameters (Triton's "
             "kernels, typed at launch): NAME=TYPE,... (TYPE *bf16, i32, "
             "f32, ...; TYPE:16 also says divisible by 16, i32:1 equal to "
             "1), or Triton compile.py's positional list \"*fp16:16, i32, "
             "fp32, 64\" of every parameter in order (a constexpr's item "
             "is its value)"),
    cl::value_desc("NAME=TYPE,..."), cl::init(""), cl::cat(category));
cl::opt<bool> verbose("verbose",
                      cl::desc("Say what a file of Triton kernels leaves out "
                               "as host code"),
                      cl::init(false), cl::cat(category));
cl::opt<std::string> kernelName("kernel",
                                cl::desc("Compile only this kernel"),
                                cl::value_desc("name"), cl::init(""),
                                cl::cat(category));
cl::opt<std::string> language("x",
                              cl::desc("Input language: kite or mlir "
                                       "(default: from the file name; stdin "
                                       "is mlir)"),
                              cl::init(""), cl::cat(category));
cl::opt<std::string> chip("chip", cl::desc("Target chip (sm_70 .. sm_120a); "
                                           "--emit=c: a comma-separated list"),
                          cl::init("sm_90"), cl::cat(category));
cl::opt<std::string> features("features",
                              cl::desc("PTX features, e.g. +ptx80 (default: "
                                       "the chip's)"),
                              cl::init(""), cl::cat(category));
cl::opt<int> numWarps("num-warps",
                      cl::desc("Warps per program (1..32, a power of two); "
                               "replaces the kernel's own num_warps (default: "
                               "the kernel's, else 4)"),
                      cl::init(4), cl::cat(category));
cl::opt<int> numStages("num-stages",
                       cl::desc("Pipeline stages of a K loop's dot (1..8); "
                                "replaces the kernel's own num_stages"),
                       cl::init(0), cl::cat(category));
cl::opt<int> maxRegisters(
    "maxnreg",
    cl::desc("Registers a thread ptxas may use (24..255: .maxnreg in the "
             "PTX); replaces the kernel's own maxnreg"),
    cl::init(0), cl::cat(category));
cl::opt<int> optLevel("O", cl::desc("LLVM optimization level 0..3"),
                      cl::init(3), cl::Prefix, cl::cat(category));
cl::opt<bool> ieeeDiv("ieee-div",
                      cl::desc("IEEE f32 division instead of div.full.f32"),
                      cl::init(false), cl::cat(category));
cl::opt<bool> fpFusion("fp-fusion",
                       cl::desc("Let float multiplies and adds fuse into fma "
                                "(default; Triton's enable_fp_fusion): "
                                "--fp-fusion=false rounds each on its own"),
                       cl::init(true), cl::cat(category));
cl::opt<bool> tma("tma",
                  cl::desc("On sm_90a, read a descriptor-fed dot's operands "
                           "with TMA (default; --tma=false: cp.async)"),
                  cl::init(true), cl::cat(category));
cl::opt<bool> warpSpecialize(
    "warp-specialize",
    cl::desc("With TMA, a producer warp issues the K loop's copies"),
    cl::init(false), cl::cat(category));
cl::opt<int> autotuneConfig(
    "config",
    cl::desc("Compile @autotune configuration N of the kernel (its constexpr "
             "values, num_warps and num_stages); default: the kernel as "
             "written, the first configuration's values where it needs them"),
    cl::value_desc("N"), cl::init(-1), cl::cat(category));
cl::opt<bool> allConfigs(
    "all-configs",
    cl::desc("Compile every @autotune configuration: -o NAME.EXT writes "
             "NAME.0.EXT, NAME.1.EXT, ...; to stdout, one after another, each "
             "after a '// kitec: config N' line"),
    cl::init(false), cl::cat(category));
cl::opt<std::string> inputPrecision(
    "input-precision",
    cl::desc("How f32 dots without input_precision= multiply: tf32, ieee or "
             "tf32x3 (default: $KITE_F32_DEFAULT, else tf32)"),
    cl::init(""), cl::cat(category));
cl::opt<std::string> metadataFile("metadata",
                                  cl::desc("Also write the kernels' launch "
                                           "metadata (JSON) to this file"),
                                  cl::value_desc("file"), cl::init(""),
                                  cl::cat(category));
cl::opt<bool> timing("time", cl::desc("Print the time of the frontend and of each pass"),
                     cl::init(false), cl::cat(category));
cl::opt<std::string> tier(
    "tier",
    cl::desc("optimized (default), or quick: the quick tier of the runtime's "
             "tiered compile (each thread one element of the kernel's "
             "largest block, no full-block versioning); an error for a "
             "kernel that has none"),
    cl::init("optimized"), cl::cat(category));
cl::opt<bool> resources(
    "resources",
    cl::desc("Also compile the PTX with ptxas (--ptxas), as the runtime would "
             "(the occupancy retry included), and print each kernel's "
             "registers a thread, stack bytes (spills) and shared memory on "
             "stderr"),
    cl::init(false), cl::cat(category));
cl::opt<std::string>
    ptxasPath("ptxas", cl::desc("ptxas for --emit=cubin and --resources"),
              cl::init("/usr/local/cuda/bin/ptxas"), cl::cat(category));
} // namespace

static int writeOutput(StringRef path, StringRef text) {
  std::string error;
  auto output = mlir::openOutputFile(path, &error);
  if (!output) {
    errs() << "kitec: error: " << error << "\n";
    return IOError;
  }
  output->os() << text;
  output->os().flush();
  // A full disk (or a device that takes nothing): say so and fail, rather
  // than let LLVM's stream abort at its destruction.
  if (std::error_code ec = output->os().error()) {
    errs() << "kitec: error: cannot write '" << path << "': " << ec.message()
           << "\n";
    output->os().clear_error();
    return IOError;
  }
  output->keep();
  return Success;
}

/// Whether cubins get the occupancy retry (kite/Support/MachineCode.h):
/// KITE_OCCUPANCY=0 turns it off, read here at the tool's boundary.
static bool occupancyRetry() {
  const char *env = std::getenv("KITE_OCCUPANCY");
  return !env || std::strcmp(env, "0") != 0;
}

/// The cubin of `ptx` (--emit=cubin, --resources); --resources prints what
/// each of `kernels` uses.
static int runPtxas(StringRef ptx, ArrayRef<kite::KernelInfo> kernels,
                    bool write) {
  kite::support::PerformanceNotes notes;
  auto cubin = kite::aot::compileWithPtxas(ptx, chip, ptxasPath, &notes,
                                           occupancyRetry());
  if (!cubin) {
    errs() << "kitec: error: " << (resources && !write ? "--resources: " : "")
           << toString(cubin.takeError()) << "\n";
    return IOError;
  }
  // What ptxas says costs speed (e.g. wgmmas serialized): a warning, the
  // cubin is still right.
  for (const std::string &note : notes)
    errs() << "kitec: warning: ptxas: " << note << "\n";
  auto functions = kite::support::cubinFunctions(*cubin);
  // A configuration that does not fit the registers still runs, slower:
  // say so rather than spill silently.
  for (const kite::KernelInfo &k : kernels) {
    auto it = functions.find(k.name);
    if (it != functions.end() && it->second.stackBytes > 0)
      errs() << "kitec: warning: " << k.name << " (" << chip << ", "
             << k.threads << " threads) keeps " << it->second.stackBytes
             << " bytes a thread on the stack: its blocks do not fit "
             << it->second.registers
             << " registers (spills); smaller blocks, fewer stages or more "
                "warps would\n";
  }
  if (resources) {
    for (const kite::KernelInfo &k : kernels) {
      auto it = functions.find(k.name);
      if (it == functions.end())
        continue;
      errs() << "kitec: " << k.name << " (" << chip << ", " << k.threads
             << " threads): " << it->second.registers << " registers a thread, "
             << it->second.stackBytes << " bytes of stack, " << k.sharedBytes
             << " bytes of shared memory\n";
    }
  }
  return write ? writeOutput(outputFile, *cubin) : Success;
}

static int compile();
static void setInputPrecision(kite::FrontendOptions &frontend);

/// The number of @autotune configurations of the input's kernel (--kernel's,
/// else the only one with any), or -1 after an error.
static int countConfigs() {
  mlir::DialectRegistry registry;
  kite::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string error, text;
  if (!kite::readInputFile(inputFile, text, error)) {
    errs() << "kitec: error: " << error << "\n";
    return -1;
  }
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, inputFile),
                               SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  kite::FrontendOptions frontend;
  for (const std::string &d : defines) {
    size_t eq = d.find('=');
    if (eq != std::string::npos && eq > 0)
      frontend.defines[d.substr(0, eq)] = d.substr(eq + 1);
  }
  setInputPrecision(frontend);
  frontend.kernel = kernelName;
  auto module = kite::importKiteSource(sourceMgr, &context, frontend);
  if (!module)
    return -1;
  int count = 0;
  for (auto f : module->getOps<mlir::func::FuncOp>()) {
    if (!kernelName.empty() && f.getSymName() != kernelName)
      continue;
    if (auto configs = f->getAttrOfType<mlir::ArrayAttr>(
            mlir::kite::KiteDialect::getAutotuneAttrName()))
      count = std::max(count, int(configs.size()));
  }
  return count;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  // Bad options, values and extra inputs are usage errors (exit 2): with an
  // error stream, the parser reports and returns instead of exiting 1.
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "kitec: compile Kite kernels to PTX\n",
                                   &errs()))
    return BadUsage;
  if (kernelName.getNumOccurrences() && kernelName.empty()) {
    errs() << "kitec: error: --kernel= needs a kernel name\n";
    return BadUsage;
  }
  if (!inputPrecision.empty() && inputPrecision != "ieee" &&
      inputPrecision != "tf32" && inputPrecision != "tf32x3") {
    errs() << "kitec: error: --input-precision=" << inputPrecision
           << ": expected ieee, tf32 or tf32x3\n";
    return BadUsage;
  }
  // --specialize: one fact a parameter (NAME=1 and NAME=div16 contradict:
  // 1 is not a multiple of 16).
  {
    std::map<std::string, std::string> facts;
    for (const std::string &item : specializations) {
      size_t eq = item.find('=');
      if (eq == std::string::npos)
        continue; // reported with the facts' other checks
      auto [it, fresh] = facts.emplace(item.substr(0, eq), item.substr(eq + 1));
      if (!fresh && it->second != item.substr(eq + 1)) {
        errs() << "kitec: error: --specialize " << it->first << "="
               << it->second << " and " << item << " contradict\n";
        return BadUsage;
      }
    }
  }
  if (!allConfigs)
    return compile();
  if (autotuneConfig >= 0) {
    errs() << "kitec: error: --all-configs and --config: choose one\n";
    return BadUsage;
  }
  StringRef path = inputFile;
  if (path == "-" || !(path.ends_with(".kite") || path.ends_with(".py"))) {
    errs() << "kitec: error: --all-configs needs a .kite file (not stdin)\n";
    return BadUsage;
  }
  int n = countConfigs();
  if (n < 0)
    return InvalidInput;
  if (n == 0) {
    errs() << "kitec: error: --all-configs: " << inputFile
           << " has no @autotune configurations\n";
    return InvalidInput;
  }
  std::string base = outputFile;
  for (int i = 0; i < n; ++i) {
    autotuneConfig = i;
    if (base == "-") {
      outs() << "// kitec: config " << i << "\n";
      outs().flush();
    } else {
      StringRef stem = sys::path::stem(base);
      StringRef ext = sys::path::extension(base);
      SmallString<128> out = sys::path::parent_path(base);
      sys::path::append(out, stem + "." + std::to_string(i) + ext);
      outputFile = std::string(out);
    }
    if (int rc = compile())
      return rc;
  }
  return Success;
}

/// The facts --specialize gave each kernel (argument index, fact).
using KernelFacts =
    std::map<std::string, std::vector<std::pair<unsigned, kite::ParamFact>>>;

/// --emit=c of one kernel: BASE.h and BASE.c, functions named after BASE's
/// file name (made a C identifier: --all-configs' NAME.3 gives NAME_3_load).
static int exportOne(mlir::ModuleOp generic,
                     const std::vector<kite::aot::FactSet> &sets,
                     const std::vector<std::string> &chips,
                     const kite::TargetOptions &options, StringRef base) {
  std::string stem = sys::path::filename(base).str();
  // NAME becomes NAME.h / NAME.c, an #include "NAME.h" and C identifiers:
  // a plain file name, not a directory.
  bool plain = !stem.empty() && stem[0] != '.' && !base.ends_with("/") &&
               llvm::all_of(stem, [](char c) {
                 return llvm::isAlnum(c) || c == '_' || c == '-' || c == '.';
               });
  if (!plain || sys::fs::is_directory(base)) {
    errs() << "kitec: error: --emit=c -o takes DIR/NAME (it writes NAME.h "
              "and NAME.c), NAME of letters, digits, '_', '-' and '.', not "
              "starting with '.'; got '"
           << base << "'\n";
    return BadUsage;
  }
  auto kernel = kite::aot::exportKernel(
      generic, sets, chips, options, ptxasPath,
      inputFile == "-" ? "<stdin>" : sys::path::filename(inputFile.getValue()),
      stem, occupancyRetry());
  if (!kernel) {
    errs() << "kitec: error: " << toString(kernel.takeError()) << "\n";
    return InvalidInput;
  }
  auto files = kite::aot::emitC(*kernel, stem + ".h");
  if (!files) {
    errs() << "kitec: error: " << toString(files.takeError()) << "\n";
    return InvalidInput;
  }
  if (int rc = writeOutput((base + ".h").str(), files->first))
    return rc;
  return writeOutput((base + ".c").str(), files->second);
}

/// --emit=c -o OUT: OUT.h and OUT.c for a module of one kernel; for several
/// (no --kernel), OUT_<kernel>.h and .c for each.
static int exportC(mlir::ModuleOp generic, const KernelFacts &facts,
                   const KernelFacts &pointerFacts,
                   const std::vector<std::string> &chips,
                   const kite::TargetOptions &options) {
  std::vector<std::string> kernels;
  for (auto f : generic.getOps<mlir::func::FuncOp>())
    if (mlir::kite::isKernel(f))
      kernels.push_back(f.getSymName().str());
  if (kernels.empty()) {
    errs() << "kitec: error: --emit=c: the input has no kernel\n";
    return InvalidInput;
  }
  // The variants of kernel `k`: its facts; under --specialize=auto also
  // its pointers' alone, when they differ.
  auto setsOf = [&](const std::string &k) {
    std::vector<kite::aot::FactSet> sets;
    if (auto it = facts.find(k); it != facts.end())
      sets.push_back({"spec", it->second});
    if (auto it = pointerFacts.find(k);
        it != pointerFacts.end() &&
        (sets.empty() || it->second.size() != sets[0].facts.size()))
      sets.push_back({"aligned", it->second});
    return sets;
  };
  if (kernels.size() == 1)
    return exportOne(generic, setsOf(kernels[0]), chips, options, outputFile);
  for (const std::string &k : kernels) {
    // The module with only kernel `k` (helpers stay for the inliner).
    auto only = [&](mlir::ModuleOp m) {
      mlir::OwningOpRef<mlir::ModuleOp> copy = m.clone();
      SmallVector<mlir::func::FuncOp> others;
      for (auto f : copy->getOps<mlir::func::FuncOp>())
        if (mlir::kite::isKernel(f) && f.getSymName() != k)
          others.push_back(f);
      for (auto f : others)
        f.erase();
      return copy;
    };
    auto g = only(generic);
    if (int rc = exportOne(*g, setsOf(k), chips, options,
                           outputFile + "_" + k))
      return rc;
  }
  return Success;
}

/// One compile of the input with the options as set.
/// --input-precision, else $KITE_F32_DEFAULT (like Triton's
/// TRITON_F32_DEFAULT; the environment is read here, at the tool's
/// boundary, not in the frontend).
static void setInputPrecision(kite::FrontendOptions &frontend) {
  frontend.inputPrecision = inputPrecision;
  if (inputPrecision.empty())
    if (const char *env = std::getenv("KITE_F32_DEFAULT")) {
      frontend.inputPrecision = env;
      frontend.inputPrecisionOrigin = "KITE_F32_DEFAULT";
    }
}

/// Splits `text` at commas, each item trimmed of spaces.
static std::vector<std::string> splitItems(const std::string &text) {
  std::vector<std::string> items;
  size_t from = 0;
  // A comma inside brackets (tensordesc<fp16[64, 64]>) does not split.
  auto nextComma = [&](size_t at) {
    int depth = 0;
    for (size_t i = at; i < text.size(); ++i) {
      char c = text[i];
      depth += c == '[' || c == '<';
      depth -= (c == ']' || c == '>') && depth > 0;
      if (c == ',' && depth == 0)
        return i;
    }
    return std::string::npos;
  };
  while (true) {
    size_t comma = nextComma(from);
    std::string item = text.substr(from, comma == std::string::npos
                                             ? std::string::npos
                                             : comma - from);
    size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    items.push_back(b == std::string::npos ? "" : item.substr(b, e - b + 1));
    if (comma == std::string::npos)
      return items;
    from = comma + 1;
  }
}

/// One signature item TYPE[:16|:1]: the type into `type`, a fact into
/// `facts` (as --specialize spells it). False when TYPE is not a type.
static bool signatureItem(const std::string &name, const std::string &item,
                          std::string &type, std::vector<std::string> &facts) {
  std::string t = item, fact;
  // Triton's descriptor type, tensordesc<fp16[64, 64]> (the frontend
  // checks its parts).
  if (StringRef(item).trim().starts_with("tensordesc<")) {
    type = StringRef(item).trim().str();
    return true;
  }
  if (size_t colon = item.rfind(':'); colon != std::string::npos) {
    t = item.substr(0, colon);
    fact = item.substr(colon + 1);
  }
  std::string k = kite::normalizeSignatureType(t);
  std::string elem = !k.empty() && k[0] == '*' ? k.substr(1) : k;
  static const char *known[] = {"i1",  "i8",   "i16",  "i32",    "i64",
                                "u8",  "u16",  "u32",  "u64",    "f16",
                                "bf16", "f32", "f64",  "f8e4m3", "f8e5m2"};
  bool isType = false;
  for (const char *n : known)
    isType |= elem == n;
  if (!isType)
    return false;
  type = t;
  if (fact == "16")
    facts.push_back(name + "=div16");
  else if (fact == "1")
    facts.push_back(name + "=1");
  else if (!fact.empty())
    facts.push_back(name + "=" + fact); // reported as a bad --specialize
  return true;
}

/// Fills `frontend.signature` (and defines, for the positional form's
/// constexpr items) from --signature; facts go to `facts`.
static int applySignature(SourceMgr &sourceMgr, mlir::MLIRContext &context,
                          kite::FrontendOptions &frontend,
                          std::vector<std::string> &facts) {
  std::vector<std::string> items = splitItems(signatureOpt);
  bool named = signatureOpt.find('=') != std::string::npos;
  if (named) {
    for (const std::string &item : items) {
      size_t eq = item.find('=');
      std::string name = eq == std::string::npos ? "" : item.substr(0, eq);
      std::string type;
      if (name.empty() ||
          !signatureItem(name, item.substr(eq + 1), type, facts)) {
        errs() << "kitec: error: --signature item '" << item
               << "': expected NAME=TYPE (TYPE *bf16, i32, f32, ..., "
                  "optionally :16 or :1; or tensordesc<fp16[64, 64]>)\n";
        return BadUsage;
      }
      if (!frontend.signature.emplace(name, type).second) {
        errs() << "kitec: error: --signature types '" << name
               << "' twice\n";
        return BadUsage;
      }
    }
    return 0;
  }
  // Positional (Triton compile.py): one item a parameter of the kernel.
  auto kernels = kite::declaredKernels(sourceMgr, &context);
  if (!kernels)
    return InvalidInput;
  const kite::DeclaredKernel *kernel = nullptr;
  std::string names;
  for (const kite::DeclaredKernel &k : *kernels) {
    names += (names.empty() ? "" : ", ") + k.name;
    if (k.name == kernelName || (kernelName.empty() && kernels->size() == 1))
      kernel = &k;
  }
  if (!kernel) {
    errs() << "kitec: error: --signature in the positional form needs the "
              "kernel: --kernel=NAME (kernels: "
           << names << ")\n";
    return BadUsage;
  }
  if (items.size() != kernel->params.size()) {
    errs() << "kitec: error: --signature lists " << items.size()
           << " item(s); kernel '" << kernel->name << "' has "
           << kernel->params.size() << " parameter(s)\n";
    return BadUsage;
  }
  for (size_t i = 0; i < items.size(); ++i) {
    const kite::DeclaredParam &p = kernel->params[i];
    std::string type;
    bool isType = signatureItem(p.name, items[i], type, facts);
    if (p.kind == kite::DeclaredParam::Constexpr ||
        (p.kind == kite::DeclaredParam::Untyped && !isType)) {
      if (isType || items[i].empty()) {
        errs() << "kitec: error: --signature item " << i << " ('"
               << items[i] << "') is for constexpr '" << p.name
               << "': give its value\n";
        return BadUsage;
      }
      frontend.defines[p.name] = items[i];
      continue;
    }
    if (!isType) {
      errs() << "kitec: error: --signature item " << i << " ('" << items[i]
             << "') for parameter '" << p.name
             << "' is not a type (*bf16, i32, f32, ...)\n";
      return BadUsage;
    }
    if (p.kind == kite::DeclaredParam::Untyped)
      frontend.signature[p.name] = type;
    // An annotated parameter keeps its annotation (its facts apply).
  }
  return 0;
}

static int compile() {

  kite::TargetOptions options;
  options.chip = chip;
  // --emit=c: the chips to export for; the first validates the options.
  std::vector<std::string> chips;
  if (emit == "c") {
    SmallVector<StringRef> parts;
    StringRef(chip).split(parts, ',', -1, /*KeepEmpty=*/false);
    for (StringRef p : parts)
      chips.push_back(p.trim().str());
    if (chips.empty()) {
      errs() << "kitec: error: --emit=c: --chip names no chip\n";
      return BadUsage;
    }
    options.chip = chips.front();
    if (outputFile == "-") {
      errs() << "kitec: error: --emit=c writes two files: give -o DIR/NAME\n";
      return BadUsage;
    }
  } else if (StringRef(chip).contains(',')) {
    errs() << "kitec: error: --chip lists several chips only with --emit=c\n";
    return BadUsage;
  }
  options.features = features;
  options.numWarps = numWarps;
  options.optLevel = optLevel;
  options.ieeeDivision = ieeeDiv;
  options.fpFusion = fpFusion;
  options.tma = tma;
  options.warpSpecialize = warpSpecialize;
  if (tier != "optimized" && tier != "quick") {
    errs() << "kitec: error: --tier=" << tier
           << ": expected optimized or quick\n";
    return BadUsage;
  }
  if (tier == "quick" && (emit == "c" || allConfigs)) {
    errs() << "kitec: error: --tier=quick is the runtime's first form of a "
              "kernel, not one to export: drop it with --emit=c and "
              "--all-configs\n";
    return BadUsage;
  }
  options.quickTier = tier == "quick";
  if (Error err = kite::validateTargetOptions(options)) {
    errs() << "kitec: error: " << toString(std::move(err)) << "\n";
    return BadUsage;
  }
  std::optional<kite::Stage> stage = kite::parseStage(emit);
  bool wantsBinary = emit == "ptx" || emit == "cubin" || emit == "metadata" ||
                     emit == "c";
  bool wantsSource = emit == "mlir";
  if (!wantsBinary && !wantsSource && !stage) {
    errs() << "kitec: error: unknown --emit=" << emit
           << "; expected mlir, kite, gpu, llvm, ptx, cubin, metadata or c\n";
    return BadUsage;
  }
  bool isKite = language.empty()
                    ? StringRef(inputFile).ends_with(".kite") ||
                          StringRef(inputFile).ends_with(".py")
                    : language == "kite";
  if (!language.empty() && language != "kite" && language != "mlir") {
    errs() << "kitec: error: unknown -x " << language
           << "; expected kite or mlir\n";
    return BadUsage;
  }
  kite::FrontendOptions frontend;
  for (const std::string &d : defines) {
    size_t eq = d.find('=');
    if (eq == std::string::npos || eq == 0) {
      errs() << "kitec: error: -D" << d << ": expected -D NAME=VALUE\n";
      return BadUsage;
    }
    frontend.defines[d.substr(0, eq)] = d.substr(eq + 1);
  }
  setInputPrecision(frontend);
  frontend.verbose = verbose;
  frontend.autotuneConfig = autotuneConfig;
  frontend.kernel = kernelName;
  if (autotuneConfig < -1 ||
      (autotuneConfig.getNumOccurrences() && autotuneConfig < 0)) {
    errs() << "kitec: error: --config=" << autotuneConfig
           << ": expected a configuration index (0, 1, ...)\n";
    return BadUsage;
  }
  if (autotuneConfig >= 0 && !isKite) {
    errs() << "kitec: error: --config applies to .kite sources (kite-dialect "
              "kernels take their configuration through the runtime's "
              "CompileOptions::autotuneConfig)\n";
    return BadUsage;
  }
  if (!inputPrecision.empty() && !isKite) {
    errs() << "kitec: error: --input-precision applies to .kite sources "
              "(kite.dot says its precision in the IR)\n";
    return BadUsage;
  }
  if (!defines.empty() && !isKite) {
    errs() << "kitec: error: -D applies to .kite sources (kite-dialect "
              "kernels bind constexprs through the runtime)\n";
    return BadUsage;
  }

  mlir::DialectRegistry registry;
  kite::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  // Regular files or stdin, at most 64 MiB (kite/Support/InputFile.h).
  std::string error, text;
  if (!kite::readInputFile(inputFile, text, error)) {
    errs() << "kitec: error: " << error << "\n";
    return IOError;
  }
  if (!isKite) {
    unsigned line = 0, column = 0;
    if (std::string hazard = kite::findMLIRParserHazard(text, line, column);
        !hazard.empty()) {
      errs() << (inputFile == "-" ? std::string("<stdin>")
                                  : std::string(inputFile))
             << ":" << line << ":" << column << ": error: " << hazard << "\n";
      return 1;
    }
  }
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(
          text, inputFile == "-" ? StringRef("<stdin>") : StringRef(inputFile)),
      SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  // --signature: types of unannotated parameters (and, from facts such as
  // *fp16:16, specializations; from the positional form's items of
  // constexprs, their values).
  std::vector<std::string> signatureFacts;
  if (!signatureOpt.empty()) {
    if (!isKite) {
      errs() << "kitec: error: --signature applies to .kite/.py sources "
                "(kite-dialect kernels have typed parameters)\n";
      return BadUsage;
    }
    if (int rc = applySignature(sourceMgr, context, frontend, signatureFacts))
      return rc;
  }
  auto start = std::chrono::steady_clock::now();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      isKite ? kite::importKiteSource(sourceMgr, &context, frontend)
             : mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (timing)
    errs() << "kitec: " << (isKite ? "frontend (parse, check, generate)"
                                   : "parse")
           << ": "
           << format("%.2f", std::chrono::duration<double, std::milli>(
                                 std::chrono::steady_clock::now() - start)
                                 .count())
           << " ms\n";
  if (!module)
    return InvalidInput;

  if (!kernelName.empty()) {
    // Keep only the chosen kernel (helpers stay for the inliner).
    SmallVector<mlir::func::FuncOp> others;
    bool found = false;
    std::string names;
    for (auto f : module->getOps<mlir::func::FuncOp>()) {
      if (!mlir::kite::isKernel(f))
        continue;
      names += (names.empty() ? "" : ", ") + f.getSymName().str();
      if (f.getSymName() == kernelName)
        found = true;
      else
        others.push_back(f);
    }
    if (!found) {
      errs() << "kitec: error: no kernel named '" << kernelName
             << "' (kernels: " << (names.empty() ? "none" : names) << ")\n";
      return InvalidInput;
    }
    for (auto f : others)
      f.erase();
  }

  // --num-warps / --num-stages replace what the kernels say (as the
  // runtime's CompileOptions::overrideNumWarps/overrideNumStages do).
  if (numStages.getNumOccurrences() && (numStages < 1 || numStages > 8)) {
    errs() << "kitec: error: --num-stages must be in [1, 8], got " << numStages
           << "\n";
    return BadUsage;
  }
  if (maxRegisters.getNumOccurrences() &&
      (maxRegisters < 24 || maxRegisters > 255)) {
    errs() << "kitec: error: --maxnreg must be in [24, 255], got "
           << maxRegisters << "\n";
    return BadUsage;
  }
  {
    mlir::OpBuilder attrs(&context);
    bool anyKernel = false;
    for (auto f : module->getOps<mlir::func::FuncOp>()) {
      if (!mlir::kite::isKernel(f))
        continue;
      anyKernel = true;
      if (numWarps.getNumOccurrences())
        f->setAttr(mlir::kite::KiteDialect::getNumWarpsAttrName(),
                   attrs.getI32IntegerAttr(numWarps));
      if (numStages.getNumOccurrences())
        f->setAttr(mlir::kite::KiteDialect::getNumStagesAttrName(),
                   attrs.getI32IntegerAttr(numStages));
      if (maxRegisters.getNumOccurrences())
        f->setAttr(mlir::kite::KiteDialect::getMaxRegistersAttrName(),
                   attrs.getI32IntegerAttr(maxRegisters));
    }
    if (!anyKernel &&
        (numWarps.getNumOccurrences() || numStages.getNumOccurrences() ||
         maxRegisters.getNumOccurrences())) {
      errs() << "kitec: error: --num-warps/--num-stages/--maxnreg: the input "
                "has no kernel\n";
      return BadUsage;
    }
  }

  // --tier=quick: the runtime's quick tier, or why the kernel has none.
  if (options.quickTier) {
    std::string why;
    if (!kite::planQuickTier(*module, options, why)) {
      errs() << "kitec: error: the kernel has no quick tier: " << why << "\n";
      return InvalidInput;
    }
  }

  // --emit=c exports the kernel as written (generic) beside its
  // specialization.
  mlir::OwningOpRef<mlir::ModuleOp> generic;
  KernelFacts facts;
  if (emit == "c")
    generic = module->clone();
  // --specialize: the facts the runtime derives from launch arguments.
  std::vector<std::string> allFacts(specializations.begin(),
                                    specializations.end());
  allFacts.insert(allFacts.end(), signatureFacts.begin(),
                  signatureFacts.end());
  // --specialize=auto: what Triton's launcher tells apart, for every
  // kernel: each pointer and i32/i64 parameter divisible by 16 (the
  // variant tried first), then the pointers only (aligned tensors, sizes
  // of any value), then the generic form.
  KernelFacts pointerFacts;
  bool autoFacts = false;
  for (const std::string &item : allFacts)
    autoFacts |= item == "auto";
  if (autoFacts) {
    std::vector<std::string> expanded;
    for (const std::string &item : allFacts)
      if (item != "auto")
        expanded.push_back(item);
    for (auto f : module->getOps<mlir::func::FuncOp>()) {
      if (!mlir::kite::isKernel(f))
        continue;
      for (unsigned i = 0; i < f.getNumArguments(); ++i) {
        mlir::Type type = f.getArgument(i).getType();
        bool pointer = isa<mlir::kite::PointerType>(type);
        if (!pointer && !type.isInteger(32) && !type.isInteger(64))
          continue;
        facts[f.getSymName().str()].push_back(
            {i, kite::ParamFact::DivisibleBy16});
        if (pointer)
          pointerFacts[f.getSymName().str()].push_back(
              {i, kite::ParamFact::DivisibleBy16});
        kite::specializeArgument(f, i, kite::ParamFact::DivisibleBy16);
      }
    }
    allFacts = expanded;
  }
  for (const std::string &item : allFacts) {
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    std::string fact = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (eq == std::string::npos || name.empty() ||
        (fact != "1" && fact != "div16")) {
      errs() << "kitec: error: --specialize " << item
             << ": expected NAME=1, NAME=div16 or auto\n";
      return BadUsage;
    }
    bool found = false;
    for (auto f : module->getOps<mlir::func::FuncOp>()) {
      if (!mlir::kite::isKernel(f))
        continue;
      for (unsigned i = 0; i < f.getNumArguments(); ++i) {
        auto attr = f.getArgAttrOfType<mlir::StringAttr>(
            i, mlir::kite::KiteDialect::getArgNameAttrName());
        std::string argName =
            attr ? attr.getValue().str() : "#" + std::to_string(i);
        if (argName != name)
          continue;
        found = true;
        mlir::Type type = f.getArgument(i).getType();
        bool integer = type.isInteger(32) || type.isInteger(64);
        if (!integer && (fact == "1" || !isa<mlir::kite::PointerType>(type))) {
          errs() << "kitec: error: --specialize " << item << ": parameter '"
                 << name << "' of '" << f.getSymName() << "' is "
                 << (fact == "1" ? "not an i32/i64 integer"
                                 : "neither an integer nor a pointer")
                 << "\n";
          return BadUsage;
        }
        kite::ParamFact pf = fact == "1" ? kite::ParamFact::EqualToOne
                                         : kite::ParamFact::DivisibleBy16;
        kite::specializeArgument(f, i, pf);
        facts[f.getSymName().str()].push_back({i, pf});
      }
    }
    if (!found) {
      errs() << "kitec: error: --specialize " << item
             << ": no kernel has a parameter named '" << name << "'\n";
      return BadUsage;
    }
  }

  if (wantsSource) {
    std::string text;
    raw_string_ostream os(text);
    module->print(os);
    return writeOutput(outputFile, text);
  }

  if (!wantsBinary) {
    mlir::PassManager pm(&context);
    if (timing)
      pm.enableTiming();
    kite::buildKiteToPTXPipeline(pm, options, *stage);
    if (failed(pm.run(*module)))
      return InvalidInput;
    std::string text;
    raw_string_ostream os(text);
    module->print(os);
    return writeOutput(outputFile, text);
  }

  if (emit == "c")
    return exportC(*generic, facts, pointerFacts, chips, options);

  auto compiled = kite::compileToPTX(*module, options, {}, timing);
  if (!compiled) {
    errs() << toString(compiled.takeError());
    return InvalidInput;
  }
  errs() << compiled->warnings;
  if (!metadataFile.empty())
    if (int rc = writeOutput(metadataFile, compiled->metadataJSON() + "\n"))
      return rc;
  if (emit == "metadata")
    return writeOutput(outputFile, compiled->metadataJSON() + "\n");
  if (emit == "cubin")
    return runPtxas(compiled->ptx, compiled->kernels, /*write=*/true);
  if (resources)
    if (int rc = runPtxas(compiled->ptx, compiled->kernels, /*write=*/false))
      return rc;
  return writeOutput(outputFile, compiled->ptx);
}
