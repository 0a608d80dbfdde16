#include "sim/engine/op_cache_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace scoville::engine {

namespace fs = std::filesystem;

namespace {

// Bump the version when the format changes: old entries then fail the header check and are misses.
constexpr std::string_view kMagic = "scoville-op-cache 1\n";
constexpr std::string_view kEntryExtension = ".op";
constexpr std::string_view kTemporaryMarker = ".tmp.";
constexpr size_t kHashDigits = 32;

// ---- hashing ----------------------------------------------------------------------------------

constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

uint64_t fnv1a64(std::string_view bytes) {
  uint64_t h = kFnvOffsetBasis;
  for (const unsigned char c : bytes) {
    h ^= c;
    h *= kFnvPrime;
  }
  return h;
}

// The MurmurHash3 finaliser: a bijection that spreads every input bit over the whole word.
uint64_t fmix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// A second hash of a different construction from FNV-1a (other constants, a rotation, the length
// in the seed), so that a pair of keys colliding in one half of the name is no likelier to
// collide in the other.
uint64_t mix_hash64(std::string_view bytes) {
  uint64_t h =
      0x9e3779b97f4a7c15ULL ^ (static_cast<uint64_t>(bytes.size()) * 0xbf58476d1ce4e5b9ULL);
  for (const unsigned char c : bytes) h = rotl64(h ^ c, 23) * 0x94d049bb133111ebULL;
  return fmix64(h);
}

// Any single changed byte changes FNV-1a (each step is a bijection of the state), and fmix64
// keeps that while spreading the difference.
uint64_t checksum64(std::string_view bytes) { return fmix64(fnv1a64(bytes)); }

std::string hex64(uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[static_cast<size_t>(i)] = kDigits[v & 0xf];
  return out;
}

// ---- entry format -----------------------------------------------------------------------------
//   scoville-op-cache 1\n key <n>\n <key bytes>\n value <m>\n <value bytes>\n checksum <16 hex>\n
// The lengths make arbitrary bytes (newlines, NUL) safe; the checksum covers everything before it.

std::string encode_entry(const std::string& key, const std::string& value) {
  std::string out;
  out.reserve(kMagic.size() + key.size() + value.size() + 96);
  out += kMagic;
  out += "key " + std::to_string(key.size()) + "\n";
  out += key;
  out += "\nvalue " + std::to_string(value.size()) + "\n";
  out += value;
  out += "\n";
  out += "checksum " + hex64(checksum64(out)) + "\n";
  return out;
}

// Reads an entry front to back; any deviation from the format makes it fail (and stay failed).
class EntryReader {
 public:
  explicit EntryReader(std::string_view text) : text_(text) {}

  bool ok() const { return ok_; }
  size_t position() const { return pos_; }
  bool at_end() const { return pos_ == text_.size(); }

  void expect(std::string_view literal) {
    if (!ok_ || text_.substr(pos_, literal.size()) != literal) return fail();
    pos_ += literal.size();
  }

  // A decimal length ended by '\n', at most the bytes left (so a corrupt length cannot make a
  // huge allocation or overflow).
  size_t length() {
    size_t n = 0;
    size_t digits = 0;
    while (ok_ && pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      n = n * 10 + static_cast<size_t>(text_[pos_++] - '0');
      if (++digits > 18) fail();
    }
    if (digits == 0 || n > text_.size() - pos_) fail();
    expect("\n");
    return ok_ ? n : 0;
  }

  std::string_view bytes(size_t n) {
    if (!ok_ || n > text_.size() - pos_) {
      fail();
      return {};
    }
    const std::string_view out = text_.substr(pos_, n);
    pos_ += n;
    return out;
  }

 private:
  void fail() { ok_ = false; }

  std::string_view text_;
  size_t pos_ = 0;
  bool ok_ = true;
};

struct StoredEntry {
  std::string_view key;
  std::string_view value;
};

// The key and value if text is a complete, intact entry (views into text).
std::optional<StoredEntry> parse_entry(std::string_view text) {
  EntryReader in(text);
  in.expect(kMagic);
  in.expect("key ");
  const std::string_view stored_key = in.bytes(in.length());
  in.expect("\nvalue ");
  const std::string_view value = in.bytes(in.length());
  in.expect("\n");
  const size_t covered = in.position();
  in.expect("checksum ");
  const std::string_view sum = in.bytes(16);
  in.expect("\n");
  if (!in.ok() || !in.at_end()) return std::nullopt;
  if (sum != hex64(checksum64(text.substr(0, covered)))) return std::nullopt;
  return StoredEntry{stored_key, value};
}

// The value if text is a complete, intact entry for exactly this key.
std::optional<std::string> decode_entry(std::string_view text, const std::string& key) {
  const std::optional<StoredEntry> entry = parse_entry(text);
  // A different key under this name is a 128-bit hash collision (or a file put there by hand).
  if (!entry || entry->key != key) return std::nullopt;
  return std::string(entry->value);
}

// ---- file names -------------------------------------------------------------------------------

bool is_hex_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

bool is_hash(std::string_view s) {
  if (s.size() != kHashDigits) return false;
  for (const char c : s)
    if (!is_hex_digit(c)) return false;
  return true;
}

// A fan-out directory is named by the first two digits of its entries' hashes.
bool is_fanout_name(const std::string& name) {
  return name.size() == 2 && is_hex_digit(name[0]) && is_hex_digit(name[1]);
}

// "<hash>.op" inside the fan-out directory its first two digits name.
bool is_entry_name(std::string_view name, std::string_view fanout) {
  return name.size() == kHashDigits + kEntryExtension.size() &&
         is_hash(name.substr(0, kHashDigits)) && name.substr(kHashDigits) == kEntryExtension &&
         name.substr(0, 2) == fanout;
}

// "<hash>.op.tmp.<anything>": a put's temporary (see temporary_path_for).
bool is_temporary_name(std::string_view name, std::string_view fanout) {
  const size_t entry_size = kHashDigits + kEntryExtension.size();
  return name.size() > entry_size + kTemporaryMarker.size() &&
         is_entry_name(name.substr(0, entry_size), fanout) &&
         name.substr(entry_size, kTemporaryMarker.size()) == kTemporaryMarker;
}

// Random once per process: pid and counter alone repeat across containers sharing a cache
// volume (separate pid namespaces), and across a crash and pid reuse.
uint64_t process_nonce() {
  static const uint64_t nonce = [] {
    uint64_t seed =
        static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
    try {
      std::random_device device;
      seed ^= (static_cast<uint64_t>(device()) << 32) ^ device();
    } catch (const std::exception&) {
      // No entropy source: the clock and the pid still make a clash unlikely.
    }
    return fmix64(seed);
  }();
  return nonce;
}

// Unique per writer: the pid (a forked child differs from its parent, which shares the nonce), a
// per-process nonce, and a counter shared by the process's threads.
std::string temporary_path_for(const std::string& entry) {
  static std::atomic<uint64_t> counter{0};
  return entry + std::string(kTemporaryMarker) + std::to_string(::getpid()) + "." +
         hex64(process_nonce()).substr(0, 8) + "." + std::to_string(counter.fetch_add(1));
}

// ---- file I/O ---------------------------------------------------------------------------------

std::optional<std::string> read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string content;
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    content.reserve(static_cast<size_t>(info.st_size));
  }
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    content.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return content;
}

bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Writes a new file; O_EXCL, so two writers can never share one temporary. No fsync: an entry
// is a cache line, not a result. A killed writer leaves the page cache intact, and what a power
// loss can leave (a short or zeroed entry) fails its checksum on read, counts as a miss and is
// replaced by the next put. Two fsyncs per entry (file and directory) cost 5.7 ms on this
// project's machines, as much as simulating the op: a cold study wrote 450,000 entries.
// Returns 0 or the errno of the step that failed (having removed the partial file).
int write_new_file(const std::string& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  int error = 0;
  if (!write_all(fd, content)) error = errno;
  // close() can report a deferred write error (e.g. on NFS).
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) ::unlink(path.c_str());
  return error;
}

std::string describe(const std::string& what, const std::string& path, int error) {
  return what + " '" + path + "': " + std::strerror(error);
}

// Calls visit(path, name, fanout) for every file in every fan-out directory; a directory that is
// missing or vanishes midway (a concurrent clear) just ends its part of the walk.
template <typename Visit>
void for_each_cache_file(const std::string& directory, Visit visit) {
  std::error_code ec;
  for (fs::directory_iterator dir(directory, ec), end; !ec && dir != end; dir.increment(ec)) {
    const std::string fanout = dir->path().filename().string();
    std::error_code type_ec;
    if (!is_fanout_name(fanout) || !dir->is_directory(type_ec)) continue;
    std::error_code inner_ec;
    for (fs::directory_iterator file(dir->path(), inner_ec); !inner_ec && file != end;
         file.increment(inner_ec)) {
      visit(file->path(), file->path().filename().string(), fanout);
    }
  }
}

std::optional<std::string> non_empty_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

}  // namespace

std::optional<std::string> default_op_cache_dir() {
  if (auto dir = non_empty_env("SCOVILLE_CACHE_DIR")) return dir;
  // The XDG base directory spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  if (auto xdg = non_empty_env("XDG_CACHE_HOME"); xdg && fs::path(*xdg).is_absolute()) {
    return (fs::path(*xdg) / "scoville" / "ops").string();
  }
  if (auto home = non_empty_env("HOME")) return (fs::path(*home) / ".cache/scoville/ops").string();
  return std::nullopt;
}

std::string op_cache_key_hash(const std::string& key) {
  return hex64(fnv1a64(key)) + hex64(mix_hash64(key));
}

OpCacheStore::OpCacheStore(std::string directory) : directory_(std::move(directory)) {}

std::string OpCacheStore::entry_path(const std::string& key) const {
  const std::string hash = op_cache_key_hash(key);
  return (fs::path(directory_) / hash.substr(0, 2) / (hash + std::string(kEntryExtension)))
      .string();
}

std::optional<std::string> OpCacheStore::get(const std::string& key) const {
  std::optional<std::string> value;
  if (const auto text = read_file(entry_path(key))) value = decode_entry(*text, key);
  ++(value ? hits_ : misses_);
  return value;
}

bool OpCacheStore::put(const std::string& key, const std::string& value) const {
  const std::string entry = entry_path(key);
  const std::string fanout = fs::path(entry).parent_path().string();
  const std::string content = encode_entry(key, value);
  // Two tries: a concurrent clear() may remove the fan-out directory between its creation and the
  // temporary's.
  for (int attempt = 0;; ++attempt) {
    std::error_code ec;
    fs::create_directories(fanout, ec);
    if (ec) {
      record_write_failure("cannot create '" + fanout + "': " + ec.message());
      return false;
    }
    const std::string temporary = temporary_path_for(entry);
    const int error = write_new_file(temporary, content);
    if (error == ENOENT && attempt == 0) continue;
    if (error != 0) {
      record_write_failure(describe("cannot write", temporary, error));
      return false;
    }
    // link() creates the entry only where none exists, in one step: the first value stored for
    // a key stays, so every process that reads it back prices the op alike (an op simulated
    // twice can differ in its last bits: sim/engine/simulated_op_cost.hpp). A file system
    // without hard links, and an entry that is damaged or another key's, fall to rename(), which
    // replaces the entry in one step: readers see the old entry or the new one.
    if (::link(temporary.c_str(), entry.c_str()) == 0) {
      ::unlink(temporary.c_str());
      ++writes_;
      return true;
    }
    if (errno == EEXIST) {
      if (const auto text = read_file(entry)) {
        if (decode_entry(*text, key)) {
          ::unlink(temporary.c_str());
          return true;  // this key's entry is there already: it stays
        }
      }
    }
    if (::rename(temporary.c_str(), entry.c_str()) != 0) {
      const int rename_error = errno;
      ::unlink(temporary.c_str());
      if (rename_error == ENOENT && attempt == 0) continue;
      record_write_failure(describe("cannot rename onto", entry, rename_error));
      return false;
    }
    ++writes_;
    return true;
  }
}

int64_t OpCacheStore::clear() const {
  int64_t removed = 0;
  std::vector<fs::path> fanouts;
  for_each_cache_file(
      directory_, [&](const fs::path& path, const std::string& name, const std::string& fanout) {
        const bool entry = is_entry_name(name, fanout);
        if (!entry && !is_temporary_name(name, fanout)) return;
        std::error_code ec;
        // Counts only what this call removed: a concurrent clear may have taken the file first.
        if (fs::remove(path, ec) && entry) ++removed;
        if (fanouts.empty() || fanouts.back() != path.parent_path()) {
          fanouts.push_back(path.parent_path());
        }
      });
  // Only empty ones go (rmdir refuses the others), so files that are not ours keep their place.
  for (const fs::path& dir : fanouts) {
    std::error_code ec;
    fs::remove(dir, ec);
  }
  return removed;
}

int64_t OpCacheStore::entries() const {
  int64_t count = 0;
  for_each_cache_file(directory_,
                      [&](const fs::path&, const std::string& name, const std::string& fanout) {
                        if (is_entry_name(name, fanout)) ++count;
                      });
  return count;
}

int64_t OpCacheStore::remove_unless(const std::function<bool(std::string_view key)>& keep) const {
  int64_t removed = 0;
  for_each_cache_file(
      directory_, [&](const fs::path& path, const std::string& name, const std::string& fanout) {
        if (!is_entry_name(name, fanout)) return;
        const std::optional<std::string> text = read_file(path.string());
        if (!text) return;  // gone meanwhile (a concurrent clear), or unreadable: left alone
        const std::optional<StoredEntry> entry = parse_entry(*text);
        if (entry && keep(entry->key)) return;
        std::error_code ec;
        if (fs::remove(path, ec)) ++removed;
      });
  return removed;
}

std::string OpCacheStore::last_write_error() const {
  const std::lock_guard<std::mutex> lock(error_mutex_);
  return last_write_error_;
}

void OpCacheStore::record_write_failure(const std::string& reason) const {
  ++write_failures_;
  const std::lock_guard<std::mutex> lock(error_mutex_);
  last_write_error_ = reason;
}

}  // namespace scoville::engine
