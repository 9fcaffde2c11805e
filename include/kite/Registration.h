//===- Registration.h - Register Kite's dialects and passes ------*- C++ -*-===//
//
// One place that knows every dialect and pass Kite uses, shared by kite-opt,
// kitec and the JIT so that they all accept the same IR.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_REGISTRATION_H
#define KITE_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kite {

/// Adds the kite dialect and the upstream dialects Kite kernels and their
/// lowerings use (func, arith, math, scf, cf, gpu, nvvm, llvm, ...).
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers Kite's passes, named pipelines and the upstream passes they
/// build on, for textual pass pipelines.
void registerAllPasses();

} // namespace kite

#endif // KITE_REGISTRATION_H
