// `scoville run --system` and `scoville ablate` as a user runs them.
#include <catch2/catch.hpp>

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
