// Times the collectives of a mapped iteration on the system's network (models::NetworkModel, the
// flow model with all endpoints). A chip trace names a collective by its parallel group ("tp",
// "ep", "attn_tp", "attn_dp", "pp"); this class finds every instance of that group in the pool
// (one per replica, per attention group, ...), runs them all at once so that groups sharing links
// share their bandwidth, and caches the result: a layer's collectives repeat in every layer.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "models/network/network_model.hpp"
#include "workloads/trace/chip_trace.hpp"

namespace scoville::engine {

struct CollectiveTiming {
  Duration time;
  // Of `time`, the collective library's launch and handshakes (models/network/
  // collective_library.hpp); the rest is the schedule's wire time.
  Duration library_time;
  Energy energy;           // every instance of the group together
  Bytes bytes;             // sent over the network by every instance together
  bool scale_out = false;  // some group spans more than one local domain
  std::string algorithm;
  // The schedule `time` was measured on (timelines replay it flow by flow): every instance, or
  // the first local domain's when the domains are alike. Null when nothing moved.
  std::shared_ptr<const models::Schedule> schedule;
};

// The network model's name of a collective kind ("all_reduce", ..., "send_recv").
std::string network_name(workloads::CollectiveKind kind);
// Trace bytes (Collective::bytes, per chip) -> the network's size (nccl-tests convention).
Bytes network_size(const workloads::Collective& c);
// The communicator of endpoints `members`, in the topology's ring order and grouped by domain.
models::Communicator communicator_of(const models::Topology& topology,
                                     const std::vector<int32_t>& members);

class CollectiveTimer {
 public:
  // Ranks of the pool are endpoints first_endpoint .. first_endpoint + chips - 1 (rank numbering
  // of workloads/mapping, offset: a decode pool placed after the prefill pool's chips).
  CollectiveTimer(const models::Topology& topology, const workloads::ParallelDegrees& degrees,
                  int64_t chips, int64_t first_endpoint = 0);

  // One collective node of a role of pipeline stage `stage`. Receives cost nothing (the matching
  // send is timed).
  CollectiveTiming time(const workloads::Collective& collective, int64_t stage);

  // Every member of every `group` instance of `stage` reads `per_pair` bytes from every other
  // member at once (striped KV reads), as one all-pairs step.
  CollectiveTiming exchange(const std::string& group, int64_t stage, Bytes per_pair);
  // Each rank of the pool sends `bytes` to the endpoint `offset` after it (a KV hand-over
  // between pools).
  CollectiveTiming shift(int64_t offset, Bytes bytes);

  // The endpoint groups `group` forms in `stage` (exposed for tests).
  std::vector<std::vector<int32_t>> groups(const std::string& group, int64_t stage) const;

  int64_t cache_size() const { return static_cast<int64_t>(cache_.size()); }

 private:
  CollectiveTiming run(const workloads::Collective& collective, int64_t stage);
  models::Communicator communicator(const std::vector<int32_t>& members) const;

  const models::Topology* topology_;
  models::NetworkModel network_;
  workloads::ParallelDegrees degrees_;
  int64_t chips_;
  int64_t first_;  // endpoint of rank 0
  std::map<std::tuple<int, std::string, int64_t, double, int64_t>, CollectiveTiming> cache_;
};

}  // namespace scoville::engine
