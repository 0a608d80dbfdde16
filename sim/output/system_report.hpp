// The per-phase report of a system run (`run --system`, `ablate`): text and JSON, and the named
// time and energy components of a phase.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/system_study.hpp"

namespace scoville::output {

void render_system_text(std::ostream& out, const engine::SystemSetup& setup,
                        const engine::SystemStudyConfig& study,
                        const engine::SystemStudyResult& result);
void render_system_json(std::ostream& out, const engine::SystemSetup& setup,
                        const engine::SystemStudyConfig& study,
                        const engine::SystemStudyResult& result);

// Named components of a phase (time in s, energy in J), in report order.
std::vector<std::pair<std::string, double>> time_parts(const engine::SystemIterationResult& r);
std::vector<std::pair<std::string, double>> energy_parts(const engine::SystemIterationResult& r);

}  // namespace scoville::output
