//===- TritonSpellings.h - Triton's `tl.` names in Kite source --*- C++ -*-===//

#ifndef KITE_LIB_FRONTEND_TRITONSPELLINGS_H
#define KITE_LIB_FRONTEND_TRITONSPELLINGS_H

#include "AST.h"

namespace kite::ast {

/// Rewrites Triton's spellings into Kite's (TritonSpellings.cpp): `tl.NAME`
/// is `NAME`, and `tl.max(x, a)` / `tl.min(x, a)` reduce along axis a.
void normalizeTritonSpellings(Module &module);

/// `@triton.jit` functions that another function of the file calls and
/// that have a parameter without a type: helpers, not kernels (Triton's
/// decorator marks both).
void markJitHelpers(Module &module);

} // namespace kite::ast

#endif // KITE_LIB_FRONTEND_TRITONSPELLINGS_H
