#include "sim/validation/validation_table.hpp"

#include <cstdint>
#include <limits>
#include <set>

namespace scoville::validation {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// predicted / measured - 1; NaN without a measured value.
double fraction_error(double predicted, double measured) {
  return measured != 0 ? predicted / measured - 1.0 : kNaN;
}

std::string joined(const std::set<std::string>& values) {
  std::string text;
  for (const std::string& v : values) text += (text.empty() ? "" : ", ") + v;
  return text;
}

}  // namespace

output::Table validation_table(const std::vector<Outcome>& outcomes,
                               const ValidationRunInfo& info) {
  std::vector<std::string> id, system, system_file, model, workload_model, chip, stack, set, metric;
  std::vector<int64_t> isl, osl, concurrency, replica_chips;
  std::vector<double> measured, predicted, error, measured_intvty, predicted_intvty, intvty_error;
  std::set<std::string> stacks, overlays;
  int64_t skipped = 0;
  for (const Outcome& o : outcomes) {
    const RowPlan& p = o.plan;
    if (!p.skipped.empty()) {
      ++skipped;
      continue;
    }
    id.push_back(p.id);
    system.push_back(p.system);
    system_file.push_back(p.system_file);
    model.push_back(p.model_published);
    workload_model.push_back(p.model);
    chip.push_back(p.chip);
    stack.push_back(o.stack);
    set.push_back(o.set);
    metric.push_back(p.metric);
    isl.push_back(p.isl);
    osl.push_back(p.osl);
    concurrency.push_back(p.concurrency);
    replica_chips.push_back(p.replica_chips);
    measured.push_back(p.published ? *p.published : kNaN);
    predicted.push_back(o.predicted.throughput);
    error.push_back(p.published ? fraction_error(o.predicted.throughput, *p.published) : kNaN);
    measured_intvty.push_back(p.published_intvty ? *p.published_intvty : kNaN);
    predicted_intvty.push_back(o.predicted.intvty);
    intvty_error.push_back(
        p.published_intvty ? fraction_error(o.predicted.intvty, *p.published_intvty) : kNaN);
    stacks.insert(o.stack);
    if (!o.calibration.empty()) overlays.insert(o.calibration);
  }
  output::Table t;
  t.path = "/validation";
  t.columns = {{"id", "1", id},
               {"system", "1", system},
               {"system_file", "1", system_file},
               {"model", "1", model},
               {"workload_model", "1", workload_model},
               {"chip", "1", chip},
               {"stack", "1", stack},
               {"set", "1", set},
               {"metric", "1", metric},
               {"isl", "1", isl},
               {"osl", "1", osl},
               {"concurrency", "1", concurrency},
               {"replica_chips", "1", replica_chips},
               // Throughput per chip in the row's metric (tokens per second per chip).
               {"measured_tput_per_chip", "1/s", measured},
               {"predicted_tput_per_chip", "1/s", predicted},
               {"tput_error", "1", error},
               // Interactivity: tokens per second per user (1000 / median TPOT).
               {"measured_intvty", "1/s", measured_intvty},
               {"predicted_intvty", "1/s", predicted_intvty},
               {"intvty_error", "1", intvty_error}};
  t.attributes = {{"measurements", info.measurements},
                  {"fidelity", info.fidelity},
                  {"software", info.software},
                  {"stacks", joined(stacks)},
                  {"calibration", !info.calibration  ? std::string("off")
                                  : overlays.empty() ? std::string("none")
                                                     : joined(overlays)},
                  {"predicted_rows", static_cast<int64_t>(id.size())},
                  {"skipped_rows", skipped}};
  return t;
}

}  // namespace scoville::validation
