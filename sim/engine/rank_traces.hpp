// A multi-rank Chakra trace as ASTRA-sim takes it: files PREFIX.<rank>.et for ranks 0..N-1,
// given as the prefix or as the directory holding them, with each collective's members resolved
// (pg_name through ASTRA-sim's communicator JSON, Scoville's own group names through the
// parallel degrees, otherwise all ranks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/trace/chakra_reader.hpp"

namespace scoville::engine {

struct RankTrace {
  std::string file;
  workloads::ChakraTrace chakra;
  // Per node (index as in chakra.trace.nodes): the ranks of a collective, in increasing order
  // (send/recv: source then destination); empty for compute nodes.
  std::vector<std::vector<int64_t>> members;
};

struct RankTraceSet {
  std::string prefix;
  std::vector<RankTrace> ranks;  // by rank
  // How groups were found, one line per kind (printed once, not per node).
  std::vector<std::string> assumptions;
};

// Throws InputError (file, node, field, what was expected) for: no files, a gap in the ranks,
// several prefixes in a directory, a pg_name the communicator JSON lacks or that does not hold
// the rank, a pg_name without a JSON, a malformed JSON, a send/recv peer outside the ranks, and
// everything read_chakra_trace refuses.
RankTraceSet load_rank_traces(const std::string& dir_or_prefix,
                              const std::optional<std::string>& comm_groups_json);

}  // namespace scoville::engine
