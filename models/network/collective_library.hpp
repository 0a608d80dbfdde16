// The cost a collective library adds to the wire time of a collective call: the per-call launch
// and synchronisation, a handshake per dependent step that depends on the protocol, the
// protocol's wire efficiency (flag or header bytes), NVLink SHARP's in-switch reduction, an
// all-pairs all-reduce over every link of a full mesh (RCCL on the 8-GPU Instinct platforms), the
// serving stacks' custom one-shot / two-shot all-reduce kernels, and the per-peer setup of an
// all-to-all. Parameters come from the system file (network.collectives, docs/network.md).
//
// A candidate (algorithm, protocol) of a collective of n ranks on S bytes costs
//
//     time = fixed + steps x per_step + flow(schedule(algorithm, S / efficiency))
//
// where `steps` counts the schedule's dependent steps (repeats included) and `flow` is the
// network model's wire time (max-min shared links plus the hop latencies). The tuner takes the
// candidate of least time, as NCCL's tuner takes the least predicted time (src/graph/tuning.cc).
// Pure: no topology here, the network model supplies steps and wire time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/units.hpp"

namespace scoville::models {

// One of NCCL's protocols: LL (8-byte lines, half of them flags), LL128 (128-byte lines with an
// 8-byte flag) and Simple (bulk copies behind memory fences).
struct ProtocolParams {
  std::string name;
  Duration per_step;        // handshake per dependent step, beyond the wire's hop latency
  double efficiency = 1.0;  // payload share of the bytes the protocol moves, in (0, 1]
};

// A library path priced as one fixed cost per call and a share of the links' bandwidth: NVLS,
// RCCL's all-pairs all-reduce and the serving stacks' custom all-reduce kernels.
struct CallCostParams {
  Duration latency;         // the whole call's fixed cost
  double efficiency = 1.0;  // payload share of the bandwidth the path moves it at, in (0, 1]
};

struct CollectiveLibraryParams {
  Duration launch;  // every ring / tree / NVLS call: kernel launch, entry and exit synchronisation
  std::vector<ProtocolParams> protocols;  // at least one
  Duration all_to_all_latency;            // an all-to-all (grouped send/recv) call
  Duration per_peer;                      // each peer of an all-to-all: its send/recv pair
  // Present: the switches reduce (NVLink SHARP). Latency: multicast setup and the switch round
  // trips; efficiency: payload share at the switch's reduction rate.
  std::optional<CallCostParams> nvls;
  // Present: the library's all-reduce over every link of a full mesh at once. RCCL on the 8-GPU
  // Instinct platforms runs MSCCL's all-pairs algorithms up to 16 MiB and rings on several
  // channels, each on other xGMI links, above; both move a rank's data over all its links. Priced
  // as the `direct` schedule (an all-pairs reduce-scatter, then an all-pairs all-gather).
  // Latency: launch, channel setup, synchronisation; efficiency: payload share of each link.
  std::optional<CallCostParams> all_pairs;
  // Present: one_shot and direct (two-shot) custom kernels. Latency: launch plus the flag
  // barrier; efficiency: the share of link bandwidth the kernel's copies reach.
  std::optional<CallCostParams> custom_all_reduce;
};

// One way to run a collective: an algorithm of the registry with a protocol, and the library's
// cost on top of the schedule's wire time.
struct LibraryCandidate {
  std::string algorithm;
  std::string protocol;  // "" for algorithms with their own (NVLS, custom kernels)
  Duration fixed;
  Duration per_step;
  double efficiency = 1.0;
};

// The (algorithm, protocol) pairs the library offers for `collective` on `ranks` ranks, before
// the registry's applicability test. `within_domain`: every rank in one local domain (NVLS, the
// all-pairs all-reduce and the custom kernels work inside one scale-up domain). `custom`: offer the
// serving stacks' custom all-reduce kernels when the library has them (false: NCCL alone, what
// nccl-tests measures).
std::vector<LibraryCandidate> library_candidates(const CollectiveLibraryParams& library,
                                                 const std::string& collective, int64_t ranks,
                                                 bool within_domain, bool custom);

// fixed + steps x per_step: the library's part of a candidate's time.
Duration library_overhead(const LibraryCandidate& candidate, int64_t steps);

}  // namespace scoville::models
