//===- TierUp.h - Tiered compilation's background compiles ------*- C++ -*-===//
//
// A first launch that must compile an elementwise kernel runs its quick
// tier (kite::planQuickTier: each thread one element, no full-block
// versioning; the same results) and queues the optimized compile here. One
// background thread per process runs the queue in order: the optimized PTX
// (written to the disk cache under the variant's key, as a plain compile
// would), then its machine code with ptxas (cached too). The launch path
// sees the result ready (TierUp::ready) and switches to it; a failed
// optimized compile leaves the quick tier in place (said under KITE_TRACE).
//
// At exit the compile that is running finishes (its entries reach the disk
// cache, for the next process's warm start); queued ones are dropped.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_TIERUP_H
#define KITE_LIB_RUNTIME_TIERUP_H

#include "Compile.h"
#include "DiskCache.h"
#include "Variant.h"

#include <condition_variable>
#include <functional>

namespace kite::detail {

/// What the background compile needs, copied (the Kernel may go away).
struct TierUpJob {
  std::string canonical;
  Signature signature;
  Specialization spec;
  CompileOptions options;
  std::string chip;       ///< the PTX's target
  std::string nativeChip; ///< the device's, for ptxas
  std::string keyText;    ///< the PTX's disk-cache key text
  std::string key;        ///< its hash (Variant::key)
  /// The disk cache's directory when the compile was queued.
  std::string cacheDir = cache::directory();
};

struct TierUp {
  /// Set once the optimized compile has finished (well or not).
  bool ready() const { return done.load(std::memory_order_acquire); }
  /// Blocks until ready().
  void wait();
  /// When ready: the optimized variant (its PTX, and its machine code for
  /// the job's native chip when ptxas made it), or null with `error`.
  std::shared_ptr<Variant> variant;
  std::string error;
  double ms = 0; ///< from queued to ready

  std::atomic<bool> done{false};
  std::mutex mutex;
  std::condition_variable cv;
};

/// Queues the optimized compile of `job`.
std::shared_ptr<TierUp> startTierUp(TierUpJob job);

} // namespace kite::detail

#endif // KITE_LIB_RUNTIME_TIERUP_H
