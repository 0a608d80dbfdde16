// `scoville trace`'s summary of one mapped iteration: per chip role and layer, the FLOPs, weight,
// KV and collective bytes per chip, and the memory footprint, as text or JSON.
#pragma once

#include <ostream>
#include <vector>

#include "workloads/mapping/map_iteration.hpp"
#include "workloads/mapping/memory_footprint.hpp"
#include "workloads/model_config.hpp"

namespace scoville::output {

// `have_hbm`: the footprints carry an HBM capacity (the KV left over is shown).
void render_iteration_text(std::ostream& out, const workloads::ModelConfig& model,
                           const workloads::MappedIteration& mapped,
                           const std::vector<workloads::MemoryFootprint>& memory, bool have_hbm);
void render_iteration_json(std::ostream& out, const workloads::ModelConfig& model,
                           const workloads::MappedIteration& mapped,
                           const std::vector<workloads::MemoryFootprint>& memory, bool have_hbm);

}  // namespace scoville::output
