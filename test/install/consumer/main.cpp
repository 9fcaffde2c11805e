// An installed-Kite consumer: compiles a kernel from source with the public
// API and runs it in the interpreter (no GPU needed), checking every value.
#include "kite/Runtime/Runtime.h"

#include <cstdio>
#include <vector>

static const char *kSource = R"(@kernel
def axpy(x: *f32, y: *f32, out: *f32, n: i32, a: f32):
    offs = program_id(0) * 256 + arange(0, 256)
    m = offs < n
    store(out + offs, a * load(x + offs, mask=m) + load(y + offs, mask=m), mask=m)
)";

int main() {
  auto k = kite::compileKite(kSource, {}, "axpy.kite");
  if (!k) {
    std::fprintf(stderr, "compile: %s\n", k.error().message().c_str());
    return 1;
  }
  int n = 1000;
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = float(3 * i);
  }
  auto ok = k->interpret(kite::cdiv(n, 256), {x, y, out, int32_t(n), 2.0f});
  if (!ok) {
    std::fprintf(stderr, "interpret: %s\n", ok.error().message().c_str());
    return 1;
  }
  for (int i = 0; i < n; ++i)
    if (out[i] != 5.0f * float(i)) {
      std::fprintf(stderr, "out[%d] = %g, expected %g\n", i, out[i], 5.0 * i);
      return 1;
    }
  std::printf("consumer: %s, axpy of %d elements in the interpreter: ok\n",
              k->name().c_str(), n);
  return 0;
}
