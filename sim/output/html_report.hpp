// `scoville report`: one self-contained HTML page (no network access needed to view it) for one
// or more result files: provenance, the summary tables, charts drawn as inline SVG (phase time
// by bound, energy by component, and the InferenceX Pareto chart when a file has a /points
// table), hover tooltips from a few lines of inline script, and each run's configuration.
#pragma once

#include <string>
#include <vector>

#include "sim/output/h5_writer.hpp"

namespace scoville::output {

struct ReportInput {
  std::string path;  // shown as the run's name
  H5Document doc;
};

std::string render_html_report(const std::vector<ReportInput>& inputs);

}  // namespace scoville::output
