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

bool read_request_trace_flag(ArgReader& a, RequestTraceArgs& t) {
  if (a.is("--requests")) {
    t.requests = a.value();
  } else if (a.is("--trace-format")) {
    t.format = a.value();
  } else if (a.is("--time-scale")) {
    t.time_scale = a.value();
  } else if (a.is("--window-start")) {
    t.window_start = a.value();
  } else if (a.is("--window-end")) {
    t.window_end = a.value();
  } else if (a.is("--max-requests")) {
    t.max_requests = a.count();
  } else {
    return false;
  }
  return true;
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
