// `scoville serve`: one serving study from a scenario file (open loop, bursty, trace replay or a
// closed loop), priced by the simulated op table (default) or (--fidelity roofline) the closed
// form.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/cli/request_trace_flags.hpp"
#include "sim/cli/serve_progress.hpp"
#include "sim/cli/serving_trace_flags.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/scenario_loader.hpp"
#include "sim/engine/serving_engines.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/output/output_paths.hpp"
#include "sim/output/serving_points_output.hpp"
#include "sim/serving/physical_limits.hpp"
#include "sim/serving/serving_point.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/request_sampling.hpp"

namespace scoville::cli {

OptionSet serve_options() {
  OptionSet s("serve");
  s.synopsis("--scenario FILE [options]", "a serving study (workloads/scenarios/*.yaml)")
      .text("--scenario", "FILE", "the scenario: model, system, mapping, requests, policy")
      .count("--seed", "N", "overrides the scenario's seed");
  declare_request_trace_flags(
      s,
      "replay this request trace instead of the scenario's requests: Scoville's CSV, Azure LLM "
      "inference (CSV), BurstGPT (CSV) or Mooncake (JSONL), detected from the file");
  s.text("--power-cap", "POWER",
         "cap every chip's power, e.g. '500 W' (over the scenario's power.cap; the chip needs "
         "power_management)")
      .text("--kv-placement", "NAME",
            "where the KV cache lives: local (default), striped, sram_window or remote_pool (host "
            "memory and capacity)")
      .flag("--no-calibration", "ignore the system file's calibration overlay")
      .text("--software", "NAME|FILE|none",
            "the serving stack over the scenario's (default the scenario's, else its system "
            "file's; none: hardware alone)")
      .text("--fidelity", "op-table|roofline",
            "op pricing (default op-table: every distinct op runs once on the SystemC chip "
            "model, persistent op cache, the system's op-table overlay); roofline: the closed "
            "form at the chip's peaks with its roofline overlay (docs/serving.md)")
      .flag("--no-op-cache", "op-table: neither read nor write the persistent op cache")
      .flag("--json", "print JSON instead of the table")
      .text("-o,--output", "FILE.h5", "write /points (one row) and /requests (atomically)")
      .flag("--quiet",
            "no progress line (on a terminal: the iterations scheduled, the simulated time and "
            "the ops simulated on the chip model)");
  declare_serving_trace_flags(
      s,
      "write a Perfetto / Chrome JSON timeline of the run: a process per pool (iterations, "
      "counters), a thread per request, KV hand-over arrows (docs/results-format.md)");
  return s;
}

int serve_command(const Invocation& invocation, std::ostream& out) {
  const ParsedOptions parsed = serve_options().parse(invocation.args);
  const std::string scenario_file = parsed.text_or("--scenario", "");
  const std::string output_file = parsed.text_or("--output", "");
  const bool json = parsed.flag("--json"), calibration = !parsed.flag("--no-calibration"),
             op_cache = !parsed.flag("--no-op-cache"), quiet = parsed.flag("--quiet");
  const std::string fidelity = parsed.text_or("--fidelity", "op-table");
  std::optional<uint64_t> seed;
  if (const auto v = parsed.count("--seed")) seed = static_cast<uint64_t>(*v);
  const std::optional<std::string> power_cap = parsed.text("--power-cap"),
                                   software = parsed.text("--software");
  const std::string kv_placement = parsed.text_or("--kv-placement", "local");
  const ServingTraceArgs trace = serving_trace_args(parsed);
  const RequestTraceArgs requests = request_trace_args(parsed);
  if (scenario_file.empty()) throw UsageError{"--scenario is required"};
  const engine::ServingFidelity level = engine::parse_serving_fidelity(fidelity);
  if (level == engine::ServingFidelity::kCycle) {
    throw UsageError{
        "serve: --fidelity cycle is not available (inferencex has it); expected "
        "roofline or op-table"};
  }
  if (!op_cache && level != engine::ServingFidelity::kOpTable) {
    throw UsageError{"--no-op-cache needs --fidelity op-table"};
  }
  const output::TraceOptions trace_options = serving_trace_options(trace);
  config::ServingStudySpec spec = config::load_scenario(scenario_file);
  apply_request_trace_args(requests, spec.requests);
  output::RunFiles files;
  files.input("--scenario", scenario_file);
  files.input(requests.requests ? "--requests" : "scenario requests.trace",
              spec.requests.trace_path);
  files.named_input("scenario model", spec.model, "workloads/models");
  files.output("-o", output_file);
  files.output("--trace", trace.output.value_or(""));
  files.check();
  const config::DataPaths paths = config::DataPaths::from_environment();
  const workloads::ModelConfig model =
      workloads::load_model(paths.resolve(spec.model, "workloads/models"));
  if (spec.requests.kind != workloads::ArrivalKind::kTrace) {
    serving::check_context(model, spec.requests.lengths.input_tokens,
                           spec.requests.lengths.output_tokens, SourceLocation{spec.file, 0, 0},
                           "requests.isl");
  }
  int64_t pool_chips = 0;
  for (const auto& p : spec.mapping.pools) pool_chips += p.chips;
  if (spec.chips != 0 && spec.chips < pool_chips) {
    throw InputError(SourceLocation{spec.file, 0, 0}, "scenario.system.chips",
                     "the pools use " + std::to_string(pool_chips) + " chips; the system has " +
                         std::to_string(spec.chips));
  }
  engine::ServingHardware hw =
      engine::resolve_hardware(spec.chip, spec.network, std::max(pool_chips, spec.chips),
                               software.value_or(spec.software), calibration, level);
  engine::set_kv_placement(hw, kv_placement);
  if (power_cap) {
    engine::apply_power_cap(hw, engine::parse_power_cap(*power_cap, "--power-cap"),
                            SourceLocation{"<command line>", 0, 0}, "--power-cap");
  } else {
    engine::apply_power_cap(hw, spec.power_cap, spec.power_cap_at, "scenario.power.cap");
  }
  // The op table's chip model is elaborated here, before anything simulates.
  if (level == engine::ServingFidelity::kOpTable) engine::use_op_table(hw, op_cache);
  engine::ServingEngine engine = engine::make_engine(
      hw, engine::sampled_model(model, hw, spec.requests.sampling), spec.mapping, spec.scheduler);
  serving::ServingScenario scenario;
  scenario.workload = spec.requests;
  scenario.system = engine.system;
  scenario.metrics = spec.metrics;
  if (!scenario.metrics.tdp_per_chip) scenario.metrics.tdp_per_chip = hw.chip.power.tdp;
  engine::set_power_inputs(hw, scenario.metrics);
  const uint64_t run_seed = seed ? *seed : spec.seed;

  serving::ServingPoint point;
  point.mapping = serving::mapping_label(spec.mapping);
  point.concurrency = spec.requests.kind == workloads::ArrivalKind::kClosedLoop
                          ? spec.requests.concurrency
                          : spec.requests.max_concurrency;
  point.tp = spec.mapping.pools.back().degrees.tp;
  point.ep = spec.mapping.pools.back().degrees.ep;
  point.attn_dp = spec.mapping.pools.back().degrees.attn_dp;
  point.chips = scenario.system.total_chips();
  // The recorder only watches: results are the same with and without --trace.
  output::ServingTimelineRecorder recorder;
  serving::SchedulerObserver* const timeline = trace.output ? &recorder : nullptr;
  // On a terminal: the iterations scheduled, the simulated time and the ops simulated so far.
  ServeProgress progress(quiet, timeline);
  point.result =
      serving::run_serving(scenario, *engine.cost, run_seed, progress.on() ? &progress : timeline);
  progress.finish();
  if (trace.output) {
    write_serving_trace(
        *trace.output, scenario.system, point.result, recorder, "serve " + spec.name,
        output::Provenance::current(invocation.argc, invocation.argv, run_seed), trace_options);
  }
  serving::fill_point_stats(point);
  if (!quiet && hw.op_cost) std::cerr << "scoville: " << engine::op_table_report(hw) << "\n";
  std::vector<serving::ServingPoint> points{point};
  serving::mark_pareto(points);
  if (!output_file.empty()) {
    output::write_points_h5(output_file, points, invocation.argc, invocation.argv, run_seed,
                            {{"scenario", spec.name},
                             {"system", hw.system_name},
                             {"chip", hw.chip.name},
                             {"model", model.name()},
                             {"fidelity", fidelity},
                             {"software", engine::software_label(hw)},
                             {"calibration", engine::calibration_label(hw)},
                             {"kv_placement", hw.kv_placement},
                             {"sampling", workloads::to_string(spec.requests.sampling)}});
  }
  if (json) {
    std::string header =
        "\"scenario\": \"" + output::json_escape(spec.name) + "\", \"system\": \"" +
        output::json_escape(hw.system_name) + "\", \"fidelity\": \"" + fidelity +
        "\", \"software\": \"" + output::json_escape(engine::software_label(hw)) +
        "\", \"calibration\": \"" + output::json_escape(engine::calibration_label(hw)) +
        "\", \"kv_placement\": \"" + hw.kv_placement + "\", \"sampling\": \"" +
        workloads::to_string(spec.requests.sampling) + "\", \"summary\": {";
    bool first = true;
    for (const serving::NamedMetric& m : point.result.metrics.named()) {
      header +=
          std::string(first ? "" : ", ") + "\"" + m.name + "\": " + output::json_number(m.value);
      first = false;
    }
    header += "}, ";
    output::print_points_json(out, header, points);
    return 0;
  }
  out << "# scoville serve: " << spec.name << ": " << model.name() << " on " << hw.system_name
      << " (" << hw.chip.name << "), " << fidelity << " fidelity (docs/serving.md), software "
      << engine::software_label(hw) << ", calibration " << engine::calibration_label(hw);
  if (hw.kv_placement != "local") out << ", KV " << hw.kv_placement;
  if (spec.requests.sampling == workloads::RequestSampling::kTopP) out << ", top-p sampling";
  out << "\n";
  for (const serving::NamedMetric& m : point.result.metrics.named()) {
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "  %-28s %.6g\n", m.name.c_str(), m.value);
    out << buffer;
  }
  output::print_power_report(out, point);
  return 0;
}

}  // namespace scoville::cli
