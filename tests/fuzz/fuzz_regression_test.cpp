// Replays every fuzz seed and every saved fuzz finding (tests/regressions/<entry>/) through the
// same entry functions the fuzzer drives. An input that once crashed, hung or leaked an
// unexpected exception must now be accepted or rejected with the parser's own error.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_entries.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename().string().rfind('.', 0) != 0)
      out.push_back(e.path());
  }
  return out;
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void replay(const scoville::fuzz::FuzzEntry& entry, const std::vector<fs::path>& inputs) {
  for (const fs::path& input : inputs) {
    INFO("entry " << entry.name << ", input " << input.string());
    const std::string bytes = bytes_of(input);
    REQUIRE_NOTHROW(entry.run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  }
}

}  // namespace

TEST_CASE("every fuzz seed is handled by its entry without an unexpected error", "[fuzz]") {
  for (const scoville::fuzz::FuzzEntry& entry : scoville::fuzz::fuzz_entries()) {
    DYNAMIC_SECTION(entry.name) {
      std::vector<fs::path> seeds;
      for (const std::string& dir : entry.seed_dirs) {
        const std::vector<fs::path> found = files_in(fs::path(SCOVILLE_SOURCE_DIR) / dir);
        seeds.insert(seeds.end(), found.begin(), found.end());
      }
      // An entry without seeds would start the fuzzer blind and make this test vacuous.
      REQUIRE_FALSE(seeds.empty());
      replay(entry, seeds);
    }
  }
}

TEST_CASE("saved fuzz findings stay fixed", "[fuzz]") {
  const fs::path root = fs::path(SCOVILLE_SOURCE_DIR) / "tests" / "regressions";
  // Each folder under tests/regressions names an entry; a stray folder is a mistake.
  for (const fs::path& dir : [&] {
         std::vector<fs::path> dirs;
         for (const fs::directory_entry& e : fs::directory_iterator(root))
           if (e.is_directory()) dirs.push_back(e.path());
         return dirs;
       }()) {
    const scoville::fuzz::FuzzEntry* entry =
        scoville::fuzz::find_fuzz_entry(dir.filename().string());
    INFO("tests/regressions/" << dir.filename().string() << " names no fuzz entry");
    REQUIRE(entry != nullptr);
    replay(*entry, files_in(dir));
  }
}

TEST_CASE("the committed fuzz corpus is handled by its entries", "[fuzz]") {
  // tools/fuzz --save-corpus keeps each entry's minimised corpus in tests/fuzz/corpus/<entry>/
  // (docs/errors.md, "Fuzzing that ends"); every input in it must stay accepted or refused
  // cleanly, like the seeds.
  const fs::path root = fs::path(SCOVILLE_SOURCE_DIR) / "tests" / "fuzz" / "corpus";
  if (!fs::is_directory(root)) return;
  for (const fs::directory_entry& e : fs::directory_iterator(root)) {
    if (!e.is_directory()) continue;
    const scoville::fuzz::FuzzEntry* entry =
        scoville::fuzz::find_fuzz_entry(e.path().filename().string());
    INFO("tests/fuzz/corpus/" << e.path().filename().string() << " names no fuzz entry");
    REQUIRE(entry != nullptr);
    replay(*entry, files_in(e.path()));
  }
}
