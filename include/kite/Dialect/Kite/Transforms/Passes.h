//===- Passes.h - Transforms of the kite dialect ----------------*- C++ -*-===//
//
// The kite dialect's transforms (Passes.td): their create functions and
// options, and registerKiteTransformsPasses() for kite-opt.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_DIALECT_KITE_TRANSFORMS_PASSES_H
#define KITE_DIALECT_KITE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

#include <string>

namespace kite {
#define GEN_PASS_DECL
#include "kite/Dialect/Kite/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kite/Dialect/Kite/Transforms/Passes.h.inc"
} // namespace kite

#endif // KITE_DIALECT_KITE_TRANSFORMS_PASSES_H
