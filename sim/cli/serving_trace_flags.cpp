#include "sim/cli/serving_trace_flags.hpp"

#include "sim/base/atomic_file.hpp"

namespace scoville::cli {

void declare_serving_trace_flags(OptionSet& options, const std::string& trace_help) {
  options.text("--trace", "FILE.json", trace_help)
      .text("--trace-window", "START:END", "keep only that span of the timeline (e.g. '0 s:2 s')")
      .count("--trace-max-events", "N",
             "at most N slices per thread, points per counter and request threads (default "
             "5000)");
}

ServingTraceArgs serving_trace_args(const ParsedOptions& p) {
  ServingTraceArgs t;
  t.output = p.text("--trace");
  t.window = p.text("--trace-window");
  t.max_events = p.count("--trace-max-events");
  return t;
}

output::TraceOptions serving_trace_options(const ServingTraceArgs& t) {
  if ((t.window || t.max_events) && !t.output) {
    throw UsageError("--trace-window and --trace-max-events need --trace FILE.json");
  }
  output::TraceOptions options;
  if (t.window) output::parse_trace_window(*t.window, options);
  if (t.max_events) output::parse_trace_max_events(*t.max_events, options);
  return options;
}

void write_serving_trace(const std::string& path, const serving::ServingSystem& system,
                         const serving::ServingResult& result,
                         const output::ServingTimelineRecorder& recorder, const std::string& title,
                         const output::Provenance& provenance,
                         const output::TraceOptions& options) {
  write_text_atomically(
      path, output::render_serving_trace(system, result, recorder, title, provenance, options));
}

}  // namespace scoville::cli
