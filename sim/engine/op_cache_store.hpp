// The persistent op cache of DESIGN.md §2a: a content-addressed key → value store on disk, shared
// by every process (sweep workers, MPI ranks, later runs) that prices the same ops.
//
// Layout: <directory>/<h[0:2]>/<h>.op, where h is 32 hex digits of a 128-bit hash of the key; the
// two-digit fan-out keeps directories small. An entry file holds a version line, the full key, the
// value and a checksum, so a reader accepts only a complete entry for exactly its key: a truncated
// file, a flipped byte or a hash collision is a miss, never an error.
//
// Writes go to a uniquely named temporary in the entry's directory, are fsynced, and are renamed
// over the entry, so concurrent writers (threads or processes) never leave a torn entry and a
// writer killed mid-write leaves at most a temporary, which readers never open. A cache that
// cannot be written (read-only, full, a path under a file) only costs speed: put() returns false
// and counts the failure.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace scoville::engine {

// Where the op cache lives: $SCOVILLE_CACHE_DIR if set and non-empty, else
// $XDG_CACHE_HOME/scoville/ops (XDG_CACHE_HOME must be absolute, as the XDG spec says), else
// $HOME/.cache/scoville/ops; std::nullopt when none of these can be formed.
std::optional<std::string> default_op_cache_dir();

// The 128-bit content address of a key: 32 lower-case hex digits (two independent 64-bit hashes).
std::string op_cache_key_hash(const std::string& key);

// All members are safe to call from several threads at once; several stores (in one or many
// processes) may share a directory. Not copyable or movable (it holds atomics and a mutex).
class OpCacheStore {
 public:
  // Touches nothing on disk: the directory is created (mkdir -p) by the first put().
  explicit OpCacheStore(std::string directory);
  OpCacheStore(const OpCacheStore&) = delete;
  OpCacheStore& operator=(const OpCacheStore&) = delete;

  // The value stored under key, or nullopt when missing, unreadable or corrupt.
  std::optional<std::string> get(const std::string& key) const;

  // Stores value (arbitrary bytes) under key atomically unless a valid entry for key exists
  // already: the first value stored stays (until clear()), so concurrent writers of one key all
  // end up reading the same value. A damaged or colliding entry is replaced. Returns true when
  // key has a valid entry afterwards. Never throws for I/O: returns false, counts a write
  // failure and keeps the reason (last_write_error).
  bool put(const std::string& key, const std::string& value) const;

  // Removes every entry and every temporary (of a killed writer, or of a put racing this clear,
  // which then fails harmlessly) and the fan-out directories left empty; returns the number of
  // entries removed. Files that are not the cache's own are left alone.
  int64_t clear() const;

  // The number of entry files now in the directory (0 when it does not exist).
  int64_t entries() const;

  // Removes every entry whose stored key `keep` rejects, and every damaged entry (unreadable,
  // truncated, bad checksum); returns the number removed. Entries written meanwhile by other
  // processes may or may not be looked at; a removed entry is only a future miss.
  int64_t remove_unless(const std::function<bool(std::string_view key)>& keep) const;

  // Where key's entry lives (whether or not it exists): for tests and diagnostics.
  std::string entry_path(const std::string& key) const;

  const std::string& directory() const { return directory_; }

  int64_t hits() const { return hits_.load(); }
  int64_t misses() const { return misses_.load(); }
  int64_t writes() const { return writes_.load(); }
  int64_t write_failures() const { return write_failures_.load(); }
  // Why the latest failed put failed ("" when none has): for a one-time warning to the user.
  std::string last_write_error() const;

 private:
  void record_write_failure(const std::string& reason) const;

  std::string directory_;
  mutable std::atomic<int64_t> hits_{0};
  mutable std::atomic<int64_t> misses_{0};
  mutable std::atomic<int64_t> writes_{0};
  mutable std::atomic<int64_t> write_failures_{0};
  mutable std::mutex error_mutex_;
  mutable std::string last_write_error_;
};

}  // namespace scoville::engine
