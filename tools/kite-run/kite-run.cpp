//===- kite-run.cpp - Run a kernel from the command line -------------------===//
//
//   kite-run KERNEL.kite|.py|.mlir [--kernel NAME] [-D NAME=VALUE]...
//            [--signature NAME=TYPE,...]
//            --grid X[,Y[,Z]] NAME=VALUE... [--print NAME[:COUNT]]...
//            [--save NAME=FILE]... [--gpu]
//
// Runs one kernel in the Kite interpreter (or, with --gpu, on GPU 0) on
// generated or file inputs, and prints or saves the outputs. Every runtime
// parameter gets a value by name:
//   scalars   n=1000  p=0.5  seed=123
//   pointers  zeros:N  ones:N  arange:N  rand:N[:SEED]  randn:N[:SEED]
//             values:1,2,3  file:PATH (raw elements of the pointee type)
// Exit codes: 0 success, 1 the kernel or its inputs failed, 2 bad usage,
// 3 an output (--save) could not be written.
//
//===----------------------------------------------------------------------===//

#include "ArgSpecs.h"

#include "kite/Runtime/Fp8.h"
#include "kite/Runtime/Runtime.h"
#include "kite/Support/InputFile.h"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace kite;
using namespace kite_run;

namespace {

[[noreturn]] void usage(const std::string &msg) {
  std::fprintf(stderr, "kite-run: error: %s\n(kite-run --help for usage)\n",
               msg.c_str());
  std::exit(2);
}

void help() {
  std::printf(
      "usage: kite-run KERNEL.kite|.py|.mlir [--kernel NAME] [-D NAME=VALUE]...\n"
      "                [--signature NAME=TYPE,...] (an unannotated kernel's types)\n"
      "                --grid X[,Y[,Z]] NAME=VALUE... [--print NAME[:COUNT]]...\n"
      "                [--save NAME=FILE]... [--gpu]\n\n"
      "Runs a kernel in the Kite interpreter (--gpu: on GPU 0).\n"
      "Scalar parameters: NAME=NUMBER. Pointer parameters: NAME=SPEC with SPEC\n"
      "  zeros:N | ones:N | arange:N | rand:N[:SEED] | randn:N[:SEED]\n"
      "  | values:V1,V2,... | file:PATH (raw elements of the pointee type)\n"
      "--print NAME[:COUNT] prints a buffer after the run (default 16 elements);\n"
      "--save NAME=FILE writes it as raw elements.\n");
}

/// The most bytes of buffers kite-run allocates: KITE_RUN_MAX_BYTES, else
/// 4 GiB.
uint64_t maxBufferBytes() {
  if (const char *env = std::getenv("KITE_RUN_MAX_BYTES"))
    if (uint64_t v = std::strtoull(env, nullptr, 10))
      return v;
  return uint64_t(4) << 30;
}

} // namespace

int run(int argc, char **argv) {
  std::string file, kernelName;
  CompileOptions options;
  uint32_t grid[3] = {0, 1, 1};
  bool gridGiven = false, gpu = false;
  std::map<std::string, std::string> values;
  std::vector<std::pair<std::string, size_t>> prints;
  std::vector<std::pair<std::string, std::string>> saves;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc)
        usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      help();
      return 0;
    } else if (a == "--kernel") {
      options.kernel = next();
    } else if (a == "--gpu") {
      gpu = true;
    } else if (a.rfind("-D", 0) == 0) {
      std::string d = a.size() > 2 ? a.substr(2) : next();
      size_t eq = d.find('=');
      if (eq == std::string::npos || eq == 0)
        usage("-D" + d + ": expected -D NAME=VALUE");
      // A number, else any Python literal the frontend reads (None, True,
      // 'mean', tl.bfloat16).
      std::string name = d.substr(0, eq), value = d.substr(eq + 1);
      char *end = nullptr;
      std::strtod(value.c_str(), &end);
      if (!value.empty() && !*end)
        options.constants[name] = number(name, value);
      else
        options.defines[name] = value;
    } else if (a == "--signature" || a.rfind("--signature=", 0) == 0) {
      // Types of an unannotated (Triton-style) kernel's parameters.
      std::string list = a == "--signature" ? next() : a.substr(12);
      std::stringstream ss(list);
      for (std::string item; std::getline(ss, item, ',');) {
        size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
          usage("--signature item '" + item + "': expected NAME=TYPE");
        options.signature[item.substr(0, eq)] = item.substr(eq + 1);
      }
    } else if (a == "--grid") {
      std::stringstream ss(next());
      std::string item;
      int k = 0;
      while (std::getline(ss, item, ',')) {
        if (k > 2)
          usage("--grid takes at most 3 dimensions");
        char *end = nullptr;
        unsigned long v = std::strtoul(item.c_str(), &end, 10);
        if (item.empty() || *end || v == 0 || v > 0x7fffffff)
          usage("--grid: '" + item + "' is not a positive size");
        grid[k++] = uint32_t(v);
      }
      gridGiven = k > 0;
    } else if (a == "--print") {
      std::string v = next();
      size_t c = v.find(':');
      prints.emplace_back(v.substr(0, c),
                          c == std::string::npos ? 16 : std::strtoul(v.c_str() + c + 1, nullptr, 10));
    } else if (a == "--save") {
      std::string v = next();
      size_t eq = v.find('=');
      if (eq == std::string::npos)
        usage("--save NAME=FILE");
      saves.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a.size() > 1 && a[0] == '-') {
      usage("unknown option '" + a + "'");
    } else if (file.empty() && a.find('=') == std::string::npos) {
      file = a;
    } else {
      size_t eq = a.find('=');
      if (eq == std::string::npos || eq == 0)
        usage("'" + a + "': expected NAME=VALUE");
      values[a.substr(0, eq)] = a.substr(eq + 1);
    }
  }
  if (file.empty())
    usage("no kernel file");
  if (!gridGiven)
    usage("--grid is required");

  auto kernel = compileFile(file, options);
  if (!kernel) {
    std::fprintf(stderr, "%s\n", kernel.error().message().c_str());
    return 1;
  }
  // Buffers and scalars by parameter name.
  std::map<std::string, std::vector<uint8_t>> buffers;
  uint64_t bufferBytes = 0;
  std::vector<Arg> args;
  for (const Param &p : kernel->params()) {
    if (!p.pointer && p.type == ScalarType::Any)
      usage("parameter '" + p.name + "' of kernel '" + kernel->name() +
            "' has no type (the kernel is typed at launch): give the types "
            "of its unannotated parameters with --signature " + p.name +
            "=*f32,... (or annotate them)");
    auto it = values.find(p.name);
    if (it == values.end())
      usage("no value for parameter '" + p.name + "' (" +
            (p.pointer ? std::string("a buffer: zeros:N, rand:N, ...")
                       : std::string(scalarTypeName(p.type))) +
            ")");
    if (p.pointer) {
      // The interpreter holds every buffer in memory: at most 4 GiB of them
      // (KITE_RUN_MAX_BYTES), an error rather than an abort of the host.
      try {
        buffers[p.name] =
            makeBuffer(p.name, p.type, it->second,
                       maxBufferBytes() - std::min(bufferBytes, maxBufferBytes()));
      } catch (const std::bad_alloc &) {
        std::fprintf(stderr, "kite-run: error: '%s=%s': out of memory\n",
                     p.name.c_str(), it->second.c_str());
        return 1;
      }
      bufferBytes += buffers[p.name].size();
    } else {
      std::vector<uint8_t> bytes = scalarArg(p.name, p.type, it->second);
      switch (p.type) {
      case ScalarType::I32: {
        int32_t v;
        std::memcpy(&v, bytes.data(), 4);
        args.push_back(v);
        break;
      }
      case ScalarType::I64: {
        int64_t v;
        std::memcpy(&v, bytes.data(), 8);
        args.push_back(v);
        break;
      }
      case ScalarType::F32: {
        float v;
        std::memcpy(&v, bytes.data(), 4);
        args.push_back(v);
        break;
      }
      default: { // f64 (scalarArg refuses the rest)
        double v;
        std::memcpy(&v, bytes.data(), 8);
        args.push_back(v);
        break;
      }
      }
      continue;
    }
    args.push_back(int32_t(0)); // placeholder: the pointer is set below
  }
  for (auto &[name, value] : values) {
    bool known = false;
    for (const Param &p : kernel->params())
      known |= p.name == name;
    if (!known)
      usage("kernel '" + kernel->name() + "' has no parameter '" + name + "'");
  }
  // Pointer arguments.
  std::map<std::string, uint64_t> deviceBuffers;
  size_t k = 0;
  for (const Param &p : kernel->params()) {
    if (p.pointer) {
      auto &buf = buffers[p.name];
      if (gpu) {
        auto d = deviceAlloc(buf.size());
        if (!d || !copyToDevice(*d, buf.data(), buf.size())) {
          std::fprintf(stderr, "%s\n", d ? "copy to the GPU failed" : d.error().str().c_str());
          return 1;
        }
        deviceBuffers[p.name] = *d;
        args[k] = Arg::pointer(*d);
      } else {
        args[k] = Arg::hostBytes(buf.data(), buf.size());
      }
    }
    ++k;
  }
  Expected<void> ran = gpu ? kernel->launch(Grid(grid[0], grid[1], grid[2]), args)
                           : kernel->interpret(Grid(grid[0], grid[1], grid[2]), args);
  if (ran && gpu)
    ran = synchronize();
  if (!ran) {
    std::fprintf(stderr, "%s\n", ran.error().message().c_str());
    return 1;
  }
  if (gpu)
    for (auto &[name, d] : deviceBuffers) {
      auto &buf = buffers[name];
      if (!copyToHost(buf.data(), d, buf.size()))
        return 1;
      deviceFree(d);
    }
  for (auto &[name, count] : prints) {
    auto it = buffers.find(name);
    if (it == buffers.end())
      usage("--print " + name + ": not a pointer parameter");
    ScalarType t = ScalarType::F32;
    bool isUnsigned = false;
    for (const Param &p : kernel->params())
      if (p.name == name) {
        t = p.type;
        isUnsigned = p.isUnsigned;
      }
    size_t n = it->second.size() / elemBytes(t);
    std::printf("%s:", name.c_str());
    for (size_t i = 0; i < std::min(n, count); ++i) {
      double v = get(it->second, t, i);
      if (isFloat(t)) {
        std::printf(" %.6g", v);
      } else if (isUnsigned) { // the element's bits as unsigned
        uint64_t bits = 0;
        std::memcpy(&bits, it->second.data() + i * elemBytes(t), elemBytes(t));
        std::printf(" %llu", (unsigned long long)bits);
      } else { // the element's bits, sign-extended (exact, not a double)
        size_t bytes = elemBytes(t);
        uint64_t bits = 0;
        std::memcpy(&bits, it->second.data() + i * bytes, bytes);
        int64_t x = int64_t(bits);
        if (bytes < 8 && t != ScalarType::I1)
          x = int64_t(bits << (64 - 8 * bytes)) >> (64 - 8 * bytes);
        std::printf(" %lld", (long long)x);
      }
    }
    std::printf(n > count ? " ... (%zu elements)\n" : "\n", n);
  }
  for (auto &[name, path] : saves) {
    auto it = buffers.find(name);
    if (it == buffers.end())
      usage("--save " + name + ": not a pointer parameter");
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(it->second.data()),
              std::streamsize(it->second.size()));
    out.flush(); // a full disk shows at the flush
    if (!out) {
      std::fprintf(stderr, "kite-run: error: cannot write '%s': %s\n",
                   path.c_str(), std::strerror(errno));
      return 3;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const SpecError &e) {
    if (e.exitCode == 2)
      usage(e.message);
    std::fprintf(stderr, "kite-run: error: %s\n", e.message.c_str());
    return e.exitCode;
  }
}
