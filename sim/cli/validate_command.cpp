// `scoville validate`: predicted against published serving figures, side by side. Reads the
// measurements CSV (../shared/validation/measurements.csv columns), plans each row
// (measurement_rows.hpp: chip, model, precision, the replica its concurrency is per), predicts
// the rows it can at the chosen fidelity (the simulated op table by default) with the system's
// calibration overlay for that fidelity (unless --no-calibration), and lists every other row
// with the reason it was skipped. Errors are
// summarised as MAPE per system and per model, split into the rows the overlays were fitted on
// and the rows they were not (held out), so that fit quality is never sold as prediction.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/cli/op_simulation_progress.hpp"
#include "sim/config/calibration_overlay.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/output/output_paths.hpp"
#include "sim/output/progress.hpp"
#include "sim/output/provenance.hpp"
#include "sim/output/table_file.hpp"
#include "sim/validation/energy_rows.hpp"
#include "sim/validation/measurement_rows.hpp"
#include "sim/validation/validation_run.hpp"
#include "sim/validation/validation_table.hpp"

namespace scoville::cli {

OptionSet validate_options() {
  OptionSet s("validate");
  s.synopsis("[options]", "predicted vs published serving figures")
      .text("--measurements", "FILE.csv",
            "the rows (default the shipped copy, "
            "workloads/measurements/published/measurements.csv)")
      .text("--software", "NAME|FILE|none",
            "one serving stack for every row (default: each row's framework's, "
            "workloads/measurements/framework-stacks.csv, else its system's; none: hardware time "
            "alone)")
      .count("--prompts-per-client", "K",
             "requests per client of each predicted point (default 10; --energy: a row's "
             "num_requests where it gives one)")
      .flag("--no-calibration", "ignore the systems' calibration overlays")
      .text("--fidelity", "op-table|roofline",
            "op pricing (default op-table: every op priced on the chip model, simulated op table, "
            "persistent op cache, with arch/systems/*.op-table.calibration.yaml); roofline: the "
            "closed form with arch/systems/*.calibration.yaml")
      .flag("--no-op-cache", "op-table: neither read nor write the persistent op cache")
      .flag("--json", "print JSON instead of the table")
      .text("-o,--output", "FILE.h5|FILE.csv",
            "the predicted rows as a /validation table (atomically; scoville report charts it)")
      .flag("--quiet", "no progress line on a terminal")
      .text("--energy", "FILE.csv",
            "instead: predict measured energy rows (energy per output token, average power, "
            "throughput over the benchmark's steady-state window; median inter-token latency; "
            "workloads/measurements/energy/README.md)");
  return s;
}

namespace {

std::string fmt(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

}  // namespace

int validate_command(const Invocation& invocation, std::ostream& out) {
  const ParsedOptions parsed = validate_options().parse(invocation.args);
  std::string path = parsed.text_or("--measurements", "");
  const std::string energy_path = parsed.text_or("--energy", "");
  const std::string software = parsed.text_or("--software", config::kSystemSoftware);
  const int64_t prompts_per_client = parsed.count("--prompts-per-client").value_or(10);
  if (prompts_per_client < 1) throw UsageError{"--prompts-per-client: expected at least 1"};
  const bool json = parsed.flag("--json"), calibration = !parsed.flag("--no-calibration"),
             op_cache = !parsed.flag("--no-op-cache"), quiet = parsed.flag("--quiet");
  const std::string fidelity = parsed.text_or("--fidelity", "op-table");
  const std::string output_file = parsed.text_or("--output", "");
  if (parsed.given("--output") && !output::is_table_file(output_file)) {
    throw UsageError("-o: expected FILE.h5 or FILE.csv, got '" + output_file + "'");
  }
  if (!path.empty() && !energy_path.empty()) {
    throw UsageError{"--energy and --measurements: expected one of them"};
  }
  if (path.empty() && energy_path.empty()) {
    path = validation::shipped_measurements(config::DataPaths::from_environment());
  }
  const engine::ServingFidelity level = engine::parse_serving_fidelity(fidelity);
  if (level == engine::ServingFidelity::kCycle) {
    throw UsageError{"validate: expected --fidelity roofline or op-table"};
  }
  if (!op_cache && level != engine::ServingFidelity::kOpTable) {
    throw UsageError{"--no-op-cache needs --fidelity op-table"};
  }
  if (!energy_path.empty() && !output_file.empty()) {
    throw UsageError{"-o writes the serving rows' table; not with --energy"};
  }
  output::RunFiles files;
  files.input("--measurements", path);
  files.input("--energy", energy_path);
  files.output("-o", output_file);
  files.check();
  if (!energy_path.empty()) {
    return validation::validate_energy(out, energy_path, software, calibration, level, op_cache,
                                       prompts_per_client, json);
  }
  const std::vector<validation::RowPlan> plans =
      validation::plan_rows(validation::read_measurements(path));
  validation::ValidationSettings settings;
  settings.software = software;
  settings.prompts_per_client = prompts_per_client;
  settings.calibration = calibration;
  settings.fidelity = level;
  settings.op_cache = op_cache;
  output::ProgressReporter progress("validate", static_cast<int64_t>(plans.size()), quiet);
  const PointActivity activity(progress);
  settings.on_row = [&progress](const validation::RowPlan& plan) {
    progress.step("row " + plan.id + " (" + plan.model + " on " + plan.system_file + ")");
  };
  const std::vector<validation::Outcome> outcomes = validation::validate_rows(plans, settings);
  progress.finish();
  const auto groups = validation::summaries(outcomes);
  if (!output_file.empty()) {
    const output::Provenance prov =
        output::Provenance::current(invocation.argc, invocation.argv, 0);
    const output::Table table = validation::validation_table(
        outcomes, {path, fidelity, software.empty() ? "per row" : software, calibration});
    // The root carries what the rows were predicted with too (the report reads it there).
    output::Attributes root{{"schema", std::string("scoville.results")},
                            {"schema_version", int64_t{1}},
                            {"file_kind", std::string("validation")},
                            {"tool_version", prov.tool_version},
                            {"git_sha", prov.git_sha},
                            {"command_line", prov.command_line},
                            {"created_utc", prov.created_utc}};
    root.insert(root.end(), table.attributes.begin(), table.attributes.end());
    output::write_table_file(output_file, table, root);
  }
  if (json) {
    out << "{\"measurements\": \"" << output::json_escape(path) << "\", \"fidelity\": "
        << "\"" << fidelity << "\", \"software\": \""
        << output::json_escape(software.empty() ? "per row" : software)
        << "\", \"calibration\": " << (calibration ? "true" : "false") << ", \"rows\": [";
    for (size_t i = 0; i < outcomes.size(); ++i) {
      const validation::Outcome& o = outcomes[i];
      const validation::RowPlan& p = o.plan;
      out << (i ? ", " : "") << "{\"id\": \"" << output::json_escape(p.id) << "\", \"system\": \""
          << output::json_escape(p.system) << "\", \"model\": \""
          << output::json_escape(p.model_published) << "\"";
      if (!p.skipped.empty()) {
        out << ", \"skipped\": \"" << output::json_escape(p.skipped) << "\"}";
        continue;
      }
      out << ", \"chip\": \"" << p.chip << "\", \"system_file\": \"" << p.system_file
          << "\", \"workload_model\": \"" << p.model << "\", \"stack\": \""
          << output::json_escape(o.stack) << "\", \"stack_source\": \"" << o.stack_source
          << "\", \"precision\": \"" << output::json_escape(p.precision_override)
          << "\", \"isl\": " << p.isl << ", \"osl\": " << p.osl
          << ", \"concurrency\": " << p.concurrency << ", \"scenario\": \""
          << validation::to_string(p.scenario) << "\""
          << ", \"replica_chips\": " << p.replica_chips
          << ", \"implied_chips\": " << output::json_number(p.implied_chips) << ", \"metric\": \""
          << p.metric << "\", \"set\": \"" << o.set << "\", \"calibration\": \""
          << output::json_escape(o.calibration)
          << "\", \"published\": " << (p.published ? output::json_number(*p.published) : "null")
          << ", \"predicted\": " << output::json_number(o.predicted.throughput)
          << ", \"error_pct\": "
          << (p.published ? output::json_number(
                                validation::signed_error(o.predicted.throughput, *p.published))
                          : "null")
          << (p.published ? std::string()
                          : ", \"throughput_not_compared\": \"" +
                                output::json_escape(p.throughput_not_compared) + "\"")
          << ", \"published_intvty\": "
          << (p.published_intvty ? output::json_number(*p.published_intvty) : "null")
          << ", \"predicted_intvty\": " << output::json_number(o.predicted.intvty)
          << ", \"intvty_error_pct\": "
          << (p.published_intvty ? output::json_number(validation::signed_error(
                                       o.predicted.intvty, *p.published_intvty))
                                 : "null");
      if (!o.sweep.empty()) {  // every point the sweep ran, the chosen one at "concurrency"
        out << ", \"sweep\": [";
        for (size_t k = 0; k < o.sweep.size(); ++k) {
          const validation::SweptPoint& s = o.sweep[k];
          out << (k ? ", " : "") << "{\"concurrency\": " << s.concurrency
              << ", \"replica_chips\": " << s.replica_chips
              << ", \"rate\": " << output::json_number(s.rate)
              << ", \"throughput\": " << output::json_number(s.throughput)
              << ", \"p99_ttft_ms\": " << output::json_number(s.p99_ttft_ms)
              << ", \"p99_tpot_ms\": " << output::json_number(s.p99_tpot_ms) << "}";
        }
        out << "]";
      }
      out << "}";
    }
    out << "], \"mape\": {";
    for (size_t g = 0; g < groups.size(); ++g) {
      out << (g ? ", " : "") << "\"" << groups[g].first << "\": {";
      size_t i = 0;
      for (const auto& [key, e] : groups[g].second) {
        out << (i++ ? ", " : "") << "\"" << output::json_escape(key)
            << "\": {\"tput_pct\": " << output::json_number(e.tput())
            << ", \"tput_rows\": " << e.tput_n
            << ", \"intvty_pct\": " << output::json_number(e.intvty())
            << ", \"intvty_rows\": " << e.intvty_n << "}";
      }
      out << "}";
    }
    out << "}}\n";
    return 0;
  }
  std::set<std::string> overlays;
  for (const validation::Outcome& o : outcomes) {
    if (!o.calibration.empty()) overlays.insert(o.calibration);
  }
  std::string overlay_text;
  for (const std::string& s : overlays) overlay_text += (overlay_text.empty() ? "" : ", ") + s;
  out << "# scoville validate: " << path << " (" << fidelity << " fidelity, software "
      << (software.empty() ? "per row: its framework's, else its system's" : software)
      << ", calibration "
      << (!calibration           ? "off (--no-calibration)"
          : overlay_text.empty() ? "none"
                                 : overlay_text)
      << "; one replica of the chips its concurrency is per, TP = EP = those chips)\n";
  out << "#  id  chip   model           isl/osl    conc  rep  set       metric           "
         "published  predicted   error   intvty pub  intvty pred   error  sweep\n";
  int predicted = 0;
  for (const validation::Outcome& o : outcomes) {
    const validation::RowPlan& p = o.plan;
    if (!p.skipped.empty()) continue;
    ++predicted;
    char b[320];
    std::snprintf(b, sizeof b, "%5s  %-5s  %-14s  %5lld/%-5lld %4lld  %3lld  %-8s  %-15s",
                  p.id.c_str(), p.chip.c_str(), p.model.substr(0, 14).c_str(),
                  static_cast<long long>(p.isl), static_cast<long long>(p.osl),
                  static_cast<long long>(p.concurrency), static_cast<long long>(p.replica_chips),
                  o.set.empty() ? "-" : o.set.c_str(), p.metric.substr(0, 15).c_str());
    out << b;
    if (p.published) {
      std::snprintf(b, sizeof b, " %10.1f %10.1f %+7.1f%%", *p.published, o.predicted.throughput,
                    validation::signed_error(o.predicted.throughput, *p.published));
    } else {  // an interactivity-only row (p.throughput_not_compared)
      std::snprintf(b, sizeof b, " %10s %10.1f %8s", "-", o.predicted.throughput, "");
    }
    out << b;
    if (p.published_intvty) {
      std::snprintf(b, sizeof b, " %11.1f %12.1f %+7.1f%%", *p.published_intvty, o.predicted.intvty,
                    validation::signed_error(o.predicted.intvty, *p.published_intvty));
    } else {
      std::snprintf(b, sizeof b, " %11s %12.1f %8s", "-", o.predicted.intvty, "");
    }
    out << b;
    // A swept row: its scenario (conc is the concurrency the sweep chose).
    if (p.scenario != validation::RowScenario::kPoint) out << "  " << to_string(p.scenario);
    out << "\n";
  }
  out << "# mean absolute percentage error (throughput per chip | interactivity, rows):\n";
  for (const auto& [group, table] : groups) {
    for (const auto& [key, e] : table) {
      char b[200];
      std::snprintf(b, sizeof b, "#   %-7s %-14s %6.1f%% (%d) | %6.1f%% (%d)\n", group.c_str(),
                    key.c_str(), e.tput(), e.tput_n, e.intvty(), e.intvty_n);
      out << b;
    }
  }
  std::string unmapped;  // rows whose framework maps to no stack: their system's was used
  for (const validation::Outcome& o : outcomes) {
    if (o.plan.skipped.empty() && o.stack_source == "system") unmapped += " " + o.plan.id;
  }
  if (!unmapped.empty()) {
    out << "# on their system's stack (framework maps to none in framework-stacks.csv):" << unmapped
        << "\n";
  }
  std::map<std::string, std::vector<std::string>> uncompared;  // interactivity-only rows
  for (const validation::Outcome& o : outcomes) {
    if (o.plan.skipped.empty() && !o.plan.published) {
      uncompared[o.plan.throughput_not_compared].push_back(o.plan.id);
    }
  }
  for (const auto& [reason, ids] : uncompared) {
    std::string list;
    for (const std::string& id : ids) list += " " + id;
    out << "# interactivity only, throughput not compared (" << reason << "):" << list << "\n";
  }
  std::map<std::string, std::vector<std::string>> reasons;
  for (const validation::Outcome& o : outcomes) {
    if (!o.plan.skipped.empty()) reasons[o.plan.skipped].push_back(o.plan.id);
  }
  out << "# " << predicted << " rows predicted, " << outcomes.size() - predicted << " skipped:\n";
  for (const auto& [reason, ids] : reasons) {
    std::string list;
    for (size_t i = 0; i < ids.size() && i < 12; ++i) list += (i ? " " : "") + ids[i];
    if (ids.size() > 12) list += " ...";
    out << "#   " << fmt(static_cast<double>(ids.size()), 0) << " x " << reason << " (ids " << list
        << ")\n";
  }
  return 0;
}

}  // namespace scoville::cli
