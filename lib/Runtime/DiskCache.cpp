//===- DiskCache.cpp - Compiled kernels on disk ----------------------------===//

#include "Environment.h"
#include "DiskCache.h"
#include "Compile.h"


#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace kite;

static constexpr char kMagic[] = "KITE-CACHE-1\n";

std::string cache::hashHex(const std::string &text) {
  llvm::SHA256 sha;
  sha.update(llvm::StringRef(text));
  auto digest = sha.final();
  static const char *hex = "0123456789abcdef";
  std::string s;
  for (uint8_t b : digest) {
    s += hex[b >> 4];
    s += hex[b & 15];
  }
  return s;
}

static bool makeDirs(const std::string &path) {
  std::string partial;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || (path[i] == '/' && i > 0)) {
      partial = path.substr(0, i);
      if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
        return false;
    }
  }
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string cache::directory() {
  return ::kite::detail::readEnvironment().cacheDir;
}

std::string cache::entryPath(const std::string &key,
                             const std::string &suffix) {
  std::string dir = directory();
  if (dir.empty())
    return "";
  return dir + "/" + hashHex(key) + "." + suffix;
}

/// 64-bit FNV-1a, the payload checksum.
static uint64_t checksum(const std::string &s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

static std::string header(const std::string &key, const std::string &payload) {
  return std::string(kMagic) + std::to_string(key.size()) + "\n" + key + "\n" +
         std::to_string(payload.size()) + " " +
         std::to_string(checksum(payload)) + "\n";
}

/// Parses an entry's bytes: (key, payload), or none when anything is off.
static std::optional<std::pair<std::string, std::string>>
parseEntry(const std::string &data) {
  // Magic, key length, key, payload size and checksum, payload.
  size_t pos = sizeof(kMagic) - 1;
  if (data.compare(0, pos, kMagic) != 0)
    return std::nullopt;
  size_t nl = data.find('\n', pos);
  if (nl == std::string::npos)
    return std::nullopt;
  char *end = nullptr;
  unsigned long long keyLen = std::strtoull(data.c_str() + pos, &end, 10);
  if (end != data.c_str() + nl)
    return std::nullopt;
  pos = nl + 1;
  if (keyLen > data.size() || data.size() < pos + keyLen + 1 ||
      data[pos + keyLen] != '\n')
    return std::nullopt;
  std::string key = data.substr(pos, keyLen);
  pos += keyLen + 1;
  nl = data.find('\n', pos);
  if (nl == std::string::npos)
    return std::nullopt;
  unsigned long long size = 0, sum = 0;
  if (std::sscanf(data.c_str() + pos, "%llu %llu", &size, &sum) != 2)
    return std::nullopt;
  pos = nl + 1;
  if (data.size() - pos != size)
    return std::nullopt;
  std::string payload = data.substr(pos);
  if (checksum(payload) != sum)
    return std::nullopt;
  return std::make_pair(std::move(key), std::move(payload));
}

/// The largest entry read (a cubin or PTX is far smaller): anything larger is
/// not one of ours.
static constexpr off_t kMaxEntryBytes = off_t(1) << 30;

/// The bytes of the entry at `path`, or none (a miss) for anything but a
/// regular file of at most kMaxEntryBytes: a FIFO or device put in the
/// cache's place must not block or exhaust memory (opened without
/// blocking, checked with fstat, read to the size it had then); a link is
/// not followed (entries are written by rename, never as links).
static std::optional<std::string> slurp(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  auto miss = [&](const char *why) -> std::optional<std::string> {
    if (::kite::detail::tracing())
      std::fprintf(stderr, "kite: cache: ignoring '%s': %s\n", path.c_str(),
                   why);
    ::close(fd);
    return std::nullopt;
  };
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return miss("cannot stat it");
  if (!S_ISREG(st.st_mode))
    return miss("not a regular file");
  if (st.st_size > kMaxEntryBytes)
    return miss("larger than any entry");
  std::string data(size_t(st.st_size), '\0');
  size_t got = 0;
  while (got < data.size()) {
    ssize_t n = ::read(fd, data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return miss("read failed");
    got += size_t(n);
  }
  ::close(fd);
  return data;
}

std::optional<std::string> cache::read(const std::string &key,
                                       const std::string &suffix) {
  std::string path = entryPath(key, suffix);
  if (path.empty())
    return std::nullopt;
  auto data = slurp(path);
  if (!data)
    return std::nullopt;
  auto entry = parseEntry(*data);
  if (!entry || entry->first != key)
    return std::nullopt;
  return std::move(entry->second);
}

std::vector<std::pair<std::string, std::string>>
cache::readAll(const std::string &suffix) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string dir = directory();
  if (dir.empty())
    return out;
  DIR *d = opendir(dir.c_str());
  if (!d)
    return out;
  std::string tail = "." + suffix;
  while (dirent *e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() <= tail.size() ||
        name.compare(name.size() - tail.size(), tail.size(), tail) != 0)
      continue;
    auto data = slurp(dir + "/" + name);
    if (!data)
      continue;
    // Only entries stored under their own key's name.
    if (auto entry = parseEntry(*data);
        entry && name == hashHex(entry->first) + tail)
      out.push_back(std::move(*entry));
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

void cache::write(const std::string &key, const std::string &suffix,
                  const std::string &payload) {
  writeIn(directory(), key, suffix, payload);
}

void cache::writeIn(const std::string &dir, const std::string &key,
                    const std::string &suffix, const std::string &payload) {
  if (dir.empty() || !makeDirs(dir))
    return;
  std::string path = dir + "/" + hashHex(key) + "." + suffix;
  static std::atomic<unsigned> counter{0};
  std::string tmp = dir + "/.tmp-" + std::to_string(getpid()) + "-" +
                    std::to_string(std::hash<std::thread::id>()(
                        std::this_thread::get_id())) +
                    "-" + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0)
    return;
  std::string data = header(key, payload) + payload;
  size_t done = 0;
  while (done < data.size()) {
    ssize_t w = ::write(fd, data.data() + done, data.size() - done);
    if (w <= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      return;
    }
    done += size_t(w);
  }
  if (::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0)
    ::unlink(tmp.c_str());
}
