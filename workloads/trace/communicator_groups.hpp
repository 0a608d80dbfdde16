// The ranks a collective's group spans: every instance of a parallel group ("tp", "ep",
// "attn_tp", "attn_dp", "pp") in one pipeline stage, for the rank numbering of
// workloads/mapping (rank = (replica x pp + stage) x tp + position in the tp block). The network
// timer and the Chakra exporter (pg_name and ASTRA-sim's communicator JSON) both use it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workloads/trace/chip_trace.hpp"

namespace scoville::workloads {

// Every instance of `group` in `stage`, each as its ranks in increasing order. An unknown name
// (and "tp", "pp") gives the whole tp block of each replica.
std::vector<std::vector<int64_t>> group_instances(const ParallelDegrees& degrees,
                                                  const std::string& group, int64_t stage);

// The pipeline stage of a rank.
int64_t stage_of_rank(const ParallelDegrees& degrees, int64_t rank);

// Communicator ids for the group instances that do not span the whole pool, numbered from 1 in
// the order (group name, stage, instance): what ASTRA-sim's --comm-group-configuration JSON lists
// and what each rank's pg_name names. Groups over all `world` ranks get no id (ASTRA-sim's
// default communicator is every rank).
struct Communicators {
  std::map<int64_t, std::vector<int64_t>> members;        // id -> ranks
  std::map<int64_t, std::map<std::string, int64_t>> ids;  // rank -> group name -> id
};
Communicators assign_communicators(const ParallelDegrees& degrees, int64_t world,
                                   const std::vector<std::string>& groups);

// ASTRA-sim's communicator JSON: {"<id>": [ranks...], ...}, ids in increasing order.
std::string render_communicators_json(const Communicators& c);

}  // namespace scoville::workloads
