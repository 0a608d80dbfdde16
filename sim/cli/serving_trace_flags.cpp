#include "sim/cli/serving_trace_flags.hpp"

#include "sim/base/atomic_file.hpp"

namespace scoville::cli {

bool read_serving_trace_flag(ArgReader& a, ServingTraceArgs& t) {
  if (a.is("--trace")) {
    t.output = a.value();
  } else if (a.is("--trace-window")) {
    t.window = a.value();
  } else if (a.is("--trace-max-events")) {
    t.max_events = a.count();
  } else {
    return false;
  }
  return true;
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
