// Collectives and their algorithms, registered by name and expanded into a Schedule: steps of
// transfers that run one after another (a step starts when the previous one is delivered, the
// data dependency of each algorithm), each step's transfers concurrently on the network.
//
// Sizes follow nccl-tests: all_reduce and broadcast move a buffer of S bytes; all_gather's S is
// the gathered output (each rank contributes S/n); reduce_scatter's S is the input (each rank
// keeps S/n); all_to_all's S is each rank's send buffer (S/n to every rank); send_recv sends S.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/units.hpp"

namespace scoville::models {

class Topology;

struct Transfer {
  int32_t src = 0;  // endpoint ids
  int32_t dst = 0;
  Bytes bytes;
};

struct Step {
  std::vector<Transfer> transfers;
  // Instead of transfers: every member sends all_pairs_bytes to every other member. Kept
  // implicit so that the symmetric timing can avoid a flow per pair.
  std::vector<int32_t> all_pairs_members;
  Bytes all_pairs_bytes;
  int64_t repeat = 1;  // the same step this many times in a row
  std::string label;   // e.g. "local reduce-scatter"
};

using Schedule = std::vector<Step>;

// The ranks taking part: endpoint ids in ring order, and the same ranks grouped by domain (each
// group in ring order) for hierarchical algorithms.
struct Communicator {
  std::vector<int32_t> ring;
  std::vector<std::vector<int32_t>> domains;
  int64_t size() const { return static_cast<int64_t>(ring.size()); }
};

// Endpoints [first, first + ranks) of `topology` (all when ranks is 0 and first is 0), in the
// topology's ring order: a pool placed after another pool's chips (disaggregated serving puts the
// decode pool after the prefill pool) talks over its own endpoints, which may straddle domains.
Communicator make_communicator(const Topology& topology, int64_t ranks, int64_t first = 0);

struct Algorithm {
  std::string name;
  // Why the algorithm cannot run on this communicator, or nullopt when it can.
  std::function<std::optional<std::string>(const Communicator&)> not_applicable;
  std::function<Schedule(const Communicator&, Bytes)> expand;
  // Only offered where the system describes a collective library (network.collectives): NVLS
  // needs switches that reduce, one-shot is a serving stack's custom kernel. Without a library
  // the policy leaves them out, so that the hardware-only model is what it was.
  bool library_only = false;
};

struct CollectiveDef {
  std::string name;
  // nccl-tests' bus-bandwidth factor: busbw = algbw x factor(n).
  std::function<double(int64_t)> bus_factor;
  std::vector<Algorithm> algorithms;  // in policy tie-break order

  const Algorithm* find(const std::string& algorithm) const;
  std::vector<std::string> algorithm_names() const;
};

// Registry of collectives (all_reduce, all_gather, reduce_scatter, all_to_all, broadcast,
// send_recv). Throws InputError naming the known ones for an unknown name.
CollectiveDef collective(const std::string& name);
std::vector<std::string> collective_names();

// all_to_allv: sizes[i][j] bytes from ring rank i to ring rank j, one direct step.
Schedule all_to_allv(const Communicator& comm, const std::vector<std::vector<Bytes>>& sizes);

// Pipeline depth of the ring broadcast (chunks per buffer).
inline constexpr int64_t kBroadcastChunks = 16;

}  // namespace scoville::models
