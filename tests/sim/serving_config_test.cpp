// Scenario validation: every bad field is reported at once, by key path.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "sim/base/error.hpp"
#include "sim/serving/serving_config.hpp"

using namespace scoville;
using namespace scoville::serving;

namespace {

std::string error_text(const ServingScenario& s) {
  try {
    validate(s);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

ServingScenario valid() {
  ServingScenario s;
  PoolConfig p;
  p.role = PoolRole::kColocated;
  s.system.pools = {p};
  return s;
}

}  // namespace

TEST_CASE("a valid scenario passes validation", "[serving_config]") {
  CHECK(error_text(valid()).empty());
}

TEST_CASE("pool and scheduler errors name their keys, all at once", "[serving_config]") {
  ServingScenario s = valid();
  PoolConfig& p = s.system.pools[0];
  p.chips = 0;
  p.kv_capacity_blocks = 0;
  p.scheduler.max_num_seqs = 0;
  p.scheduler.max_num_batched_tokens = 0;
  p.scheduler.kv_block_tokens = 0;
  p.scheduler.mtp.acceptance = 1.5;
  const std::string text = error_text(s);
  for (const char* key : {"system.pools[0].chips", "system.pools[0].kv_capacity_blocks",
                          "system.pools[0].max_num_seqs", "system.pools[0].max_num_batched_tokens",
                          "system.pools[0].kv_block_tokens", "system.pools[0].mtp.acceptance"}) {
    CHECK_THAT(text, Catch::Contains(key));
  }
}

TEST_CASE("MTP depth must leave a decode step within the token budget", "[serving_config]") {
  ServingScenario s = valid();
  s.system.pools[0].scheduler.max_num_batched_tokens = 4;
  s.system.pools[0].scheduler.mtp.depth = 4;  // 5 positions > 4 tokens
  CHECK_THAT(error_text(s), Catch::Contains("system.pools[0].mtp.depth"));
  s.system.pools[0].scheduler.mtp.depth = 3;
  CHECK(error_text(s).empty());
}

TEST_CASE("expected MTP tokens per step", "[serving_config]") {
  MtpConfig m;
  CHECK(m.expected_tokens_per_step() == 1.0);
  m.depth = 2;
  m.acceptance = 0.5;
  // 1 + a + a^2: the k + 1 positions, each reached only if every earlier draft was accepted.
  CHECK(m.expected_tokens_per_step() == Approx(1.0 + 0.5 + 0.25));
  m.acceptance = 1.0;
  CHECK(m.expected_tokens_per_step() == 3.0);
  m.acceptance = 0.0;
  CHECK(m.expected_tokens_per_step() == 1.0);
}

TEST_CASE("pool layouts and disaggregation inputs", "[serving_config]") {
  ServingScenario s = valid();
  s.system.pools.push_back(s.system.pools[0]);  // two co-located pools
  CHECK_THAT(error_text(s), Catch::Contains("system.pools: expected one co-located pool"));

  s.system.pools[0].role = PoolRole::kPrefill;
  s.system.pools[1].role = PoolRole::kDecode;
  const std::string text = error_text(s);
  CHECK_THAT(text, Catch::Contains("system.kv_transfer_time"));
  CHECK_THAT(text, Catch::Contains("system.kv_bytes_per_token"));
  s.system.kv_bytes_per_token = bytes(1000.0);
  s.system.kv_transfer_time = [](const KvTransfer&) { return seconds(0.0); };
  CHECK(error_text(s).empty());
  CHECK(s.system.disaggregated());

  std::swap(s.system.pools[0], s.system.pools[1]);  // decode before prefill
  CHECK_THAT(error_text(s), Catch::Contains("system.pools"));
}

TEST_CASE("metric inputs are checked", "[serving_config]") {
  ServingScenario s = valid();
  s.metrics.slo_ttft = seconds(0.0);
  s.metrics.tdp_per_chip = watts(-1.0);
  s.metrics.pue = 0.9;
  s.metrics.price_per_chip_hour = -1.0;
  const std::string text = error_text(s);
  for (const char* key :
       {"metrics.slo_ttft", "metrics.tdp_per_chip", "metrics.pue", "metrics.price_per_chip_hour"}) {
    CHECK_THAT(text, Catch::Contains(key));
  }
}
