//===- RuntimeCacheTest.cpp - The runtime's caches and machine code, no GPU ===//
//
// Runs in CI (no GPU): the disk cache (hits, corrupt and concurrent
// entries), IR stages and dumps, PTX to cubin with ptxas, the occupancy
// retry and ptxas' notes (split from RuntimeTest.cpp along this seam).
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestFixture.h"

#include <sys/stat.h>

TEST_F(RuntimeTest, DiskCacheHitsAndCorruptEntries) {
  std::string src = example("vector_add.mlir");
  auto k = compileMLIR(src).value();
  auto ptx = k.ptx();
  ASSERT_TRUE(ptx) << ptx.error().str();
  EXPECT_EQ(k.lastOutcome(), CacheOutcome::Compiled);
  // Two entries: the analysis of the source (.src) and the PTX (.ptx).
  auto names = entries();
  ASSERT_EQ(names.size(), 2u);
  std::sort(names.begin(), names.end(), [](const std::string &a, const std::string &b) {
    return a.substr(a.rfind('.')) < b.substr(b.rfind('.'));
  });
  ASSERT_EQ(names[0].substr(names[0].rfind('.')), ".ptx");
  ASSERT_EQ(names[1].substr(names[1].rfind('.')), ".src");
  std::string entry = dir + "/" + names[0];
  std::string analysis = dir + "/" + names[1];

  // Same process: memory; after clearing memory: disk.
  auto again = compileMLIR(src).value();
  ASSERT_TRUE(again.ptx());
  EXPECT_EQ(again.lastOutcome(), CacheOutcome::MemoryHit);
  clearMemoryCache();
  auto fromDisk = compileMLIR(src).value();
  ASSERT_EQ(*fromDisk.ptx(), *ptx);
  EXPECT_EQ(fromDisk.lastOutcome(), CacheOutcome::DiskHit);

  // Every kind of damage is detected and the entry recompiled and rewritten.
  std::string good = readFile(entry);
  auto damaged = [&](const std::string &bytes) {
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
    clearMemoryCache();
    auto fresh = compileMLIR(src).value();
    auto p = fresh.ptx();
    bool recompiled = p && *p == *ptx &&
                      fresh.lastOutcome() == CacheOutcome::Compiled &&
                      readFile(entry) == good;
    return recompiled;
  };
  EXPECT_TRUE(damaged(""));
  EXPECT_TRUE(damaged(good.substr(0, good.size() / 2))); // truncated
  std::string flipped = good;
  flipped[flipped.size() - 10] ^= 1; // payload bit flip: checksum
  EXPECT_TRUE(damaged(flipped));
  std::string otherKey = good;
  otherKey[otherKey.find("compiler=") + 9] ^= 1; // an entry for another key
  EXPECT_TRUE(damaged(otherKey));
  EXPECT_TRUE(damaged(std::string(4096, '\0')));
  // Not a regular file in the entry's place: a link to /dev/zero (endless
  // bytes), a FIFO without a writer (a blocking open or read never
  // returns): a miss, compiled again and rewritten as a regular file.
  auto replaced = [&](const char *what, auto make) {
    ::unlink(entry.c_str());
    ASSERT_EQ(make(), 0) << what;
    clearMemoryCache();
    auto fresh = compileMLIR(src).value();
    EXPECT_EQ(fresh.lastOutcome(), CacheOutcome::Compiled) << what;
    EXPECT_EQ(*fresh.ptx(), *ptx) << what;
    EXPECT_EQ(readFile(entry), good) << what;
  };
  replaced("link", [&] { return ::symlink("/dev/zero", entry.c_str()); });
  replaced("fifo", [&] { return ::mkfifo(entry.c_str(), 0644); });

  // The analysis entry: a kernel from it has the same signature and runs in
  // the interpreter; a damaged one (empty, truncated, garbage) is analyzed
  // again and rewritten.
  std::string goodAnalysis = readFile(analysis);
  clearMemoryCache();
  auto fromAnalysis = compileMLIR(src).value();
  EXPECT_EQ(fromAnalysis.name(), k.name());
  ASSERT_EQ(fromAnalysis.params().size(), k.params().size());
  for (size_t i = 0; i < k.params().size(); ++i) {
    EXPECT_EQ(fromAnalysis.params()[i].name, k.params()[i].name);
    EXPECT_EQ(fromAnalysis.params()[i].pointer, k.params()[i].pointer);
    EXPECT_EQ(fromAnalysis.params()[i].type, k.params()[i].type);
  }
  EXPECT_EQ(*fromAnalysis.ptx(), *ptx);
  {
    std::vector<float> x = {1, 2, 3}, y = {10, 20, 30}, z(3);
    ASSERT_TRUE(fromAnalysis.interpret(1, {x, y, z, int32_t(3)}).ok());
    EXPECT_EQ(z, (std::vector<float>{11, 22, 33}));
  }
  for (std::string bytes : {std::string(), goodAnalysis.substr(0, 40),
                            std::string(1000, 'x')}) {
    std::ofstream(analysis, std::ios::binary | std::ios::trunc) << bytes;
    clearMemoryCache();
    auto again = compileMLIR(src);
    ASSERT_TRUE(again.ok()) << again.error().str();
    EXPECT_EQ(again->params().size(), k.params().size());
    EXPECT_EQ(readFile(analysis), goodAnalysis);
  }

  // Disabled: nothing is written.
  setenv("KITE_CACHE_DISABLE", "1", 1);
  EXPECT_EQ(cacheDirectory(), "");
  ::unlink(entry.c_str());
  ::unlink(analysis.c_str());
  clearMemoryCache();
  ASSERT_TRUE(compileMLIR(src).value().ptx());
  EXPECT_TRUE(entries().empty());
}

TEST_F(RuntimeTest, ConcurrentThreadsAndProcesses) {
  std::string src = example("seeded_dropout.mlir");
  std::string reference = *compileMLIR(src).value().ptx();
  clearMemoryCache();
  ::system(("rm -f '" + dir + "'/*").c_str());

  // Processes racing on one empty cache directory.
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto k = compileMLIR(src);
      bool ok = k && k->ptx() && *k->ptx() == reference;
      _exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  // Threads of this process at the same time, each compiling and asking for
  // several specializations.
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 3; ++i) {
        auto k = compileMLIR(src);
        if (!k) {
          ++failures;
          continue;
        }
        auto p = k->ptx(Specialization{uint64_t((t + i) % 3)});
        if (!p || (((t + i) % 3) == 0 && *p != reference))
          ++failures;
      }
    });
  for (auto &th : threads)
    th.join();
  EXPECT_EQ(failures.load(), 0);
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  // Whole entries only, no temporary files left behind.
  for (const std::string &name : entries())
    EXPECT_EQ(name.rfind(".tmp", 0), std::string::npos) << name;
  clearMemoryCache();
  auto k = compileMLIR(src).value();
  EXPECT_EQ(*k.ptx(), reference);
  EXPECT_EQ(k.lastOutcome(), CacheOutcome::DiskHit);
}

TEST_F(RuntimeTest, IRStagesAndDumps) {
  auto k = compileMLIR(example("vector_add.mlir")).value();
  auto kiteIR = k.ir(IRStage::Kite), gpuIR = k.ir(IRStage::GPU),
       llvmIR = k.ir(IRStage::LLVM), ptx = k.ir(IRStage::PTX);
  ASSERT_TRUE(kiteIR && gpuIR && llvmIR && ptx);
  EXPECT_NE(kiteIR->find("kite.load"), std::string::npos);
  EXPECT_NE(gpuIR->find("gpu.func @vector_add"), std::string::npos);
  EXPECT_NE(llvmIR->find("llvm.func @vector_add"), std::string::npos);
  EXPECT_NE(ptx->find(".visible .entry vector_add"), std::string::npos);

  std::string dumps = dir + "/dumps";
  ASSERT_EQ(mkdir(dumps.c_str(), 0755), 0);
  setenv("KITE_DUMP_IR", dumps.c_str(), 1);
  ASSERT_TRUE(k.ptx(Specialization{1}));
  unsetenv("KITE_DUMP_IR");
  for (const char *stage : {"kite", "gpu", "llvm", "ptx"})
    EXPECT_FALSE(readFile(dumps + "/vector_add." + stage + ".mlir").empty()) << stage;
  EXPECT_NE(readFile(dumps + "/vector_add.ptx").find(".entry vector_add"),
            std::string::npos);
}

// PTX to machine code without a GPU, with the compiler the runtime found
// (in-process nvJitLink, else ptxas; docs/runtime.md): a cubin holding the
// kernel, and a compile error naming the fault for bad PTX.
TEST_F(RuntimeTest, PtxToCubinWithoutAGpu) {
  std::string compiler = kite::machineCodeCompiler();
  if (compiler.empty())
    GTEST_SKIP() << "no PTX compiler here (no libnvJitLink, no ptxas)";
  // KITE_NVJITLINK=1 (a second ctest entry) asks for the in-process one.
  const char *jit = std::getenv("KITE_NVJITLINK");
  EXPECT_EQ(compiler.rfind("nvJitLink ", 0) == 0,
            jit && std::string(jit) == "1")
      << compiler;
  auto k = kite::compileMLIR(readFile(std::string(KITE_SOURCE_DIR) +
                                      "/dsl-examples/vector_add.mlir"),
                             kite::CompileOptions{});
  ASSERT_TRUE(k) << k.error().message();
  auto ptx = k->ptx(kite::Specialization{1});
  ASSERT_TRUE(ptx) << ptx.error().message();
  for (const char *chip : {"sm_90", "sm_90a"}) { // the PTX is for sm_90
    auto cubin = kite::compilePtxToCubin(*ptx, chip);
    ASSERT_TRUE(cubin) << chip << ": " << cubin.error().message();
    ASSERT_GT(cubin->size(), 4u);
    EXPECT_EQ(cubin->substr(0, 4), "\x7f" "ELF") << chip;
    EXPECT_NE(cubin->find("vector_add"), std::string::npos) << chip;
  }
  auto bad = kite::compilePtxToCubin(".version 8.0\n.target sm_90a\n"
                                     ".address_size 64\n.visible .entry "
                                     "k() { bogus.instruction; ret; }\n",
                                     "sm_90a");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), kite::ErrorCode::CompileError);
  EXPECT_NE(bad.error().message().find("bogus"), std::string::npos)
      << bad.error().message();
  // ptxas reads the PTX from a pipe: the message does not name it.
  EXPECT_EQ(bad.error().message().find("/dev/stdin"), std::string::npos)
      << bad.error().message();
}

/// compilePtxToCubin of `ptx` for sm_90a, with the occupancy retry
/// (`retry`) or without it (KITE_OCCUPANCY=0, restored after).
static kite::Expected<std::string> sm90aCubin(const std::string &ptx,
                                              bool retry) {
  if (!retry)
    setenv("KITE_OCCUPANCY", "0", 1);
  auto cubin = kite::compilePtxToCubin(ptx, "sm_90a");
  if (!retry)
    unsetenv("KITE_OCCUPANCY");
  return cubin;
}

// Occupancy (docs/runtime.md): layer norm backward's dx kernel at 8192
// columns on 8 warps has no dot, so its PTX asks for two programs an SM (128
// registers a thread); ptxas alone gives it more, and compilePtxToCubin
// compiles it again under `.maxnreg 128`, keeping that cubin when it does
// not spill. KITE_OCCUPANCY=0 keeps the first compile.
TEST_F(RuntimeTest, OccupancyRetryFitsTwoProgramsAnSM) {
  if (kite::machineCodeCompiler().empty())
    GTEST_SKIP() << "no PTX compiler here (no libnvJitLink, no ptxas)";
  kite::CompileOptions options;
  options.kernel = "_layer_norm_bwd_dx_fused";
  options.constants = {{"BLOCK_SIZE_N", 8192}, {"GROUP_SIZE_M", 96}};
  options.overrideNumWarps = 8;
  options.chip = "sm_90a";
  auto k = kite::compileFile(std::string(KITE_SOURCE_DIR) +
                                 "/dsl-examples/layer_norm_bwd.kite",
                             options);
  ASSERT_TRUE(k) << k.error().message();
  // Pointers, stride and N divisible by 16 (parameters 0-8, 9, 10).
  auto ptx = k->ptx(kite::Specialization{0x7ff});
  ASSERT_TRUE(ptx) << ptx.error().message();
  EXPECT_NE(
      ptx->find("// kite.occupancy_registers _layer_norm_bwd_dx_fused 128 0\n"),
      std::string::npos);
  auto first = sm90aCubin(*ptx, /*retry=*/false);
  ASSERT_TRUE(first) << first.error().message();
  auto firstInfo = kite::machineCodeInfo(*first, "_layer_norm_bwd_dx_fused");
  ASSERT_TRUE(firstInfo) << firstInfo.error().message();
  EXPECT_GT(firstInfo->registers, 0);
  auto cubin = sm90aCubin(*ptx, /*retry=*/true);
  ASSERT_TRUE(cubin) << cubin.error().message();
  auto info = kite::machineCodeInfo(*cubin, "_layer_norm_bwd_dx_fused");
  ASSERT_TRUE(info) << info.error().message();
  EXPECT_EQ(info->stackBytes, 0);
  EXPECT_LE(info->registers, 128);
  if (firstInfo->registers <= 128) {
    EXPECT_EQ(*cubin, *first) << "nothing to retry: the same cubin";
  }
  // A kernel on 128 threads (two programs fit anyway) has no hint, and bad
  // images are InvalidArgument.
  kite::CompileOptions mm;
  mm.chip = "sm_90a";
  auto matmul = kite::compileFile(
      std::string(KITE_SOURCE_DIR) + "/dsl-examples/matmul.kite", mm);
  ASSERT_TRUE(matmul) << matmul.error().message();
  auto mmPtx = matmul->ptx();
  ASSERT_TRUE(mmPtx) << mmPtx.error().message();
  EXPECT_EQ(mmPtx->find("kite.occupancy_registers"), std::string::npos);
  auto bad = kite::machineCodeInfo("not an ELF image", "k");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), kite::ErrorCode::InvalidArgument);
  auto missing = kite::machineCodeInfo(*cubin, "no_such_kernel");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("no_such_kernel"),
            std::string::npos);
  // Damaged images (cut short, or with bytes of the section table and the
  // attributes overwritten) are read within their bounds: an error or some
  // answer, never a crash.
  for (size_t cut :
       {size_t(16), size_t(64), cubin->size() / 2, cubin->size() - 1}) {
    auto r = kite::machineCodeInfo(cubin->substr(0, cut),
                                   "_layer_norm_bwd_dx_fused");
    if (cut < cubin->size() / 2) {
      EXPECT_FALSE(r) << cut;
    }
  }
  std::string damaged = *cubin;
  for (size_t i = 0x28; i < damaged.size(); i += 97)
    damaged[i] = char(0xff);
  (void)kite::machineCodeInfo(damaged, "_layer_norm_bwd_dx_fused");
}

// A kernel with a dot may spill a little for two programs an SM: the
// attention forward at head dim 64 (causal, with dropout) on 8 warps takes
// over 200 registers; its hint allows 128 bytes of spills, and under 128
// registers it spills some 100 (1.04-1.25x on the H100). At head dim 128
// its shared memory leaves room for one program an SM: no hint.
TEST_F(RuntimeTest, OccupancyRetryOfADotKernelAllowsSomeSpills) {
  if (kite::machineCodeCompiler().empty())
    GTEST_SKIP() << "no PTX compiler here (no libnvJitLink, no ptxas)";
  for (int headDim : {64, 128}) {
    kite::CompileOptions options;
    options.constants = {{"HEAD_DIM", headDim}, {"STAGE", 3}, {"DROPOUT", 1}};
    options.chip = "sm_90a";
    auto k = kite::compileFile(
        std::string(KITE_SOURCE_DIR) + "/dsl-examples/attention.kite", options);
    ASSERT_TRUE(k) << k.error().message();
    // Pointers (0-4), strides (6-17) and N_CTX (19) divisible by 16.
    auto ptx = k->ptx(kite::Specialization{0xbffdf});
    ASSERT_TRUE(ptx) << ptx.error().message();
    if (headDim == 128) {
      EXPECT_EQ(ptx->find("kite.occupancy_registers"), std::string::npos);
      continue;
    }
    EXPECT_NE(ptx->find("// kite.occupancy_registers attn_fwd 128 128\n"),
              std::string::npos);
    auto first = sm90aCubin(*ptx, /*retry=*/false);
    ASSERT_TRUE(first) << first.error().message();
    auto firstInfo = kite::machineCodeInfo(*first, "attn_fwd");
    ASSERT_TRUE(firstInfo) << firstInfo.error().message();
    auto cubin = sm90aCubin(*ptx, /*retry=*/true);
    ASSERT_TRUE(cubin) << cubin.error().message();
    auto info = kite::machineCodeInfo(*cubin, "attn_fwd");
    ASSERT_TRUE(info) << info.error().message();
    EXPECT_LE(info->registers, 128);
    EXPECT_LE(info->stackBytes, firstInfo->stackBytes + 128);
    if (firstInfo->registers > 128) {
      EXPECT_NE(*cubin, *first);
    }
  }
}

// A PTX compiler process that exits without reading its input (a second
// ctest entry sets KITE_PTXAS=/bin/true): a compile error, and this process
// survives writing a large PTX into the closed pipe (no SIGPIPE).
TEST_F(RuntimeTest, PtxCompilerThatStopsReading) {
  const char *ptxas = std::getenv("KITE_PTXAS");
  if (!ptxas || std::string(ptxas) != "/bin/true")
    GTEST_SKIP() << "run with KITE_PTXAS=/bin/true (ctest does)";
  ASSERT_EQ(kite::machineCodeCompiler().rfind("/bin/true", 0), 0u)
      << kite::machineCodeCompiler();
  std::string ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n";
  ptx += std::string(4 << 20, '\n'); // far beyond a pipe's buffer
  for (int i = 0; i < 3; ++i) {
    auto cubin = kite::compilePtxToCubin(ptx, "sm_90a");
    ASSERT_FALSE(cubin);
    EXPECT_EQ(cubin.error().code(), kite::ErrorCode::CompileError);
    EXPECT_NE(cubin.error().message().find("/bin/true failed"),
              std::string::npos)
        << cubin.error().message();
  }
}

// ptxas' "Potential Performance Loss" notes (wgmmas serialized, say) go
// to the trace with the cubin: a ptxas that adds one to the real one's
// output (ptxas-with-note.sh; a second ctest entry sets KITE_PTXAS to it
// and KITE_TRACE=1).
TEST_F(RuntimeTest, PtxasNotesAreTraced) {
  const char *ptxas = std::getenv("KITE_PTXAS");
  if (!ptxas ||
      std::string(ptxas).find("ptxas-with-note.sh") == std::string::npos)
    GTEST_SKIP() << "run with KITE_PTXAS=.../ptxas-with-note.sh and "
                    "KITE_TRACE=1 (ctest does)";
  if (access("/usr/local/cuda/bin/ptxas", X_OK) != 0)
    GTEST_SKIP() << "no /usr/local/cuda/bin/ptxas here";
  kite::CompileOptions options;
  options.chip = "sm_90a";
  auto k = kite::compileFile(
      std::string(KITE_SOURCE_DIR) + "/dsl-examples/vector_add.kite", options);
  ASSERT_TRUE(k) << k.error().message();
  auto ptx = k->ptx();
  ASSERT_TRUE(ptx) << ptx.error().message();
  testing::internal::CaptureStderr();
  auto cubin = kite::compilePtxToCubin(*ptx, "sm_90a");
  std::string trace = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(cubin) << cubin.error().message();
  EXPECT_NE(trace.find("kite: compilePtxToCubin (sm_90a): ptxas: (C7515) "
                       "Potential Performance Loss: wgmma.mma_async "
                       "instructions are serialized"),
            std::string::npos)
      << trace;
}

int main(int argc, char **argv) {
  // Before anything loads the driver: the no-driver path, deterministically.
  setenv("KITE_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
