//===- InputFile.cpp - Reading the files a user hands Kite -----------------===//

#include "kite/Support/InputFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

std::string kite::describeBytes(uint64_t bytes) {
  if (bytes >= (uint64_t(1) << 20) && bytes % (uint64_t(1) << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0)
    return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

std::string kite::findMLIRParserHazard(const std::string &text, unsigned &line,
                                       unsigned &column) {
  auto isWord = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.';
  };
  for (size_t at = text.find("array<"); at != std::string::npos;
       at = text.find("array<", at + 1)) {
    if (at > 0 && isWord(text[at - 1]))
      continue; // part of a longer name
    size_t t = at + 6;
    while (t < text.size() && (text[t] == ' ' || text[t] == '\t' ||
                               text[t] == '\n' || text[t] == '\r'))
      ++t;
    if (text.compare(t, 5, "index") != 0 ||
        (t + 5 < text.size() && isWord(text[t + 5])))
      continue;
    line = 1;
    column = 1;
    for (size_t i = 0; i < at; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return "dense arrays of index (array<index ...>) are not supported: "
           "MLIR's parser cannot read them; use i64";
  }
  return "";
}

namespace {

/// Reads `fd` until end of file or more than `maxBytes`; false on a read
/// error (errno set) or when more than `maxBytes` are available.
bool readAll(int fd, std::string &contents, uint64_t maxBytes, bool &tooBig) {
  tooBig = false;
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    if (n == 0)
      return true;
    if (contents.size() + uint64_t(n) > maxBytes) {
      tooBig = true;
      return false;
    }
    contents.append(chunk, size_t(n));
  }
}

} // namespace

bool kite::readInputFile(const std::string &path, std::string &contents,
                         std::string &error, uint64_t maxBytes) {
  contents.clear();
  bool tooBig = false;
  if (path == "-") {
    if (readAll(STDIN_FILENO, contents, maxBytes, tooBig))
      return true;
    error = tooBig ? "standard input is larger than " +
                         describeBytes(maxBytes) + ", the limit of an input"
                   : std::string("cannot read standard input: ") +
                         std::strerror(errno);
    contents.clear();
    return false;
  }
  // O_NONBLOCK: opening a FIFO with no writer must not hang; it is then
  // refused below as not a regular file.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == EISDIR) {
      error = "'" + path + "' is a directory, not a file";
      return false;
    }
    error = "cannot read '" + path + "': " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    ::close(fd);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    error = "'" + path + "' is a directory, not a file";
    ::close(fd);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    const char *what = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    error = "'" + path + "' is " + what +
            ", not a regular file (give a file, or '-' for standard input)";
    ::close(fd);
    return false;
  }
  if (uint64_t(st.st_size) > maxBytes) {
    error = "'" + path + "' is " + describeBytes(uint64_t(st.st_size)) +
            ", larger than " + describeBytes(maxBytes) +
            ", the limit of an input";
    ::close(fd);
    return false;
  }
  contents.reserve(size_t(st.st_size));
  bool ok = readAll(fd, contents, maxBytes, tooBig);
  int savedErrno = errno;
  ::close(fd);
  if (ok)
    return true;
  contents.clear();
  error = tooBig ? "'" + path + "' grew past " + describeBytes(maxBytes) +
                       " while being read"
                 : "cannot read '" + path + "': " + std::strerror(savedErrno);
  return false;
}
