// The results file of a system run (`scoville run --system ... -o FILE.h5`, and sweep points
// whose study has `system:`): docs/results-format.md, "System run files". Root attribute
// file_kind = "system"; tables /summary (one row), /phases (one row per phase) and /components
// (one row per phase x component).
#pragma once

#include <string>
#include <vector>

#include "sim/engine/system_study.hpp"
#include "sim/output/h5_writer.hpp"
#include "sim/output/provenance.hpp"

namespace scoville::output {

// What the run knows beyond the setup and the results: its configuration as written and
// resolved, and the files it read (stored verbatim under /config/inputs).
struct SystemRunRecord {
  std::string study_yaml;
  std::string resolved_yaml;
  std::vector<std::string> inputs;
  std::string fidelity;
  std::string overlap;
};

H5Document build_system_h5(const engine::SystemSetup& setup, const engine::SystemStudyConfig& study,
                           const engine::SystemStudyResult& result, const Provenance& provenance,
                           const SystemRunRecord& record);

}  // namespace scoville::output
