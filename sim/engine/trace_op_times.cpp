#include "sim/engine/trace_op_times.hpp"

#include <memory>
#include <string>

#include <systemc>

#include "models/chip/chip_module.hpp"
#include "models/chip/run_simulation.hpp"
#include "sim/base/error.hpp"
#include "sim/engine/lowering.hpp"

namespace scoville::engine {

std::vector<std::map<uint64_t, Duration>> chip_compute_durations(
    const std::vector<const workloads::ChipTrace*>& traces, const models::ChipParams& chip) {
  std::vector<std::unique_ptr<models::ChipModule>> modules;
  std::vector<std::vector<uint64_t>> ids(traces.size());
  for (size_t t = 0; t < traces.size(); ++t) {
    std::vector<models::WorkDescriptor> program;
    for (const workloads::TraceNode& node : traces[t]->nodes) {
      if (node.kind != workloads::TraceNodeKind::kCompute) continue;
      program.push_back(lower(node.op, chip));
      ids[t].push_back(node.id);
    }
    auto module =
        std::make_unique<models::ChipModule>(("trace_chip" + std::to_string(t)).c_str(), chip);
    module->set_program(std::move(program));
    modules.push_back(std::move(module));
  }
  models::run_simulation();
  std::vector<std::map<uint64_t, Duration>> out(traces.size());
  for (size_t t = 0; t < traces.size(); ++t) {
    if (!modules[t]->finished()) {
      throw ScovilleError("simulation of chip '" + chip.name +
                          "' stopped before the trace's ops finished");
    }
    const std::vector<models::OpRecord>& records = modules[t]->records();
    Duration previous_end = records.empty() ? Duration() : records.front().start;
    for (size_t i = 0; i < records.size(); ++i) {
      const Duration end = records[i].end > previous_end ? records[i].end : previous_end;
      out[t][ids[t][i]] = end - previous_end;
      previous_end = end;
    }
  }
  return out;
}

}  // namespace scoville::engine
