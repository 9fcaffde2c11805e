//===- CrashRecovery.h - LLVM fatal errors as errors ------------*- C++ -*-===//
//
// The last line of defence of "nothing a user writes aborts the host": Kite
// checks what it knows LLVM's NVPTX backend aborts on before LLVM sees it
// (lib/Pipeline/Target.cpp), and runs every pipeline under runRecoverable,
// which turns an LLVM fatal error (report_fatal_error) or a crash signal
// (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL) inside it into an llvm::Error.
//
// What recovery cannot undo: the state the interrupted code held (its memory
// is leaked; the MLIRContext it used must not be used again: see
// takeRecoveredCrash). docs/runtime.md says what still cannot be caught.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_PIPELINE_CRASHRECOVERY_H
#define KITE_PIPELINE_CRASHRECOVERY_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace kite {

/// Runs `fn`. Returns success when it returns normally; an error naming
/// `what` and the LLVM message (or the signal) when it ends in an LLVM fatal
/// error or a crash signal. Thread-safe; calls may nest (the innermost
/// recovers). Crash signal handlers are installed only while a call runs.
llvm::Error runRecoverable(llvm::StringRef what,
                           llvm::function_ref<void()> fn);

/// True (once) when the last runRecoverable on this thread recovered from a
/// crash: the caller must then abandon (leak) the MLIRContext and IR that
/// `fn` used, as their state is unknown.
bool takeRecoveredCrash();

} // namespace kite

#endif // KITE_PIPELINE_CRASHRECOVERY_H
