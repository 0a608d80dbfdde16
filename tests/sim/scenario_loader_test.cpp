// Serving scenario files: the shipped examples load, and bad ones give located errors.
#include <catch2/catch.hpp>

#include <filesystem>

#include "sim/base/error.hpp"
#include "sim/config/scenario_loader.hpp"

using namespace scoville;
using namespace scoville::config;

namespace {

const char* kGood = R"(scenario:
  name: t
  system: {chip: h200, chips: 2}
  model: llama-3.1-8b
  mapping:
    default: {chips: 2, tp: 2}
  scheduler: {max_num_seqs: 32, max_num_batched_tokens: 2048, chunked_prefill: false, policy: prefill-first, handoff: reserve-decode-slot}
  mtp: {depth: 2, acceptance: 0.5, mode: sampled}
  requests: {pattern: gamma, isl: 100, osl: 10, rate: 3, burstiness: 0.25, num_prompts: 9}
  slo: {ttft: 2 s, tpot: 40 ms}
  power: {tdp: 1 kW, all_in: 1.5 kW, pue: 1.1}
  price_per_chip_hour: 3.5
  seed: 11
)";

std::string first_error(const std::string& yaml) {
  try {
    load_scenario_string(yaml, "bad.yaml");
  } catch (const InputError& e) {
    return e.diagnostics().front().str();
  }
  return "";
}

}  // namespace

TEST_CASE("scenario: every field is read with its unit", "[scenario]") {
  const ServingStudySpec s = load_scenario_string(kGood, "good.yaml");
  CHECK(s.name == "t");
  CHECK(s.chip == "h200");
  CHECK(s.chips == 2);
  CHECK(s.mapping.pools.size() == 1);
  CHECK(s.mapping.pools[0].degrees.tp == 2);
  CHECK(s.scheduler.max_num_seqs == 32);
  CHECK(s.scheduler.max_num_batched_tokens == 2048);
  CHECK_FALSE(s.scheduler.chunked_prefill);
  CHECK(s.scheduler.policy == "prefill-first");
  CHECK(s.scheduler.handoff == "reserve-decode-slot");
  CHECK(s.scheduler.mtp.depth == 2);
  CHECK(s.scheduler.mtp.mode == serving::MtpConfig::Mode::kSampled);
  CHECK(s.requests.kind == workloads::ArrivalKind::kGamma);
  CHECK(s.requests.rate == 3.0);
  CHECK(s.requests.burstiness == 0.25);
  CHECK(s.requests.num_prompts == 9);
  CHECK(s.requests.sampling == workloads::RequestSampling::kGreedy);  // unless asked
  CHECK(s.metrics.slo_tpot->si() == Approx(0.04));
  CHECK(s.metrics.tdp_per_chip->si() == Approx(1000.0));
  CHECK(s.metrics.pue == Approx(1.1));
  CHECK(*s.metrics.price_per_chip_hour == 3.5);
  CHECK(s.seed == 11);
}

TEST_CASE("scenario: the shipped examples load", "[scenario]") {
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(SCOVILLE_SOURCE_DIR) +
                                                           "/workloads/scenarios")) {
    INFO(e.path().string());
    CHECK_NOTHROW(load_scenario(e.path().string()));
    ++files;
  }
  CHECK(files >= 3);
}

TEST_CASE("scenario: errors name the file, line and key", "[scenario]") {
  std::string bad = kGood;
  bad.replace(bad.find("pattern: gamma"), 14, "pattern: gamm");
  const std::string e1 = first_error(bad);
  CHECK_THAT(e1, Catch::Contains("bad.yaml:9"));
  CHECK_THAT(e1, Catch::Contains("scenario.requests.pattern"));

  std::string no_rate = kGood;
  no_rate.replace(no_rate.find("rate: 3, "), 9, "");
  CHECK_THAT(first_error(no_rate), Catch::Contains("rate"));

  std::string pools = kGood;
  pools.replace(pools.find("default: {chips: 2, tp: 2}"), 26, "a: {chips: 1}\n    b: {chips: 1}");
  CHECK_THAT(first_error(pools), Catch::Contains("prefill and decode"));

  std::string top_p = kGood;
  top_p.replace(top_p.find("num_prompts: 9}"), 15, "num_prompts: 9, sampling: top-p}");
  CHECK(load_scenario_string(top_p, "good.yaml").requests.sampling ==
        workloads::RequestSampling::kTopP);
  std::string nucleus = kGood;
  nucleus.replace(nucleus.find("num_prompts: 9}"), 15, "num_prompts: 9, sampling: nucleus}");
  const std::string e2 = first_error(nucleus);
  CHECK_THAT(e2, Catch::Contains("bad.yaml:9"));
  CHECK_THAT(e2, Catch::Contains("scenario.requests.sampling"));
  CHECK_THAT(e2, Catch::Contains("top-p"));

  std::string typo = kGood;
  typo.replace(typo.find("seed: 11"), 8, "sede: 11");
  CHECK_THAT(first_error(typo), Catch::Contains("sede"));
}
