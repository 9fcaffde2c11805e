//===- CacheKeyTest.cpp - Every code-changing option keys the caches -----===//
//
// A kernel compiled under one setting must never be served to a compile
// under another: each CompileOptions field that changes the generated code
// changes the disk-cache key, and compiling under it misses both caches;
// each environment variable that overrides a field keys as that field.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestFixture.h"

#include <functional>
#include <map>
#include <set>

namespace {

/// An f32 dot without input_precision (so the default precision matters),
/// a division (ieee-div), a multiply-add (fp fusion) and a constexpr.
const char *kSource = R"(
@kernel(num_warps=4, num_stages=3)
def mm(a_ptr: *f32, b_ptr: *f32, c_ptr: *f32, s: f32, BLOCK: constexpr):
    r = arange(0, BLOCK)
    a = load(a_ptr + r[:, None] * BLOCK + r[None, :])
    b = load(b_ptr + r[:, None] * BLOCK + r[None, :])
    acc = zeros((BLOCK, BLOCK), f32)
    for k in range(0, 4):
        acc = dot(a, b, acc)
    store(c_ptr + r[:, None] * BLOCK + r[None, :], acc * s + a / s)
)";

CompileOptions base() {
  CompileOptions o;
  o.chip = "sm_90a"; // no GPU needed: PTX only
  o.constants = {{"BLOCK", 64}};
  o.tiered = false;
  return o;
}

struct Case {
  const char *name;
  std::function<void(CompileOptions &)> change;
};

} // namespace

TEST_F(RuntimeTest, ChangedOptionMissesTheCaches) {
  unsetenv("KITE_F32_DEFAULT");
  unsetenv("KITE_TMA");
  unsetenv("KITE_WS");
  auto compile = [&](const CompileOptions &o, CacheOutcome &outcome) {
    auto k = compileKite(kSource, o);
    EXPECT_TRUE(k) << (k ? "" : k.error().message());
    if (!k)
      return std::string();
    auto ptx = k->ptx();
    EXPECT_TRUE(ptx) << (ptx ? "" : ptx.error().message());
    outcome = k->lastOutcome();
    return k->cacheKey();
  };
  CacheOutcome outcome;
  std::string baseKey = compile(base(), outcome);
  ASSERT_FALSE(baseKey.empty());
  EXPECT_EQ(outcome, CacheOutcome::Compiled);

  std::vector<Case> cases = {
      {"chip", [](CompileOptions &o) { o.chip = "sm_80"; }},
      {"overrideNumWarps", [](CompileOptions &o) { o.overrideNumWarps = 8; }},
      {"overrideNumStages", [](CompileOptions &o) { o.overrideNumStages = 2; }},
      {"overrideMaxRegisters",
       [](CompileOptions &o) { o.overrideMaxRegisters = 128; }},
      {"optLevel", [](CompileOptions &o) { o.optLevel = 2; }},
      {"ieeeDivision", [](CompileOptions &o) { o.ieeeDivision = true; }},
      {"fpFusion", [](CompileOptions &o) { o.fpFusion = false; }},
      {"tma", [](CompileOptions &o) { o.tma = false; }},
      {"warpSpecialize", [](CompileOptions &o) { o.warpSpecialize = true; }},
      {"inputPrecision", [](CompileOptions &o) { o.inputPrecision = "ieee"; }},
      {"constants", [](CompileOptions &o) { o.constants["BLOCK"] = 32; }},
  };
  std::map<std::string, std::string> keyOf;
  std::set<std::string> keys = {baseKey};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    CompileOptions o = base();
    c.change(o);
    std::string key = compile(o, outcome);
    keyOf[c.name] = key;
    EXPECT_NE(key, baseKey);
    EXPECT_TRUE(keys.insert(key).second) << "the key of another setting";
    EXPECT_EQ(outcome, CacheOutcome::Compiled);
    // The same setting again: the memory cache has it.
    compile(o, outcome);
    EXPECT_EQ(outcome, CacheOutcome::MemoryHit);
  }

  // The environment's overrides (read at the runtime's boundary) key the
  // caches by the setting they make: each is its option's twin, never the
  // base's entry.
  struct EnvCase {
    const char *name, *value, *twin;
  };
  for (const EnvCase &e : {EnvCase{"KITE_F32_DEFAULT", "ieee", "inputPrecision"},
                           EnvCase{"KITE_TMA", "0", "tma"},
                           EnvCase{"KITE_WS", "1", "warpSpecialize"}}) {
    SCOPED_TRACE(e.name);
    setenv(e.name, e.value, 1);
    std::string key = compile(base(), outcome);
    unsetenv(e.name);
    EXPECT_NE(key, baseKey);
    EXPECT_EQ(key, keyOf[e.twin]);
  }
  // And the base setting still finds its own entry, in memory and on disk.
  EXPECT_EQ(compile(base(), outcome), baseKey);
  EXPECT_EQ(outcome, CacheOutcome::MemoryHit);
  clearMemoryCache();
  EXPECT_EQ(compile(base(), outcome), baseKey);
  EXPECT_EQ(outcome, CacheOutcome::DiskHit);
}
