// The request-trace flags of `serve`: --requests FILE replays a trace (Scoville's CSV, Azure,
// BurstGPT or Mooncake; workloads/requests/public_trace_formats.hpp) instead of the scenario's
// requests, and --trace-format, --time-scale, --window-start, --window-end and --max-requests
// choose how (over the scenario's own trace settings too).
#pragma once

#include <optional>
#include <string>

#include "sim/cli/option_set.hpp"
#include "workloads/requests/request_pattern.hpp"

namespace scoville::cli {

struct RequestTraceArgs {
  std::optional<std::string> requests;
  std::optional<std::string> format;
  std::optional<std::string> time_scale;
  std::optional<std::string> window_start;
  std::optional<std::string> window_end;
  std::optional<long long> max_requests;
};

// Declares --requests (`requests_help` says what it replaces) and the flags that choose how the
// trace is read: --trace-format, --time-scale, --window-start, --window-end, --max-requests.
void declare_request_trace_flags(OptionSet& options, const std::string& requests_help);
// Their values.
RequestTraceArgs request_trace_args(const ParsedOptions& p);

// Applies the flags over the scenario's requests. UsageError for a bad value, or for selection
// flags when neither --requests nor the scenario gives a trace.
void apply_request_trace_args(const RequestTraceArgs& t, workloads::RequestPattern& pattern);

}  // namespace scoville::cli
