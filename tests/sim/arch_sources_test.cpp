// Every number in arch/, workloads/models/, scenarios/ and sweeps/ carries its source or is marked
// an assumption, next to the value (DEVELOPERS.md: "Every constant ... carries its source").
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace {

const std::regex kValueLine(R"(^\s*[A-Za-z0-9_]+:\s*[-+.]?[0-9].*$)");
const std::regex kTag(R"(#.*\[(SPEC|MEAS|VENDOR|SECONDARY|EST|ASSUMPTION)\])");

void check_folder(const std::string& folder) {
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (!std::regex_match(line, kValueLine)) continue;
      INFO(entry.path().string() << ":" << number << ": " << line);
      CHECK(std::regex_search(line, kTag));
    }
  }
  CHECK(files > 0);
}

}  // namespace

TEST_CASE("every number in arch/ carries a source tag", "[sources]") {
  check_folder(std::string(SCOVILLE_SOURCE_DIR) + "/arch");
}

TEST_CASE("every number in workloads/models/ carries a source tag", "[sources]") {
  check_folder(std::string(SCOVILLE_SOURCE_DIR) + "/workloads/models");
}

// Scenarios and sweeps hold constants too (request rates, limits, prices, study choices).
// workloads/traces/ is generated data, not hand-set constants.
TEST_CASE("every number in workloads/scenarios/ and workloads/sweeps/ carries a source tag",
          "[sources]") {
  check_folder(std::string(SCOVILLE_SOURCE_DIR) + "/workloads/scenarios");
  check_folder(std::string(SCOVILLE_SOURCE_DIR) + "/workloads/sweeps");
}
