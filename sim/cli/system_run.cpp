#include "sim/cli/system_run.hpp"

#include <filesystem>
#include <iostream>

#include "sim/base/atomic_file.hpp"
#include "sim/base/error.hpp"
#include "sim/config/calibration_overlay.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/output/progress.hpp"
#include "sim/output/system_report.hpp"
#include "sim/output/system_results.hpp"
#include "sim/output/system_trace.hpp"

namespace scoville::cli {

void declare_system_flags(OptionSet& options, const std::string& context) {
  options
      .text("--kv-placement", "NAME",
            context + "local, striped, sram_window, remote_pool or disaggregated (default local)")
      .count("--tp", "N", context + "tensor-parallel degree (default min(8, local domain))")
      .count("--ep", "N", context + "expert-parallel degree (default tp for MoE models)")
      .count("--pp", "N", context + "pipeline-parallel degree")
      .count("--dp", "N", context + "data-parallel degree")
      .count("--attn-dp", "N", context + "attention data-parallel degree")
      .text("--mapping", "FILE", context + "mapping YAML instead of the degrees")
      .text("--fidelity", "representative|all", context + "one chip per role, or every chip")
      .text("--overlap", "none|two_batch", context + "compute/communication overlap")
      .text("--routing", "expected|uniform|zipf[:S]",
            context +
                "MoE routing; a drawn one (seeded by --seed) loads the EP ranks unevenly "
                "(docs/systems.md)")
      .flag("--reuse-repeated-ops",
            context +
                "simulate an op repeated between the same neighbours once (faster, approximate: "
                "docs/systems.md)")
      .text("--software", "NAME|FILE|none",
            context +
                "the serving stack (arch/software; default the system file's own; none: "
                "hardware time alone)");
}

void read_system_flags(const ParsedOptions& p, SystemRunArgs& r) {
  if (auto v = p.text("--kv-placement")) r.kv_placement = *v;
  if (auto v = p.text("--fidelity")) r.fidelity = *v;
  if (auto v = p.text("--overlap")) r.overlap = *v;
  if (auto v = p.text("--routing")) r.routing = *v;
  if (auto v = p.count("--tp")) r.tp = *v;
  if (auto v = p.count("--ep")) r.ep = *v;
  if (auto v = p.count("--pp")) r.pp = *v;
  if (auto v = p.count("--dp")) r.dp = *v;
  if (auto v = p.count("--attn-dp")) r.attn_dp = *v;
  if (auto v = p.text("--mapping")) r.mapping_file = *v;
  if (p.flag("--reuse-repeated-ops")) r.reuse_repeated_ops = true;
  if (auto v = p.text("--software")) r.software = *v;
  for (const char* flag :
       {"--kv-placement", "--fidelity", "--overlap", "--routing", "--tp", "--ep", "--pp", "--dp",
        "--attn-dp", "--mapping", "--reuse-repeated-ops", "--software"}) {
    if (p.given(flag)) r.any_system_flag = true;
  }
}

void run_system_study(const SystemRunArgs& args, const output::Provenance& provenance,
                      const std::optional<std::string>& h5_output, std::ostream& out,
                      const SystemTraceRequest* trace, bool quiet) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  if (!args.system) throw UsageError("a system run needs --system NAME|FILE");
  const config::SystemConfig system = config::load_system(*args.system, paths);
  const engine::SystemSetup setup = engine::system_setup(args, system, paths);
  if (const std::string w = engine::idle_chips_warning(args, setup); !w.empty()) {
    std::cerr << "warning: " << w << "\n";
  }
  engine::SystemStudy study(setup, engine::study_config(args));
  // A bad --trace-chips is refused before the simulation, not after it.
  if (trace) {
    output::selected_trace_chips(trace->options.chips,
                                 static_cast<int>(study.engine().topology().endpoints()));
  }
  // Recording the critical paths only observes: the report is the same with and without.
  std::vector<engine::SystemTimelineIteration> timeline;
  output::ProgressReporter progress("run: engine iterations", study.iterations(), quiet);
  if (progress.on()) study.on_iteration([&](const std::string& what) { progress.step(what); });
  const engine::SystemStudyResult result = study.run(trace ? &timeline : nullptr);
  progress.finish();
  if (trace) {
    write_text_atomically(trace->file,
                          output::render_system_trace(study.engine().topology(), setup, timeline,
                                                      trace->provenance, trace->options));
  }
  if (h5_output) {
    output::SystemRunRecord record;
    record.resolved_yaml = study::to_yaml(engine::resolved_study(args, setup));
    record.study_yaml = args.study_yaml.empty() ? record.resolved_yaml : args.study_yaml;
    record.inputs = {system.file, paths.resolve(*args.model, "workloads/models")};
    if (!system.chip_file.empty()) record.inputs.push_back(system.chip_file);
    const std::string stack = config::software_in_effect(args.software, system.software_file);
    if (!stack.empty()) {
      record.inputs.push_back(paths.resolve(stack, "arch/software"));
      // The stack's fitted software knobs, when it has them (system_run_setup.cpp).
      const std::string knobs =
          config::overlay_path_for(paths.resolve(stack, "arch/software"), "op-table");
      if (std::filesystem::exists(knobs)) record.inputs.push_back(knobs);
    }
    if (args.mapping_file) record.inputs.push_back(*args.mapping_file);
    record.fidelity = args.fidelity;
    record.overlap = args.overlap;
    output::write_h5_atomically(
        output::build_system_h5(setup, study.config(), result, provenance, record), *h5_output);
  }
  if (args.json) {
    output::render_system_json(out, setup, study.config(), result);
  } else {
    output::render_system_text(out, setup, study.config(), result);
  }
}

}  // namespace scoville::cli
