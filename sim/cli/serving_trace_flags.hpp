// The timeline flags `serve` and `inferencex` share: --trace FILE.json, --trace-window and
// --trace-max-events (the semantics of `run`'s, sim/output/perfetto_trace.hpp), and writing the
// serving timeline of a run (sim/output/serving_trace.hpp).
#pragma once

#include <optional>
#include <string>

#include "sim/cli/option_set.hpp"
#include "sim/output/perfetto_trace.hpp"
#include "sim/output/serving_trace.hpp"

namespace scoville::cli {

struct ServingTraceArgs {
  std::optional<std::string> output;
  std::optional<std::string> window;
  std::optional<long long> max_events;
};

// Declares --trace (`trace_help` says what the timeline shows), --trace-window and
// --trace-max-events.
void declare_serving_trace_flags(OptionSet& options, const std::string& trace_help);
// Their values.
ServingTraceArgs serving_trace_args(const ParsedOptions& p);

// The options from the flags; UsageError when --trace-window or --trace-max-events come without
// --trace, InputError for a bad value.
output::TraceOptions serving_trace_options(const ServingTraceArgs& t);

// Renders and writes the timeline atomically.
void write_serving_trace(const std::string& path, const serving::ServingSystem& system,
                         const serving::ServingResult& result,
                         const output::ServingTimelineRecorder& recorder, const std::string& title,
                         const output::Provenance& provenance, const output::TraceOptions& options);

}  // namespace scoville::cli
