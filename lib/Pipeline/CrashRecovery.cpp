//===- CrashRecovery.cpp - LLVM fatal errors as errors --------------------===//
//
// runRecoverable: an llvm::CrashRecoveryContext around the call, crash
// recovery enabled (signal handlers installed) while at least one call runs
// in the process, and a fatal-error handler that, on a thread inside such a
// call, records LLVM's message and leaves through the recovery context
// instead of letting report_fatal_error end the process.
//
//===----------------------------------------------------------------------===//

#include "kite/Pipeline/CrashRecovery.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <cstring>
#include <mutex>
#include <string>

namespace {
thread_local std::string fatalMessage;
thread_local bool recovered = false;

std::mutex enableMutex;
int activeCalls = 0;

void fatalErrorHandler(void *, const char *reason, bool) {
  if (llvm::CrashRecoveryContext *crc = llvm::CrashRecoveryContext::GetCurrent()) {
    fatalMessage = reason ? reason : "";
    crc->HandleExit(1); // longjmps out of runRecoverable's context
  }
  // Outside a recoverable call: what LLVM would print; it then ends the
  // process as it always does.
  llvm::errs() << "LLVM ERROR: " << (reason ? reason : "") << "\n";
}

void installFatalErrorHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::install_fatal_error_handler(fatalErrorHandler, nullptr);
  });
}

const char *signalName(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGABRT:
    return "SIGABRT";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  default:
    return nullptr;
  }
}
} // namespace

namespace kite {

llvm::Error runRecoverable(llvm::StringRef what,
                           llvm::function_ref<void()> fn) {
  installFatalErrorHandler();
  {
    std::lock_guard<std::mutex> lock(enableMutex);
    if (activeCalls++ == 0)
      llvm::CrashRecoveryContext::Enable();
  }
  fatalMessage.clear();
  recovered = false;
  llvm::CrashRecoveryContext crc;
  bool ok = crc.RunSafely(fn);
  {
    std::lock_guard<std::mutex> lock(enableMutex);
    if (--activeCalls == 0)
      llvm::CrashRecoveryContext::Disable();
  }
  if (ok)
    return llvm::Error::success();
  recovered = true;
  std::string message = "internal compiler error in " + what.str() + ": ";
  if (!fatalMessage.empty()) {
    message += "LLVM: " + fatalMessage;
  } else {
    int sig = crc.RetCode - 128; // RunSafely reports a signal as 128 + signo
    if (const char *name = signalName(sig))
      message += std::string("crashed with ") + name;
    else
      message += "crashed (code " + std::to_string(crc.RetCode) + ")";
  }
  message += " (recovered; the host process continues. Please report the "
             "kernel that caused it)";
  fatalMessage.clear();
  return llvm::createStringError(message);
}

bool takeRecoveredCrash() {
  bool r = recovered;
  recovered = false;
  return r;
}

} // namespace kite
