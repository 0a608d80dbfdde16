// The persistent op cache store: round trips of arbitrary bytes, corrupt entries as misses,
// persistence across store objects, concurrent writers, stray temporaries, unwritable places and
// where the cache lives by default.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sim/engine/op_cache_store.hpp"

using namespace scoville::engine;
namespace fs = std::filesystem;

namespace {

// A fresh directory per test, removed at the end; unique per process because ctest runs the test
// cases as parallel processes.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() / ("scoville_op_cache_test_" + std::to_string(::getpid()) +
                                         "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string str() const { return path_.string(); }
  fs::path path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Every regular file under root whose name marks it as a put's temporary.
std::vector<fs::path> temporaries_under(const fs::path& root) {
  std::vector<fs::path> found;
  for (const auto& item : fs::recursive_directory_iterator(root)) {
    if (item.is_regular_file() &&
        item.path().filename().string().find(".tmp.") != std::string::npos)
      found.push_back(item.path());
  }
  return found;
}

// A value with bytes a text format would mangle.
std::string awkward_value() {
  std::string v = "line one\nline two\r\n";
  v += std::string("\0\0nul\0", 6);
  for (int c = 0; c < 256; ++c) v += static_cast<char>(c);
  return v;
}

std::string key_for(int i) { return "op=matmul m=" + std::to_string(i) + " chip=h100 v=1"; }
std::string value_for(int i) {
  return "time=" + std::to_string(i * 7) + std::string(1, '\0') + "ok";
}

// Sets or unsets an environment variable for a scope, then restores it.
class EnvOverride {
 public:
  EnvOverride(std::string name, const char* value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) saved_ = std::string(old);
    if (value != nullptr) {
      ::setenv(name_.c_str(), value, 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ~EnvOverride() {
    if (saved_) {
      ::setenv(name_.c_str(), saved_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  EnvOverride(const EnvOverride&) = delete;
  EnvOverride& operator=(const EnvOverride&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

}  // namespace

TEST_CASE("the op cache round-trips arbitrary bytes and counts hits, misses and writes",
          "[op_cache_store]") {
  TempDir dir;
  const std::string root = (dir.path() / "cache").string();
  OpCacheStore store(root);
  CHECK(store.directory() == root);
  CHECK_FALSE(fs::exists(root));  // nothing on disk until the first put
  CHECK(store.entries() == 0);
  CHECK_FALSE(store.get("absent"));
  CHECK(store.misses() == 1);

  const std::string key_with_nul = std::string("key\0with nul\nand newline", 24);
  const std::string big(1 << 20, 'x');
  std::string big_varied = big;
  for (size_t i = 0; i < big_varied.size(); i += 4093) big_varied[i] = static_cast<char>(i);

  REQUIRE(store.put("a", awkward_value()));
  REQUIRE(store.put(key_with_nul, ""));
  REQUIRE(store.put("big", big_varied));
  CHECK(store.writes() == 3);
  CHECK(store.write_failures() == 0);
  CHECK(store.entries() == 3);

  CHECK(store.get("a") == awkward_value());
  CHECK(store.get(key_with_nul) == std::string());
  CHECK(store.get("big") == big_varied);
  CHECK_FALSE(store.get("b"));
  CHECK_FALSE(store.get(std::string("key\0with nul\nand newlinE", 24)));
  CHECK(store.hits() == 3);
  CHECK(store.misses() == 3);

  // The layout: <dir>/<2 hex>/<32 hex>.op.
  const fs::path entry = store.entry_path("a");
  const std::string hash = op_cache_key_hash("a");
  CHECK(hash.size() == 32);
  CHECK(entry == fs::path(root) / hash.substr(0, 2) / (hash + ".op"));
  CHECK(fs::is_regular_file(entry));
  CHECK(read_bytes(entry).rfind("scoville-op-cache 1\n", 0) == 0);

  // A second put keeps the first value: every writer of a key reads back the same one.
  const std::optional<std::string> first = store.get("a");
  REQUIRE(first);
  REQUIRE(store.put("a", "replaced"));
  CHECK(store.get("a") == first);
  CHECK(store.entries() == 3);
}

TEST_CASE("truncated, flipped and colliding op cache entries are misses", "[op_cache_store]") {
  TempDir dir;
  OpCacheStore store(dir.str());
  const std::string key = "op=attention heads=8";
  const std::string value = "value with\nnewline and " + std::string(1, '\0') + " nul";
  REQUIRE(store.put(key, value));
  const fs::path entry = store.entry_path(key);
  const std::string intact = read_bytes(entry);

  SECTION("a truncated entry") {
    for (const size_t cut : {size_t{0}, size_t{1}, size_t{10}, intact.size() / 2,
                             intact.size() - 18, intact.size() - 2, intact.size() - 1}) {
      INFO("cut at " << cut << " of " << intact.size());
      write_bytes(entry, intact.substr(0, cut));
      CHECK_FALSE(store.get(key));
    }
  }
  SECTION("every single flipped byte") {
    for (size_t i = 0; i < intact.size(); ++i) {
      INFO("byte " << i << " of " << intact.size());
      std::string damaged = intact;
      damaged[i] = static_cast<char>(damaged[i] ^ 0x01);
      write_bytes(entry, damaged);
      CHECK_FALSE(store.get(key));
      damaged[i] = static_cast<char>(intact[i] ^ 0xff);
      write_bytes(entry, damaged);
      CHECK_FALSE(store.get(key));
    }
  }
  SECTION("trailing bytes after the checksum") {
    write_bytes(entry, intact + "x");
    CHECK_FALSE(store.get(key));
  }
  SECTION("another key's entry under this key's name (a hash collision)") {
    REQUIRE(store.put("some other key", value));
    write_bytes(entry, read_bytes(store.entry_path("some other key")));
    CHECK_FALSE(store.get(key));
    CHECK(store.get("some other key") == value);  // the other key's own entry is unaffected
  }
  SECTION("a directory where the entry file should be") {
    fs::remove(entry);
    fs::create_directory(entry);
    CHECK_FALSE(store.get(key));
  }
  CHECK(store.write_failures() == 0);
  // Rewriting repairs a damaged entry.
  fs::remove_all(entry);
  REQUIRE(store.put(key, value));
  CHECK(store.get(key) == value);
}

TEST_CASE("pruning keeps the entries a predicate accepts and drops damaged ones",
          "[op_cache_store]") {
  TempDir dir;
  const OpCacheStore store(dir.str());
  REQUIRE(store.put("chip\nchip-model new\nop a", "1"));
  REQUIRE(store.put("chip\nchip-model new\nop b", "2"));
  REQUIRE(store.put("chip\nchip-model old\nop a", "3"));
  REQUIRE(store.put("chip\nchip-model new\nop c", "4"));
  const fs::path damaged = store.entry_path("chip\nchip-model new\nop c");
  write_bytes(damaged, read_bytes(damaged).substr(0, 20));
  const auto current = [](std::string_view key) {
    return key.find("\nchip-model new\n") != std::string_view::npos;
  };
  CHECK(store.remove_unless(current) == 2);  // the old version's and the damaged one
  CHECK(store.entries() == 2);
  CHECK(store.get("chip\nchip-model new\nop a") == "1");
  CHECK(store.get("chip\nchip-model new\nop b") == "2");
  CHECK_FALSE(store.get("chip\nchip-model old\nop a"));
  CHECK(store.remove_unless(current) == 0);
  CHECK(OpCacheStore((dir.path() / "absent").string()).remove_unless(current) == 0);
}

TEST_CASE("op cache entries persist across store objects", "[op_cache_store]") {
  TempDir dir;
  {
    OpCacheStore writer(dir.str());
    for (int i = 0; i < 20; ++i) REQUIRE(writer.put(key_for(i), value_for(i)));
  }
  const OpCacheStore reader(dir.str());
  CHECK(reader.entries() == 20);
  for (int i = 0; i < 20; ++i) CHECK(reader.get(key_for(i)) == value_for(i));
  CHECK(reader.hits() == 20);
  CHECK(reader.writes() == 0);  // the counters are per object
}

TEST_CASE("concurrent processes writing the same op cache keys leave intact entries",
          "[op_cache_store]") {
  TempDir dir;
  constexpr int kChildren = 4;
  constexpr int kShared = 50;
  std::vector<pid_t> children;
  for (int child = 0; child < kChildren; ++child) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // The child: its own store, every shared key with this child's own keys interleaved; the
      // exit status says whether every put succeeded. _exit skips Catch2's teardown.
      OpCacheStore store(dir.str());
      bool ok = true;
      for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < kShared; ++i) {
          ok = store.put(key_for(i), value_for(i)) && ok;
          const int own = 1000 * (child + 1) + i;
          ok = store.put(key_for(own), value_for(own)) && ok;
        }
      }
      ::_exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  const OpCacheStore store(dir.str());
  for (int i = 0; i < kShared; ++i) CHECK(store.get(key_for(i)) == value_for(i));
  for (int child = 0; child < kChildren; ++child) {
    for (int i = 0; i < kShared; ++i) {
      const int own = 1000 * (child + 1) + i;
      CHECK(store.get(key_for(own)) == value_for(own));
    }
  }
  CHECK(store.misses() == 0);
  CHECK(store.entries() == kShared * (kChildren + 1));
  CHECK(temporaries_under(dir.path()).empty());
}

TEST_CASE("threads sharing one op cache store write without clashing", "[op_cache_store]") {
  TempDir dir;
  const OpCacheStore store(dir.str());
  constexpr int kThreads = 4;
  constexpr int kKeys = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&store] {
      for (int i = 0; i < kKeys; ++i) {
        store.put(key_for(i), value_for(i));
        store.get(key_for((i * 7) % kKeys));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(store.writes() == kKeys);  // each key is created once; the other puts find it there
  CHECK(store.write_failures() == 0);
  CHECK(store.hits() + store.misses() == kThreads * kKeys);
  for (int i = 0; i < kKeys; ++i) CHECK(store.get(key_for(i)) == value_for(i));
  CHECK(temporaries_under(dir.path()).empty());
}

TEST_CASE("the first op cache value stays and a damaged entry is replaced", "[op_cache_store]") {
  TempDir dir;
  const OpCacheStore store(dir.str());
  REQUIRE(store.put("k", "first"));
  REQUIRE(store.put("k", "second"));
  CHECK(store.get("k") == std::string("first"));
  // Damage the entry: the next put replaces it.
  { std::ofstream(store.entry_path("k"), std::ios::trunc) << "scoville-op-cache 1\ngarbage"; }
  CHECK(!store.get("k"));
  REQUIRE(store.put("k", "third"));
  CHECK(store.get("k") == std::string("third"));
  CHECK(temporaries_under(dir.path()).empty());
}

TEST_CASE("a killed writer's temporary is ignored by op cache get and removed by clear",
          "[op_cache_store]") {
  TempDir dir;
  const OpCacheStore store(dir.str());
  REQUIRE(store.put("kept", "value"));
  REQUIRE(store.put("also kept", "value 2"));
  // What a writer killed mid-write leaves: half an entry under a temporary name, no entry.
  const std::string entry = store.entry_path("interrupted");
  fs::create_directories(fs::path(entry).parent_path());
  const fs::path temporary = entry + ".tmp.12345.deadbeef.0";
  write_bytes(temporary, "scoville-op-cache 1\nkey 11\ninterrupted\nvalue 100\npart");
  // Files that are not the cache's: clear leaves them alone.
  const fs::path readme = dir.path() / "README";
  const fs::path foreign = fs::path(entry).parent_path() / "notes.txt";
  write_bytes(readme, "mine");
  write_bytes(foreign, "mine too");

  CHECK_FALSE(store.get("interrupted"));
  CHECK(store.entries() == 2);
  CHECK(store.clear() == 2);
  CHECK_FALSE(fs::exists(temporary));
  CHECK(temporaries_under(dir.path()).empty());
  CHECK(store.entries() == 0);
  CHECK_FALSE(store.get("kept"));
  CHECK(fs::exists(readme));
  CHECK(fs::exists(foreign));
  CHECK(store.clear() == 0);
  // The store still works after a clear.
  REQUIRE(store.put("kept", "again"));
  CHECK(store.get("kept") == std::string("again"));
}

TEST_CASE("an unwritable op cache makes put fail quietly", "[op_cache_store]") {
  TempDir dir;
  const fs::path file = dir.path() / "a_regular_file";
  write_bytes(file, "not a directory");
  const OpCacheStore store((file / "cache").string());
  bool stored = true;
  CHECK_NOTHROW(stored = store.put("key", "value"));
  CHECK_FALSE(stored);
  CHECK(store.write_failures() == 1);
  CHECK(store.writes() == 0);
  CHECK_FALSE(store.last_write_error().empty());
  CHECK_FALSE(store.get("key"));
  CHECK(store.entries() == 0);
  CHECK(store.clear() == 0);
  CHECK(read_bytes(file) == "not a directory");
}

TEST_CASE("the default op cache directory follows the environment", "[op_cache_store]") {
  EnvOverride home("HOME", "/home/someone");
  EnvOverride xdg("XDG_CACHE_HOME", "/xdg/cache");
  {
    EnvOverride scoville("SCOVILLE_CACHE_DIR", "/explicit/ops");
    CHECK(default_op_cache_dir() == std::string("/explicit/ops"));
  }
  {
    EnvOverride scoville("SCOVILLE_CACHE_DIR", "");  // empty means unset
    CHECK(default_op_cache_dir() == std::string("/xdg/cache/scoville/ops"));
  }
  EnvOverride scoville("SCOVILLE_CACHE_DIR", nullptr);
  CHECK(default_op_cache_dir() == std::string("/xdg/cache/scoville/ops"));
  {
    EnvOverride relative("XDG_CACHE_HOME", "relative/cache");  // invalid per the XDG spec
    CHECK(default_op_cache_dir() == std::string("/home/someone/.cache/scoville/ops"));
  }
  {
    EnvOverride unset("XDG_CACHE_HOME", nullptr);
    CHECK(default_op_cache_dir() == std::string("/home/someone/.cache/scoville/ops"));
    EnvOverride no_home("HOME", nullptr);
    CHECK_FALSE(default_op_cache_dir());
  }
}
