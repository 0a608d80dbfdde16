// `scoville ablate`: one system study per variant of one or more varied keys (a run setting or
// any key of the system, chip, model or software file), printed as one comparison table with
// differences relative to the first variant, and saved with -o as HDF5 or CSV. The variants and
// their runs are sim/engine/ablation.*, the table sim/output/ablation_table.*.
#include <algorithm>

#include "sim/base/error.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/cli/op_simulation_progress.hpp"
#include "sim/cli/system_run.hpp"
#include "sim/engine/ablation.hpp"
#include "sim/output/ablation_table.hpp"
#include "sim/output/output_paths.hpp"
#include "sim/output/progress.hpp"
#include "sim/output/provenance.hpp"
#include "sim/output/table_file.hpp"

namespace scoville::cli {

OptionSet ablate_options() {
  OptionSet s("ablate");
  s.synopsis("--system NAME|FILE --model NAME|FILE --vary KEY=V1,V2[,...] [options]",
             "run the system study once per variant and print one table with the differences "
             "relative to the first")
      .text("--system", "NAME|FILE", "a multi-chip system (arch/systems/NAME.yaml)")
      .text("--model", "NAME|FILE", "model (names resolve to workloads/models/NAME.yaml)")
      .texts("--vary", "KEY=V1,V2,...",
             "a run setting (kv_placement, fidelity, overlap, routing, tp, ep, pp, dp, attn_dp, "
             "batch, isl, osl) or any key of an input file by dotted path: system.X (network.X, "
             "host.X, power.X, chips, chip and software need no system. prefix; local.X is "
             "network.local.X), chip.X (the system's chip), model.X (precision.X is "
             "model.precision.X), software.X (the system's software profile); one --vary per key")
      .text("--mode", "cartesian|one-at-a-time",
            "several keys: every combination (default), or the baseline (first values) and one "
            "key changed at a time")
      .text("-o,--output", "FILE.h5|FILE.csv", "save the table (atomically)")
      .count("--batch", "N", "sequences per iteration (default 8)")
      .count("--isl", "N", "input tokens per sequence (default 1024)")
      .count("--osl", "N", "output tokens per sequence (default 128)");
  declare_system_flags(s, "");
  s.flag("--json", "print the variants as JSON").flag("--quiet", "no progress line");
  return s;
}

namespace {

struct AblateOptions {
  SystemRunArgs base;
  std::vector<engine::AblationAxis> axes;
  engine::AblationMode mode = engine::AblationMode::kCartesian;
  std::string output;
  bool quiet = false;
};

AblateOptions parse_ablate(const std::vector<std::string>& args) {
  const ParsedOptions p = ablate_options().parse(args);
  AblateOptions o;
  o.base.system = p.text("--system");
  o.base.model = p.text("--model");
  if (auto v = p.count("--batch")) o.base.batch = *v;
  if (auto v = p.count("--isl")) o.base.isl = *v;
  if (auto v = p.count("--osl")) o.base.osl = *v;
  read_system_flags(p, o.base);
  o.base.json = p.flag("--json");
  o.quiet = p.flag("--quiet");
  if (const auto mode = p.text("--mode")) o.mode = engine::parse_ablation_mode(*mode);
  o.output = p.text_or("--output", "");
  if (p.given("--output") && !output::is_table_file(o.output)) {
    throw UsageError("-o: expected FILE.h5 or FILE.csv, got '" + o.output + "'");
  }
  for (const std::string& v : p.texts("--vary")) {
    const size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
      throw UsageError("--vary expects KEY=V1,V2,..., got '" + v + "'");
    }
    engine::AblationAxis axis{v.substr(0, eq), split_list(v.substr(eq + 1))};
    const auto same = [&](const engine::AblationAxis& x) { return x.key == axis.key; };
    if (std::any_of(o.axes.begin(), o.axes.end(), same)) {
      throw UsageError("--vary " + axis.key + " given twice");
    }
    o.axes.push_back(axis);
  }
  if (!o.base.system) throw UsageError("scoville ablate needs --system NAME|FILE");
  if (!o.base.model) throw UsageError("scoville ablate needs --model NAME|FILE");
  if (o.axes.empty()) throw UsageError("scoville ablate needs --vary KEY=V1,V2,...");
  return o;
}

}  // namespace

int ablate_command(const Invocation& invocation, std::ostream& out) {
  const AblateOptions o = parse_ablate(invocation.args);
  output::RunFiles files;
  files.named_input("--system", *o.base.system, "arch/systems");
  files.named_input("--model", *o.base.model, "workloads/models");
  files.output("-o", o.output);
  files.check();
  const config::DataPaths paths = config::DataPaths::from_environment();
  output::ProgressReporter progress(
      "ablate", static_cast<int64_t>(engine::ablation_variants(o.axes, o.mode).size()), o.quiet);
  const PointActivity activity(progress);
  const std::vector<engine::AblationRow> rows = engine::run_ablation(
      o.base, o.axes, o.mode, paths, [&](const std::string& label) { progress.step(label); });
  progress.finish();
  if (!o.output.empty()) {
    const output::Provenance prov =
        output::Provenance::current(invocation.argc, invocation.argv, o.base.seed);
    output::write_table_file(o.output, output::ablation_table(o.axes, rows),
                             {{"schema", std::string("scoville.results")},
                              {"schema_version", int64_t{1}},
                              {"file_kind", std::string("ablation")},
                              {"tool_version", prov.tool_version},
                              {"git_sha", prov.git_sha},
                              {"command_line", prov.command_line},
                              {"created_utc", prov.created_utc},
                              {"system", rows.front().setup.system.name},
                              {"model", rows.front().setup.model.name()}});
  }
  if (o.base.json) {
    output::print_ablation_json(out, o.axes, rows);
  } else {
    output::print_ablation_table(out, o.axes, rows);
  }
  return 0;
}

}  // namespace scoville::cli
