// Every model of the library runs prefill and decode on a system it fits on, as a user runs it
// (issue 26's floor): `scoville run --system b200-hgx8 --model NAME`. B200 HGX 8 holds the
// largest of them (Kimi K2.5, Llama 3.1 405B in BF16) with room for a small batch's KV.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "tests/e2e/test_support.hpp"

using namespace scoville;

namespace {

std::vector<std::string> library_models() {
  std::vector<std::string> names;
  for (const auto& entry :
       std::filesystem::directory_iterator(test::source_dir() + "/workloads/models")) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The phase's time in the per-phase table ("prefill      16.84 ms ..."), in seconds; -1 if absent.
double phase_seconds(const std::string& output, const std::string& phase) {
  const std::regex pattern("\\n" + phase + " +([0-9.]+) (s|ms|us|ns) ");
  std::smatch m;
  if (!std::regex_search(output, m, pattern)) return -1;
  const double value = std::stod(m[1].str());
  const std::string unit = m[2].str();
  if (unit == "ms") return value * 1e-3;
  if (unit == "us") return value * 1e-6;
  if (unit == "ns") return value * 1e-9;
  return value;
}

}  // namespace

TEST_CASE("every library model runs prefill and decode on b200-hgx8", "[e2e][model][library]") {
  const std::vector<std::string> models = library_models();
  REQUIRE(models.size() >= 16);  // the nine original models and the library issue's seven
  const std::string env = "SCOVILLE_DATA_DIR=" + test::source_dir();
  for (const std::string& model : models) {
    INFO(model);
    const auto r = test::run_scoville("run --system b200-hgx8 --model " + model +
                                          " --batch 2 --isl 256 --osl 4 --reuse-repeated-ops",
                                      env);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(phase_seconds(r.output, "prefill") > 0);
    CHECK(phase_seconds(r.output, "decode") > 0);
  }
}
