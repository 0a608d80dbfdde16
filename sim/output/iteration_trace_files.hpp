// The trace files of one mapped iteration (`scoville trace -o DIR`): native YAML, one per chip
// role, or Chakra ET, one per rank with ASTRA-sim's communicator file (docs/traces-chakra.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/chip/chip_params.hpp"
#include "workloads/mapping/map_iteration.hpp"

namespace scoville::output {

// Writes into `dir` (created if absent) in `format` ("native" or "chakra") and returns the files
// written. With `chip` (Chakra only), every compute node carries its time on the chip model.
std::vector<std::string> write_iteration_traces(const std::string& dir, const std::string& format,
                                                const workloads::MappedIteration& mapped,
                                                const std::optional<models::ChipParams>& chip);

}  // namespace scoville::output
