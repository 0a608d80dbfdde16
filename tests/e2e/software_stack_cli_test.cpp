// The system file's serving stack is the default of `inferencex` and `run --system`,
// `--software none` gives hardware time alone, and the stack in effect is printed and recorded.
#include <catch2/catch.hpp>

#include <string>

#include "tests/e2e/test_support.hpp"

using scoville::test::run_scoville;

namespace {

const std::string kInferencex =
    "inferencex --fidelity roofline --no-calibration --system h200-hgx8 --model gpt-oss-120b "
    "--isl 256 --osl 16 --concurrency 1 --prompts-per-client 1 --range-ratio 1 --quiet ";

double number(const std::string& json, const std::string& key) {
  const std::string quoted = "\"" + key + "\": ";
  const size_t at = json.find(quoted);
  if (at == std::string::npos) {
    FAIL("no " << key << " in " << json);
  }
  return std::stod(json.substr(at + quoted.size()));
}

}  // namespace

TEST_CASE("software stack: inferencex runs the system file's stack unless told", "[cli]") {
  const auto own = run_scoville(kInferencex + "--json");
  REQUIRE(own.exit_code == 0);
  CHECK_THAT(own.output, Catch::Contains("\"software\": \"tensorrt-llm\""));
  const auto none = run_scoville(kInferencex + "--json --software none");
  REQUIRE(none.exit_code == 0);
  CHECK_THAT(none.output, Catch::Contains("\"software\": \"none\""));
  const auto vllm = run_scoville(kInferencex + "--json --software vllm");
  REQUIRE(vllm.exit_code == 0);
  CHECK_THAT(vllm.output, Catch::Contains("\"software\": \"vllm\""));
  // Each stack's host time slows a token: none < tensorrt-llm < vllm in TPOT.
  const double t_none = number(none.output, "median_tpot_ms");
  const double t_trt = number(own.output, "median_tpot_ms");
  const double t_vllm = number(vllm.output, "median_tpot_ms");
  CHECK(t_none < t_trt);
  CHECK(t_trt < t_vllm);
  const auto table = run_scoville(kInferencex);
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.output, Catch::Contains("software tensorrt-llm"));
  const auto unknown = run_scoville(kInferencex + "--software vllm-turbo");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("vllm-turbo"));
}

TEST_CASE("software stack: run --system takes --software over the system file's", "[cli]") {
  const std::string run =
      "run --system h200-hgx8 --model llama-3.1-8b --tp 1 --batch 1 --isl 128 --osl 2 --json ";
  const auto own = run_scoville(run);
  REQUIRE(own.exit_code == 0);
  CHECK_THAT(own.output, Catch::Contains("\"software\": \"tensorrt-llm\""));
  const auto none = run_scoville(run + "--software none");
  REQUIRE(none.exit_code == 0);
  CHECK_THAT(none.output, Catch::Contains("\"software\": \"none\""));
}
