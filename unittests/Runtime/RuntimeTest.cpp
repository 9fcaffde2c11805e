//===- RuntimeTest.cpp - The runtime without a GPU -------------------------===//
//
// Runs in CI (no GPU): compiling, signatures, argument checking, cache keys,
// specialization, and the error a launch gives without a CUDA driver (the
// disk cache, IR dumps, ptxas and the occupancy retry: RuntimeCacheTest.cpp). KITE_CUDA_LIBRARY points at a
// library that does not exist, so the no-driver path is taken even on a
// machine with a GPU.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestFixture.h"

TEST_F(RuntimeTest, SignatureOfSeededDropout) {
  auto k = compileMLIR(example("seeded_dropout.mlir"));
  ASSERT_TRUE(k) << k.error().str();
  EXPECT_EQ(k->name(), "seeded_dropout");
  EXPECT_EQ(k->threadsPerProgram(), 128);
  ASSERT_EQ(k->params().size(), 5u);
  EXPECT_TRUE(k->params()[0].pointer);
  EXPECT_EQ(k->params()[0].type, ScalarType::F32);
  EXPECT_FALSE(k->params()[2].pointer);
  EXPECT_EQ(k->params()[2].type, ScalarType::I32);
  EXPECT_EQ(k->params()[3].type, ScalarType::F32);
}

// Tiered compilation is on by default and has a switch; finishCompiles()
// with nothing queued returns at once. (Its GPU behaviour:
// GPU.TieredCompileGivesTheSameBits.)
TEST_F(RuntimeTest, TieredCompileOptions) {
  CompileOptions defaults;
  EXPECT_TRUE(defaults.tiered);
  auto k = compileMLIR(example("seeded_dropout.mlir"));
  ASSERT_TRUE(k) << k.error().str();
  EXPECT_TRUE(k->finishCompiles().ok());
  // Kernel::ptx() is always the optimized code (tiers are for launches):
  // the same text whether tiering is on or off.
  CompileOptions untiered;
  untiered.tiered = false;
  auto u = compileMLIR(example("seeded_dropout.mlir"), untiered);
  ASSERT_TRUE(u) << u.error().str();
  Specialization spec;
  spec.divisibleBy16 = 0x7;
  auto a = k->ptx(spec), b = u->ptx(spec);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b);
  EXPECT_NE(a->find(".maxntid 128,"), std::string::npos);
  EXPECT_EQ(k->cacheKey(spec), u->cacheKey(spec));
}

TEST_F(RuntimeTest, ArgumentChecking) {
  auto k = compileMLIR(example("seeded_dropout.mlir")).value();
  float *x = reinterpret_cast<float *>(0x1000), *y = reinterpret_cast<float *>(0x2000);
  EXPECT_TRUE(k.checkArgs({x, y, int32_t(10), 0.5f, int32_t(1)}));

  auto count = k.checkArgs({x, y});
  ASSERT_FALSE(count);
  EXPECT_EQ(count.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(count.error().message(),
            "kernel 'seeded_dropout' takes 5 argument(s), got 2");

  auto scalarType = k.checkArgs({x, y, int64_t(10), 0.5f, int32_t(1)});
  ASSERT_FALSE(scalarType);
  EXPECT_EQ(scalarType.error().message(),
            "kernel 'seeded_dropout', argument 2 ('n'): expected i32, got a "
            "scalar i64");

  auto notPointer = k.checkArgs({int32_t(1), y, int32_t(10), 0.5f, int32_t(1)});
  ASSERT_FALSE(notPointer);
  EXPECT_NE(notPointer.error().message().find(
                "argument 0 ('x_ptr'): expected pointer to f32, got a scalar i32"),
            std::string::npos);

  int32_t *ip = reinterpret_cast<int32_t *>(0x3000);
  auto pointee = k.checkArgs({x, ip, int32_t(10), 0.5f, int32_t(1)});
  ASSERT_FALSE(pointee);
  EXPECT_NE(pointee.error().message().find("got a pointer to i32"),
            std::string::npos);

  auto null = k.checkArgs({x, static_cast<float *>(nullptr), int32_t(10),
                           0.5f, int32_t(1)});
  ASSERT_FALSE(null);
  EXPECT_NE(null.error().message().find("got a null pointer"), std::string::npos);

  auto doubleForFloat = k.checkArgs({x, y, int32_t(10), 0.5, int32_t(1)});
  ASSERT_FALSE(doubleForFloat);
  EXPECT_NE(doubleForFloat.error().message().find("expected f32, got a scalar f64"),
            std::string::npos);

  // Untyped addresses are accepted for any pointee.
  EXPECT_TRUE(k.checkArgs({Arg::pointer(0x1000), Arg::pointer(0x2000),
                           int32_t(10), 0.5f, int32_t(1)}));
}

TEST_F(RuntimeTest, LaunchWithoutDriverFailsClearly) {
  auto k = compileMLIR(example("vector_add.mlir")).value();
  float *p = reinterpret_cast<float *>(0x1000);
  // Bad arguments are reported before the driver is needed.
  auto bad = k.launch(1, {p, p});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::InvalidArgument);
  auto grid = k.launch(Grid(1, 0), {p, p, p, int32_t(4)});
  ASSERT_FALSE(grid);
  EXPECT_EQ(grid.error().code(), ErrorCode::InvalidArgument);

  auto r = k.launch(1, {p, p, p, int32_t(4)});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::NoDriver);
  EXPECT_NE(r.error().message().find("cannot load"), std::string::npos)
      << r.error().message();
  auto count = deviceCount();
  ASSERT_FALSE(count);
  EXPECT_EQ(count.error().code(), ErrorCode::NoDriver);
  auto sms = deviceMultiprocessors();
  ASSERT_FALSE(sms);
  EXPECT_EQ(sms.error().code(), ErrorCode::NoDriver);
  auto active = k.maxActivePrograms({p, p, p, int32_t(4)});
  ASSERT_FALSE(active);
  EXPECT_EQ(active.error().code(), ErrorCode::NoDriver);
  auto badActive = k.maxActivePrograms({p, p});
  ASSERT_FALSE(badActive);
  EXPECT_EQ(badActive.error().code(), ErrorCode::InvalidArgument);
  auto buffer = DeviceBuffer<float>::allocate(16);
  ASSERT_FALSE(buffer);
  EXPECT_EQ(buffer.error().code(), ErrorCode::NoDriver);
}

TEST_F(RuntimeTest, CompileErrors) {
  auto parse = compileMLIR("func.func @k( {", {}, "broken.mlir");
  ASSERT_FALSE(parse);
  EXPECT_EQ(parse.error().code(), ErrorCode::ParseError);
  EXPECT_EQ(parse.error().message().rfind("broken.mlir:1:", 0), 0u)
      << parse.error().message();

  auto noKernel = compileMLIR("func.func @f() { return }", {}, "f.mlir");
  ASSERT_FALSE(noKernel);
  EXPECT_NE(noKernel.error().message().find("no kernel"), std::string::npos);

  CompileOptions named;
  named.kernel = "nope";
  auto missing = compileMLIR(example("vector_add.mlir"), named);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(),
            "no kernel named 'nope' (kernels: vector_add)");

  auto file = compileFile("/nonexistent/k.mlir");
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().code(), ErrorCode::IOError);
  // Inputs that would hang or exhaust the host: errors, read no further.
  auto device = compileFile("/dev/zero");
  ASSERT_FALSE(device);
  EXPECT_EQ(device.error().code(), ErrorCode::IOError);
  EXPECT_EQ(device.error().message(),
            "'/dev/zero' is a character device, not a regular file (give a "
            "file, or '-' for standard input)");
  auto dir = compileFile("/");
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().message(), "'/' is a directory, not a file");

  CompileOptions warps;
  warps.numWarps = 3;
  auto w = compileMLIR(example("vector_add.mlir"), warps);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(), "numWarps must be a power of two in [1, 32], got 3");

  CompileOptions over;
  over.overrideNumWarps = 6;
  auto ow = compileMLIR(example("vector_add.mlir"), over);
  ASSERT_FALSE(ow);
  EXPECT_EQ(ow.error().message(), "overrideNumWarps must be 0 (the kernel's "
                                  "own) or a power of two in [1, 32], got 6");
  over = {};
  over.overrideNumStages = 9;
  auto os = compileMLIR(example("vector_add.mlir"), over);
  ASSERT_FALSE(os);
  EXPECT_EQ(os.error().message(),
            "overrideNumStages must be 0 (the kernel's own) or in [1, 8], got 9");
  over = {};
  over.overrideMaxRegisters = 16;
  auto oreg = compileMLIR(example("vector_add.mlir"), over);
  ASSERT_FALSE(oreg);
  EXPECT_EQ(oreg.error().message(), "overrideMaxRegisters must be 0 (the "
                                    "kernel's own) or in [24, 255], got 16");
  over.overrideMaxRegisters = 40;
  auto limited = compileMLIR(example("vector_add.mlir"), over);
  ASSERT_TRUE(limited) << limited.error().message();
  auto limitedIr = limited->ir(IRStage::Kite);
  ASSERT_TRUE(limitedIr) << limitedIr.error().message();
  EXPECT_NE(limitedIr->find("kite.maxnreg = 40 : i32"), std::string::npos)
      << *limitedIr;

  CompileOptions chip;
  chip.chip = "sm_1000";
  auto c = compileMLIR(example("vector_add.mlir"), chip).value().ptx();
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code(), ErrorCode::CompileError);
  EXPECT_NE(c.error().message().find("sm_1000"), std::string::npos)
      << c.error().message();

  // A lowering failure names the op and its location.
  const char *nonsplat = R"(
func.func @d(%p: !kite.ptr<i32>) attributes {kite.kernel} {
  %r = kite.arange 0, 4 : tensor<4xi32>
  %c = arith.constant dense<[3, 1, 4, 1]> : tensor<4xi32>
  %ps = kite.splat %p : !kite.ptr<i32> -> tensor<4x!kite.ptr<i32>>
  %pp = kite.addptr %ps, %r : tensor<4x!kite.ptr<i32>>, tensor<4xi32>
  kite.store %pp, %c : tensor<4x!kite.ptr<i32>>
  return
})";
  auto lowering = compileMLIR(nonsplat, {}, "nonsplat.mlir").value().ptx();
  ASSERT_FALSE(lowering);
  EXPECT_NE(lowering.error().message().find("nonsplat.mlir:4:"), std::string::npos)
      << lowering.error().message();
}

static const char *kScaled = R"(
func.func @scaled(%p: !kite.ptr<f32>, %s: f32 {kite.constexpr, kite.name = "SCALE"},
                  %b: i32 {kite.constexpr, kite.name = "BIAS"}) attributes {kite.kernel} {
  %r = kite.arange 0, 128 : tensor<128xi32>
  %bb = kite.splat %b : i32 -> tensor<128xi32>
  %o = arith.addi %r, %bb : tensor<128xi32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<128x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %o : tensor<128x!kite.ptr<f32>>, tensor<128xi32>
  %v = kite.load %pp : tensor<128x!kite.ptr<f32>>
  %sb = kite.splat %s : f32 -> tensor<128xf32>
  %w = arith.mulf %v, %sb : tensor<128xf32>
  kite.store %pp, %w : tensor<128x!kite.ptr<f32>>
  return
})";

TEST_F(RuntimeTest, Constants) {
  CompileOptions none;
  auto missing = compileMLIR(kScaled, none);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(),
            "constexpr parameter 'SCALE' of kernel 'scaled' has no value: set "
            "CompileOptions::constants[\"SCALE\"]");

  CompileOptions extra;
  extra.constants = {{"SCALE", 2.0}, {"BIAS", 4}, {"BLOCK", 1}};
  auto unknown = compileMLIR(kScaled, extra);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message(),
            "kernel 'scaled' has no constexpr parameter 'BLOCK' (it has: "
            "SCALE, BIAS)");

  CompileOptions frac;
  frac.constants = {{"SCALE", 2.0}, {"BIAS", 0.5}};
  EXPECT_FALSE(compileMLIR(kScaled, frac));

  CompileOptions ok;
  ok.constants = {{"SCALE", 2.5}, {"BIAS", 4}};
  auto k = compileMLIR(kScaled, ok);
  ASSERT_TRUE(k) << k.error().str();
  ASSERT_EQ(k->params().size(), 1u); // constexprs are not GPU parameters
  auto ptx = k->ptx();
  ASSERT_TRUE(ptx) << ptx.error().str();
  EXPECT_NE(ptx->find("0f40200000"), std::string::npos); // 2.5f
  EXPECT_NE(ptx->find(", 16;"), std::string::npos);       // 4 floats = 16 bytes

  CompileOptions other = ok;
  other.constants["SCALE"] = 3.0;
  EXPECT_NE(compileMLIR(kScaled, other).value().cacheKey(), k->cacheKey());
}

TEST_F(RuntimeTest, KiteSources) {
  // The Kite language through the runtime: the same kernel as the .mlir.
  auto k = compileFile(std::string(KITE_SOURCE_DIR) +
                       "/dsl-examples/seeded_dropout.kite");
  ASSERT_TRUE(k) << k.error().str();
  EXPECT_EQ(k->params().size(), 5u);
  EXPECT_EQ(k->params()[2].name, "n");
  auto fromMLIR = compileMLIR(example("seeded_dropout.mlir")).value();
  EXPECT_EQ(k->cacheKey(), fromMLIR.cacheKey());

  // Constants are constexprs of the source: they shape blocks.
  CompileOptions small;
  small.constants = {{"BLOCK", 256}};
  auto k256 = compileKite(readFile(std::string(KITE_SOURCE_DIR) +
                                   "/dsl-examples/seeded_dropout.kite"),
                          small, "sd.kite");
  ASSERT_TRUE(k256) << k256.error().str();
  auto ir = k256->ir(IRStage::Kite);
  ASSERT_TRUE(ir);
  EXPECT_NE(ir->find("tensor<256xi32>"), std::string::npos);

  CompileOptions unknown;
  unknown.constants = {{"BLOCKSIZE", 256}};
  auto bad = compileKite("@kernel\ndef k(p: *f32, BLOCK: constexpr = 4):\n    pass\n",
                         unknown, "k.kite");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::ParseError);
  EXPECT_NE(bad.error().message().find("BLOCKSIZE"), std::string::npos)
      << bad.error().message();

  auto syntax = compileKite("@kernel\ndef k(p: *f32):\n    x = = 1\n", {}, "s.kite");
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().message().rfind("s.kite:3:9: error: ", 0), 0u)
      << syntax.error().message();
}

TEST_F(RuntimeTest, CacheKeys) {
  std::string src = example("seeded_dropout.mlir");
  auto base = compileMLIR(src).value();
  EXPECT_EQ(base.cacheKey().size(), 64u);
  EXPECT_EQ(base.cacheKey(), compileMLIR(src).value().cacheKey());
  // Comments and locations do not matter; the IR does.
  EXPECT_EQ(base.cacheKey(), compileMLIR("// another comment\n" + src).value().cacheKey());
  std::string changed = src;
  size_t one = changed.find("1.000000e+00 : f32");
  ASSERT_NE(one, std::string::npos);
  changed.replace(one, 18, "2.000000e+00 : f32");
  EXPECT_NE(base.cacheKey(), compileMLIR(changed).value().cacheKey());

  auto differs = [&](CompileOptions o) {
    return compileMLIR(src, o).value().cacheKey() != base.cacheKey();
  };
  CompileOptions o;
  o.chip = "sm_80";
  EXPECT_TRUE(differs(o));
  o = {};
  o.ieeeDivision = true;
  EXPECT_TRUE(differs(o));
  o = {};
  o.fpFusion = false;
  EXPECT_TRUE(differs(o));
  o = {};
  o.optLevel = 2;
  EXPECT_TRUE(differs(o));
  o = {};
  o.numWarps = 8; // the kernel's own kite.num_warps wins, but the key differs
  EXPECT_TRUE(differs(o));
  EXPECT_NE(base.cacheKey(Specialization{0b11}), base.cacheKey());
  EXPECT_NE(base.cacheKey(Specialization{0b111}), base.cacheKey(Specialization{0b11}));
}

TEST_F(RuntimeTest, OverridesReplaceTheKernelsWarpsAndStages) {
  // The tutorial matmul says @kernel(num_warps=4, num_stages=3).
  CompileOptions o;
  o.constants = {{"BLOCK_M", 128}, {"BLOCK_N", 256}, {"BLOCK_K", 16}};
  auto own = compileFile(std::string(KITE_SOURCE_DIR) + "/dsl-examples/matmul.kite", o).value();
  EXPECT_EQ(own.threadsPerProgram(), 128);
  o.overrideNumWarps = 8;
  o.overrideNumStages = 2;
  auto big = compileFile(std::string(KITE_SOURCE_DIR) + "/dsl-examples/matmul.kite", o).value();
  EXPECT_EQ(big.threadsPerProgram(), 256);
  EXPECT_NE(big.cacheKey(), own.cacheKey());
  std::string ptx = big.ptx().value();
  EXPECT_NE(ptx.find(".maxntid 256, 1, 1"), std::string::npos);
  // Two staging slots of (128 x 20 + 16 x 256) floats: 53248 bytes, dynamic.
  EXPECT_NE(ptx.find("// kite.dynamic_shared_memory matmul 53248"),
            std::string::npos)
      << ptx.substr(0, 200);
}

TEST_F(RuntimeTest, Specialization) {
  auto k = compileMLIR(example("seeded_dropout.mlir")).value();
  float *a = reinterpret_cast<float *>(0x1000), *b = reinterpret_cast<float *>(0x2004);
  EXPECT_EQ(k.specializationFor({a, a, int32_t(1024), 0.5f, int32_t(16)}).divisibleBy16,
            0b10111u); // both pointers, n and seed; never floats
  EXPECT_EQ(k.specializationFor({a, b, int32_t(1000), 0.5f, int32_t(3)}).divisibleBy16,
            0b1u);
  auto generic = k.ptx(), spec = k.ptx(Specialization{0b111});
  ASSERT_TRUE(generic && spec);
  EXPECT_EQ(generic->find("ld.global.v4"), std::string::npos);
  EXPECT_NE(spec->find("ld.global.v4"), std::string::npos);
  // Integers equal to 1 (never pointers or floats) are a second fact.
  EXPECT_EQ(k.specializationFor({a, a, int32_t(1), 1.0f, int32_t(1)}).equalToOne,
            0b10100u);
  EXPECT_EQ(k.specializationFor({a, a, int32_t(1), 1.0f, int32_t(-1)}).equalToOne,
            0b100u);
  EXPECT_NE(k.cacheKey(Specialization{0, 0b100}), k.cacheKey());
}

TEST_F(RuntimeTest, UnitStrideSpecialization) {
  // The tutorial matmul with unit inner strides: contiguous tiles are
  // copied to shared memory 16 bytes at a time and C stored with 16-byte
  // stores; without the fact, element by element.
  auto k = compileKite(example("matmul.kite")).value();
  uint64_t all = (uint64_t(1) << 12) - 1;
  uint64_t unit = (1u << 7) | (1u << 9) | (1u << 11); // stride_ak, _bn, _cn
  auto generic = k.ptx(Specialization{all, 0});
  auto specialized = k.ptx(Specialization{all, unit});
  ASSERT_TRUE(generic && specialized);
  EXPECT_EQ(generic->find("cp.async.cg"), std::string::npos);
  EXPECT_NE(generic->find("cp.async.ca"), std::string::npos);
  EXPECT_EQ(generic->find("st.global.v4"), std::string::npos);
  EXPECT_NE(specialized->find("cp.async.cg"), std::string::npos);
  EXPECT_NE(specialized->find("st.global.v4"), std::string::npos);
  // Both announce their dynamic shared memory to the launch.
  EXPECT_EQ(specialized->rfind("// kite.dynamic_shared_memory matmul 52224\n", 0),
            0u);
}
