//===- Target.cpp - Validate NVPTX target options -------------------------===//
//
// Which chips and PTX versions Kite accepts, the default PTX version of each
// chip, and the kite-check-target pass that reports bad options as
// diagnostics instead of letting LLVM abort.
//
//===----------------------------------------------------------------------===//

#include "kite/Pipeline/Pipeline.h"
#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/IR/TypeUtilities.h"

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace kite {
#define GEN_PASS_DECL_CHECKTARGET
#define GEN_PASS_DEF_CHECKTARGET
#include "kite/Pipeline/Passes.h.inc"
} // namespace kite

using namespace kite;

namespace {
struct ChipInfo {
  const char *name;
  int minPtx; ///< PTX ISA version (x10) the chip needs
  /// The lowest PTX ISA with its fp8 conversions (cvt ... e4m3x2/e5m2x2):
  /// 7.8 on sm_90, 8.1 on sm_89 (LLVM's NVPTX selects them only then).
  int fp8Ptx = 0;
};
} // namespace

/// Chips LLVM 22's NVPTX backend knows, with the PTX ISA they require.
static const ChipInfo kChips[] = {
    {"sm_70", 60},       {"sm_72", 61},       {"sm_75", 63},
    {"sm_80", 70},       {"sm_86", 71},       {"sm_87", 74},
    {"sm_89", 78, 81},   {"sm_90", 78, 78},   {"sm_90a", 80, 80},
    {"sm_100", 86, 86},  {"sm_100a", 86, 86}, {"sm_120", 87, 87},
    {"sm_120a", 87, 87},
};

/// PTX ISA versions LLVM 22 can emit (x10).
static const int kPtxVersions[] = {60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74,
                                   75, 76, 77, 78, 80, 81, 82, 83, 84, 85, 86,
                                   87, 88};

/// The chip named `name`, or null.
static const ChipInfo *findChip(llvm::StringRef name) {
  const ChipInfo *chip =
      llvm::find_if(kChips, [&](const ChipInfo &c) { return name == c.name; });
  return chip == std::end(kChips) ? nullptr : chip;
}

static std::string knownChips() {
  std::string s;
  for (const ChipInfo &c : kChips)
    s += (s.empty() ? "" : ", ") + std::string(c.name);
  return s;
}

std::optional<Stage> kite::parseStage(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Stage>>(name)
      .Case("kite", Stage::Kite)
      .Case("gpu", Stage::GPU)
      .Case("llvm", Stage::LLVM)
      .Case("ptx", Stage::PTX)
      .Default(std::nullopt);
}

llvm::Error kite::validateTargetOptions(TargetOptions &options) {
  const ChipInfo *chip = findChip(options.chip);
  if (!chip)
    return llvm::createStringError("unknown chip '" + options.chip +
                                   "'; expected one of " + knownChips());
  if (options.features.empty()) {
    // 8.0 at least (what CUDA 12.0 drivers take), 8.1 on sm_89 (fp8).
    options.features =
        "+ptx" + std::to_string(std::max({chip->minPtx, chip->fp8Ptx, 80}));
  } else {
    llvm::StringRef f = options.features;
    unsigned version = 0;
    if (!f.consume_front("+ptx") || f.getAsInteger(10, version) ||
        !llvm::is_contained(kPtxVersions, int(version)))
      return llvm::createStringError(
          "unsupported PTX features '" + options.features +
          "'; expected +ptxNN with NN one of 60..88 (e.g. +ptx80)");
    if (int(version) < chip->minPtx)
      return llvm::createStringError(
          "PTX ISA " + std::to_string(version / 10) + "." +
          std::to_string(version % 10) + " (" + options.features +
          ") does not support " + options.chip + "; it needs +ptx" +
          std::to_string(chip->minPtx) + " or later");
  }
  if (options.optLevel < 0 || options.optLevel > 3)
    return llvm::createStringError("optimization level must be 0..3, got " +
                                   std::to_string(options.optLevel));
  if (options.numWarps < 1 || options.numWarps > 32 ||
      (options.numWarps & (options.numWarps - 1)))
    return llvm::createStringError(
        "num_warps must be a power of two in 1..32, got " +
        std::to_string(options.numWarps));
  return llvm::Error::success();
}

namespace {
struct CheckTargetPass : public kite::impl::CheckTargetBase<CheckTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    TargetOptions options;
    options.chip = chip;
    options.features = features;
    options.optLevel = optLevel;
    options.numWarps = numWarps;
    if (llvm::Error err = validateTargetOptions(options)) {
      getOperation().emitError() << "kite-to-ptx: "
                                 << llvm::toString(std::move(err));
      return signalPassFailure();
    }
    // fp8 conversions (cvt ... e4m3x2/e5m2x2) need sm_89 or later, as in
    // Triton, and a PTX ISA that has them on the chip (else LLVM's
    // instruction selection aborts).
    const ChipInfo *info = findChip(options.chip);
    unsigned ptx = 0;
    llvm::StringRef(options.features).drop_front(4).getAsInteger(10, ptx);
    if (!info->fp8Ptx || int(ptx) < info->fp8Ptx) {
      mlir::WalkResult found = getOperation()->walk([&](mlir::Operation *op) {
        for (mlir::Type t : op->getResultTypes()) {
          mlir::Type e = mlir::getElementTypeOrSelf(t);
          if (auto p = llvm::dyn_cast<mlir::kite::PointerType>(e))
            e = p.getPointeeType();
          if (!mlir::kite::isFp8(e))
            continue;
          if (!info->fp8Ptx)
            op->emitError() << "fp8 (" << e << ") needs sm_89 or later; the "
                            << "target is " << chip;
          else
            op->emitError()
                << "fp8 (" << e << ") on " << chip << " needs PTX ISA "
                << info->fp8Ptx / 10 << "." << info->fp8Ptx % 10 << " (+ptx"
                << info->fp8Ptx << ") or later; the features are "
                << options.features;
          return mlir::WalkResult::interrupt();
        }
        return mlir::WalkResult::advance();
      });
      if (found.wasInterrupted())
        return signalPassFailure();
    }
    // bf16 atomics (atom.add.noftz.bf16) are sm_90's: ptxas rejects them
    // for older chips.
    unsigned version = 0;
    (void)llvm::StringRef(options.chip).drop_front(3).take_while(
        [](char c) { return llvm::isDigit(c); }).getAsInteger(10, version);
    if (version < 90) {
      mlir::WalkResult found =
          getOperation()->walk([&](mlir::kite::AtomicRMWOp op) {
            mlir::Type e = mlir::getElementTypeOrSelf(op.getValue().getType());
            if (!e.isBF16())
              return mlir::WalkResult::advance();
            op->emitError() << "atomic " << mlir::kite::stringifyAtomicKind(
                                                op.getKind())
                            << " of bf16 needs sm_90 or later; the target is "
                            << chip << " (use f32 or f16 there)";
            return mlir::WalkResult::interrupt();
          });
      if (found.wasInterrupted())
        return signalPassFailure();
    }
    std::optional<Stage> stop = parseStage(stage);
    if (!stop) {
      getOperation().emitError()
          << "kite-to-ptx: unknown stage '" << stage
          << "'; expected kite, gpu, llvm or ptx";
      return signalPassFailure();
    }
    if (startAfter.empty())
      return;
    std::optional<Stage> start = parseStage(startAfter);
    if (!start || *start == Stage::PTX) {
      getOperation().emitError()
          << "kite-to-ptx: unknown start-after stage '" << startAfter
          << "'; expected kite, gpu or llvm";
      return signalPassFailure();
    }
    if (*start >= *stop) {
      getOperation().emitError()
          << "kite-to-ptx: start-after=" << startAfter
          << " is not before stop-after=" << stage
          << ": nothing would run";
      return signalPassFailure();
    }
  }
};
} // namespace

