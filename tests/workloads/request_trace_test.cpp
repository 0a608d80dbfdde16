// Request trace CSV reader: valid traces, and one located error per problem.
#include <catch2/catch.hpp>

#include <string>

#include "sim/base/error.hpp"
#include "workloads/requests/request_pattern.hpp"
#include "workloads/requests/request_trace_reader.hpp"

using namespace scoville;
using namespace scoville::workloads;

namespace {

const std::string kName = "t.csv";

std::string error_text(const std::string& text, const TraceLimits& limits = {}) {
  try {
    parse_request_trace(text, kName, limits);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("trace: columns in any order, comments and blank lines skipped", "[trace]") {
  const RequestPlan plan = parse_request_trace(
      "# comment\n"
      "output_tokens, arrival_s ,input_tokens\r\n"
      "\n"
      "10,0.5,100\n"
      "# another\n"
      "20,0.5,200\n"
      "30,2,300\n",
      kName);
  REQUIRE(plan.requests.size() == 3);
  CHECK(plan.max_concurrency == 0);
  CHECK(plan.requests[0].arrival.si() == 0.5);
  CHECK(plan.requests[0].input_tokens == 100);
  CHECK(plan.requests[0].output_tokens == 10);
  CHECK(plan.requests[2].id == 2);
  CHECK(plan.requests[2].arrival.si() == 2.0);
  CHECK(plan.requests[2].output_tokens == 30);
}

TEST_CASE("trace: the shipped sample replays through the pattern", "[trace]") {
  RequestPattern p;
  p.kind = ArrivalKind::kTrace;
  p.trace_path = std::string(SCOVILLE_SOURCE_DIR) + "/workloads/requests/samples/small_trace.csv";
  p.max_concurrency = 2;
  const RequestPlan plan = make_request_plan(p, 1);
  REQUIRE(plan.requests.size() == 5);
  CHECK(plan.max_concurrency == 2);
  CHECK(plan.requests[3].input_tokens == 8192);
  CHECK(plan.requests[4].output_tokens == 1);
}

TEST_CASE("trace: a bad value names file, line, column and what was expected", "[trace]") {
  const std::string header = "arrival_s,input_tokens,output_tokens\n";
  // Line 3, field 2 starts at character 5 ("0.1," is four characters).
  CHECK_THAT(error_text(header + "0,1,1\n0.1,abc,5\n"),
             Catch::Contains("t.csv:3:5: input_tokens: expected an integer number of tokens"));
  CHECK_THAT(error_text(header + "-1,1,1\n"),
             Catch::Contains("t.csv:2:1: arrival_s: expected a number of seconds in [0, 1e9]"));
  CHECK_THAT(error_text(header + "nan,1,1\n"), Catch::Contains("t.csv:2:1: arrival_s"));
  CHECK_THAT(error_text(header + "0,1,0\n"), Catch::Contains("t.csv:2:5: output_tokens"));
  CHECK_THAT(error_text(header + "0,1\n"), Catch::Contains("t.csv:2: expected 3"));
  CHECK_THAT(error_text(header + "2,1,1\n1,1,1\n"),
             Catch::Contains("t.csv:3:1: arrival_s: arrivals must be in non-decreasing order"));
  // All problems are collected in one pass.
  const std::string both = error_text(header + "x,1,1\n0,y,1\n");
  CHECK_THAT(both, Catch::Contains("t.csv:2:1") && Catch::Contains("t.csv:3:3"));
}

TEST_CASE("trace: header problems", "[trace]") {
  CHECK_THAT(error_text(""), Catch::Contains("t.csv: empty request trace"));
  CHECK_THAT(error_text("arrival_s,input_tokens,output_tokens\n"),
             Catch::Contains("header but no requests"));
  CHECK_THAT(error_text("arrival_s,input_tokens\n0,1\n"),
             Catch::Contains("output_tokens: missing column"));
  // "arrival_s," and "input_tokens," are 23 characters: the third column starts at 24.
  CHECK_THAT(error_text("arrival_s,input_tokens,output_token\n0,1,1\n"),
             Catch::Contains("t.csv:1:24: output_token: unknown column; did you mean "
                             "'output_tokens'?"));
  CHECK_THAT(error_text("0.0,100,10\n"), Catch::Contains("unknown column"));
  CHECK_THAT(error_text("arrival_s,arrival_s,input_tokens,output_tokens\n0,0,1,1\n"),
             Catch::Contains("column given twice"));
}

TEST_CASE("trace: limits are refused up front", "[trace]") {
  TraceLimits limits;
  limits.max_requests = 2;
  const std::string header = "arrival_s,input_tokens,output_tokens\n";
  CHECK_NOTHROW(parse_request_trace(header + "0,1,1\n0,1,1\n", kName, limits));
  CHECK_THAT(error_text(header + "0,1,1\n0,1,1\n0,1,1\n", limits),
             Catch::Contains("3 requests, more than the limit of 2"));
  limits.max_tokens_per_request = 100;
  CHECK_THAT(error_text(header + "0,101,1\n", limits), Catch::Contains("[1, 100]"));
  limits.max_file_bytes = 10;
  const std::string sample =
      std::string(SCOVILLE_SOURCE_DIR) + "/workloads/requests/samples/small_trace.csv";
  try {
    read_request_trace(sample, limits);
    FAIL("an oversized file was read");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("more than the limit of 10"));
  }
  CHECK_THROWS_AS(read_request_trace(sample + ".missing"), InputError);
}
