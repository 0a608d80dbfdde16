// Mapping YAML -> workloads::MappingConfig: one entry per pool under a top-level `mapping:` key,
//   mapping:
//     prefill: {chips: 8, tp: 8}
//     decode:  {chips: 16, tp: 8, ep: 8, dp: 2, attn_dp: 8}
// `chips` is required; each degree (tp, ep, pp, dp, attn_dp) defaults to 1, and
// sequence_parallel (true / false) to false. Each pool keeps its
// file position, so that validate_mapping() (which needs the model) reports errors there.
#pragma once

#include <string>

#include "sim/base/yaml_reader.hpp"
#include "workloads/mapping/pool_mapping.hpp"

namespace scoville::config {

// Reads the pools of a `mapping:` section; problems go to the reader's diagnostics.
workloads::MappingConfig parse_mapping(MapReader& section);

// A file whose top level is `mapping:`; throws InputError listing every problem.
workloads::MappingConfig load_mapping(const std::string& path);
workloads::MappingConfig load_mapping_string(const std::string& yaml,
                                             const std::string& display_name);

}  // namespace scoville::config
