// Import of an MLCommons Chakra execution trace (ET) as a ChipTrace: traces Scoville wrote come
// back exactly (through their "scoville." attributes); foreign ones (PyTorch-derived, ASTRA-sim
// examples, chakra_generator) are imported by the mapping in docs/traces-chakra.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workloads/trace/chip_trace.hpp"

namespace scoville::workloads {

struct ChakraReadOptions {
  // How many ranks a foreign collective spans. Chakra has no group size: pg_name refers to
  // ASTRA-sim's separate communicator JSON, and no pg_name means all ranks. 0 = unknown, in
  // which case such collectives get group_size 1 and a warning.
  int64_t world_size = 0;
};

struct ChakraTrace {
  std::string version;  // GlobalMetadata.version, e.g. "0.0.4"
  ChipTrace trace;      // nodes in a topological order (file order where that already is one)
  // Things imported with a loss or a guess (unknown attributes, CPU ops, replay-only nodes,
  // collectives Scoville approximates), one line per kind of problem, in order of first sight.
  std::vector<std::string> warnings;
  // Each compute node's recorded time, by node id: scoville.duration_s when present, else
  // duration_micros when > 0 (a replay may use it instead of the chip model).
  std::map<uint64_t, Duration> durations;
  // Each collective's pg_name, by node id, where it has one (an ASTRA-sim communicator id).
  std::map<uint64_t, std::string> pg_names;
};

// Reads one rank's file. Throws scoville::InputError naming the file, the record's byte offset
// and the node index for: an unreadable or empty file, a bad varint length, a length past the
// end of the file, a record protobuf cannot parse, a node type or comm_type Scoville does not
// know, an attribute of the wrong type, a duplicate node id, a dependency on a missing node, or
// a dependency cycle. Unknown attributes are warnings, never errors.
ChakraTrace read_chakra_trace(const std::string& path, const ChakraReadOptions& options = {});

// The same, from bytes in memory; `source` names them in messages (and gives the rank when it
// ends in ".<rank>.et" and the trace does not say).
ChakraTrace decode_chakra_trace(const std::string& bytes, const std::string& source,
                                const ChakraReadOptions& options = {});

}  // namespace scoville::workloads
