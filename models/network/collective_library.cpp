#include "models/network/collective_library.hpp"

namespace scoville::models {

std::vector<LibraryCandidate> library_candidates(const CollectiveLibraryParams& library,
                                                 const std::string& collective, int64_t ranks,
                                                 bool within_domain, bool custom) {
  std::vector<LibraryCandidate> out;
  const auto with_protocols = [&](const std::string& algorithm, Duration fixed) {
    for (const ProtocolParams& p : library.protocols) {
      out.push_back({algorithm, p.name, fixed, p.per_step, p.efficiency});
    }
  };
  if (collective == "all_to_all") {
    // Grouped send/recv: one step, a send/recv pair per peer set up in turn.
    const Duration fixed =
        library.all_to_all_latency + library.per_peer * static_cast<double>(ranks - 1);
    with_protocols("direct", fixed);
    return out;
  }
  if (collective == "send_recv") {
    with_protocols("direct", library.launch);
    return out;
  }
  // Ring for everything; NCCL's tree is a chain inside one NVLink domain (the same dependent
  // steps as the ring) and a double binary tree only across nodes, where `hierarchical` stands in.
  with_protocols("ring", library.launch);
  if (collective != "all_reduce") return out;
  with_protocols("hierarchical", library.launch);
  if (library.nvls && within_domain) {
    out.push_back({"nvls", "", library.launch + library.nvls->latency, Duration(0),
                   library.nvls->efficiency});
  }
  if (library.all_pairs && within_domain) {
    // The library's own algorithm (what rccl-tests measures), with or without custom kernels.
    out.push_back({"direct", "all-pairs", library.all_pairs->latency, Duration(0),
                   library.all_pairs->efficiency});
  }
  if (custom && library.custom_all_reduce && within_domain) {
    const CallCostParams& c = *library.custom_all_reduce;
    out.push_back({"one_shot", "", c.latency, Duration(0), c.efficiency});
    out.push_back({"direct", "", c.latency, Duration(0), c.efficiency});  // two-shot
  }
  return out;
}

Duration library_overhead(const LibraryCandidate& candidate, int64_t steps) {
  return candidate.fixed + candidate.per_step * static_cast<double>(steps);
}

}  // namespace scoville::models
