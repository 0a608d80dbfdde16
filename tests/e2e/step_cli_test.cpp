// `scoville step` as a user runs it: one serving iteration by op, collective and software term.
#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "tests/e2e/test_support.hpp"

using scoville::test::run_scoville;

namespace {

double json_value(const std::string& json, const std::string& key) {
  const std::regex re("\"" + key + "\": ([-+0-9.eE]+)");
  std::smatch m;
  REQUIRE(std::regex_search(json, m, re));
  return std::stod(m[1].str());
}

}  // namespace

TEST_CASE("cli: step prints a decode step by op, collective and software term", "[cli][step]") {
  const auto r = run_scoville(
      "step --system h200-hgx8 --model llama-3.1-8b --tp 2 --batch 8 --context 1024 "
      "--software tensorrt-llm --no-op-cache");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("decode step of 8 sequences at 1024 tokens of context"));
  CHECK_THAT(r.output, Catch::Contains("software tensorrt-llm"));
  CHECK_THAT(r.output, Catch::Contains("attention#0"));
  CHECK_THAT(r.output, Catch::Contains("all_reduce, 2,"));
  CHECK_THAT(r.output, Catch::Contains("per_op_launch"));
  CHECK_THAT(r.output, Catch::Contains("iteration: "));
}

TEST_CASE("cli: step's parts add up to the iteration and name a kernel path where it binds",
          "[cli][step]") {
  // An 8,192-token GPT-OSS prefill on H200 under vLLM: the MXFP4 experts run Marlin's rate.
  const auto r = run_scoville(
      "step --system h200-hgx8 --model gpt-oss-120b --software vllm --phase prefill --batch 1 "
      "--context 8192 --fidelity roofline --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(json_value(r.output, "parts_total_s") ==
        Approx(json_value(r.output, "time_s")).epsilon(1e-9));
  CHECK_THAT(r.output, Catch::Contains("\"bound\": \"kernel path\""));
  CHECK_THAT(r.output, Catch::Contains("\"phase\": \"prefill\""));
  // Without the stack: no kernel path, no software time, a shorter iteration.
  const auto bare = run_scoville(
      "step --system h200-hgx8 --model gpt-oss-120b --software none --phase prefill --batch 1 "
      "--context 8192 --fidelity roofline --json");
  REQUIRE(bare.exit_code == 0);
  CHECK_THAT(bare.output, !Catch::Contains("\"bound\": \"kernel path\""));
  CHECK(json_value(bare.output, "time_s") < json_value(r.output, "time_s"));
}

TEST_CASE("cli: step refuses what it cannot price with one clear error", "[cli][step]") {
  const auto phase = run_scoville(
      "step --system h200-hgx8 --model llama-3.1-8b --batch 8 --context 1024 --phase middle");
  CHECK(phase.exit_code == 2);
  CHECK_THAT(phase.output, Catch::Contains("--phase expects decode or prefill"));
  const auto batch = run_scoville("step --system h200-hgx8 --model llama-3.1-8b --context 1024");
  CHECK(batch.exit_code == 2);
  CHECK_THAT(batch.output, Catch::Contains("--batch is required"));
  const auto context = run_scoville(
      "step --system h200-hgx8 --model llama-3.1-8b --batch 1 --context 1000000 "
      "--fidelity roofline");
  CHECK(context.exit_code == 2);
  CHECK_THAT(context.output, Catch::Contains("--context"));
  CHECK_THAT(context.output, Catch::Contains("maximum context"));
  // Kimi K2.5's weights do not fit one H100.
  const auto fit = run_scoville(
      "step --system h100-hgx8 --model kimi-k2.5 --batch 1 --context 1024 --fidelity roofline");
  CHECK(fit.exit_code == 2);
  CHECK_THAT(fit.output, Catch::Contains("does not fit"));
}
