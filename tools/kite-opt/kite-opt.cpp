//===- kite-opt.cpp - Kite's mlir-opt -------------------------------------===//
//
// The opt-style driver: parses MLIR, runs passes and pipelines, prints the
// result. All registration lives in KiteRegistration; this file wires it to
// MlirOptMain, reading the input itself first: regular files or stdin, at
// most 64 MiB (kite/Support/InputFile.h), so that a directory, a FIFO or
// /dev/zero is a clear error instead of a hang or an out-of-memory abort.
//
//===----------------------------------------------------------------------===//

#include "kite/Registration.h"
#include "kite/Support/InputFile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kite::registerAllDialects(registry);
  kite::registerAllPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Kite optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // What needs no input: MlirOptMain's own handling.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  std::string text, error;
  if (!kite::readInputFile(inputFilename, text, error)) {
    llvm::errs() << "kite-opt: error: " << error << "\n";
    return 1;
  }
  unsigned line = 0, column = 0;
  if (std::string hazard = kite::findMLIRParserHazard(text, line, column);
      !hazard.empty()) {
    llvm::errs() << (inputFilename == "-" ? std::string("<stdin>")
                                          : std::string(inputFilename))
                 << ":" << line << ":" << column << ": error: " << hazard
                 << "\n";
    return 1;
  }
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      text, inputFilename == "-" ? "<stdin>" : inputFilename);
  auto output = mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "kite-opt: error: " << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(buffer), registry, config)))
    return 1;
  output->keep();
  return 0;
}
