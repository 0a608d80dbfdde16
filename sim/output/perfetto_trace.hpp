// Chrome Trace Event JSON (loads in Perfetto and chrome://tracing) for a study's simulated
// iterations: a process per chip; threads for iterations, layers and ops (one slice level per
// thread, so slices on a thread never overlap); counters for HBM bandwidth and power.
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
};

// Throws InputError (naming --trace-chips) when a requested chip is not in the study.
std::string render_perfetto_json(const engine::StudyResult& result, const Provenance& provenance,
                                 const TraceOptions& options);

// Parses "--trace-window START:END" (each a duration with a unit, e.g. "0 s:2 ms"; either side
// may be empty for open-ended). Throws InputError naming the flag.
void parse_trace_window(const std::string& text, TraceOptions& options);

}  // namespace scoville::output
