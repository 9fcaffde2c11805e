//===- DiskCache.h - Compiled kernels on disk -------------------*- C++ -*-===//
//
// One file per entry, named by the hex SHA-256 of its key text, holding a
// header (magic, the full key, payload size and checksum) and the payload.
// Writes go to a unique temporary file renamed over the entry, so readers
// (other threads, other processes) see a whole entry or none. A read that
// finds anything unexpected (short file, wrong key, bad checksum) reports a
// miss: the caller recompiles and rewrites the entry.
//
// Directory: $KITE_CACHE_DIR, else $XDG_CACHE_HOME/kite, else ~/.cache/kite.
// KITE_CACHE_DISABLE=1 turns the disk cache off.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_DISKCACHE_H
#define KITE_LIB_RUNTIME_DISKCACHE_H

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kite::cache {

/// The directory entries live in (created on demand); empty if disabled.
std::string directory();

/// Hex SHA-256 of `text`.
std::string hashHex(const std::string &text);

/// The payload stored under `key`, if a valid entry exists.
std::optional<std::string> read(const std::string &key,
                                const std::string &suffix);

/// Every valid entry with `suffix`: (key, payload), sorted by key.
std::vector<std::pair<std::string, std::string>>
readAll(const std::string &suffix);

/// Stores `payload` under `key` atomically; failures are silent (the cache
/// is an optimization).
void write(const std::string &key, const std::string &suffix,
           const std::string &payload);

/// write() into `dir` (a directory() of earlier: a background compile
/// writes where the launch that started it would have); nothing if empty.
void writeIn(const std::string &dir, const std::string &key,
             const std::string &suffix, const std::string &payload);

/// The path of the entry for `key` (whether or not it exists).
std::string entryPath(const std::string &key, const std::string &suffix);

} // namespace kite::cache

#endif // KITE_LIB_RUNTIME_DISKCACHE_H
