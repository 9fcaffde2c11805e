//===- CrashRecoveryTest.cpp - runRecoverable ------------------------------===//
//
// LLVM fatal errors and crash signals inside kite::runRecoverable (the guard
// around every kite-to-ptx compile) come back as errors; the process, and
// later compiles on the same and other threads, go on.
//
//===----------------------------------------------------------------------===//

#include "kite/Pipeline/CrashRecovery.h"

#include "llvm/Support/ErrorHandling.h"
#include "gtest/gtest.h"

#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string run(llvm::function_ref<void()> fn) {
  llvm::Error err = kite::runRecoverable("test", fn);
  if (!err)
    return "";
  return llvm::toString(std::move(err));
}

TEST(CrashRecovery, NormalReturnIsSuccess) {
  int calls = 0;
  EXPECT_EQ(run([&] { ++calls; }), "");
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(kite::takeRecoveredCrash());
}

TEST(CrashRecovery, FatalErrorBecomesAnError) {
  std::string message =
      run([] { llvm::report_fatal_error("Cannot select: something"); });
  EXPECT_NE(message.find("internal compiler error in test"), std::string::npos)
      << message;
  EXPECT_NE(message.find("LLVM: Cannot select: something"), std::string::npos)
      << message;
  EXPECT_TRUE(kite::takeRecoveredCrash());
  EXPECT_FALSE(kite::takeRecoveredCrash()); // reported once
  // The next call on this thread runs normally.
  int calls = 0;
  EXPECT_EQ(run([&] { ++calls; }), "");
  EXPECT_EQ(calls, 1);
}

TEST(CrashRecovery, SignalsBecomeErrors) {
  EXPECT_NE(run([] { std::raise(SIGSEGV); }).find("crashed with SIGSEGV"),
            std::string::npos);
  EXPECT_NE(run([] { std::abort(); }).find("crashed with SIGABRT"),
            std::string::npos);
  EXPECT_NE(run([] { std::raise(SIGFPE); }).find("crashed with SIGFPE"),
            std::string::npos);
  EXPECT_TRUE(kite::takeRecoveredCrash());
}

TEST(CrashRecovery, NestedCallsRecoverInnermost) {
  std::string inner;
  std::string outer = run([&] {
    inner = run([] { llvm::report_fatal_error("inner failure"); });
  });
  EXPECT_EQ(outer, "");
  EXPECT_NE(inner.find("LLVM: inner failure"), std::string::npos) << inner;
}

TEST(CrashRecovery, ThreadsRecoverTheirOwn) {
  std::vector<std::string> messages(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      if (i % 2)
        messages[i] = run([i] {
          llvm::report_fatal_error(llvm::Twine("thread ") + llvm::Twine(i));
        });
      else
        messages[i] = run([] {});
    });
  for (std::thread &t : threads)
    t.join();
  for (int i = 0; i < 8; ++i) {
    if (i % 2)
      EXPECT_NE(messages[i].find("LLVM: thread " + std::to_string(i)),
                std::string::npos)
          << messages[i];
    else
      EXPECT_EQ(messages[i], "");
  }
}

} // namespace
