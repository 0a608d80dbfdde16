// Export of a ChipTrace as an MLCommons Chakra execution trace (ET), the workload format of
// ASTRA-sim. One file per rank, "<prefix>.<rank>.et": [varint32 length][GlobalMetadata], then
// [varint32 length][Node] per node, uncompressed (ASTRA-sim's FeederV3 reads raw streams).
// The mapping ChipTrace -> Chakra is in docs/traces-chakra.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workloads/trace/chip_trace.hpp"

namespace scoville::workloads {

struct ChakraWriteOptions {
  // Communicator ids for pg_name, by ChipTrace group name (e.g. "tp" -> 1). ASTRA-sim parses
  // pg_name as an integer id (> 0; 0 and "" mean all ranks) and looks it up in the JSON given
  // with --comm-group-configuration, so a group name such as "tp" must not reach it. A group not
  // listed here is written without pg_name: ASTRA-sim then runs the collective over all ranks.
  std::map<std::string, int64_t> communicator_ids;
  // Each compute node's time on Scoville's chip model, by node id. When given (for every compute
  // node: std::invalid_argument otherwise), nodes get duration_micros for ASTRA-sim's replay
  // (chakra::micros_with_carry over the compute nodes in file order) and scoville.duration_s.
  std::map<uint64_t, Duration> compute_durations;
};

// The byte stream of one rank's trace. Deterministic: the same trace gives the same bytes.
// Throws std::invalid_argument for a communicator id <= 0 (a caller's mistake, not input).
std::string encode_chakra_trace(const ChipTrace& trace, const ChakraWriteOptions& options = {});

// Writes encode_chakra_trace(trace) to path atomically (temporary file in the same directory,
// fsync, rename). Throws scoville::OutputError naming path and the OS reason.
void write_chakra_trace(const ChipTrace& trace, const std::string& path,
                        const ChakraWriteOptions& options = {});

// "<prefix>.<rank>.et", the name ASTRA-sim opens for each NPU of --workload-configuration=<prefix>.
std::string chakra_trace_path(const std::string& prefix, int64_t rank);

// Writes one file per trace, named by its rank; returns the paths in the order of traces.
// Throws std::invalid_argument if two traces have the same rank.
std::vector<std::string> write_chakra_traces(const std::vector<ChipTrace>& traces,
                                             const std::string& prefix,
                                             const ChakraWriteOptions& options = {});

}  // namespace scoville::workloads
