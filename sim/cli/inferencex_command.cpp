// `scoville inferencex`: the InferenceX benchmark on simulated hardware. A closed loop of N
// clients (10 x N requests, lengths uniform in [0.8, 1] x nominal) per concurrency, priced by the
// simulated op table (default), the roofline's closed form or (--fidelity cycle) the SystemC
// system engine; prints throughput per chip against interactivity with the Pareto frontier.
// The options are sim/cli/inferencex_options.*; the sweep is sim/engine/inferencex_sweep.*.
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/cli/inferencex_options.hpp"
#include "sim/cli/op_simulation_progress.hpp"
#include "sim/config/config_files.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/inferencex_sweep.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/output/output_paths.hpp"
#include "sim/output/progress.hpp"
#include "sim/output/serving_points_output.hpp"
#include "sim/serving/physical_limits.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/request_sampling.hpp"

namespace scoville::cli {

namespace {

// --system names a chip when arch/chips has it, or when the file is a chip file.
bool names_chip(const std::string& name) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  const std::string path = paths.resolve(name, "arch/chips");
  if (!std::filesystem::exists(path)) return false;
  if (path != name) return true;  // resolved by name in arch/chips
  return config::detect_kind(path) == config::FileKind::kChip;
}

// The progress bar, and the Perfetto timeline of the one point --trace asks for.
class InferencexHooks : public engine::SweepHooks {
 public:
  InferencexHooks(const InferencexOptions& o, const Invocation& invocation,
                  const output::TraceOptions& trace_options, int64_t points)
      : o_(o),
        invocation_(invocation),
        progress_("inferencex", points, o.quiet),
        traced_concurrency_(o.trace_point.value_or(o.concurrency.front())),
        trace_options_(trace_options) {}
  void step(const std::string& label) override { progress_.step(label); }
  serving::SchedulerObserver* observer(const std::string& label, int64_t n) override {
    tracing_ = o_.trace.output && !traced_ && n == traced_concurrency_;
    if (tracing_) label_ = label;
    return activity_.watch(label + " N=" + std::to_string(n), tracing_ ? &recorder_ : nullptr);
  }
  void observed(const serving::ServingScenario& scenario,
                const serving::ServingPoint& point) override {
    if (!tracing_) return;  // watched for the progress line only
    write_serving_trace(
        *o_.trace.output, scenario.system, point.result, recorder_,
        "inferencex " + label_ + " at concurrency " + std::to_string(point.concurrency),
        output::Provenance::current(invocation_.argc, invocation_.argv, o_.seed), trace_options_);
    traced_ = true;
  }
  bool traced() const { return traced_; }
  int64_t traced_concurrency() const { return traced_concurrency_; }

 private:
  const InferencexOptions& o_;
  const Invocation& invocation_;
  output::ProgressReporter progress_;
  PointActivity activity_{progress_};  // after progress_: it watches that line
  int64_t traced_concurrency_;
  output::TraceOptions trace_options_;
  output::ServingTimelineRecorder recorder_;
  std::string label_;
  bool traced_ = false;
  bool tracing_ = false;  // the point running is the one --trace records
};

void print_json(std::ostream& out, const InferencexOptions& o, const engine::ServingHardware& hw,
                const workloads::ModelConfig& model, const std::string& calibration, size_t tried,
                const std::vector<serving::ServingPoint>& shown) {
  const std::string header =
      "\"system\": \"" + output::json_escape(hw.system_name) + "\", \"chip\": \"" +
      output::json_escape(hw.chip.name) + "\", \"model\": \"" + output::json_escape(model.name()) +
      "\", \"isl\": " + std::to_string(o.isl) + ", \"osl\": " + std::to_string(o.osl) +
      ", \"fidelity\": \"" + o.fidelity + "\", \"software\": \"" +
      output::json_escape(engine::software_label(hw)) + "\", \"calibration\": \"" +
      output::json_escape(calibration) + "\", \"kv_placement\": \"" + hw.kv_placement +
      "\", \"sampling\": \"" + workloads::to_string(o.sampling) +
      "\", \"points_tried\": " + std::to_string(tried) + ", ";
  output::print_points_json(out, header, shown);
}

void print_table(std::ostream& out, const InferencexOptions& o, const engine::ServingHardware& hw,
                 const workloads::ModelConfig& model, const std::string& calibration,
                 const engine::SweepResult& sweep,
                 const std::vector<serving::ServingPoint>& shown) {
  out << "# scoville inferencex: " << model.name() << " on " << hw.system_name << " ("
      << hw.chip.name << "), ISL " << o.isl << ", OSL " << o.osl << ", " << o.fidelity
      << " fidelity (docs/serving.md), software " << engine::software_label(hw) << ", calibration "
      << calibration;
  if (hw.kv_placement != "local") out << ", KV " << hw.kv_placement;
  if (o.sampling == workloads::RequestSampling::kTopP) out << ", top-p sampling";
  out << "\n";
  if (o.search) {
    out << "# --search: " << sweep.points.size() << " points tried, " << shown.size()
        << " on the Pareto frontier shown; " << sweep.skipped.size() << " infeasible\n";
  }
  if (hw.chip.power.management.present) {
    out << "# power cap " << hw.chip.power.management.cap.si() << " W per chip (cap controller, "
        << "docs/power.md); idle and thr: shares of chip-time idle and throttled\n";
  }
  output::print_points_table(out, shown);
}

}  // namespace

int inferencex_command(const Invocation& invocation, std::ostream& out) {
  const InferencexOptions o = parse_inferencex_options(invocation.args);
  output::RunFiles files;
  files.named_input("--system", o.system, "arch/systems");
  files.named_input("--chip", o.chip, "arch/chips");
  files.named_input("--model", o.model, "workloads/models");
  files.named_input("--draft-model", o.draft_model, "workloads/models");
  files.input("--mapping", o.mapping_file);
  files.input("--calibration", o.calibration_file);
  files.output("-o", o.output);
  files.output("--trace", o.trace.output.value_or(""));
  files.check();
  // Checked before anything runs: --trace-window without --trace is a usage error.
  const output::TraceOptions trace_options = serving_trace_options(o.trace);
  const config::DataPaths paths = config::DataPaths::from_environment();
  const bool chip_system = names_chip(o.system);
  const bool cycle = o.fidelity == "cycle";
  if (cycle && chip_system) {
    throw UsageError{
        "--fidelity cycle needs --system to name a system file (arch/systems), not "
        "the chip '" +
        o.system + "'"};
  }
  std::string chip = chip_system ? o.system : o.chip;
  if (chip.empty()) {
    // A system file names its chip (arch/systems/*.yaml `chip:`); --chip overrides it.
    const config::SystemConfig system = config::load_system(o.system, paths);
    if (system.chip_file.empty()) {
      throw UsageError{"--system " + o.system +
                       " is a system file without a chip: give the chip with --chip"};
    }
    chip = system.chip_file;
  }
  const workloads::ModelConfig model =
      workloads::load_model(paths.resolve(o.model, "workloads/models"));
  serving::check_context(model, o.isl, o.osl, SourceLocation{"<command line>", 0, 0}, "--isl");
  std::optional<workloads::ModelConfig> draft;
  if (!o.draft_model.empty()) {
    draft = workloads::load_model(paths.resolve(o.draft_model, "workloads/models"));
  }
  const int64_t chips = o.chips != 0 ? o.chips : (o.tp != 0 ? o.tp : 8);
  const engine::MappingChoice choice{o.mapping_file, o.search, o.tp, o.ep, o.attn_dp};
  const std::vector<workloads::MappingConfig> mappings =
      engine::sweep_mappings(choice, model, chips);
  if (cycle && mappings.front().pools.size() != 1) {
    throw UsageError{"--fidelity cycle prices one co-located pool; the mapping " +
                     serving::mapping_label(mappings.front()) + " is disaggregated"};
  }
  int64_t network_chips = chips;
  for (const auto& m : mappings) {
    int64_t total = 0;
    for (const auto& p : m.pools) total += p.chips;
    network_chips = std::max(network_chips, total);
  }
  const engine::ServingFidelity level = engine::parse_serving_fidelity(o.fidelity);
  engine::ServingHardware hw =
      engine::resolve_hardware(chip, chip_system ? "" : o.system, network_chips, o.software,
                               o.calibration && o.calibration_file.empty(), level);
  if (!o.calibration_file.empty()) {
    engine::apply_calibration_file(hw, paths.resolve(o.calibration_file, "arch/systems"), level);
  }
  engine::set_kv_placement(hw, o.kv_placement);
  if (o.power_cap) {
    engine::apply_power_cap(hw, engine::parse_power_cap(*o.power_cap, "--power-cap"),
                            SourceLocation{"<command line>", 0, 0}, "--power-cap");
  }
  // The op table's chip model is elaborated here, before anything simulates.
  if (o.fidelity == "op-table") engine::use_op_table(hw, o.op_cache);
  // The cycle engine prices hardware only: it has no calibration overlays.
  const std::string calibration =
      cycle ? "not applied (cycle fidelity)" : engine::calibration_label(hw);

  serving::SchedulerConfig scheduler;
  scheduler.max_num_batched_tokens = o.max_batched_tokens;
  scheduler.mtp.depth = o.mtp_depth;
  scheduler.mtp.acceptance = o.mtp_acceptance;
  scheduler.policy = o.policy;
  scheduler.handoff = o.handoff;
  const engine::ClosedLoopLoad load{
      o.isl, o.osl, o.range_ratio, o.prompts_per_client, o.concurrency, o.max_num_seqs, o.seed};
  InferencexHooks hooks(o, invocation, trace_options,
                        static_cast<int64_t>(mappings.size() * o.concurrency.size()));
  const engine::SweepResult sweep = engine::run_closed_loop_sweep(
      hw, cycle ? o.system : "", engine::sampled_model(model, hw, o.sampling), mappings, scheduler,
      load, o.search, hooks, draft ? &*draft : nullptr);
  if (o.trace.output && !hooks.traced()) {
    throw InputError(SourceLocation{"<command line>", 0, 0}, "--trace-point",
                     "no feasible mapping ran concurrency " +
                         std::to_string(hooks.traced_concurrency()) +
                         ", so there is no point to trace");
  }
  if (!o.quiet && hw.op_cost) std::cerr << "scoville: " << engine::op_table_report(hw) << "\n";

  if (!o.output.empty()) {
    output::write_points_h5(o.output, sweep.points, invocation.argc, invocation.argv, o.seed,
                            {{"system", hw.system_name},
                             {"chip", hw.chip.name},
                             {"model", model.name()},
                             {"fidelity", o.fidelity},
                             {"software", engine::software_label(hw)},
                             {"calibration", calibration},
                             {"kv_placement", hw.kv_placement},
                             {"sampling", workloads::to_string(o.sampling)},
                             {"draft_model", draft ? draft->name() : std::string("none")},
                             {"isl", std::to_string(o.isl)},
                             {"osl", std::to_string(o.osl)}});
  }
  std::vector<serving::ServingPoint> shown;
  for (const serving::ServingPoint& p : sweep.points) {
    if (!o.search || p.pareto) shown.push_back(p);
  }
  if (o.json) {
    print_json(out, o, hw, model, calibration, sweep.points.size(), shown);
  } else {
    print_table(out, o, hw, model, calibration, sweep, shown);
  }
  return 0;
}

}  // namespace scoville::cli
