// `scoville chip-bench` end to end: the H200 description against the H200 measurements in
// REFERENCE.md ("Measured on a real H200"), within 10%, and its usage and input errors.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "tests/e2e/test_support.hpp"

using namespace scoville;

namespace {

// The "achieved" figure of one case in the --json output.
double achieved(const std::string& json, const std::string& name) {
  const std::regex pattern("\"name\": \"" + name + "\"[^}]*\"achieved\": ([0-9.eE+-]+)");
  std::smatch m;
  if (!std::regex_search(json, m, pattern)) return -1;
  return std::stod(m[1].str());
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("chip-bench h200 matches the H200 measurements within 10 percent", "[e2e][chip-bench]") {
  // REFERENCE.md [MEAS]: 8192^3 BF16 matmul 769-798 TFLOP/s on random data; device-to-device
  // copy about 4.3 TB/s counting bytes read and written.
  const double gemm_measured = (769e12 + 798e12) / 2;
  const double copy_measured = 4.3e12;
  const double tolerance = 0.10;
  const auto r =
      test::run_scoville("chip-bench --chip h200 --json --case gemm-bf16-8192x8192x8192,hbm-copy",
                         "SCOVILLE_DATA_DIR=" + test::source_dir());
  REQUIRE(r.exit_code == 0);
  INFO(r.output);
  const double gemm = achieved(r.output, "gemm-bf16-8192x8192x8192");
  const double copy = achieved(r.output, "hbm-copy");
  CHECK(std::abs(gemm / gemm_measured - 1) <= tolerance);
  CHECK(std::abs(copy / copy_measured - 1) <= tolerance);
}

TEST_CASE("chip-bench rejects unknown cases and a missing chip", "[e2e][chip-bench]") {
  const std::string env = "SCOVILLE_DATA_DIR=" + test::source_dir();
  const auto unknown = test::run_scoville("chip-bench --chip h200 --case hbm-cpy", env);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.output.find("did you mean 'hbm-copy'") != std::string::npos);
  const auto no_chip = test::run_scoville("chip-bench --json", env);
  CHECK(no_chip.exit_code == 2);
  CHECK(no_chip.output.find("--chip") != std::string::npos);
}

TEST_CASE("chip files must give the hbm timing, named by key", "[e2e][chip-bench]") {
  const test::TempDir dir("chip-bench");
  std::string yaml = read_file(test::source_dir() + "/arch/chips/h200.yaml");
  const std::string line = yaml.substr(yaml.find("      t_rcd:"));
  yaml.erase(yaml.find("      t_rcd:"), line.find('\n') + 1);
  const std::string file = dir.write("no-trcd.yaml", yaml);
  const auto r = test::run_scoville("chip-bench --chip " + file + " --list",
                                    "SCOVILLE_DATA_DIR=" + test::source_dir());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("chip.hbm.timing.t_rcd") != std::string::npos);
}
