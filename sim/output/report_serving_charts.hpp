// The report's serving charts: InferenceX's throughput against interactivity over every input
// with serving points (each file a series, its Pareto frontier a line, frontier points labelled
// with their concurrency), and per serving file its median TTFT and TPOT against concurrency,
// one series per mapping.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "sim/output/h5_writer.hpp"

namespace scoville::output {

struct NamedDocument {
  std::string name;
  const H5Document* doc;
};

// The serving points of a file: /points of a serving run or sweep, /results of a scenario
// sweep's index (its points' /points rows, docs/sweeps.md); nullptr for other files.
const Table* serving_points(const H5Document& doc);

// Appends the Pareto chart (id "pareto") when any input has serving points; true if drawn.
bool render_pareto(std::ostringstream& out, const std::vector<NamedDocument>& inputs);

// Appends latency-against-concurrency charts of one file; returns how many.
int render_latency_charts(std::ostringstream& out, const H5Document& doc, int& next_id);

}  // namespace scoville::output
