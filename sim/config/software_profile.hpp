// Software overheads of a serving stack, as explicit parameters of the system, separate from the
// hardware (arch/software/*.yaml): what a chip pays per op (kernel launch), per layer
// (synchronisation), per collective call (the collective kernel's launch and cross-chip handshake,
// which the network model's wire and switch latencies do not contain) and per iteration (host
// scheduling) on top of its hardware time. A study without a `software:` entry pays none (all
// zero): its times are hardware times.
#pragma once

#include <string>

#include "sim/base/units.hpp"
#include "sim/config/data_paths.hpp"

namespace scoville::config {

struct SoftwareProfile {
  std::string name;  // empty: no profile (zero overheads)
  std::string description;
  Duration per_op_launch;   // each op (kernel) pays this before it starts
  Duration per_layer_sync;  // each layer pays this once (barrier between layers)
  Duration per_iteration;   // each iteration (prefill pass or decode step) pays this once
  Duration per_collective;  // each collective call (optional key, default 0)
  // Each all-to-all call instead (optional key, default per_collective): an expert-parallel
  // dispatch or combine kernel also packs tokens per destination and signals each peer, which
  // a ring all-reduce's launch and handshake do not.
  Duration per_all_to_all;

  // Software time of an iteration of `ops` ops over `layers` layers with `collectives` calls,
  // `all_to_all_calls` of which are all-to-alls.
  Duration overhead(int64_t ops, int64_t layers, int64_t collectives = 0,
                    int64_t all_to_all_calls = 0) const {
    return per_op_launch * static_cast<double>(ops) + per_layer_sync * static_cast<double>(layers) +
           per_collective * static_cast<double>(collectives - all_to_all_calls) +
           per_all_to_all * static_cast<double>(all_to_all_calls) + per_iteration;
  }
};

SoftwareProfile parse_software_string(const std::string& yaml, const std::string& display_name);
SoftwareProfile parse_software(const std::string& path);
// By file path or by name (arch/software/<name>.yaml).
SoftwareProfile load_software(const std::string& name_or_path, const DataPaths& paths);

}  // namespace scoville::config
