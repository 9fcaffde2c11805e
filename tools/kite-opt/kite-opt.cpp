//===- kite-opt.cpp - Kite's mlir-opt -------------------------------------===//
//
// The opt-style driver: parses MLIR, runs passes and pipelines, prints the
// result. All registration lives in KiteRegistration; this file only wires
// it to MlirOptMain.
//
//===----------------------------------------------------------------------===//

#include "kite/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kite::registerAllDialects(registry);
  kite::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kite optimizer driver\n", registry));
}
