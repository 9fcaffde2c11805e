//===- Error.h - Errors of the Kite runtime -------------------*- C++ -*-===//
//
// Every fallible call of the runtime returns kite::Expected<T>: a value, or a
// kite::Error (a code and a message meant for people). Nothing in the runtime
// throws or aborts the host on bad input, a missing driver or a failed
// compile. Kite's public headers use only the standard library.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_RUNTIME_ERROR_H
#define KITE_RUNTIME_ERROR_H

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

#define KITE_API __attribute__((visibility("default")))

namespace kite {

enum class ErrorCode {
  InvalidArgument, ///< bad option, argument count/type, grid, buffer size
  ParseError,      ///< the kernel source does not parse or verify
  CompileError,    ///< the lowering to PTX failed
  NoDriver,        ///< libcuda.so.1 cannot be loaded (no NVIDIA driver)
  NoDevice,        ///< the driver works but the device does not exist
  DriverError,     ///< a CUDA driver call failed (message: cuGetErrorName)
  IOError,         ///< reading a source file failed
  ExecutionError,  ///< the interpreter stopped the kernel (out-of-bounds access, ...)
};

KITE_API const char *errorCodeName(ErrorCode code);

class Error {
public:
  Error(ErrorCode code, std::string message)
      : code_(code), message_(std::move(message)) {}
  ErrorCode code() const { return code_; }
  const std::string &message() const { return message_; }
  /// "<code name>: <message>"
  std::string str() const {
    return std::string(errorCodeName(code_)) + ": " + message_;
  }

private:
  ErrorCode code_;
  std::string message_;
};

/// A T or an Error. Test with `if (!x)`, read with `*x` / `x->`, and
/// `x.error()` on failure. `value()` on an Error prints it and exits(1): for
/// small programs that have no better way to fail.
template <typename T> class Expected {
public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Error error) : v_(std::move(error)) {}
  explicit operator bool() const { return v_.index() == 0; }
  bool ok() const { return v_.index() == 0; }
  T &operator*() { return std::get<0>(v_); }
  const T &operator*() const { return std::get<0>(v_); }
  T *operator->() { return &std::get<0>(v_); }
  const T *operator->() const { return &std::get<0>(v_); }
  const Error &error() const { return std::get<1>(v_); }
  T &value() & {
    if (!ok())
      fail();
    return std::get<0>(v_);
  }
  T value() && {
    if (!ok())
      fail();
    return std::move(std::get<0>(v_));
  }

private:
  [[noreturn]] void fail() const {
    std::fprintf(stderr, "kite: %s\n", error().str().c_str());
    std::exit(1);
  }
  std::variant<T, Error> v_;
};

struct Success {};

template <> class Expected<void> {
public:
  Expected() = default;
  Expected(Success) {}
  Expected(Error error) : error_(std::move(error)), failed_(true) {}
  explicit operator bool() const { return !failed_; }
  bool ok() const { return !failed_; }
  const Error &error() const { return error_; }
  void value() const {
    if (failed_) {
      std::fprintf(stderr, "kite: %s\n", error_.str().c_str());
      std::exit(1);
    }
  }

private:
  Error error_{ErrorCode::InvalidArgument, ""};
  bool failed_ = false;
};

} // namespace kite

#endif // KITE_RUNTIME_ERROR_H
