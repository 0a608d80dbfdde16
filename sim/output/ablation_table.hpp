// An ablation's rows (sim/engine/ablation.hpp) as the terminal table, JSON and the /ablation
// results table (HDF5 or CSV): per variant the value of each varied key, the prefill and decode
// times, the energy, the KV transfer and the network time, each relative to the first row.
#pragma once

#include <ostream>
#include <vector>

#include "sim/engine/ablation.hpp"
#include "sim/output/h5_writer.hpp"

namespace scoville::output {

void print_ablation_table(std::ostream& out, const std::vector<engine::AblationAxis>& axes,
                          const std::vector<engine::AblationRow>& rows);
void print_ablation_json(std::ostream& out, const std::vector<engine::AblationAxis>& axes,
                         const std::vector<engine::AblationRow>& rows);
// One row per variant: a string column per key (named as the key), then the figures in SI
// units and their change relative to the first row (a fraction: 0.1 is +10%).
Table ablation_table(const std::vector<engine::AblationAxis>& axes,
                     const std::vector<engine::AblationRow>& rows);

}  // namespace scoville::output
