// `serve --requests FILE`: public request traces (Azure, BurstGPT, Mooncake) replayed by the
// CLI, with the window, row limit and time scale; bad flags and rows refused with one message.
#include <catch2/catch.hpp>

#include <string>

#include "test_support.hpp"

using scoville::test::run_scoville;
using scoville::test::source_dir;
using scoville::test::TempDir;

namespace {

std::string serve(const std::string& flags) {
  return "serve --scenario " + source_dir() +
         "/workloads/scenarios/llama-3.1-8b-poisson-h200.yaml --fidelity roofline --json " + flags;
}

std::string trace(const std::string& file) {
  return source_dir() + "/workloads/traces/requests/" + file;
}

// The number after "key": in the JSON summary.
double json_value(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\": ");
  if (at == std::string::npos) return -1.0;
  return std::stod(json.substr(at + key.size() + 4));
}

}  // namespace

TEST_CASE("serve --requests replays each public trace format", "[cli][serving][requests]") {
  const auto azure = run_scoville(serve("--requests " + trace("azure-sample.csv")));
  INFO(azure.output);
  REQUIRE(azure.exit_code == 0);
  CHECK(json_value(azure.output, "completed") == 40);

  // BurstGPT: the two failed requests (0 response tokens) are not replayed.
  const auto burst = run_scoville(serve("--requests " + trace("burstgpt-sample.csv")));
  REQUIRE(burst.exit_code == 0);
  CHECK(json_value(burst.output, "completed") == 38);

  const auto mooncake =
      run_scoville(serve("--requests " + trace("mooncake-sample.jsonl") + " --max-requests 12"));
  REQUIRE(mooncake.exit_code == 0);
  CHECK(json_value(mooncake.output, "completed") == 12);
}

TEST_CASE("serve --time-scale compresses arrivals, --window-end cuts them",
          "[cli][serving][requests]") {
  const std::string file = "--requests " + trace("burstgpt-sample.csv");
  const auto full = run_scoville(serve(file));
  const auto fast = run_scoville(serve(file + " --time-scale 0.25"));
  REQUIRE(full.exit_code == 0);
  REQUIRE(fast.exit_code == 0);
  // The sample's arrivals span tens of seconds, far more than any request takes: a quarter of
  // the time, four times the request rate within a few percent.
  const double rate_full = json_value(full.output, "request_throughput");
  const double rate_fast = json_value(fast.output, "request_throughput");
  CHECK(rate_fast / rate_full == Approx(4.0).epsilon(0.1));
  const auto window = run_scoville(serve(file + " --window-start 10 --window-end '40 s'"));
  REQUIRE(window.exit_code == 0);
  const double kept = json_value(window.output, "completed");
  CHECK(kept > 0);
  CHECK(kept < 38);
}

TEST_CASE("serve refuses bad trace flags and bad trace rows", "[cli][serving][requests]") {
  const auto no_trace = run_scoville(serve("--max-requests 3"));
  CHECK(no_trace.exit_code == 2);
  CHECK_THAT(no_trace.output, Catch::Contains("need a request trace"));
  const auto format =
      run_scoville(serve("--requests " + trace("azure-sample.csv") + " --trace-format burstgt"));
  CHECK(format.exit_code == 2);
  CHECK_THAT(format.output, Catch::Contains("--trace-format: expected auto, scoville, azure"));
  const auto wrong =
      run_scoville(serve("--requests " + trace("azure-sample.csv") + " --trace-format burstgpt"));
  CHECK(wrong.exit_code == 2);
  CHECK_THAT(wrong.output, Catch::Contains("azure-sample.csv:1: Timestamp: missing column"));

  TempDir dir("requests-cli");
  const std::string bad =
      dir.write("bad.jsonl",
                "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5}\n"
                "{\"timestamp\": 20, \"input_length\": ten, \"output_length\": 5}\n");
  const auto row = run_scoville(serve("--requests " + bad));
  CHECK(row.exit_code == 2);
  CHECK_THAT(row.output, Catch::Contains("bad.jsonl:2:35: input_length: expected an integer"));
}
