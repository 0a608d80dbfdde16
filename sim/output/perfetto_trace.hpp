// Chrome Trace Event JSON (loads in Perfetto and chrome://tracing) for a study's simulated
// iterations: a process per chip; threads for iterations, layers and ops, and (when the study
// recorded activity) one per compute tile and per HBM channel or stack, each with one slice
// level, so slices on a thread never overlap; counters for HBM bandwidth and power.
// The simulated iterations of a chip are laid end to end in the order they were simulated (a
// decode sample stands for many real iterations: its `weight` is in the slice's args).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/base/units.hpp"
#include "sim/engine/study_runner.hpp"
#include "sim/output/provenance.hpp"

namespace scoville::output {

struct TraceOptions {
  // Keep only events overlapping [window_start, window_end) of each chip's timeline.
  std::optional<Duration> window_start;
  std::optional<Duration> window_end;
  std::vector<std::string> chips;  // keep only these chips; empty: all
  // At most this many slices per thread and points per counter (the first ones in the window);
  // the rest are counted in the thread's name and in otherData.events_dropped.
  size_t max_events_per_thread = 5000;
};

// The activity window the study must record for these options (same window and cap).
models::ActivityWindow activity_window(const TraceOptions& options);

// Throws InputError (naming --trace-chips) when a requested chip is not in the study.
std::string render_perfetto_json(const engine::StudyResult& result, const Provenance& provenance,
                                 const TraceOptions& options);

// Parses "--trace-max-events N" (at least 1). Throws InputError naming the flag.
void parse_trace_max_events(long long value, TraceOptions& options);

// Parses "--trace-window START:END" (each a duration with a unit, e.g. "0 s:2 ms"; either side
// may be empty for open-ended). Throws InputError naming the flag.
void parse_trace_window(const std::string& text, TraceOptions& options);

}  // namespace scoville::output
