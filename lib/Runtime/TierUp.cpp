//===- TierUp.cpp - Tiered compilation's background compiles --------------===//

#include "TierUp.h"

#include <chrono>
#include <cstdio>
#include <deque>
#include <thread>

using namespace kite;
using namespace kite::detail;

namespace {
void publish(TierUp &up, std::shared_ptr<Variant> v, std::string error,
             std::chrono::steady_clock::time_point queued) {
  std::lock_guard<std::mutex> lock(up.mutex);
  up.variant = std::move(v);
  up.error = std::move(error);
  up.ms = std::chrono::duration<double, std::milli>(
              std::chrono::steady_clock::now() - queued)
              .count();
  up.done.store(true, std::memory_order_release);
  up.cv.notify_all();
}

/// The background compile thread and its queue. A function-local static
/// made on first use, after the libraries' own statics: destroyed before
/// them, so the compile it waits for at exit still has LLVM and MLIR.
class Worker {
public:
  struct Job {
    std::function<void()> work;
    std::shared_ptr<TierUp> up;
    std::chrono::steady_clock::time_point queued;
  };

  static Worker &get() {
    static Worker worker;
    return worker;
  }

  void push(Job job) {
    std::lock_guard<std::mutex> lock(mutex);
    queue.push_back(std::move(job));
    if (!thread.joinable())
      thread = std::thread([this] { run(); });
    cv.notify_one();
  }

  ~Worker() {
    std::deque<Job> dropped;
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
      dropped.swap(queue);
      cv.notify_one();
    }
    // Anyone still waiting (Kernel::finishCompiles) is answered.
    for (Job &job : dropped)
      publish(*job.up, nullptr, "dropped: the process is exiting", job.queued);
    if (thread.joinable())
      thread.join();
  }

private:
  void run() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [this] { return stopping || !queue.empty(); });
        if (queue.empty())
          return;
        job = std::move(queue.front());
        queue.pop_front();
      }
      job.work();
    }
  }

  std::mutex mutex;
  std::condition_variable cv;
  std::deque<Job> queue;
  bool stopping = false;
  std::thread thread;
};
} // namespace

void TierUp::wait() {
  std::unique_lock<std::mutex> lock(mutex);
  cv.wait(lock, [this] { return done.load(std::memory_order_acquire); });
}

std::shared_ptr<TierUp> kite::detail::startTierUp(TierUpJob job) {
  auto up = std::make_shared<TierUp>();
  auto queued = std::chrono::steady_clock::now();
  Worker::get().push(
      {[up, job = std::move(job), queued] {
         auto ptx = lowerToPTX(job.canonical, job.signature, job.spec,
                               job.options, job.chip);
         if (!ptx) {
           publish(*up, nullptr, ptx.error().message(), queued);
           return;
         }
         auto v = std::make_shared<Variant>();
         v->key = job.key;
         v->ptx = std::move(*ptx);
         cache::writeIn(job.cacheDir, job.keyText, "ptx", v->ptx);
         if (const auto &ptxas = findPtxas()) {
           std::string
               error; // a failure: the load runs ptxas (or the JIT) again
           if (auto cubin = runPtxas(*ptxas, v->ptx, job.nativeChip, error)) {
             raiseOccupancy(*ptxas, v->ptx, job.nativeChip, *cubin);
             cache::writeIn(job.cacheDir,
                            cubinKeyText(v->key, job.nativeChip, *ptxas),
                            "cubin", *cubin);
             v->image = std::move(*cubin);
             v->imageChip = job.nativeChip;
           }
         }
         publish(*up, std::move(v), "", queued);
       },
       up, queued});
  return up;
}
