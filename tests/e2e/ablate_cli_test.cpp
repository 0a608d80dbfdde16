// `scoville ablate` over any key of the input files, several keys at once, and -o.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/test_support.hpp"

using scoville::test::read_file;
using scoville::test::run_scoville;
using scoville::test::TempDir;

namespace {
const std::string kAblate =
    "ablate --system h200-hgx8 --model llama-3.1-8b --batch 2 --isl 128 --osl 4 --tp 4";
}

// The value of column `name` in each data row of a CSV written by ablate.
static std::vector<std::string> csv_column(const std::string& csv, const std::string& name) {
  std::istringstream lines(csv);
  std::string header;
  std::getline(lines, header);
  const size_t index = std::count(header.begin(), header.begin() + header.find(name), ',');
  std::vector<std::string> out;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream cells(line);
    std::string cell;
    for (size_t i = 0; i <= index; ++i) std::getline(cells, cell, ',');
    out.push_back(cell);
  }
  return out;
}

TEST_CASE("cli: ablate varies a topology and a chip field in one table", "[cli][ablate]") {
  const TempDir dir("ablate-cli");
  const auto r = run_scoville(kAblate +
                              " --vary network.local.topology=switch,full_mesh"
                              " --vary chip.hbm.bandwidth_per_channel=50GB/s,100GB/s -o " +
                              dir.file("a.csv"));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("ablation of network.local.topology, "
                                       "chip.hbm.bandwidth_per_channel on h200-hgx8"));
  const std::string csv = read_file(dir.file("a.csv"));
  CHECK(csv.rfind("network.local.topology,chip.hbm.bandwidth_per_channel,prefill_time,"
                  "prefill_time_rel,",
                  0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 2 * 2);  // header + cartesian
  CHECK_THAT(csv, Catch::Contains("full_mesh,100GB/s,"));
  // Twice the HBM bandwidth shortens the bandwidth-bound decode of an 8B model.
  const std::vector<std::string> decode = csv_column(csv, "decode_time");
  REQUIRE(decode.size() == 4);
  CHECK(std::stod(decode[1]) < std::stod(decode[0]));
  CHECK(std::stod(decode[3]) < std::stod(decode[2]));
}

TEST_CASE("cli: ablate turns a stack's vector-op fusion off", "[cli][ablate]") {
  const TempDir dir("ablate-fusion");
  const auto r = run_scoville(
      "ablate --system jalapeno-128 --model llama-3.1-8b --batch 1 --isl 128 --osl 4 --tp 4"
      " --vary software.fused_vector_ops=true,false -o " +
      dir.file("f.csv"));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string csv = read_file(dir.file("f.csv"));
  const std::vector<std::string> decode = csv_column(csv, "decode_time");
  REQUIRE(decode.size() == 2);
  // persistent-kernels fuses them; as ops of their own they add their fixed latencies.
  CHECK(std::stod(decode[1]) > std::stod(decode[0]));
}

TEST_CASE("cli: ablate one key at a time writes HDF5 and JSON", "[cli][ablate]") {
  const TempDir dir("ablate-h5");
  const auto r = run_scoville(kAblate +
                              " --mode one-at-a-time --vary batch=2,4"
                              " --vary software.per_iteration=1ms,2ms"
                              " --vary precision.weights=bf16,fp8 --json -o " +
                              dir.file("a.h5"));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(
      r.output,
      Catch::Contains("\"keys\": [\"batch\", \"software.per_iteration\", \"precision.weights\"]"));
  // The baseline, then one other value of each key: 4 variants.
  size_t variants = 0;
  for (size_t at = r.output.find("\"values\""); at != std::string::npos;
       at = r.output.find("\"values\"", at + 1)) {
    ++variants;
  }
  CHECK(variants == 4);
  CHECK_THAT(r.output, Catch::Contains("\"precision.weights\": \"fp8\""));
  CHECK(read_file(dir.file("a.h5")).rfind("\x89HDF", 0) == 0);
}

TEST_CASE("cli: ablate reports a key that breaks the config at its line", "[cli][ablate]") {
  const auto bad = run_scoville(kAblate + " --vary chip.hbm.capacity=141GB,-1GB");
  INFO(bad.output);
  CHECK(bad.exit_code == 2);
  // The line of `capacity:` under `hbm:` in the shipped chip file, found there (not a literal).
  const std::string chip = read_file(scoville::test::source_dir() + "/arch/chips/h200.yaml");
  const size_t hbm = chip.find("\n  hbm:");
  REQUIRE(hbm != std::string::npos);
  const size_t capacity = chip.find("\n    capacity:", hbm);
  REQUIRE(capacity != std::string::npos);
  const auto line = 2 + std::count(chip.begin(), chip.begin() + static_cast<long>(capacity), '\n');
  CHECK_THAT(bad.output, Catch::Contains("h200.yaml:" + std::to_string(line)));
  CHECK_THAT(bad.output, Catch::Contains("chip.hbm.capacity = -1GB"));
  const auto unknown = run_scoville(kAblate + " --vary hbm.size=1,2");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("unknown key 'hbm.size'"));
  const auto twice = run_scoville(kAblate + " --vary batch=1,2 --vary batch=4");
  CHECK(twice.exit_code == 2);
  CHECK_THAT(twice.output, Catch::Contains("given twice"));
  const auto mode = run_scoville(kAblate + " --vary batch=1,2 --mode all");
  CHECK(mode.exit_code == 2);
  const auto out = run_scoville(kAblate + " --vary batch=1,2 -o table.txt");
  CHECK(out.exit_code == 2);
  CHECK_THAT(out.output, Catch::Contains("FILE.h5 or FILE.csv"));
}
