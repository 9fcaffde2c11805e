//===- TierUp.cpp - Tiered compilation's background compiles --------------===//

#include "TierUp.h"

#include <chrono>
#include <cstdio>
#include <deque>
#include <thread>

using namespace kite;
using namespace kite::detail;

namespace {
/// The background compile thread and its queue. A function-local static
/// made on first use, after the libraries' own statics: destroyed before
/// them, so the compile it waits for at exit still has LLVM and MLIR.
class Worker {
public:
  static Worker &get() {
    static Worker worker;
    return worker;
  }

  void push(std::function<void()> work) {
    std::lock_guard<std::mutex> lock(mutex);
    queue.push_back(std::move(work));
    if (!thread.joinable())
      thread = std::thread([this] { run(); });
    cv.notify_one();
  }

  ~Worker() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
      queue.clear();
      cv.notify_one();
    }
    if (thread.joinable())
      thread.join();
  }

private:
  void run() {
    for (;;) {
      std::function<void()> work;
      {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [this] { return stopping || !queue.empty(); });
        if (queue.empty())
          return;
        work = std::move(queue.front());
        queue.pop_front();
      }
      work();
    }
  }

  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  bool stopping = false;
  std::thread thread;
};

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
} // namespace

void TierUp::wait() {
  std::unique_lock<std::mutex> lock(mutex);
  cv.wait(lock, [this] { return done.load(std::memory_order_acquire); });
}

std::shared_ptr<TierUp> kite::detail::startTierUp(TierUpJob job) {
  auto up = std::make_shared<TierUp>();
  auto queued = std::chrono::steady_clock::now();
  Worker::get().push([up, job = std::move(job), queued] {
    auto ptx = lowerToPTX(job.canonical, job.signature, job.spec, job.options,
                          job.chip);
    if (!ptx) {
      publish(*up, nullptr, ptx.error().message(), queued);
      return;
    }
    auto v = std::make_shared<Variant>();
    v->key = job.key;
    v->ptx = std::move(*ptx);
    cache::writeIn(job.cacheDir, job.keyText, "ptx", v->ptx);
    if (const auto &ptxas = findPtxas()) {
      std::string error; // a failure: the load runs ptxas (or the JIT) again
      if (auto cubin = runPtxas(*ptxas, v->ptx, job.nativeChip, error)) {
        cache::writeIn(job.cacheDir,
                       cubinKeyText(v->key, job.nativeChip, *ptxas), "cubin",
                       *cubin);
        v->image = std::move(*cubin);
        v->imageChip = job.nativeChip;
      }
    }
    publish(*up, std::move(v), "", queued);
  });
  return up;
}
