#include "sim/cli/system_run.hpp"

#include <iostream>

#include "sim/base/atomic_file.hpp"
#include "sim/base/error.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/output/progress.hpp"
#include "sim/output/system_report.hpp"
#include "sim/output/system_results.hpp"
#include "sim/output/system_trace.hpp"

namespace scoville::cli {

bool read_system_flag(ArgReader& a, SystemRunArgs& r) {
  if (a.is("--kv-placement")) {
    r.kv_placement = a.value();
  } else if (a.is("--fidelity")) {
    r.fidelity = a.value();
  } else if (a.is("--overlap")) {
    r.overlap = a.value();
  } else if (a.is("--routing")) {
    r.routing = a.value();
  } else if (a.is("--tp")) {
    r.tp = a.count();
  } else if (a.is("--ep")) {
    r.ep = a.count();
  } else if (a.is("--pp")) {
    r.pp = a.count();
  } else if (a.is("--dp")) {
    r.dp = a.count();
  } else if (a.is("--attn-dp")) {
    r.attn_dp = a.count();
  } else if (a.is("--mapping")) {
    r.mapping_file = a.value();
  } else if (a.is("--reuse-repeated-ops")) {
    r.reuse_repeated_ops = true;
  } else if (a.is("--software")) {
    r.software = a.value();
  } else {
    return false;
  }
  r.any_system_flag = true;
  return true;
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
    if (!stack.empty()) record.inputs.push_back(paths.resolve(stack, "arch/software"));
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
