//===- kite_torch_ops.cpp - Kite kernels as PyTorch operators ---------------===//
//
// A PyTorch C++ extension that registers Kite kernels as torch operators
// (TORCH_LIBRARY):
//   torch.ops.kite.add(x, y)        tutorial 01, f32 (dsl-examples/vector_add.kite)
//   torch.ops.kite.matmul(a, b)     tutorial 03, f16, autotuned
//                                   (dsl-examples/matmul_autotune.kite)
//   torch.ops.kite.asin(x)          tutorial 07, f32 (dsl-examples/libdevice.kite)
//   torch.ops.kite.sigmoid(x)       f32 (dsl-examples/sigmoid.kite)
//   torch.ops.kite.perceptron(x, w, b)  sigmoid(x @ w + b): x, w f16, b f32,
//                                   autotuned (dsl-examples/perceptron.kite)
//   torch.ops.kite.softmax(x)       tutorial 02, f32, over the last dimension
//                                   of a 2-D x (dsl-examples/softmax.kite)
//   torch.ops.kite.layer_norm(x, w, b, eps)  tutorial 05, f16, over the last
//                                   dimension of a 2-D x
//                                   (dsl-examples/layer_norm.kite)
// Each checks its tensors (CUDA, dtype, contiguity, shapes) with a clear
// message, compiles its kernel once (Kite's runtime: in memory and on
// disk), and launches on the current CUDA stream of the tensors' device.
// KITE_EXAMPLES_DIR names the directory of the .kite files.
//
// Build (scripts/gpu/torch_op.sh): a shared library linked against
// libkite.so and libtorch; load with torch.ops.load_library(path).
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace {

std::string examplesDir() {
  const char *dir = std::getenv("KITE_EXAMPLES_DIR");
  return dir && *dir ? dir : "dsl-examples";
}

/// The kernel of `file`, compiled on first use (a compile error is a
/// Python RuntimeError).
const kite::Kernel &kernel(const std::string &file,
                           const kite::CompileOptions &options = {},
                           const std::string &variant = "") {
  static std::mutex mutex;
  static std::map<std::string, kite::Kernel> kernels;
  std::lock_guard<std::mutex> lock(mutex);
  std::string key = file + "/" + variant;
  auto it = kernels.find(key);
  if (it == kernels.end()) {
    auto k = kite::compileFile(examplesDir() + "/" + file, options);
    TORCH_CHECK(k, "kite: cannot compile ", file, ": ", k.error().str());
    it = kernels.emplace(key, std::move(*k)).first;
  }
  return it->second;
}

/// The rows kernels' block: the row's next power of two (at least 1).
int rowBlock(int64_t cols) {
  int block = 1;
  while (block < cols)
    block *= 2;
  return block;
}

void checkTensor(const at::Tensor &t, const char *name, at::ScalarType type) {
  TORCH_CHECK(t.is_cuda(), "kite: ", name, " must be a CUDA tensor, got one on ",
              t.device());
  TORCH_CHECK(t.scalar_type() == type, "kite: ", name, " must be ",
              c10::toString(type), ", got ", t.scalar_type());
  TORCH_CHECK(t.is_contiguous(), "kite: ", name,
              " must be contiguous (call .contiguous())");
}

kite::LaunchOptions launchOn(const at::Tensor &t) {
  kite::LaunchOptions o;
  o.device = t.device().index();
  o.stream = at::cuda::getCurrentCUDAStream(o.device).stream();
  return o;
}

kite::Arg pointer(const at::Tensor &t) {
  return kite::Arg::pointer(reinterpret_cast<uint64_t>(t.data_ptr()));
}

void check(const kite::Expected<void> &ran, const char *what) {
  TORCH_CHECK(ran, "kite: ", what, ": ", ran.error().str());
}

at::Tensor add(const at::Tensor &x, const at::Tensor &y) {
  checkTensor(x, "x", at::kFloat);
  checkTensor(y, "y", at::kFloat);
  TORCH_CHECK(x.sizes() == y.sizes(), "kite: x and y must have the same shape, got ",
              x.sizes(), " and ", y.sizes());
  TORCH_CHECK(x.device() == y.device(), "kite: x and y are on different devices");
  TORCH_CHECK(x.numel() < (int64_t(1) << 31), "kite: at most 2^31 - 1 elements");
  at::Tensor out = at::empty_like(x);
  int32_t n = int32_t(x.numel());
  if (n == 0)
    return out;
  check(kernel("vector_add.kite")
            .launch(kite::Grid(uint32_t(kite::cdiv(n, 1024))),
                    {pointer(x), pointer(y), pointer(out), n}, launchOn(x)),
        "add");
  return out;
}

at::Tensor matmul(const at::Tensor &a, const at::Tensor &b) {
  checkTensor(a, "a", at::kHalf);
  checkTensor(b, "b", at::kHalf);
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2, "kite: matmul takes 2-D tensors, got ",
              a.dim(), "-D and ", b.dim(), "-D");
  TORCH_CHECK(a.size(1) == b.size(0), "kite: matmul of ", a.sizes(), " and ",
              b.sizes(), ": inner dimensions differ");
  TORCH_CHECK(a.device() == b.device(), "kite: a and b are on different devices");
  int32_t M = int32_t(a.size(0)), K = int32_t(a.size(1)), N = int32_t(b.size(1));
  at::Tensor c = at::empty({M, N}, a.options());
  if (M == 0 || N == 0)
    return c;
  if (K == 0)
    return c.zero_();
  auto grid = [M, N](const kite::TuningConfig &t) {
    return kite::Grid(uint32_t(kite::cdiv(M, int(t.constants.at("BLOCK_M"))) *
                               kite::cdiv(N, int(t.constants.at("BLOCK_N")))));
  };
  check(kernel("matmul_autotune.kite")
            .launch(grid,
                    {pointer(a), pointer(b), pointer(c), M, N, K, K, 1, N, 1, N,
                     1},
                    launchOn(a)),
        "matmul");
  return c;
}

/// An elementwise f32 kernel of `file` (x, y, n; 1024 elements a program).
at::Tensor elementwise(const at::Tensor &x, const char *file, const char *what) {
  checkTensor(x, "x", at::kFloat);
  TORCH_CHECK(x.numel() < (int64_t(1) << 31), "kite: at most 2^31 - 1 elements");
  at::Tensor out = at::empty_like(x);
  int32_t n = int32_t(x.numel());
  if (n == 0)
    return out;
  check(kernel(file).launch(kite::Grid(uint32_t(kite::cdiv(n, 1024))),
                            {pointer(x), pointer(out), n}, launchOn(x)),
        what);
  return out;
}

at::Tensor asinOp(const at::Tensor &x) {
  return elementwise(x, "libdevice.kite", "asin");
}

at::Tensor sigmoidOp(const at::Tensor &x) {
  return elementwise(x, "sigmoid.kite", "sigmoid");
}

at::Tensor perceptron(const at::Tensor &x, const at::Tensor &w,
                      const at::Tensor &b) {
  checkTensor(x, "x", at::kHalf);
  checkTensor(w, "w", at::kHalf);
  checkTensor(b, "b", at::kFloat);
  TORCH_CHECK(x.dim() == 2 && w.dim() == 2 && b.dim() == 1,
              "kite: perceptron takes a 2-D x and w and a 1-D b, got ", x.dim(),
              "-D, ", w.dim(), "-D and ", b.dim(), "-D");
  TORCH_CHECK(x.size(1) == w.size(0), "kite: perceptron of ", x.sizes(), " and ",
              w.sizes(), ": inner dimensions differ");
  TORCH_CHECK(b.size(0) == w.size(1), "kite: perceptron's b has ", b.size(0),
              " elements, w has ", w.size(1), " columns");
  TORCH_CHECK(x.device() == w.device() && x.device() == b.device(),
              "kite: x, w and b are on different devices");
  int32_t M = int32_t(x.size(0)), K = int32_t(x.size(1)), N = int32_t(w.size(1));
  at::Tensor y = at::empty({M, N}, x.options());
  if (M == 0 || N == 0)
    return y;
  auto grid = [M, N](const kite::TuningConfig &t) {
    return kite::Grid(uint32_t(kite::cdiv(M, int(t.constants.at("BLOCK_M"))) *
                               kite::cdiv(N, int(t.constants.at("BLOCK_N")))));
  };
  check(kernel("perceptron.kite")
            .launch(grid,
                    {pointer(x), pointer(w), pointer(b), pointer(y), M, N, K, K,
                     N, N},
                    launchOn(x)),
        "perceptron");
  return y;
}

at::Tensor softmax(const at::Tensor &x) {
  checkTensor(x, "x", at::kFloat);
  TORCH_CHECK(x.dim() == 2, "kite: softmax takes a 2-D x, got ", x.dim(), "-D");
  TORCH_CHECK(x.size(1) <= 16384, "kite: softmax rows of at most 16384 "
              "columns (a row is one block), got ", x.size(1));
  TORCH_CHECK(x.size(0) < (int64_t(1) << 31), "kite: at most 2^31 - 1 rows");
  at::Tensor y = at::empty_like(x);
  int32_t rows = int32_t(x.size(0)), cols = int32_t(x.size(1));
  if (rows == 0 || cols == 0)
    return y;
  int block = rowBlock(cols);
  kite::CompileOptions o;
  o.constants = {{"BLOCK_SIZE", block}};
  check(kernel("softmax.kite", o, std::to_string(block))
            .launch(kite::Grid(uint32_t(rows)),
                    {pointer(y), pointer(x), cols, cols, rows, cols},
                    launchOn(x)),
        "softmax");
  return y;
}

at::Tensor layerNorm(const at::Tensor &x, const at::Tensor &w,
                     const at::Tensor &b, double eps) {
  checkTensor(x, "x", at::kHalf);
  checkTensor(w, "w", at::kHalf);
  checkTensor(b, "b", at::kHalf);
  TORCH_CHECK(x.dim() == 2 && w.dim() == 1 && b.dim() == 1,
              "kite: layer_norm takes a 2-D x and a 1-D w and b, got ", x.dim(),
              "-D, ", w.dim(), "-D and ", b.dim(), "-D");
  TORCH_CHECK(w.size(0) == x.size(1) && b.size(0) == x.size(1),
              "kite: layer_norm's w and b need ", x.size(1),
              " elements (x's columns), got ", w.size(0), " and ", b.size(0));
  TORCH_CHECK(x.device() == w.device() && x.device() == b.device(),
              "kite: x, w and b are on different devices");
  TORCH_CHECK(x.numel() < (int64_t(1) << 31), "kite: at most 2^31 - 1 elements");
  TORCH_CHECK(eps > 0, "kite: layer_norm's eps must be positive, got ", eps);
  at::Tensor y = at::empty_like(x);
  int32_t rows = int32_t(x.size(0)), cols = int32_t(x.size(1));
  if (rows == 0 || cols == 0)
    return y;
  // The tutorial's block (at most 64 KB of f16) and warps.
  int block = std::min(rowBlock(cols), 32768);
  kite::CompileOptions o;
  o.constants = {{"BLOCK_SIZE", block}};
  o.overrideNumWarps = std::clamp(block / 256, 1, 8);
  auto stats = at::empty({2, rows}, x.options().dtype(at::kFloat));
  check(kernel("layer_norm.kite", o, std::to_string(block))
            .launch(kite::Grid(uint32_t(rows)),
                    {pointer(x), pointer(y), pointer(w), pointer(b),
                     pointer(stats[0]), pointer(stats[1]), cols, cols,
                     float(eps)},
                    launchOn(x)),
        "layer_norm");
  return y;
}

} // namespace

TORCH_LIBRARY(kite, m) {
  m.def("add(Tensor x, Tensor y) -> Tensor");
  m.def("matmul(Tensor a, Tensor b) -> Tensor");
  m.def("asin(Tensor x) -> Tensor");
  m.def("sigmoid(Tensor x) -> Tensor");
  m.def("perceptron(Tensor x, Tensor w, Tensor b) -> Tensor");
  m.def("softmax(Tensor x) -> Tensor");
  m.def("layer_norm(Tensor x, Tensor w, Tensor b, float eps=1e-05) -> Tensor");
}

TORCH_LIBRARY_IMPL(kite, CUDA, m) {
  m.impl("add", add);
  m.impl("matmul", matmul);
  m.impl("asin", asinOp);
  m.impl("sigmoid", sigmoidOp);
  m.impl("perceptron", perceptron);
  m.impl("softmax", softmax);
  m.impl("layer_norm", layerNorm);
}

// CPU tensors reach the same checks (a clear "must be a CUDA tensor" rather
// than the dispatcher's list of backends).
TORCH_LIBRARY_IMPL(kite, CPU, m) {
  m.impl("add", add);
  m.impl("matmul", matmul);
  m.impl("asin", asinOp);
  m.impl("sigmoid", sigmoidOp);
  m.impl("perceptron", perceptron);
  m.impl("softmax", softmax);
  m.impl("layer_norm", layerNorm);
}
