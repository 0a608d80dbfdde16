// `scoville inferencex` with the mappings and calibration the Jalapeño study needs: expert
// replicas (ep dividing tp under attention-DP) accepted and the still-impossible ones refused
// with the reason, a token budget per attention-DP rank, and --calibration FILE applying an
// overlay to a system that has none.
#include <catch2/catch.hpp>

#include <string>

#include "tests/e2e/test_support.hpp"

using scoville::test::run_scoville;

namespace {

const std::string kBase =
    "inferencex --fidelity roofline --system jalapeno-128 --model gpt-oss-120b --isl 256 --osl 16 "
    "--chips 8 "
    "--concurrency 8 --prompts-per-client 1 --range-ratio 1 --quiet ";

double number(const std::string& json, const std::string& key) {
  const std::string quoted = "\"" + key + "\": ";
  const size_t at = json.find(quoted);
  if (at == std::string::npos) {
    FAIL("no " << key << " in " << json);
  }
  return std::stod(json.substr(at + quoted.size()));
}

}  // namespace

TEST_CASE("inferencex: ep dividing tp runs under attention-DP, and is refused without it",
          "[cli][serving]") {
  const auto ok = run_scoville(kBase + "--tp 8 --ep 4 --attn-dp 8 --json");
  INFO(ok.output);
  REQUIRE(ok.exit_code == 0);
  CHECK(ok.output.find("\"mapping\": \"tp8-ep4-dpa8\"") != std::string::npos);
  CHECK(number(ok.output, "ep") == 4);
  CHECK(number(ok.output, "completed") == 8);

  const auto no_dp = run_scoville(kBase + "--tp 8 --ep 4");
  CHECK(no_dp.exit_code == 2);
  CHECK(no_dp.output.find("ep 4 below tp 8 needs attention data parallelism") != std::string::npos);
  const auto wide = run_scoville(kBase + "--tp 8 --ep 16 --attn-dp 8");
  CHECK(wide.exit_code == 2);
  CHECK(wide.output.find("must be 1 or divide tp 8") != std::string::npos);
}

TEST_CASE("inferencex: the token budget is per attention-DP rank", "[cli][serving]") {
  // 8 prompts of 256 tokens, a budget of 256: with 8 attention-DP ranks they all prefill in the
  // first iteration (equal TTFTs); tensor parallel over one rank, they queue one per iteration.
  const std::string budget = "--tp 8 --max-batched-tokens 256 --json ";
  const auto dp = run_scoville(kBase + budget + "--attn-dp 8");
  const auto tp = run_scoville(kBase + budget + "--attn-dp 1");
  INFO(dp.output << tp.output);
  REQUIRE(dp.exit_code == 0);
  REQUIRE(tp.exit_code == 0);
  CHECK(number(dp.output, "std_ttft_ms") < 1e-6 * number(dp.output, "mean_ttft_ms"));
  CHECK(number(tp.output, "std_ttft_ms") > 0.2 * number(tp.output, "mean_ttft_ms"));
}

TEST_CASE("inferencex: --calibration FILE applies an overlay to a system without one",
          "[cli][calibration]") {
  const std::string json = "--tp 8 --ep 8 --json ";
  const auto raw = run_scoville(kBase + json);
  const auto cal = run_scoville(kBase + json + "--calibration b200-hgx8.calibration");
  INFO(raw.output << cal.output);
  REQUIRE(raw.exit_code == 0);
  REQUIRE(cal.exit_code == 0);
  CHECK(raw.output.find("\"calibration\": \"none (raw spec peaks)\"") != std::string::npos);
  CHECK(cal.output.find("b200-hgx8.calibration.yaml (given by --calibration)") !=
        std::string::npos);
  // Knobs below 1 (and a fitted overhead) can only slow the roofline down.
  CHECK(number(cal.output, "total_token_throughput") <
        number(raw.output, "total_token_throughput"));

  CHECK(run_scoville(kBase + json + "--calibration b200-hgx8.calibration --no-calibration")
            .exit_code == 2);
  const auto missing = run_scoville(kBase + json + "--calibration nowhere.calibration.yaml");
  CHECK(missing.exit_code == 2);
  CHECK(missing.output.find("nowhere.calibration.yaml") != std::string::npos);
  // Knobs fitted at the roofline would count the chip model's losses twice at the op table.
  std::string op_table = kBase;
  op_table.replace(op_table.find("roofline"), 8, "op-table");
  const auto other = run_scoville(op_table + json + "--calibration b200-hgx8.calibration");
  CHECK(other.exit_code == 2);
  CHECK(other.output.find("fitted at the roofline fidelity") != std::string::npos);
}
