//===- ExportC.cpp - Ahead-of-time export of a kernel to C -----------------===//
//
// The generated C (see ExportC.h) declares the few driver types and entry
// points it uses itself and dlopens libcuda.so.1, so it builds without the
// CUDA toolkit and a missing driver is an error code, not a failed program
// start. Images are byte arrays; at load the best one for the device of
// the current context is taken: a cubin for exactly its chip (sm_90a needs
// 9.0), else a cubin of its major version and a lower or equal minor, else
// PTX for a lower chip (never an arch-specific "a" one on another chip).
//
//===----------------------------------------------------------------------===//

#include "kite/AOT/ExportC.h"
#include "kite/Support/MachineCode.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>

using namespace llvm;

std::string kite::aot::cIdentifier(StringRef name) {
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "_" + out;
  return out;
}

namespace {

/// C identifiers for the kernel's parameters: each name made an identifier
/// (cIdentifier), with '_' appended while it could mean something else in
/// the C (a keyword; a type or macro of the headers the export includes:
/// names ending in "_t", macros such as EOF, SIZE_MAX or
/// RTLD_NOW, stdin/stdout/stderr/errno/offsetof; names C reserves, starting
/// with '_'; the generated code's own "kite_" names; C++'s keywords, for
/// the header) or would repeat an
/// earlier parameter's (`int` and `int_`).
std::vector<std::string> paramIdentifiers(ArrayRef<std::string> names) {
  static const char *reservedWords[] = {
      "auto", "break", "case", "char", "const", "continue", "default", "do",
      "double", "else", "enum", "extern", "float", "for", "goto", "if",
      "inline", "int", "long", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
      "unsigned", "void", "volatile", "while", "bool", "true", "false",
      "alignas", "alignof", "constexpr", "nullptr", "static_assert",
      "thread_local", "typeof", "typeof_unqual", "asm", "fortran",
      "stdin", "stdout", "stderr", "errno", "offsetof", "unreachable",
      "assert", "complex", "imaginary", "noreturn",
      // C++'s, for the header's C++ consumers.
      "class", "new", "delete", "template", "this", "namespace", "operator",
      "private", "public", "protected", "virtual", "friend", "typename",
      "using", "try", "catch", "throw", "explicit", "mutable", "export",
      "and", "or", "not", "xor", "bitand", "bitor", "compl", "and_eq",
      "or_eq", "xor_eq", "not_eq", "wchar_t", "decltype", "noexcept",
      "consteval", "constinit", "co_await", "co_return", "co_yield",
      "concept", "requires", "dynamic_cast", "static_cast", "const_cast",
      "reinterpret_cast", "typeid"};
  auto reserved = [](StringRef id) {
    // Macros: SIZE_MAX, RTLD_NOW, INT32_MIN, SEEK_SET... (capitals with an
    // underscore; M, N or K stay as they are), and a few without one.
    bool macro = (llvm::is_contained(id, '_') &&
                  llvm::any_of(id, [](char c) { return std::isupper(c); }) &&
                  llvm::none_of(id, [](char c) { return std::islower(c); })) ||
                 llvm::is_contained({"EOF", "BUFSIZ", "NULL", "linux", "unix",
                                     "i386"},
                                    id);
    return macro || id.ends_with("_t") || id.starts_with("_") ||
           id.starts_with("kite_") || llvm::is_contained(reservedWords, id);
  };
  std::vector<std::string> ids;
  llvm::StringSet<> used;
  for (const std::string &name : names) {
    std::string id = kite::aot::cIdentifier(name);
    if (reserved(id))
      id += "_";
    while (used.contains(id))
      id += "_";
    used.insert(id);
    ids.push_back(id);
  }
  return ids;
}

/// `text` inside a C string literal: quotes, backslashes and anything not
/// printable as escapes.
std::string cString(StringRef text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '"' || c == '\\')
      out += {'\\', char(c)};
    else if (c >= 0x20 && c < 0x7f && c != '?') // '?': no trigraphs
      out += char(c);
    else
      out += llvm::formatv("\\{0:o3}", unsigned(c)).str();
  }
  return out;
}

/// `text` inside a C comment: no "*/", one line, printable.
std::string cComment(StringRef text) {
  std::string out;
  for (unsigned char c : text)
    out += c >= 0x20 && c < 0x7f ? char(c) : '?';
  for (size_t at; (at = out.find("*/")) != std::string::npos;)
    out.replace(at, 2, "* /");
  return out;
}

/// The C type of a scalar parameter, or "" when C cannot take it.
std::string cType(const kite::KernelParam &p) {
  if (p.kind == kite::KernelParam::Kind::Pointer)
    return "uint64_t";
  StringRef t = p.type;
  if (t == "i1" || t == "i8")
    return t == "i1" ? "uint8_t" : "int8_t";
  if (t == "i16")
    return "int16_t";
  if (t == "i32")
    return "int32_t";
  if (t == "i64")
    return "int64_t";
  if (t == "u8" || t == "u16" || t == "u32" || t == "u64")
    return "uint" + t.drop_front().str() + "_t";
  if (t == "f16" || t == "bf16")
    return "uint16_t";
  if (t == "f32")
    return "float";
  if (t == "f64")
    return "double";
  return "";
}

/// (major, minor, arch-specific) of "sm_90a".
std::tuple<int, int, bool> chipVersion(StringRef chip) {
  StringRef digits = chip.drop_front(3);
  bool specific = digits.consume_back("a");
  unsigned v = 0;
  digits.getAsInteger(10, v);
  return {int(v / 10), int(v % 10), specific};
}

void emitBytes(raw_ostream &os, StringRef bytes) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i % 16 == 0)
      os << "\n   ";
    os << ' ' << unsigned(static_cast<unsigned char>(bytes[i])) << ',';
  }
  os << "\n";
}

} // namespace

Expected<std::pair<std::string, std::string>>
kite::aot::emitC(const ExportedKernel &k, StringRef headerName) {
  if (k.variants.empty() || !k.variants.back().facts.empty())
    return createStringError("--emit=c: the last variant must be generic");
  for (const Variant &v : k.variants)
    if (v.images.empty())
      return createStringError("--emit=c: variant '" + v.name +
                               "' has no image");
  std::vector<std::string> types;
  for (auto [i, p] : llvm::enumerate(k.params)) {
    types.push_back(cType(p));
    if (types.back().empty())
      return createStringError("--emit=c: parameter '" + k.paramNames[i] +
                               "' has type " + p.type +
                               ", which the C export cannot take");
  }
  const std::string &P = k.prefix;
  std::string guard = "KITE_AOT_" + P + "_H";
  for (char &c : guard)
    c = char(std::toupper(static_cast<unsigned char>(c)));
  const std::vector<std::string> ids = paramIdentifiers(k.paramNames);
  std::string params;
  for (size_t i = 0; i < k.params.size(); ++i)
    params += ", " + types[i] + " " + ids[i];

  // The prototype's own parameter names, unless a kernel parameter has one.
  std::string launchHead = "void *stream, unsigned gx, unsigned gy, unsigned gz";
  for (const std::string &id : ids)
    if (llvm::is_contained({"stream", "gx", "gy", "gz"}, id))
      launchHead = "void *kite_stream, unsigned kite_gx, unsigned kite_gy, "
                   "unsigned kite_gz";
  std::string header;
  raw_string_ostream h(header);
  h << "/* Generated by kitec --emit=c from " << cComment(k.sourceName)
    << ": kernel '" << cComment(k.entry) << "'. Do not edit.\n"
    << " * Needs only the CUDA driver (libcuda.so.1, loaded at run time). "
       "Functions return 0\n"
    << " * on success, else a nonzero code (a CUresult, or -1 for Kite's own "
       "errors)\n"
    << " * that " << P << "_error() describes. Pointers are device addresses "
       "(CUdeviceptr);\n"
    << " * f16/bf16 scalars are their bits. Not thread-safe: load once, then "
       "launch\n"
    << " * from any thread. */\n"
    << "#ifndef " << guard << "\n#define " << guard << "\n\n"
    << "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
    << "/* Threads per program (CUDA block) of the kernel. */\n"
    << "enum { " << P << "_THREADS = " << k.threads << " };\n\n"
    << "/* Loads the kernel into the current CUDA context (device 0's primary "
       "context\n   when none is current), choosing the image for its "
       "device. */\n"
    << "int " << P << "_load(void);\n\n"
    << "/* Launches the kernel on a grid of gx x gy x gz programs on `stream` "
       "(a CUstream;\n   0: the default stream); asynchronous. The "
       "specialized variant runs when the\n   arguments have its facts, the "
       "generic one otherwise. */\n"
    << "int " << P << "_launch(" << launchHead << params << ");\n\n"
    << "/* Unloads the kernel's modules. */\n"
    << "int " << P << "_unload(void);\n\n"
    << "/* The last error's message (\"\" if none). */\n"
    << "const char *" << P << "_error(void);\n\n"
    << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";

  std::string source;
  raw_string_ostream c(source);
  c << "/* Generated by kitec --emit=c from " << cComment(k.sourceName)
    << ": kernel '" << cComment(k.entry) << "'. Do not edit. */\n"
    << "#include \"" << cString(headerName) << "\"\n\n"
    << "#include <dlfcn.h>\n#include <stddef.h>\n#include <stdio.h>\n"
       "#include <string.h>\n\n"
    << "typedef int kite_CUresult;\ntypedef void *kite_handle;\n\n"
    << "static struct {\n  void *lib;\n"
       "  kite_CUresult (*cuInit)(unsigned);\n"
       "  kite_CUresult (*cuCtxGetCurrent)(kite_handle *);\n"
       "  kite_CUresult (*cuCtxSetCurrent)(kite_handle);\n"
       "  kite_CUresult (*cuCtxGetDevice)(int *);\n"
       "  kite_CUresult (*cuDeviceGet)(int *, int);\n"
       "  kite_CUresult (*cuDevicePrimaryCtxRetain)(kite_handle *, int);\n"
       "  kite_CUresult (*cuDeviceGetAttribute)(int *, int, int);\n"
       "  kite_CUresult (*cuModuleLoadData)(kite_handle *, const void *);\n"
       "  kite_CUresult (*cuModuleUnload)(kite_handle);\n"
       "  kite_CUresult (*cuModuleGetFunction)(kite_handle *, kite_handle, "
       "const char *);\n"
       "  kite_CUresult (*cuFuncSetAttribute)(kite_handle, int, int);\n"
       "  kite_CUresult (*cuLaunchKernel)(kite_handle, unsigned, unsigned, "
       "unsigned, unsigned,\n"
       "                                  unsigned, unsigned, unsigned, "
       "kite_handle, void **, void **);\n"
       "  kite_CUresult (*cuGetErrorString)(kite_CUresult, const char **);\n"
       "} kite_drv;\n\n"
    << "static char kite_message[512];\n\n"
    << "static int kite_fail(kite_CUresult rc, const char *what) {\n"
       "  const char *s = NULL;\n"
       "  if (rc > 0 && kite_drv.cuGetErrorString)\n"
       "    kite_drv.cuGetErrorString(rc, &s);\n"
       "  snprintf(kite_message, sizeof kite_message, \"" << P
    << ": %s%s%s\", what, s ? \": \" : \"\", s ? s : \"\");\n"
       "  return rc ? rc : -1;\n}\n\n"
    << "const char *" << P << "_error(void) { return kite_message; }\n\n";

  // Images, and what each variant has.
  c << "struct kite_image {\n  int major, minor, specific, ptx;\n"
       "  const char *chip;\n  const unsigned char *data;\n"
       "  unsigned shared; /* dynamic shared memory of a launch */\n};\n\n";
  for (const Variant &v : k.variants) {
    for (const Image &img : v.images) {
      c << "static const unsigned char " << v.name << "_" << img.chip
        << (img.ptx ? "_ptx" : "_cubin") << "[] = {";
      emitBytes(c, img.bytes);
      if (img.ptx)
        c << "    0,\n"; // cuModuleLoadData reads PTX as a C string
      c << "};\n";
    }
    c << "static const struct kite_image " << v.name << "_images[] = {\n";
    for (const Image &img : v.images) {
      auto [major, minor, specific] = chipVersion(img.chip);
      c << "    {" << major << ", " << minor << ", " << int(specific) << ", "
        << int(img.ptx) << ", \"" << img.chip << "\", " << v.name << "_"
        << img.chip << (img.ptx ? "_ptx" : "_cubin") << ", "
        << img.dynamicSharedBytes << "},\n";
    }
    c << "};\n\n";
  }
  size_t nv = k.variants.size();
  c << "static kite_handle kite_modules[" << nv << "], kite_functions[" << nv
    << "];\nstatic unsigned kite_shared[" << nv << "];\n\n";

  // Image choice.
  c << "/* The best image of `n` for a device of compute capability "
       "major.minor: a cubin\n   for exactly it, else a cubin of its major "
       "version and the highest lower minor,\n   else the highest PTX below "
       "it; arch-specific (sm_90a) ones only on their chip. */\n"
       "static const struct kite_image *kite_choose(const struct kite_image *images, int n, "
       "int major,\n                                  int minor) {\n"
       "  const struct kite_image *best = NULL;\n"
       "  int pass, i;\n"
       "  for (pass = 0; pass < 3 && !best; ++pass)\n"
       "    for (i = 0; i < n; ++i) {\n"
       "      const struct kite_image *m = &images[i];\n"
       "      int exact = m->major == major && m->minor == minor;\n"
       "      int below = m->major < major || (m->major == major && "
       "m->minor <= minor);\n"
       "      int ok = pass == 0 ? !m->ptx && exact\n"
       "             : pass == 1 ? !m->ptx && !m->specific && m->major == "
       "major && below\n"
       "                         : m->ptx && (m->specific ? exact : below);\n"
       "      if (ok && (!best || m->major * 10 + m->minor > best->major * 10 "
       "+ best->minor))\n"
       "        best = m;\n"
       "    }\n"
       "  return best;\n}\n\n";

  // Load.
  c << "int " << P << "_load(void) {\n"
    << "  kite_handle ctx = NULL;\n  int device = 0, major = 0, minor = 0;\n"
       "  kite_CUresult rc;\n"
    << "  if (!kite_drv.lib) {\n"
       "    kite_drv.lib = dlopen(\"libcuda.so.1\", RTLD_NOW | RTLD_LOCAL);\n"
       "    if (!kite_drv.lib)\n"
       "      return kite_fail(-1, \"the CUDA driver (libcuda.so.1) cannot be "
       "loaded\");\n"
       "#define KITE_SYM(name, symbol)                                      "
       "      \\\n"
       "    *(void **)&kite_drv.name = dlsym(kite_drv.lib, symbol);                  "
       "      \\\n"
       "    if (!kite_drv.name)                                                 "
       "      \\\n"
       "      return kite_fail(-1, \"the CUDA driver lacks \" symbol);\n"
       "    KITE_SYM(cuGetErrorString, \"cuGetErrorString\")\n"
       "    KITE_SYM(cuInit, \"cuInit\")\n"
       "    KITE_SYM(cuCtxGetCurrent, \"cuCtxGetCurrent\")\n"
       "    KITE_SYM(cuCtxSetCurrent, \"cuCtxSetCurrent\")\n"
       "    KITE_SYM(cuCtxGetDevice, \"cuCtxGetDevice\")\n"
       "    KITE_SYM(cuDeviceGet, \"cuDeviceGet\")\n"
       "    KITE_SYM(cuDevicePrimaryCtxRetain, \"cuDevicePrimaryCtxRetain\")\n"
       "    KITE_SYM(cuDeviceGetAttribute, \"cuDeviceGetAttribute\")\n"
       "    KITE_SYM(cuModuleLoadData, \"cuModuleLoadData\")\n"
       "    KITE_SYM(cuModuleUnload, \"cuModuleUnload\")\n"
       "    KITE_SYM(cuModuleGetFunction, \"cuModuleGetFunction\")\n"
       "    KITE_SYM(cuFuncSetAttribute, \"cuFuncSetAttribute\")\n"
       "    KITE_SYM(cuLaunchKernel, \"cuLaunchKernel\")\n"
       "#undef KITE_SYM\n"
       "  }\n"
       "  if ((rc = kite_drv.cuInit(0)))\n    return kite_fail(rc, \"cuInit\");\n"
       "  if ((rc = kite_drv.cuCtxGetCurrent(&ctx)))\n"
       "    return kite_fail(rc, \"cuCtxGetCurrent\");\n"
       "  if (!ctx) {\n"
       "    if ((rc = kite_drv.cuDeviceGet(&device, 0)))\n"
       "      return kite_fail(rc, \"cuDeviceGet\");\n"
       "    if ((rc = kite_drv.cuDevicePrimaryCtxRetain(&ctx, device)))\n"
       "      return kite_fail(rc, \"cuDevicePrimaryCtxRetain\");\n"
       "    if ((rc = kite_drv.cuCtxSetCurrent(ctx)))\n"
       "      return kite_fail(rc, \"cuCtxSetCurrent\");\n"
       "  }\n"
       "  if ((rc = kite_drv.cuCtxGetDevice(&device)))\n"
       "    return kite_fail(rc, \"cuCtxGetDevice\");\n"
       "  /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR */\n"
       "  if ((rc = kite_drv.cuDeviceGetAttribute(&major, 75, device)) ||\n"
       "      (rc = kite_drv.cuDeviceGetAttribute(&minor, 76, device)))\n"
       "    return kite_fail(rc, \"cuDeviceGetAttribute\");\n";
  for (auto [vi, v] : llvm::enumerate(k.variants)) {
    c << "  {\n    const struct kite_image *m = kite_choose(" << v.name << "_images, "
      << v.images.size() << ", major, minor);\n"
      << "    if (!m) {\n      snprintf(kite_message, sizeof kite_message, \"" << P
      << ": no image for compute capability %d.%d (built for";
    for (const Image &img : v.images)
      c << " " << img.chip << (img.ptx ? " PTX" : "");
    c << ")\", major, minor);\n      return -1;\n    }\n"
      << "    if ((rc = kite_drv.cuModuleLoadData(&kite_modules[" << vi << "], m->data)))\n"
      << "      return kite_fail(rc, \"cuModuleLoadData\");\n"
      << "    if ((rc = kite_drv.cuModuleGetFunction(&kite_functions[" << vi
      << "], kite_modules[" << vi << "], \"" << cString(k.entry) << "\")))\n"
      << "      return kite_fail(rc, \"cuModuleGetFunction\");\n";
    c << "    kite_shared[" << vi << "] = m->shared;\n"
      << "    /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */\n"
      << "    if (m->shared > 48 * 1024 &&\n"
      << "        (rc = kite_drv.cuFuncSetAttribute(kite_functions[" << vi
      << "], 8, (int)m->shared)))\n"
      << "      return kite_fail(rc, \"cuFuncSetAttribute\");\n"
      << "  }\n";
  }
  c << "  kite_message[0] = 0;\n  return 0;\n}\n\n";

  // Unload.
  c << "int " << P << "_unload(void) {\n  int i;\n  kite_CUresult rc;\n"
    << "  for (i = 0; i < " << nv << "; ++i)\n"
    << "    if (kite_modules[i]) {\n"
       "      if ((rc = kite_drv.cuModuleUnload(kite_modules[i])))\n"
       "        return kite_fail(rc, \"cuModuleUnload\");\n"
       "      kite_modules[i] = kite_functions[i] = NULL;\n    }\n"
       "  return 0;\n}\n\n";

  // Launch: the first variant whose facts hold.
  c << "int " << P << "_launch(void *kite_stream, unsigned kite_gx, "
       "unsigned kite_gy, unsigned kite_gz" << params << ") {\n"
    << "  void *kite_args[] = {";
  for (size_t i = 0; i < k.params.size(); ++i)
    c << (i ? ", " : "") << "&" << ids[i];
  if (k.params.empty())
    c << "NULL";
  c << "};\n  int kite_v = " << nv - 1 << ";\n  kite_CUresult kite_rc;\n";
  for (auto [vi, v] : llvm::enumerate(k.variants)) {
    if (v.facts.empty())
      continue;
    c << "  if (kite_v == " << nv - 1;
    for (auto [index, fact] : v.facts) {
      const std::string &name = ids[index];
      c << " &&\n      "
        << (fact == ParamFact::EqualToOne
                ? name + " == 1"
                : "(uint64_t)" + name + " % 16 == 0");
    }
    c << ")\n    kite_v = " << vi << ";\n";
  }
  for (auto [i, p] : llvm::enumerate(k.params))
    if (p.kind == KernelParam::Kind::Pointer)
      c << "  if (!" << ids[i] << ")\n"
        << "    return kite_fail(-1, \"argument '" << cString(k.paramNames[i])
        << "' is a null pointer\");\n";
  c << "  if (!kite_functions[kite_v])\n"
    << "    return kite_fail(-1, \"not loaded (call " << P
    << "_load first)\");\n"
    << "  if (!kite_gx || !kite_gy || !kite_gz || kite_gy > 65535 || "
       "kite_gz > 65535)\n"
    << "    return kite_fail(-1, \"invalid grid: every dimension must be "
       ">= 1, y and z <= 65535\");\n";
  if (k.cluster != std::array<int, 3>{1, 1, 1}) {
    std::string dims = std::to_string(k.cluster[0]) + ", " +
                       std::to_string(k.cluster[1]) + ", " +
                       std::to_string(k.cluster[2]);
    c << "  if (kite_gx % " << k.cluster[0] << " || kite_gy % " << k.cluster[1]
      << " || kite_gz % " << k.cluster[2] << ")\n"
      << "    return kite_fail(-1, \"invalid grid: not a multiple of the "
         "kernel's clusters ("
      << dims << ")\");\n";
  }
  c << "  {\n"
    << "    if ((kite_rc = kite_drv.cuLaunchKernel(kite_functions[kite_v], "
       "kite_gx, kite_gy, kite_gz,\n        "
    << P
    << "_THREADS, 1, 1, kite_shared[kite_v], kite_stream, kite_args, NULL)))\n"
       "      return kite_fail(kite_rc, \"cuLaunchKernel\");\n  }\n"
       "  return 0;\n}\n";
  return std::make_pair(header, source);
}

/// One ptxas run at `program` (found) on `ptx`.
static Expected<std::string>
runPtxasOnce(StringRef program, StringRef ptx, StringRef chip,
             kite::support::PerformanceNotes *notes = nullptr) {
  SmallString<128> ptxFile, cubinFile, logFile;
  if (sys::fs::createTemporaryFile("kitec", "ptx", ptxFile) ||
      sys::fs::createTemporaryFile("kitec", "cubin", cubinFile) ||
      sys::fs::createTemporaryFile("kitec", "log", logFile))
    return createStringError("cannot create temporary files");
  {
    std::error_code ec;
    raw_fd_ostream os(ptxFile, ec);
    if (ec)
      return createStringError("cannot write " + ptxFile.str().str());
    os << ptx;
  }
  std::string message;
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logFile),
                                          StringRef(logFile)};
  int rc =
      sys::ExecuteAndWait(program,
                          {program, "-arch=" + chip.str(), std::string(ptxFile),
                           "-o", std::string(cubinFile)},
                          std::nullopt, redirects, 0, 0, &message);
  sys::fs::remove(ptxFile);
  std::string log;
  if (auto text = MemoryBuffer::getFile(logFile))
    log = (*text)->getBuffer().str();
  sys::fs::remove(logFile);
  if (rc != 0) {
    sys::fs::remove(cubinFile);
    StringRef why = StringRef(log).trim();
    return createStringError("ptxas failed for " + chip.str() +
                             (!why.empty()      ? ":\n" + why.str()
                              : message.empty() ? ""
                                                : ": " + message));
  }
  if (notes)
    *notes = kite::support::performanceNotes(log);
  auto cubin = MemoryBuffer::getFile(cubinFile, /*IsText=*/false);
  sys::fs::remove(cubinFile);
  if (!cubin)
    return createStringError("cannot read the cubin ptxas wrote");
  return (*cubin)->getBuffer().str();
}

Expected<std::string>
kite::aot::compileWithPtxas(StringRef ptx, StringRef chip, StringRef ptxas,
                            kite::support::PerformanceNotes *notes,
                            bool occupancyRetry) {
  auto program = sys::findProgramByName(ptxas);
  if (program && !sys::fs::can_execute(*program))
    program = std::make_error_code(std::errc::no_such_file_or_directory);
  if (!program)
    return createStringError("ptxas ('" + ptxas.str() +
                             "') was not found: compiling cubins needs the "
                             "CUDA toolkit's ptxas (--ptxas)");
  auto cubin = runPtxasOnce(*program, ptx, chip, notes);
  if (!cubin)
    return cubin.takeError();
  // The occupancy retry, as the runtime's (kite/Support/MachineCode.h).
  if (occupancyRetry)
    support::raiseOccupancy(
      ptx.str(), *cubin,
      [&](const std::string &limited, std::string &error,
          kite::support::PerformanceNotes &secondNotes) {
        auto second = runPtxasOnce(*program, limited, chip, &secondNotes);
        if (second)
          return std::optional<std::string>(std::move(*second));
        error = toString(second.takeError());
        return std::optional<std::string>();
      },
      notes);
  return std::move(*cubin);
}
