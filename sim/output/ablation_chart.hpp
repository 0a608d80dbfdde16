// The charts of a `scoville ablate -o` results file (its /ablation table) in `scoville report`:
// per variant (a category: the values of its varied keys, the first marked as the baseline the
// table's relative columns compare with) the phase, KV-transfer and network times side by side,
// and the energy beside the KV transfers' share. Drawn by the one chart module
// (sim/output/svg_chart).
#pragma once

#include <sstream>
#include <string>

#include "sim/output/h5_writer.hpp"

namespace scoville::output {

// Appends the charts; false (nothing written) when `doc` has no /ablation table with rows.
bool render_ablation_charts(std::ostringstream& out, const H5Document& doc, const std::string& name,
                            int& next_id);

}  // namespace scoville::output
