// Public request-trace formats (Azure, BurstGPT, Mooncake): detection, arrivals from the first
// request, the window, row limit and time scale, skipped zero-token rows, and one located error
// per bad row.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "sim/base/error.hpp"
#include "workloads/requests/public_trace_formats.hpp"
#include "workloads/requests/request_pattern.hpp"

using namespace scoville;
using namespace scoville::workloads;

namespace {

const std::string kName = "t.trace";

RequestPlan parse(const std::string& text, TraceFormat format = TraceFormat::kAuto,
                  const TraceSelection& selection = {}) {
  std::istringstream in(text);
  return parse_trace_stream(in, kName, format, selection);
}

std::string error_text(const std::string& text, TraceFormat format = TraceFormat::kAuto) {
  try {
    parse(text, format);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string sample(const std::string& file) {
  return std::string(SCOVILLE_SOURCE_DIR) + "/workloads/traces/requests/" + file;
}

const std::string kAzure =
    "TIMESTAMP,ContextTokens,GeneratedTokens\n"
    "2023-11-16 18:15:46.6805900,374,44\n"
    "2023-11-16 18:15:50.9951690,396,109\n"
    "2023-11-16 18:16:00.0000000,879,12\n";
const std::string kBurst =
    "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
    "5,ChatGPT,472,18,490,Conversation log\n"
    "45,ChatGPT,1087,0,1087,Conversation log\n"
    "118,GPT-4,417,276,693,API log\n";
const std::string kMooncake =
    "{\"timestamp\": 0, \"input_length\": 655, \"output_length\": 52, \"hash_ids\": [46, 47]}\n"
    "{\"timestamp\": 10535, \"input_length\": 672, \"output_length\": 26, \"hash_ids\": [46]}\n"
    "{\"timestamp\": 27482, \"input_length\": 655, \"output_length\": 52, \"hash_ids\": []}\n";

}  // namespace

TEST_CASE("public traces: the format is detected from the first line", "[trace][public]") {
  CHECK(detect_trace_format("TIMESTAMP,ContextTokens,GeneratedTokens") == TraceFormat::kAzure);
  CHECK(detect_trace_format("\xEF\xBB\xBFTIMESTAMP,ContextTokens,GeneratedTokens\r") ==
        TraceFormat::kAzure);
  CHECK(detect_trace_format(
            "Timestamp,Session ID,Elapsed time,Model,Request tokens,Response tokens,Total "
            "tokens,Log Type") == TraceFormat::kBurstGpt);
  CHECK(detect_trace_format("{\"timestamp\": 0}") == TraceFormat::kMooncake);
  CHECK(detect_trace_format("arrival_s,input_tokens,output_tokens") == TraceFormat::kScoville);
  CHECK_FALSE(detect_trace_format("time,prompt,completion").has_value());
  CHECK(trace_format_from_name("burstgpt") == TraceFormat::kBurstGpt);
  CHECK_FALSE(trace_format_from_name("azure-2023").has_value());
}

TEST_CASE("public traces: Azure wall-clock timestamps become seconds from the first request",
          "[trace][public]") {
  const RequestPlan plan = parse(kAzure);
  REQUIRE(plan.requests.size() == 3);
  CHECK(plan.format == "azure");
  CHECK(plan.requests[0].arrival.si() == 0.0);
  // 50.9951690 - 46.6805900 s, kept to the 100 ns digits.
  CHECK(plan.requests[1].arrival.si() == Approx(4.314579).margin(1e-9));
  CHECK(plan.requests[2].arrival.si() == Approx(13.31941).margin(1e-9));
  CHECK(plan.requests[1].input_tokens == 396);
  CHECK(plan.requests[1].output_tokens == 109);
  CHECK(plan.requests[2].line == 4);
}

TEST_CASE("public traces: wall clocks across a day, a month and a time zone", "[trace][public]") {
  const auto a = parse_wall_clock("2024-02-28 23:59:59.5");
  const auto b = parse_wall_clock("2024-02-29T00:00:00.25");  // 2024 is a leap year
  const auto c = parse_wall_clock("2024-03-01 02:00:00+02:00");
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(c);
  CHECK(static_cast<double>(b->seconds - a->seconds) + (b->fraction - a->fraction) == Approx(0.75));
  CHECK(c->seconds - b->seconds == 86400);  // 02:00 at +02:00 is midnight UTC
  CHECK(parse_wall_clock("1970-01-01 00:00:00")->seconds == 0);
  CHECK_FALSE(parse_wall_clock("2023-02-29 00:00:00"));  // not a leap year
  CHECK_FALSE(parse_wall_clock("2023-11-16 25:00:00"));
  CHECK_FALSE(parse_wall_clock("2023-11-16 18:15"));
  CHECK_FALSE(parse_wall_clock("2023-11-16 18:15:46."));
  CHECK_FALSE(parse_wall_clock("2023-11-16 18:15:46 UTC"));
}

TEST_CASE("public traces: BurstGPT's failed requests (0 response tokens) are skipped and counted",
          "[trace][public]") {
  const RequestPlan plan = parse(kBurst);
  REQUIRE(plan.requests.size() == 2);
  CHECK(plan.skipped_rows == 1);
  CHECK(plan.format == "burstgpt");
  CHECK(plan.requests[0].arrival.si() == 0.0);
  CHECK(plan.requests[1].arrival.si() == 113.0);
  CHECK(plan.requests[1].input_tokens == 417);
  CHECK(plan.requests[1].output_tokens == 276);
  CHECK(plan.requests[1].id == 1);
}

TEST_CASE("public traces: Mooncake timestamps are milliseconds", "[trace][public]") {
  const RequestPlan plan = parse(kMooncake);
  REQUIRE(plan.requests.size() == 3);
  CHECK(plan.format == "mooncake");
  CHECK(plan.requests[1].arrival.si() == Approx(10.535));
  CHECK(plan.requests[2].arrival.si() == Approx(27.482));
  CHECK(plan.requests[2].output_tokens == 52);
}

TEST_CASE("public traces: window, row limit and time scale", "[trace][public]") {
  TraceSelection window;
  window.window_start_s = 5.0;
  window.window_end_s = 20.0;
  const RequestPlan w = parse(kMooncake, TraceFormat::kAuto, window);
  REQUIRE(w.requests.size() == 1);
  CHECK(w.requests[0].arrival.si() == Approx(10.535 - 5.0));
  CHECK(w.requests[0].id == 0);

  TraceSelection limit;
  limit.max_requests = 2;
  limit.time_scale = 0.5;
  const RequestPlan l = parse(kMooncake, TraceFormat::kMooncake, limit);
  REQUIRE(l.requests.size() == 2);
  CHECK(l.requests[1].arrival.si() == Approx(10.535 * 0.5));

  // Scoville's own CSV takes the same selection, on its own clock (arrival_s).
  const RequestPlan own = parse("arrival_s,input_tokens,output_tokens\n1,8,8\n2,8,8\n3,8,8\n",
                                TraceFormat::kAuto, window = TraceSelection{2.0, 1.5, 3.0, 0});
  REQUIRE(own.requests.size() == 1);
  CHECK(own.requests[0].arrival.si() == Approx((2.0 - 1.5) * 2.0));

  TraceSelection empty;
  empty.window_start_s = 100.0;
  CHECK_THROWS_WITH(parse(kMooncake, TraceFormat::kAuto, empty),
                    Catch::Contains("no requests selected"));
  TraceSelection bad;
  bad.time_scale = 0.0;
  CHECK_THROWS_WITH(parse(kMooncake, TraceFormat::kAuto, bad), Catch::Contains("time_scale"));
}

TEST_CASE("public traces: every bad row is refused at its line and column", "[trace][public]") {
  const std::string azure_header = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  CHECK_THAT(error_text(azure_header + "2023-11-16 18:15:46.68,374,44\n2023-11-16,1,1\n"),
             Catch::Contains("t.trace:3:1: TIMESTAMP: expected a date and time"));
  CHECK_THAT(error_text(azure_header + "2023-11-16 18:15:46.68,-3,44\n"),
             Catch::Contains("t.trace:2:24: ContextTokens: expected an integer number of tokens"));
  CHECK_THAT(error_text(azure_header + "2023-11-16 18:15:46,374,4.5\n"),
             Catch::Contains("t.trace:2:25: GeneratedTokens") && Catch::Contains("'4.5'"));
  CHECK_THAT(error_text(azure_header + "2023-11-16 18:15:46,1,1\n2023-11-16 18:15:45,1,1\n"),
             Catch::Contains("t.trace:3:1: TIMESTAMP: arrivals must be in non-decreasing order"));
  CHECK_THAT(error_text(azure_header + "2023-11-16 18:15:46,1\n"),
             Catch::Contains("t.trace:2: expected 3 comma-separated fields"));
  CHECK_THAT(error_text("TIMESTAMP,ContextTokens\n2023-11-16 18:15:46,1\n", TraceFormat::kAzure),
             Catch::Contains("t.trace:1: GeneratedTokens: missing column"));

  const std::string burst_header = "Timestamp,Model,Request tokens,Response tokens\n";
  CHECK_THAT(error_text(burst_header + "nan,ChatGPT,1,1\n"),
             Catch::Contains("t.trace:2:1: Timestamp: expected a non-negative number of seconds"));
  CHECK_THAT(error_text(burst_header + "1,ChatGPT,1,many\n"),
             Catch::Contains("t.trace:2:13: Response tokens"));

  CHECK_THAT(error_text("{\"timestamp\": 0, \"input_length\": 5}\n"),
             Catch::Contains("t.trace:1: output_length: missing key"));
  CHECK_THAT(error_text("{\"timestamp\": \"0\", \"input_length\": 5, \"output_length\": 5}\n"),
             Catch::Contains("t.trace:1:15: timestamp: expected a JSON number"));
  CHECK_THAT(error_text("{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 5}\n"
                        "{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 5, "
                        "\"hash_ids\": [1, -2]}\n"),
             Catch::Contains("t.trace:2:") && Catch::Contains("hash_ids: expected a list"));
  CHECK_THAT(error_text("{\"timestamp\": 0, \"input_length\": 5\n"),
             Catch::Contains("t.trace:1:") && Catch::Contains("expected one JSON object"));
  CHECK_THAT(error_text("[1, 2]\n", TraceFormat::kMooncake),
             Catch::Contains("t.trace:1:1: expected one JSON object per line"));

  CHECK_THAT(error_text("time,prompt,completion\n1,2,3\n"),
             Catch::Contains("t.trace:1:1: unknown request trace format"));
  CHECK_THAT(error_text("\n# nothing\n"), Catch::Contains("empty request trace"));
  // Many bad rows: the first 20, then a note, not thousands of lines.
  std::string many = azure_header;
  for (int i = 0; i < 100; ++i) many += "x,1,1\n";
  const std::string e = error_text(many);
  CHECK_THAT(e, Catch::Contains("stopped reading after 20 errors"));
  CHECK_THAT(e, !Catch::Contains("t.trace:30:"));
}

TEST_CASE("public traces: the sample files read through make_request_plan", "[trace][public]") {
  RequestPattern p;
  p.kind = ArrivalKind::kTrace;
  p.trace_path = sample("azure-sample.csv");
  const RequestPlan azure = make_request_plan(p, 1);
  CHECK(azure.requests.size() == 40);
  CHECK(azure.format == "azure");
  p.trace_path = sample("burstgpt-sample.csv");
  const RequestPlan burst = make_request_plan(p, 1);
  CHECK(burst.requests.size() == 38);
  CHECK(burst.skipped_rows == 2);
  p.trace_path = sample("mooncake-sample.jsonl");
  p.trace_selection.max_requests = 10;
  const RequestPlan mooncake = make_request_plan(p, 1);
  CHECK(mooncake.requests.size() == 10);
  // A format given explicitly that does not match the file is refused at its header.
  p.trace_path = sample("azure-sample.csv");
  p.trace_format = TraceFormat::kBurstGpt;
  CHECK_THROWS_WITH(make_request_plan(p, 1), Catch::Contains("Timestamp: missing column"));
  p.trace_path = std::string(SCOVILLE_SOURCE_DIR) + "/workloads/traces/requests";
  p.trace_format = TraceFormat::kAuto;
  CHECK_THROWS_WITH(make_request_plan(p, 1), Catch::Contains("is a folder"));
}
