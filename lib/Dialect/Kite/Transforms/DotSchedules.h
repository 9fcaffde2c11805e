//===- DotSchedules.h - The K-loop schedules of a staged dot ----*- C++ -*-===//
//
// kite-stage-dot-operands' schedules: the cp.async one (StageDotOperands.cpp),
// the cp.async staging of B for dots with A in registers
// (RegisterDotSchedule.cpp), the staging of the loads computed operands
// come from (StagedLoads.cpp) and the TMA ones, with and without a producer
// warp (TmaSchedules.cpp),
// and what they share: the carried accumulator's waits and the slot/phase
// counters carried around the loop (DotSchedules.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_PIPELINE_DOTSCHEDULES_H
#define KITE_LIB_PIPELINE_DOTSCHEDULES_H

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"
#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <array>
#include <map>
#include <optional>

namespace kite::detail {
using namespace mlir;
namespace kd = mlir::kite;

struct LoadSlices;
class TmaSchedules;

/// The operands of `dots` loaded in `loop`'s body whose memory runs along
/// M (A) or K (B): each is loaded as its transpose and read through a
/// kite.trans (transposedA / transposedB), where AxisInfo says the
/// transposed pointers move wider vectors and the staging reads that
/// orientation (f16/bf16; tf32 and fp8 Bs when `wgmma`)
/// (OrientOperandLoads.cpp). Whether any was.
bool orientOperandLoads(func::FuncOp func, scf::ForOp loop,
                        ArrayRef<kd::DotOp> dots, bool wgmma);

/// [M, N, K] of `dot`.
SmallVector<int64_t> dotShapeOf(kd::DotOp dot);

/// The iteration argument (its index among the loop's results) of an
/// accumulator that only goes around the loop (iteration argument -> dot
/// -> yield): its wgmma is waited for one iteration later.
std::optional<unsigned> carriedAccumulator(kd::DotOp dot, Block *body);

/// A carried wgmma accumulator: the loop's result passes through a wait
/// for the last dot (at the rewriter's insertion point, after the loop;
/// returned), and the initial one through a no-op wait before it.
Operation *waitAroundLoop(IRRewriter &rewriter, scf::ForOp loop,
                          unsigned carried);

/// After a cp.async-staged loop: the waits for its carried wgmma
/// accumulators (`carried`, waitAroundLoop; in a version of the kernel,
/// kite-version-full-blocks, the loop and these waits in an scf.if that
/// runs them where the loop runs at least once, its initial accumulators
/// where not), then kite.async_wait 0, whose
/// barrier then follows every warpgroup's last product: no copy or store
/// after it (a next loop's prologue, a reuse of the slots) may overwrite a
/// slot another warpgroup's product still reads.
void drainAfterLoop(IRRewriter &rewriter, scf::ForOp loop,
                    ArrayRef<unsigned> carried);

/// Where the slot counters of a loop start: slot 0 and phase 0 (the loop
/// runs once), or values carried in from an enclosing loop (a persistent
/// kernel's tile loop: the slots and barrier phases go on from tile to
/// tile).
struct SlotStart {
  Value slot;  ///< null: 0
  Value phase; ///< null: 0
};

/// Replaces this iteration's slot (`slot`, k mod S) and the one D ahead
/// (`ahead`, if any) by iteration arguments that step by one and wrap at S,
/// and with `phase` (TMA: (k / S) & 1) adds one that flips when the slot
/// wraps: no division or remainder in the loop. They start at `start`
/// (`ahead` at start + D mod S), which must agree with `slot` and `phase`
/// at the first iteration (they stay where the loop cannot grow).
/// Returns the loop that replaced `loop` (null where it could not grow: the
/// remainders stay).
scf::ForOp carrySlots(IRRewriter &rewriter, scf::ForOp loop, Value slot,
                      Value ahead, Value phase, int64_t D, int64_t slots,
                      SlotStart start = {});

/// The ring slot before `slot` (of `slots`), at the insertion point: the
/// slot a consumer releases once the previous iteration's products are
/// waited for.
Value previousSlot(IRRewriter &rewriter, Location loc, Value slot,
                   int64_t slots);

/// The number of iterations of `loop` (a constant positive step), at the
/// insertion point.
Value tripCount(IRRewriter &rewriter, Location loc, scf::ForOp loop);

/// The ops a producer warp must repeat to compute `values` (used in
/// `loop`): pure ops of the kernel's entry block (`entry`, in block order)
/// and, when `loop` sits in a tile loop `outer` of the entry block, pure
/// ops of the tile loop's body before `loop` (`tile`), which may use the
/// tile loop's induction variable (TmaProducers.cpp). None when a value
/// depends on anything else, or the loop is nested deeper.
struct ProducerDependencies {
  SmallVector<Operation *> entry, tile;
};
std::optional<ProducerDependencies>
producerDependencies(func::FuncOp func, scf::ForOp loop, scf::ForOp outer,
                     ArrayRef<Value> values);

/// A producer's loop over `loop`'s iterations at the insertion point, its
/// slot and phase from (slot0, phase0): each iteration waits until its
/// slot's previous use is released, repeats `slices` at its induction
/// variable (over `map`, the producer's copies of values from outside the
/// loop), calls `issue` (the copies into the slot) and goes on to the next
/// slot, flipping the phase where the ring wraps; its results are the slot
/// and phase after the last iteration (TmaProducers.cpp).
scf::ForOp
producerLoop(IRRewriter &rewriter, Location loc, scf::ForOp loop,
             const LoadSlices &slices, const IRMapping &map, Value slot0,
             Value phase0, int64_t slots,
             llvm::function_ref<void(IRMapping &inner, Value slot)> issue);

/// Whether `load`'s masked-off elements are 0 (no `other`, or a zero
/// constant): a copy zero-fills them.
bool zeroFilled(kd::LoadOp load);

/// Whether `load` reads blocks of `element` whose masked-off elements are 0
/// (or has no mask): what a staging can copy in its place.
bool stageableContents(kd::LoadOp load, Type element);

/// The compute capability of a chip name (sm_90a: 90), 0 if unknown.
int64_t chipVersion(StringRef chip);

/// A load in `body` with one use (the dot) and stageable contents.
kd::LoadOp stageableLoad(Value v, Block *body, Type element);

/// Stages the Bs of `loop`'s dots (`dots`, the kite.dot ops of its body)
/// that read A from registers (attention's products) into one ring of
/// `stages` slots, when every dot qualifies (RegisterDotSchedule.cpp):
/// with cp.async from pointer loads, or by TMA from the descriptor loads
/// tmaRegisterDotLoads keeps (their tensor maps from `tma`), with
/// `specialize` by a producer warpgroup that the kernel's loops with dots
/// share (TmaSchedules::produceRegisterDots); false (nothing changed)
/// otherwise. The
/// caller has checked the loop: a positive constant step, no atomics.
bool stageRegisterDots(func::FuncOp func, scf::ForOp loop,
                       ArrayRef<kd::DotOp> dots, StringRef chip, int64_t warps,
                       int64_t stages, TmaSchedules &tma,
                       bool specialize = false);

/// Stages the loads `dot`'s operands are computed from in `loop` (dot_scaled's
/// bytes and scales): blocks that copy in groups of 4 bytes or more through a
/// ring of `stages` shared-memory slots (kite.async_copy S - 1 iterations
/// ahead, kite.staged_load in the load's place), small others into
/// registers one iteration ahead (StagedLoads.cpp); false (nothing changed)
/// when no operand is computed or none of its loads can be copied. On
/// sm_90a the product may run asynchronously, reading A from the ring (a
/// copied load) or, with `storeComputedA`, a computed A stored beside the
/// computed B. `loadedOperands`: also a dot of two loads the operand
/// stagings cannot take (an fp8 B whose memory runs along N: wgmma reads
/// fp8 K-major only, so the block goes through registers, which store it
/// K-major). The caller has checked the loop: a positive constant step,
/// no atomics.
bool stageOperandLoads(func::FuncOp func, scf::ForOp loop, kd::DotOp dot,
                       StringRef chip, int64_t warps, int64_t stages,
                       bool storeComputedA, bool loadedOperands = false);

/// The TMA schedules of one module (they share the tensor-map parameters
/// made so far).
class TmaSchedules {
public:
  /// S + 1 slots, S - 1 stages ahead, one thread issuing the copies, an
  /// mbarrier per slot (docs/lowering.md, "TMA staging").
  void stageWithTma(func::FuncOp func, scf::ForOp loop, kd::DotOp dot,
                    std::array<kd::DescriptorLoadOp, 2> loads, int64_t stages);
  /// The same with a producer warp; false (nothing changed) when it does
  /// not apply. `pingPong`: two consumer groups taking turns over the tile
  /// loop's iterations (a located error and `failed` where it cannot).
  bool stageWithProducerWarp(func::FuncOp func, scf::ForOp loop, kd::DotOp dot,
                             std::array<kd::DescriptorLoadOp, 2> loads,
                             int64_t warps, int64_t stages,
                             bool pingPong = false);
  /// The kernel parameter (a CUtensorMap the runtime encodes at launch)
  /// for `make`'s boxes of its block's rows by `swizzle` bytes, made once
  /// per descriptor and swizzle.
  Value tensorMap(func::FuncOp func, kd::MakeTensorDescOp make,
                  int64_t swizzle);
  /// Whether a schedule asked for could not be made (an error was
  /// emitted).
  bool failed = false;

  /// A kernel's producer warpgroup for register dots (attention,
  /// RegisterDotSchedule.cpp): the loops staged so far share its ring, in
  /// program order.
  struct ProducerRing {
    Operation *exit =
        nullptr;       ///< the producer's kite.exit: next loops go before
    IRMapping outside; ///< the entry's ops the producer repeated
    Value slot, phase; ///< the producer's counters after its last loop
    Value consumerSlot, consumerPhase; ///< the consumers' after theirs
    int64_t slots = 0, slotBytes = 0;
    /// In a persistent kernel (the loops in a tile loop of the entry): the
    /// producer's tile loop (its loops go before its yield, which passes
    /// their counters on), the tile ops it repeated, the consumers' tile
    /// loop and which of its iteration arguments carry their counters from
    /// one tile to the next (the slot's; the phase's is next).
    scf::ForOp tiles;
    IRMapping inTile;
    Operation *consumerTiles = nullptr;
    unsigned consumerTileArg = 0;
  };
  std::map<Operation *, ProducerRing> producerRings; ///< by kernel

  /// The producer warpgroup of register dots (attention): on first use the
  /// ring of `func` (`slots` slots of `slotBytes`; full barriers of
  /// `arrivals` copies, empty ones of `consumerWarps` releases) and the
  /// producer's branch at the kernel's entry (setmaxnreg 24, its kite.exit;
  /// the consumers setmaxnreg 240 after it); then the producer's loop for
  /// `loop`'s copies (`issue` at each iteration after the slot's release,
  /// the ops of `deps` repeated once per kernel), appended before the exit
  /// and continuing the ring's counters. With `outer` (the tile loop around
  /// `loop`, in the kernel's entry), the producer runs a tile loop of its
  /// own (made on first use, the loops of a tile in it, the tile's ops of
  /// `deps` repeated once per tile). `issue` builds with `rewriter`.
  ProducerRing &produceRegisterDots(
      IRRewriter &rewriter, func::FuncOp func, scf::ForOp loop,
      scf::ForOp outer, const LoadSlices &slices,
      const ProducerDependencies &deps, int64_t slots, int64_t slotBytes,
      int64_t arrivals, int64_t consumerWarps,
      llvm::function_ref<void(IRMapping &, Value, Value)> issue);

private:
  /// The tensor-map parameters of `loads` (A, B) staged for `dot`.
  std::array<Value, 2>
  tensorMapParams(func::FuncOp func, kd::DotOp dot,
                  std::array<kd::DescriptorLoadOp, 2> loads);
  Value tensorMapParam(func::FuncOp func, kd::MakeTensorDescOp make,
                       int operand, const kd::SwizzledStaging &staging);
  /// The programs each operand's copies are multicast to (1: none).
  std::array<int64_t, 2> multicastOf(func::FuncOp func, kd::DotOp dot,
                                     std::array<kd::DescriptorLoadOp, 2> loads);
  std::map<std::pair<Operation *, int64_t>, Value> tensorMaps;
};

} // namespace kite::detail

#endif // KITE_LIB_PIPELINE_DOTSCHEDULES_H
