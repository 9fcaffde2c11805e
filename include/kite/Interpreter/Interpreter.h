//===- Interpreter.h - Run kite-dialect kernels on the host -----*- C++ -*-===//
//
// The reference semantics of Kite: executes a kernel (a kite-dialect
// func.func after inlining) program by program over host memory. Every op
// of the dialect and the arith/math/scf ops kernels use are implemented;
// rand/randint/randn are Triton's exact Philox stream; f32 arithmetic rounds
// like the GPU's IEEE instructions (the GPU's default approximate f32
// division and its libdevice math may differ by a few ulp). Loads and
// stores outside the buffers the caller registered are reported with the
// op's location instead of being performed.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_INTERPRETER_INTERPRETER_H
#define KITE_INTERPRETER_INTERPRETER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kite::interp {

/// Host memory a kernel may access.
struct Buffer {
  uint64_t address = 0; ///< host address of the first byte
  uint64_t bytes = 0;
  std::string name;     ///< the parameter it was passed as (for messages)
};

/// One kernel argument: a scalar (integers sign-extended to 64 bits; floats
/// as a double holding the exact value) or a pointer (an address, which
/// must lie in one of the buffers to be dereferenced).
struct Value {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0;
};

struct Launch {
  uint32_t grid[3] = {1, 1, 1};
  std::vector<Value> args; ///< one per non-constexpr parameter
  std::vector<Buffer> buffers;
  /// Stop with an error once the kernel has done this much work (element
  /// operations summed over its ops); 0: no limit. For untrusted kernels
  /// (the fuzzer) that may loop for billions of iterations.
  uint64_t maxWork = 0;
};

/// Runs `kernel` on every program of the grid. Returns an empty string, or
/// the first error ("file:line:col: out-of-bounds load ..." and the like).
std::string run(mlir::func::FuncOp kernel, const Launch &launch);

} // namespace kite::interp

#endif // KITE_INTERPRETER_INTERPRETER_H
