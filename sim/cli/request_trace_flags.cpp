#include "sim/cli/request_trace_flags.hpp"

#include <charconv>
#include <cmath>

#include "sim/base/unit_parser.hpp"

namespace scoville::cli {

namespace {

double seconds_of(const std::string& flag, const std::string& value) {
  // A plain number is seconds; otherwise a duration with its unit ("10 ms", "600 s").
  double plain = 0.0;
  const auto r = std::from_chars(value.data(), value.data() + value.size(), plain);
  if (r.ec == std::errc() && r.ptr == value.data() + value.size() && std::isfinite(plain)) {
    return plain;
  }
  try {
    return parse_quantity(value, Dimension::kDuration);
  } catch (const UnitParseError& e) {
    throw UsageError(flag + ": " + e.what());
  }
}

}  // namespace

void declare_request_trace_flags(OptionSet& options, const std::string& requests_help) {
  options.text("--requests", "FILE", requests_help)
      .text("--trace-format", "NAME", "auto (default), scoville, azure, burstgpt or mooncake")
      .text("--time-scale", "F", "multiply arrival times by F (0.5 replays twice as fast)")
      .text("--window-start", "T",
            "replay from T after the trace's first request (e.g. '600 s'); arrivals are shifted "
            "to start at 0")
      .text("--window-end", "T", "replay requests arriving before T")
      .count("--max-requests", "N", "replay the first N requests (of the window)");
}

RequestTraceArgs request_trace_args(const ParsedOptions& p) {
  RequestTraceArgs t;
  t.requests = p.text("--requests");
  t.format = p.text("--trace-format");
  t.time_scale = p.text("--time-scale");
  t.window_start = p.text("--window-start");
  t.window_end = p.text("--window-end");
  t.max_requests = p.count("--max-requests");
  return t;
}

void apply_request_trace_args(const RequestTraceArgs& t, workloads::RequestPattern& pattern) {
  if (t.requests) {
    // The trace replaces the scenario's requests: a pure replay, each request sent at its time.
    pattern.kind = workloads::ArrivalKind::kTrace;
    pattern.trace_path = *t.requests;
    pattern.max_concurrency = 0;
    pattern.trace_selection = {};
    pattern.trace_format = workloads::TraceFormat::kAuto;
  }
  const bool selects = t.format || t.time_scale || t.window_start || t.window_end || t.max_requests;
  if (selects && pattern.kind != workloads::ArrivalKind::kTrace) {
    throw UsageError(
        "--trace-format, --time-scale, --window-start, --window-end and --max-requests need a "
        "request trace: --requests FILE, or a scenario with requests.pattern: trace");
  }
  workloads::TraceSelection& s = pattern.trace_selection;
  if (t.format) {
    const auto format = workloads::trace_format_from_name(*t.format);
    if (!format) {
      throw UsageError(
          "--trace-format: expected auto, scoville, azure, burstgpt or mooncake, got '" +
          *t.format + "'");
    }
    pattern.trace_format = *format;
  }
  if (t.time_scale) {
    double f = 0.0;
    const std::string& v = *t.time_scale;
    const auto r = std::from_chars(v.data(), v.data() + v.size(), f);
    if (r.ec != std::errc() || r.ptr != v.data() + v.size() || !(f > 0.0) || !std::isfinite(f)) {
      throw UsageError("--time-scale: expected a positive factor, got '" + v + "'");
    }
    s.time_scale = f;
  }
  if (t.window_start) {
    s.window_start_s = seconds_of("--window-start", *t.window_start);
    if (!(s.window_start_s >= 0.0)) throw UsageError("--window-start: expected a time >= 0");
  }
  if (t.window_end) s.window_end_s = seconds_of("--window-end", *t.window_end);
  if (s.window_end_s && !(*s.window_end_s > s.window_start_s)) {
    throw UsageError("--window-end: expected a time after the window's start");
  }
  if (t.max_requests) s.max_requests = *t.max_requests;
}

}  // namespace scoville::cli
