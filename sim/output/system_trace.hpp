// Chrome Trace Event JSON for `scoville run --system ... --trace FILE.json`: the simulated
// iterations of the pool laid end to end, each with the critical path of every pipeline stage
// (ops and collectives of its slowest role); every collective and KV transfer on that path
// replayed flow by flow on the system's network (models/network/flow_replay.hpp, as `net
// --trace`): a process per chip taking part with a thread of its collectives and a thread per
// outgoing link used, a process for the switches' links, and a flow arrow per transfer.
#pragma once

#include <string>
#include <vector>

#include "models/network/topology.hpp"
#include "sim/engine/system_study.hpp"
#include "sim/output/perfetto_trace.hpp"
#include "sim/output/provenance.hpp"

namespace scoville::output {

// The chips `options.chips` (--trace-chips) keeps, by chip number of a system of `chips`: all of
// them when it names none. Throws InputError at --trace-chips for anything else, so a run can
// check it before simulating.
std::vector<bool> selected_trace_chips(const std::vector<std::string>& wanted, int chips);

// --trace-chips keeps those chips, the links into and out of them, and arrows between kept chips.
std::string render_system_trace(const models::Topology& topology, const engine::SystemSetup& setup,
                                const std::vector<engine::SystemTimelineIteration>& iterations,
                                const Provenance& provenance, const TraceOptions& options);

}  // namespace scoville::output
