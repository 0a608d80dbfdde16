// `scoville run --system` and `scoville ablate` as a user runs them.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "tests/e2e/test_support.hpp"

using scoville::test::run_scoville;

namespace {
const std::string kSmall = " --model llama-3.1-8b --batch 2 --isl 128 --osl 4 --tp 4";
}

TEST_CASE("cli: run --system reports both phases with the component breakdown", "[cli][system]") {
  const auto r = run_scoville("run --system h200-hgx8" + kSmall);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  for (const char* part : {"prefill", "decode", "compute", "hbm", "local_network", "scale_out",
                           "kv_transfer", "static", "J/token"}) {
    CHECK_THAT(r.output, Catch::Contains(part));
  }
  const auto json = run_scoville("run --system h200-hgx8" + kSmall + " --json");
  CHECK(json.exit_code == 0);
  CHECK_THAT(json.output, Catch::Contains("\"energy_breakdown_j\""));
  CHECK_THAT(json.output, Catch::Contains("\"tp\": 4"));
}

TEST_CASE("cli: run --system rejects unknown placements and oversized mappings", "[cli][system]") {
  const auto bad = run_scoville("run --system h200-hgx8" + kSmall + " --kv-placement nowhere");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("sram_window"));
  const auto big = run_scoville("run --system h200-hgx8 --model llama-3.1-8b --tp 8 --dp 2");
  CHECK(big.exit_code == 2);
  CHECK_THAT(big.output, Catch::Contains("16 chips"));
  const auto stray = run_scoville("run --chip h200 --model llama-3.1-8b --tp 2");
  CHECK(stray.exit_code == 2);
}

TEST_CASE("cli: ablate prints one row per placement with relative differences", "[cli][system]") {
  const auto r = run_scoville("ablate --system h200-hgx8" + kSmall +
                              " --vary kv_placement=local,disaggregated");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("local"));
  CHECK_THAT(r.output, Catch::Contains("disaggregated"));
  CHECK_THAT(r.output, Catch::Contains("+0.0%"));
  const auto topo = run_scoville("ablate --system h200-hgx8" + kSmall +
                                 " --vary system.local.link.latency=150ns,1us");
  INFO(topo.output);
  CHECK(topo.exit_code == 0);
  CHECK_THAT(topo.output, Catch::Contains("1us"));
}

namespace {
// gpt-oss-20b cut to 2 layers (32 experts, top-4), written into `dir`.
std::string small_moe(const scoville::test::TempDir& dir) {
  std::ifstream in(scoville::test::source_dir() + "/workloads/models/gpt-oss-20b.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const size_t at = yaml.find("\nlayers: ") + 1;
  yaml.replace(at, yaml.find(' ', at + 8) - at, "layers: 2");
  return dir.write("moe2.yaml", yaml);
}

double phase_number(const std::string& json, const std::string& phase, const std::string& key) {
  const size_t at = json.find("\"phase\": \"" + phase + "\"");
  const size_t value = json.find("\"" + key + "\": ", at) + key.size() + 4;
  return std::stod(json.substr(value));
}
}  // namespace

TEST_CASE("cli: run --system --routing draws the MoE routing and reports the EP imbalance",
          "[cli][system]") {
  const scoville::test::TempDir dir("routing");
  const std::string base = "run --system h200-hgx8 --model " + small_moe(dir) +
                           " --tp 8 --ep 8 --batch 16 --isl 64 --osl 2 --json";
  const auto expected = run_scoville(base);
  const auto zipf = run_scoville(base + " --routing zipf:1.5 --seed 4");
  INFO(zipf.output);
  REQUIRE(expected.exit_code == 0);
  REQUIRE(zipf.exit_code == 0);
  CHECK_THAT(zipf.output, Catch::Contains("\"routing\": \"zipf:1.5\""));
  CHECK_THAT(expected.output, Catch::Contains("\"routing\": \"expected\""));
  CHECK(phase_number(expected.output, "decode", "ep_imbalance") == 0.0);
  CHECK(phase_number(zipf.output, "decode", "ep_imbalance") > 1.5);
  // The most loaded rank holds the others up.
  CHECK(phase_number(zipf.output, "decode", "time_s") >
        phase_number(expected.output, "decode", "time_s"));
  const auto text = run_scoville("run --system h200-hgx8 --model " + small_moe(dir) +
                                 " --tp 8 --ep 8 --batch 16 --isl 64 --osl 2 --routing uniform");
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.output, Catch::Contains("MoE routing uniform (seed 0)"));
  const auto bad = run_scoville(base + " --routing zipf:nine");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--routing"));
  // A study file holds it as routing:.
  const std::string study =
      dir.write("s.yaml", "study:\n  system: h200-hgx8\n  model: " + dir.file("moe2.yaml") +
                              "\n  batch: 16\n  isl: 64\n  osl: 2\n  routing: zipf:1.5\n  seed: 4\n"
                              "  mapping: {tp: 8, ep: 8}\n");
  const auto from_study = run_scoville("run --study " + study + " --json");
  INFO(from_study.output);
  CHECK(from_study.exit_code == 0);
  CHECK(phase_number(from_study.output, "decode", "time_s") ==
        phase_number(zipf.output, "decode", "time_s"));
}
