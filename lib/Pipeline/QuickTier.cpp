//===- QuickTier.cpp - The quick tier of a tiered compile -----------------===//
//
// A first launch that compiles (the runtime's tiered compilation,
// docs/runtime.md) runs a quickly compiled form of the kernel while the
// optimized one compiles in the background. What costs in a cold compile
// of an elementwise kernel is code per thread: seeded dropout's 1024
// elements on 4 warps are 8 Philox evaluations a thread, each some 80
// instructions that LLVM and then ptxas schedule (ptxas alone about 16 ms
// on the build machine). The quick tier runs the same block on as many
// warps as give each thread one element (at most 32): ptxas then takes
// about 4 ms over its start-up, and LLVM a third less.
//
// Only where that cannot change a result: each element of every block is
// then computed by the same operations from the same inputs, whichever
// thread holds it. Reductions, scans, sorts and dots combine elements in an
// order that follows the threads (a float sum's rounding would differ);
// atomics' order and debug output follow the threads too. A kernel with any
// of them, or with ops this file does not know, has no quick tier.
//
//===----------------------------------------------------------------------===//

#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Pipeline/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace kd = mlir::kite;

/// Whether `op` computes each element of its results on its own (or moves
/// elements around without combining them), whatever threads hold them.
static bool elementwise(Operation *op) {
  StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace() : "";
  if (dialect == "arith" || dialect == "math" || dialect == "ub")
    return true;
  if (isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::YieldOp, scf::ConditionOp,
          func::ReturnOp, func::CallOp>(op))
    return true;
  return isa<kd::ProgramIdOp, kd::NumProgramsOp, kd::ArangeOp, kd::SplatOp,
             kd::BroadcastOp, kd::ExpandDimsOp, kd::ReshapeOp, kd::TransOp,
             kd::FlipOp, kd::JoinOp, kd::SplitOp, kd::ConvertLayoutOp,
             kd::AddPtrOp, kd::LoadOp, kd::StoreOp, kd::RandIntOp,
             kd::RandInt4xOp, kd::PhiloxOp, kd::RandOp, kd::RandNOp, kd::HintOp,
             kd::InlineAsmOp, kd::AssumeOp, kd::GatherOp, kd::HistogramOp>(op);
}

static std::string where(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto file = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << " at " << file.getFilename().getValue() << ":" << file.getLine()
       << ":" << file.getColumn();
  else if (auto file = op->getLoc()->findInstanceOf<FileLineColLoc>())
    os << " at " << file.getFilename().getValue() << ":" << file.getLine()
       << ":" << file.getColumn();
  return s;
}

int ::kite::planQuickTier(ModuleOp module, const ::kite::TargetOptions &options,
                          std::string &why) {
  func::FuncOp kernel;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (!mlir::kite::isKernel(f) || f.isExternal())
      continue;
    if (kernel) {
      why = "the module has several kernels (choose one)";
      return 0;
    }
    kernel = f;
  }
  if (!kernel) {
    why = "the module has no kernel";
    return 0;
  }
  int64_t largest = 1;
  // An inline_asm_elementwise with pack N needs N elements a thread of its
  // block: the fewest elements a thread may hold, per such block.
  int64_t mostWarps = 32;
  Operation *blocker = nullptr;
  kd::InlineAsmOp packedAsm;
  module.walk([&](Operation *op) {
    if (blocker || isa<ModuleOp, func::FuncOp>(op))
      return;
    if (!elementwise(op)) {
      blocker = op;
      return;
    }
    for (Type t : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(t))
        if (tensor.hasStaticShape()) {
          largest = std::max(largest, tensor.getNumElements());
          auto asmOp = dyn_cast<kd::InlineAsmOp>(op);
          if (int64_t most =
                  asmOp ? tensor.getNumElements() / (32 * asmOp.getPack())
                        : mostWarps;
              most < mostWarps) {
            mostWarps = std::max<int64_t>(1, most);
            packedAsm = asmOp;
          }
        }
  });
  if (blocker) {
    const char *reason =
        isa<kd::ReduceOp, kd::ScanOp, kd::SortOp, kd::DotOp>(blocker)
            ? " combines elements in an order that follows the threads"
        : isa<kd::AtomicRMWOp, kd::AtomicCASOp>(blocker)
            ? ": the order of atomics follows the threads"
        : isa<kd::PrintOp, kd::AssertOp>(blocker)
            ? ": what it prints follows the threads"
            : " is not an elementwise op the quick tier knows";
    why = "'" + blocker->getName().getStringRef().str() + "'" + where(blocker) +
          reason;
    return 0;
  }
  int warps = options.numWarps;
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(
          kd::KiteDialect::getNumWarpsAttrName()))
    warps = int(attr.getInt());
  // One element a thread (pack elements for a packed inline asm), at most 32
  // warps.
  int64_t bySize = std::min<int64_t>(
      32,
      int64_t(llvm::bit_ceil(uint64_t(std::max<int64_t>(1, largest / 32)))));
  int64_t byPack = int64_t(llvm::bit_floor(uint64_t(mostWarps)));
  int64_t wanted = std::min(bySize, byPack);
  if (wanted <= warps && byPack < bySize) {
    why = "'kite.inline_asm'" + where(packedAsm) + " takes " +
          std::to_string(packedAsm.getPack()) +
          " elements a call (pack), which its " + std::to_string(warps) +
          " warps' threads already hold";
    return 0;
  }
  if (wanted <= warps) {
    why = "its largest block (" + std::to_string(largest) +
          " elements) already gives each of its " + std::to_string(warps) +
          " warps' threads at most " +
          std::to_string((largest + 32 * warps - 1) / (32 * warps)) +
          " element(s)";
    return 0;
  }
  kernel->setAttr(
      kd::KiteDialect::getNumWarpsAttrName(),
      IntegerAttr::get(IntegerType::get(module.getContext(), 32), wanted));
  return int(wanted);
}
