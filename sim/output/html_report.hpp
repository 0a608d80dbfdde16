// `scoville report`: one self-contained HTML page (no network access needed to view it) for one
// or more result files: provenance, the summary tables, charts drawn as inline SVG by one module
// (svg_chart) for every result kind the page reads (report_run_charts, power_timeline_chart,
// report_serving_charts, report_sweep_charts; docs/results-format.md lists them), hover tooltips
// from a few lines of inline script, and each run's configuration.
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
