// Chrome Trace Event JSON for one collective replayed flow by flow (`scoville net --trace`): a
// process per chip with a thread of the collective's steps and a thread per outgoing link, a
// process for the switches' links, flow arrows from each transfer's sender to its receiver, and
// a counter of the bytes each chip sends.
#pragma once

#include <string>

#include "models/network/flow_replay.hpp"
#include "models/network/topology.hpp"
#include "sim/output/perfetto_trace.hpp"
#include "sim/output/provenance.hpp"

namespace scoville::output {

std::string render_network_trace(const models::Topology& topology, const models::Replay& replay,
                                 const std::string& title, const Provenance& provenance,
                                 const TraceOptions& options);

}  // namespace scoville::output
